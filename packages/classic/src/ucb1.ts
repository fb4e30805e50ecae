import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  makeSnapshot,
  numberOption,
  optionKeys,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  type Snapshot,
} from "@routekit/core";
import { argmaxRandomTie, type BasePolicyOptions, CLASSIC_SNAPSHOT_VERSION, restoring } from "./base.js";
import { CountingPolicy, type CountState, readCountingState } from "./counting.js";

export interface UCB1Options extends BasePolicyOptions {
  /**
   * Exploration multiplier c in mean + c sqrt(ln t / n) (default sqrt(2): Auer et al. 2002's UCB1), >= 0.
   */
  readonly exploration?: number;
}

/** The option keys of {@link UCB1Options}. */
export const UCB1_OPTION_KEYS = optionKeys<UCB1Options>()([...ARM_POLICY_OPTION_KEYS, "exploration"]);

/**
 * UCB1 (Auer, Cesa-Bianchi & Fischer 2002): every arm without feedback first (ties at random), then
 * argmax of mean_i + c sqrt(ln t / n_i), with t the number of feedbacks received so far and n_i those
 * of arm i. With delayed feedback t and n_i only count feedback that arrived.
 */
export class UCB1 extends CountingPolicy {
  static readonly kind = "classic/ucb1";
  readonly kind = UCB1.kind;
  readonly exploration: number;

  constructor(options: UCB1Options) {
    rejectUnknownOptions(options, UCB1_OPTION_KEYS, UCB1.kind);
    super(options);
    this.exploration = numberOption(readOptions(options, UCB1.kind), "exploration", Math.SQRT2, { min: 0 });
    this.addInitialArms(options);
  }

  protected choose(): ArmDecision {
    const k = this.table.size;
    const scores = this.scores;
    const states = this.table.states;
    const logT = Math.log(Math.max(1, this.observations));
    const c = this.exploration;
    for (let i = 0; i < k; i++) {
      const s = states[i] as CountState;
      scores[i] = s.n > 0 ? s.sum / s.n + c * Math.sqrt(logT / s.n) : Number.POSITIVE_INFINITY;
    }
    return this.issue(argmaxRandomTie(scores, k, this.rng));
  }

  toJSON(): Snapshot {
    return makeSnapshot(UCB1.kind, CLASSIC_SNAPSHOT_VERSION, {
      exploration: this.exploration,
      ...this.countingState(),
    });
  }

  static fromJSON(snapshot: unknown): UCB1 {
    const st = readSnapshot(snapshot, UCB1.kind, CLASSIC_SNAPSHOT_VERSION);
    const exploration = readNumber(st, "exploration", (v) => v >= 0, "a finite number >= 0");
    const snap = readCountingState(st);
    return restoring(UCB1.kind, () => {
      const p = new UCB1({ arms: [], exploration, contextDim: snap.contextDim, maxPending: snap.maxPending });
      p.restoreCounting(snap);
      return p;
    });
  }
}
