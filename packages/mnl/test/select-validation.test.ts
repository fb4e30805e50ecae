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

/** The next double below (`dir` -1) or above (+1) a positive finite x. */
function step(x: number, dir: 1 | -1): number {
  const f = new Float64Array([x]);
  const bits = new BigInt64Array(f.buffer);
  bits[0] = (bits[0] as bigint) + BigInt(dir);
  return f[0] as number;
}

describe("select and learn draw the feature norm bound (squared norm <= MAX_FEATURE_SQUARED_NORM = 1e100) at the same row", () => {
  // The largest x whose row [x, 0, 0] has a squared norm, as computed in double, within the bound.
  let edge = 1e50;
  while (edge * edge > 1e100) edge = step(edge, -1);
  const above = step(edge, 1);

  it("the edge row is the largest accepted; 1e50 itself is refused, being above 1e50 as a double (README: ||x|| > 1e50)", () => {
    expect(edge * edge <= 1e100 && above * above > 1e100).toBe(true);
    expect(1e50 > edge).toBe(true);
    expect(BigInt(1e50) > 10n ** 50n).toBe(true); // the double nearest 1e50 lies above it
  });

  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: the edge row is accepted by select and by learn, the next double up refused by both`, () => {
      const features = (x: number) => Float64Array.of(x, 0, 0, 0, 0.2, 0);
      const accepted = make();
      const d = accepted.select({ numItems: 2, maxSize: 2, features: features(edge) });
      accepted.update(d, { choice: null });
      const refused = make();
      const before = JSON.stringify(refused.toJSON());
      expect(codeOf(() => refused.select({ numItems: 2, maxSize: 2, features: features(above) }))).toBe("OUT_OF_RANGE");
      // learn of the same rows, given as another policy's log line.
      const logger = make();
      const logged = logger.select({ numItems: 1, maxSize: 1, features: features(0.1).slice(0, 3) });
      const rec = JSON.parse(JSON.stringify(logger.decisionRecord(logged)));
      const event = (x: number) => ({
        ...rec,
        decision: { items: [0], features: [x, 0, 0] },
        feedback: { choice: 0 },
      });
      expect(codeOf(() => refused.learn(event(edge)))).toBe("none");
      const learned = JSON.stringify(refused.toJSON());
      expect(codeOf(() => refused.learn(event(above)))).toBe("INVALID_EVENT");
      expect(JSON.stringify(refused.toJSON())).toBe(learned);
      expect(learned).not.toBe(before);
    });
  }
});
