import { Rng, type RouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";

const d = 3;
const makers = {
  "OFU-MNL+": () => new OfuMnlPlus({ contextDim: d, maxSize: 4 }),
  "UCB-MNL": () => new UcbMnl({ contextDim: d, maxSize: 4 }),
  "TS-MNL": () => new TsMnl({ contextDim: d, maxSize: 4, seed: 3 }),
};

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as RouteKitError).code;
  }
  return "none";
}

describe("select validates features and revenues before any change (the fused utilities pass included)", () => {
  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: a bad revenue or feature row throws and leaves the snapshot (rng included) unchanged`, () => {
      const rng = Rng.fromSeed(4);
      const p = make();
      for (let t = 0; t < 20; t++) {
        const features = Float64Array.from({ length: 5 * d }, () => rng.normal(0, 0.5));
        const dec = p.select({ numItems: 5, maxSize: 4, features });
        p.update(dec, { choice: dec.items[0] ?? null });
      }
      const before = JSON.stringify(p.toJSON());
      const features = Float64Array.from({ length: 4 * d }, () => rng.normal(0, 0.5));
      const nanRevenue = Float64Array.of(0.5, 0.4, Number.NaN, 0.2);
      expect(codeOf(() => p.select({ numItems: 4, maxSize: 4, features, revenues: nanRevenue }))).toBe("NON_FINITE");
      expect(
        codeOf(() => p.select({ numItems: 4, maxSize: 4, features, revenues: Float64Array.of(0.5, 1.5, 0.1, 0.2) })),
      ).toBe("OUT_OF_RANGE");
      const big = features.slice();
      big[2 * d] = 1e60;
      // A feature row above the bound is reported before bad revenues, as before the fused pass.
      const err = (() => {
        try {
          p.select({ numItems: 4, maxSize: 4, features: big, revenues: nanRevenue });
        } catch (e) {
          return e as RouteKitError;
        }
        return null;
      })();
      expect(err?.code).toBe("OUT_OF_RANGE");
      expect(err?.message).toContain("query.features row 2");
      const nanRow = features.slice();
      nanRow[d] = Number.NaN;
      expect(codeOf(() => p.select({ numItems: 4, maxSize: 4, features: nanRow }))).toBe("NON_FINITE");
      expect(JSON.stringify(p.toJSON())).toBe(before);
    });
  }
});
