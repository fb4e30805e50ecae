import { Rng } from "@routekit/core";
import { PlantedQuadraticEnvironment } from "@routekit/environments";
import { describe, expect, test } from "vitest";
import { Hpg } from "../src/index.js";
import { unitVector } from "./helpers.js";

describe("HPG gradient estimate", () => {
  test("unbiased: the Monte-Carlo mean of the update coefficients matches -pi_m (R_m - Rbar) within 4 s.e.", () => {
    // From W = 0 one step gives W_m = beta sinh(rho_m) q q^T, so rho_m = asinh(q^T W_m q / beta) recovers the
    // coefficient the code applied, and G_m = -(rho_m / eta) q q^T. m_t ~ pi (the event's distribution), r ~ Bern(R_{m_t}).
    const d = 3;
    const arms = ["a", "b", "c"];
    const pi = [0.5, 0.3, 0.2];
    const R = [0.2, 0.9, 0.5];
    const rbar = pi.reduce((s, p, i) => s + p * (R[i] as number), 0);
    const q = unitVector(Rng.fromSeed(1), d);
    const rng = Rng.fromSeed(2);
    const N = 20_000;
    const sum = [0, 0, 0];
    const sq = [0, 0, 0];
    let maxNormSq = 0;
    for (let n = 0; n < N; n++) {
      const p = new Hpg({ arms, contextDim: d, stepSize: 0.01, radius: 100 });
      const mt = rng.categorical(pi);
      const r = rng.uniform() < (R[mt] as number) ? 1 : 0;
      p.learn({
        v: 1,
        kind: Hpg.kind,
        protocol: "arm",
        id: "x",
        decision: { arm: arms[mt] as string, context: Array.from(q), state: { arms, probs: pi } },
        feedback: { reward: r },
      });
      let normSq = 0;
      for (let m = 0; m < 3; m++) {
        const W = p.weights(arms[m] as string);
        let s = 0;
        for (let a = 0; a < d; a++)
          for (let b = 0; b < d; b++) s += (q[a] as number) * (W[a * d + b] as number) * (q[b] as number);
        const g = -Math.asinh(s / p.beta) / p.stepSize; // coefficient of q q^T in G_m
        sum[m] = (sum[m] as number) + g;
        sq[m] = (sq[m] as number) + g * g;
        normSq += g * g;
      }
      maxNormSq = Math.max(maxNormSq, normSq);
    }
    for (let m = 0; m < 3; m++) {
      const mean = (sum[m] as number) / N;
      const se = Math.sqrt(((sq[m] as number) / N - mean * mean) / N);
      const exact = -(pi[m] as number) * ((R[m] as number) - rbar);
      expect(Math.abs(mean - exact)).toBeLessThan(4 * se);
    }
    // sum_m |G_m|_2^2 <= 2 for |r| <= 1 and |q| = 1.
    expect(maxNormSq).toBeLessThanOrEqual(2 + 1e-9);
  });

  test("sum_m rho_m = 0 every round, so sum_m Y_m = 0 while the ball is never active", () => {
    const d = 8;
    const env = new PlantedQuadraticEnvironment({ contextDim: d, models: 4, mcSamples: 10 });
    env.reset(Rng.fromSeed(3));
    const p = new Hpg({ arms: [...env.initialArms], contextDim: d, radius: 1e6, seed: 4, horizon: 300 });
    for (let t = 0; t < 300; t++) {
      const q = env.next(t).context as Float64Array;
      const dec = p.select(q);
      p.update(dec, env.pull(dec.arm));
    }
    const its = (
      p as unknown as { table: { states: { iterate: { eig: { toDense(o: Float64Array): Float64Array } } }[] } }
    ).table.states;
    const total = new Float64Array(d * d);
    for (const s of its) {
      const Y = s.iterate.eig.toDense(new Float64Array(d * d));
      for (let i = 0; i < d * d; i++) total[i] = (total[i] as number) + (Y[i] as number);
    }
    for (const v of total) expect(Math.abs(v)).toBeLessThan(1e-10);
  });

  test("sign convention: a rewarded model's score rises along q, the others' fall", () => {
    const d = 4;
    const q = unitVector(Rng.fromSeed(5), d);
    const p = new Hpg({ arms: ["a", "b"], contextDim: d, seed: 6 });
    const dec = p.select(q);
    p.update(dec, { reward: 1 });
    const pi = p.probabilities(q);
    const chosen = dec.arm === "a" ? 0 : 1;
    expect(pi[chosen]).toBeGreaterThan(0.5);
  });

  test("the nuclear norm of every iterate stays <= radius on a long run with the ball active", () => {
    const d = 8;
    const env = new PlantedQuadraticEnvironment({ contextDim: d, models: 3, mcSamples: 10 });
    env.reset(Rng.fromSeed(7));
    const p = new Hpg({ arms: [...env.initialArms], contextDim: d, radius: 0.5, seed: 8, stepSize: 0.5 });
    let worst = 0;
    for (let t = 0; t < 2000; t++) {
      const q = env.next(t).context as Float64Array;
      const dec = p.select(q);
      p.update(dec, env.pull(dec.arm));
      for (const s of p.spectra()) worst = Math.max(worst, s.nuclearNorm);
    }
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
    expect(worst).toBeGreaterThan(0.49);
  });
});
