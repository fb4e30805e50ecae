import {
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
import { checkRoutePayloadUnchecked, initialModelCountUnchecked, readIterateUnchecked } from "./helpers-core.js";
import { HPG_SNAPSHOT_VERSION } from "./hpg-snapshot.js";
import {
  LOW_RANK_ROUTER_OPTION_KEYS,
  type LowRankArm,
  LowRankRouter,
  type LowRankRouterOptions,
  readLowRankState,
} from "./low-rank.js";
import { MirrorIterate } from "./mirror.js";

export interface EuclideanPgOptions extends LowRankRouterOptions {
  readonly contextDim: number;
  /** Latent rank s (default 1); sets the default radius 2s. */
  readonly latentRank?: number;
  /** Nuclear-norm ball radius tau (default 2 * latentRank). */
  readonly radius?: number;
  /** Gradient step (default radius sqrt(M / (2 horizon)), which gives the bound radius sqrt(2 M T)). */
  readonly stepSize?: number;
}

/** The option keys of {@link EuclideanPgOptions}. */
export const EUCLIDEAN_PG_OPTION_KEYS = optionKeys<EuclideanPgOptions>()([
  ...LOW_RANK_ROUTER_OPTION_KEYS,
  "latentRank",
  "radius",
]);

/**
 * Projected Euclidean policy gradient on the same log-quadratic class and nuclear balls as HPG (the key
 * ablation): W_m <- Proj_{|W|_* <= radius}(W_m + eta r (1[m = m_t] - pi_m) q q^T), the projection being
 * the l1-ball projection of the eigenvalues (a soft threshold, as HPG's projection is of the mirror
 * spectrum, so it runs on the same factored rank-one eigen-update). Because the gradient estimates are
 * rank one (|G|_F = |G|_2) and |W*|_F <= |W*|_*, it also has a dimension-free linearized-regret bound,
 * radius sqrt(2 M T); on small d it can beat HPG.
 */
export class EuclideanPg extends LowRankRouter<LowRankArm> {
  static readonly kind = "hpg/euclidean-pg";
  readonly kind = EuclideanPg.kind;
  readonly latentRank: number;
  readonly radius: number;
  readonly stepSize: number;

  constructor(options: EuclideanPgOptions) {
    rejectUnknownOptions(options, EUCLIDEAN_PG_OPTION_KEYS, EuclideanPg.kind);
    super(options, 0, EuclideanPg.kind);
    const o = readOptions(options, EuclideanPg.kind);
    this.latentRank = numberOption(o, "latentRank", 1, { integer: true, min: 1, max: this.contextDim });
    this.radius = numberOption(o, "radius", 2 * this.latentRank, { min: 0, openMin: true });
    const m = initialModelCountUnchecked(o);
    // At least the smallest positive double: a radius near it must not give a step of 0.
    const step = Math.max(this.radius * Math.sqrt(m / (2 * this.horizon)), Number.MIN_VALUE);
    this.stepSize = this.readStepSize(options, EuclideanPg.kind, step);
    this.addInitialArms(options);
  }

  protected newIterate(): MirrorIterate {
    return new MirrorIterate({
      dim: this.contextDim,
      beta: 1,
      geometry: "euclidean",
      radius: this.radius,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
    });
  }

  toJSON(): Snapshot {
    return makeSnapshot(EuclideanPg.kind, HPG_SNAPSHOT_VERSION, {
      latentRank: this.latentRank,
      radius: this.radius,
      ...this.lowRankState(),
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): EuclideanPg {
    const st = readSnapshot(snapshot, EuclideanPg.kind, HPG_SNAPSHOT_VERSION);
    const radius = readNumber(st, "radius", (v) => v > 0, "a number > 0");
    const common = readLowRankState(st);
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => readIterateUnchecked(json, d, Math.min(d, common.maxRank), 1, radius, "euclidean"),
      payload: (json, d) => checkRoutePayloadUnchecked(json, d, 0),
    });
    const latentRank = readInt(st, "latentRank", 1, snap.contextDim);
    return restoring(EuclideanPg.kind, () => {
      const p = new EuclideanPg({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        latentRank,
        radius,
        ...common,
      });
      p.restoreIterates(snap);
      return p;
    });
  }
}
