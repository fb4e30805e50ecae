/**
 * Shared pieces of the embedding-routing environments (Dai, Golrezaei & Jaillet, "Policy Regret for
 * Embedding Model Routing"): orthonormal bases, unit-norm queries near a low-dimensional subspace, and the base class
 * that turns per-round expected rewards R_m(q) into an ArmEnvironment.
 */
import { type ArmEnvironment, type ArmFeedback, type ArmRound, assertInt, optionKeys, type Rng } from "@routekit/core";
import { armIds, needReset, unknownArm } from "../basic/common.js";

/** k orthonormal rows of length d (Gram-Schmidt of Gaussian rows, applied twice), row-major k x d. */
export function orthonormalRows(rng: Rng, k: number, d: number): Float64Array {
  const B = new Float64Array(k * d);
  for (let i = 0; i < k; i++) {
    const o = i * d;
    for (;;) {
      for (let l = 0; l < d; l++) B[o + l] = rng.normal();
      for (let pass = 0; pass < 2; pass++) {
        for (let j = 0; j < i; j++) {
          let s = 0;
          for (let l = 0; l < d; l++) s += (B[j * d + l] as number) * (B[o + l] as number);
          for (let l = 0; l < d; l++) B[o + l] = (B[o + l] as number) - s * (B[j * d + l] as number);
        }
      }
      let n = 0;
      for (let l = 0; l < d; l++) n += (B[o + l] as number) ** 2;
      n = Math.sqrt(n);
      if (n > 1e-8) {
        for (let l = 0; l < d; l++) B[o + l] = (B[o + l] as number) / n;
        break;
      }
    }
  }
  return B;
}

/** Scales x to unit Euclidean norm in place (a zero vector becomes e_1). */
export function normalize(x: Float64Array): Float64Array {
  let n = 0;
  for (let i = 0; i < x.length; i++) n += (x[i] as number) ** 2;
  if (n === 0) {
    x[0] = 1;
    return x;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) / n;
  return x;
}

/**
 * Writes q = normalise(P u + N(0, noiseSd^2 I_d)) into `out`, u uniform on the unit sphere of the
 * r-dimensional subspace spanned by the rows of P (r x d).
 */
export function queryNearSubspace(
  rng: Rng,
  P: Float64Array,
  r: number,
  d: number,
  noiseSd: number,
  out: Float64Array,
): void {
  let un = 0;
  const u = new Float64Array(r);
  for (let i = 0; i < r; i++) {
    const v = rng.normal();
    u[i] = v;
    un += v * v;
  }
  un = Math.sqrt(un);
  for (let l = 0; l < d; l++) out[l] = noiseSd * rng.normal();
  for (let i = 0; i < r; i++) {
    const c = (u[i] as number) / un;
    for (let l = 0; l < d; l++) out[l] = (out[l] as number) + c * (P[i * d + l] as number);
  }
  normalize(out);
}

export interface RoutingEnvironmentOptions {
  /** Query embedding dimension d (>= 2). */
  readonly contextDim: number;
  /** Number of embedding models M (default 4). */
  readonly models?: number;
  /** Model ids (default "model0".."model{M-1}"). */
  readonly arms?: readonly string[];
  /** Queries drawn at reset to find the best fixed model (default 4,000). */
  readonly mcSamples?: number;
  readonly name?: string;
}

/** The option keys of {@link RoutingEnvironmentOptions}. */
export const ROUTING_ENVIRONMENT_OPTION_KEYS = optionKeys<RoutingEnvironmentOptions>()([
  "contextDim",
  "models",
  "arms",
  "mcSamples",
  "name",
]);

/**
 * An arm environment whose round is a unit-norm query q and whose arms are M embedding models with
 * expected rewards R_m(q), computed exactly each round. Streams: "model" (the instance), "queries",
 * "feedback" and "mc" (the best-fixed-model sample), forked from the reset rng.
 */
export abstract class RoutingEnvironment implements ArmEnvironment {
  readonly name: string;
  readonly contextDim: number;
  readonly initialArms: readonly string[];
  readonly models: number;
  readonly mcSamples: number;
  /** R_m(q) of the current round, by model index. */
  readonly means: Float64Array;
  protected readonly index = new Map<string, number>();
  protected queries: Rng | undefined;
  protected feedback: Rng | undefined;
  protected query: Float64Array;
  private bestFixed = 0;
  private oracle = 0;

  protected constructor(options: RoutingEnvironmentOptions, defaultName: string) {
    assertInt(options.contextDim, "option contextDim", 2, 1 << 14);
    this.contextDim = options.contextDim;
    const m = options.arms?.length ?? options.models ?? 4;
    assertInt(m, "option models", 2, 1024);
    this.models = m;
    this.initialArms = armIds(options.arms ?? Array.from({ length: m }, (_, i) => `model${i}`), m, "option arms");
    for (let i = 0; i < m; i++) this.index.set(this.initialArms[i] as string, i);
    this.mcSamples = options.mcSamples ?? 4000;
    assertInt(this.mcSamples, "option mcSamples", 1, 10_000_000);
    this.name = options.name ?? defaultName;
    this.means = new Float64Array(m);
    this.query = new Float64Array(this.contextDim);
  }

  reset(rng: Rng): void {
    this.build(rng.fork("model"));
    const mc = rng.fork("mc");
    const totals = new Float64Array(this.models);
    for (let i = 0; i < this.mcSamples; i++) {
      this.drawQuery(mc, this.query);
      this.computeMeans(this.query, this.means);
      for (let m = 0; m < this.models; m++) totals[m] = (totals[m] as number) + (this.means[m] as number);
    }
    let b = 0;
    for (let m = 1; m < this.models; m++) if ((totals[m] as number) > (totals[b] as number)) b = m;
    this.bestFixed = b;
    this.queries = rng.fork("queries");
    this.feedback = rng.fork("feedback");
  }

  next(_t: number): ArmRound {
    needReset(this.queries !== undefined, this.name);
    const q = new Float64Array(this.contextDim);
    this.drawQuery(this.queries as Rng, q);
    this.query = q;
    this.computeMeans(q, this.means);
    let b = 0;
    for (let m = 1; m < this.models; m++) if ((this.means[m] as number) > (this.means[b] as number)) b = m;
    this.oracle = this.means[b] as number;
    return { context: q };
  }

  /**
   * n fresh queries (row-major n x d) and their exact expected rewards (n x M), from `rng`, without
   * touching the round state: the data of an offline class fit. Call after reset.
   */
  sampleTable(n: number, rng: Rng): { readonly queries: Float64Array; readonly rewards: Float64Array } {
    assertInt(n, "n", 1, 10_000_000);
    const d = this.contextDim;
    const M = this.models;
    const queries = new Float64Array(n * d);
    const rewards = new Float64Array(n * M);
    const q = new Float64Array(d);
    const r = new Float64Array(M);
    const saved = this.means.slice();
    for (let i = 0; i < n; i++) {
      this.drawQuery(rng, q);
      this.computeMeans(q, r);
      queries.set(q, i * d);
      rewards.set(r, i * M);
    }
    this.computeMeans(this.query, this.means);
    this.means.set(saved);
    return { queries, rewards };
  }

  /** The current round's query (the context returned by `next`). */
  get currentQuery(): Float64Array {
    return this.query;
  }

  expectedReward(arm: string): number {
    return this.means[this.armIndex(arm)] as number;
  }
  expectedCost(arm: string): number {
    this.armIndex(arm);
    return 0;
  }
  oracleReward(): number {
    return this.oracle;
  }
  bestFixedArm(): string {
    return this.initialArms[this.bestFixed] as string;
  }
  bestFixedReward(): number {
    return this.means[this.bestFixed] as number;
  }
  isOptimal(arm: string): boolean {
    return (this.means[this.armIndex(arm)] as number) >= this.oracle;
  }
  pull(arm: string): ArmFeedback {
    const m = this.armIndex(arm);
    needReset(this.feedback !== undefined, this.name);
    return { reward: this.sampleReward(m, this.feedback as Rng) };
  }

  protected armIndex(arm: string): number {
    const i = this.index.get(arm);
    if (i === undefined) throw unknownArm(arm, this.initialArms);
    return i;
  }

  /** Draws the instance (weights, items, ...). */
  protected abstract build(rng: Rng): void;
  /** Writes a fresh unit-norm query. */
  protected abstract drawQuery(rng: Rng, out: Float64Array): void;
  /** Writes R_m(q) for every model. */
  protected abstract computeMeans(q: Float64Array, out: Float64Array): void;
  /** A realised reward of model m for the current query. */
  protected abstract sampleReward(m: number, rng: Rng): number;
}
