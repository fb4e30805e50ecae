/**
 * What the routers with a low-rank matrix per model share (HPG, parameter-free HPG, Euclidean PG): a
 * {@link MirrorIterate} per model, the options horizon / stepSize / maxRank / reorthEvery (read, kept
 * and snapshotted the same way), the log-quadratic scores q^T W_m q, and the round's update of every
 * live model with the rank-one gradient estimate.
 */
import {
  type ArmBaseSnapshot,
  type ArmState,
  field,
  type Json,
  numberOption,
  optionKeys,
  readInt,
  readNumber,
  readOptions,
} from "@routekit/core";
import { encodeIterateUnchecked, type IterateData, softmaxIntoUnchecked } from "./helpers-core.js";
import { loadIterate } from "./hpg-snapshot.js";
import type { MirrorIterate } from "./mirror.js";
import { ROUTER_OPTION_KEYS, type RoutePayload, RouterBase, type RouterOptions } from "./router.js";

export interface LowRankRouterOptions extends RouterOptions {
  readonly contextDim: number;
  /** Planned number of rounds T, used by the default step size (default 10,000). */
  readonly horizon?: number;
  readonly stepSize?: number;
  /** Largest rank kept per model (default min(contextDim, 32)); exact when >= contextDim. */
  readonly maxRank?: number;
  /** Steps between re-orthonormalisations of each model's eigenvectors (default 1,000; 0 = never). */
  readonly reorthEvery?: number;
}

/** The option keys of {@link LowRankRouterOptions}. */
export const LOW_RANK_ROUTER_OPTION_KEYS = optionKeys<LowRankRouterOptions>()([
  ...ROUTER_OPTION_KEYS,
  "horizon",
  "stepSize",
  "maxRank",
  "reorthEvery",
]);

export interface LowRankArm extends ArmState {
  readonly iterate: MirrorIterate;
}

/** The options every low-rank router snapshot keeps, as read back by {@link readLowRankState}. */
export interface LowRankState {
  readonly horizon: number;
  readonly stepSize: number;
  readonly maxRank: number;
  readonly reorthEvery: number;
  readonly normalizeContext: boolean;
  readonly clipRewards: boolean;
}

export abstract class LowRankRouter<S extends LowRankArm> extends RouterBase<S> {
  readonly horizon: number;
  readonly maxRank: number;
  readonly reorthEvery: number;
  /** Set by the subclass constructor (its default depends on the subclass's own options). */
  abstract readonly stepSize: number;

  protected constructor(options: LowRankRouterOptions, auxPerArm: number, kind: string) {
    super(options, auxPerArm, kind);
    const o = readOptions(options, kind);
    // Integers above 2^53 - 1 are not exact doubles, and a snapshot could not hold them.
    const max = Number.MAX_SAFE_INTEGER;
    this.horizon = numberOption(o, "horizon", 10_000, { integer: true, min: 1, max });
    this.maxRank = numberOption(o, "maxRank", Math.min(this.contextDim, 32), { integer: true, min: 1, max });
    this.reorthEvery = numberOption(o, "reorthEvery", 1000, { integer: true, min: 0, max });
  }

  /** Reads the step size option with the subclass's default. */
  protected readStepSize(options: LowRankRouterOptions, kind: string, fallback: number): number {
    return numberOption(readOptions(options, kind), "stepSize", fallback, { min: 0, openMin: true });
  }

  protected createArm(uid: number): S {
    return { uid, iterate: this.newIterate() } as S;
  }

  /** A fresh iterate with this router's geometry, ball and rank cap. */
  protected abstract newIterate(): MirrorIterate;

  protected distribution(q: Float64Array, probs: Float64Array, _aux: Float64Array): void {
    const k = this.table.size;
    const s = this.scores;
    for (let i = 0; i < k; i++) s[i] = (this.table.states[i] as S).iterate.score(q);
    softmaxIntoUnchecked(s, k, probs);
  }

  /** Every live model of the decision steps along its estimate -r (1[m = m_t] - pi_m) q q^T. */
  protected learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
    const eta = this.stepSize;
    for (let i = 0; i < p.n; i++) {
      const s = this.live(p.ids[i] as string);
      if (s === undefined) continue;
      s.iterate.step(q, eta * reward * ((i === p.chosen ? 1 : 0) - (p.probs[i] as number)));
    }
  }

  /** Restores the arms of a snapshot whose per-arm data is one iterate each (read by readIterate). */
  protected restoreIterates(snap: ArmBaseSnapshot<IterateData>): void {
    this.restoreBase(snap, (a, uid) => {
      const s = this.createArm(uid);
      loadIterate(s.iterate, a);
      return s;
    });
  }

  protected encodeArm(s: S): Record<string, Json> {
    return encodeIterateUnchecked(s.iterate);
  }

  /** horizon, stepSize, maxRank, reorthEvery, normalizeContext, clipRewards (snapshot order). */
  protected lowRankState(): Record<string, Json> {
    return {
      horizon: this.horizon,
      stepSize: this.stepSize,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
    };
  }
}

/** The fields of `LowRankRouter.lowRankState` from a snapshot's state (SNAPSHOT_CORRUPT otherwise). */
export function readLowRankState(st: Record<string, Json>): LowRankState {
  return {
    stepSize: readNumber(st, "stepSize", (v) => v > 0, "a number > 0"),
    horizon: readInt(st, "horizon", 1),
    maxRank: readInt(st, "maxRank", 1),
    reorthEvery: readInt(st, "reorthEvery", 0),
    normalizeContext: field(st, "normalizeContext", "boolean"),
    clipRewards: field(st, "clipRewards", "boolean"),
  };
}
