import { describe, expect, it } from "vitest";
import { topKIndices, topKIndicesAmong, topKThreshold } from "../src/index.js";
import { TestRng } from "./helpers.js";

/** The reference: indices scoring above `floor`, best first, ties by index, at most k (a full sort). */
function sortedTopK(score: Float64Array, n: number, k: number, floor: number): number[] {
  return [...Array(n).keys()]
    .filter((i) => score[i]! > floor)
    .sort((a, b) => score[b]! - score[a]! || a - b)
    .slice(0, k);
}

describe("topKIndices", () => {
  it("breaks ties by index and keeps only scores above the floor", () => {
    const out = new Int32Array(5);
    const tied = Float64Array.of(1, 3, 3, 2, 3);
    expect(Array.from(out.subarray(0, topKIndices(tied, 5, 2, out)))).toEqual([1, 2]);
    expect(Array.from(out.subarray(0, topKIndices(tied, 5, 4, out)))).toEqual([1, 2, 4, 3]);
    expect(topKIndices(tied, 5, 3, out, 2.5)).toBe(3);
    expect(topKIndices(tied, 5, 0, out)).toBe(0);
    // k beyond n keeps every item (the scratch is sized by n, not k).
    expect(Array.from(out.subarray(0, topKIndices(tied, 5, 2 ** 53, out)))).toEqual([1, 2, 4, 3, 0]);
  });

  it("agrees with the sort it replaces in the MNL environment's oracle, on its utilities (N = 100, K = 15)", () => {
    const rng = new TestRng(3);
    const u = new Float64Array(100);
    const out = new Int32Array(15);
    for (let t = 0; t < 200; t++) {
      for (let i = 0; i < 100; i++) u[i] = rng.normal() / 3;
      const order = [...Array(100).keys()].sort((a, c) => u[c]! - u[a]! || a - c).slice(0, 15);
      expect(topKIndices(u, 100, 15, out)).toBe(15);
      expect(Array.from(out)).toEqual(order);
    }
  });
});

describe("topKIndicesAmong", () => {
  it("is the top-K of all items when given the items above the guessed threshold, and refuses other counts", () => {
    const rng = new TestRng(5);
    const n = 100;
    const k = 10;
    const score = Float64Array.from({ length: n }, () => rng.normal());
    let s1 = 0;
    let s2 = 0;
    for (const v of score) {
      s1 += v;
      s2 += v * v;
    }
    const T = topKThreshold(s1, s2, n, k);
    const cand = Int32Array.from([...Array(n).keys()].filter((i) => score[i]! > T));
    const expected = new Int32Array(k);
    topKIndices(score, n, k, expected);
    const out = new Int32Array(k);
    expect(topKIndicesAmong(score, k, out, cand, cand.length)).toBe(k);
    expect(out).toEqual(expected);
    expect(topKIndicesAmong(score, k, out, cand, k - 1)).toBe(-1);
    expect(topKIndicesAmong(score, k, out, cand, 4 * k + 1)).toBe(-1);
  });
});

describe("top-K against a sort", () => {
  it("keeps the k best above the floor, best first, ties to the lower index, NaN never (many ties)", () => {
    const rng = new TestRng(11);
    const out = new Int32Array(40);
    for (let t = 0; t < 3000; t++) {
      const n = rng.int(60);
      const k = 1 + rng.int(40);
      const levels = 1 + rng.int(8);
      const score = Float64Array.from({ length: n }, () =>
        rng.uniform() < 0.05 ? Number.NaN : rng.uniform() < 0.3 ? rng.int(levels) : rng.normal(),
      );
      const floor = rng.uniform() < 0.5 ? -Infinity : rng.normal();
      const m = topKIndices(score, n, k, out, floor);
      expect(Array.from(out.subarray(0, m))).toEqual(sortedTopK(score, n, k, floor));
    }
  });

  it("is exact on the threshold path too (n >= 3k, finite scores, ties at the k-th score, skewed scores)", () => {
    const rng = new TestRng(12);
    const out = new Int32Array(40);
    for (let t = 0; t < 3000; t++) {
      const k = 1 + rng.int(30);
      const n = 3 * k + rng.int(120);
      const levels = 2 + rng.int(20);
      const kind = rng.int(4);
      const score = Float64Array.from({ length: n }, () =>
        kind === 0
          ? rng.normal()
          : kind === 1
            ? rng.int(levels)
            : kind === 2
              ? Math.exp(3 * rng.normal())
              : -(rng.uniform() ** 8),
      );
      const floor = rng.uniform() < 0.7 ? -Infinity : rng.normal();
      const m = topKIndices(score, n, k, out, floor);
      expect(Array.from(out.subarray(0, m))).toEqual(sortedTopK(score, n, k, floor));
    }
  });
});
