import { describe, expect, test } from "vitest";
import {
  allocF64,
  axpy,
  dot,
  gemv,
  gemvT,
  quadFormUpper,
  scal,
  setScaledIdentity,
  symmetrizeUpper,
  symvUpper,
  syrUpper,
} from "../src/index.js";
import { EPS, logSpaced, spdWithEigenvalues, TestRng, withStride } from "./helpers.js";

/** Both storage kinds: plain arrays (TypeScript path) and allocF64 arrays (SIMD path when available). */
const kinds = [
  ["plain", (n: number) => new Float64Array(n)],
  ["allocF64", (n: number) => allocF64(n)],
] as const;

function copyTo(make: (n: number) => Float64Array, src: Float64Array): Float64Array {
  const out = make(src.length);
  out.set(src);
  return out;
}

/** |computed - exact| <= c * n * eps * (sum of |terms|): the standard bound for a summation. */
function expectSumClose(computed: number, exact: number, absTerms: number, n: number): void {
  expect(Math.abs(computed - exact)).toBeLessThanOrEqual(4 * (n + 2) * EPS * absTerms + 1e-300);
}

describe.each(kinds)("level-1/2 kernels on %s arrays", (_, make) => {
  const rng = new TestRng(11);

  test("dot matches a naive sum, with offsets, including heavy cancellation", () => {
    for (const n of [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 200, 401]) {
      const x = copyTo(make, rng.vector(n + 5));
      const y = copyTo(make, rng.vector(n + 3));
      // Cancellation: y close to a multiple of x's orthogonal complement makes the dot tiny.
      for (const [xo, yo] of [
        [0, 0],
        [5, 3],
        [1, 2],
      ] as const) {
        let exact = 0;
        let abs = 0;
        for (let i = 0; i < n; i++) {
          exact += (x[xo + i] as number) * (y[yo + i] as number);
          abs += Math.abs((x[xo + i] as number) * (y[yo + i] as number));
        }
        expectSumClose(dot(x, y, n, xo, yo), exact, abs, n);
      }
    }
    const big = copyTo(make, Float64Array.from([1e16, 1, -1e16, 1]));
    const ones = copyTo(make, Float64Array.from([1, 1, 1, 1]));
    // Exact answer 2; the bound allows absolute error ~ n eps 2e16: what any summation order gives.
    expectSumClose(dot(big, ones), 2, 2e16 + 2, 4);
  });

  test("axpy and scal", () => {
    const x = copyTo(make, rng.vector(13));
    const y = copyTo(make, rng.vector(13));
    const y0 = y.slice();
    axpy(-2.5, x, y, 10, 1, 2);
    for (let i = 0; i < 13; i++) {
      const want = i >= 2 && i < 12 ? (y0[i] as number) - 2.5 * (x[i - 1] as number) : y0[i];
      expect(y[i]).toBe(want);
    }
    scal(3, y, 4, 1);
    expect(y[0]).toBe(y0[0]);
    expect(y[12]).toBe(y0[12] as number);
  });

  test("gemv and gemvT match naive products (alpha, beta, ld > cols)", () => {
    for (const [rows, cols] of [
      [1, 1],
      [3, 5],
      [17, 9],
      [50, 50],
      [64, 201],
    ] as const) {
      const ld = cols + 3;
      const A = copyTo(make, rng.vector(rows * ld));
      const x = copyTo(make, rng.vector(cols));
      const y = copyTo(make, rng.vector(rows));
      const y0 = y.slice();
      gemv(A, rows, cols, x, y, 0.7, -1.3, ld);
      for (let i = 0; i < rows; i++) {
        let s = 0;
        let abs = 0;
        for (let j = 0; j < cols; j++) {
          s += (A[i * ld + j] as number) * (x[j] as number);
          abs += Math.abs((A[i * ld + j] as number) * (x[j] as number));
        }
        expectSumClose(y[i] as number, 0.7 * s - 1.3 * (y0[i] as number), abs + Math.abs(y0[i] as number), cols);
      }
      // beta = 0 never reads y (NaN in y must not leak).
      y.fill(Number.NaN);
      gemv(A, rows, cols, x, y, 1, 0, ld);
      expect(y.every(Number.isFinite)).toBe(true);
      const xt = copyTo(make, rng.vector(rows));
      const z = copyTo(make, rng.vector(cols));
      const z0 = z.slice();
      gemvT(A, rows, cols, xt, z, 2, 0.5, ld);
      for (let j = 0; j < cols; j++) {
        let s = 0;
        let abs = 0;
        for (let i = 0; i < rows; i++) {
          s += (A[i * ld + j] as number) * (xt[i] as number);
          abs += Math.abs((A[i * ld + j] as number) * (xt[i] as number));
        }
        expectSumClose(z[j] as number, 2 * s + 0.5 * (z0[j] as number), 2 * abs + Math.abs(z0[j] as number), rows);
      }
    }
  });

  test("symvUpper and quadFormUpper read only the upper triangle and match full products", () => {
    for (const n of [1, 2, 5, 8, 9, 33, 120]) {
      for (const cond of [1, 1e10]) {
        const full = spdWithEigenvalues(rng, logSpaced(n, cond));
        const ld = n + 2;
        const A = copyTo(make, withStride(full, n, ld));
        // Poison the strictly lower triangle: it must never be read.
        for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) A[i * ld + j] = Number.NaN;
        const x = copyTo(make, rng.vector(n));
        const y = copyTo(make, new Float64Array(n).fill(7));
        symvUpper(A, n, x, y, ld);
        let q = 0;
        let qAbs = 0;
        for (let i = 0; i < n; i++) {
          let s = 0;
          let abs = 0;
          for (let j = 0; j < n; j++) {
            s += (full[i * n + j] as number) * (x[j] as number);
            abs += Math.abs((full[i * n + j] as number) * (x[j] as number));
          }
          expectSumClose(y[i] as number, s, abs, n);
          q += (x[i] as number) * s;
          qAbs += Math.abs(x[i] as number) * abs;
        }
        expectSumClose(quadFormUpper(A, n, x, ld), q, qAbs, 2 * n);
      }
    }
  });

  test("syrUpper adds alpha x x^T on the upper triangle only", () => {
    for (const n of [1, 2, 3, 4, 5, 31, 100]) {
      const ld = n + 1;
      const A = copyTo(make, rng.vector(n * ld));
      const A0 = A.slice();
      const x = copyTo(make, rng.vector(n));
      x[0] = 0; // a skipped row
      syrUpper(A, n, -0.37, x, ld);
      let worst = 0;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < ld; j++) {
          const inUpper = j >= i && j < n;
          const want = inUpper
            ? (A0[i * ld + j] as number) + -0.37 * (x[i] as number) * (x[j] as number)
            : A0[i * ld + j];
          const err = Math.abs((A[i * ld + j] as number) - (want as number)) / (Math.abs(want as number) + 1e-300);
          worst = Math.max(worst, err);
        }
      expect(worst).toBeLessThanOrEqual(4 * EPS);
    }
  });

  test("symmetrizeUpper and setScaledIdentity", () => {
    const n = 6;
    const ld = 8;
    const A = copyTo(make, rng.vector(n * ld));
    symmetrizeUpper(A, n, ld);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(A[i * ld + j]).toBe(A[j * ld + i]);
    const spare = A[6] as number;
    setScaledIdentity(A, n, 2.5, ld);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(A[i * ld + j]).toBe(i === j ? 2.5 : 0);
    expect(A[6]).toBe(spare); // padding column untouched
  });
});
