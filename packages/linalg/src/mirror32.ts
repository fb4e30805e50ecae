/**
 * Single-precision mirrors of symmetric matrices, for quadratic forms that are read far more often
 * than the matrix changes (a UCB width per arm per round, one rank-1 update per round).
 *
 * The Float64 matrix stays the master: it alone is updated, snapshotted and checked for drift. The
 * mirror is a Float32 copy of its upper triangle, rewritten from the master row by row right after
 * each update ({@link syrUpperMirrored}), so rounding never accumulates in it: every entry is the
 * master's entry rounded once to f32. A quadratic form then streams half the bytes and multiplies
 * four lanes at a time (f32x4) instead of two.
 *
 * Layout (`mirror32Length(n)` floats): row i from column c = i & ~3 to np - 1, np = n rounded up to a
 * multiple of 4, holding 0 for c <= j < i, A[i][i] at j = i, 2 A[i][j] for i < j < n (exact: a power
 * of two) and 0 for j >= n. Rows follow each other; every row starts 16-byte aligned.
 *
 * Accuracy: x^T A x = sum_i x_i (row_i . x32) with the row dot products in f32 (16 partial sums) and
 * the sum over rows in f64. Its error is a few f32 ulps (6e-8) of sum |x_i| |A_ij| |x_j| per row: about
 * 1e-7 relative for the inverses of ridge regressions (measured in the tests and in kernel-ucb's).
 *
 * Each function has a WebAssembly SIMD twin (wasm/kernels.wat) performing the same f32 / f64
 * operations in the same order (Math.fround after every f32 operation is exact f32 arithmetic:
 * a double holds an f32 product exactly, and rounding a double sum of two floats to f32 gives the
 * correctly rounded f32 sum), so both backends give identical bits.
 */
import { vectorIn } from "./dispatch.js";
import { arenaKernelsAt, arenaOf, stageF32 } from "./memory.js";

const fr = Math.fround;

/** n rounded up to a multiple of 4. */
export function paddedLength(n: number): number {
  return (n + 3) & ~3;
}

/** Floats in the mirror of an n x n matrix. */
export function mirror32Length(n: number): number {
  // sum over i < n of (np - 4 floor(i / 4)), with n = 4q + r
  const q = n >> 2;
  const r = n & 3;
  return n * paddedLength(n) - 4 * (2 * q * (q - 1) + r * q);
}

/** Writes the whole mirror of the upper triangle of A (n x n, row stride ld) into M. O(n^2), cold path. */
export function mirrorUpper(A: Float64Array, n: number, M: Float32Array, ld = n): void {
  const np = paddedLength(n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    const c = i & ~3;
    for (let j = c; j < i; j++) M[p++] = 0;
    M[p++] = A[i * ld + i] as number;
    for (let j = i + 1; j < n; j++) M[p++] = 2 * (A[i * ld + j] as number);
    for (let j = n; j < np; j++) M[p++] = 0;
  }
}

/** x32[j] = f32(x[j]) for j < n, 0 up to the padded length; x32 needs paddedLength(n) entries. */
export function roundToF32(x: Float64Array, n: number, x32: Float32Array): Float32Array {
  const np = paddedLength(n);
  for (let j = 0; j < n; j++) x32[j] = x[j] as number;
  for (let j = n; j < np; j++) x32[j] = 0;
  return x32;
}

/** Scratch for {@link rowDot32}: see blas.ts's DOT_OUT (a double returned from a non-inlined call is boxed). */
const ROW_OUT = new Float64Array(1);

/** f32 dot product of M[p..p+L) and x32[q..q+L) (L a multiple of 4), the order of wasm's $rowdot32. */
function rowDot32(M: Float32Array, p: number, x32: Float32Array, q: number, L: number): void {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let s5 = 0;
  let s6 = 0;
  let s7 = 0;
  let s8 = 0;
  let s9 = 0;
  let s10 = 0;
  let s11 = 0;
  let s12 = 0;
  let s13 = 0;
  let s14 = 0;
  let s15 = 0;
  let k = 0;
  for (; k + 15 < L; k += 16) {
    const a = p + k;
    const b = q + k;
    s0 = fr(s0 + fr((M[a] as number) * (x32[b] as number)));
    s1 = fr(s1 + fr((M[a + 1] as number) * (x32[b + 1] as number)));
    s2 = fr(s2 + fr((M[a + 2] as number) * (x32[b + 2] as number)));
    s3 = fr(s3 + fr((M[a + 3] as number) * (x32[b + 3] as number)));
    s4 = fr(s4 + fr((M[a + 4] as number) * (x32[b + 4] as number)));
    s5 = fr(s5 + fr((M[a + 5] as number) * (x32[b + 5] as number)));
    s6 = fr(s6 + fr((M[a + 6] as number) * (x32[b + 6] as number)));
    s7 = fr(s7 + fr((M[a + 7] as number) * (x32[b + 7] as number)));
    s8 = fr(s8 + fr((M[a + 8] as number) * (x32[b + 8] as number)));
    s9 = fr(s9 + fr((M[a + 9] as number) * (x32[b + 9] as number)));
    s10 = fr(s10 + fr((M[a + 10] as number) * (x32[b + 10] as number)));
    s11 = fr(s11 + fr((M[a + 11] as number) * (x32[b + 11] as number)));
    s12 = fr(s12 + fr((M[a + 12] as number) * (x32[b + 12] as number)));
    s13 = fr(s13 + fr((M[a + 13] as number) * (x32[b + 13] as number)));
    s14 = fr(s14 + fr((M[a + 14] as number) * (x32[b + 14] as number)));
    s15 = fr(s15 + fr((M[a + 15] as number) * (x32[b + 15] as number)));
  }
  for (; k < L; k += 4) {
    const a = p + k;
    const b = q + k;
    s0 = fr(s0 + fr((M[a] as number) * (x32[b] as number)));
    s1 = fr(s1 + fr((M[a + 1] as number) * (x32[b + 1] as number)));
    s2 = fr(s2 + fr((M[a + 2] as number) * (x32[b + 2] as number)));
    s3 = fr(s3 + fr((M[a + 3] as number) * (x32[b + 3] as number)));
  }
  const t0 = fr(fr(s0 + s4) + fr(s8 + s12));
  const t1 = fr(fr(s1 + s5) + fr(s9 + s13));
  const t2 = fr(fr(s2 + s6) + fr(s10 + s14));
  const t3 = fr(fr(s3 + s7) + fr(s11 + s15));
  ROW_OUT[0] = fr(fr(t0 + t1) + fr(t2 + t3));
}

/** TypeScript twin of {@link quadFormMirror32}. */
export function quadFormMirror32Scalar(M: Float32Array, n: number, x32: Float32Array, x: Float64Array): number {
  quadFormMirror32Into(M, n, x32, x);
  return ROW_OUT[0] as number;
}

/** quadFormMirror32Scalar's body; the quadratic form goes to ROW_OUT[0] (nothing to box: see ROW_OUT). */
function quadFormMirror32Into(M: Float32Array, n: number, x32: Float32Array, x: Float64Array): void {
  const np = paddedLength(n);
  let total = 0;
  let p = 0;
  for (let i = 0; i < n; i++) {
    const c = i & ~3;
    const L = np - c;
    rowDot32(M, p, x32, c, L);
    total += (x[i] as number) * (ROW_OUT[0] as number);
    p += L;
  }
  ROW_OUT[0] = total;
}

/**
 * x^T A x from the mirror M of A (see the module notes): x32 = roundToF32(x) (paddedLength(n)
 * entries), x the Float64 vector itself. About 1e-7 relative to the Float64 quadratic form.
 */
export function quadFormMirror32(M: Float32Array, n: number, x32: Float32Array, x: Float64Array): number {
  quadFormMirror32To(M, n, x32, x, QUAD_OUT, 0);
  return QUAD_OUT[0] as number;
}

/** quadFormMirror32's result slot (see {@link quadFormMirror32To}). */
const QUAD_OUT = new Float64Array(1);

/**
 * {@link quadFormMirror32} stored into out[oi] instead of returned: a double returned from a call V8 does not
 * inline is boxed into a 16-byte heap number, one stored into a typed array is not. Same bits.
 */
export function quadFormMirror32To(
  M: Float32Array,
  n: number,
  x32: Float32Array,
  x: Float64Array,
  out: Float64Array,
  oi: number,
): void {
  const a = arenaOf(M.buffer);
  if (
    a >= 0 &&
    (n | 0) === n &&
    n >= 0 &&
    M.length >= mirror32Length(n) &&
    x32.length >= paddedLength(n) &&
    x.length >= n
  ) {
    const o32 = arenaOf(x32.buffer) === a ? x32.byteOffset : stageF32(a, 0, x32, paddedLength(n));
    const o64 = vectorIn(a, x, n, 1);
    if (o32 >= 0 && o64 >= 0) {
      out[oi] = arenaKernelsAt(a).quad32(M.byteOffset, n, o32, o64);
      return;
    }
  }
  quadFormMirror32Into(M, n, x32, x);
  out[oi] = ROW_OUT[0] as number;
}

/** TypeScript twin of {@link syrUpperMirrored}. */
export function syrUpperMirroredScalar(
  A: Float64Array,
  n: number,
  alpha: number,
  x: Float64Array,
  M: Float32Array,
  ld = n,
): void {
  ALPHA[0] = alpha;
  syrUpperMirroredScalarAt(A, n, ALPHA, 0, x, M, ld);
}

/** Scratch for syrUpperMirroredScalar's alpha. */
const ALPHA = new Float64Array(1);

/** {@link syrUpperMirroredScalar} with alpha = alphas[ai] (a double read from a typed array is not boxed). */
function syrUpperMirroredScalarAt(
  A: Float64Array,
  n: number,
  alphas: Float64Array,
  ai: number,
  x: Float64Array,
  M: Float32Array,
  ld: number,
): void {
  const alpha = alphas[ai] as number;
  const np = paddedLength(n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    const c = i & ~3;
    const axi = alpha * (x[i] as number);
    if (axi !== 0) {
      const row = i * ld;
      const m = p + (i - c) - i; // M[m + j] is column j's mirror entry
      for (let j = i; j < n; j++) {
        const v = (A[row + j] as number) + axi * (x[j] as number);
        A[row + j] = v;
        M[m + j] = v * 2;
      }
      M[m + i] = A[row + i] as number; // the diagonal is not doubled
    }
    p += np - c;
  }
}

/**
 * A += alpha x x^T on the upper triangle (the very operations of `syrUpper`, so the master's bits do
 * not depend on the mirror), rewriting each changed row of the mirror M from A while it is in cache.
 */
export function syrUpperMirrored(
  A: Float64Array,
  n: number,
  alpha: number,
  x: Float64Array,
  M: Float32Array,
  ld = n,
): void {
  ALPHA[0] = alpha;
  syrUpperMirroredAt(A, n, ALPHA, 0, x, M, ld);
}

/**
 * {@link syrUpperMirrored} with alpha = alphas[ai], for a caller that computes alpha: a double passed to a
 * function V8 does not inline is boxed into a 16-byte heap number, one read from a typed array is not. Same bits.
 */
export function syrUpperMirroredAt(
  A: Float64Array,
  n: number,
  alphas: Float64Array,
  ai: number,
  x: Float64Array,
  M: Float32Array,
  ld: number,
): void {
  const a = arenaOf(A.buffer);
  if (
    a >= 0 &&
    arenaOf(M.buffer) === a &&
    (n | 0) === n &&
    n >= 0 &&
    (ld | 0) === ld &&
    ld >= n &&
    (n === 0 || (n - 1) * ld + n <= A.length) &&
    x.length >= n &&
    M.length >= mirror32Length(n)
  ) {
    const xo = vectorIn(a, x, n, 0);
    if (xo >= 0) {
      arenaKernelsAt(a).syrmirror(A.byteOffset, n, alphas[ai] as number, xo, ld, M.byteOffset);
      return;
    }
  }
  syrUpperMirroredScalarAt(A, n, alphas, ai, x, M, ld);
}
