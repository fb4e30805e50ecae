/**
 * Hot kernels with a runtime-chosen implementation. Today these are the TypeScript versions;
 * the WebAssembly SIMD path (see simd.ts) replaces them for arrays allocated with `allocF64`.
 */
import { dotScalar, gemvScalar, quadFormUpperScalar, symvUpperScalar, syrUpperScalar } from "./blas.js";

/** x . y over n entries. */
export function dot(x: Float64Array, y: Float64Array, n = x.length, xo = 0, yo = 0): number {
  return dotScalar(x, y, n, xo, yo);
}

/** y = alpha A x + beta y (row-major A, row stride ld). */
export function gemv(
  A: Float64Array,
  rows: number,
  cols: number,
  x: Float64Array,
  y: Float64Array,
  alpha = 1,
  beta = 0,
  ld = cols,
): void {
  gemvScalar(A, rows, cols, x, y, alpha, beta, ld);
}

/** y = A x for symmetric A stored in its upper triangle. */
export function symvUpper(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld = n): void {
  symvUpperScalar(A, n, x, y, ld);
}

/** x^T A x for symmetric A stored in its upper triangle. */
export function quadFormUpper(A: Float64Array, n: number, x: Float64Array, ld = n): number {
  return quadFormUpperScalar(A, n, x, ld);
}

/** A += alpha x x^T on the upper triangle. */
export function syrUpper(A: Float64Array, n: number, alpha: number, x: Float64Array, ld = n): void {
  syrUpperScalar(A, n, alpha, x, ld);
}

/** A Float64Array of n zeros, placed where the fastest kernels can reach it. */
export function allocF64(n: number): Float64Array {
  return new Float64Array(n);
}
