/**
 * The multinomial-logit choice model with an outside option, on row-major feature
 * matrices. Probability vectors have n + 1 entries: the n offered items, then the outside option.
 */
import {
  addRows,
  choleskyInverseUpper,
  choleskyRank1Update,
  choleskySolve,
  logSumExp,
  softmax,
  syrUpper,
} from "@routekit/linalg";
import {
  checkedUtilitiesKernel,
  choleskyInverseKernel,
  choleskySolveKernel,
  hessianCholeskyKernel,
  hessianRefactorKernel,
  probabilitiesGradientKernel,
  probabilitiesKernel,
  utilitiesKernel,
} from "./unrolled.generated.js";

/**
 * linalg's choleskySolve (L L^T x = b, `out` may alias b); for d <= 8 an unrolled kernel with the
 * same operations in the same order (identical bits) and no call per row.
 */
export function solveCholesky(L: Float64Array, d: number, b: Float64Array, out: Float64Array): void {
  const kernel = choleskySolveKernel(d);
  if (kernel !== undefined) kernel(L, b, out);
  else choleskySolve(L, d, b, out);
}

/** linalg's choleskyInverseUpper (upper triangle of (L L^T)^-1 into `out`); unrolled for d <= 8 (identical bits). */
export function invertCholeskyUpper(L: Float64Array, d: number, out: Float64Array, work: Float64Array): void {
  const kernel = choleskyInverseKernel(d);
  if (kernel !== undefined) kernel(L, out);
  else choleskyInverseUpper(L, d, out, work);
}

/**
 * Utilities z_i = x_i . w for the n rows of X (row stride d), written to z[0..n), and z[n] = log v0.
 * `z` needs n + 1 slots. `xo` is the offset of the first row in X (all functions here accept it).
 */
export function mnlUtilities(
  X: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  v0: number,
  z: Float64Array,
  xo = 0,
): void {
  // Inline loops, not a linalg call per row: at the small d of item features the call costs more.
  // For d <= 8 the unrolled utilities kernel with no bonus (c = 0, M unread) gives the same bits.
  const kernel = xo === 0 ? utilitiesKernel(d) : undefined;
  if (kernel !== undefined) {
    kernel(X, n, w, w, 0, z);
    z[n] = Math.log(v0);
    return;
  }
  for (let i = 0; i < n; i++) {
    const o = xo + i * d;
    let u = 0;
    for (let k = 0; k < d; k++) u += (X[o + k] as number) * (w[k] as number);
    z[i] = u;
  }
  z[n] = Math.log(v0);
}

/**
 * Choice probabilities p(i | S, w) = e^{z_i} / (v0 + sum_j e^{z_j}) into p[0..n) and the outside
 * probability into p[n]. Stable for any utilities (log-sum-exp with log v0 in the max).
 * `z` (n + 1 slots) receives the utilities; `p` may not alias `z`.
 */
export function mnlProbabilities(
  X: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  v0: number,
  z: Float64Array,
  p: Float64Array,
  xo = 0,
): Float64Array {
  // For d <= 8 one unrolled kernel (the same operations, same bits) unless a utility is NaN or infinite.
  const kernel = xo === 0 ? probabilitiesKernel(d) : undefined;
  if (kernel?.(X, n, w, Math.log(v0), z, p)) return p;
  mnlUtilities(X, n, d, w, v0, z, xo);
  return softmax(z, p, n + 1);
}

/**
 * Full negative log-likelihood including the outside option (the paper's eq. (2) read as the
 * full likelihood, so choosing nothing still moves the estimate):
 * l(w) = log(v0 + sum e^{z_i}) - z_c, with z_0 = log v0 when the outside option was chosen.
 * `choice` is a position in 0..n-1 or -1 for the outside option; `z` (n + 1 slots) is scratch.
 */
export function mnlLoss(
  X: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  v0: number,
  choice: number,
  z: Float64Array,
  xo = 0,
): number {
  mnlUtilities(X, n, d, w, v0, z, xo);
  const a = logSumExp(z, n + 1);
  return a - (z[choice < 0 ? n : choice] as number);
}

/** Gradient of {@link mnlLoss}: g = X^T (p - y) from probabilities `p` (n + 1 entries). */
export function mnlGradient(
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  choice: number,
  g: Float64Array,
  xo = 0,
): Float64Array {
  g.fill(0, 0, d);
  for (let i = 0; i < n; i++) {
    const c = (p[i] as number) - (i === choice ? 1 : 0);
    if (c === 0) continue;
    const o = xo + i * d;
    for (let k = 0; k < d; k++) g[k] = (g[k] as number) + c * (X[o + k] as number);
  }
  return g;
}

/**
 * {@link mnlProbabilities} followed by {@link mnlGradient} (same `z`, `p`, `g`, bit for bit); for d <= 8
 * one unrolled kernel with no call per step.
 */
export function mnlProbabilitiesAndGradient(
  X: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  v0: number,
  choice: number,
  z: Float64Array,
  p: Float64Array,
  g: Float64Array,
): void {
  const kernel = probabilitiesGradientKernel(d);
  if (kernel?.(X, n, w, Math.log(v0), choice, z, p, g)) return;
  mnlProbabilities(X, n, d, w, v0, z, p);
  mnlGradient(X, n, d, p, choice, g);
}

/** x̄ = sum_i p_i x_i (the mean feature of the choice, with x_0 = 0). */
export function mnlMeanFeature(
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  xbar: Float64Array,
  xo = 0,
): Float64Array {
  xbar.fill(0, 0, d);
  for (let i = 0; i < n; i++) {
    const pi = p[i] as number;
    const o = xo + i * d;
    for (let k = 0; k < d; k++) xbar[k] = (xbar[k] as number) + pi * (X[o + k] as number);
  }
  return xbar;
}

/**
 * Adds scale * G(w) to the upper triangle of the d x d matrix `A`, where
 * G = X^T (diag p - p p^T) X = sum_i p_i x_i x_i^T - x̄ x̄^T (the O(n d^2) x̄ form).
 * `xbar` and `row` are d-value scratch buffers.
 */
export function addMnlHessianUpper(
  A: Float64Array,
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  scale: number,
  xbar: Float64Array,
  row: Float64Array,
  xo = 0,
): void {
  mnlMeanFeature(X, n, d, p, xbar, xo);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < d; k++) row[k] = X[xo + i * d + k] as number;
    syrUpper(A, d, scale * (p[i] as number), row);
  }
  syrUpper(A, d, -scale, xbar);
}

/**
 * Makes the Cholesky factor L of a d x d matrix M the factor of M + scale * G, using the exact
 * PSD decomposition of the MNL Hessian as a covariance with x_0 = 0:
 * G = sum_i p_i (x_i - x̄)(x_i - x̄)^T + p_0 x̄ x̄^T, i.e. n + 1 rank-1 updates in O(n d^2),
 * which cannot lose definiteness to round-off. `xbar` and `row` are d-value scratch buffers. With `src`
 * (a factor other than L), L becomes the factor of src src^T + scale * G and src is left as it is.
 * For d <= 8 a kernel with the feature index unrolled keeps L in registers across the n + 1 updates
 * and does the same operations in the same order (identical bits).
 */
export function addMnlHessianToCholesky(
  L: Float64Array,
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  scale: number,
  xbar: Float64Array,
  row: Float64Array,
  src: Float64Array = L,
): void {
  const kernel = hessianCholeskyKernel(d);
  if (kernel !== undefined) {
    kernel(L, X, n, p, scale, xbar, src);
    return;
  }
  if (src !== L) for (let i = 0; i < d * d; i++) L[i] = src[i] as number;
  addMnlHessianToCholeskyGeneric(L, X, n, d, p, scale, xbar, row);
}

/** {@link addMnlHessianToCholesky} without the unrolled kernels (any d; the kernels' reference). */
export function addMnlHessianToCholeskyGeneric(
  L: Float64Array,
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  scale: number,
  xbar: Float64Array,
  row: Float64Array,
): void {
  mnlMeanFeature(X, n, d, p, xbar);
  for (let i = 0; i < n; i++) {
    const s = Math.sqrt(scale * (p[i] as number));
    if (!(s > 0)) continue;
    for (let k = 0; k < d; k++) row[k] = s * ((X[i * d + k] as number) - (xbar[k] as number));
    choleskyRank1Update(L, d, row);
  }
  const s0 = Math.sqrt(scale * (p[n] as number));
  if (s0 > 0) {
    for (let k = 0; k < d; k++) row[k] = s0 * (xbar[k] as number);
    choleskyRank1Update(L, d, row);
  }
}

/**
 * L becomes the Cholesky factor of src src^T + scale * G (L must not be src), like
 * {@link addMnlHessianToCholesky}, by forming that matrix and factoring it again: src src^T (upper
 * triangle), plus G as the same PSD sum sum_i p_i (x_i - x̄)(x_i - x̄)^T + p_0 x̄ x̄^T, then a Cholesky
 * factorisation. About 400 multiply-adds, d square roots and d(d-1)/2 divisions, against
 * (n + 1)(d square roots + about d^2 divisions) for the rank-1 updates, and no less accurate (see the
 * package README): at the size of the MNL Hessian next to H >= ridge * I, forming and factoring rounds
 * H once per entry, each rank-1 update rounds it again. If a pivot is not positive (a matrix at the edge of
 * definiteness: only with a tiny ridge), it falls back to the rank-1 updates, which cannot fail.
 * `xbar` and `row` are d-value scratch buffers and `M` a d x d one (used for d > 8 only).
 */
export function refactorMnlHessian(
  L: Float64Array,
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  scale: number,
  xbar: Float64Array,
  row: Float64Array,
  src: Float64Array,
  M: Float64Array,
): void {
  const kernel = hessianRefactorKernel(d);
  // Forming and factoring costs about d^3 / 2 multiply-adds, the n + 1 rank-1 updates (n + 1) d^2: past d = 8
  // (no unrolled kernel) the updates win whenever the assortment is small next to d (d = 256, K = 5: 6x fewer).
  const ok =
    kernel !== undefined
      ? kernel(L, X, n, p, scale, xbar, src)
      : 2 * (n + 1) < d
        ? false
        : refactorMnlHessianGeneric(L, X, n, d, p, scale, xbar, row, src, M);
  if (!ok) addMnlHessianToCholesky(L, X, n, d, p, scale, xbar, row, src);
}

/**
 * {@link refactorMnlHessian} without the unrolled kernels and without the fallback (any d; the kernels'
 * reference): false when a pivot is not positive, with L then partly written.
 */
export function refactorMnlHessianGeneric(
  L: Float64Array,
  X: Float64Array,
  n: number,
  d: number,
  p: Float64Array,
  scale: number,
  xbar: Float64Array,
  row: Float64Array,
  src: Float64Array,
  M: Float64Array,
): boolean {
  mnlMeanFeature(X, n, d, p, xbar);
  for (let j = 0; j < d; j++) {
    for (let l = j; l < d; l++) {
      let s = 0;
      for (let m = 0; m <= j; m++) s = s + (src[j * d + m] as number) * (src[l * d + m] as number);
      M[j * d + l] = s;
    }
  }
  for (let i = 0; i <= n; i++) {
    const w = scale * (p[i] as number);
    if (!(w > 0)) continue;
    for (let k = 0; k < d; k++) row[k] = i < n ? (X[i * d + k] as number) - (xbar[k] as number) : (xbar[k] as number);
    for (let j = 0; j < d; j++) {
      const wr = w * (row[j] as number);
      for (let l = j; l < d; l++) M[j * d + l] = (M[j * d + l] as number) + wr * (row[l] as number);
    }
  }
  for (let j = 0; j < d; j++) {
    let q = M[j * d + j] as number;
    for (let m = 0; m < j; m++) q = q - (L[j * d + m] as number) * (L[j * d + m] as number);
    if (!(q > 0)) return false;
    const ljj = Math.sqrt(q);
    L[j * d + j] = ljj;
    for (let i = j + 1; i < d; i++) {
      let t = M[j * d + i] as number;
      for (let m = 0; m < j; m++) t = t - (L[i * d + m] as number) * (L[j * d + m] as number);
      L[i * d + j] = t / ljj;
    }
  }
  return true;
}

/**
 * Expected revenue R(S) = sum_{i in S} r_i e^{u_i} / (v0 + sum_{j in S} e^{u_j}) of offering `items`
 * given utilities `u` (indexed by item) and revenues `r` (all 1 when undefined). Overflow-safe.
 */
export function mnlRevenue(
  u: ArrayLike<number>,
  r: ArrayLike<number> | undefined,
  items: ArrayLike<number>,
  v0: number,
): number {
  const k = items.length;
  if (k === 0) return 0;
  let m = Math.log(v0);
  for (let j = 0; j < k; j++) {
    const ui = u[items[j] as number] as number;
    if (ui > m) m = ui;
  }
  let num = 0;
  let den = Math.exp(Math.log(v0) - m);
  for (let j = 0; j < k; j++) {
    const i = items[j] as number;
    const e = Math.exp((u[i] as number) - m);
    den += e;
    num += (r === undefined ? 1 : (r[i] as number)) * e;
  }
  return num / den;
}

/**
 * Optimistic utilities util[i] = x_i . w + c ||x_i||_M for the n rows of f (row stride d), with M given
 * by the upper triangle of the d x d matrix `M` (V^-1 or H^-1). One fused pass per row computes the
 * mean and the quadratic form x^T M x = sum_k x_k (M_kk x_k + 2 sum_{l>k} M_kl x_l): at the small d of
 * assortment features, calls into linalg per row cost more than the arithmetic. For d <= 8 a kernel
 * with the feature index unrolled does the same operations in the same order (identical bits), about
 * 2.5 times faster at d = 5: the generic loop spends most of its time on loop control.
 */
export function optimisticUtilities(
  f: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  M: Float64Array,
  c: number,
  util: Float64Array,
): void {
  const kernel = utilitiesKernel(d);
  if (kernel !== undefined) {
    kernel(f, n, w, M, c, util);
    return;
  }
  optimisticUtilitiesGeneric(f, n, d, w, M, c, util);
}

/**
 * {@link optimisticUtilities} after checking each row's squared norm is <= `max` (NaN fails), in one
 * pass for d <= 8: returns the first row failing the check (utilities then unfinished) or -1. It also
 * prepares the top-K's threshold path (`topKIndicesAmong` of @routekit/linalg): the indices of the items whose utility is
 * above `T` go to `cand` (n slots), and stats = [sum of the utilities, sum of their squares, their count].
 */
export function checkedOptimisticUtilities(
  f: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  M: Float64Array,
  c: number,
  util: Float64Array,
  max: number,
  T: number,
  cand: Int32Array,
  stats: Float64Array,
): number {
  const kernel = checkedUtilitiesKernel(d);
  if (kernel !== undefined) return kernel(f, n, w, M, c, util, max, T, cand, stats);
  const bad = firstRowAbove(f, n, d, max);
  if (bad >= 0) return bad;
  optimisticUtilitiesGeneric(f, n, d, w, M, c, util);
  topKCandidates(util, n, T, cand, stats);
  return -1;
}

/** The index of the first of the n rows of f (row stride d) whose squared norm is not <= max (NaN fails), or -1. */
function firstRowAbove(f: Float64Array, n: number, d: number, max: number): number {
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k < d; k++) {
      const v = f[i * d + k] as number;
      s += v * v;
    }
    if (!(s <= max)) return i;
  }
  return -1;
}

/**
 * The top-K's threshold path for utilities util[0..n) (see {@link checkedOptimisticUtilities}): the indices of the
 * items above T into cand, stats = [sum, sum of squares, count].
 */
function topKCandidates(util: Float64Array, n: number, T: number, cand: Int32Array, stats: Float64Array): void {
  let s1 = 0;
  let s2 = 0;
  let nc = 0;
  for (let i = 0; i < n; i++) {
    const u = util[i] as number;
    s1 += u;
    s2 += u * u;
    cand[nc] = i;
    nc += +(u > T);
  }
  stats[0] = s1;
  stats[1] = s2;
  stats[2] = nc;
}

/**
 * Optimistic utilities util[i] = x_i . w + c ||x_i||_{H^-1} for the n rows of f (row stride d) from the lower
 * Cholesky factor L of H (row-major, H = L L^T), without H^-1: ||x||^2_{H^-1} = ||L^-1 x||^2. One forward
 * substitution for a batch of b items at once, Y = L^-1 X^T: row k of Y (the k-th entry of every item's
 * solution, b long) is (row k of X^T - sum_{j<k} L_kj Y_j) / L_kk, linalg's `addRows` (WebAssembly SIMD when Y
 * and L live in its memory), and each item's squared norm adds up along its column. About d^2 / 2 multiply-adds
 * per item, as many as the quadratic form with H^-1, and no O(d^3) inverse to keep after each update. `Y` is
 * scratch of at least d values (`allocF64` for the SIMD path); a batch is floor(Y.length / d) items. Each item's
 * result depends on nothing else in its batch, so the batch size does not change a bit.
 */
export function factorUtilities(
  f: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  L: Float64Array,
  c: number,
  util: Float64Array,
  Y: Float64Array,
): void {
  if (c !== 0) {
    const batch = Math.floor(Y.length / d);
    for (let i0 = 0; i0 < n; i0 += batch) {
      const b = Math.min(batch, n - i0);
      for (let i = 0; i < b; i++) util[i0 + i] = 0;
      for (let k = 0; k < d; k++) {
        const r = k * b;
        for (let i = 0; i < b; i++) Y[r + i] = f[(i0 + i) * d + k] as number;
        if (k > 0) addRows(Y, r, b, Y, 0, b, L, k * d, k, -1);
        const lkk = L[k * d + k] as number;
        for (let i = 0; i < b; i++) {
          const y = (Y[r + i] as number) / lkk;
          Y[r + i] = y;
          util[i0 + i] = (util[i0 + i] as number) + y * y;
        }
      }
    }
  }
  for (let i = 0; i < n; i++) {
    const o = i * d;
    let mean = 0;
    for (let k = 0; k < d; k++) mean += (f[o + k] as number) * (w[k] as number);
    util[i] = c === 0 ? mean : mean + c * Math.sqrt(util[i] as number);
  }
}

/**
 * {@link factorUtilities} after checking each row's squared norm is <= `max` (NaN fails): returns the first row
 * failing the check (utilities then not computed) or -1, and prepares the top-K's threshold path like
 * {@link checkedOptimisticUtilities}.
 */
export function checkedFactorUtilities(
  f: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  L: Float64Array,
  c: number,
  util: Float64Array,
  max: number,
  T: number,
  cand: Int32Array,
  stats: Float64Array,
  Y: Float64Array,
): number {
  const bad = firstRowAbove(f, n, d, max);
  if (bad >= 0) return bad;
  factorUtilities(f, n, d, w, L, c, util, Y);
  topKCandidates(util, n, T, cand, stats);
  return -1;
}

/** {@link optimisticUtilities} without the unrolled kernels (any d; the reference the kernels are tested against). */
export function optimisticUtilitiesGeneric(
  f: Float64Array,
  n: number,
  d: number,
  w: Float64Array,
  M: Float64Array,
  c: number,
  util: Float64Array,
): void {
  for (let i = 0; i < n; i++) {
    const o = i * d;
    let mean = 0;
    let q = 0;
    for (let k = 0; k < d; k++) {
      const xk = f[o + k] as number;
      mean += xk * (w[k] as number);
      const r = k * d;
      let off = 0;
      for (let l = k + 1; l < d; l++) off += (M[r + l] as number) * (f[o + l] as number);
      q += xk * ((M[r + k] as number) * xk + 2 * off);
    }
    util[i] = c === 0 ? mean : mean + c * Math.sqrt(q > 0 ? q : 0);
  }
}
