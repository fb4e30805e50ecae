import { isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { binomialCapped, DeploySolver } from "../src/deploy.js";
import { loadHighs, setMipSolver } from "../src/mip.js";
import { bruteDeploy } from "./brute.js";

function pool(rng: Rng, n: number, tieHeavy: boolean) {
  const r = (x: number) => (tieHeavy ? Math.round(x * 10) / 10 : x);
  const u = Array.from({ length: n }, () => r(rng.uniform()));
  const c = Array.from({ length: n }, () => r(0.05 + rng.uniform()));
  const a = Array.from({ length: n }, () => [0.2, 0.25, 0.4, 0.5, 1][rng.int(5)] as number);
  return { u, c, a, b: r(0.1 + 0.6 * rng.uniform()) };
}

const identity = (n: number) => Int32Array.from({ length: n }, (_, i) => i);

describe("DeploySolver", () => {
  it("counts subsets", () => {
    expect(binomialCapped(15, 6, 1e9)).toBe(5005);
    expect(binomialCapped(50, 6, 50_000)).toBe(50_001);
    expect(binomialCapped(3, 5, 10)).toBe(0);
  });

  it("enumeration == MIP == brute force on 1,500 random pools (N <= 10, s <= 4); relaxation when s is large", async () => {
    const highs = await loadHighs();
    const rng = Rng.fromSeed(3);
    const enumerating = new DeploySolver();
    const viaMip = new DeploySolver(0);
    let relaxedUsed = 0;
    let budgetRelaxed = 0;
    for (let k = 0; k < 1500; k++) {
      const n = 1 + rng.int(10);
      const s = 1 + rng.int(4);
      const { u, c, a, b } = pool(rng, n, k % 2 === 0);
      const ss = Math.min(s, n);
      const caps = [...a].sort((x, y) => y - x).slice(0, ss);
      if (caps.reduce((x, y) => x + y, 0) < 1) {
        expect(() => enumerating.solve(u, c, a, n, b, s, identity(n))).toThrow(
          expect.objectContaining({ code: "INFEASIBLE_BUDGET" }),
        );
        continue;
      }
      setMipSolver(undefined);
      const e = enumerating.solve(u, c, a, n, b, s, identity(n));
      setMipSolver(highs);
      const m = viaMip.solve(u, c, a, n, b, s, identity(n));
      expect(e.support.length).toBeLessThanOrEqual(ss);
      expect(m.support.length).toBeLessThanOrEqual(ss);
      expect(m.status).toBe(e.status);
      expect(Math.abs(m.value - e.value)).toBeLessThan(1e-7);
      const ref = bruteDeploy(u, c, a, e.budget, s);
      expect(ref).toBeDefined();
      expect(Math.abs(e.value - (ref as number))).toBeLessThan(1e-9);
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
    setMipSolver(undefined);
  });

  it("without a MIP solver, a pool too large to enumerate throws MISSING_DEPENDENCY", () => {
    setMipSolver(undefined);
    // 15 good expensive and 15 poor cheap models, caps 0.2, 5 slots, a budget halfway: the relaxation
    // mixes two fractional models into 4 capped ones (support 6 > 5), and C(30, 5) > 1000.
    const n = 30;
    const u = Array.from({ length: n }, (_, i) => (i < 15 ? 0.9 : 0.1) + 0.001 * i);
    const c = Array.from({ length: n }, (_, i) => (i < 15 ? 1 : 0.1));
    const a = new Array<number>(n).fill(0.2);
    const solver = new DeploySolver(1000);
    expect(solver.needsMip(a, n, 5)).toBe(true);
    try {
      solver.solve(u, c, a, n, 0.55, 5, identity(n));
      expect.unreachable();
    } catch (e) {
      expect(isRouteKitError(e, "MISSING_DEPENDENCY")).toBe(true);
    }
    // With caps of 0.4 and 6 slots the relaxation is always exact: no MIP needed.
    expect(solver.needsMip(new Array<number>(n).fill(0.4), n, 6)).toBe(false);
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
