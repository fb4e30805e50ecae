import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { DeploySolver } from "../src/deploy.js";
import { StageOracle } from "../src/index.js";
import { RouteSolver } from "../src/route-lp.js";
import { bruteRoute } from "./brute.js";

/**
 * The budget is any number >= 1e-100 in the units of the reported costs: with `costUnit: 1` the routing
 * LP sees it as is, so its feasibility tolerance must be relative to the budget, not an absolute 1e-12.
 */
describe("budgets at every scale", () => {
  it("the routing LP keeps the budget row when budget and costs are far below 1", () => {
    const solver = new RouteSolver(4);
    const p = new Float64Array(4);
    // Spend exactly b: half on the good model, half on the free one.
    expect(solver.solve([0.9, 0.3], [1e-17, 0], [1, 1], 2, 5e-18, p)).toBe("ok");
    expect(p[0]).toBeCloseTo(0.5, 12);
    expect(solver.cost).toBeLessThanOrEqual(5e-18 * (1 + 1e-9));
    // No routing meets b (the cheaper model's cap is 0.41): the cheapest fill, flagged.
    expect(solver.solve([0.9, 0.3], [5.07e-20, 1e-19], [0.41, 1], 2, 5.07e-20, p)).toBe("infeasible-budget");
    // Budget 0 with a free model: only the free model.
    expect(solver.solve([0.9, 0.3], [1e-17, 0], [1, 1], 2, 0, p)).toBe("ok");
    expect([p[0], p[1]]).toEqual([0, 1]);
  });

  it("3,000 random instances with costs and budget scaled by 1e-20..1e19 agree with vertex enumeration", () => {
    const rng = Rng.fromSeed(9);
    const solver = new RouteSolver(4);
    const out = new Float64Array(8);
    for (let t = 0; t < 3000; t++) {
      const n = 1 + rng.int(6);
      const scale = 10 ** (rng.int(40) - 20);
      const tie = () => [0, 0.25, 0.5, 1][rng.int(4)] as number;
      const u = Array.from({ length: n }, () => (rng.uniform() < 0.5 ? tie() : rng.uniform()));
      const c = Array.from({ length: n }, () => scale * (rng.uniform() < 0.5 ? tie() : rng.uniform()));
      const a = Array.from({ length: n }, () => (rng.uniform() < 0.5 ? 1 : 0.2 + 0.8 * rng.uniform()));
      const b = rng.uniform() < 0.3 ? (c[rng.int(n)] as number) : scale * rng.uniform();
      const st = solver.solve(u, c, a, n, b, out);
      // The same instance in units of `scale` (vertex enumeration's tolerances are absolute).
      const ref = bruteRoute(
        u,
        c.map((x) => x / scale),
        a,
        b / scale,
      );
      if (a.reduce((x, y) => x + y, 0) < 1 - 1e-12) {
        expect(st).toBe("infeasible-mass");
        continue;
      }
      if (ref === undefined) {
        expect(st).toBe("infeasible-budget");
        continue;
      }
      expect(st).toBe("ok");
      let cost = 0;
      let val = 0;
      for (let i = 0; i < n; i++) {
        cost += (out[i] as number) * (c[i] as number);
        val += (out[i] as number) * (u[i] as number);
      }
      expect(cost).toBeLessThanOrEqual(b * (1 + 1e-9));
      expect(val).toBeGreaterThanOrEqual(ref - 1e-9);
    }
  });

  it("DeployOPT relaxes an unreachable budget to the cheapest reachable cost, not to 1e-12", () => {
    const r = new DeploySolver().solve([0.1, 0.5, 0.9], [1e-20, 2e-20, 3e-20], [1, 1, 1], 3, 5e-21, 1, [0, 1, 2]);
    expect(r.status).toBe("budget-relaxed");
    expect(r.support).toEqual([0]);
    expect(r.budget).toBeLessThan(1.0001e-20);
  });

  it("the oracle with raw units and budget 1e-13 spends exactly its budget", () => {
    const p = new StageOracle({
      arms: ["good", "free"],
      budget: 1e-13,
      costUnit: 1,
      maxDeployed: 2,
      stageLength: 10,
      means: { good: { reward: 1, cost: 2e-13 }, free: { reward: 0, cost: 0 } },
    });
    const r = p.routing();
    expect(r.good).toBeCloseTo(0.5, 12);
    expect(r.free).toBeCloseTo(0.5, 12);
  });
});
