import { LinUCBDisjoint } from "@routekit/classic";
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { PakUcb } from "../src/index.js";
import { seeded, spdInverse, unitVectors } from "./helpers.js";

describe("PAK-UCB-lin = disjoint LinUCB", () => {
  it("same mu, sigma and picks as the primal per-arm ridge A = alpha I + sum y y^T", () => {
    const d = 6;
    const rng = Rng.fromSeed(1);
    const p = new PakUcb({
      arms: ["a", "b", "c"],
      contextDim: d,
      kernel: { type: "linear" },
      exploration: 1.5,
      seed: 1,
    });
    const data: Record<string, { A: Float64Array; b: Float64Array }> = {};
    for (const g of ["a", "b", "c"]) {
      const A = new Float64Array(d * d);
      for (let i = 0; i < d; i++) A[i * d + i] = 1;
      data[g] = { A, b: new Float64Array(d) };
    }
    const primal = (g: string, y: Float64Array) => {
      const { A, b } = data[g] as { A: Float64Array; b: Float64Array };
      const inv = spdInverse(A, d);
      let mu = 0;
      let q = 0;
      for (let i = 0; i < d; i++)
        for (let j = 0; j < d; j++) {
          mu += (y[i] as number) * (inv[i * d + j] as number) * (b[j] as number);
          q += (y[i] as number) * (inv[i * d + j] as number) * (y[j] as number);
        }
      return { mu, sigma: Math.sqrt(q) };
    };
    for (const [t, y] of unitVectors(seeded(2), 200, d).entries()) {
      if (t >= 3) {
        const pr = p.predict(y);
        let best = "";
        let bestU = Number.NEGATIVE_INFINITY;
        for (const x of pr) {
          const ref = primal(x.arm, y);
          expect(Math.abs(x.mean - ref.mu)).toBeLessThan(1e-10);
          expect(Math.abs(x.sigma - ref.sigma)).toBeLessThan(1e-10);
          if (ref.mu + 1.5 * ref.sigma > bestU) {
            bestU = ref.mu + 1.5 * ref.sigma;
            best = x.arm;
          }
        }
        const dec = p.select(y);
        expect(dec.arm).toBe(best);
        const r = rng.uniform();
        p.update(dec, { reward: r });
        const { A, b } = data[dec.arm] as { A: Float64Array; b: Float64Array };
        for (let i = 0; i < d; i++) {
          b[i] = (b[i] as number) + r * (y[i] as number);
          for (let j = 0; j < d; j++) A[i * d + j] = (A[i * d + j] as number) + (y[i] as number) * (y[j] as number);
        }
      } else {
        const dec = p.select(y);
        const r = rng.uniform();
        p.update(dec, { reward: r });
        const { A, b } = data[dec.arm] as { A: Float64Array; b: Float64Array };
        for (let i = 0; i < d; i++) {
          b[i] = (b[i] as number) + r * (y[i] as number);
          for (let j = 0; j < d; j++) A[i * d + j] = (A[i * d + j] as number) + (y[i] as number) * (y[j] as number);
        }
      }
    }
  });

  it("matches @routekit/classic LinUCBDisjoint's ridge estimate on the same data", () => {
    const d = 5;
    const rng = Rng.fromSeed(3);
    const p = new PakUcb({
      arms: ["a"],
      contextDim: d,
      kernel: { type: "linear" },
      exploration: 1,
      normalizeContext: false,
    });
    const l = new LinUCBDisjoint({ arms: ["a"], contextDim: d, exploration: 1, ridge: 1, seed: 1 });
    for (const y of unitVectors(seeded(4), 300, d)) {
      const r = rng.uniform();
      p.update(p.select(y), { reward: r });
      l.update(l.select(y), { reward: r });
    }
    const theta = l.theta("a");
    for (const y of unitVectors(seeded(5), 10, d)) {
      let mu = 0;
      for (let i = 0; i < d; i++) mu += (y[i] as number) * (theta[i] as number);
      expect(Math.abs((p.predict(y)[0]?.mean as number) - mu)).toBeLessThan(1e-10);
    }
  });
});
