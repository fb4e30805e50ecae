import { Rng } from "@routekit/core";
import { ContextualMnlEnvironment } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { bruteForceAssortment, optimalAssortment } from "../src/index.js";

describe("ContextualMnlEnvironment (the setup of the paper's Section 6)", () => {
  it("clips features to ||x|| <= 1 and draws w* in the box; same seed, same stream", () => {
    const env = new ContextualMnlEnvironment({ numItems: 50, contextDim: 5 });
    env.reset(Rng.fromSeed(1));
    const w = env.parameter;
    for (const v of w) expect(Math.abs(v)).toBeLessThanOrEqual(1 / Math.sqrt(5));
    let atClip = 0;
    for (let t = 0; t < 20; t++) {
      const q = env.next(t);
      expect(q.revenues).toBeUndefined();
      for (let i = 0; i < 50; i++) {
        let s = 0;
        for (let k = 0; k < 5; k++) {
          const x = q.features[i * 5 + k]!;
          s += x * x;
          if (Math.abs(x) === 1 / Math.sqrt(5)) atClip++;
        }
        expect(Math.sqrt(s)).toBeLessThanOrEqual(1 + 1e-12);
      }
    }
    // about 65 % of coordinates sit at the clip point (P(|N(0,1)| > 0.447) = 0.655)
    expect(atClip / (20 * 250)).toBeGreaterThan(0.62);
    expect(atClip / (20 * 250)).toBeLessThan(0.69);
    const other = new ContextualMnlEnvironment({ numItems: 50, contextDim: 5 });
    other.reset(Rng.fromSeed(1));
    expect(Array.from(other.parameter)).toEqual(Array.from(w));
  });

  it("oracle equals brute force on small N (uniform and non-uniform revenues, v0 = K/5)", () => {
    for (const rewards of ["uniform", "nonuniform"] as const) {
      const env = new ContextualMnlEnvironment({
        numItems: 9,
        contextDim: 3,
        maxSize: 3,
        v0: 0.6,
        rewards,
        oracle: optimalAssortment,
      });
      env.reset(Rng.fromSeed(2));
      for (let t = 0; t < 200; t++) {
        const q = env.next(t);
        const u = env.trueUtilities;
        const r = q.revenues ?? new Float64Array(9).fill(1);
        const bf = bruteForceAssortment(
          Array.from(u, (x) => Math.exp(x)),
          r,
          9,
          3,
          0.6,
        );
        expect(env.oracleRevenue()).toBeCloseTo(bf.revenue, 12);
        expect(env.expectedRevenue(bf.items)).toBeCloseTo(bf.revenue, 12);
        if (rewards === "uniform") expect(env.oracleAssortment.length).toBe(3);
      }
    }
  });

  it("uniform-revenue oracle: the top-K utilities, best first, ties to the lower index, as a fresh array", () => {
    for (const [numItems, maxSize] of [
      [100, 15],
      [10, 15],
      [1, 1],
    ] as const) {
      const env = new ContextualMnlEnvironment({ numItems, contextDim: 5, maxSize });
      env.reset(Rng.fromSeed(4));
      for (let t = 0; t < 100; t++) {
        env.next(t);
        const u = env.trueUtilities;
        const sorted = [...Array(numItems).keys()].sort((a, c) => u[c]! - u[a]! || a - c);
        const oracle = env.oracleAssortment;
        expect(oracle).toEqual(sorted.slice(0, Math.min(maxSize, numItems)));
        // The same numbers summed in the same order as the revenue of the same items offered.
        expect(Object.is(env.oracleRevenue(), env.expectedRevenue(oracle))).toBe(true);
        expect(env.oracleAssortment).not.toBe(oracle);
      }
    }
  });

  it("choice frequencies match the MNL probabilities (chi-square, 1e5 draws)", () => {
    const env = new ContextualMnlEnvironment({ numItems: 10, contextDim: 4, maxSize: 4, v0: 2 });
    env.reset(Rng.fromSeed(3));
    env.next(0);
    const items = [7, 2, 5];
    const p = env.choiceProbabilities(items);
    const counts = [0, 0, 0, 0];
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const c = env.choose(items);
      counts[c === null ? 3 : items.indexOf(c)]!++;
    }
    let chi2 = 0;
    for (let j = 0; j < 4; j++) chi2 += (counts[j]! - n * p[j]!) ** 2 / (n * p[j]!);
    // 3 degrees of freedom: P(chi2 > 16.27) = 0.001
    expect(chi2).toBeLessThan(16.27);
  });

  it("rejects bad assortments and missing oracles with typed errors", () => {
    expect(() => new ContextualMnlEnvironment({ rewards: "nonuniform" })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
    expect(() => new ContextualMnlEnvironment({ maxSize: 0 })).toThrow(
      expect.objectContaining({ code: "OUT_OF_RANGE" }),
    );
    const env = new ContextualMnlEnvironment({ numItems: 6, contextDim: 2, maxSize: 2 });
    expect(() => env.next(0)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    env.reset(Rng.fromSeed(4));
    env.next(0);
    expect(() => env.choose([0, 1, 2])).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => env.choose([6])).toThrow(expect.objectContaining({ code: "OUT_OF_RANGE" }));
    expect(() => env.expectedRevenue([1, 1])).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(env.expectedRevenue([])).toBe(0);
  });
});
