/**
 * Level-1/2 kernels on Float64Array. Matrices are row-major with an explicit leading dimension
 * `ld` (row stride, >= columns) so growable buffers can keep spare capacity. Offsets replace
 * `subarray` views, which would allocate in hot loops.
 *
 * These are the portable TypeScript versions; `./simd.ts` swaps in WebAssembly SIMD versions
 * of the hot ones at load time when the runtime supports it.
 */

/** x . y over n entries. */
export function dotScalar(x: Float64Array, y: Float64Array, n = x.length, xo = 0, yo = 0): number {
  let s0 = 0;
  let s1 = 0;
  let i = 0;
  // Two accumulators: fewer dependent adds, and the same association order as the SIMD path.
  for (; i + 1 < n; i += 2) {
    s0 += (x[xo + i] as number) * (y[yo + i] as number);
    s1 += (x[xo + i + 1] as number) * (y[yo + i + 1] as number);
  }
  if (i < n) s0 += (x[xo + i] as number) * (y[yo + i] as number);
  return s0 + s1;
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
    const s = dotScalar(A, x, cols, i * ld, 0);
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
 * Half the memory traffic of a full product, which is what bounds these sizes.
 */
export function symvUpperScalar(A: Float64Array, n: number, x: Float64Array, y: Float64Array, ld = n): void {
  y.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const row = i * ld;
    const xi = x[i] as number;
    let s = (A[row + i] as number) * xi;
    for (let j = i + 1; j < n; j++) {
      const a = A[row + j] as number;
      s += a * (x[j] as number);
      y[j] = (y[j] as number) + a * xi;
    }
    y[i] = (y[i] as number) + s;
  }
}

/** x^T A x for symmetric A, reading the upper triangle only. */
export function quadFormUpperScalar(A: Float64Array, n: number, x: Float64Array, ld = n): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const row = i * ld;
    const xi = x[i] as number;
    let off = 0;
    for (let j = i + 1; j < n; j++) off += (A[row + j] as number) * (x[j] as number);
    total += xi * ((A[row + i] as number) * xi + 2 * off);
  }
  return total;
}

/** A += alpha x x^T on the upper triangle of symmetric n x n A. */
export function syrUpperScalar(A: Float64Array, n: number, alpha: number, x: Float64Array, ld = n): void {
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
