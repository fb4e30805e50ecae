/**
 * The README's "how it works" count of RouteOPT's work: besides its two starting fills (the cheapest fill and
 * the fill by reward alone), the Newton iteration needs at most four more fills on more than 99% of random
 * instances with 2 to 10 models (median two), and none falls back to the breakpoint search. The instances are
 * drawn like the bench's RouteOPT rows: UCB in [0.3, 1], LCB in [0.1, 3], budget 1, caps 0.4 (one 1.0).
 */
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { RouteSolver } from "../src/route-lp.js";

class CountingSolver extends RouteSolver {
  fills = 0;
  protected override fillAt(
    lambda: number,
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    ord: Int32Array,
  ): number {
    this.fills++;
    return super.fillAt(lambda, u, c, alpha, n, ord);
  }
  protected override cheapestFill(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    ord: Int32Array,
  ): number {
    this.fills++;
    return super.cheapestFill(u, c, alpha, n, ord);
  }
}

describe("RouteOPT: fills per query", () => {
  it("two starting fills, then at most four Newton fills on > 99% of instances (median two), no fallback", () => {
    const rng = Rng.fromSeed("route-fills");
    for (let n = 2; n <= 10; n++) {
      const solver = new CountingSolver(n);
      const out = new Float64Array(n);
      const newton: number[] = [];
      for (let i = 0; i < 8192; i++) {
        const u = Float64Array.from({ length: n }, () => 0.3 + 0.7 * rng.uniform());
        const c = Float64Array.from({ length: n }, () => 0.1 + 2.9 * rng.uniform());
        const a = Float64Array.from({ length: n }, (_, j) => (j === 0 ? 1 : 0.4));
        const before = solver.fills;
        solver.solve(u, c, a, n, 1, out);
        const fills = solver.fills - before;
        // One fill: the cheapest is over budget; two: the fill by reward alone meets it; more: Newton.
        if (fills > 2) newton.push(fills - 2);
      }
      expect(solver.fallbacks, `n = ${n}`).toBe(0);
      expect(newton.length, `n = ${n}: some instances need the Newton iteration`).toBeGreaterThan(500);
      const upToFour = newton.filter((k) => k <= 4).length / newton.length;
      expect(upToFour, `n = ${n}`).toBeGreaterThan(0.99);
      const sorted = [...newton].sort((x, y) => x - y);
      expect(sorted[Math.floor(sorted.length / 2)], `n = ${n}: median`).toBeLessThanOrEqual(2);
    }
  });
});
