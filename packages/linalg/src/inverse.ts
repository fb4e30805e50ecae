import { dot, dotAtTo, dotTo, symvUpper, syrUpperAt } from "./dispatch.js";
import { syrUpperMirroredAt } from "./mirror32.js";

/**
 * Scratch for the Sherman-Morrison and bordered-inverse steps: [0] = the dot product, [1] = the rank-1
 * coefficient. Its slots hold doubles unboxed (see shermanMorrisonUpdate).
 */
const SM_SCRATCH = new Float64Array(2);

/**
 * Sherman-Morrison: given the upper triangle of Ainv = A^-1 (symmetric n x n), makes it
 * (A + w x x^T)^-1 = Ainv - w u u^T / (1 + w x^T u) with u = Ainv x.
 * `u` is a caller-owned buffer of n values that receives Ainv x (old Ainv), so a caller who
 * already computed it for a UCB width can use {@link shermanMorrisonWithU} instead.
 * Returns the denominator 1 + w x^T Ainv x (> 0 for SPD A and w >= 0).
 */
export function shermanMorrisonUpdate(
  Ainv: Float64Array,
  n: number,
  x: Float64Array,
  u: Float64Array,
  w = 1,
  ld = n,
): number {
  symvUpper(Ainv, n, x, u, ld);
  // Same lines as shermanMorrisonWithU, not a call to it: a double returned from a call V8 does not inline
  // is boxed (a 16-byte allocation per update), and so is one passed to such a call. The dot product and
  // the rank-1 coefficient therefore travel through SM_SCRATCH, whose slots hold them unboxed.
  dotTo(x, u, n, SM_SCRATCH, 0);
  const denom = 1 + w * (SM_SCRATCH[0] as number);
  SM_SCRATCH[1] = -w / denom;
  syrUpperAt(Ainv, n, SM_SCRATCH, 1, u, ld);
  return denom;
}

/** Sherman-Morrison step with u = Ainv x already computed (see {@link shermanMorrisonUpdate}). */
export function shermanMorrisonWithU(
  Ainv: Float64Array,
  n: number,
  x: Float64Array,
  u: Float64Array,
  w = 1,
  ld = n,
): number {
  dotTo(x, u, n, SM_SCRATCH, 0); // through SM_SCRATCH: see shermanMorrisonUpdate
  const denom = 1 + w * (SM_SCRATCH[0] as number);
  SM_SCRATCH[1] = -w / denom;
  syrUpperAt(Ainv, n, SM_SCRATCH, 1, u, ld);
  return denom;
}

/**
 * {@link shermanMorrisonWithU} that also keeps a single-precision mirror M of Ainv in step (see
 * `mirror32.ts`): Ainv gets exactly the bits shermanMorrisonWithU would give it.
 */
export function shermanMorrisonWithUMirrored(
  Ainv: Float64Array,
  n: number,
  x: Float64Array,
  u: Float64Array,
  M: Float32Array,
  w = 1,
  ld = n,
): number {
  dotTo(x, u, n, SM_SCRATCH, 0); // through SM_SCRATCH: see shermanMorrisonUpdate
  const denom = 1 + w * (SM_SCRATCH[0] as number);
  SM_SCRATCH[1] = -w / denom;
  syrUpperMirroredAt(Ainv, n, SM_SCRATCH, 1, u, M, ld);
  return denom;
}

/**
 * Bordered inverse growth (Schur complement). Ainv holds the upper triangle of M^-1 (n x n,
 * row stride ld >= n+1). Makes it the inverse of [[M, b], [b^T, c]] in place, using `work`
 * (n values) for M^-1 b. Returns the Schur complement s = c - b^T M^-1 b; if s <= minSchur it is
 * clamped to minSchur (a guard against a numerically singular border: for a kernel matrix K + αI the
 * complement is exactly >= α, so anything smaller is rounding).
 */
export function borderedInverseAppend(
  Ainv: Float64Array,
  n: number,
  ld: number,
  b: Float64Array,
  c: number,
  work: Float64Array,
  minSchur = 1e-12,
): number {
  symvUpper(Ainv, n, b, work, ld);
  return borderedInverseAppendWithProduct(Ainv, n, ld, b, c, work, minSchur);
}

/**
 * {@link borderedInverseAppend} for a caller that already holds u = M^-1 b (for instance from
 * `symvQuadUpper`, which gives b^T M^-1 b in the same pass): skips the product, the one O(n^2) read of Ainv
 * besides the update itself. `u` must hold exactly the bits `symvUpper(Ainv, n, b, u, ld)` writes; then the
 * result is bit for bit borderedInverseAppend's. `u` is read, not changed.
 */
export function borderedInverseAppendWithProduct(
  Ainv: Float64Array,
  n: number,
  ld: number,
  b: Float64Array,
  c: number,
  u: Float64Array,
  minSchur = 1e-12,
): number {
  dotTo(b, u, n, SM_SCRATCH, 0); // through SM_SCRATCH: see shermanMorrisonUpdate
  let s = c - (SM_SCRATCH[0] as number);
  if (!(s > minSchur)) s = minSchur;
  const inv = 1 / s;
  SM_SCRATCH[1] = inv;
  // Top-left block: M^-1 + (M^-1 b)(M^-1 b)^T / s.
  syrUpperAt(Ainv, n, SM_SCRATCH, 1, u, ld);
  for (let i = 0; i < n; i++) Ainv[i * ld + n] = -(u[i] as number) * inv;
  Ainv[n * ld + n] = inv;
  return s;
}

/**
 * Lower-triangular Cholesky factor L (row-major, strictly upper part zeroed) of SPD A; returns false
 * if A is not SPD (L is then partly written). Reads the LOWER triangle of A (j <= i), so a full
 * symmetric A works and L may alias A (in-place factorisation). For upper-triangle storage use
 * {@link choleskyFactorUpper}.
 */
export function choleskyFactor(A: Float64Array, n: number, L: Float64Array, ld = n): boolean {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = A[i * ld + j] as number;
      s -= dot(L, L, j, i * ld, j * ld);
      if (i === j) {
        if (!(s > 0)) return false;
        L[i * ld + i] = Math.sqrt(s);
      } else {
        L[i * ld + j] = s / (L[j * ld + j] as number);
      }
    }
    for (let j = i + 1; j < n; j++) L[i * ld + j] = 0;
  }
  return true;
}

/**
 * Scratch for {@link forwardSubst}'s row dot products: taken as `dot`'s return value they were boxed into a
 * 16-byte heap number per row whenever V8 did not inline `dot` (784 bytes a solve at n = 50); a typed-array
 * slot holds them unboxed. Same bits: `dotAtTo` is `dot` with the same kernel choice.
 */
const FS_DOT = new Float64Array(1);

/** Solves L y = b (forward substitution), writing y into `out` (may alias b). Allocates nothing. */
export function forwardSubst(L: Float64Array, n: number, b: Float64Array, out: Float64Array, ld = n): void {
  for (let i = 0; i < n; i++) {
    dotAtTo(L, out, i, i * ld, 0, FS_DOT, 0);
    const s = (b[i] as number) - (FS_DOT[0] as number);
    out[i] = s / (L[i * ld + i] as number);
  }
}

/** Solves L^T x = y (back substitution), writing x into `out` (may alias y). */
export function backSubstTransposed(L: Float64Array, n: number, y: Float64Array, out: Float64Array, ld = n): void {
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i] as number;
    for (let k = i + 1; k < n; k++) s -= (L[k * ld + i] as number) * (out[k] as number);
    out[i] = s / (L[i * ld + i] as number);
  }
}

/** Solves (L L^T) x = b; `out` may alias b. */
export function choleskySolve(L: Float64Array, n: number, b: Float64Array, out: Float64Array, ld = n): void {
  forwardSubst(L, n, b, out, ld);
  backSubstTransposed(L, n, out, out, ld);
}

/**
 * Appends a row to a Cholesky factor: given L for M (n x n, stride ld >= n+1), makes L the factor
 * of [[M, b], [b^T, c]]. Returns the new diagonal entry squared before clamping to `minPivot`.
 */
export function choleskyAppendRow(
  L: Float64Array,
  n: number,
  ld: number,
  b: Float64Array,
  c: number,
  minPivot = 1e-12,
): number {
  const row = n * ld;
  for (let i = 0; i < n; i++) {
    const s = (b[i] as number) - dot(L, L, i, i * ld, row);
    L[row + i] = s / (L[i * ld + i] as number);
  }
  const d2 = c - dot(L, L, n, row, row);
  L[row + n] = Math.sqrt(d2 > minPivot ? d2 : minPivot);
  for (let i = 0; i < n; i++) L[i * ld + n] = 0;
  return d2;
}

/**
 * Rank-1 update of a Cholesky factor: L L^T + x x^T = L' L'^T, in O(n^2) by Givens-like rotations.
 * `x` is used as scratch and overwritten. The rotation radius is sqrt(l^2 + x^2), not Math.hypot (several
 * times slower in V8); hypot only where that sum of squares leaves [1e-300, 1e300] and could over- or underflow.
 * An x with an entry beyond 1e100, or a diagonal entry below 1e-100, is updated by plane rotations instead (the
 * usual step's products overflowed there); every other input gets the bits it always got.
 */
export function choleskyRank1Update(L: Float64Array, n: number, x: Float64Array, ld = n): void {
  // The usual step forms s x_i = (x_k / l_kk) x_i and c x_i, which overflow for entries of x past about 1e154 or a
  // diagonal near 0 (x = [1e200, 1e200, 0] on the factor of 4I left Infinity and NaN in L). With every |x_i| <= 1e100
  // (checked as step 0 reads them) and every l_kk >= 1e-100 none can; anything else finishes by rotations from where
  // a check failed (column badK, from row badI; -1: the whole column). The loops only record it and break: computing
  // or calling inside them slowed every update by up to a quarter.
  const l00 = L[0] as number;
  let badK = -1;
  let badI = -1;
  for (let k = 0; k < n; k++) {
    const lkk = L[k * ld + k] as number;
    const xk = x[k] as number;
    if (lkk < 1e-100 || (k === 0 && (xk > 1e100 || xk < -1e100))) {
      badK = k;
      break;
    }
    const r2 = lkk * lkk + xk * xk;
    const r = r2 <= 1e300 && r2 >= 1e-300 ? Math.sqrt(r2) : Math.hypot(lkk, xk);
    const c = r / lkk;
    const s = xk / lkk;
    L[k * ld + k] = r;
    for (let i = k + 1; i < n; i++) {
      const xi = x[i] as number;
      if (k === 0 && (xi > 1e100 || xi < -1e100)) {
        badI = i;
        break;
      }
      const lik = ((L[i * ld + k] as number) + s * xi) / c;
      L[i * ld + k] = lik;
      x[i] = c * xi - s * lik;
    }
    if (badI >= 0) {
      badK = 0;
      break;
    }
  }
  // Column 0 stopped part-way: L[0] holds r, and its rotation is (l00 / r, x_0 / r) (x[0] is never overwritten).
  if (badK >= 0)
    rank1UpdateByRotations(L, n, x, ld, badK, badI, l00 / (L[0] as number), (x[0] as number) / (L[0] as number));
}

/**
 * {@link choleskyRank1Update} from column k0 on by plane rotations: with c = l_kk / r and s = x_k / r (|c|, |s| <= 1),
 * L_ik' = c L_ik + s x_i and x_i' = c x_i - s L_ik. The same factor as the usual step in exact arithmetic (whose x_i'
 * is (l_kk x_i - x_k L_ik) / r too), with no intermediate much larger than |L_ik| + |x_i|, but rounded differently:
 * only for inputs the usual step could overflow on. When `i0` is given, column k0 is done down to row i0 - 1 (L[k0][k0]
 * holds r, and `c0`, `s0` are its rotation) and goes on from row i0.
 */
function rank1UpdateByRotations(
  L: Float64Array,
  n: number,
  x: Float64Array,
  ld: number,
  k0: number,
  i0 = -1,
  c0 = 0,
  s0 = 0,
): void {
  for (let k = k0; k < n; k++) {
    let c = c0;
    let s = s0;
    let from = i0;
    if (k > k0 || i0 < 0) {
      const lkk = L[k * ld + k] as number;
      const xk = x[k] as number;
      const r = Math.hypot(lkk, xk);
      c = lkk / r;
      s = xk / r;
      L[k * ld + k] = r;
      from = k + 1;
    }
    for (let i = from; i < n; i++) {
      const lik = L[i * ld + k] as number;
      const xi = x[i] as number;
      L[i * ld + k] = c * lik + s * xi;
      x[i] = c * xi - s * lik;
    }
  }
}

/** log(det(L L^T)) from a Cholesky factor. */
export function choleskyLogDet(L: Float64Array, n: number, ld = n): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.log(L[i * ld + i] as number);
  return 2 * s;
}

/**
 * Up to this order {@link choleskyInverseUpper} solves L L^T x = e_j column by column (about n^3 multiply-adds)
 * instead of going through the triangular inverse (n^3 / 3). Not for speed: the triangular inverse is faster at
 * every order, 1 to 8 included (n = 8: about 0.4 us against 3 us). For bits: the two round differently, and up
 * to 8 the column solves' results are a contract. mnl's unrolled d <= 8 kernels, which OFU-MNL+, UCB-MNL and
 * TS-MNL run on in the paper's setting (d = 5) and in the conformance fixtures, are tested to give exactly these
 * bits; and the small inverses pandora and kernel-ucb refresh with this function keep the bits they had.
 */
const INVERSE_BY_SOLVES_MAX_N = 8;

/**
 * Fills the upper triangle of `out` (n x n, stride ld) with (L L^T)^-1 for a lower Cholesky factor L; the
 * strictly lower part of `out` is not touched, and `out` must not overlap L. `work` (n values) is scratch.
 * Past n = 8 it costs about n^3 / 3 multiply-adds (LAPACK dpotri's route) and does not use `work`.
 */
export function choleskyInverseUpper(L: Float64Array, n: number, out: Float64Array, work: Float64Array, ld = n): void {
  if (n <= INVERSE_BY_SOLVES_MAX_N) inverseUpperByColumnSolves(L, n, out, work, ld);
  else inverseUpperByTriangularInverse(L, n, out, ld);
}

/** Column j of (L L^T)^-1 by one Cholesky solve of e_j: n solves of n^2 multiply-adds each. */
function inverseUpperByColumnSolves(
  L: Float64Array,
  n: number,
  out: Float64Array,
  work: Float64Array,
  ld: number,
): void {
  for (let j = 0; j < n; j++) {
    work.fill(0, 0, n);
    work[j] = 1;
    choleskySolve(L, n, work, work, ld);
    for (let i = 0; i <= j; i++) out[i * ld + j] = work[i] as number;
  }
}

/**
 * (L L^T)^-1 = W W^T with W = L^-T upper triangular, built in the upper triangle of `out` (LAPACK's dtrtri
 * then dlauum): about n^3 / 6 multiply-adds each. All inner products run along rows, contiguous in row-major
 * storage, two at a time from one stream of loads ({@link dotPairTo}), not through `dot`: the rows are short
 * (n / 3 on average), and `dot`'s dispatch per row cost as much as the arithmetic (twice the time at n = 64).
 */
function inverseUpperByTriangularInverse(L: Float64Array, n: number, out: Float64Array, ld: number): void {
  // Row i of W is column i of L^-1: the forward substitution L m = e_i, which starts at m_i = 1 / L_ii and
  // reads rows k > i of L and m itself, so rows i and i + 1 are made together, sharing the loads of L_k.
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const r0 = i * ld;
    const r1 = r0 + ld;
    const w0 = 1 / (L[r0 + i] as number);
    const d1 = L[r1 + i + 1] as number;
    out[r0 + i] = w0;
    out[r0 + i + 1] = -((L[r1 + i] as number) * w0) / d1;
    out[r1 + i + 1] = 1 / d1;
    for (let k = i + 2; k < n; k++) {
      const lk = k * ld;
      // m_k = -(L_k[i..k) . m[i..k)) / L_kk, for both rows; a / -L_kk is exactly -(a / L_kk).
      dotPairTo(L, lk, out, r0, r1, i + 1, k, (L[lk + i] as number) * w0, -(L[lk + k] as number), r0 + k, r1 + k);
    }
  }
  if (i < n) out[i * ld + i] = 1 / (L[i * ld + i] as number);
  // (W W^T)_ij = W_i[j..n) . W_j[j..n) for i <= j, written over W_ij in place: going down the rows and along
  // each row from the diagonal, entry (i, j) needs rows i and j from column j on, which no earlier entry has
  // overwritten, and no later entry needs W_ij. Entries (i, j) and (i, j + 1) share the loads of W_i.
  for (let r = 0; r < n; r++) {
    const ri = r * ld;
    let j = r;
    for (; j + 1 < n; j += 2) {
      const rj = j * ld;
      dotPairTo(
        out,
        ri,
        out,
        rj,
        rj + ld,
        j + 1,
        n,
        (out[ri + j] as number) * (out[rj + j] as number),
        1,
        ri + j,
        ri + j + 1,
      );
    }
    if (j < n) out[ri + j] = (out[ri + j] as number) * (out[j * ld + j] as number);
  }
}

/**
 * y[ta] = (a + sum_q x[xo + q] y[ao + q]) / divisor and y[tb] = (sum_q x[xo + q] y[bo + q]) / divisor, q in
 * [from, to): two inner products against one stream of x (3 loads per 2 multiply-adds instead of 4), with two
 * partial sums each. Both sums are formed before either target is written. It stores its results itself:
 * handing them back through a scratch array, as blas.ts's dotInto does, was 10-25% slower at n = 9 to 64.
 */
function dotPairTo(
  x: Float64Array,
  xo: number,
  y: Float64Array,
  ao: number,
  bo: number,
  from: number,
  to: number,
  a: number,
  divisor: number,
  ta: number,
  tb: number,
): void {
  let a0 = a;
  let a1 = 0;
  let b0 = 0;
  let b1 = 0;
  let q = from;
  for (; q + 1 < to; q += 2) {
    const x0 = x[xo + q] as number;
    const x1 = x[xo + q + 1] as number;
    a0 += x0 * (y[ao + q] as number);
    a1 += x1 * (y[ao + q + 1] as number);
    b0 += x0 * (y[bo + q] as number);
    b1 += x1 * (y[bo + q + 1] as number);
  }
  if (q < to) {
    const x0 = x[xo + q] as number;
    a0 += x0 * (y[ao + q] as number);
    b0 += x0 * (y[bo + q] as number);
  }
  y[ta] = (a0 + a1) / divisor;
  y[tb] = (b0 + b1) / divisor;
}

/** Like {@link choleskyFactor} but reads the UPPER triangle of A (the storage of the other symmetric routines); L must not alias A. */
export function choleskyFactorUpper(A: Float64Array, n: number, L: Float64Array, ld = n): boolean {
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) L[i * ld + j] = A[j * ld + i] as number;
  return choleskyFactor(L, n, L, ld);
}

/**
 * Rank-1 downdate of a Cholesky factor: L L^T - x x^T = L' L'^T, in O(n^2), by the LINPACK dchdd
 * method (Golub & Van Loan, Matrix Computations, sec. 6.5.4): solve L p = x, then apply the rotations
 * that zero p against sqrt(1 - p.p). Returns false, leaving L unchanged, when the result would not be
 * positive definite (p.p >= 1). `work` (2n values) is scratch; x is not modified.
 */
export function choleskyRank1Downdate(
  L: Float64Array,
  n: number,
  x: Float64Array,
  ld = n,
  work: Float64Array = new Float64Array(2 * n),
): boolean {
  const p = work; // p, then the rotation sines, in work[0..n)
  forwardSubst(L, n, x, p, ld);
  const pp = dot(p, p, n);
  if (!(pp < 1)) return false;
  let alpha = Math.sqrt(1 - pp);
  for (let i = n - 1; i >= 0; i--) {
    const pi = p[i] as number;
    const scale = alpha + Math.abs(pi);
    const a = alpha / scale;
    const b = pi / scale;
    const norm = Math.sqrt(a * a + b * b);
    work[n + i] = a / norm; // cosine
    p[i] = b / norm; // sine
    alpha = scale * norm;
  }
  // Row j of L is column j of R = L^T: rotate it from the diagonal back to column 0.
  for (let j = 0; j < n; j++) {
    const row = j * ld;
    let xx = 0;
    for (let i = j; i >= 0; i--) {
      const c = work[n + i] as number;
      const s = p[i] as number;
      const r = L[row + i] as number;
      L[row + i] = c * r - s * xx;
      xx = c * xx + s * r;
    }
  }
  // Canonical sign: a positive diagonal (negating a column of L leaves L L^T unchanged).
  for (let j = 0; j < n; j++) {
    if ((L[j * ld + j] as number) < 0) for (let k = j; k < n; k++) L[k * ld + j] = -(L[k * ld + j] as number);
  }
  return true;
}

/**
 * Direct inverse of SPD A by Cholesky (O(n^3), allocates scratch): reads the upper triangle of A,
 * writes the full symmetric inverse (both triangles) into out (may alias A). Returns false, leaving
 * out untouched, if A is not numerically positive definite. For tests and periodic refreshes of
 * incrementally updated inverses.
 */
export function invertSPD(A: Float64Array, n: number, out: Float64Array, ld = n): boolean {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) L[i * n + j] = A[j * ld + i] as number;
  if (!choleskyFactor(L, n, L, n)) return false;
  const inv = new Float64Array(n * n);
  choleskyInverseUpper(L, n, inv, new Float64Array(n), n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      const v = inv[i * n + j] as number;
      out[i * ld + j] = v;
      out[j * ld + i] = v;
    }
  }
  return true;
}

/**
 * Solves A x = b for SPD A by Cholesky (O(n^3), allocates scratch), reading the upper triangle of A.
 * `out` may alias b. Returns false, leaving out untouched, if A is not numerically positive definite.
 */
export function solveSPD(A: Float64Array, n: number, b: Float64Array, out: Float64Array, ld = n): boolean {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) L[i * n + j] = A[j * ld + i] as number;
  if (!choleskyFactor(L, n, L, n)) return false;
  const y = Float64Array.from({ length: n }, (_, i) => b[i] as number);
  choleskySolve(L, n, y, y, n);
  out.set(y.subarray(0, n));
  return true;
}
