import {
  checkNumber,
  MAX_CONTEXT_DIM,
  makeSnapshot,
  numberOption,
  optionKeys,
  readArmBaseState,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
} from "@routekit/core";
import { checkRoutePayloadUnchecked, hpgStepSizeUnchecked, readIterateUnchecked } from "./helpers-core.js";
import { HPG_SNAPSHOT_VERSION } from "./hpg-snapshot.js";
import {
  LOW_RANK_ROUTER_OPTION_KEYS,
  type LowRankArm,
  LowRankRouter,
  type LowRankRouterOptions,
  readLowRankState,
} from "./low-rank.js";
import { MirrorIterate } from "./mirror.js";

export interface HpgOptions extends LowRankRouterOptions {
  /** Query embedding length d (>= 1). */
  readonly contextDim: number;
  /** Latent rank s of the experts (default 1); sets the default radius 2s. */
  readonly latentRank?: number;
  /** Nuclear-norm ball radius tau of each model's matrix (default 2 * latentRank); caps |q^T W q| <= tau. */
  readonly radius?: number;
  /** Hypentropy scale beta > 0 (default radius / contextDim). */
  readonly beta?: number;
  /** Mirror-descent step eta (default sqrt(M ln max(d, 3) / horizon), M = initial model count, at least 2). */
  readonly stepSize?: number;
}

/** The option keys of {@link HpgOptions}. */
export const HPG_OPTION_KEYS = optionKeys<HpgOptions>()([
  ...LOW_RANK_ROUTER_OPTION_KEYS,
  "latentRank",
  "radius",
  "beta",
]);

/**
 * The default step size of the paper's Theorem 3 (whose other defaults are radius 2s and beta = radius / d):
 * eta = sqrt(M ln max(d, 3) / T) with M = max(2, models). `models` is an integer >= 0, `dim` one in [1, 65536] and
 * `horizon` one >= 1 (INVALID_ARGUMENT, NON_FINITE, OUT_OF_RANGE).
 */
export function hpgStepSize(models: number, dim: number, horizon: number): number {
  const m = checkNumber(models, "models", { integer: true, min: 0 });
  const d = checkNumber(dim, "dim", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
  const t = checkNumber(horizon, "horizon", { integer: true, min: 1 });
  return hpgStepSizeUnchecked(m, d, t);
}

/**
 * Hypentropy Policy Gradient (Dai, Golrezaei & Jaillet, "Policy Regret for Embedding Model Routing",
 * Algorithm 1). Routes query q to model m with probability pi(m | q) ∝ exp(q^T W_m q); after the reward
 * r of the chosen model m_t, every model takes one online-mirror-descent step with the unbiased
 * rank-one gradient estimate G_m = -r (1[m = m_t] - pi_m) q q^T under the matrix hypentropy over its
 * nuclear-norm ball {|W_m|_* <= radius}. Each W_m is kept as the eigendecomposition of its mirror
 * matrix (the paper's §5.1), so a round costs O(M (d r + k^2 r)) at rank k <= maxRank.
 */
export class Hpg extends LowRankRouter<LowRankArm> {
  static readonly kind = "hpg/hpg";
  readonly kind = Hpg.kind;
  readonly latentRank: number;
  readonly radius: number;
  readonly beta: number;
  readonly stepSize: number;

  constructor(options: HpgOptions) {
    rejectUnknownOptions(options, HPG_OPTION_KEYS, Hpg.kind);
    super(options, 0, Hpg.kind);
    const o = readOptions(options, Hpg.kind);
    const d = this.contextDim;
    this.latentRank = numberOption(o, "latentRank", 1, { integer: true, min: 1, max: d });
    this.radius = numberOption(o, "radius", 2 * this.latentRank, { min: 0, openMin: true });
    // The default never underflows to 0 (a radius near the smallest double would give beta = 0, which no
    // snapshot accepts): it is at least the smallest positive double.
    this.beta = numberOption(o, "beta", Math.max(this.radius / d, Number.MIN_VALUE), { min: 0, openMin: true });
    const m = Array.isArray(o.arms) ? (o.arms as unknown[]).length : 0;
    this.stepSize = this.readStepSize(options, Hpg.kind, hpgStepSizeUnchecked(m, d, this.horizon));
    this.addInitialArms(options);
  }

  /** The current W_m of model `id` as a dense d x d matrix (diagnostics). */
  weights(id: string): Float64Array {
    return this.table.get(id).iterate.toDense();
  }

  /** Rank and nuclear norm of every model's iterate, in `arms` order. */
  spectra(): { readonly arm: string; readonly rank: number; readonly nuclearNorm: number }[] {
    return this.table.ids.map((arm, i) => {
      const it = (this.table.states[i] as LowRankArm).iterate;
      return { arm, rank: it.rank, nuclearNorm: it.nuclearNorm() };
    });
  }

  protected newIterate(): MirrorIterate {
    return new MirrorIterate({
      dim: this.contextDim,
      beta: this.beta,
      radius: this.radius,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
    });
  }

  toJSON(): Snapshot {
    return makeSnapshot(Hpg.kind, HPG_SNAPSHOT_VERSION, {
      latentRank: this.latentRank,
      radius: this.radius,
      beta: this.beta,
      ...this.lowRankState(),
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): Hpg {
    const st = readSnapshot(snapshot, Hpg.kind, HPG_SNAPSHOT_VERSION);
    const pos = (v: number) => v > 0;
    const radius = readNumber(st, "radius", pos, "a number > 0");
    const beta = readNumber(st, "beta", pos, "a number > 0");
    const common = readLowRankState(st);
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => readIterateUnchecked(json, d, Math.min(d, common.maxRank), beta, radius),
      payload: (json, d) => checkRoutePayloadUnchecked(json, d, 0),
    });
    const latentRank = readInt(st, "latentRank", 1, snap.contextDim);
    return restoring(Hpg.kind, () => {
      const p = new Hpg({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        latentRank,
        radius,
        beta,
        ...common,
      });
      p.restoreIterates(snap);
      return p;
    });
  }
}
