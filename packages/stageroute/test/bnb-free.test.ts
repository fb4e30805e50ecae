import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import { pool } from "./pools.js";

type Traced = { boundAt: (...args: unknown[]) => number; slope: number };

/** Records every multiplier evaluation of a search's bounds: value and slope, in order. */
function recordEvals(search: SubsetSearch): number[] {
  const log: number[] = [];
  const s = search as unknown as Traced;
  const orig = s.boundAt;
  s.boundAt = function (this: Traced, ...args: unknown[]): number {
    const v = orig.apply(this, args);
    log.push(v, this.slope);
    return v;
  };
  return log;
}

describe("branch-and-bound without a budget: bounds ranked straight from the pool match the routing LP's", () => {
  it("the same bounds (value and slope at every multiplier), nodes and subsets, bit for bit, on 900 random pools with ties, near-ties and tiny caps", () => {
    const rng = Rng.fromSeed("bnb-free");
    const direct = new SubsetSearch();
    const viaLp = new SubsetSearch();
    viaLp.directFill = false;
    const got = recordEvals(direct);
    const want = recordEvals(viaLp);
    let evals = 0;
    let found = 0;
    for (let k = 0; k < 900; k++) {
      const shape = (["rate", "small", "mixed"] as const)[k % 3] as "rate" | "small" | "mixed";
      const n = 8 + rng.int(shape === "rate" ? 60 : 30);
      const s = 2 + rng.int(5);
      const kind = Math.floor(k / 3) % 4;
      const { u, c, a } = pool(rng, n, kind, shape);
      // The budget-relaxed search's rewards (minus the costs) in half the pools; a cap so small that
      // mu / cap overflows in some (the direct fill then hands the node to the routing LP).
      const uu = Float64Array.from(k % 2 === 0 ? u : c.map((v) => -v));
      if (k % 10 === 7) a[rng.int(n)] = 5e-324;
      const ca = Float64Array.from(a);
      const cc = Float64Array.from(c);
      // Relaxed weights: none (reward order), or a few models first.
      const relaxed = new Float64Array(n);
      if (k % 4 < 2) for (let t = 0; t < 3; t++) relaxed[rng.int(n)] = rng.uniform();
      got.length = 0;
      want.length = 0;
      const r1 = direct.solve(uu, cc, ca, n, Number.POSITIVE_INFINITY, s, relaxed);
      const r2 = viaLp.solve(uu, cc, ca, n, Number.POSITIVE_INFINITY, s, relaxed);
      expect(got.length).toBe(want.length);
      for (let q = 0; q < want.length; q++) {
        if (!Object.is(got[q], want[q])) expect([k, q, got[q]]).toEqual([k, q, want[q]]);
      }
      evals += want.length / 2;
      expect([direct.nodes, direct.visits, direct.budgetCuts]).toEqual([viaLp.nodes, viaLp.visits, viaLp.budgetCuts]);
      expect(r1 === undefined).toBe(r2 === undefined);
      if (r1 !== undefined && r2 !== undefined) {
        found++;
        expect(Object.is(r1.value, r2.value)).toBe(true);
        expect(Array.from(r1.weights)).toEqual(Array.from(r2.weights));
      }
    }
    expect(found).toBeGreaterThan(800);
    expect(evals).toBeGreaterThan(50_000);
  });
});
