// Checks of the implementation notes' test list and pitfalls that no other test file made, or made only in
// part: oracle equivalence of COSMOS itself (not the oracle baseline), the index error's 2x drop, ties, no
// outside option, indices fixed when an episode begins, mu = 1, a non-unique rho-hat, the start of the reward fit.
import { Rng } from "@routekit/core";
import { envA } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { Cosmos, IndexSolver, indexLink, sampleLoss, sampleLossDerivative, WeitzmanOracle } from "../src/index.js";
import { ENV_A_ARMS, known, play } from "./helpers.js";

type Cascade = Pick<Cosmos, "begin" | "next" | "observe" | "choose" | "discard">;

/** One episode with the outputs given per box; returns the boxes called in order and the deployed one. */
function episode(p: Cascade, ctx: Float64Array, out: Record<string, { r: number; c: number }>, discard = true) {
  const e = p.begin(ctx);
  const called: string[] = [];
  for (let s = p.next(e); "query" in s; s = p.next(e)) {
    called.push(s.query);
    const o = out[s.query] as { r: number; c: number };
    p.observe(e, s.query, Float64Array.of(o.r, 0, 0, 0), o.c);
  }
  const chosen = p.choose(e);
  if (discard) p.discard(e);
  return { e, called, chosen };
}

describe("oracle equivalence of COSMOS itself", () => {
  it("with zero radii and a known reward, COSMOS calls and deploys exactly as Weitzman's oracle given its rho-hat", () => {
    const p = known({ exploration: 0, seed: 1 });
    // Learn rho-hat on Env-A first, so the indices differ across boxes and contexts.
    play(
      () => envA(),
      () => p,
      400,
      2,
    );
    const oracle = new WeitzmanOracle({
      arms: ENV_A_ARMS,
      contextDim: 2,
      outputDim: 4,
      indexLink: "linear",
      indexParameters: Object.fromEntries(ENV_A_ARMS.map((a) => [a, Array.from(p.indexParameter(a))])),
      rewardParameter: [1, 0, 0, 0],
    });
    const rng = Rng.fromSeed(3);
    const sizes = new Set<number>();
    for (let t = 0; t < 500; t++) {
      const ctx = Float64Array.of(rng.uniformIn(-1, 1), rng.uniformIn(-1, 1));
      const out = Object.fromEntries(ENV_A_ARMS.map((a) => [a, { r: rng.uniform(), c: 0.05 * rng.uniform() }]));
      const a = episode(p, ctx, out);
      const b = episode(oracle, ctx, out);
      expect(a.called).toEqual(b.called);
      expect(a.chosen).toBe(b.chosen);
      sizes.add(a.called.length);
    }
    // Not vacuous: the stopping rule ends episodes after one, two and three calls.
    expect([...sizes].sort()).toEqual([1, 2, 3]);
  });
});

describe("index estimator consistency", () => {
  it("the index estimate's error drops about 2x from n = 1000 to n = 4000 (mean over 20 seeds: ratio < 0.65)", () => {
    const link = indexLink("linear", 0.9);
    const L = [0.3, 0, 0.15];
    const w = 0.55;
    const cbar = 0.04;
    const rhoTrue = [(L[0] as number) + w - Math.sqrt(2 * w * cbar), L[1] as number, L[2] as number];
    const err = (n: number, seed: number) => {
      const rng = Rng.fromSeed(seed);
      const Psi = new Float64Array(n * 3);
      const mu = new Float64Array(n);
      const c = new Float64Array(n);
      for (let s = 0; s < n; s++) {
        const x1 = rng.uniformIn(-1, 1);
        const x2 = rng.uniformIn(-1, 1);
        Psi.set([1, x1, x2], s * 3);
        mu[s] = (L[0] as number) + (L[1] as number) * x1 + (L[2] as number) * x2 + w * rng.uniform();
        c[s] = cbar * (0.5 + rng.uniform());
      }
      const rho = new Float64Array(3);
      new IndexSolver(3).solve(link, Psi, mu, c, n, 3, rho);
      return Math.hypot(...rhoTrue.map((v, k) => (rho[k] as number) - v));
    };
    let e1 = 0;
    let e4 = 0;
    for (let seed = 0; seed < 20; seed++) {
      e1 += err(1000, 100 + seed);
      e4 += err(4000, 200 + seed);
    }
    // sqrt(1000 / 4000) = 0.5 at the root-n rate.
    expect(e4 / e1).toBeLessThan(0.65);
    expect(e4 / e1).toBeGreaterThan(0.35);
  });
});

describe("ties", () => {
  it("equal indices are called in the order the boxes were added (not by name); a box added later goes last", () => {
    const arms = ["zeta", "alpha", "mid"];
    const rho = [0.4, 0, 0];
    const oracle = new WeitzmanOracle({
      arms,
      contextDim: 2,
      outputDim: 4,
      indexLink: "linear",
      indexParameters: { zeta: rho, alpha: rho, mid: rho, aaa: rho },
      rewardParameter: [1, 0, 0, 0],
    });
    const low = Object.fromEntries([...arms, "aaa"].map((a) => [a, { r: 0.1, c: 0.01 }]));
    const ctx = Float64Array.of(0.3, -0.2);
    expect(episode(oracle, ctx, low).called).toEqual(["zeta", "alpha", "mid"]);
    oracle.addArm("aaa");
    expect(episode(oracle, ctx, low).called).toEqual(["zeta", "alpha", "mid", "aaa"]);
    // COSMOS: boxes without data all have index +Infinity, a tie broken the same way.
    const p = new Cosmos({ arms, contextDim: 2, outputDim: 4, rewardParameter: [1, 0, 0, 0] });
    expect(episode(p, ctx, low).called).toEqual(["zeta", "alpha", "mid"]);
  });
});

describe("no outside option", () => {
  it("when every index is negative the policy still calls one box and deploys its answer", () => {
    const arms = ["a", "b"];
    const oracle = new WeitzmanOracle({
      arms,
      contextDim: 2,
      outputDim: 4,
      indexLink: "linear",
      indexParameters: { a: [-0.2, 0, 0], b: [-0.5, 0, 0] },
      rewardParameter: [1, 0, 0, 0],
    });
    const ctx = Float64Array.of(0.1, 0.1);
    const link = indexLink("linear", 0.9);
    expect(link.value(-0.2)).toBeLessThan(0);
    expect(link.value(-0.5)).toBeLessThan(link.value(-0.2));
    const r = episode(oracle, ctx, { a: { r: 0, c: 0.3 }, b: { r: 0, c: 0.6 } });
    // The first reward (0) is above the next index (-0.5): stop after one call.
    expect(r.called).toEqual(["a"]);
    expect(r.chosen).toBe("a");
  });
});

describe("non-anticipation", () => {
  it("an episode keeps the indices and order it began with while other episodes are learned", () => {
    const p = known({ exploration: 0, seed: 4 });
    play(
      () => envA(),
      () => p,
      200,
      5,
    );
    const ctx = Float64Array.of(0.2, 0.4);
    const before = Array.from(p.optimisticIndices(ctx).sigma);
    const order = ENV_A_ARMS.map((a, i) => [a, before[i] as number] as const)
      .sort((x, y) => y[1] - x[1])
      .map(([a]) => a);
    const first = order[0] as string;
    const e = p.begin(ctx);
    // Meanwhile the first box keeps answering badly and expensively, which lowers its index below another's.
    for (let t = 0; t < 300; t++) {
      const bad = Object.fromEntries(ENV_A_ARMS.map((a) => [a, a === first ? { r: 0, c: 0.5 } : { r: 0.9, c: 0.01 }]));
      const r = episode(p, ctx, bad, false);
      p.feedback(r.e, r.chosen === first ? 0 : 0.9);
    }
    const after = Array.from(p.optimisticIndices(ctx).sigma);
    const i = ENV_A_ARMS.indexOf(first);
    expect(after[i]).toBeLessThan(Math.max(...after.filter((_, k) => k !== i)));
    const fresh = p.begin(ctx);
    expect(p.next(fresh)).not.toEqual({ query: first }); // a new episode starts elsewhere
    p.discard(fresh);
    // The old episode still asks its first box first, and stops against its own planned indices.
    expect(p.next(e)).toEqual({ query: first });
    const second = before[ENV_A_ARMS.indexOf(order[1] as string)] as number;
    p.observe(e, first, Float64Array.of(second, 0, 0, 0), 0.01);
    expect(p.next(e)).toEqual({ stop: true });
  });
});

describe("range handling", () => {
  it("mu = 1 on the tanh and logistic links (u* = +Infinity): finite loss and derivative, minimiser Lambda^-1(1 - c)", () => {
    for (const name of ["tanh", "logistic"] as const) {
      const link = indexLink(name);
      expect(link.inverse(1)).toBe(Number.POSITIVE_INFINITY);
      for (const z of [-3, 0, 0.5, 3]) {
        expect(Number.isFinite(sampleLoss(link, 1, 0.05, z))).toBe(true);
        expect(Number.isFinite(sampleLossDerivative(link, 1, 0.05, z))).toBe(true);
      }
      const rho = new Float64Array(1);
      new IndexSolver(1).solve(link, Float64Array.of(1), Float64Array.of(1), Float64Array.of(0.05), 1, 5, rho);
      expect(rho[0]).toBeCloseTo(link.inverse(0.95), 8);
    }
  });
});

describe("a non-unique rho-hat", () => {
  it("a rank-deficient design (one context repeated) gives finite rho with rho . psi equal to the 1-D solution", () => {
    const link = indexLink("tanh");
    const rng = Rng.fromSeed(9);
    const n = 200;
    const psi = [1, 0.3, -0.2];
    const Psi = new Float64Array(n * 3);
    const ones = new Float64Array(n).fill(1);
    const mu = new Float64Array(n);
    const c = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      Psi.set(psi, s * 3);
      mu[s] = 0.3 + 0.5 * rng.uniform();
      c[s] = 0.02 + 0.05 * rng.uniform();
    }
    const rho = new Float64Array(3);
    new IndexSolver(3).solve(link, Psi, mu, c, n, 3, rho);
    const z1 = new Float64Array(1);
    new IndexSolver(1).solve(link, ones, mu, c, n, 3, z1);
    expect(rho.every(Number.isFinite)).toBe(true);
    const z = rho.reduce((s, v, k) => s + v * (psi[k] as number), 0);
    expect(z).toBeCloseTo(z1[0] as number, 6);
    // Only the direction along psi is determined: the damping keeps rho in it (the minimum-norm solution).
    const along = z / psi.reduce((s, v) => s + v * v, 0);
    for (let k = 0; k < 3; k++) expect(rho[k]).toBeCloseTo(along * (psi[k] as number), 6);
  });
});

describe("the learned reward before any reward data", () => {
  it("theta-hat = 0, a finite reward radius at t = 1, and the first episodes run without NaN", () => {
    const p = new Cosmos({ arms: ENV_A_ARMS, contextDim: 2, outputDim: 4, rewardLink: "logistic", seed: 6 });
    expect(Array.from(p.rewardParameter())).toEqual([0, 0, 0, 0]);
    const Phi = (p as unknown as { reward: { Phi: Float64Array } }).reward.Phi;
    const ridge = p.config.ridge;
    expect(Array.from(Phi)).toEqual(Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? ridge : 0)));
    expect(Number.isFinite(p.rewardRadius())).toBe(true);
    expect(p.rewardRadius()).toBeGreaterThan(0);
    const run = play(
      () => envA(),
      () => p,
      50,
      7,
    );
    expect(Number.isFinite(run.final.regret)).toBe(true);
    expect(p.rewardParameter().every(Number.isFinite)).toBe(true);
  });
});
