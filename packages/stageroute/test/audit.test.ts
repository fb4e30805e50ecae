/**
 * Outside audit of the README's promises (boundary values of documented ranges, snapshots of every
 * option set). Seeded, fast.
 */
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

const base: StageRouteOptions = { arms: ["a", "b", "c"], budget: 1, maxDeployed: 2, stageLength: 4, seed: 3 };
const means = { a: { reward: 0.5, cost: 0.5 }, b: { reward: 0.2, cost: 0.1 }, c: { reward: 0.9, cost: 2 } };
type Policy = StageRoute | RatioGreedy | StageOracle;
const kinds: { make: (o: StageRouteOptions) => Policy; restore: (s: unknown) => Policy }[] = [
  { make: (o) => new StageRoute(o), restore: StageRoute.fromJSON },
  { make: (o) => new RatioGreedy(o), restore: RatioGreedy.fromJSON },
  { make: (o) => new StageOracle({ ...o, means }), restore: StageOracle.fromJSON },
];
const COST: Record<string, number> = { a: 0.5, b: 0.1, c: 2 };

describe("costUnit: the documented range [1e-100, b * 1e100] includes its upper end", () => {
  it("costUnit = b * 1e100 is accepted for every b (b / (b * 1e100) may round below 1e-100); one ulp above is OUT_OF_RANGE", () => {
    for (const { make } of kinds) {
      for (const budget of [1, 3, 0.3, 2.5e-7, 7e13, 1e200]) {
        const costUnit = budget * 1e100;
        const p = make({ ...base, budget, costUnit, exploration: 0 });
        p.update(p.select(), { reward: 1, cost: budget });
        expect(Object.values(p.routing()).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
        const above = costUnit + costUnit * 2 ** -52;
        expect(code(() => make({ ...base, budget, costUnit: above }))).toBe("OUT_OF_RANGE");
      }
    }
  });
});

describe("contextDim (an ArmPolicy option every arm policy takes)", () => {
  it("a policy built with contextDim > 0 restores from its snapshot and continues with the same decisions", () => {
    for (const { make, restore } of kinds) {
      const p = make({ ...base, contextDim: 3 });
      const ctx = Float32Array.of(0.5, -1, 2);
      for (let t = 0; t < 6; t++) {
        const d = p.select(ctx);
        p.update(d, { reward: t % 2, cost: COST[d.arm] as number });
      }
      const pending = p.select([1, 2, 3]);
      const q = restore(JSON.parse(JSON.stringify(p.toJSON())));
      expect(q.contextDim).toBe(3);
      expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
      q.update(pending.id, { reward: 1, cost: COST[pending.arm] as number });
      p.update(pending.id, { reward: 1, cost: COST[pending.arm] as number });
      for (let t = 0; t < 10; t++) {
        const dp = p.select(ctx);
        const dq = q.select(ctx);
        expect(dq).toEqual(dp);
        p.update(dp, { reward: 0.5, cost: COST[dp.arm] as number });
        q.update(dq, { reward: 0.5, cost: COST[dq.arm] as number });
      }
      expect(code(() => q.select())).toBe("INVALID_ARGUMENT");
    }
  });
});
