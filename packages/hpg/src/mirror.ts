/**
 * One model's HPG iterate in the efficient form of the paper's §5.1: the eigendecomposition of the
 * mirror matrix Y = U diag(gamma) U^T is kept (only nonzero gamma), the primal iterate is
 * W = U diag(beta sinh gamma) U^T, and one online-mirror-descent step is
 *   1. Y <- Y + rho q q^T               (rank-one eigen-update in a growing subspace)
 *   2. nu = threshold(gamma, beta, tau)  (Bregman projection onto {|W|_* <= tau} ...)
 *   3. gamma <- soft-threshold(gamma, nu) (... which is a soft threshold of the mirror spectrum)
 *   4. drop zero pairs; with `maxRank`, keep the maxRank pairs of largest |gamma| (a heuristic outside
 *      the paper's analysis: exact when maxRank >= d).
 * The eigenvectors are kept factored over a growing orthonormal basis ({@link LowRankSymmetricEigen}),
 * so a step costs O(d r + k^2 r + k^3) for rank k and basis size r <= min(d, 2 maxRank + 1), and a score
 * O(d r); the eigenvectors are re-orthonormalised every `reorthEvery` steps.
 */
import { checkNumber, MAX_CONTEXT_DIM, optionKeys, rejectUnknownOptions, type VectorInput } from "@routekit/core";
import { LowRankSymmetricEigen } from "@routekit/linalg";
import { basisCapUnchecked } from "./helpers-core.js";
import { checkLoad, checkStep, readIterateOptions, readQuery, type StepInput, scaledScore } from "./iterate-options.js";
import { asinhRatio, betaSinh, hypentropyProjectUnchecked, l1ProjectUnchecked } from "./threshold-core.js";

/**
 * The regulariser of the mirror step: the matrix hypentropy (HPG), or half the squared Frobenius norm
 * (projected Euclidean gradient: the mirror map is the identity, the projection onto the nuclear ball
 * an l1 soft threshold of the eigenvalues).
 */
export type MirrorGeometry = "hypentropy" | "euclidean";

export interface MirrorIterateOptions {
  readonly dim: number;
  /** Hypentropy scale beta > 0 (not used by the Euclidean geometry). */
  readonly beta: number;
  /** Default "hypentropy". */
  readonly geometry?: MirrorGeometry;
  /** Nuclear-norm ball radius tau > 0. */
  readonly radius: number;
  /** Largest rank kept (default dim: exact). */
  readonly maxRank?: number;
  /** Steps between re-orthonormalisations (default 1000). */
  readonly reorthEvery?: number;
}

/** The option keys of {@link MirrorIterateOptions}. */
export const MIRROR_ITERATE_OPTION_KEYS = optionKeys<MirrorIterateOptions>()([
  "dim",
  "beta",
  "geometry",
  "radius",
  "maxRank",
  "reorthEvery",
]);

export class MirrorIterate {
  readonly dim: number;
  readonly beta: number;
  readonly geometry: MirrorGeometry;
  readonly radius: number;
  readonly maxRank: number;
  readonly reorthEvery: number;
  /** Eigenpairs of the mirror matrix Y: `values` are the mirror eigenvalues gamma. */
  readonly eig: LowRankSymmetricEigen;
  /** Steps taken (drives the periodic re-orthonormalisation). */
  steps = 0;
  /** The projection threshold of the last step (0 when the ball was not active). */
  lastThreshold = 0;
  /** Primal eigenvalues (beta sinh(gamma); gamma itself in the Euclidean geometry), kept in step with `eig.values`. */
  private lambda: Float64Array;
  private readonly scratch: Float64Array;
  /** The checked copy of a query that is not a Float64Array (or whose squared norm overflows: scaled). */
  private readonly query: Float64Array;
  private readonly stepInput: StepInput = { q: new Float64Array(0), rho: 0 };

  constructor(options: MirrorIterateOptions) {
    rejectUnknownOptions(options, MIRROR_ITERATE_OPTION_KEYS, "MirrorIterate");
    const o = readIterateOptions(options, "MirrorIterate");
    this.dim = o.dim;
    this.beta = o.beta;
    this.geometry = o.geometry;
    this.radius = o.radius;
    this.maxRank = Math.min(o.maxRank, o.dim);
    this.reorthEvery = o.reorthEvery;
    const cap = Math.min(this.dim, this.maxRank + 1);
    this.eig = new LowRankSymmetricEigen(this.dim, basisCapUnchecked(this.dim, this.maxRank), Math.min(cap, 8));
    this.lambda = new Float64Array(cap);
    this.scratch = new Float64Array(cap);
    this.query = new Float64Array(this.dim);
  }

  get rank(): number {
    return this.eig.rank;
  }

  /**
   * q^T W q = sum_i beta sinh(gamma_i) (u_i . q)^2. q is `dim` finite numbers (Float64Array, Float32Array or
   * number[]), checked as the routers' `select` checks a query: another type or a non-number entry is
   * INVALID_ARGUMENT, another length DIMENSION_MISMATCH, NaN or +-Infinity NON_FINITE (it returned NaN). A q whose
   * squared norm overflows (|q| above about 1.3e154) is scaled as `step` scales it: the score is finite, or
   * NUMERICAL when q^T W q itself exceeds the largest double (it returned Infinity or NaN).
   */
  score(q: VectorInput): number {
    const x = readQuery(q, this.dim, this.query);
    const v = this.eig.quadForm(x, this.lambda);
    if (Number.isFinite(v)) return v;
    return scaledScore(x, this.dim, this.query, (u) => this.eig.quadForm(u, this.lambda));
  }

  /**
   * One greedy OMD step: Y <- Y + rho q q^T, then the Bregman projection (and the rank cap). A q that is
   * not `dim` finite numbers (checked as in {@link score}) or a non-finite rho throws (RouteKitError) before
   * anything changes. A q whose squared norm overflows (|q| above about 1.3e154) is scaled, its weight
   * rho |q|^2 capped at MAX_STEP_WEIGHT (1e300): the step saturates the ball along q. A step that
   * leaves Y as it was (rho = 0, or |rho| |q|^2 below MIN_UPDATE) leaves W in the ball: its projection is W
   * itself and is skipped (it still counts towards the re-orthonormalisation period).
   */
  step(q: VectorInput, rho: number): void {
    const { q: x, rho: r } = checkStep(q, this.dim, rho, this.query, this.stepInput);
    const eig = this.eig;
    // `lambda` is kept in step with the spectrum: recomputed after the threshold (and the guard), moved
    // along with the pairs removed.
    if (eig.rankOneUpdate(x, r)) {
      if (this.geometry === "hypentropy") {
        this.lastThreshold = hypentropyProjectUnchecked(eig.values, eig.rank, this.beta, this.radius, this.scratch);
      } else {
        this.lastThreshold = l1ProjectUnchecked(eig.values, eig.rank, this.radius, this.scratch);
      }
      this.refresh();
      if (this.fitBall()) this.refresh();
      for (let i = eig.rank - 1; i >= 0; i--) if (eig.values[i] === 0) this.removePair(i);
      while (eig.rank > this.maxRank) {
        let j = 0;
        for (let i = 1; i < eig.rank; i++)
          if (Math.abs(eig.values[i] as number) < Math.abs(eig.values[j] as number)) j = i;
        this.removePair(j);
      }
    } else this.lastThreshold = 0;
    this.steps++;
    if (this.reorthEvery > 0 && this.steps % this.reorthEvery === 0) {
      eig.reorthonormalize();
      this.refresh();
    }
  }

  /** Drops pair i of the eigen form and its primal eigenvalue (the last pair takes its place in both). */
  private removePair(i: number): void {
    const last = this.eig.rank - 1;
    this.lambda[i] = this.lambda[last] as number;
    this.eig.remove(i);
  }

  /**
   * Rounding guard of the projection. |gamma_i| - nu is exact to one ulp of gamma_i, which is far more
   * than the whole ball when beta / radius or the step is huge (beta = 1e308 leaves a nuclear norm of
   * 1e291 for radius 2). When the thresholded spectrum is outside the ball by more than rounding, its
   * primal eigenvalues are scaled onto the sphere and mapped back. Never active at ordinary settings.
   * Reads the primal eigenvalues (`lambda`, fresh); returns whether it changed the spectrum.
   */
  private fitBall(): boolean {
    const g = this.eig.values;
    const lambda = this.lambda; // beta sinh(gamma), or gamma: |lambda_i| is what the ball measures
    const k = this.eig.rank;
    const hyp = this.geometry === "hypentropy";
    let mx = 0;
    for (let i = 0; i < k; i++) mx = Math.max(mx, Math.abs(lambda[i] as number));
    if (!(mx > 0) || !Number.isFinite(mx)) return false;
    let s = 0;
    for (let i = 0; i < k; i++) s += Math.abs(lambda[i] as number) / mx;
    if (!(s * mx > this.radius * (1 + 1e-9))) return false;
    const f = this.radius / s;
    for (let i = 0; i < k; i++) {
      const v = g[i] as number;
      const w = (Math.abs(lambda[i] as number) / mx) * f;
      const z = hyp ? asinhRatio(w, this.beta) : w;
      g[i] = v > 0 ? z : -z;
    }
    return true;
  }

  /**
   * Sets the factored mirror eigenpairs directly (restore); see `LowRankSymmetricEigen.load` in @routekit/linalg.
   * Checked before anything changes as a snapshot's are: `rank` <= maxRank <= `basisSize` <= the basis cap,
   * `basis` (basisSize x dim), `coef` (rank x basisSize) and `gamma` (rank) finite with orthonormal rows, and a
   * nuclear norm inside the ball (OUT_OF_RANGE, DIMENSION_MISMATCH, NON_FINITE or INVALID_ARGUMENT otherwise).
   */
  load(
    basis: VectorInput,
    basisSize: number,
    coef: VectorInput,
    gamma: VectorInput,
    rank: number,
    steps: number,
  ): void {
    const c = checkLoad(this, basisCapUnchecked(this.dim, this.maxRank), basis, basisSize, coef, gamma, rank, steps);
    this.eig.load(c.basis, basisSize, c.coef, c.gamma, rank);
    this.steps = steps;
    this.refresh();
  }

  /** |W|_* = sum_i |lambda_i| (beta sum_i sinh|gamma_i| under the hypentropy). */
  nuclearNorm(): number {
    let s = 0;
    for (let i = 0; i < this.eig.rank; i++) s += Math.abs(this.lambda[i] as number);
    return s;
  }

  /** Primal eigenvalues beta sinh(gamma) of the current iterate (first `rank` entries). */
  primalValues(): Float64Array {
    return this.lambda.slice(0, this.eig.rank);
  }

  /** The primal iterate W as a dense dim x dim matrix (tests, diagnostics). */
  toDense(): Float64Array {
    const d = this.dim;
    const out = new Float64Array(d * d);
    const U = this.eig.vectors();
    for (let i = 0; i < this.eig.rank; i++) {
      const v = this.lambda[i] as number;
      for (let a = 0; a < d; a++) {
        const va = v * (U[i * d + a] as number);
        for (let b = 0; b < d; b++) out[a * d + b] = (out[a * d + b] as number) + va * (U[i * d + b] as number);
      }
    }
    return out;
  }

  private refresh(): void {
    const k = this.eig.rank;
    if (this.lambda.length < k) this.lambda = new Float64Array(k);
    if (this.geometry === "euclidean") for (let i = 0; i < k; i++) this.lambda[i] = this.eig.values[i] as number;
    else for (let i = 0; i < k; i++) this.lambda[i] = betaSinh(this.beta, this.eig.values[i] as number);
  }
}

/**
 * Most basis rows kept for a rank cap: maxRank + 1 for the update plus maxRank of slack, so the
 * O(d k r) compression runs about once every maxRank steps; at most `dim`. `dim` is an integer in [1, 65536] and
 * `maxRank` one >= 1 (INVALID_ARGUMENT, NON_FINITE, OUT_OF_RANGE).
 */
export function basisCap(dim: number, maxRank: number): number {
  const d = checkNumber(dim, "dim", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
  const r = checkNumber(maxRank, "maxRank", { integer: true, min: 1 });
  return basisCapUnchecked(d, r);
}
