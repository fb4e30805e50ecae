/**
 * The shared reward model mu(x, omega) = G(theta . phi(x, omega)) of COSMOS (paper Section 5, eqs. 19-21,
 * following Filippi et al. 2010): a ridge-penalised GLM maximum-likelihood estimate from the deployed
 * outputs only, the design matrix Phi = ridge I + sum phi phi^T with its inverse kept by Sherman-Morrison,
 * and the optimistic reward G(theta . phi + beta ||phi||_{Phi^-1}) clipped to [0, 1].
 * With a known parameter (paper Section 4) nothing is learned and the optimistic reward is mu* itself.
 */

import {
  checkDiagonal,
  checkNumber,
  ErrorCode,
  encodeF64,
  type Json,
  MAX_RIDGE_DIM,
  RouteKitError,
  readF64,
  readInt,
  snapshotCorrupt,
} from "@routekit/core";
import {
  choleskyFactor,
  choleskyFactorUpper,
  choleskyInverseUpper,
  choleskySolve,
  quadFormUpper,
  shermanMorrisonUpdate,
  solveSPD,
} from "@routekit/linalg";
import { clip01, type RewardLink } from "./links.js";
import { project } from "./loss.js";
import { parameterVector, RIDGE_RANGE } from "./options.js";

/**
 * Samples between exact recomputations of a Sherman-Morrison inverse from its matrix (O(m^3) each, so
 * O(m^3 / 256) per sample). Without them the inverse drifts: 1.4e-9 relative error after 10^5 samples of
 * concentrated contexts (condition number 1.5e5), against 1e-11 for a direct inverse.
 */
export const INVERSE_REFRESH = 256;

/**
 * Recomputes the upper triangle of Ainv = A^-1 from the upper triangle of SPD A by Cholesky, with
 * caller-owned scratch L (n x n) and work (n). Leaves Ainv unchanged if A is not numerically SPD.
 */
export function refreshInverse(
  A: Float64Array,
  n: number,
  Ainv: Float64Array,
  L: Float64Array,
  work: Float64Array,
): void {
  if (choleskyFactorUpper(A, n, L)) choleskyInverseUpper(L, n, Ainv, work);
}

/**
 * Keeps Ainv = A^-1 after the caller added x x^T to the upper triangle of SPD A (the `count`-th update):
 * Sherman-Morrison, recomputed from A by Cholesky every {@link INVERSE_REFRESH} updates, and also whenever
 * Sherman-Morrison left a diagonal entry of Ainv that is not > 0. That happens when A mixes scales (an
 * accepted context of norm 1e20 next to the intercept and the ridge): the update cancels catastrophically
 * and the inverse would claim a negative variance, which the snapshot readers rightly refuse. The check is
 * O(n) per update; ordinary inputs never trigger the recompute, so their inverses are bit for bit as before.
 */
export function updateInverse(
  A: Float64Array,
  n: number,
  Ainv: Float64Array,
  x: Float64Array,
  count: number,
  L: Float64Array,
  work: Float64Array,
): void {
  if (count % INVERSE_REFRESH !== 0) {
    shermanMorrisonUpdate(Ainv, n, x, work);
    if (positiveDiagonal(Ainv, n)) return;
  }
  recomputeInverse(A, n, Ainv, L, work);
}

function positiveDiagonal(M: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (!((M[i * n + i] as number) > 0 && (M[i * n + i] as number) < Infinity)) return false;
  return true;
}

/**
 * Ainv = A^-1 by Cholesky, with a positive diagonal. When rounding makes A numerically indefinite (the ridge is
 * lost next to entries near 1e100), it inverts A + delta I instead, for the smallest delta = 2^k eps max_i A_ii
 * (k >= 0) that factors: a shift far below A's own rounding. A stays as it is.
 */
function recomputeInverse(A: Float64Array, n: number, Ainv: Float64Array, L: Float64Array, work: Float64Array): void {
  let top = 0;
  for (let i = 0; i < n; i++) top = Math.max(top, A[i * n + i] as number);
  let delta = 0;
  for (let k = 0; k < 200; k++) {
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) L[i * n + j] = A[j * n + i] as number;
    for (let i = 0; i < n; i++) L[i * n + i] = (L[i * n + i] as number) + delta;
    if (choleskyFactor(L, n, L)) {
      choleskyInverseUpper(L, n, Ainv, work);
      if (positiveDiagonal(Ainv, n)) return;
    }
    delta = delta === 0 ? Number.EPSILON * top : 2 * delta;
  }
}

/** A growable row-major store of fixed-width rows. */
export class RowStore {
  data: Float64Array;
  n = 0;
  constructor(
    readonly width: number,
    capacity = 16,
  ) {
    this.data = new Float64Array(Math.max(1, width) * capacity);
  }
  push(row: ArrayLike<number>, offset = 0): void {
    const w = this.width;
    if ((this.n + 1) * w > this.data.length) {
      const next = new Float64Array(Math.max(this.data.length * 2, (this.n + 1) * w));
      next.set(this.data.subarray(0, this.n * w));
      this.data = next;
    }
    for (let k = 0; k < w; k++) this.data[this.n * w + k] = row[offset + k] as number;
    this.n++;
  }
  pushValue(v: number): void {
    if (this.n + 1 > this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.n++] = v;
  }
  /** The stored values (a view). */
  view(): Float64Array {
    return this.data.subarray(0, this.n * this.width);
  }
}

/** The GLM reward estimator (unknown reward) or the known reward function. */
export class RewardModel {
  readonly d: number;
  readonly link: RewardLink;
  readonly known: boolean;
  readonly ridge: number;
  readonly bound: number;
  /** Point estimate theta-hat (or theta* when known). */
  readonly theta: Float64Array;
  /** Upper triangle of Phi^-1. */
  readonly PhiInv: Float64Array;
  /** Full Phi (for the projection and the logistic refit). */
  readonly Phi: Float64Array;
  /** sum_k r_k phi_k. */
  readonly b: Float64Array;
  readonly phis: RowStore;
  readonly rewards: RowStore;
  /** Reward observations at the last refit (geometric schedule). */
  fittedAt = 0;
  private readonly u: Float64Array;
  private readonly g: Float64Array;
  private readonly H: Float64Array;
  private readonly step: Float64Array;
  private readonly trial: Float64Array;

  constructor(d: number, link: RewardLink, ridge: number, bound: number, knownTheta: ArrayLike<number> | null) {
    checkNumber(d, "reward dimension d", { integer: true, min: 1, max: MAX_RIDGE_DIM + 1 });
    checkNumber(ridge, "ridge", RIDGE_RANGE);
    if (bound !== Number.POSITIVE_INFINITY) checkNumber(bound, "reward bound", { min: 0, openMin: true });
    if (link === null || typeof link !== "object" || typeof link.value !== "function")
      throw new RouteKitError(ErrorCode.InvalidArgument, "link must be a reward link (see rewardLink)");
    if (knownTheta !== null) parameterVector(Array.from(knownTheta), d, "rewardParameter");
    this.d = d;
    this.link = link;
    this.ridge = ridge;
    this.bound = bound;
    this.known = knownTheta !== null;
    this.theta = new Float64Array(d);
    if (knownTheta) this.theta.set(Array.from(knownTheta));
    this.PhiInv = new Float64Array(d * d);
    this.Phi = new Float64Array(d * d);
    for (let i = 0; i < d; i++) {
      this.PhiInv[i * d + i] = 1 / ridge;
      this.Phi[i * d + i] = ridge;
    }
    this.b = new Float64Array(d);
    this.phis = new RowStore(d);
    this.rewards = new RowStore(1);
    this.u = new Float64Array(d);
    this.g = new Float64Array(d);
    this.H = new Float64Array(d * d);
    this.step = new Float64Array(d);
    this.trial = new Float64Array(d);
  }

  /** Number of reward observations. */
  get count(): number {
    return this.rewards.n;
  }

  /** Point reward clip01(G(theta . phi)). */
  mean(phi: ArrayLike<number>, offset = 0): number {
    let z = 0;
    for (let k = 0; k < this.d; k++) z += (this.theta[k] as number) * (phi[offset + k] as number);
    return clip01(this.link.value(z));
  }

  /** ||phi||_{Phi^-1}. */
  width(phi: Float64Array): number {
    return Math.sqrt(Math.max(quadFormUpper(this.PhiInv, this.d, phi), 0));
  }

  /** Optimistic reward clip01(G(theta . phi + beta ||phi||_{Phi^-1})); mu* itself when known. */
  optimistic(phi: Float64Array, beta: number): number {
    if (this.known) return this.mean(phi);
    let z = 0;
    for (let k = 0; k < this.d; k++) z += (this.theta[k] as number) * (phi[k] as number);
    // An infinite radius (confidence near 0) times a zero width is no bonus, not NaN.
    const w = beta === 0 ? 0 : this.width(phi);
    return clip01(this.link.value(w === 0 ? z : z + beta * w));
  }

  /** Frobenius product <Phi^-1, P> for a symmetric P stored in its upper triangle. */
  frobenius(P: Float64Array): number {
    const d = this.d;
    let s = 0;
    for (let i = 0; i < d; i++) {
      s += (this.PhiInv[i * d + i] as number) * (P[i * d + i] as number);
      for (let j = i + 1; j < d; j++) s += 2 * (this.PhiInv[i * d + j] as number) * (P[i * d + j] as number);
    }
    return s;
  }

  /** Records a deployed output's features and reward (no refit). */
  add(phi: Float64Array, r: number): void {
    const d = this.d;
    this.phis.push(phi);
    this.rewards.pushValue(r);
    for (let i = 0; i < d; i++) {
      this.b[i] = (this.b[i] as number) + r * (phi[i] as number);
      for (let j = 0; j < d; j++)
        this.Phi[i * d + j] = (this.Phi[i * d + j] as number) + (phi[i] as number) * (phi[j] as number);
    }
    // Sherman-Morrison, recomputed from Phi every INVERSE_REFRESH observations (no accumulated rounding).
    updateInverse(this.Phi, d, this.PhiInv, phi, this.count, this.H, this.u);
  }

  toJSON(): Json {
    return {
      n: this.count,
      fittedAt: this.fittedAt,
      theta: encodeF64(this.theta),
      PhiInv: encodeF64(this.PhiInv),
      Phi: encodeF64(this.Phi),
      b: encodeF64(this.b),
      phis: encodeF64(this.phis.view()),
      rewards: encodeF64(this.rewards.view()),
    };
  }

  /** A model like `template` (same dimension, link, ridge, bound, known parameter) with a snapshot's state. */
  static fromJSON(o: Record<string, Json>, template: RewardModel): RewardModel {
    const d = template.d;
    const n = readInt(o, "n");
    const fittedAt = readInt(o, "fittedAt", 0, n);
    const r = new RewardModel(d, template.link, template.ridge, template.bound, template.known ? template.theta : null);
    const theta = readF64(o.theta, "reward.theta", d);
    if (template.known && !theta.every((v, i) => Object.is(v, template.theta[i])))
      snapshotCorrupt("reward.theta", "the known parameter");
    r.theta.set(theta);
    r.PhiInv.set(readF64(o.PhiInv, "reward.PhiInv", d * d));
    r.Phi.set(readF64(o.Phi, "reward.Phi", d * d));
    checkDiagonal(r.PhiInv, d, "reward.PhiInv", "an inverse Gram matrix has a positive diagonal", {
      min: 0,
      openMin: true,
    });
    checkDiagonal(r.Phi, d, "reward.Phi", "a Gram matrix ridge I + sum phi phi^T has a positive diagonal", {
      min: 0,
      openMin: true,
    });
    r.b.set(readF64(o.b, "reward.b", d));
    const X = readF64(o.phis, "reward.phis", n * d);
    const R = readF64(o.rewards, "reward.rewards", n);
    for (let k = 0; k < n; k++) {
      r.phis.push(X, k * d);
      r.rewards.pushValue(R[k] as number);
    }
    r.fittedAt = fittedAt;
    return r;
  }

  /** Refits theta-hat from all reward data (warm-started Newton for the logistic link). */
  fit(maxIter = 50): void {
    if (this.known) return;
    this.fittedAt = this.count;
    const d = this.d;
    if (this.link.name === "identity") {
      // ridge regression theta = Phi^-1 b (the Sherman-Morrison inverse)
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let j = 0; j < d; j++)
          s += (this.PhiInv[i <= j ? i * d + j : j * d + i] as number) * (this.b[j] as number);
        this.theta[i] = s;
      }
      this.projectIdentity();
      return;
    }
    this.newton(maxIter);
    project(this.theta, d, this.bound);
  }

  /** Penalised negative log-likelihood sum_k [Gint(theta . phi_k) - r_k theta . phi_k] + ridge |theta|^2 / 2. */
  objective(theta: Float64Array): number {
    const d = this.d;
    const X = this.phis.data;
    const R = this.rewards.data;
    let f = 0;
    for (let k = 0; k < this.count; k++) {
      let z = 0;
      for (let j = 0; j < d; j++) z += (theta[j] as number) * (X[k * d + j] as number);
      f += this.link.integral(z) - (R[k] as number) * z;
    }
    for (let j = 0; j < d; j++) f += 0.5 * this.ridge * (theta[j] as number) * (theta[j] as number);
    return f;
  }

  private newton(maxIter: number): void {
    const d = this.d;
    const { g, H, step, trial, theta } = this;
    const X = this.phis.data;
    const R = this.rewards.data;
    let f = this.objective(theta);
    for (let it = 0; it < maxIter; it++) {
      for (let j = 0; j < d; j++) g[j] = this.ridge * (theta[j] as number);
      H.fill(0);
      for (let i = 0; i < d; i++) H[i * d + i] = this.ridge;
      for (let k = 0; k < this.count; k++) {
        let z = 0;
        for (let j = 0; j < d; j++) z += (theta[j] as number) * (X[k * d + j] as number);
        const res = this.link.value(z) - (R[k] as number);
        const w = this.link.derivative(z);
        for (let i = 0; i < d; i++) {
          const xi = X[k * d + i] as number;
          g[i] = (g[i] as number) + res * xi;
          for (let j = 0; j <= i; j++) H[i * d + j] = (H[i * d + j] as number) + w * xi * (X[k * d + j] as number);
        }
      }
      if (!choleskyFactor(H, d, H)) return;
      choleskySolve(H, d, g, step);
      let t = 1;
      let slope = 0;
      for (let j = 0; j < d; j++) slope -= (g[j] as number) * (step[j] as number);
      let fNew = f;
      for (;;) {
        for (let j = 0; j < d; j++) trial[j] = (theta[j] as number) - t * (step[j] as number);
        fNew = this.objective(trial);
        if (fNew <= f + 1e-4 * t * slope || t < 1e-10) break;
        t /= 2;
      }
      if (!(fNew <= f)) return;
      let moved = 0;
      for (let j = 0; j < d; j++) moved = Math.max(moved, Math.abs((trial[j] as number) - (theta[j] as number)));
      theta.set(trial);
      const done = f - fNew <= 1e-13 * (1 + Math.abs(f)) || moved <= 1e-12;
      f = fNew;
      if (done) return;
    }
  }

  /**
   * Identity link outside the ball: min ||theta - theta~||_Phi subject to ||theta|| <= bound, by bisection on
   * lambda >= 0 in theta(lambda) = (Phi + lambda I)^-1 Phi theta~ (the norm decreases in lambda).
   */
  private projectIdentity(): void {
    const d = this.d;
    if (this.bound === Number.POSITIVE_INFINITY) return;
    let s = 0;
    for (let j = 0; j < d; j++) s += (this.theta[j] as number) ** 2;
    if (s <= this.bound * this.bound) return;
    const rhs = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let v = 0;
      for (let j = 0; j < d; j++) v += (this.Phi[i * d + j] as number) * (this.theta[j] as number);
      rhs[i] = v;
    }
    const A = new Float64Array(d * d);
    const out = new Float64Array(d);
    const Phi = this.Phi;
    let lo = 0;
    let hi = 1;
    while (shiftedNorm(Phi, A, d, hi, rhs, out) > this.bound && hi < 1e300) hi *= 4;
    for (let it = 0; it < 200 && hi - lo > 1e-14 * (1 + hi); it++) {
      const mid = 0.5 * (lo + hi);
      if (shiftedNorm(Phi, A, d, mid, rhs, out) > this.bound) lo = mid;
      else hi = mid;
    }
    shiftedNorm(Phi, A, d, hi, rhs, out);
    this.theta.set(out);
    project(this.theta, d, this.bound);
  }
}

/**
 * ||out|| for out = (Phi + lambda I)^-1 rhs (Phi d x d, copied into the scratch A). A module-level function
 * rather than a closure in `projectIdentity`, so that a refit creates no function object (the builds keep
 * names, which would also wrap such a closure in a `__name` call).
 */
function shiftedNorm(
  Phi: Float64Array,
  A: Float64Array,
  d: number,
  lambda: number,
  rhs: Float64Array,
  out: Float64Array,
): number {
  A.set(Phi);
  for (let i = 0; i < d; i++) A[i * d + i] = (A[i * d + i] as number) + lambda;
  solveSPD(A, d, rhs, out);
  let n2 = 0;
  for (let j = 0; j < d; j++) n2 += (out[j] as number) ** 2;
  return Math.sqrt(n2);
}
