/**
 * Outside audit (session 7): unreadable or shifting inputs. Each test failed before its fix.
 */
import { ErrorCode, RouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";

const throwingLength = (valid: number[]) =>
  new Proxy(valid, {
    get(t, k, r) {
      if (k === "length") throw new Error("boom");
      return Reflect.get(t, k, r);
    },
  });

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof RouteKitError ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

const features = [0.1, 0.2, -0.1, 0.3, 0.2, -0.2];
const makers = [
  () => new OfuMnlPlus({ contextDim: 2, maxSize: 2 }),
  () => new UcbMnl({ contextDim: 2, maxSize: 2 }),
  () => new TsMnl({ contextDim: 2, maxSize: 2, seed: 1 }),
];

describe("queries and decision references read once", () => {
  for (const make of makers) {
    it(`${make().kind}: features or revenues whose length getter throws are INVALID_ARGUMENT, state unchanged`, () => {
      const p = make();
      const before = JSON.stringify(p.toJSON());
      expect(
        codeOf(() => p.select({ features: throwingLength([...features]) as never, numItems: 3, maxSize: 2 })),
      ).toBe(ErrorCode.InvalidArgument);
      expect(
        codeOf(() =>
          p.select({
            features: Float64Array.from(features),
            numItems: 3,
            maxSize: 2,
            revenues: throwingLength([1, 1, 1]) as never,
          }),
        ),
      ).toBe(ErrorCode.InvalidArgument);
      expect(JSON.stringify(p.toJSON())).toBe(before);
    });

    it(`${make().kind}: a decision whose id getter changes between reads is learned once and settled`, () => {
      const p = make();
      const d = p.select({ features: Float64Array.from(features), numItems: 3, maxSize: 2 });
      let reads = 0;
      const ref = {
        get id() {
          reads++;
          return reads === 1 ? d.id : "d999999";
        },
      };
      p.update(ref, { choice: d.items[0] as number });
      expect(p.pendingDecisions).toBe(0);
      expect(codeOf(() => p.update(d, { choice: null }))).toBe(ErrorCode.DecisionAlreadyUsed);
    });
  }
});

describe("option ranges as the README states them", () => {
  it("maxSize is an integer in [1, 2^20]", () => {
    expect(new OfuMnlPlus({ contextDim: 2, maxSize: 2 ** 20 }).maxSize).toBe(2 ** 20);
    expect(codeOf(() => new OfuMnlPlus({ contextDim: 2, maxSize: 2 ** 20 + 1 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new UcbMnl({ contextDim: 2, maxSize: 2 ** 31 }))).toBe(ErrorCode.OutOfRange);
  });

  it("values within their ranges whose radius would not be finite are OUT_OF_RANGE", () => {
    expect(codeOf(() => new OfuMnlPlus({ contextDim: 2, maxSize: 2, stepSize: 1e200 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new UcbMnl({ contextDim: 2, maxSize: 2, v0: 1e300 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new UcbMnl({ contextDim: 2, maxSize: 2, exploration: 1e308 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new TsMnl({ contextDim: 2, maxSize: 2, v0: 1e300 }))).toBe(ErrorCode.OutOfRange);
    // Each alone at a more usual size is fine.
    expect(codeOf(() => new OfuMnlPlus({ contextDim: 2, maxSize: 2, stepSize: 1e100 }))).toBeUndefined();
    expect(codeOf(() => new UcbMnl({ contextDim: 2, maxSize: 2, v0: 1e3 }))).toBeUndefined();
  });
});
