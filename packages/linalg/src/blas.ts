/**
 * Level-1/2 kernels on Float64Array. Matrices are row-major with an explicit leading dimension
 * `ld` (row stride, >= columns) so growable buffers can keep spare capacity. Offsets replace
 * `subarray` views, which would allocate in hot loops.
 *
 * These are the portable TypeScript versions. `./dispatch.ts` runs the WebAssembly SIMD twins of
 * the hot ones (wasm/kernels.wat) instead when every array lives in the WebAssembly memory; the twins
 * perform the same floating-point operations in the same order, so both give identical bits.
 */

/**
 * x . y over n entries.
 *
 * Association order (shared bit for bit with the WebAssembly kernel, see wasm/kernels.wat): eight
 * partial sums s0..s7, s_k taking the terms i = k (mod 8) of the whole blocks of 8, the remaining pairs
 * going to s0 and s1; result ((s0+s2)+(s4+s6)) + ((s1+s3)+(s5+s7)), plus the last term if n is odd.
 */
export function dotScalar(x: Float64Array, y: Float64Array, n = x.length, xo = 0, yo = 0): number {
  dotInto(x, y, n, xo, yo);
  return DOT_OUT[0] as number;
}

/**
 * Scratch for {@link dotInto}: a double returned from a function V8 does not inline is boxed into a
 * 16-byte heap number, so the row loops below take their dot products through this slot instead and
 * allocate nothing.
 */
const DOT_OUT = new Float64Array(1);

/** {@link dotScalar} stored into out[oi] rather than returned (nothing to box: see DOT_OUT). */
export function dotScalarTo(
  x: Float64Array,
  y: Float64Array,
  n: number,
  xo: number,
  yo: number,
  out: Float64Array,
  oi: number,
): void {
  dotInto(x, y, n, xo, yo);
  out[oi] = DOT_OUT[0] as number;
}

/** dotScalar's body; the result goes to DOT_OUT[0]. */
function dotInto(x: Float64Array, y: Float64Array, n: number, xo: number, yo: number): void {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let s5 = 0;
  let s6 = 0;
  let s7 = 0;
  let i = 0;
  for (; i + 7 < n; i += 8) {
    const a = xo + i;
    const b = yo + i;
    s0 += (x[a] as number) * (y[b] as number);
    s1 += (x[a + 1] as number) * (y[b + 1] as number);
    s2 += (x[a + 2] as number) * (y[b + 2] as number);
    s3 += (x[a + 3] as number) * (y[b + 3] as number);
    s4 += (x[a + 4] as number) * (y[b + 4] as number);
    s5 += (x[a + 5] as number) * (y[b + 5] as number);
    s6 += (x[a + 6] as number) * (y[b + 6] as number);
    s7 += (x[a + 7] as number) * (y[b + 7] as number);
  }
  for (; i + 1 < n; i += 2) {
    s0 += (x[xo + i] as number) * (y[yo + i] as number);
    s1 += (x[xo + i + 1] as number) * (y[yo + i + 1] as number);
  }
  let r = s0 + s2 + (s4 + s6) + (s1 + s3 + (s5 + s7));
  if (i < n) r += (x[xo + i] as number) * (y[yo + i] as number);
  DOT_OUT[0] = r;
}

/** y += alpha x over n entries. */
export function axpy(alpha: number, x: Float64Array, y: Float64Array, n = x.length, xo = 0, yo = 0): void {
  for (let i = 0; i < n; i++) y[yo + i] = (y[yo + i] as number) + alpha * (x[xo + i] as number);
}

/** x *= alpha over n entries. */
export function scal(alpha: number, x: Float64Array, n = x.length, xo = 0): void {
  for (let i = 0; i < n; i++) x[xo + i] = alpha * (x[xo + i] as number);
}

/** y = alpha A x + beta y for a rows x cols row-major A (row stride ld). */
export function gemvScalar(
  A: Float64Array,
  rows: number,
  cols: number,
  x: Float64Array,
  y: Float64Array,
  alpha = 1,
  beta = 0,
  ld = cols,
): void {
  for (let i = 0; i < rows; i++) {
    dotInto(A, x, cols, i * ld, 0);
    const s = DOT_OUT[0] as number;
    y[i] = beta === 0 ? alpha * s : alpha * s + beta * (y[i] as number);
  }
}

/** y = alpha A^T x + beta y for a rows x cols row-major A: y has cols entries. */
export function gemvT(
  A: Float64Array,
  rows: number,
  cols: number,
  x: Float64Array,
  y: Float64Array,
  alpha = 1,
  beta = 0,
  ld = cols,
): void {
  if (beta === 0) y.fill(0, 0, cols);
  else if (beta !== 1) scal(beta, y, cols);
  for (let i = 0; i < rows; i++) axpy(alpha * (x[i] as number), A, y, cols, i * ld, 0);
}

/**
 * y = A x for symmetric n x n A of which only the upper triangle (j >= i) is read.
 * Half the memory traffic of a full product, which is what bounds these sizes. One pass per row i
 * adds A[i][j] x[j] to row i's sum (same partial-sum order as {@link dotScalar}) and A[i][j] x[i] to y[j].
 */
export function symvUpperScalar(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld = n): void {
  // The fused pass writes y with exactly these bits; its quadratic form costs one multiply-add per row. It is
  // called through symvQuadInto, which returns nothing: symvQuadUpperScalar's returned double, when V8 does not
  // inline it (it is too large to be), is boxed into a 16-byte heap number even if nobody reads it.
  symvQuadInto(A, n, x, y, ld);
}

/**
 * {@link symvUpperScalar} and {@link quadFormUpperScalar} in one pass over A: writes y = A x with symvUpperScalar's
 * bits and returns x^T A x with quadFormUpperScalar's bits (the quadratic form's strictly-upper row sum is the
 * product's, the same operations in the same order). y must not alias x.
 */
export function symvQuadUpperScalar(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld = n): number {
  symvQuadInto(A, n, x, y, ld);
  return DOT_OUT[0] as number;
}

/** symvQuadUpperScalar's body; the quadratic form goes to DOT_OUT[0]. */
function symvQuadInto(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld: number): void {
  y.fill(0, 0, n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const row = i * ld;
    const xi = x[i] as number;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let s4 = 0;
    let s5 = 0;
    let s6 = 0;
    let s7 = 0;
    let j = i + 1;
    for (; j + 7 < n; j += 8) {
      const p = row + j;
      const a0 = A[p] as number;
      const a1 = A[p + 1] as number;
      const a2 = A[p + 2] as number;
      const a3 = A[p + 3] as number;
      s0 += a0 * (x[j] as number);
      s1 += a1 * (x[j + 1] as number);
      s2 += a2 * (x[j + 2] as number);
      s3 += a3 * (x[j + 3] as number);
      y[j] = (y[j] as number) + a0 * xi;
      y[j + 1] = (y[j + 1] as number) + a1 * xi;
      y[j + 2] = (y[j + 2] as number) + a2 * xi;
      y[j + 3] = (y[j + 3] as number) + a3 * xi;
      const a4 = A[p + 4] as number;
      const a5 = A[p + 5] as number;
      const a6 = A[p + 6] as number;
      const a7 = A[p + 7] as number;
      s4 += a4 * (x[j + 4] as number);
      s5 += a5 * (x[j + 5] as number);
      s6 += a6 * (x[j + 6] as number);
      s7 += a7 * (x[j + 7] as number);
      y[j + 4] = (y[j + 4] as number) + a4 * xi;
      y[j + 5] = (y[j + 5] as number) + a5 * xi;
      y[j + 6] = (y[j + 6] as number) + a6 * xi;
      y[j + 7] = (y[j + 7] as number) + a7 * xi;
    }
    for (; j + 1 < n; j += 2) {
      const a0 = A[row + j] as number;
      const a1 = A[row + j + 1] as number;
      s0 += a0 * (x[j] as number);
      s1 += a1 * (x[j + 1] as number);
      y[j] = (y[j] as number) + a0 * xi;
      y[j + 1] = (y[j + 1] as number) + a1 * xi;
    }
    let r = s0 + s2 + (s4 + s6) + (s1 + s3 + (s5 + s7));
    if (j < n) {
      const a = A[row + j] as number;
      r += a * (x[j] as number);
      y[j] = (y[j] as number) + a * xi;
    }
    const di = (A[row + i] as number) * xi;
    y[i] = (y[i] as number) + (di + r);
    total += xi * (di + 2 * r);
  }
  DOT_OUT[0] = total;
}

/** x^T A x for symmetric A, reading the upper triangle only: sum_i x_i (A_ii x_i + 2 sum_{j>i} A_ij x_j). */
export function quadFormUpperScalar(A: Float64Array, n: number, x: Float64Array, ld = n): number {
  quadFormUpperScalarTo(A, n, x, ld, QUAD_OUT, 0);
  return QUAD_OUT[0] as number;
}

/** Scratch for quadFormUpperScalar (DOT_OUT is taken by the row dot products). */
const QUAD_OUT = new Float64Array(1);

/** {@link quadFormUpperScalar} stored into out[oi] rather than returned (nothing to box: see DOT_OUT). */
export function quadFormUpperScalarTo(
  A: Float64Array,
  n: number,
  x: Float64Array,
  ld: number,
  out: Float64Array,
  oi: number,
): void {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const row = i * ld;
    const xi = x[i] as number;
    dotInto(A, x, n - i - 1, row + i + 1, i + 1);
    const off = DOT_OUT[0] as number;
    total += xi * ((A[row + i] as number) * xi + 2 * off);
  }
  out[oi] = total;
}

/** A += alpha x x^T on the upper triangle of symmetric n x n A. */
export function syrUpperScalar(A: Float64Array, n: number, alpha: number, x: Float64Array, ld = n): void {
  ALPHA[0] = alpha;
  syrUpperScalarAt(A, n, ALPHA, 0, x, ld);
}

/** Scratch for syrUpperScalar's alpha. */
const ALPHA = new Float64Array(1);

/**
 * {@link syrUpperScalar} with alpha = alphas[ai]. For callers that compute alpha: a double passed to a function
 * V8 does not inline is boxed into a 16-byte heap number, a double read from a typed array is not.
 */
export function syrUpperScalarAt(
  A: Float64Array,
  n: number,
  alphas: Float64Array,
  ai: number,
  x: Float64Array,
  ld: number,
): void {
  const alpha = alphas[ai] as number;
  for (let i = 0; i < n; i++) {
    const axi = alpha * (x[i] as number);
    if (axi === 0) continue;
    const row = i * ld;
    for (let j = i; j < n; j++) A[row + j] = (A[row + j] as number) + axi * (x[j] as number);
  }
}

/** Copies the upper triangle into the lower one, making A fully symmetric. */
export function symmetrizeUpper(A: Float64Array, n: number, ld = n): void {
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) A[j * ld + i] = A[i * ld + j] as number;
}

/** Sets the n x n block of A to s * I. */
export function setScaledIdentity(A: Float64Array, n: number, s: number, ld = n): void {
  for (let i = 0; i < n; i++) {
    A.fill(0, i * ld, i * ld + n);
    A[i * ld + i] = s;
  }
}

/**
 * y[yo + l] += sum_{j < m} (scale w[wo + j ws]) A[ao + j lda + l] for l < n, the terms added left to
 * right in j (so the same bits as adding one row at a time) but four rows per pass over y. scale is
 * +1 or -1 (exact), so scale = -1 gives y - w_j A_j bit for bit. The WebAssembly twin (wasm/kernels.wat
 * "addrows", for ws = 1) performs the same operations in the same order.
 */
export function addRowsScalar(
  y: Float64Array,
  yo: number,
  n: number,
  A: Float64Array,
  ao: number,
  lda: number,
  w: Float64Array,
  wo: number,
  ws: number,
  m: number,
  scale: number,
): void {
  let j = 0;
  for (; j + 3 < m; j += 4) {
    const w0 = scale * (w[wo + j * ws] as number);
    const w1 = scale * (w[wo + (j + 1) * ws] as number);
    const w2 = scale * (w[wo + (j + 2) * ws] as number);
    const w3 = scale * (w[wo + (j + 3) * ws] as number);
    const a0 = ao + j * lda;
    const a1 = a0 + lda;
    const a2 = a1 + lda;
    const a3 = a2 + lda;
    for (let l = 0; l < n; l++) {
      y[yo + l] =
        (y[yo + l] as number) +
        w0 * (A[a0 + l] as number) +
        w1 * (A[a1 + l] as number) +
        w2 * (A[a2 + l] as number) +
        w3 * (A[a3 + l] as number);
    }
  }
  for (; j < m; j++) {
    const w0 = scale * (w[wo + j * ws] as number);
    const a0 = ao + j * lda;
    for (let l = 0; l < n; l++) y[yo + l] = (y[yo + l] as number) + w0 * (A[a0 + l] as number);
  }
}
