// Checks of the implementation notes' test list and pitfalls that no other test file made: Proposition 7's
// identities, the closed-form linearized regret (Eq. 11) the statistical tests report, policy sampling,
// Algorithm 2's unit ball, seeded reproducibility, which inner iterate g_m uses (Appendix E.2), clipped
// rewards and eigenvalues removed by the threshold.
import { PlantedQuadraticEnvironment, RoutingMeter } from "@routekit/environments";
import { symmetricEigen } from "@routekit/linalg";
import { describe, expect, test } from "vitest";
import {
  CoinBetting,
  EuclideanPg,
  Hpg,
  MirrorIterate,
  matrixBregman,
  matrixInverseMirrorMap,
  matrixMirrorMap,
  nuclearNorm,
  ParameterFreeHpg,
  softmaxInto,
} from "../src/index.js";
import { randomSymmetric, seeded, unitVector } from "./helpers.js";

const quad = (W: ArrayLike<number>, q: ArrayLike<number>, d: number): number => {
  let s = 0;
  for (let a = 0; a < d; a++)
    for (let b = 0; b < d; b++) s += (q[a] as number) * (W[a * d + b] as number) * (q[b] as number);
  return s;
};

const softmax = (s: number[]): number[] => {
  const mx = Math.max(...s);
  const e = s.map((v) => Math.exp(v - mx));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
};

/** An HPG router trained on a planted environment, so its iterates are neither 0 nor all alike. */
function trained(d: number, arms: string[], rounds: number, seed: number, radius = 2): Hpg {
  const env = new PlantedQuadraticEnvironment({ contextDim: d, models: arms.length, mcSamples: 10 });
  env.reset(seeded(seed));
  const p = new Hpg({ arms: [...env.initialArms], contextDim: d, seed: seed + 1, stepSize: 0.5, radius });
  for (let t = 0; t < rounds; t++) {
    const dec = p.select(env.next(t).context as Float64Array);
    p.update(dec, env.pull(dec.arm));
  }
  return p;
}

describe("Proposition 7's identities on the router's own policy", () => {
  test("pi = softmax(q^T W_m q); <grad L, W_t - W*> = sum pi A log(pi*/pi); L(W_t) - L(W*) = sum pi* A; sum_m grad = 0", () => {
    const d = 5;
    const M = 4;
    const p = trained(d, ["a", "b", "c", "d"], 300, 11);
    const rng = seeded(12);
    for (let trial = 0; trial < 50; trial++) {
      const q = unitVector(rng, d);
      const W = p.arms.map((a) => p.weights(a));
      const pi = Array.from(p.probabilities(q));
      const scores = W.map((Wm) => quad(Wm, q, d));
      const direct = softmax(scores);
      for (let m = 0; m < M; m++) expect(Math.abs((pi[m] as number) - (direct[m] as number))).toBeLessThan(1e-12);
      const Wstar = Array.from({ length: M }, () => randomSymmetric(rng, d));
      const piStar = softmax(Wstar.map((Wm) => quad(Wm, q, d)));
      const R = Array.from({ length: M }, () => rng.uniform());
      const rbar = pi.reduce((s, v, m) => s + v * (R[m] as number), 0);
      const A = R.map((r) => r - rbar);
      // Eq. 27: grad_{W_m} L = -pi_m A_m q q^T, so <grad_m, X> = -pi_m A_m q^T X q.
      let lin = 0;
      let gradSum = 0;
      for (let m = 0; m < M; m++) {
        const g = -(pi[m] as number) * (A[m] as number);
        gradSum += g;
        lin += g * (quad(W[m] as Float64Array, q, d) - quad(Wstar[m] as Float64Array, q, d));
      }
      const logForm = pi.reduce((s, v, m) => s + v * (A[m] as number) * Math.log((piStar[m] as number) / v), 0);
      expect(Math.abs(lin - logForm)).toBeLessThan(1e-12 * Math.max(1, Math.abs(lin)));
      expect(Math.abs(gradSum)).toBeLessThan(1e-15);
      const L = (probs: number[]) => -probs.reduce((s, v, m) => s + v * (R[m] as number), 0);
      const trueRegret = piStar.reduce((s, v, m) => s + v * (A[m] as number), 0);
      expect(Math.abs(L(pi) - L(piStar) - trueRegret)).toBeLessThan(1e-14);
      // The gradient formula itself: a central difference of L along a random symmetric H_m.
      const m0 = trial % M;
      const H = randomSymmetric(rng, d);
      const h = 1e-6;
      const shifted = (sgn: number) => L(softmax(scores.map((s, m) => (m === m0 ? s + sgn * h * quad(H, q, d) : s))));
      const fd = (shifted(1) - shifted(-1)) / (2 * h);
      const exact = -(pi[m0] as number) * (A[m0] as number) * quad(H, q, d);
      expect(Math.abs(fd - exact)).toBeLessThan(1e-7);
    }
  });
});

describe("the linearized regret (Eq. 11) is a sup over the product nuclear ball", () => {
  test("RoutingMeter = sum_t <grad L_t(W_t), W_t> + tau' sum_m |sum_t grad_m L_t|_2, attained by a rank-one W*, never exceeded", () => {
    const d = 4;
    const env = new PlantedQuadraticEnvironment({ contextDim: d, models: 3, mcSamples: 10 });
    env.reset(seeded(21));
    const M = env.models;
    const p = new Hpg({ arms: [...env.initialArms], contextDim: d, seed: 22, stepSize: 0.3 });
    const tau = 2;
    const meter = new RoutingMeter(d, M, tau);
    let linW = 0; // sum_t sum_m <grad_m L_t(W_t), W_{t,m}>, from the router's own matrices
    const G = Array.from({ length: M }, () => new Float64Array(d * d)); // sum_t grad_m L_t
    const queries: { q: Float64Array; g: number[] }[] = [];
    for (let t = 0; t < 300; t++) {
      const q = env.next(t).context as Float64Array;
      const dec = p.select(q);
      const pi = (p.decisionRecord(dec.id).decision.state as { probs: number[] }).probs;
      const R = Array.from(env.means);
      meter.record(q, pi, R);
      const rbar = pi.reduce((s, v, m) => s + v * (R[m] as number), 0);
      const g = pi.map((v, m) => -v * ((R[m] as number) - rbar));
      for (let m = 0; m < M; m++) {
        linW += (g[m] as number) * quad(p.weights(p.arms[m] as string), q, d);
        const Gm = G[m] as Float64Array;
        for (let a = 0; a < d; a++)
          for (let b = 0; b < d; b++)
            Gm[a * d + b] = (Gm[a * d + b] as number) + (g[m] as number) * (q[a] as number) * (q[b] as number);
      }
      queries.push({ q: Float64Array.from(q), g });
      p.update(dec, env.pull(dec.arm));
    }
    // Best comparator: W*_m = -tau sign(l) v v^T for the eigenpair (l, v) of G_m of largest |l|.
    let supTerm = 0;
    const best: Float64Array[] = [];
    for (const Gm of G) {
      const { values, vectors } = symmetricEigen(Float64Array.from(Gm), d);
      const k = Math.abs(values[0] as number) >= Math.abs(values[d - 1] as number) ? 0 : d - 1;
      const l = values[k] as number;
      supTerm += tau * Math.abs(l);
      const W = new Float64Array(d * d);
      for (let a = 0; a < d; a++)
        for (let b = 0; b < d; b++)
          W[a * d + b] = -tau * Math.sign(l) * (vectors[a * d + k] as number) * (vectors[b * d + k] as number);
      best.push(W);
    }
    const closed = linW + supTerm;
    const metered = meter.linearizedRegret();
    expect(Math.abs(metered - closed)).toBeLessThan(1e-9 * Math.max(1, Math.abs(closed)));
    const regretAgainst = (Ws: Float64Array[]) => {
      let s = linW;
      for (const { q, g } of queries)
        for (let m = 0; m < M; m++) s -= (g[m] as number) * quad(Ws[m] as Float64Array, q, d);
      return s;
    };
    expect(Math.abs(regretAgainst(best) - closed)).toBeLessThan(1e-9 * Math.max(1, Math.abs(closed)));
    // Any other comparator of the ball does no better (random spectra scaled to nuclear norm tau).
    const rng = seeded(23);
    for (let trial = 0; trial < 200; trial++) {
      const Ws = Array.from({ length: M }, () => {
        const X = randomSymmetric(rng, d);
        const { values } = symmetricEigen(Float64Array.from(X), d);
        const nuc = values.reduce((s, v) => s + Math.abs(v), 0);
        return X.map((v) => (v * tau * rng.uniform()) / nuc);
      });
      expect(regretAgainst(Ws)).toBeLessThanOrEqual(closed + 1e-9);
    }
  });
});

describe("the softmax policy", () => {
  test("softmax: shift invariant (the same matrix added to every W_m adds q^T C q to every score); finite at |s| = 1e300", () => {
    const rng = seeded(31);
    for (let trial = 0; trial < 100; trial++) {
      const s = Float64Array.from({ length: 5 }, () => 4 * rng.normal());
      const c = 1e3 * rng.normal();
      const a = new Float64Array(5);
      const b = new Float64Array(5);
      softmaxInto(s, 5, a);
      softmaxInto(
        s.map((v) => v + c),
        5,
        b,
      );
      for (let i = 0; i < 5; i++) expect(Math.abs((a[i] as number) - (b[i] as number))).toBeLessThan(1e-12);
    }
    const out = new Float64Array(3);
    softmaxInto(Float64Array.of(1e300, -1e300, 1e300), 3, out);
    expect(Array.from(out)).toEqual([0.5, 0, 0.5]);
  });

  test("sampled models follow pi: chi-square over 10^5 selections at one query, p > 0.001", () => {
    const d = 4;
    const p = trained(d, ["a", "b", "c"], 400, 41, 8);
    const q = unitVector(seeded(42), d);
    const pi = Array.from(p.probabilities(q));
    expect(Math.min(...pi)).toBeGreaterThan(0.005); // every expected count >= 500
    expect(Math.max(...pi)).toBeGreaterThan(0.4); // far from uniform, so a uniform sampler fails
    const N = 100_000;
    const counts = [0, 0, 0];
    for (let n = 0; n < N; n++) {
      const dec = p.select(q);
      const i = p.arms.indexOf(dec.arm);
      counts[i] = (counts[i] as number) + 1;
      p.discard(dec.id);
    }
    const chi2 = counts.reduce((s, c, m) => s + (c - N * (pi[m] as number)) ** 2 / (N * (pi[m] as number)), 0);
    // 2 degrees of freedom: P(chi2 > x) = exp(-x / 2), so p > 0.001 iff chi2 < -2 ln 0.001 = 13.82.
    expect(chi2).toBeLessThan(-2 * Math.log(0.001));
  });
});

/** The per-model state of parameter-free HPG: its inner iterate w_m and its coin. */
const inner = (p: ParameterFreeHpg) =>
  (p as unknown as { table: { states: { coin: CoinBetting; iterate: MirrorIterate }[] } }).table.states;

describe("invariants along runs", () => {
  test("parameter-free HPG (Alg. 2): every inner direction w_m stays in the unit nuclear ball, every round", () => {
    const d = 8;
    const env = new PlantedQuadraticEnvironment({ contextDim: d, models: 3, mcSamples: 10 });
    env.reset(seeded(51));
    const p = new ParameterFreeHpg({ arms: [...env.initialArms], contextDim: d, seed: 52, stepSize: 0.5 });
    let worst = 0;
    for (let t = 0; t < 1500; t++) {
      const dec = p.select(env.next(t).context as Float64Array);
      p.update(dec, env.pull(dec.arm));
      for (const s of inner(p)) worst = Math.max(worst, s.iterate.nuclearNorm());
    }
    expect(worst).toBeLessThanOrEqual(1 + 1e-9);
    expect(worst).toBeGreaterThan(0.99); // the ball is active, so the bound is tested where it binds
  });

  test("seeded runs are bit-reproducible (HPG, parameter-free HPG, Euclidean PG)", () => {
    const d = 6;
    const makers = [
      (arms: string[]) => new Hpg({ arms, contextDim: d, seed: 61, stepSize: 0.5 }),
      (arms: string[]) => new ParameterFreeHpg({ arms, contextDim: d, seed: 61 }),
      (arms: string[]) => new EuclideanPg({ arms, contextDim: d, seed: 61 }),
    ];
    for (const make of makers) {
      const run = () => {
        const env = new PlantedQuadraticEnvironment({ contextDim: d, models: 3, mcSamples: 10 });
        env.reset(seeded(62));
        const p = make([...env.initialArms]);
        const picks: string[] = [];
        for (let t = 0; t < 400; t++) {
          const dec = p.select(env.next(t).context as Float64Array);
          picks.push(dec.arm);
          p.update(dec, env.pull(dec.arm));
        }
        return { picks, snap: JSON.stringify(p.toJSON()) };
      };
      const a = run();
      const b = run();
      expect(b.picks).toEqual(a.picks);
      expect(b.snap).toBe(a.snap);
      expect(new Set(a.picks).size).toBe(3);
    }
  });
});

describe("parameter-free HPG computes g_m with the decision's inner iterate and bet", () => {
  test("late feedback moves each coin by g = c_m a_m with a_m = <w_m, q q^T> at decision time, not at feedback time", () => {
    const d = 4;
    const arms = ["a", "b"];
    const p = new ParameterFreeHpg({ arms, contextDim: d, seed: 71, stepSize: 0.8 });
    const rng = seeded(72);
    // Warm up so the bets are not 0 and the iterates move.
    for (let t = 0; t < 30; t++) {
      const dec = p.select(unitVector(rng, d));
      p.update(dec, { reward: dec.arm === "a" ? 1 : -0.5 });
    }
    const q1 = unitVector(rng, d);
    const d1 = p.select(q1);
    const st1 = p.decisionRecord(d1.id).decision.state as { probs: number[]; aux: number[] };
    // Feedback of a later decision changes the inner iterates and the coins before d1's arrives.
    const d2 = p.select(unitVector(rng, d));
    p.update(d2, { reward: 1 });
    const snap = ParameterFreeHpg.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
    const coins = inner(snap);
    const now = coins.map((s) => s.iterate.score(q1));
    const r = 1;
    const chosen = arms.indexOf(d1.arm);
    const predict = (useDecisionScore: boolean) =>
      coins.map((s, i) => {
        const c = new CoinBetting(1);
        c.wealth = s.coin.wealth;
        c.fraction = s.coin.fraction;
        c.curvature = s.coin.curvature;
        const cm = -r * ((i === chosen ? 1 : 0) - (st1.probs[i] as number));
        const a = useDecisionScore ? (st1.aux[2 * i] as number) : (now[i] as number);
        const z0 = st1.aux[2 * i + 1] as number;
        const z = Math.max(-0.5 * c.wealth, Math.min(0.5 * c.wealth, z0));
        c.update(cm * a, z);
        return c.wealth;
      });
    const right = predict(true);
    const wrong = predict(false);
    p.update(d1, { reward: r });
    const got = p.magnitudes().map((m) => m.wealth);
    for (let i = 0; i < 2; i++) {
      expect(got[i]).toBe(right[i]);
      // The alternative reading gives other wealths, so the check can tell them apart.
      expect(Math.abs((wrong[i] as number) - (right[i] as number))).toBeGreaterThan(1e-9);
    }
  });
});

describe("clipped rewards, removed eigenvalues", () => {
  test("by default a reward above 1 (below -1) updates exactly as 1 (-1) does", () => {
    const d = 4;
    const rng = seeded(81);
    const qs = Array.from({ length: 20 }, () => unitVector(rng, d));
    const rewards = qs.map((_, t) => (t % 3 === 0 ? 7 : t % 3 === 1 ? -3 : 0.4));
    const run = (clip: (r: number) => number) => {
      const p = new Hpg({ arms: ["a", "b", "c"], contextDim: d, seed: 82, stepSize: 0.5 });
      for (let t = 0; t < qs.length; t++)
        p.update(p.select(qs[t] as Float64Array), { reward: clip(rewards[t] as number) });
      return JSON.stringify(p.toJSON());
    };
    const raw = run((r) => r);
    expect(raw).toBe(run((r) => Math.max(-1, Math.min(1, r))));
    expect(raw).not.toBe(run((r) => r / 7)); // the rewards do matter: scaling them changes the state
  });

  test("an eigenvalue soft-thresholded to exactly 0 leaves the spectrum (the rank drops, its score is 0)", () => {
    const d = 4;
    const it = new MirrorIterate({ dim: d, beta: 1 / d, radius: 1 });
    const e = (i: number) => Float64Array.from({ length: d }, (_, j) => (j === i ? 1 : 0));
    it.step(e(0), 50);
    expect(it.rank).toBe(1);
    expect(it.score(e(0))).toBeCloseTo(1, 12); // saturates the ball along e_0
    // Along e_1 the mirror eigenvalue is 100 against asinh(4) = 2.09 along e_0, so the threshold
    // (about 100 - asinh(4)) removes e_0.
    it.step(e(1), 100);
    expect(it.lastThreshold).toBeGreaterThan(Math.asinh(4));
    expect(it.rank).toBe(1);
    expect(it.score(e(0))).toBe(0);
    expect(it.score(e(1))).toBeCloseTo(1, 12);
  });
});

describe("a full mirror-descent step solves Eq. 14 (small d, against random feasible points)", () => {
  test.each([2, 3])(
    "d = %i: W_(t+1) minimises -rho q^T W q + D_Phi(W || W_t) over the nuclear ball; the Euclidean rescaling does not",
    (d) => {
      const rng = seeded(90 + d);
      const tau = 1;
      const beta = tau / d;
      const it = new MirrorIterate({ dim: d, beta, radius: tau });
      for (let t = 0; t < 20; t++) it.step(unitVector(rng, d), 2 * rng.normal());
      let checked = 0;
      for (let t = 0; t < 30; t++) {
        const Wt = it.toDense();
        const q = unitVector(rng, d);
        const rho = 3 * rng.normal();
        it.step(q, rho);
        const next = it.toDense();
        const f = (W: Float64Array) => -rho * quad(W, q, d) + matrixBregman(W, Wt, d, beta);
        const fNext = f(next);
        const feasible = (W: Float64Array) => {
          const n = nuclearNorm(W, d);
          return n <= tau ? W : W.map((v) => (v * tau) / n);
        };
        for (let k = 0; k < 300; k++) {
          const H = randomSymmetric(rng, d);
          const scale = 10 ** (-4 + 4 * rng.uniform());
          const near = feasible(next.map((v, i) => v + scale * (H[i] as number)));
          expect(f(near)).toBeGreaterThanOrEqual(fNext - 1e-12);
          const shrink = rng.uniform();
          const far = feasible(randomSymmetric(rng, d).map((v) => v * shrink));
          expect(f(far)).toBeGreaterThanOrEqual(fNext - 1e-12);
        }
        if (it.lastThreshold > 0) {
          // Projection active: rescaling the unprojected point onto the ball is feasible but worse.
          const Y = matrixMirrorMap(Wt, d, beta);
          for (let a = 0; a < d; a++)
            for (let b = 0; b < d; b++)
              Y[a * d + b] = (Y[a * d + b] as number) + rho * (q[a] as number) * (q[b] as number);
          const scaled = feasible(matrixInverseMirrorMap(Y, d, beta));
          expect(f(scaled)).toBeGreaterThan(fNext + 1e-9);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(5);
    },
  );
});
