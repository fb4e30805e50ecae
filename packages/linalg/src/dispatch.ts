/**
 * Hot kernels with a runtime-chosen implementation: the WebAssembly SIMD kernel (wasm/kernels.wat) when
 * the matrix argument lives in a WebAssembly memory (see `allocF64`) and the index ranges fit inside
 * the arrays; the TypeScript version from blas.ts otherwise. Vectors that live elsewhere (a plain
 * array, or another arena in plain-memory mode) are copied into that memory's staging slots and back,
 * O(n) around an O(n^2) kernel; `dot` runs in WebAssembly only when both vectors share a memory. Both perform the same floating-point
 * operations in the same order, so the choice never changes a result bit.
 *
 * The range checks matter: a WebAssembly kernel reads and writes the whole shared memory, so an
 * out-of-range call would silently touch a neighbouring allocation. Such calls take the TypeScript
 * path, whose out-of-range reads give NaN and whose out-of-range writes are dropped, as before.
 */
import {
  addRowsScalar,
  dotScalar,
  dotScalarTo,
  gemvScalar,
  quadFormUpperScalar,
  quadFormUpperScalarTo,
  symvQuadUpperScalar,
  symvUpperScalar,
  syrUpperScalar,
  syrUpperScalarAt,
} from "./blas.js";
import {
  arenaKernelsAt,
  arenaOf,
  kernelsFor,
  stageF64,
  stageSlot,
  unstageF64,
  type WasmKernels,
  wasmKernels,
} from "./memory.js";

export type { LinalgBackend, LinalgMemoryStats } from "./memory.js";
export {
  allocF32,
  allocF64,
  allocF64From,
  freeF64,
  isInWasmMemory,
  linalgBackend,
  linalgMemoryStats,
} from "./memory.js";

const K = wasmKernels;

/**
 * The kernels that reach all of the given buffers (one memory: in arena mode, arrays from different
 * arenas cannot meet in one WebAssembly call), or null.
 */
export function kernels2(a: ArrayBufferLike, b: ArrayBufferLike): WasmKernels | null {
  const k = kernelsFor(a);
  return k !== null && (b === a || arenaOf(b) === arenaOf(a)) ? k : null;
}

export function kernels3(a: ArrayBufferLike, b: ArrayBufferLike, c: ArrayBufferLike): WasmKernels | null {
  const k = kernels2(a, b);
  return k !== null && (c === a || arenaOf(c) === arenaOf(a)) ? k : null;
}

/**
 * Below this length a dot product is cheaper in TypeScript than the buffer checks and the call into
 * WebAssembly (the MNL policies' d = 5 dot products spent more time in the checks than in arithmetic).
 * Both paths give identical bits, so the cut-off only changes speed.
 */
const DOT_WASM_MIN_N = 16;

/**
 * Byte offset at which the kernels of arena `a` can read v[0 .. n): v itself when it lives there,
 * otherwise a copy in staging slot `slot` (v in another arena, or a plain array); -1 if it does not fit.
 */
export function vectorIn(a: number, v: Float64Array, n: number, slot: number): number {
  return arenaOf(v.buffer) === a ? v.byteOffset : stageF64(a, slot, v, 0, n);
}

/** Like {@link vectorIn} for an output the kernel overwrites without reading (no copy in). */
function outputIn(a: number, v: Float64Array, n: number, slot: number): number {
  return arenaOf(v.buffer) === a ? v.byteOffset : stageSlot(slot, n);
}

/** n is an int32 >= 0 and a[off .. off+n) is inside a. */
function fits(a: Float64Array, off: number, n: number): boolean {
  return (n | 0) === n && n >= 0 && (off | 0) === off && off >= 0 && off + n <= a.length;
}

/** A rows x cols block with row stride ld >= cols fits in A. */
function fitsMatrix(A: Float64Array, rows: number, cols: number, ld: number): boolean {
  return (
    (rows | 0) === rows &&
    rows >= 0 &&
    (cols | 0) === cols &&
    cols >= 0 &&
    (ld | 0) === ld &&
    ld >= cols &&
    (rows === 0 || (rows - 1) * ld + cols <= A.length)
  );
}

/** The kernels for dot(x, y, n, xo, yo), or null (kept out of `dot` so that `dot` stays small enough to inline). */
function dotKernels(x: Float64Array, y: Float64Array, n: number, xo: number, yo: number): WasmKernels | null {
  return fits(x, xo, n) && fits(y, yo, n) ? kernels2(x.buffer, y.buffer) : null;
}

/** x . y over n entries, from x[xo] and y[yo]. */
export function dot(x: Float64Array, y: Float64Array, n = x.length, xo = 0, yo = 0): number {
  if (n >= DOT_WASM_MIN_N && K !== null) {
    const k = dotKernels(x, y, n, xo, yo);
    if (k !== null) return k.dot(x.byteOffset + 8 * xo, y.byteOffset + 8 * yo, n);
  }
  return dotScalar(x, y, n, xo, yo);
}

/**
 * {@link dot}(x, y, n) stored into out[oi] instead of returned: a double returned from a call V8 does not inline
 * is boxed into a 16-byte heap number, one stored into a typed array is not. Same bits as `dot`.
 */
export function dotTo(x: Float64Array, y: Float64Array, n: number, out: Float64Array, oi: number): void {
  if (n >= DOT_WASM_MIN_N && K !== null) {
    const k = dotKernels(x, y, n, 0, 0);
    if (k !== null) {
      out[oi] = k.dot(x.byteOffset, y.byteOffset, n);
      return;
    }
  }
  dotScalarTo(x, y, n, 0, 0, out, oi);
}

/**
 * {@link dot}(x, y, n, xo, yo) stored into out[oi] instead of returned: {@link dotTo} with offsets, for row loops
 * such as forward substitution (a returned double would be boxed, see dotTo). Same bits as `dot`.
 */
export function dotAtTo(
  x: Float64Array,
  y: Float64Array,
  n: number,
  xo: number,
  yo: number,
  out: Float64Array,
  oi: number,
): void {
  if (n >= DOT_WASM_MIN_N && K !== null) {
    const k = dotKernels(x, y, n, xo, yo);
    if (k !== null) {
      out[oi] = k.dot(x.byteOffset + 8 * xo, y.byteOffset + 8 * yo, n);
      return;
    }
  }
  dotScalarTo(x, y, n, xo, yo, out, oi);
}

/** y = alpha A x + beta y (row-major A, row stride ld); with beta = 0, y is not read. */
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
  if (K !== null && fitsMatrix(A, rows, cols, ld) && fits(x, 0, cols) && fits(y, 0, rows)) {
    const a = arenaOf(A.buffer);
    if (a >= 0) {
      const xo = vectorIn(a, x, cols, 0);
      const yo = beta === 0 ? outputIn(a, y, rows, 1) : vectorIn(a, y, rows, 1);
      if (xo >= 0 && yo >= 0) {
        arenaKernelsAt(a).gemv(A.byteOffset, rows, cols, xo, yo, alpha, beta, ld);
        if (arenaOf(y.buffer) !== a) unstageF64(a, 1, y, rows);
        return;
      }
    }
  }
  gemvScalar(A, rows, cols, x, y, alpha, beta, ld);
}

/** y = A x for symmetric A stored in its upper triangle (y must not alias x). */
export function symvUpper(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld = n): void {
  if (K !== null && fitsMatrix(A, n, n, ld) && fits(x, 0, n) && fits(y, 0, n)) {
    const a = arenaOf(A.buffer);
    if (a >= 0) {
      const xo = vectorIn(a, x, n, 0);
      const yo = outputIn(a, y, n, 1);
      if (xo >= 0 && yo >= 0) {
        arenaKernelsAt(a).symv(A.byteOffset, n, xo, yo, ld);
        if (arenaOf(y.buffer) !== a) unstageF64(a, 1, y, n);
        return;
      }
    }
  }
  symvUpperScalar(A, n, x, y, ld);
}

/**
 * y = A x and x^T A x for symmetric A stored in its upper triangle, in one pass over A: y gets the bits
 * {@link symvUpper} writes and the return value is {@link quadFormUpper}'s, at the memory traffic of one of them
 * (y must not alias x).
 */
export function symvQuadUpper(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld = n): number {
  if (K !== null && fitsMatrix(A, n, n, ld) && fits(x, 0, n) && fits(y, 0, n)) {
    const a = arenaOf(A.buffer);
    if (a >= 0) {
      const xo = vectorIn(a, x, n, 0);
      const yo = outputIn(a, y, n, 1);
      if (xo >= 0 && yo >= 0) {
        const q = arenaKernelsAt(a).symvquad(A.byteOffset, n, xo, yo, ld);
        if (arenaOf(y.buffer) !== a) unstageF64(a, 1, y, n);
        return q;
      }
    }
  }
  return symvQuadUpperScalar(A, n, x, y, ld);
}

/** x^T A x for symmetric A stored in its upper triangle. */
export function quadFormUpper(A: Float64Array, n: number, x: Float64Array, ld = n): number {
  if (K !== null && fitsMatrix(A, n, n, ld) && fits(x, 0, n)) {
    const a = arenaOf(A.buffer);
    const xo = a < 0 ? -1 : vectorIn(a, x, n, 0);
    if (xo >= 0) return arenaKernelsAt(a).quad(A.byteOffset, n, xo, ld);
  }
  return quadFormUpperScalar(A, n, x, ld);
}

/**
 * {@link quadFormUpper} stored into out[oi] instead of returned (a returned double is boxed when the call is not
 * inlined, see {@link dotTo}). Same bits.
 */
export function quadFormUpperTo(
  A: Float64Array,
  n: number,
  x: Float64Array,
  out: Float64Array,
  oi: number,
  ld = n,
): void {
  if (K !== null && fitsMatrix(A, n, n, ld) && fits(x, 0, n)) {
    const a = arenaOf(A.buffer);
    const xo = a < 0 ? -1 : vectorIn(a, x, n, 0);
    if (xo >= 0) {
      out[oi] = arenaKernelsAt(a).quad(A.byteOffset, n, xo, ld);
      return;
    }
  }
  quadFormUpperScalarTo(A, n, x, ld, out, oi);
}

/** A += alpha x x^T on the upper triangle. */
export function syrUpper(A: Float64Array, n: number, alpha: number, x: Float64Array, ld = n): void {
  if (K !== null && fitsMatrix(A, n, n, ld) && fits(x, 0, n)) {
    const a = arenaOf(A.buffer);
    const xo = a < 0 ? -1 : vectorIn(a, x, n, 0);
    if (xo >= 0) {
      arenaKernelsAt(a).syr(A.byteOffset, n, alpha, xo, ld);
      return;
    }
  }
  syrUpperScalar(A, n, alpha, x, ld);
}

/**
 * {@link syrUpper} with alpha = alphas[ai], for a caller that computes alpha: a double passed to a function V8
 * does not inline is boxed into a 16-byte heap number, one read from a typed array is not. Same bits.
 */
export function syrUpperAt(
  A: Float64Array,
  n: number,
  alphas: Float64Array,
  ai: number,
  x: Float64Array,
  ld: number,
): void {
  if (K !== null && fitsMatrix(A, n, n, ld) && fits(x, 0, n)) {
    const a = arenaOf(A.buffer);
    const xo = a < 0 ? -1 : vectorIn(a, x, n, 0);
    if (xo >= 0) {
      arenaKernelsAt(a).syr(A.byteOffset, n, alphas[ai] as number, xo, ld);
      return;
    }
  }
  syrUpperScalarAt(A, n, alphas, ai, x, ld);
}

/**
 * y[yo + l] += sum_{j < m} (scale w[wo + j]) A[ao + j lda + l] for l < n (rows added left to right,
 * four per pass; scale = +1 or -1). WebAssembly when y and A live in the same WebAssembly memory
 * (w is staged there if it does not).
 */
export function addRows(
  y: Float64Array,
  yo: number,
  n: number,
  A: Float64Array,
  ao: number,
  lda: number,
  w: Float64Array,
  wo: number,
  m: number,
  scale: number,
): void {
  if (
    K !== null &&
    m > 0 &&
    fits(y, yo, n) &&
    fits(w, wo, m) &&
    (lda | 0) === lda &&
    lda >= n &&
    fits(A, ao, (m - 1) * lda + n)
  ) {
    const a = arenaOf(A.buffer);
    if (a >= 0 && arenaOf(y.buffer) === a) {
      const wp = arenaOf(w.buffer) === a ? w.byteOffset + 8 * wo : stageF64(a, 0, w, wo, m);
      if (wp >= 0) {
        arenaKernelsAt(a).addrows(y.byteOffset + 8 * yo, n, A.byteOffset + 8 * ao, lda, wp, m, scale);
        return;
      }
    }
  }
  addRowsScalar(y, yo, n, A, ao, lda, w, wo, 1, m, scale);
}
