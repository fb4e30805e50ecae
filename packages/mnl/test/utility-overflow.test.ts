/**
 * Outside audit (mnlaudit): option values each within its documented range (a large `exploration` with a
 * tiny `ridge`, or features near the norm bound) make the optimistic or sampled utilities overflow a double.
 * Before the fix, `select` turned them into NaN: UCB-MNL and OFU-MNL+ offered nothing under non-uniform
 * revenues (e^(Infinity - Infinity)), OFU-MNL+ ranked tied Infinity utilities by index, and TS-MNL's sample
 * was NaN, so it offered nothing even under uniform revenues. Each test failed before the fix.
 */
import { findNonFinite } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";

// Items 0 and 1 are far apart from the rest; item 2 is the zero vector.
const features = Float64Array.from([0.5, 0, 0, 0.5, 0, 0, 1e-3, 0]);
const revenues = Float64Array.from([0.1, 0.9, 0.5, 0.2]);

function checkRun(p: UcbMnl | TsMnl | OfuMnlPlus, rounds: number, f: Float64Array): void {
  for (let t = 0; t < rounds; t++) {
    const a = p.select({ features: f, numItems: 4, maxSize: 2 });
    expect(a.items.length).toBe(2);
    const b = p.select({ features: f, numItems: 4, maxSize: 2, revenues });
    expect(b.items.length).toBeGreaterThan(0);
    p.update(a, { choice: a.items[t % 2] as number });
    p.update(b, { choice: null });
    expect(findNonFinite(p.toJSON(), { infinityInEncoded: true })).toEqual([]);
  }
}

describe("utilities that overflow a double still give the revenue-maximising assortment", () => {
  it("UCB-MNL (exploration 1e200, ridge 1e-300): an Infinity bonus under non-uniform revenues offers the best item, not []", () => {
    const p = new UcbMnl({ contextDim: 2, maxSize: 2, exploration: 1e200, ridge: 1e-300 });
    // Items 0, 1 and 3 have an optimistic utility past the largest double; among them item 1 earns 0.9.
    expect(p.select({ features, numItems: 4, maxSize: 2, revenues }).items).toEqual([1]);
    checkRun(p, 5, features);
  });

  it("OFU-MNL+ (exploration 1e300, ridge 1e-100, ||x|| = 1e49): an Infinity bonus under non-uniform revenues offers the best item, not []", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 2, exploration: 1e300, ridge: 1e-100 });
    const big = Float64Array.from([1e49, 0, 0, 1e49, 0, 0, 1e-3, 0]);
    expect(p.select({ features: big, numItems: 4, maxSize: 2, revenues }).items).toEqual([1]);
    checkRun(p, 3, big);
  });

  it("OFU-MNL+: items whose optimistic utilities overflow are ranked by their true order, not by index", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 2, exploration: 1e300, ridge: 1e-100 });
    // Both bonuses pass the largest double; item 1's is 1.5 times item 0's.
    const f = Float64Array.from([1e49, 0, 0, 1.5e49, 0, 0]);
    expect(p.select({ features: f, numItems: 3, maxSize: 1 }).items).toEqual([1]);
    expect(p.select({ features: f, numItems: 3, maxSize: 2 }).items).toEqual([1, 0]);
  });

  it("TS-MNL (exploration 1e200, ridge 1e-300): a sample past the largest double gives finite utilities, full assortments and the same random stream", () => {
    for (const seed of [0, 1, 2]) {
      const p = new TsMnl({ contextDim: 2, maxSize: 2, exploration: 1e200, ridge: 1e-300, seed });
      const q = new TsMnl({ contextDim: 2, maxSize: 2, seed });
      const a = p.select({ features, numItems: 4, maxSize: 2 });
      q.select({ features, numItems: 4, maxSize: 2 });
      expect(a.items.length).toBe(2);
      // The overflow is handled without drawing again: both policies drew the same normals.
      expect((p.toJSON().state as { rng: unknown }).rng).toEqual((q.toJSON().state as { rng: unknown }).rng);
      p.discard(a);
      checkRun(p, 5, features);
    }
  });

  it("TS-MNL with several samples: the per-item max is taken over samples on one common scale", () => {
    const p = new TsMnl({ contextDim: 2, maxSize: 2, exploration: 1e200, ridge: 1e-300, samples: 7, seed: 3 });
    checkRun(p, 4, features);
  });
});
