/**
 * Small symmetric eigenproblems and rank-one updates of a low-rank symmetric matrix kept in
 * eigen form. Allocation-free after warm-up: every buffer is owned by the object and grows by doubling.
 *
 * - {@link jacobiEigen}: cyclic Jacobi (Rutishauser's rotation formulas, as in Numerical Recipes
 *   §11.1), accurate to machine precision, O(n^3) per sweep; meant for n up to a few dozen.
 * - {@link LowRankSymmetricEigen}: X = sum_i values[i] u_i u_i^T with orthonormal u_i (rank k <= d),
 *   updated by X + rho x x^T in the subspace span(u_1..u_k, x) (Bunch, Nielsen & Sorensen 1978: the
 *   small (k+1) x (k+1) diagonal-plus-rank-one problem by the secular equation): classical Gram-Schmidt applied twice for the new
 *   direction, which is added only while k < d and its residual exceeds 1e-8 |x|. Cost O(d k^2 + k^3).
 */
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
 * X = sum_{i<rank} values[i] u_i u_i^T with orthonormal rows u_i of `vectors` (rank x dim, row-major).
 * The order of the pairs carries no meaning. Callers may edit `values` in place and drop pairs with
 * {@link LowRankSymmetricEigen.remove}.
 */
export class LowRankSymmetricEigen {
  readonly dim: number;
  rank = 0;
  /** rank x dim used (capacity x dim allocated); row i is the unit eigenvector of values[i]. */
  vectors: Float64Array;
  values: Float64Array;
  private capacity: number;
  private next: Float64Array;
  private coef: Float64Array;
  private coef2: Float64Array;
  private small: Float64Array;
  private rot: Float64Array;
  private rot2: Float64Array;
  private readonly resid: Float64Array;
  private secular: SecularWorkspace = secularWorkspace(9);

  constructor(dim: number, initialCapacity = 8) {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be a positive integer, got ${dim}`);
    this.dim = dim;
    this.capacity = Math.max(1, Math.min(dim, initialCapacity));
    this.vectors = new Float64Array(this.capacity * dim);
    this.next = new Float64Array(this.capacity * dim);
    this.values = new Float64Array(this.capacity);
    this.coef = new Float64Array(this.capacity + 1);
    this.coef2 = new Float64Array(this.capacity + 1);
    this.small = new Float64Array((this.capacity + 1) ** 2);
    this.rot = new Float64Array((this.capacity + 1) ** 2);
    this.rot2 = new Float64Array((this.capacity + 1) ** 2);
    this.resid = new Float64Array(dim);
  }

  /** out[i] = u_i . x for i < rank. */
  project(x: ArrayLike<number>, out: Float64Array): void {
    const d = this.dim;
    const U = this.vectors;
    for (let i = 0; i < this.rank; i++) {
      let s = 0;
      const o = i * d;
      for (let l = 0; l < d; l++) s += (U[o + l] as number) * (x[l] as number);
      out[i] = s;
    }
  }

  /** sum_i f_i (u_i . x)^2 with f = weights (e.g. the eigenvalues, or a spectral function of them). */
  quadForm(x: ArrayLike<number>, weights: Float64Array): number {
    const d = this.dim;
    const U = this.vectors;
    let total = 0;
    for (let i = 0; i < this.rank; i++) {
      const w = weights[i] as number;
      if (w === 0) continue;
      let s = 0;
      const o = i * d;
      for (let l = 0; l < d; l++) s += (U[o + l] as number) * (x[l] as number);
      total += w * s * s;
    }
    return total;
  }

  /**
   * X <- X + rho x x^T, in eigen form. The rank grows by one when x has a component outside the
   * current subspace (and rank < dim). rho = 0 (or |rho| |x|^2 < MIN_UPDATE) leaves everything unchanged.
   */
  rankOneUpdate(x: ArrayLike<number>, rho: number): void {
    const d = this.dim;
    let x2 = 0;
    for (let l = 0; l < d; l++) x2 += (x[l] as number) * (x[l] as number);
    // A term this small (|rho| |x|^2 < 1e-250, e.g. a subnormal rho) is below double precision next to
    // any spectrum the update could meet, and the secular solver would lose it to underflow: skip it.
    if (!(Math.abs(rho) * x2 >= MIN_UPDATE)) return;
    const k = this.rank;
    this.ensureCapacity(Math.min(d, k + 1));
    const U = this.vectors;
    const c = this.coef;
    const c2 = this.coef2;
    const p = this.resid;
    // CGS2: p = (I - U^T U)^2 x, c = U x + U (x - U^T U x).
    let xx = 0;
    for (let l = 0; l < d; l++) {
      const v = x[l] as number;
      p[l] = v;
      xx += v * v;
    }
    for (let pass = 0; pass < 2; pass++) {
      const cc = pass === 0 ? c : c2;
      for (let i = 0; i < k; i++) {
        let s = 0;
        const o = i * d;
        for (let l = 0; l < d; l++) s += (U[o + l] as number) * (p[l] as number);
        cc[i] = s;
      }
      for (let i = 0; i < k; i++) {
        const s = cc[i] as number;
        if (s === 0) continue;
        const o = i * d;
        for (let l = 0; l < d; l++) p[l] = (p[l] as number) - s * (U[o + l] as number);
      }
    }
    for (let i = 0; i < k; i++) c[i] = (c[i] as number) + (c2[i] as number);
    let pp = 0;
    for (let l = 0; l < d; l++) pp += (p[l] as number) * (p[l] as number);
    const pn = Math.sqrt(pp);
    const grow = k < d && pn > SUBSPACE_RESIDUAL_TOL * Math.max(1, Math.sqrt(xx));
    const n = grow ? k + 1 : k;
    if (grow) {
      c[k] = pn;
      const o = k * d;
      const inv = 1 / pn;
      for (let l = 0; l < d; l++) U[o + l] = (p[l] as number) * inv;
      this.values[k] = 0;
    }
    // Small problem diag(values) + rho c c^T (secular equation), then rotate the basis by its eigenvectors.
    const Q = this.rot;
    if (this.secular.capacity < n) this.secular = secularWorkspace(Math.max(n, 2 * this.secular.capacity));
    diagonalPlusRankOneEigen(this.values, c, rho, n, Q, this.values, this.secular);
    const out = this.next;
    for (let j = 0; j < n; j++) {
      const o = j * d;
      out.fill(0, o, o + d);
      for (let i = 0; i < n; i++) {
        const q = Q[i * n + j] as number;
        if (q === 0) continue;
        const s = i * d;
        for (let l = 0; l < d; l++) out[o + l] = (out[o + l] as number) + q * (U[s + l] as number);
      }
    }
    this.next = U;
    this.vectors = out;
    this.rank = n;
  }

  /** Drops pair i (the last pair takes its place). */
  remove(i: number): void {
    const last = this.rank - 1;
    if (i !== last) {
      const d = this.dim;
      this.vectors.copyWithin(i * d, last * d, last * d + d);
      this.values[i] = this.values[last] as number;
    }
    this.rank = last;
  }

  /** Sets the pairs directly (rows of `vectors`, rank x dim); the rows must be orthonormal. */
  load(vectors: ArrayLike<number>, values: ArrayLike<number>, rank: number): void {
    this.ensureCapacity(rank);
    for (let i = 0; i < rank * this.dim; i++) this.vectors[i] = vectors[i] as number;
    for (let i = 0; i < rank; i++) this.values[i] = values[i] as number;
    this.rank = rank;
  }

  /**
   * Restores orthonormality lost to rounding: modified Gram-Schmidt QR of the rows (U^T = Q R),
   * then re-diagonalises R diag(values) R^T. X is unchanged up to rounding. O(d k^2 + k^3).
   */
  reorthonormalize(): void {
    const d = this.dim;
    const k = this.rank;
    if (k === 0) return;
    const U = this.vectors;
    const R = this.rot; // k x k, R[j * k + i] = r_ji (upper triangular)
    R.fill(0, 0, k * k);
    for (let i = 0; i < k; i++) {
      const oi = i * d;
      for (let j = 0; j < i; j++) {
        const oj = j * d;
        let s = 0;
        for (let l = 0; l < d; l++) s += (U[oj + l] as number) * (U[oi + l] as number);
        R[j * k + i] = s;
        for (let l = 0; l < d; l++) U[oi + l] = (U[oi + l] as number) - s * (U[oj + l] as number);
      }
      let nn = 0;
      for (let l = 0; l < d; l++) nn += (U[oi + l] as number) ** 2;
      const r = Math.sqrt(nn);
      R[i * k + i] = r;
      for (let l = 0; l < d; l++) U[oi + l] = (U[oi + l] as number) / r;
    }
    // S = R diag(values) R^T.
    const S = this.small;
    for (let a = 0; a < k; a++) {
      for (let b = a; b < k; b++) {
        let s = 0;
        for (let i = Math.max(a, b); i < k; i++)
          s += (R[a * k + i] as number) * (this.values[i] as number) * (R[b * k + i] as number);
        S[a * k + b] = s;
        S[b * k + a] = s;
      }
    }
    const Qv = this.rot2;
    jacobiEigen(S, k, Qv, this.values);
    const out = this.next;
    for (let j = 0; j < k; j++) {
      const o = j * d;
      out.fill(0, o, o + d);
      for (let i = 0; i < k; i++) {
        const q = Qv[i * k + j] as number;
        const s = i * d;
        for (let l = 0; l < d; l++) out[o + l] = (out[o + l] as number) + q * (U[s + l] as number);
      }
    }
    this.next = U;
    this.vectors = out;
  }

  /** Largest |u_i . u_j - [i = j]| (a test and drift diagnostic). */
  orthogonalityError(): number {
    const d = this.dim;
    let worst = 0;
    for (let i = 0; i < this.rank; i++) {
      for (let j = i; j < this.rank; j++) {
        let s = 0;
        for (let l = 0; l < d; l++) s += (this.vectors[i * d + l] as number) * (this.vectors[j * d + l] as number);
        worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
      }
    }
    return worst;
  }

  /** Writes X as a dense dim x dim row-major matrix. */
  toDense(out: Float64Array): Float64Array {
    const d = this.dim;
    out.fill(0, 0, d * d);
    for (let i = 0; i < this.rank; i++) {
      const v = this.values[i] as number;
      const o = i * d;
      for (let a = 0; a < d; a++) {
        const va = v * (this.vectors[o + a] as number);
        for (let b = 0; b < d; b++) out[a * d + b] = (out[a * d + b] as number) + va * (this.vectors[o + b] as number);
      }
    }
    return out;
  }

  private ensureCapacity(need: number): void {
    if (need <= this.capacity) return;
    const d = this.dim;
    const cap = Math.min(d, Math.max(need, this.capacity * 2));
    const grow = (a: Float64Array, len: number): Float64Array => {
      const b = new Float64Array(len);
      b.set(a.subarray(0, Math.min(a.length, len)));
      return b;
    };
    this.vectors = grow(this.vectors, cap * d);
    this.next = new Float64Array(cap * d);
    this.values = grow(this.values, cap);
    this.coef = new Float64Array(cap + 1);
    this.coef2 = new Float64Array(cap + 1);
    this.small = new Float64Array((cap + 1) ** 2);
    this.rot = new Float64Array((cap + 1) ** 2);
    this.rot2 = new Float64Array((cap + 1) ** 2);
    this.capacity = cap;
  }
}
