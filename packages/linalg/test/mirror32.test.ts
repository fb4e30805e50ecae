import { describe, expect, test } from "vitest";
import {
  allocF32,
  allocF64,
  dot,
  dotAtTo,
  dotTo,
  linalgBackend,
  mirror32Length,
  mirrorUpper,
  paddedLength,
  quadFormMirror32,
  quadFormMirror32Scalar,
  quadFormMirror32To,
  quadFormUpper,
  quadFormUpperTo,
  RandomFourierFeatures,
  roundToF32,
  setScaledIdentity,
  shermanMorrisonUpdate,
  shermanMorrisonWithU,
  shermanMorrisonWithUMirrored,
  symvUpper,
  syrUpper,
  syrUpperMirrored,
  syrUpperMirroredAt,
  syrUpperMirroredScalar,
} from "../src/index.js";
import { TestRng } from "./helpers.js";

const simd = linalgBackend() === "wasm-simd";

function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let bad = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) bad++;
  return bad;
}

const sizes = [...Array.from({ length: 36 }, (_, i) => i + 1), 63, 64, 65, 127, 200, 401];

describe("single-precision mirror: layout", () => {
  test("length, padding and the 2x off-diagonal entries", () => {
    expect(mirror32Length(1)).toBe(4);
    expect(mirror32Length(5)).toBe(4 * 8 + 4);
    const n = 6;
    const A = new Float64Array(n * n);
    for (let i = 0; i < n * n; i++) A[i] = i + 0.5;
    const M = new Float32Array(mirror32Length(n));
    mirrorUpper(A, n, M);
    // row 0: columns 0..7: A00, 2A01..2A05, 0, 0
    expect(Array.from(M.subarray(0, 8))).toEqual([0.5, 3, 5, 7, 9, 11, 0, 0]);
    // row 5 starts at column 4: 0, A55, 0, 0
    expect(Array.from(M.subarray(M.length - 4))).toEqual([0, 35.5, 0, 0]);
  });
});

describe("single-precision mirror: both backends give the same bits", () => {
  const rng = new TestRng(77);
  test("quadFormMirror32 and syrUpperMirrored, in and out of WebAssembly memory", () => {
    for (const n of sizes) {
      const ld = n + (n % 3);
      const A = rng.fill(allocF64(n * ld));
      const A2 = new Float64Array(A);
      const M = allocF32(mirror32Length(n));
      const M2 = new Float32Array(M.length);
      mirrorUpper(A, n, M, ld);
      mirrorUpper(A2, n, M2, ld);
      const x = rng.fill(allocF64(n));
      x[n >> 1] = 0; // a row syr skips
      const x32 = roundToF32(x, n, allocF32(paddedLength(n)));
      const x32b = new Float32Array(x32);
      const q = quadFormMirror32(M, n, x32, x);
      expect(Object.is(q, quadFormMirror32Scalar(M2, n, x32b, new Float64Array(x)))).toBe(true);
      syrUpperMirrored(A, n, -0.375, x, M, ld);
      syrUpperMirroredScalar(A2, n, -0.375, new Float64Array(x), M2, ld);
      expect(sameBits(A, A2)).toBe(0);
      expect(sameBits(M, M2)).toBe(0);
      // the master got exactly syrUpper's bits, and the mirror is the master rounded once
      const A3 = rng.fill(new Float64Array(n * ld));
      A3.set(A2);
      syrUpper(A3, n, -0.375, x, ld); // (A3 = A2 + update): compare with a fresh mirrored step on A2
      syrUpperMirroredScalar(A2, n, -0.375, new Float64Array(x), M2, ld);
      expect(sameBits(A2, A3)).toBe(0);
      const fresh = new Float32Array(M2.length);
      mirrorUpper(A2, n, fresh, ld);
      expect(sameBits(M2, fresh)).toBe(0);
    }
  });
  test("the typed-array-slot variants (quadFormMirror32To, quadFormUpperTo, dotTo, dotAtTo, syrUpperMirroredAt) and shermanMorrisonWithUMirrored give the bits of the number-passing kernels", () => {
    const slot = new Float64Array(3);
    for (const n of sizes) {
      const ld = n + (n % 3);
      for (const wasm of [true, false]) {
        const f64 = (k: number) => (wasm ? allocF64(k) : new Float64Array(k));
        const f32 = (k: number) => (wasm ? allocF32(k) : new Float32Array(k));
        const A = f64(n * ld);
        for (let i = 0; i < n; i++) A[i * ld + i] = 2;
        for (let i = 0; i < A.length; i++) A[i] = (A[i] as number) + 0.01 * rng.normal();
        const M = f32(mirror32Length(n));
        mirrorUpper(A, n, M, ld);
        const x = rng.fill(f64(n), 0.3);
        const x32 = roundToF32(x, n, f32(paddedLength(n)));
        quadFormMirror32To(M, n, x32, x, slot, 1);
        expect(Object.is(slot[1], quadFormMirror32(M, n, x32, x))).toBe(true);
        quadFormUpperTo(A, n, x, slot, 2, ld);
        expect(Object.is(slot[2], quadFormUpper(A, n, x, ld))).toBe(true);
        const u = f64(n);
        symvUpper(A, n, x, u, ld);
        dotTo(x, u, n, slot, 0);
        expect(Object.is(slot[0], dot(x, u, n))).toBe(true);
        const off = n >> 1;
        dotAtTo(A, u, n - off, off * ld + off, off, slot, 0);
        expect(Object.is(slot[0], dot(A, u, n - off, off * ld + off, off))).toBe(true);
        // syrUpperMirroredAt = syrUpperMirrored
        const A1 = f64(A.length);
        A1.set(A);
        const M1 = f32(M.length);
        M1.set(M);
        const A2 = new Float64Array(A);
        const M2 = new Float32Array(M);
        slot[0] = -0.375;
        syrUpperMirroredAt(A1, n, slot, 0, x, M1, ld);
        syrUpperMirrored(A2, n, -0.375, new Float64Array(x), M2, ld);
        expect(sameBits(A1, A2)).toBe(0);
        expect(sameBits(M1, M2)).toBe(0);
        // shermanMorrisonWithUMirrored: the formula with dot and syrUpperMirrored, and shermanMorrisonWithU's master
        const w = 0.5 + rng.uniform();
        const S = f64(A.length);
        S.set(A);
        const SM = f32(M.length);
        SM.set(M);
        const R = new Float64Array(A);
        const RM = new Float32Array(M);
        const denomRef = 1 + w * dot(x, u, n);
        syrUpperMirrored(R, n, -w / denomRef, new Float64Array(u), RM, ld);
        expect(Object.is(shermanMorrisonWithUMirrored(S, n, x, u, SM, w, ld), denomRef)).toBe(true);
        expect(sameBits(S, R)).toBe(0);
        expect(sameBits(SM, RM)).toBe(0);
        const P = new Float64Array(A);
        expect(Object.is(shermanMorrisonWithU(P, n, new Float64Array(x), new Float64Array(u), w, ld), denomRef)).toBe(
          true,
        );
        expect(sameBits(P, R)).toBe(0);
      }
    }
  });
  test.runIf(simd)("arrays in WebAssembly memory take the SIMD path (agrees with the scalar twin)", () => {
    const n = 401;
    const A = rng.fill(allocF64(n * n));
    const M = allocF32(mirror32Length(n));
    mirrorUpper(A, n, M);
    const x = rng.fill(allocF64(n));
    const x32 = roundToF32(x, n, allocF32(paddedLength(n)));
    expect(Object.is(quadFormMirror32(M, n, x32, x), quadFormMirror32Scalar(M, n, x32, x))).toBe(true);
  });
});

describe("single-precision mirror: accuracy on ridge-regression inverses", () => {
  /**
   * The RFF-UCB setting: unit-norm random Fourier features (400 of them, from d = 64 contexts), Ainv =
   * (Phi^T Phi + alpha I)^-1 kept by Sherman-Morrison with the mirror in step; sigma = sqrt(x^T Ainv x)
   * from the mirror vs from the Float64 master, at several points of the run and alphas.
   */
  for (const alpha of [1, 0.1]) {
    test(`sigma within 1e-6 relative of the Float64 quadratic form (alpha = ${alpha}, 3000 updates)`, () => {
      const rng = new TestRng(alpha === 1 ? 3 : 4);
      const d = 64;
      const F = 400;
      const rff = new RandomFourierFeatures(d, F / 2, 1, () => rng.normal());
      const Ainv = allocF64(F * F);
      setScaledIdentity(Ainv, F, 1 / alpha);
      const M = allocF32(mirror32Length(F));
      mirrorUpper(Ainv, F, M);
      const master = allocF64(F * F);
      master.set(Ainv);
      const y = allocF64(d);
      const phi = allocF64(F);
      const u = allocF64(F);
      const u2 = allocF64(F);
      const x32 = allocF32(paddedLength(F));
      // a pool of 300 contexts, so points repeat and some sigmas get small
      const pool = Array.from({ length: 300 }, () => rng.vector(d));
      let worst = 0;
      for (let t = 0; t < 3000; t++) {
        const c = pool[rng.int(pool.length)] as Float64Array;
        let s = 0;
        for (let j = 0; j < d; j++) s += (c[j] as number) ** 2;
        for (let j = 0; j < d; j++) y[j] = (c[j] as number) / Math.sqrt(s);
        rff.map(y, phi);
        if (t % 50 === 0 || t > 2950) {
          roundToF32(phi, F, x32);
          const q32 = quadFormMirror32(M, F, x32, phi);
          const q64 = quadFormUpper(Ainv, F, phi);
          worst = Math.max(worst, Math.abs(Math.sqrt(q32) / Math.sqrt(q64) - 1));
        }
        symvUpper(Ainv, F, phi, u);
        shermanMorrisonWithUMirrored(Ainv, F, phi, u, M);
        shermanMorrisonUpdate(master, F, phi, u2);
      }
      expect(sameBits(Ainv, master)).toBe(0); // the mirror never feeds back into the master
      expect(worst).toBeLessThan(1e-6);
      expect(worst).toBeGreaterThan(0); // it is single precision
      console.log(`alpha ${alpha}: worst relative sigma difference ${worst.toExponential(2)}`);
    });
  }
});

test("mirror32Length is the sum of the row lengths", () => {
  for (let n = 0; n < 70; n++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += paddedLength(n) - (i & ~3);
    expect(mirror32Length(n)).toBe(total);
  }
});

test("allocF32 places zeroed Float32Arrays in WebAssembly memory; freeF64 takes them back", async () => {
  const { freeF64, isInWasmMemory } = await import("../src/index.js");
  const a = allocF32(37);
  expect(a).toBeInstanceOf(Float32Array);
  expect(a.length).toBe(37);
  expect(isInWasmMemory(a)).toBe(simd);
  a.fill(2);
  expect(freeF64(a)).toBe(simd);
  const b = allocF32(37);
  expect(b.every((v) => v === 0)).toBe(true);
  expect(() => allocF32(-1)).toThrow(/allocF32/);
});

describe.runIf(simd)("vectors outside the matrix's memory are staged in and out (same bits)", () => {
  test("gemv (beta != 0), symvUpper, quadFormUpper, syrUpper, quadFormMirror32, syrUpperMirrored", async () => {
    const L = await import("../src/index.js");
    const rng = new TestRng(31);
    const n = 150;
    const A = rng.fill(allocF64(n * n));
    const Ap = new Float64Array(A); // plain: the TypeScript reference
    const x = rng.vector(n); // plain vectors: staged
    const y = rng.vector(n);
    const yRef = new Float64Array(y);
    L.gemv(A, n, n, x, y, 0.5, -2);
    L.gemv(Ap, n, n, x, yRef, 0.5, -2);
    expect(sameBits(y, yRef)).toBe(0);
    L.symvUpper(A, n, x, y);
    L.symvUpper(Ap, n, x, yRef);
    expect(sameBits(y, yRef)).toBe(0);
    expect(Object.is(L.quadFormUpper(A, n, x), L.quadFormUpper(Ap, n, x))).toBe(true);
    L.syrUpper(A, n, -0.25, x);
    L.syrUpper(Ap, n, -0.25, x);
    expect(sameBits(A, Ap)).toBe(0);
    const M = allocF32(mirror32Length(n));
    const Mp = new Float32Array(M.length);
    mirrorUpper(A, n, M);
    mirrorUpper(Ap, n, Mp);
    const x32 = roundToF32(x, n, new Float32Array(paddedLength(n)));
    expect(Object.is(quadFormMirror32(M, n, x32, x), quadFormMirror32Scalar(Mp, n, x32, x))).toBe(true);
    syrUpperMirrored(A, n, 0.125, x, M);
    syrUpperMirroredScalar(Ap, n, 0.125, x, Mp);
    expect(sameBits(A, Ap)).toBe(0);
    expect(sameBits(M, Mp)).toBe(0);
    // a vector longer than a staging slot takes the TypeScript path (still the same bits)
    const big = 9000;
    const Ab = allocF64(3 * big);
    rng.fill(Ab);
    const xb = rng.vector(big);
    const yb = new Float64Array(3);
    const ybRef = new Float64Array(3);
    L.gemv(Ab, 3, big, xb, yb);
    L.gemv(new Float64Array(Ab), 3, big, xb, ybRef);
    expect(sameBits(yb, ybRef)).toBe(0);
  });
});
