import { Rng } from "@routekit/core";
import { linalgBackend } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import { GRADIENT_WASM_MAX_D } from "../src/gradient-wasm.generated.js";
import { WasmHistoryStore } from "../src/gradient-wasm.js";
import { ChoiceHistory, dataPass, gradientPass, MleWorkspace } from "../src/mle.js";
import { gradientPassKernel } from "../src/unrolled.generated.js";

/** Features with exact zeros and negative zeros, at a scale that spreads the utilities. */
function features(rng: Rng, len: number, scale: number): Float64Array {
  return Float64Array.from({ length: len }, () => {
    const u = rng.uniform();
    return u < 0.05 ? -0 : u < 0.1 ? 0 : rng.normal(0, scale);
  });
}

/**
 * A history whose rounds exercise every branch of the inlined exponential: ordinary spreads, rows that tie
 * with the round's maximum (v = 0), rows within 2^-28 of it (handed to Math.exp), rows more than 707 below it
 * (handed to Math.exp, e^v = 0 or subnormal), odd and even sizes, and rounds wider than 64 rows.
 */
function history(rng: Rng, d: number, rounds: number, sizes: readonly number[]): ChoiceHistory {
  const h = new ChoiceHistory(d);
  for (let s = 0; s < rounds; s++) {
    const n = sizes[s % sizes.length] as number;
    const kind = s % 5;
    const X = features(rng, n * d, kind === 3 ? 400 : kind === 4 ? 1e-3 : 1);
    if (kind === 1 && n > 1) X.copyWithin(d, 0, d); // two equal rows
    if (kind === 2 && n > 1) for (let k = 0; k < d; k++) X[d + k] = (X[k] as number) * (1 + 1e-12);
    h.stage(X, n, rng.int(n + 1) - 1);
    h.commit();
  }
  return h;
}

describe("WebAssembly SIMD gradient pass", () => {
  it("exists wherever linalg runs its WebAssembly backend, for d = 1..8 only", () => {
    for (let d = 1; d <= GRADIENT_WASM_MAX_D + 1; d++) {
      const expected = linalgBackend() === "wasm-simd" && d <= GRADIENT_WASM_MAX_D;
      expect(WasmHistoryStore.create(d) !== null).toBe(expected);
      // A fresh history starts in plain arrays and moves at its first growth (past 64 rounds).
      const h = history(Rng.fromSeed(d), d, 64, [3]);
      expect(h.store).toBe(null);
      h.stage(new Float64Array(3 * d), 3, 0);
      expect(h.store !== null).toBe(expected);
    }
  });

  it("gives the TypeScript kernel's gradient to the bit, for every d, every exp branch and wide rounds", () => {
    const rng = Rng.fromSeed(77);
    let compared = 0;
    for (let d = 1; d <= GRADIENT_WASM_MAX_D; d++) {
      const h = history(rng, d, 300, [1, 2, 3, 15, 16, 65, 100]);
      if (h.store === null) continue; // scalar backend: nothing to compare
      const ws = new MleWorkspace(d, 100);
      for (const scale of [0.01, 1, 30]) {
        const theta = features(rng, d, scale);
        for (const v0 of [1, 0.25, 40]) {
          const viaWasm = features(rng, d, 1);
          const viaTs = viaWasm.slice();
          const viaLoop = viaWasm.slice();
          gradientPass(h, 0, h.rounds, v0, theta, ws, viaWasm);
          const kernel = gradientPassKernel(d, 100);
          kernel?.(h.x, h.start, h.choice, 0, h.rounds, Math.log(v0), theta, ws.z, viaTs);
          dataPass(h, 0, h.rounds, v0, theta, ws, viaLoop, viaLoop, 1);
          for (let k = 0; k < d; k++) {
            expect(Object.is(viaWasm[k], viaTs[k]), `d=${d} k=${k}: ${viaWasm[k]} vs ${viaTs[k]}`).toBe(true);
            expect(Object.is(viaWasm[k], viaLoop[k]), `d=${d} k=${k} (generic loop)`).toBe(true);
          }
          compared++;
        }
      }
    }
    if (linalgBackend() === "wasm-simd") expect(compared).toBe(8 * 9);
  });

  it("keeps its views and contents through growth and a restore, and sums a sub-range", () => {
    const rng = Rng.fromSeed(5);
    const d = 5;
    const h = history(rng, d, 1000, [15]);
    const copy = new ChoiceHistory(d);
    copy.load(h.x.slice(0, h.rows * d), h.start.slice(0, h.rounds + 1), h.choice.slice(0, h.rounds), h.rounds);
    expect(Array.from(copy.x.subarray(0, h.rows * d))).toEqual(Array.from(h.x.subarray(0, h.rows * d)));
    const ws = new MleWorkspace(d, 15);
    const theta = features(rng, d, 1);
    const a = new Float64Array(d);
    const b = new Float64Array(d);
    gradientPass(h, 100, 900, 1, theta, ws, a);
    gradientPass(copy, 100, 900, 1, theta, ws, b);
    expect(Array.from(b)).toEqual(Array.from(a));
    // One more round after the restore grows the restored history like a fresh one.
    copy.stage(features(rng, 15 * d, 1), 15, 3);
    copy.commit();
    expect(copy.rounds).toBe(1001);
  });
});
