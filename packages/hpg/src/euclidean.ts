import {
  type ArmState,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  numberOption,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  restoring,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import { LowRankSymmetricEigen } from "@routekit/linalg";
import { HPG_SNAPSHOT_VERSION } from "./hpg.js";
import { checkRoutePayload, type RoutePayload, RouterBase, type RouterOptions, softmaxInto } from "./router.js";
import { l1Threshold, softThreshold } from "./threshold.js";

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
  readonly eig: LowRankSymmetricEigen;
  steps: number;
}

/**
 * Projected Euclidean policy gradient on the same log-quadratic class and nuclear balls as HPG (the key
 * ablation): W_m <- Proj_{|W|_* <= radius}(W_m + eta r (1[m = m_t] - pi_m) q q^T), the projection being
 * the l1-ball projection of the eigenvalues. Because the gradient estimates are rank one
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
  private readonly scratch: Float64Array;

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
    this.scratch = new Float64Array(Math.min(d, this.maxRank + 1));
    this.addInitialArms(options);
  }

  protected createArm(uid: number): EuclidArm {
    return { uid, eig: new LowRankSymmetricEigen(this.contextDim, Math.min(8, this.contextDim)), steps: 0 };
  }

  protected distribution(q: Float64Array, probs: Float64Array): void {
    const k = this.table.size;
    const s = this.scores;
    for (let i = 0; i < k; i++) {
      const e = (this.table.states[i] as EuclidArm).eig;
      s[i] = e.quadForm(q, e.values);
    }
    softmaxInto(s, k, probs);
  }

  protected learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
    for (let i = 0; i < p.n; i++) {
      const s = this.live(p.ids[i] as string);
      if (s === undefined) continue;
      const e = s.eig;
      e.rankOneUpdate(q, this.stepSize * reward * ((i === p.chosen ? 1 : 0) - (p.probs[i] as number)));
      softThreshold(e.values, e.rank, l1Threshold(e.values, e.rank, this.radius, this.scratch));
      for (let j = e.rank - 1; j >= 0; j--) if (e.values[j] === 0) e.remove(j);
      while (e.rank > this.maxRank) {
        let w = 0;
        for (let j = 1; j < e.rank; j++) if (Math.abs(e.values[j] as number) < Math.abs(e.values[w] as number)) w = j;
        e.remove(w);
      }
      s.steps++;
      if (this.reorthEvery > 0 && s.steps % this.reorthEvery === 0) e.reorthonormalize();
    }
  }

  protected encodeArm(s: EuclidArm): Record<string, Json> {
    const e = s.eig;
    return {
      rank: e.rank,
      steps: s.steps,
      vectors: encodeF64(e.vectors.subarray(0, e.rank * this.contextDim)),
      values: encodeF64(e.values.subarray(0, e.rank)),
    };
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
      arm: (json, d) => {
        const rank = readInt(json, "rank", 0, Math.min(d, maxRank));
        const steps = readInt(json, "steps", 0);
        const vectors = readF64(json.vectors, "arms[].vectors", rank * d);
        const values = readF64(json.values, "arms[].values", rank, (x) => x !== 0);
        let l1 = 0;
        for (const v of values) l1 += Math.abs(v);
        if (!(l1 <= radius * (1 + 1e-9)))
          snapshotCorrupt("arms[].values", `eigenvalues of l1 norm <= radius (${radius})`);
        return { rank, steps, vectors, values };
      },
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
        const s = p.createArm(uid);
        s.eig.load(a.vectors, a.values, a.rank);
        s.steps = a.steps;
        return s;
      });
      return p;
    });
  }
}
