import { describe, expect, test } from "vitest";
import { logSumExp, sigmoid, softmax, softplus } from "../src/index.js";

const NEG = Number.NEGATIVE_INFINITY;
const POS = Number.POSITIVE_INFINITY;

describe("logSumExp", () => {
  test("matches the direct formula where that is finite", () => {
    const x = [0.5, -1.25, 3, 2.75];
    const direct = Math.log(x.reduce((s, v) => s + Math.exp(v), 0));
    expect(logSumExp(x)).toBeCloseTo(direct, 14);
    expect(logSumExp([1, 2, 3, 4, 5], 3, 2)).toBeCloseTo(Math.log(Math.exp(3) + Math.exp(4) + Math.exp(5)), 14);
  });
  test("never overflows or underflows at +-1e308", () => {
    expect(logSumExp([1e308, 1e308])).toBe(1e308 + Math.LN2); // LN2 is below 1e308's ulp
    expect(logSumExp([1e308, -1e308])).toBe(1e308);
    expect(logSumExp([-1e308, -1e308])).toBe(-1e308);
    expect(logSumExp([1000, 1000])).toBeCloseTo(1000 + Math.LN2, 12);
    expect(logSumExp([-1000, -1000])).toBeCloseTo(-1000 + Math.LN2, 12);
  });
  test("-Infinity entries, ties, empty input, +Infinity and NaN", () => {
    expect(logSumExp([NEG, 0, NEG])).toBe(0);
    expect(logSumExp([NEG, NEG])).toBe(NEG);
    expect(logSumExp([])).toBe(NEG);
    expect(logSumExp([2, 2, 2, 2])).toBeCloseTo(2 + Math.log(4), 14);
    expect(logSumExp([1, POS])).toBe(POS);
    expect(logSumExp([1, Number.NaN, 2])).toBeNaN();
    expect(logSumExp([Number.NaN, POS])).toBeNaN();
  });
});

describe("softmax", () => {
  test("is normalised and matches exp(x - lse)", () => {
    const x = Float64Array.of(0.1, -3, 2, 7.5);
    const p = softmax(x, new Float64Array(4));
    const lse = logSumExp(x);
    for (let i = 0; i < 4; i++) expect(p[i]).toBeCloseTo(Math.exp((x[i] as number) - lse), 15);
    expect(p.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 15);
  });
  test("+-1e308 and large gaps", () => {
    expect(Array.from(softmax([1e308, -1e308], new Float64Array(2)))).toEqual([1, 0]);
    expect(Array.from(softmax([1e308, 1e308], new Float64Array(2)))).toEqual([0.5, 0.5]);
    expect(Array.from(softmax([-1e308, -1e308, -1e308, -1e308], new Float64Array(4)))).toEqual([
      0.25, 0.25, 0.25, 0.25,
    ]);
    const p = softmax([800, 0], new Float64Array(2));
    expect(p[0]).toBe(1);
    expect(p[1]).toBe(Math.exp(-800)); // 0 after underflow, never NaN
  });
  test("-Infinity entries get 0; all -Infinity is uniform; +Infinity entries share the mass", () => {
    expect(Array.from(softmax([NEG, 0, NEG, 0], new Float64Array(4)))).toEqual([0, 0.5, 0, 0.5]);
    expect(Array.from(softmax([NEG, NEG], new Float64Array(2)))).toEqual([0.5, 0.5]);
    expect(Array.from(softmax([POS, 1, POS, NEG], new Float64Array(4)))).toEqual([0.5, 0, 0.5, 0]);
  });
  test("ties are exactly uniform; NaN poisons every output; out may alias x", () => {
    expect(Array.from(softmax([3, 3, 3], new Float64Array(3)))).toEqual([1 / 3, 1 / 3, 1 / 3]);
    expect(Array.from(softmax([1, Number.NaN], new Float64Array(2))).every(Number.isNaN)).toBe(true);
    const x = Float64Array.of(1, 2, 3);
    const want = softmax(x, new Float64Array(3));
    softmax(x, x);
    expect(Array.from(x)).toEqual(Array.from(want));
    const partial = Float64Array.of(0, 0, 99);
    softmax(partial, partial, 2);
    expect(Array.from(partial)).toEqual([0.5, 0.5, 99]);
  });
});

describe("softplus and sigmoid", () => {
  test("stable at extremes and consistent with the direct formulas", () => {
    for (const v of [-30, -1, 0, 0.5, 20]) {
      expect(softplus(v)).toBeCloseTo(Math.log(1 + Math.exp(v)), 12);
      expect(sigmoid(v)).toBeCloseTo(1 / (1 + Math.exp(-v)), 15);
    }
    expect(softplus(1e308)).toBe(1e308);
    expect(softplus(-1e308)).toBe(0);
    expect(softplus(-800)).toBe(Math.exp(-800));
    expect(sigmoid(1e308)).toBe(1);
    expect(sigmoid(-1e308)).toBe(0);
    expect(sigmoid(-800)).toBe(0);
    expect(sigmoid(-40)).toBeGreaterThan(0);
  });
});
