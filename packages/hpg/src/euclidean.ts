import {
  type ArmState,
  field,
  type Json,
  makeSnapshot,
  numberOption,
  readArmBaseState,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  restoring,
  type Snapshot,
} from "@routekit/core";
import { encodeIterate, HPG_SNAPSHOT_VERSION, loadIterate, readIterate } from "./hpg.js";
import { MirrorIterate } from "./mirror.js";
import { checkRoutePayload, type RoutePayload, RouterBase, type RouterOptions, softmaxInto } from "./router.js";

export interface EuclideanPgOptions extends RouterOptions {
  readonly contextDim: number;
  /** Latent rank s (default 1); sets the default radius 2s. */
  readonly latentRank?: number;
  /** Nuclear-norm ball radius tau (default 2 * latentRank). */
  readonly radius?: number;
  /** Planned number of rounds T (default 10,000). */
  readonly horizon?: number;
  /** Gradient step (default radius sqrt(M / (2 horizon)), which gives the bound radius sqrt(2 M T)). */
  readonly stepSize?: number;
  /** Largest rank kept per model (default min(contextDim, 32)). */
  readonly maxRank?: number;
  /** Steps between re-orthonormalisations (default 1,000; 0 = never). */
  readonly reorthEvery?: number;
}

interface EuclidArm extends ArmState {
  /** The iterate in the Euclidean geometry (mirror map = identity), factored like HPG's. */
  readonly iterate: MirrorIterate;
}

/**
 * Projected Euclidean policy gradient on the same log-quadratic class and nuclear balls as HPG (the key
 * ablation): W_m <- Proj_{|W|_* <= radius}(W_m + eta r (1[m = m_t] - pi_m) q q^T), the projection being
 * the l1-ball projection of the eigenvalues (a soft threshold, as HPG's projection is of the mirror
 * spectrum, so it runs on the same factored rank-one eigen-update). Because the gradient estimates are rank one
 * (|G|_F = |G|_2) and |W*|_F <= |W*|_*, it also has a dimension-free linearized-regret bound,
 * radius sqrt(2 M T); on small d it can beat HPG.
 */
export class EuclideanPg extends RouterBase<EuclidArm> {
  static readonly kind = "hpg/euclidean-pg";
  readonly kind = EuclideanPg.kind;
  readonly latentRank: number;
  readonly radius: number;
  readonly horizon: number;
  readonly stepSize: number;
  readonly maxRank: number;
  readonly reorthEvery: number;

  constructor(options: EuclideanPgOptions) {
    super(options, 0, EuclideanPg.kind);
    const o = readOptions(options, EuclideanPg.kind);
    const d = this.contextDim;
    this.latentRank = numberOption(o, "latentRank", 1, { integer: true, min: 1, max: d });
    this.radius = numberOption(o, "radius", 2 * this.latentRank, { min: 0, openMin: true });
    this.horizon = numberOption(o, "horizon", 10_000, { integer: true, min: 1 });
    const m = Math.max(2, Array.isArray(o.arms) ? (o.arms as unknown[]).length : 0);
    this.stepSize = numberOption(o, "stepSize", this.radius * Math.sqrt(m / (2 * this.horizon)), {
      min: 0,
      openMin: true,
    });
    this.maxRank = numberOption(o, "maxRank", Math.min(d, 32), { integer: true, min: 1 });
    this.reorthEvery = numberOption(o, "reorthEvery", 1000, { integer: true, min: 0 });
    this.addInitialArms(options);
  }

  protected createArm(uid: number): EuclidArm {
    return { uid, iterate: this.newIterate() };
  }

  private newIterate(): MirrorIterate {
    return new MirrorIterate({
      dim: this.contextDim,
      beta: 1,
      geometry: "euclidean",
      radius: this.radius,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
    });
  }

  protected distribution(q: Float64Array, probs: Float64Array): void {
    const k = this.table.size;
    const s = this.scores;
    for (let i = 0; i < k; i++) s[i] = (this.table.states[i] as EuclidArm).iterate.score(q);
    softmaxInto(s, k, probs);
  }

  protected learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
    for (let i = 0; i < p.n; i++) {
      const s = this.live(p.ids[i] as string);
      if (s === undefined) continue;
      s.iterate.step(q, this.stepSize * reward * ((i === p.chosen ? 1 : 0) - (p.probs[i] as number)));
    }
  }

  protected encodeArm(s: EuclidArm): Record<string, Json> {
    return encodeIterate(s.iterate);
  }

  toJSON(): Snapshot {
    return makeSnapshot(EuclideanPg.kind, HPG_SNAPSHOT_VERSION, {
      latentRank: this.latentRank,
      radius: this.radius,
      horizon: this.horizon,
      stepSize: this.stepSize,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): EuclideanPg {
    const st = readSnapshot(snapshot, EuclideanPg.kind, HPG_SNAPSHOT_VERSION);
    const pos = (v: number) => v > 0;
    const radius = readNumber(st, "radius", pos, "a number > 0");
    const stepSize = readNumber(st, "stepSize", pos, "a number > 0");
    const horizon = readInt(st, "horizon", 1);
    const maxRank = readInt(st, "maxRank", 1);
    const reorthEvery = readInt(st, "reorthEvery", 0);
    const normalizeContext = field(st, "normalizeContext", "boolean");
    const clipRewards = field(st, "clipRewards", "boolean");
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => readIterate(json, d, Math.min(d, maxRank), 1, radius, "euclidean"),
      payload: (json, d) => checkRoutePayload(json, d, 0),
    });
    const latentRank = readInt(st, "latentRank", 1, snap.contextDim);
    return restoring(EuclideanPg.kind, () => {
      const p = new EuclideanPg({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        latentRank,
        radius,
        horizon,
        stepSize,
        maxRank,
        reorthEvery,
        normalizeContext,
        clipRewards,
      });
      p.restoreBase(snap, (a, uid) => {
        const iterate = p.newIterate();
        loadIterate(iterate, a);
        return { uid, iterate };
      });
      return p;
    });
  }
}
