import {
  assertInRange,
  assertInt,
  assertPositive,
  describe,
  ErrorCode,
  optionKeys,
  type Rng,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import {
  orthonormalRows,
  queryNearSubspace,
  ROUTING_ENVIRONMENT_OPTION_KEYS,
  RoutingEnvironment,
  type RoutingEnvironmentOptions,
} from "./common.js";

export interface PlantedQuadraticOptions extends RoutingEnvironmentOptions {
  /** Latent rank s of each model (default 1): each planted W*_m has rank 2s and nuclear norm 2s. */
  readonly latentRank?: number;
  /** Reward slope kappa (default 2): R_m(q) = clip(0.5 + kappa q^T W*_m q, 0, 1). */
  readonly kappa?: number;
  /** Dimension of the query subspace (default 4, capped at contextDim). */
  readonly querySubspace?: number;
  /** Standard deviation of the isotropic query noise before normalisation (default 0.1). */
  readonly queryNoise?: number;
  /**
   * Where the planted eigenvectors live: "ambient" (default: random in all of R^d) or "query" (inside the
   * query subspace, needs querySubspace >= 2s). With "query" and balanced signs every model has the same
   * mean reward over the query distribution (E q q^T is isotropic on the subspace plus isotropic noise, and
   * tr W*_m = 0), so no single model is better on average and only the query-dependent, even-in-q part
   * (sign of u^T q does not matter) separates them.
   */
  readonly planted?: "ambient" | "query";
}

/** The option keys of {@link PlantedQuadraticOptions}. */
export const PLANTED_QUADRATIC_OPTION_KEYS = optionKeys<PlantedQuadraticOptions>()([
  ...ROUTING_ENVIRONMENT_OPTION_KEYS,
  "latentRank",
  "kappa",
  "querySubspace",
  "queryNoise",
  "planted",
]);

/**
 * The planted log-quadratic routing environment: queries q = normalise(P u + N(0, 0.01 I_d)) with u
 * uniform on the unit sphere of a fixed random 4-dimensional subspace (P an orthonormal basis); model m
 * has W*_m = Q_m diag(lambda) Q_m^T with Q_m a random orthonormal d x 2s basis of all of R^d and
 * lambda = (+1 x s, -1 x s) (balanced signs, |W*_m|_* = 2s, so no model dominates on average);
 * R_m(q) = clip(0.5 + kappa q^T W*_m q, 0, 1) with Bernoulli rewards. The best model depends on q
 * through a quadratic form, which a log-quadratic router can express and a log-linear one cannot.
 */
export class PlantedQuadraticEnvironment extends RoutingEnvironment {
  readonly latentRank: number;
  readonly kappa: number;
  readonly querySubspace: number;
  readonly queryNoise: number;
  readonly planted: "ambient" | "query";
  /** Row-major (M * 2s) x d: the planted eigenvectors, model by model. */
  private Q: Float64Array = new Float64Array(0);
  private P: Float64Array = new Float64Array(0);
  /** q^T W*_m q of the current round. */
  readonly plantedScores: Float64Array;

  constructor(options: PlantedQuadraticOptions) {
    rejectUnknownOptions(options, PLANTED_QUADRATIC_OPTION_KEYS, "PlantedQuadraticEnvironment");
    super(options, "hpg-planted-quadratic");
    this.latentRank = options.latentRank ?? 1;
    assertInt(this.latentRank, "option latentRank", 1, Math.floor(this.contextDim / 2));
    this.kappa = options.kappa ?? 2;
    assertPositive(this.kappa, "option kappa");
    this.querySubspace = Math.min(options.querySubspace ?? 4, this.contextDim);
    assertInt(this.querySubspace, "option querySubspace", 1, this.contextDim);
    this.queryNoise = options.queryNoise ?? 0.1;
    assertInRange(this.queryNoise, "option queryNoise", 0, 10);
    this.planted = options.planted ?? "ambient";
    if (this.planted !== "ambient" && this.planted !== "query") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option planted must be "ambient" or "query", got ${describe(this.planted)}`,
      );
    }
    if (this.planted === "query" && this.querySubspace < 2 * this.latentRank) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `planted "query" needs querySubspace >= 2 latentRank (${2 * this.latentRank})`,
      );
    }
    this.plantedScores = new Float64Array(this.models);
  }

  /** The planted W*_m as a dense d x d matrix (tests and comparators). */
  plantedMatrix(m: number): Float64Array {
    const d = this.contextDim;
    const k = 2 * this.latentRank;
    const W = new Float64Array(d * d);
    for (let i = 0; i < k; i++) {
      const l = i < this.latentRank ? 1 : -1;
      const o = (m * k + i) * d;
      for (let a = 0; a < d; a++)
        for (let b = 0; b < d; b++)
          W[a * d + b] = (W[a * d + b] as number) + l * (this.Q[o + a] as number) * (this.Q[o + b] as number);
    }
    return W;
  }

  protected build(rng: Rng): void {
    const d = this.contextDim;
    const k = 2 * this.latentRank;
    this.P = orthonormalRows(rng, this.querySubspace, d);
    this.Q = new Float64Array(this.models * k * d);
    const r = this.querySubspace;
    for (let m = 0; m < this.models; m++) {
      if (this.planted === "ambient") this.Q.set(orthonormalRows(rng, k, d), m * k * d);
      else {
        // Orthonormal combinations of the query basis: C (k x r, orthonormal rows) times P.
        const C = orthonormalRows(rng, k, r);
        for (let i = 0; i < k; i++)
          for (let j = 0; j < r; j++) {
            const c = C[i * r + j] as number;
            for (let l = 0; l < d; l++)
              this.Q[(m * k + i) * d + l] = (this.Q[(m * k + i) * d + l] as number) + c * (this.P[j * d + l] as number);
          }
      }
    }
  }

  protected drawQuery(rng: Rng, out: Float64Array): void {
    queryNearSubspace(rng, this.P, this.querySubspace, this.contextDim, this.queryNoise, out);
  }

  protected computeMeans(q: Float64Array, out: Float64Array): void {
    const d = this.contextDim;
    const k = 2 * this.latentRank;
    for (let m = 0; m < this.models; m++) {
      let s = 0;
      for (let i = 0; i < k; i++) {
        const o = (m * k + i) * d;
        let c = 0;
        for (let l = 0; l < d; l++) c += (this.Q[o + l] as number) * (q[l] as number);
        s += (i < this.latentRank ? 1 : -1) * c * c;
      }
      this.plantedScores[m] = s;
      out[m] = Math.min(1, Math.max(0, 0.5 + this.kappa * s));
    }
  }

  protected sampleReward(m: number, rng: Rng): number {
    return rng.uniform() < (this.means[m] as number) ? 1 : 0;
  }
}
