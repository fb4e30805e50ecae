/**
 * Small symmetric eigenproblems and rank-one updates of a low-rank symmetric matrix kept in
 * eigen form. Allocation-free after warm-up: every buffer is owned by the object and grows by doubling.
 *
 * - {@link jacobiEigen}: cyclic Jacobi (Rutishauser's rotation formulas, as in Numerical Recipes
 *   §11.1), accurate to machine precision, O(n^3) per sweep; meant for n up to a few dozen.
 * - {@link LowRankSymmetricEigen}: X = sum_i values[i] u_i u_i^T with orthonormal u_i (rank k <= d),
 *   updated by X + rho x x^T in the subspace span(u_1..u_k, x) (Bunch, Nielsen & Sorensen 1978: the
 *   small diagonal-plus-rank-one problem by the secular equation). The eigenvectors are kept factored
 *   over a growing orthonormal basis, so an update rotates only a small coefficient matrix.
 */
import { addRows, allocF64, freeF64, gemv } from "./dispatch.js";
import { diagonalPlusRankOneEigen, type SecularWorkspace, secularWorkspace } from "./secular.js";

/**
 * Eigendecomposition of the symmetric n x n row-major `A` (full storage, overwritten: its diagonal
 * ends holding the eigenvalues, in no particular order). `V` (n x n, row-major) receives the
 * eigenvectors as columns (V[i * n + j] is entry i of eigenvector j), `values` the eigenvalues.
 * Returns the number of sweeps used (at most 60).
 */
export function jacobiEigen(A: Float64Array, n: number, V: Float64Array, values: Float64Array): number {
  for (let i = 0; i < n * n; i++) V[i] = 0;
  for (let i = 0; i < n; i++) V[i * n + i] = 1;
  let sweep = 0;
  for (; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += Math.abs(A[p * n + q] as number);
    if (off === 0) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = A[p * n + q] as number;
        if (apq === 0) continue;
        const app = A[p * n + p] as number;
        const aqq = A[q * n + q] as number;
        const g = 100 * Math.abs(apq);
        if (sweep > 3 && Math.abs(app) + g === Math.abs(app) && Math.abs(aqq) + g === Math.abs(aqq)) {
          A[p * n + q] = 0;
          A[q * n + p] = 0;
          continue;
        }
        const h = aqq - app;
        let t: number;
        if (Math.abs(h) + g === Math.abs(h)) t = apq / h;
        else {
          const theta = (0.5 * h) / apq;
          t = 1 / (Math.abs(theta) + Math.sqrt(1 + theta * theta));
          if (theta < 0) t = -t;
        }
        const c = 1 / Math.sqrt(1 + t * t);
        const s = t * c;
        // A' = P^T A P with P the rotation in the (p, q) plane: columns then rows.
        for (let r = 0; r < n; r++) {
          const arp = A[r * n + p] as number;
          const arq = A[r * n + q] as number;
          A[r * n + p] = c * arp - s * arq;
          A[r * n + q] = s * arp + c * arq;
        }
        for (let r = 0; r < n; r++) {
          const apr = A[p * n + r] as number;
          const aqr = A[q * n + r] as number;
          A[p * n + r] = c * apr - s * aqr;
          A[q * n + r] = s * apr + c * aqr;
        }
        A[p * n + p] = app - t * apq;
        A[q * n + q] = aqq + t * apq;
        A[p * n + q] = 0;
        A[q * n + p] = 0;
        for (let r = 0; r < n; r++) {
          const vrp = V[r * n + p] as number;
          const vrq = V[r * n + q] as number;
          V[r * n + p] = c * vrp - s * vrq;
          V[r * n + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  for (let i = 0; i < n; i++) values[i] = A[i * n + i] as number;
  return sweep;
}

/** Smallest |rho| |x|^2 a rank-one update applies. */
export const MIN_UPDATE = 1e-250;

/** Residual threshold (relative to max(1, |x|)) below which x counts as inside the current subspace. */
export const SUBSPACE_RESIDUAL_TOL = 1e-8;

/**
 * A low-rank symmetric matrix X = sum_{i<rank} values[i] u_i u_i^T kept in factored eigen form: the
 * orthonormal eigenvectors are u_i = sum_j coef[i, j] b_j, with b_j the orthonormal rows of a growing
 * `basis` (basisSize x dim) and `coef` a small rank x basisSize matrix with orthonormal rows.
 *
 * A rank-one update X + rho x x^T (Bunch, Nielsen & Sorensen 1978) appends x's residual against the
 * basis as one new basis row (classical Gram-Schmidt applied twice, O(d r)), solves the small
 * diagonal-plus-rank-one problem by the secular equation and rotates only `coef` (O(k^2 r)); the
 * d-length eigenvectors themselves are never rotated. When the basis reaches `maxBasis` rows it is
 * compressed to the eigenvectors (basis <- coef basis, O(d k r), once every maxBasis - rank updates).
 * Quadratic forms x^T f(X) x cost one basis product (O(d r)) plus O(k r).
 */
export class LowRankSymmetricEigen {
  readonly dim: number;
  /** Most basis rows kept before compressing (<= dim). */
  readonly maxBasis: number;
  rank = 0;
  basisSize = 0;
  /** Row capacity of `basis` and row stride of `coef`. */
  private cap: number;
  /** cap x dim; rows 0..basisSize are orthonormal. */
  basis: Float64Array;
  /** cap x cap (row stride cap); row i (entries 0..basisSize) holds u_i in basis coordinates. */
  coef: Float64Array;
  values: Float64Array;
  private basisNext: Float64Array;
  private coefNext: Float64Array;
  private a: Float64Array;
  private a2: Float64Array;
  private c: Float64Array;
  private c2: Float64Array;
  private rot: Float64Array;
  private rot2: Float64Array;
  /** The secular rotation transposed (its columns as contiguous rows), the weights of the coefficient rotation. */
  private rotT: Float64Array;
  private readonly resid: Float64Array;
  private secular: SecularWorkspace = secularWorkspace(9);

  constructor(dim: number, maxBasis = dim, initialCapacity = 8) {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be a positive integer, got ${dim}`);
    this.dim = dim;
    this.maxBasis = Math.max(1, Math.min(dim, maxBasis));
    this.cap = Math.min(this.maxBasis, Math.max(1, initialCapacity));
    // The basis lives in WebAssembly memory when available, so B x runs on the SIMD gemv kernel.
    this.basis = allocF64(this.cap * dim);
    this.basisNext = allocF64(this.cap * dim);
    // The coefficients (and the transposed rotation) also live in WebAssembly memory, for addRows.
    this.coef = allocF64(this.cap * this.cap);
    this.coefNext = allocF64(this.cap * this.cap);
    this.rotT = allocF64(this.cap * this.cap);
    this.values = new Float64Array(this.cap);
    // The outputs of B x too: in WebAssembly memory the kernel writes them in place (no staging copy).
    this.a = allocF64(this.cap);
    this.a2 = allocF64(this.cap);
    this.c = new Float64Array(this.cap);
    this.c2 = new Float64Array(this.cap);
    this.rot = new Float64Array(this.cap * this.cap);
    this.rot2 = new Float64Array(this.cap * this.cap);
    this.resid = allocF64(dim);
  }

  /** a[j] = b_j . x for j < basisSize. */
  private basisProject(x: Float64Array, a: Float64Array): void {
    if (this.basisSize > 0) gemv(this.basis, this.basisSize, this.dim, x, a);
  }

  /** out[i] = u_i . x for i < rank. */
  project(x: Float64Array, out: Float64Array): void {
    const a = this.a;
    this.basisProject(x, a);
    const r = this.basisSize;
    const C = this.coef;
    const s = this.cap;
    for (let i = 0; i < this.rank; i++) {
      let v = 0;
      for (let j = 0; j < r; j++) v += (C[i * s + j] as number) * (a[j] as number);
      out[i] = v;
    }
  }

  /** sum_i w_i (u_i . x)^2 with w = weights (e.g. the eigenvalues, or a spectral function of them). */
  quadForm(x: Float64Array, weights: Float64Array): number {
    if (this.rank === 0) return 0;
    const a = this.a;
    this.basisProject(x, a);
    const r = this.basisSize;
    const C = this.coef;
    const s = this.cap;
    let total = 0;
    for (let i = 0; i < this.rank; i++) {
      const w = weights[i] as number;
      if (w === 0) continue;
      let v = 0;
      for (let j = 0; j < r; j++) v += (C[i * s + j] as number) * (a[j] as number);
      total += w * v * v;
    }
    return total;
  }

  /**
   * X <- X + rho x x^T, in eigen form. The rank grows by one when x has a component outside the
   * eigenvector span (and rank < dim). rho = 0 (or |rho| |x|^2 < MIN_UPDATE) leaves everything unchanged
   * and returns false; otherwise returns true.
   */
  rankOneUpdate(x: ArrayLike<number>, rho: number): boolean {
    const d = this.dim;
    const p = this.resid;
    let x2 = 0;
    for (let l = 0; l < d; l++) {
      const v = x[l] as number;
      p[l] = v;
      x2 += v * v;
    }
    // A term this small is below double precision next to any spectrum the update could meet, and the
    // secular solver would lose it to underflow: skip it.
    if (!(Math.abs(rho) * x2 >= MIN_UPDATE)) return false;
    if (this.basisSize === this.maxBasis && this.basisSize < d) this.compress();
    this.ensureCapacity(Math.min(this.maxBasis, this.basisSize + 1));
    const B = this.basis;
    const r = this.basisSize;
    const a = this.a;
    const a2 = this.a2;
    // Gram-Schmidt against the basis, repeated once when the first pass cancelled more than half of
    // |x| (Kahan-Parlett "twice is enough"): p = (I - B^T B) x (twice), a = B x (+ B p). p = x already.
    // A basis of all of R^d leaves no residual to find: a = B x is all there is.
    let pp = x2;
    if (r === d) {
      this.basisProject(p, a);
      pp = 0;
    }
    for (let pass = 0; pass < 2 && r < d; pass++) {
      const aa = pass === 0 ? a : a2;
      this.basisProject(p, aa);
      addRows(p, 0, d, B, 0, d, aa, 0, r, -1);
      const before = pp;
      pp = 0;
      for (let l = 0; l < d; l++) pp += (p[l] as number) * (p[l] as number);
      if (pass === 1) for (let j = 0; j < r; j++) a[j] = (a[j] as number) + (a2[j] as number);
      else if (r === 0 || pp > 0.25 * before) break;
    }
    const pn = Math.sqrt(pp);
    const tol = SUBSPACE_RESIDUAL_TOL * Math.max(1, Math.sqrt(x2));
    const s = this.cap;
    const C = this.coef;
    const k = this.rank;
    let rr = r;
    if (r < this.maxBasis && pn > tol) {
      const o = r * d;
      const inv = 1 / pn;
      for (let l = 0; l < d; l++) B[o + l] = (p[l] as number) * inv;
      a[r] = pn;
      for (let i = 0; i < k; i++) C[i * s + r] = 0;
      rr = r + 1;
    }
    // x's coordinates in the eigenbasis (CGS2 in basis coordinates): c = C w, w <- w - C^T c, twice.
    // When the eigenvectors span the whole basis (k = rr, C square and orthogonal) there is no residual
    // and nothing to grow: c = C w once.
    const c = this.c;
    const c2 = this.c2;
    const full = k === rr;
    for (let pass = 0; pass < (full ? 1 : 2); pass++) {
      const cc = pass === 0 ? c : c2;
      for (let i = 0; i < k; i++) {
        let v = 0;
        const o = i * s;
        for (let j = 0; j < rr; j++) v += (C[o + j] as number) * (a[j] as number);
        cc[i] = v;
      }
      if (full) break;
      for (let i = 0; i < k; i++) {
        const v = cc[i] as number;
        if (v === 0) continue;
        const o = i * s;
        for (let j = 0; j < rr; j++) a[j] = (a[j] as number) - v * (C[o + j] as number);
      }
    }
    let wn = 0;
    if (!full) {
      for (let i = 0; i < k; i++) c[i] = (c[i] as number) + (c2[i] as number);
      let ww = 0;
      for (let j = 0; j < rr; j++) ww += (a[j] as number) * (a[j] as number);
      wn = Math.sqrt(ww);
    }
    const grow = !full && wn > tol;
    const n = grow ? k + 1 : k;
    if (grow) {
      const o = k * s;
      const inv = 1 / wn;
      for (let j = 0; j < rr; j++) C[o + j] = (a[j] as number) * inv;
      c[k] = wn;
      this.values[k] = 0;
    }
    this.basisSize = rr;
    if (n === 0) return true;
    // Small problem diag(values) + rho c c^T (secular equation), its eigenvectors as the rows of Qt (the
    // weights of the coefficient rotation, contiguous), then rotate the coefficients only.
    if (this.secular.capacity < n) this.secular = secularWorkspace(Math.max(n, 2 * this.secular.capacity));
    const Qt = this.rotT;
    diagonalPlusRankOneEigen(this.values, c, rho, n, Qt, this.values, this.secular, "rows");
    const out = this.coefNext;
    out.fill(0, 0, (n - 1) * s + rr);
    for (let jj = 0; jj < n; jj++) addRows(out, jj * s, rr, C, 0, s, Qt, jj * n, n, 1);
    this.coefNext = C;
    this.coef = out;
    this.rank = n;
    return true;
  }

  /** Drops pair i (the last pair takes its place). */
  remove(i: number): void {
    const last = this.rank - 1;
    if (i !== last) {
      const s = this.cap;
      this.coef.copyWithin(i * s, last * s, last * s + this.basisSize);
      this.values[i] = this.values[last] as number;
    }
    this.rank = last;
  }

  /** Replaces the basis by the eigenvectors themselves (basis <- coef basis, coef <- I). X is unchanged up to rounding. */
  compress(): void {
    const k = this.rank;
    this.materialize(this.basisNext);
    const old = this.basis;
    this.basis = this.basisNext;
    this.basisNext = old;
    this.setIdentityCoef(k);
    this.basisSize = k;
  }

  /** Writes the eigenvectors u_i as the rows of out (rank x dim). */
  materialize(out: Float64Array): Float64Array {
    const d = this.dim;
    const s = this.cap;
    const B = this.basis;
    const C = this.coef;
    for (let i = 0; i < this.rank; i++) {
      const o = i * d;
      out.fill(0, o, o + d);
      addRows(out, o, d, B, 0, d, C, i * s, this.basisSize, 1);
    }
    return out;
  }

  /** The eigenvectors as a fresh rank x dim array (tests, diagnostics). */
  vectors(): Float64Array {
    return this.materialize(new Float64Array(this.rank * this.dim));
  }

  /**
   * Restores orthonormality lost to rounding: compress, modified Gram-Schmidt QR of the rows
   * (U^T = Q R), then re-diagonalise R diag(values) R^T into `coef`. X is unchanged up to rounding.
   */
  reorthonormalize(): void {
    const d = this.dim;
    const k = this.rank;
    if (k === 0) {
      this.basisSize = 0;
      return;
    }
    this.compress();
    const U = this.basis;
    const R = this.rot; // R[j * k + i] = r_ji (upper triangular)
    R.fill(0, 0, k * k);
    for (let i = 0; i < k; i++) {
      const oi = i * d;
      for (let j = 0; j < i; j++) {
        const oj = j * d;
        const v = rowDot(U, oj, U.subarray(oi, oi + d), d);
        R[j * k + i] = v;
        for (let l = 0; l < d; l++) U[oi + l] = (U[oi + l] as number) - v * (U[oj + l] as number);
      }
      let nn = 0;
      for (let l = 0; l < d; l++) nn += (U[oi + l] as number) ** 2;
      const rn = Math.sqrt(nn);
      R[i * k + i] = rn;
      for (let l = 0; l < d; l++) U[oi + l] = (U[oi + l] as number) / rn;
    }
    const S = this.coefNext; // scratch k x k (stride k)
    for (let x = 0; x < k; x++) {
      for (let y = x; y < k; y++) {
        let v = 0;
        for (let i = Math.max(x, y); i < k; i++)
          v += (R[x * k + i] as number) * (this.values[i] as number) * (R[y * k + i] as number);
        S[x * k + y] = v;
        S[y * k + x] = v;
      }
    }
    const V = this.rot2;
    jacobiEigen(S, k, V, this.values);
    const s = this.cap;
    const C = this.coef;
    for (let jj = 0; jj < k; jj++) for (let i = 0; i < k; i++) C[jj * s + i] = V[i * k + jj] as number;
  }

  /** Sets the factors directly (restore): basis rows (basisSize x dim) and coef rows (rank x basisSize) orthonormal. */
  load(
    basis: ArrayLike<number>,
    basisSize: number,
    coef: ArrayLike<number>,
    values: ArrayLike<number>,
    rank: number,
  ): void {
    this.ensureCapacity(basisSize);
    const d = this.dim;
    for (let i = 0; i < basisSize * d; i++) this.basis[i] = basis[i] as number;
    const s = this.cap;
    for (let i = 0; i < rank; i++) {
      for (let j = 0; j < basisSize; j++) this.coef[i * s + j] = coef[i * basisSize + j] as number;
      this.values[i] = values[i] as number;
    }
    this.basisSize = basisSize;
    this.rank = rank;
  }

  /** coef rows 0..rank as a dense rank x basisSize array (snapshots). */
  coefRows(): Float64Array {
    const r = this.basisSize;
    const out = new Float64Array(this.rank * r);
    for (let i = 0; i < this.rank; i++)
      for (let j = 0; j < r; j++) out[i * r + j] = this.coef[i * this.cap + j] as number;
    return out;
  }

  /** Largest |u_i . u_j - [i = j]| of the materialised eigenvectors (a test and drift diagnostic). */
  orthogonalityError(): number {
    const d = this.dim;
    const U = this.vectors();
    let worst = 0;
    for (let i = 0; i < this.rank; i++)
      for (let j = i; j < this.rank; j++) {
        const v = rowDot(U, i * d, U.subarray(j * d, j * d + d), d);
        worst = Math.max(worst, Math.abs(v - (i === j ? 1 : 0)));
      }
    return worst;
  }

  /** Writes X as a dense dim x dim row-major matrix. */
  toDense(out: Float64Array): Float64Array {
    const d = this.dim;
    const U = this.vectors();
    out.fill(0, 0, d * d);
    for (let i = 0; i < this.rank; i++) {
      const v = this.values[i] as number;
      const o = i * d;
      for (let x = 0; x < d; x++) {
        const vx = v * (U[o + x] as number);
        for (let y = 0; y < d; y++) out[x * d + y] = (out[x * d + y] as number) + vx * (U[o + y] as number);
      }
    }
    return out;
  }

  private setIdentityCoef(k: number): void {
    const s = this.cap;
    const C = this.coef;
    for (let i = 0; i < k; i++) {
      C.fill(0, i * s, i * s + k);
      C[i * s + i] = 1;
    }
  }

  private ensureCapacity(need: number): void {
    if (need <= this.cap) return;
    const d = this.dim;
    const cap = Math.min(this.maxBasis, Math.max(need, this.cap * 2));
    const old = this.cap;
    const basis = allocF64(cap * d);
    basis.set(this.basis.subarray(0, old * d));
    freeF64(this.basis);
    freeF64(this.basisNext);
    this.basis = basis;
    this.basisNext = allocF64(cap * d);
    const coef = allocF64(cap * cap);
    for (let i = 0; i < old; i++) for (let j = 0; j < old; j++) coef[i * cap + j] = this.coef[i * old + j] as number;
    freeF64(this.coef);
    freeF64(this.coefNext);
    freeF64(this.rotT);
    this.coef = coef;
    this.coefNext = allocF64(cap * cap);
    this.rotT = allocF64(cap * cap);
    const values = new Float64Array(cap);
    values.set(this.values);
    this.values = values;
    freeF64(this.a);
    freeF64(this.a2);
    this.a = allocF64(cap);
    this.a2 = allocF64(cap);
    this.c = new Float64Array(cap);
    this.c2 = new Float64Array(cap);
    this.rot = new Float64Array(cap * cap);
    this.rot2 = new Float64Array(cap * cap);
    this.cap = cap;
  }
}

/** sum_l A[o + l] x[l] for l < d, four partial sums (a fixed order, so results are reproducible). */
function rowDot(A: Float64Array, o: number, x: ArrayLike<number>, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let l = 0;
  for (; l + 3 < d; l += 4) {
    s0 += (A[o + l] as number) * (x[l] as number);
    s1 += (A[o + l + 1] as number) * (x[l + 1] as number);
    s2 += (A[o + l + 2] as number) * (x[l + 2] as number);
    s3 += (A[o + l + 3] as number) * (x[l + 3] as number);
  }
  for (; l < d; l++) s0 += (A[o + l] as number) * (x[l] as number);
  return s0 + s1 + (s2 + s3);
}
