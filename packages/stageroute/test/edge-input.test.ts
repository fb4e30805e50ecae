import { isRouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { RatioGreedy, StageOracle, StageRoute, type StageRouteOptions } from "../src/index.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

const base: StageRouteOptions = { arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 3 };
const means = { a: { reward: 0.5, cost: 0.5 }, b: { reward: 0.2, cost: 0.1 } };
const makers = [
  (o: StageRouteOptions) => new StageRoute(o),
  (o: StageRouteOptions) => new RatioGreedy(o),
  (o: StageRouteOptions) => new StageOracle({ ...o, means }),
];

describe("options whose cost-unit value overflows", () => {
  it("minCost or priorCost that overflow when divided by the cost unit are OUT_OF_RANGE at construction", () => {
    for (const make of makers) {
      // Costs are divided by the unit (default: the budget): 1e300 / 1e-100 is not a finite number.
      expect(code(() => make({ ...base, budget: 1e-100, minCost: 1e300 }))).toBe("OUT_OF_RANGE");
      expect(code(() => make({ ...base, budget: 1e-100, priorCost: 1e300 }))).toBe("OUT_OF_RANGE");
      expect(code(() => make({ ...base, costUnit: 1e-100, priorCost: 1e300 }))).toBe("OUT_OF_RANGE");
      // The largest values that stay finite are accepted and route.
      const p = make({ ...base, budget: 1e-100, minCost: 1e200, maxCost: 1e250 });
      const d = p.select();
      expect(["a", "b"]).toContain(d.arm);
      p.update(d, { reward: 1, cost: 1e200 });
      expect(Object.values(p.routing()).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    }
  });
});
