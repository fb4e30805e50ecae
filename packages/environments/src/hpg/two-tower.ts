import { assertInRange, assertInt, assertPositive, optionKeys, type Rng, rejectUnknownOptions } from "@routekit/core";
import {
  normalize,
  orthonormalRows,
  queryNearSubspace,
  ROUTING_ENVIRONMENT_OPTION_KEYS,
  RoutingEnvironment,
  type RoutingEnvironmentOptions,
} from "./common.js";

/** Largest rank of the relevance kernel Psi*. */
const PSI_RANK = 32;

export interface TwoTowerOptions extends RoutingEnvironmentOptions {
  /** Item embedding dimension d_a (default contextDim). */
  readonly itemDim?: number;
  /** Number of items N (default 256). */
  readonly items?: number;
  /** Latent dimension s of each model's towers (default 2). */
  readonly latentRank?: number;
  /** Sharpness alpha of each model's item distribution (default 6). */
  readonly sharpness?: number;
  /** Dimension of the query subspace (default M * s, capped at contextDim). */
  readonly querySubspace?: number;
  /** Standard deviation of the isotropic query noise before normalisation (default 0.1). */
  readonly queryNoise?: number;
  /** Half-width of the uniform reward noise (default 0.1); rewards are clipped to [-1, 1]. */
  readonly rewardNoise?: number;
}

/** The option keys of {@link TwoTowerOptions}. */
export const TWO_TOWER_OPTION_KEYS = optionKeys<TwoTowerOptions>()([
  ...ROUTING_ENVIRONMENT_OPTION_KEYS,
  "itemDim",
  "items",
  "latentRank",
  "sharpness",
  "querySubspace",
  "queryNoise",
  "rewardNoise",
]);

/**
 * The two-tower retrieval environment of the paper's §2 (its generative model): N items on the unit
 * sphere of R^{d_a}; the user's relevance r(q, a) = a^T Psi* q with a random Psi* of spectral norm 1 and rank min(d, d_a, 32);
 * model m retrieves a ~ xi_m(. | q) proportional to exp(alpha a^T V_m^T U_m q) with rank-s towers, U_m
 * reading its own block of the query subspace (the models specialise); R_m(q) = E_{a ~ xi_m} a^T Psi* q
 * is computed exactly by summing over items. A round's reward is r(q, a) for one sampled item plus
 * uniform noise, clipped to [-1, 1]. By the paper's Proposition 1, R_m(q) is close to a quadratic form
 * in q, so the best model depends on q quadratically.
 */
export class TwoTowerEnvironment extends RoutingEnvironment {
  readonly itemDim: number;
  readonly items: number;
  readonly latentRank: number;
  readonly sharpness: number;
  readonly querySubspace: number;
  readonly queryNoise: number;
  readonly rewardNoise: number;
  /** N x d_a item embeddings. */
  private A: Float64Array = new Float64Array(0);
  /** Psi* = L^T diag(sigma) R: the item codes A L^T (N x r), sigma (r) and R (r x d). */
  private itemPsi: Float64Array = new Float64Array(0);
  private sigma: Float64Array = new Float64Array(0);
  private R: Float64Array = new Float64Array(0);
  /** Per model: N x s item codes alpha V_m a. */
  private itemCodes: Float64Array = new Float64Array(0);
  /** Per model: s x d query tower U_m. */
  private U: Float64Array = new Float64Array(0);
  private P: Float64Array = new Float64Array(0);
  /** Current round: relevance a^T Psi* q of every item, and every model's item distribution (M x N). */
  private readonly relevance: Float64Array;
  private readonly xi: Float64Array;
  private readonly psiq: Float64Array;
  private readonly code: Float64Array;

  constructor(options: TwoTowerOptions) {
    rejectUnknownOptions(options, TWO_TOWER_OPTION_KEYS, "TwoTowerEnvironment");
    super(options, "hpg-two-tower");
    this.itemDim = options.itemDim ?? this.contextDim;
    assertInt(this.itemDim, "option itemDim", 2, 1 << 14);
    this.items = options.items ?? 256;
    assertInt(this.items, "option items", 2, 1 << 20);
    this.latentRank = options.latentRank ?? 2;
    assertInt(this.latentRank, "option latentRank", 1, Math.min(this.contextDim, this.itemDim));
    this.sharpness = options.sharpness ?? 6;
    assertPositive(this.sharpness, "option sharpness");
    this.querySubspace = Math.min(options.querySubspace ?? this.models * this.latentRank, this.contextDim);
    assertInt(this.querySubspace, "option querySubspace", 1, this.contextDim);
    this.queryNoise = options.queryNoise ?? 0.1;
    assertInRange(this.queryNoise, "option queryNoise", 0, 10);
    this.rewardNoise = options.rewardNoise ?? 0.1;
    assertInRange(this.rewardNoise, "option rewardNoise", 0, 1);
    this.relevance = new Float64Array(this.items);
    this.xi = new Float64Array(this.models * this.items);
    this.psiq = new Float64Array(this.itemDim);
    this.code = new Float64Array(this.latentRank);
  }

  protected build(rng: Rng): void {
    const d = this.contextDim;
    const da = this.itemDim;
    const N = this.items;
    const s = this.latentRank;
    this.A = new Float64Array(N * da);
    const row = new Float64Array(da);
    for (let i = 0; i < N; i++) {
      for (let l = 0; l < da; l++) row[l] = rng.normal();
      this.A.set(normalize(row), i * da);
    }
    // Psi* = sum_k sigma_k l_k r_k^T of rank r = min(d, d_a, 32), sigma_1 = 1 >= sigma_k ~ U(0, 1):
    // spectral norm exactly 1; kept factored, with the items' codes A L^T precomputed.
    const r = Math.min(d, da, PSI_RANK);
    const L = orthonormalRows(rng, r, da);
    this.R = orthonormalRows(rng, r, d);
    this.sigma = new Float64Array(r);
    for (let k = 0; k < r; k++) this.sigma[k] = k === 0 ? 1 : rng.uniform();
    this.itemPsi = new Float64Array(N * r);
    for (let j = 0; j < N; j++)
      for (let k = 0; k < r; k++) {
        let c = 0;
        for (let a = 0; a < da; a++) c += (this.A[j * da + a] as number) * (L[k * da + a] as number);
        this.itemPsi[j * r + k] = c;
      }
    this.P = orthonormalRows(rng, this.querySubspace, d);
    this.U = new Float64Array(this.models * s * d);
    this.itemCodes = new Float64Array(this.models * N * s);
    for (let m = 0; m < this.models; m++) {
      // U_m: s rows of the query subspace, model m's own block when there is room, else random mixes.
      for (let i = 0; i < s; i++) {
        const blk = (m * s + i) % this.querySubspace;
        this.U.set(this.P.subarray(blk * d, blk * d + d), (m * s + i) * d);
      }
      const V = orthonormalRows(rng, s, da);
      for (let j = 0; j < N; j++)
        for (let i = 0; i < s; i++) {
          let c = 0;
          for (let l = 0; l < da; l++) c += (V[i * da + l] as number) * (this.A[j * da + l] as number);
          this.itemCodes[(m * N + j) * s + i] = this.sharpness * c;
        }
    }
  }

  protected drawQuery(rng: Rng, out: Float64Array): void {
    queryNearSubspace(rng, this.P, this.querySubspace, this.contextDim, this.queryNoise, out);
  }

  protected computeMeans(q: Float64Array, out: Float64Array): void {
    const d = this.contextDim;
    const N = this.items;
    const s = this.latentRank;
    const r = this.sigma.length;
    for (let k = 0; k < r; k++) {
      let c = 0;
      for (let b = 0; b < d; b++) c += (this.R[k * d + b] as number) * (q[b] as number);
      this.psiq[k] = (this.sigma[k] as number) * c;
    }
    for (let j = 0; j < N; j++) {
      let c = 0;
      for (let k = 0; k < r; k++) c += (this.itemPsi[j * r + k] as number) * (this.psiq[k] as number);
      this.relevance[j] = c;
    }
    for (let m = 0; m < this.models; m++) {
      for (let i = 0; i < s; i++) {
        let c = 0;
        const o = (m * s + i) * d;
        for (let l = 0; l < d; l++) c += (this.U[o + l] as number) * (q[l] as number);
        this.code[i] = c;
      }
      let mx = Number.NEGATIVE_INFINITY;
      const base = m * N;
      for (let j = 0; j < N; j++) {
        let z = 0;
        for (let i = 0; i < s; i++) z += (this.itemCodes[(base + j) * s + i] as number) * (this.code[i] as number);
        this.xi[base + j] = z;
        if (z > mx) mx = z;
      }
      let tot = 0;
      for (let j = 0; j < N; j++) {
        const e = Math.exp((this.xi[base + j] as number) - mx);
        this.xi[base + j] = e;
        tot += e;
      }
      let r = 0;
      for (let j = 0; j < N; j++) {
        const p = (this.xi[base + j] as number) / tot;
        this.xi[base + j] = p;
        r += p * (this.relevance[j] as number);
      }
      out[m] = r;
    }
  }

  protected sampleReward(m: number, rng: Rng): number {
    const N = this.items;
    let u = rng.uniform();
    let j = N - 1;
    for (let i = 0; i < N; i++) {
      u -= this.xi[m * N + i] as number;
      if (u < 0) {
        j = i;
        break;
      }
    }
    const r = (this.relevance[j] as number) + this.rewardNoise * (2 * rng.uniform() - 1);
    return Math.max(-1, Math.min(1, r));
  }
}
