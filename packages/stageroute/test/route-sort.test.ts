import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { BreakpointSolver } from "../src/route-breakpoints.js";
import { RouteSolver } from "../src/route-lp.js";

/** The exact breakpoint search as before 0.1.1: insertion sort, and room for every pair of the pool. */
class ReferenceBreakpoints extends BreakpointSolver {
  protected override sortByCost(u: ArrayLike<number>, c: ArrayLike<number>, n: number): void {
    ReferenceSolver.prototype.sortByCost.call(this, u, c, n);
  }

  protected override lamFor(_m: number): Float64Array {
    return new Float64Array((this.cap * (this.cap - 1)) / 2 + 1);
  }
}

/** The cost order as computed before 0.1.1: one insertion sort, O(n^2). */
class ReferenceSolver extends RouteSolver {
  override sortByCost(u: ArrayLike<number>, c: ArrayLike<number>, n: number): void {
    const idx = this.idx;
    for (let i = 0; i < n; i++) {
      const ci = c[i] as number;
      const ui = u[i] as number;
      let j = i;
      while (j > 0) {
        const w = idx[j - 1] as number;
        const cw = c[w] as number;
        if (ci < cw || (ci === cw && ui > (u[w] as number))) {
          idx[j] = w;
          j--;
        } else break;
      }
      idx[j] = i;
    }
  }

  order(u: ArrayLike<number>, c: ArrayLike<number>, n: number): number[] {
    this.grow(n);
    this.sortByCost(u, c, n);
    return Array.from(this.idx.subarray(0, n));
  }
}

class Probe extends RouteSolver {
  order(u: ArrayLike<number>, c: ArrayLike<number>, n: number): number[] {
    this.grow(n);
    this.sortByCost(u, c, n);
    return Array.from(this.idx.subarray(0, n));
  }
}

describe("the routing LP's cost order (merge sort) and lazily sized buffers match what they replaced", () => {
  it("the same order and bit-identical routings on 3,000 random pools of 1..600 models with tied costs and rewards", () => {
    const rng = Rng.fromSeed("route-sort");
    const ref = new ReferenceSolver(4);
    const probe = new Probe(4);
    const fast = new RouteSolver(4);
    const exactRef = new ReferenceBreakpoints(4);
    const exact = new BreakpointSolver(4);
    const out1 = new Float64Array(600);
    const out2 = new Float64Array(600);
    for (let t = 0; t < 3000; t++) {
      const n = 1 + rng.int(t < 2000 ? 64 : 600);
      const grid = 1 + rng.int(6);
      const tie = () => rng.int(grid) / grid;
      const c = Array.from({ length: n }, () => (rng.uniform() < 0.6 ? 0.1 + tie() : 0.1 + rng.uniform()));
      // A third of the pools are all on the cost-reward frontier (reward rising with cost): the breakpoint
      // search keeps every model and has O(n^2) order-change points.
      const frontier = t % 3 === 0;
      const u = c.map((ci) => (frontier ? Math.sqrt(ci) : rng.uniform() < 0.6 ? tie() : rng.uniform()));
      const a = Array.from({ length: n }, () => (rng.uniform() < 0.5 ? 1 / (1 + rng.int(8)) : 0.01 + rng.uniform()));
      expect(probe.order(u, c, n)).toEqual(ref.order(u, c, n));
      const b = 0.1 + rng.uniform();
      const s1 = ref.solve(u, c, a, n, b, out1);
      const s2 = fast.solve(u, c, a, n, b, out2);
      expect(s2).toBe(s1);
      expect(Object.is(fast.value, ref.value) || (Number.isNaN(fast.value) && Number.isNaN(ref.value))).toBe(true);
      expect(Array.from(out2.subarray(0, n))).toEqual(Array.from(out1.subarray(0, n)));
      // The breakpoint search (its order-change points now in a buffer sized on first use).
      if (t % 4 === 0) {
        expect(exact.solve(u, c, a, n, b, out2)).toBe(exactRef.solve(u, c, a, n, b, out1));
        expect(Array.from(out2.subarray(0, n))).toEqual(Array.from(out1.subarray(0, n)));
      }
    }
  });
});
