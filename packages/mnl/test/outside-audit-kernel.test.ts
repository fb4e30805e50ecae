// An outside tester's probes of the README's promises: each test here failed before its fix.
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { assortmentRevenue, bruteForceAssortment, optimalAssortment } from "../src/index.js";

/** R(S) from utilities, scaled by the largest one (exact for spreads below ~700). */
function revenueOf(u: number[], r: number[], items: number[], v0: number): number {
  const m = Math.max(...u);
  return assortmentRevenue(
    u.map((x) => Math.exp(x - m)),
    r,
    items,
    items.length,
    v0 * Math.exp(-m),
  );
}

describe("optimalAssortment with utilities far apart (the attractions scaled by the largest)", () => {
  it("a dominant low-revenue item does not hide a better assortment (it stopped at revenue 0.3 for 0.5)", () => {
    // e^{u - max}: item 2 and v0 both weigh e^-28 next to item 0, so F(0.3) = 0.4 e^-28 = 2.8e-13, below the
    // absolute tolerance 1e-12 of the stopping rule.
    const u = [28, -28, 0];
    const r = [0.3, 0.9, 1];
    const S = optimalAssortment(u, r, 3, 2, 1);
    expect(revenueOf(u, r, S, 1)).toBeCloseTo(0.5, 12);
  });

  it("items with revenue are offered when a zero-revenue item dominates (it returned the empty set)", () => {
    const u = [30, 0, 0];
    const r = [0, 1, 1];
    const S = optimalAssortment(u, r, 3, 2, 1);
    expect(S.sort()).toEqual([1, 2]);
    expect(revenueOf(u, r, S, 1)).toBeCloseTo(2 / 3, 12);
  });

  it("matches brute force on random instances with utilities spread over [-40, 40] and v0 in [1e-6, 1e6]", () => {
    const rng = Rng.fromSeed(77);
    for (let t = 0; t < 2000; t++) {
      const n = 1 + rng.int(8);
      const K = 1 + rng.int(n);
      const spread = [1, 10, 40][t % 3] as number;
      const u = Array.from({ length: n }, () => (2 * rng.uniform() - 1) * spread);
      const r = Array.from({ length: n }, () => rng.uniform());
      const v0 = 10 ** (12 * rng.uniform() - 6);
      const S = optimalAssortment(u, r, n, K, v0);
      const m = Math.max(...u);
      const bf = bruteForceAssortment(
        u.map((x) => Math.exp(x - m)),
        r,
        n,
        K,
        v0 * Math.exp(-m),
      );
      expect(S.length).toBeLessThanOrEqual(K);
      const R = revenueOf(u, r, S, v0);
      expect(Math.abs(R - bf.revenue), JSON.stringify({ u, r, K, v0, S, bf })).toBeLessThanOrEqual(
        1e-12 * Math.max(1, bf.revenue),
      );
    }
  });
});
