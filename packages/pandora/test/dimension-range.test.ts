import { MAX_RIDGE_DIM } from "@routekit/core";
import { thrownCode as code } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import {
  BoxState,
  Cosmos,
  IndexSolver,
  OneShot,
  project,
  QueryAll,
  RewardModel,
  rewardLink,
  ThresholdCascade,
  WeitzmanOracle,
} from "../src/index.js";

const known = { rewardParameter: [1] };
const makers: [string, (o: { contextDim: number; outputDim: number }) => unknown][] = [
  ["Cosmos", (o) => new Cosmos({ arms: ["a"], ...o })],
  ["Cosmos (known reward)", (o) => new Cosmos({ arms: ["a"], ...o, ...known })],
  ["QueryAll", (o) => new QueryAll({ arms: ["a"], ...o })],
  ["ThresholdCascade", (o) => new ThresholdCascade({ arms: ["a"], ...o })],
  ["OneShot", (o) => new OneShot({ arms: ["a"], ...o })],
  [
    "WeitzmanOracle",
    (o) =>
      new WeitzmanOracle({
        arms: ["a"],
        ...o,
        rewardParameter: new Array(o.outputDim).fill(0),
        indexParameters: { a: new Array(o.contextDim + 1).fill(0) },
      }),
  ],
];

describe("the dimensions of the cascade policies (outside test)", () => {
  it.each(makers)("%s: contextDim and outputDim above MAX_RIDGE_DIM are OUT_OF_RANGE, not a RangeError", (_, make) => {
    // Before: the documented-in-code maximum 65536 threw "Invalid typed array length" or "Array buffer allocation
    // failed" (each model keeps (contextDim + 1)^2 and outputDim^2 matrices).
    expect(MAX_RIDGE_DIM).toBe(4096);
    expect(code(() => make({ contextDim: 65536, outputDim: 1 }))).toBe("OUT_OF_RANGE");
    expect(code(() => make({ contextDim: 1, outputDim: 65536 }))).toBe("OUT_OF_RANGE");
    expect(code(() => make({ contextDim: MAX_RIDGE_DIM + 1, outputDim: 1 }))).toBe("OUT_OF_RANGE");
    expect(code(() => make({ contextDim: 1, outputDim: MAX_RIDGE_DIM + 1 }))).toBe("OUT_OF_RANGE");
    expect(code(() => make({ contextDim: 0, outputDim: 1 }))).toBeUndefined();
  });

  it("the building blocks refuse dimensions they cannot allocate, and BoxState its other arguments", () => {
    expect(code(() => new BoxState(-1, 1, false, 1))).toBe("OUT_OF_RANGE"); // before: RangeError
    expect(code(() => new BoxState(65537, 1, false, 1))).toBe("OUT_OF_RANGE"); // before: RangeError
    expect(code(() => new BoxState(2, 0, true, 1))).toBe("OUT_OF_RANGE");
    expect(code(() => new BoxState(2, 1, "yes" as unknown as boolean, 1))).toBe("INVALID_ARGUMENT");
    expect(code(() => new BoxState(2, 1, false, 0))).toBe("OUT_OF_RANGE"); // before: an infinite inverse
    expect(code(() => new BoxState(2, 1, false, Number.NaN))).toBe("NON_FINITE");
    expect(code(() => new BoxState(MAX_RIDGE_DIM + 2, 1, false, 1))).toBe("OUT_OF_RANGE");
    expect(code(() => new IndexSolver(MAX_RIDGE_DIM + 2))).toBe("OUT_OF_RANGE");
    expect(
      code(() => new RewardModel(MAX_RIDGE_DIM + 2, rewardLink("identity"), 1, Number.POSITIVE_INFINITY, null)),
    ).toBe("OUT_OF_RANGE");
    const b = new BoxState(3, 2, true, 0.5);
    expect(b.Vinv[0]).toBe(2);
    expect(b.n).toBe(0);
  });
});

describe("project at the ends of the double range (outside test)", () => {
  it("a vector whose squared norm overflows is scaled onto the ball, not sent to the origin", () => {
    const v = Float64Array.of(1e200, 1e200);
    project(v, 2, 1);
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 15); // before: 0
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 15);
    const w = Float64Array.of(3e307, -4e307);
    project(w, 2, 1e300);
    expect((w[0] as number) / 1e300).toBeCloseTo(0.6, 14);
    expect((w[1] as number) / 1e300).toBeCloseTo(-0.8, 14);
  });

  it("a radius whose square overflows or underflows still bounds the norm", () => {
    const v = Float64Array.of(1e300, 0);
    project(v, 2, 1e200); // before: left at 1e300 (the radius squared is Infinity)
    expect(v[0]).toBe(1e200);
    const u = Float64Array.of(1e-200, 0);
    project(u, 2, 1e-250); // before: left at 1e-200 (both squares 0)
    expect(u[0]).toBe(1e-250);
    const inside = Float64Array.of(1e150, 1e150);
    project(inside, 2, 1e200);
    expect(Array.from(inside)).toEqual([1e150, 1e150]);
    const ordinary = Float64Array.of(3, 4);
    project(ordinary, 2, 1);
    expect(Array.from(ordinary)).toEqual([3 * (1 / 5), 4 * (1 / 5)]);
  });
});

describe("radiusMode theory's requirements, as the options table states them (outside test)", () => {
  it("needs theory, and with a learned reward a finite rewardBound", () => {
    const o = { arms: ["a", "b"], contextDim: 1, outputDim: 1, radiusMode: "theory" as const };
    expect(code(() => new Cosmos(o))).toBe("INVALID_ARGUMENT");
    expect(code(() => new Cosmos({ ...o, theory: { kappa: 0.5 } }))).toBe("INVALID_ARGUMENT");
    expect(code(() => new Cosmos({ ...o, theory: { kappa: 0.5 }, rewardBound: 2 }))).toBeUndefined();
    expect(code(() => new Cosmos({ ...o, theory: { kappa: 0.5 }, rewardParameter: [1] }))).toBeUndefined();
  });
});
