import { Rng } from "@routekit/core";
import { linalgBackend } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import { MAX_FEATURE_SQUARED_NORM } from "../src/base.js";
import { checkedOptimisticUtilities } from "../src/model.js";
import { UTILITIES_WASM_MAX_D } from "../src/utilities-wasm.generated.js";
import { WasmUtilities } from "../src/utilities-wasm.js";

/** Features with some exact zeros and negative zeros, so the sign of zero is exercised too. */
function features(rng: Rng, len: number, scale: number): Float64Array {
  return Float64Array.from({ length: len }, () => {
    const u = rng.uniform();
    return u < 0.05 ? -0 : u < 0.1 ? 0 : rng.normal(0, scale);
  });
}

/** A symmetric positive definite d x d matrix (the role of H^-1), stored in full. */
function spd(rng: Rng, d: number): Float64Array {
  const B = features(rng, d * d, 1);
  const M = new Float64Array(d * d);
  for (let i = 0; i < d; i++)
    for (let j = 0; j < d; j++) {
      let s = i === j ? 0.1 : 0;
      for (let k = 0; k < d; k++) s += (B[i * d + k] as number) * (B[j * d + k] as number);
      M[i * d + j] = s;
    }
  return M;
}

describe("WebAssembly SIMD utilities", () => {
  it("exist wherever linalg runs its WebAssembly backend, for d = 1..8 only", () => {
    for (let d = 1; d <= UTILITIES_WASM_MAX_D + 1; d++) {
      const expected = linalgBackend() === "wasm-simd" && d <= UTILITIES_WASM_MAX_D;
      expect(WasmUtilities.create(d) !== null).toBe(expected);
    }
  });

  it("give the TypeScript kernel's utilities and top-K candidates to the bit, for every d and odd or even n", () => {
    const rng = Rng.fromSeed(41);
    let compared = 0;
    for (let d = 1; d <= UTILITIES_WASM_MAX_D; d++) {
      const wasm = WasmUtilities.create(d);
      if (wasm === null) continue; // scalar backend: nothing to compare
      for (const n of [1, 2, 3, 7, 100, 101]) {
        for (let rep = 0; rep < 6; rep++) {
          const f = features(rng, n * d, rep < 3 ? 0.4 : 30);
          const w = features(rng, d, 1);
          const M = spd(rng, d);
          const c = [0.7, 1e-3, 25][rep % 3] as number;
          const T = [Number.NaN, -1e300, 0.1, 1e300, 0, 2][rep] as number;
          const util = new Float64Array(n);
          const cand = new Int32Array(n);
          const stats = new Float64Array(3);
          expect(checkedOptimisticUtilities(f, n, d, w, M, c, util, MAX_FEATURE_SQUARED_NORM, T, cand, stats)).toBe(-1);
          const wstats = new Float64Array(3);
          expect(wasm.run(f, n, w, M, c, MAX_FEATURE_SQUARED_NORM, T, wstats)).toBe(-1);
          for (let i = 0; i < n; i++) expect(Object.is(wasm.util[i], util[i])).toBe(true);
          expect(wstats[2]).toBe(stats[2]);
          expect(Array.from(wasm.cand.subarray(0, stats[2]))).toEqual(Array.from(cand.subarray(0, stats[2])));
          // The sums are accumulated in two lanes: equal up to rounding (they only steer the next guess).
          expect(wstats[0]).toBeCloseTo(stats[0] as number, 6);
          expect(Math.abs((wstats[1] as number) - (stats[1] as number))).toBeLessThanOrEqual(
            1e-12 * (stats[1] as number),
          );
          compared++;
        }
      }
    }
    if (linalgBackend() === "wasm-simd") expect(compared).toBe(UTILITIES_WASM_MAX_D * 6 * 6);
  });

  it("report a row above the norm bound (NaN, infinite or too large) instead of finishing", () => {
    const rng = Rng.fromSeed(42);
    const d = 5;
    const wasm = WasmUtilities.create(d);
    if (wasm === null) return;
    for (const n of [1, 2, 9, 10]) {
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1e60]) {
        for (const row of new Set([0, n - 1, n >> 1])) {
          const f = features(rng, n * d, 0.4);
          f[row * d + 2] = bad;
          const r = wasm.run(
            f,
            n,
            features(rng, d, 1),
            spd(rng, d),
            0.5,
            MAX_FEATURE_SQUARED_NORM,
            0,
            new Float64Array(3),
          );
          // The pair holding the row (the caller then finds the row with the TypeScript kernel).
          expect(r).toBe(row - (row % 2));
        }
      }
    }
  });

  it("grow their memory for large queries, and instances sharing the module do not disturb each other", () => {
    const rng = Rng.fromSeed(43);
    const a = WasmUtilities.create(8);
    const b = WasmUtilities.create(3);
    if (a === null || b === null) return;
    for (const [wasm, d, n] of [
      [a, 8, 5000],
      [b, 3, 7],
      [a, 8, 9],
      [b, 3, 20_001],
      [a, 8, 101],
    ] as const) {
      const f = features(rng, n * d, 0.3);
      const w = features(rng, d, 1);
      const M = spd(rng, d);
      const util = new Float64Array(n);
      const cand = new Int32Array(n);
      const stats = new Float64Array(3);
      checkedOptimisticUtilities(f, n, d, w, M, 0.4, util, MAX_FEATURE_SQUARED_NORM, 0.2, cand, stats);
      expect(wasm.run(f, n, w, M, 0.4, MAX_FEATURE_SQUARED_NORM, 0.2, new Float64Array(3))).toBe(-1);
      expect(wasm.util.length).toBeGreaterThanOrEqual(n);
      for (let i = 0; i < n; i++) expect(Object.is(wasm.util[i], util[i])).toBe(true);
      expect(Array.from(wasm.cand.subarray(0, stats[2]))).toEqual(Array.from(cand.subarray(0, stats[2])));
    }
  });
});
