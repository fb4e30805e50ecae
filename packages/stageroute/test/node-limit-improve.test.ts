/**
 * The improvement phase that runs once `searchNodeLimit` is hit (DeploySolver.improve, SwapSearch, the small
 * searches of SubsetSearch with a floor): how close it gets to the exact optimum, that its subsets stay
 * feasible, that its work is bounded and deterministic, and that it never runs below the limit.
 */
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import { type DeployResult, DeploySolver } from "../src/deploy.js";
import { RouteSolver } from "../src/route-lp.js";
import { SubsetLp } from "../src/subset-lp.js";
import { SwapSearch } from "../src/swap-search.js";
import { expectFeasible, expectSame, pool, shuffled } from "./pools.js";

/** A DeploySolver with the improvement phase switched off: the node-limited result before it existed. */
function withoutImprovement(limit: number): DeploySolver {
  const d = new DeploySolver(0, limit);
  (d as unknown as { improve: (...args: unknown[]) => unknown }).improve = (...args) => args[6];
  return d;
}

const rel = (x: number, y: number) => Math.abs(x - y) / Math.max(1, Math.abs(y));

describe("the improvement phase at searchNodeLimit", () => {
  it("random pools (25-44 models, 3-7 slots, rate-limited, small and mixed caps): gaps to the exact optimum, before and after, at limits 100 and 1,000", () => {
    // Measured on these seeded pools (deterministic, so the counts are exact): at a limit of 100, 66 pools
    // stop at it; without the phase 40 of them deploy an optimal set, the mean gap to the optimum is 1.29% and
    // the worst 17.4%; with it 55 are optimal, mean 0.20%, worst 5.4% (3-slot pools where 100 units cannot
    // finish). At 1,000, 19 pools stop: 16 optimal before (mean 0.056%, worst 0.52%), all 19 after. Gaps in %.
    // The README quotes these numbers ("on 120 random pools of 25-44 models at a limit of 100").
    for (const [limit, stopped, optimalAfter, optimalBefore, meanAfter, meanBefore, worstAfter, worstBefore] of [
      [100, 66, 55, 40, "0.20", "1.29", "5.4", "17.4"],
      [1000, 19, 19, 16, "0.00", "0.06", "0.0", "0.5"],
    ] as const) {
      const rng = Rng.fromSeed("measure");
      const gaps: number[] = [];
      const before: number[] = [];
      let ran = 0;
      // One solver over all the pools too: nothing of one boundary's phase leaks into the next.
      const shared = new DeploySolver(0, limit);
      for (let k = 0; k < 120; k++) {
        const shape = (["rate", "small", "mixed"] as const)[k % 3] as "rate" | "small" | "mixed";
        const n = 25 + rng.int(20);
        const s = 3 + rng.int(5);
        const { u, c, a } = pool(rng, n, 0, shape);
        const b = [0.3, 0.6, 1, 1.5][rng.int(4)] as number;
        const order = shuffled(rng, n);
        const free = new DeploySolver(0);
        let want: DeployResult;
        try {
          want = free.solve(u, c, a, n, b, s, order);
        } catch {
          continue; // no s caps sum to 1
        }
        if (free.visits <= limit) {
          // Below the limit the phase never runs.
          const d = new DeploySolver(0, limit);
          expectSame(d.solve(u, c, a, n, b, s, order), want);
          expect(d.improveEvals).toBe(0);
          continue;
        }
        const d = new DeploySolver(0, limit);
        const got = d.solve(u, c, a, n, b, s, order);
        expect(got.status).toBe("node-limit");
        expectFeasible(got, u, c, a, s);
        expect(d.visits).toBe(limit);
        // (0 when the search proved its value before the limit, in the pass that only seeks the first
        // optimal subset in enumeration order: nothing to improve.)
        expect(d.improveEvals).toBeLessThanOrEqual(limit);
        if (d.improveEvals > 0) ran++;
        // Deterministic: a fresh solver, the same one again and one that solved other pools give the same bits.
        expectSame(new DeploySolver(0, limit).solve(u, c, a, n, b, s, order), got);
        expectSame(d.solve(u, c, a, n, b, s, order), got);
        expectSame(shared.solve(u, c, a, n, b, s, order), got);
        const old = withoutImprovement(limit).solve(u, c, a, n, b, s, order);
        // The budget is the exact search's (relaxed or not, up to its rounding), never relaxed further than before.
        expect(rel(got.budget, want.budget)).toBeLessThanOrEqual(1e-9);
        expect(got.budget).toBeLessThanOrEqual(old.budget * (1 + 1e-12));
        // Never worse than the subset it started from, never better than the optimum.
        expect(got.value).toBeGreaterThanOrEqual(old.value - 1e-12);
        expect(got.value).toBeLessThanOrEqual(want.value + 1e-9);
        gaps.push(((want.value - got.value) / Math.abs(want.value)) * 100);
        before.push(((want.value - old.value) / Math.abs(want.value)) * 100);
      }
      const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
      expect(gaps.length, `${limit}`).toBe(stopped);
      expect(ran, `${limit}`).toBeGreaterThan(stopped / 2);
      const optimal = (xs: number[]) => xs.filter((g) => g <= 1e-9).length;
      expect([optimal(gaps), optimal(before)], `${limit}`).toEqual([optimalAfter, optimalBefore]);
      expect([mean(gaps).toFixed(2), mean(before).toFixed(2)], `${limit}`).toEqual([meanAfter, meanBefore]);
      expect([Math.max(...gaps).toFixed(1), Math.max(...before).toFixed(1)]).toEqual([worstAfter, worstBefore]);
    }
  });

  it("SwapSearch: exchanges only improve, stop at maxEvals exactly, and end at a local optimum", () => {
    const rng = Rng.fromSeed("swap-search");
    const lp = new SubsetLp();
    const route = new RouteSolver(64);
    let moved = 0;
    for (let t = 0; t < 40; t++) {
      const n = 20 + rng.int(20);
      const s = 3 + rng.int(4);
      const { u, c, a } = pool(rng, n, t % 4, t % 2 === 0 ? "mixed" : "small");
      const U = Float64Array.from(u);
      const C = Float64Array.from(c);
      const A = Float64Array.from(a);
      lp.grow(n + 1);
      // The s cheapest models with room for all traffic, as a poor start.
      const byCost = Array.from({ length: n }, (_, i) => i).sort((x, y) => C[x]! - C[y]!);
      const idx = Int32Array.from(byCost.slice(0, s)).sort();
      if (lp.solve(U, C, A, idx, s, 1.5) !== "ok") continue;
      const start = new Float64Array(n);
      for (let q = 0; q < s; q++) start[idx[q]!] = lp.sp[q]!;
      const value = lp.route.value;
      const w = new Float64Array(n);
      route.solve(U, C, A, n, 1.5, w);
      const rank = Array.from({ length: n }, (_, i) => i).sort((x, y) => w[y]! - w[x]! || x - y);
      const swaps = new SwapSearch();
      const got = swaps.improve(lp, U, C, A, n, 1.5, s, start, value, rank, 1e9);
      if (got === undefined) {
        expect(swaps.moves).toBe(0);
        continue;
      }
      moved++;
      expect(got.value).toBeGreaterThan(value);
      // The result's own routing LP gives its value back.
      const members = Int32Array.from([...got.weights.keys()].filter((r) => got.weights[r]! > 0));
      expect(members.length).toBeLessThanOrEqual(s);
      expect(lp.solve(U, C, A, members, members.length, 1.5)).toBe("ok");
      expect(rel(lp.route.value, got.value)).toBeLessThanOrEqual(1e-12);
      // A local optimum: no single exchange or addition beats it.
      const again = swaps.improve(lp, U, C, A, n, 1.5, s, got.weights, got.value, rank, 1e9);
      expect(again).toBeUndefined();
      // The bound on its work holds exactly.
      for (const cap of [1, 7, 30]) {
        swaps.improve(lp, U, C, A, n, 1.5, s, start, value, rank, cap);
        expect(swaps.evals).toBeLessThanOrEqual(cap);
      }
    }
    expect(moved).toBeGreaterThan(20);
  });

  it("SubsetSearch with a floor: finds a subset above it (the optimum's value when the floor is just below), none at the optimum", () => {
    const rng = Rng.fromSeed("floor");
    let checked = 0;
    for (let t = 0; t < 30; t++) {
      const n = 14 + rng.int(10);
      const s = 3 + rng.int(3);
      const { u, c, a } = pool(rng, n, 0, "mixed");
      const U = Float64Array.from(u);
      const C = Float64Array.from(c);
      const A = Float64Array.from(a);
      const w = new Float64Array(n);
      if (new RouteSolver(n).solve(U, C, A, n, 1, w) !== "ok") continue;
      const search = new SubsetSearch();
      const opt = search.solve(U, C, A, n, 1, s, w);
      if (opt === undefined) continue;
      checked++;
      const below = search.solve(U, C, A, n, 1, s, w, Number.POSITIVE_INFINITY, opt.value - 1e-6);
      // An optimal subset (phase 2 skipped: maybe not the first in enumeration order, equal up to rounding).
      expect(rel(below?.value as number, opt.value)).toBeLessThanOrEqual(1e-12);
      expect(search.proven).toBe(true);
      expect(search.solve(U, C, A, n, 1, s, w, Number.POSITIVE_INFINITY, opt.value + 1e-12)).toBeUndefined();
    }
    expect(checked).toBeGreaterThan(20);
  });
});
