import { isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { binomialCapped, DeploySolver } from "../src/deploy.js";
import { bruteDeploy } from "./brute.js";
import { type HighsLike, loadHighs, solveDeployMip } from "./mip.js";
import { shuffled } from "./pools.js";

function pool(rng: Rng, n: number, tieHeavy: boolean) {
  const r = (x: number) => (tieHeavy ? Math.round(x * 10) / 10 : x);
  const u = Array.from({ length: n }, () => r(rng.uniform()));
  const c = Array.from({ length: n }, () => r(0.05 + rng.uniform()));
  const a = Array.from({ length: n }, () => [0.2, 0.25, 0.4, 0.5, 1][rng.int(5)] as number);
  return { u, c, a, b: r(0.1 + 0.6 * rng.uniform()) };
}

const identity = (n: number) => Int32Array.from({ length: n }, (_, i) => i);

/** The MIP optimum's value: HiGHS's subset, then its routing LP by brute force over that subset. */
function highsValue(highs: HighsLike, u: number[], c: number[], a: number[], n: number, b: number, s: number): number {
  // HiGHS accepts rows within its 1e-7 feasibility tolerance: give the exact check the same hair.
  const bb = b + 1e-9 * Math.max(1, Math.abs(b));
  const chosen = solveDeployMip(highs, u, c, a, n, bb, s);
  if (chosen === undefined) return Number.NaN;
  const ref = bruteDeploy(
    chosen.map((i) => u[i] as number),
    chosen.map((i) => c[i] as number),
    chosen.map((i) => a[i] as number),
    bb,
    chosen.length,
  );
  return ref ?? Number.NaN;
}

describe("DeploySolver", () => {
  it("refuses a slots or n that is not a whole count within the lists (outside test)", () => {
    const code = (fn: () => unknown): string => {
      try {
        fn();
        return "returned";
      } catch (e) {
        return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
      }
    };
    const u = [0.5, 0.7];
    const c = [1, 2];
    const a = [1, 1];
    const order = Int32Array.of(0, 1);
    const d = new DeploySolver();
    // Before: slots 0 was INFEASIBLE_BUDGET, an n beyond the lists read undefined entries, and a fractional slots
    // (last here, as it never returned) looped forever in the subset enumeration.
    expect(code(() => d.solve(u, c, a, 2, 1.5, 0, order))).toBe("OUT_OF_RANGE");
    expect(code(() => d.solve(u, c, a, 3, 1.5, 1, order))).toBe("OUT_OF_RANGE");
    expect(code(() => d.solve(u, c, a, Number.NaN, 1.5, 1, order))).toBe("OUT_OF_RANGE");
    expect(code(() => d.solve(u, c, a, 2, 1.5, 1.5, order))).toBe("OUT_OF_RANGE");
    expect(d.solve(u, c, a, 2, 1.5, 1, order).value).toBe(0.5);
    expect(d.solve(u, c, a, 2, 1.5, 2, order).value).toBe(0.6);
  });

  it("counts subsets", () => {
    expect(binomialCapped(15, 6, 1e9)).toBe(5005);
    expect(binomialCapped(50, 6, 50_000)).toBe(50_001);
    expect(binomialCapped(3, 5, 10)).toBe(0);
  });

  it("branch-and-bound == enumeration bit for bit, == HiGHS MIP == brute force on 3,000 random pools (N <= 10, s <= 4)", async () => {
    const highs = await loadHighs();
    const rng = Rng.fromSeed(3);
    const enumerating = new DeploySolver();
    const branching = new DeploySolver(0);
    let relaxedUsed = 0;
    let budgetRelaxed = 0;
    let branched = 0;
    for (let k = 0; k < 3000; k++) {
      const n = 1 + rng.int(10);
      const s = 1 + rng.int(4);
      const { u, c, a, b } = pool(rng, n, k % 2 === 0);
      const ss = Math.min(s, n);
      const order = k % 3 === 0 ? identity(n) : shuffled(rng, n);
      const caps = [...a].sort((x, y) => y - x).slice(0, ss);
      if (caps.reduce((x, y) => x + y, 0) < 1) {
        expect(() => enumerating.solve(u, c, a, n, b, s, order)).toThrow(
          expect.objectContaining({ code: "INFEASIBLE_BUDGET" }),
        );
        expect(() => branching.solve(u, c, a, n, b, s, order)).toThrow(
          expect.objectContaining({ code: "INFEASIBLE_BUDGET" }),
        );
        continue;
      }
      const e = enumerating.solve(u, c, a, n, b, s, order);
      const m = branching.solve(u, c, a, n, b, s, order);
      expect(e.support.length).toBeLessThanOrEqual(ss);
      // Same subset, same routing, same value: the cuts never change what the enumeration keeps.
      expect(m.status).toBe(e.status);
      expect(m.value).toBe(e.value);
      expect(m.budget).toBe(e.budget);
      expect(Array.from(m.weights)).toEqual(Array.from(e.weights));
      if (e.method === "enumeration") {
        expect(m.method).toBe("branch-and-bound");
        branched++;
      } else expect(m.method).toBe(e.method);
      const ref = bruteDeploy(u, c, a, e.budget, s);
      expect(ref).toBeDefined();
      expect(Math.abs(e.value - (ref as number))).toBeLessThan(1e-9);
      if (k % 4 === 0) expect(Math.abs(highsValue(highs, u, c, a, n, e.budget, ss) - e.value)).toBeLessThan(1e-7);
      if (e.status === "budget-relaxed") {
        budgetRelaxed++;
        expect(bruteDeploy(u, c, a, b, s)).toBeUndefined();
        expect(e.budget).toBeGreaterThan(b);
      }
      if (ss >= Math.floor(1 / Math.min(...a)) + 2 && e.status === "ok") {
        expect(e.method).toBe("relaxation");
        relaxedUsed++;
      }
      // d* is feasible under the budget used.
      let sum = 0;
      let cost = 0;
      for (let i = 0; i < n; i++) {
        sum += e.weights[i] as number;
        cost += (e.weights[i] as number) * (c[i] as number);
        expect(e.weights[i] as number).toBeLessThanOrEqual((a[i] as number) + 1e-12);
      }
      expect(Math.abs(sum - 1)).toBeLessThan(1e-9);
      expect(cost).toBeLessThanOrEqual(e.budget + 1e-9);
    }
    expect(relaxedUsed).toBeGreaterThan(5);
    expect(budgetRelaxed).toBeGreaterThan(20);
    expect(branched).toBeGreaterThan(500);
  });

  it("branch-and-bound == enumeration bit for bit on 300 mid-size pools (N 12-18, s 3-5, tie-heavy half)", () => {
    const rng = Rng.fromSeed(5);
    const enumerating = new DeploySolver(1e8);
    const branching = new DeploySolver(0);
    let branched = 0;
    for (let k = 0; k < 300; k++) {
      const n = 12 + rng.int(7);
      const s = 3 + rng.int(3);
      const { u, c, a, b } = pool(rng, n, k % 2 === 0);
      if (
        [...a]
          .sort((x, y) => y - x)
          .slice(0, s)
          .reduce((x, y) => x + y, 0) < 1
      )
        continue;
      const order = shuffled(rng, n);
      const e = enumerating.solve(u, c, a, n, b, s, order);
      const m = branching.solve(u, c, a, n, b, s, order);
      expect(m.value).toBe(e.value);
      expect(m.status).toBe(e.status);
      expect(Array.from(m.weights)).toEqual(Array.from(e.weights));
      if (e.method === "enumeration") branched++;
    }
    expect(branched).toBeGreaterThan(30);
  });

  it("large pools (N = 30-60, caps 0.2, 5 slots) are solved without highs; the value equals HiGHS's MIP", async () => {
    const highs = await loadHighs();
    const rng = Rng.fromSeed(9);
    const solver = new DeploySolver();
    let branched = 0;
    for (let k = 0; k < 40; k++) {
      const n = 30 + rng.int(31);
      // Better models cost more and the budget binds: the hard case.
      const x = Array.from({ length: n }, () => rng.uniform());
      const u = x.map((v) => 0.2 + 0.7 * v + 0.05 * rng.uniform());
      const c = x.map((v) => 0.05 + 3 * v * v + 0.1 * rng.uniform());
      const a = Array.from({ length: n }, (_, i) => (i === 1 ? 1 : 0.2));
      const r = solver.solve(u, c, a, n, 1, 5, shuffled(rng, n));
      if (r.method === "branch-and-bound") branched++;
      expect(r.support.length).toBeLessThanOrEqual(5);
      expect(Math.abs(highsValue(highs, u, c, a, n, r.budget, 5) - r.value)).toBeLessThan(1e-7);
    }
    expect(branched).toBeGreaterThan(30);
    // 15 good expensive and 15 poor cheap models, caps 0.2, 5 slots, a budget halfway: the relaxation
    // mixes two fractional models into 4 capped ones (support 6 > 5), and C(30, 5) > 1000.
    const n = 30;
    const u = Array.from({ length: n }, (_, i) => (i < 15 ? 0.9 : 0.1) + 0.001 * i);
    const c = Array.from({ length: n }, (_, i) => (i < 15 ? 1 : 0.1));
    const a = new Array<number>(n).fill(0.2);
    const r = new DeploySolver(1000).solve(u, c, a, n, 0.55, 5, identity(n));
    expect(r.method).toBe("branch-and-bound");
    expect(Math.abs(highsValue(highs, u, c, a, n, 0.55, 5) - r.value)).toBeLessThan(1e-7);
  });

  it("the enumeration order decides between equally good sets; the relaxation resolves ties by index", () => {
    const solver = new DeploySolver();
    // Four models, two slots: the relaxation mixes all four (support 4 > 2), so the enumeration decides
    // between the four equally good {good, cheap} pairs.
    const u = [0.9, 0.9, 0.1, 0.1];
    const c = [1, 1, 0.1, 0.1];
    const a = [0.5, 0.5, 0.5, 0.5];
    expect(solver.solve(u, c, a, 4, 0.55, 2, Int32Array.from([0, 1, 2, 3])).support).toEqual([0, 2]);
    expect(solver.solve(u, c, a, 4, 0.55, 2, Int32Array.from([3, 1, 2, 0])).support).toEqual([1, 3]);
    expect(solver.solve(u, c, a, 4, 0.55, 2, Int32Array.from([3, 1, 2, 0])).method).toBe("enumeration");
    // All tied and the relaxation fits in the slots: arrival order decides whatever the enumeration order.
    const r = solver.solve([0.5, 0.5, 0.5], [0.1, 0.1, 0.1], [1, 1, 1], 3, 1, 1, Int32Array.from([2, 0, 1]));
    expect(r.support).toEqual([0]);
    expect(r.method).toBe("relaxation");
  });
});
