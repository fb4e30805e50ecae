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

describe("pending decisions cost what they offer, not maxSize rows (audit-kmnl)", () => {
  // Each pending record used to hold maxSize x contextDim doubles: at maxSize 2^20 and contextDim 64 that is
  // 512 MB per pending decision (20 pending: 10 GB of ArrayBuffers), and at contextDim 4096 the constructor's
  // first record (32 GB) threw an untyped RangeError on valid options.
  for (const make of [
    () => new OfuMnlPlus({ contextDim: 64, maxSize: 2 ** 20 }),
    () => new UcbMnl({ contextDim: 64, maxSize: 2 ** 20 }),
    () => new TsMnl({ contextDim: 64, maxSize: 2 ** 20, seed: 1 }),
  ]) {
    it(`${make().kind}: 20 pending 3-item decisions at maxSize 2^20, d = 64 allocate under 64 MB; snapshot round trip`, () => {
      const before = process.memoryUsage().arrayBuffers;
      const p = make();
      const feats = Float64Array.from({ length: 5 * 64 }, (_, i) => 0.01 * Math.sin(i));
      const pending = [];
      for (let t = 0; t < 20; t++) pending.push(p.select({ features: feats, numItems: 5, maxSize: 3 }));
      // A record grows to the largest assortment it carries (here all 5 items), and back in the pool keeps it.
      pending.push(p.select({ features: feats, numItems: 5, maxSize: 5 }));
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 2 ** 20);
      const json = JSON.stringify(p.toJSON());
      const back = (p.constructor as typeof OfuMnlPlus).fromJSON(JSON.parse(json));
      for (const d of pending) {
        p.update(d, { choice: d.items[0] as number });
        back.update(d, { choice: d.items[0] as number });
      }
      expect(JSON.stringify(back.toJSON())).toBe(JSON.stringify(p.toJSON()));
      expect(pending[20]?.items.length).toBe(5);
    });
  }
});
