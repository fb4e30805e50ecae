import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  enumOption,
  makeSnapshot,
  numberOption,
  optionKeys,
  readEnum,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  type Snapshot,
} from "@routekit/core";
import { argmaxRandomTie, type BasePolicyOptions, CLASSIC_SNAPSHOT_VERSION, restoring } from "./base.js";
import { CountingPolicy, type CountState, readCountingState } from "./counting.js";

export interface EpsilonGreedyOptions extends BasePolicyOptions {
  /** Exploration probability (default 0.1), in [0, 1]. With decay "1/t" it is the constant of the schedule. */
  readonly epsilon?: number;
  /**
   * "none" (default): explore with probability epsilon every round.
   * "1/t": Auer, Cesa-Bianchi & Fischer (2002)'s epsilon_t-greedy, epsilon_t = min(1, epsilon * K / t)
   * with t the 1-based round (select) count and K the live arm count (their c K / (d^2 t) with c/d^2 = epsilon).
   */
  readonly decay?: "none" | "1/t";
}

/** The option keys of {@link EpsilonGreedyOptions}. */
export const EPSILON_GREEDY_OPTION_KEYS = optionKeys<EpsilonGreedyOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "epsilon",
  "decay",
]);

/**
 * Epsilon-greedy: with probability epsilon_t a uniform arm, otherwise the arm with the best empirical
 * mean; arms without feedback count as +Infinity (tried first), ties broken at random. The decision
 * carries the exact probability of the chosen arm: epsilon_t / K + (1 - epsilon_t) / m if it is one of
 * the m greedy arms, epsilon_t / K otherwise.
 */
export class EpsilonGreedy extends CountingPolicy {
  static readonly kind = "classic/epsilon-greedy";
  readonly kind = EpsilonGreedy.kind;
  readonly epsilon: number;
  readonly decay: "none" | "1/t";

  constructor(options: EpsilonGreedyOptions) {
    rejectUnknownOptions(options, EPSILON_GREEDY_OPTION_KEYS, EpsilonGreedy.kind);
    super(options);
    const o = readOptions(options, EpsilonGreedy.kind);
    this.epsilon = numberOption(o, "epsilon", 0.1, { min: 0, max: 1 });
    this.decay = enumOption(o, "decay", ["none", "1/t"] as const, "none");
    this.addInitialArms(options);
  }

  /** The exploration probability the next select() will use. */
  get currentEpsilon(): number {
    if (this.decay === "none") return this.epsilon;
    // The round count is the number of decisions this policy issued (the ledger's, so a replica's own
    // selects set its schedule and learned state stays a function of the feedback alone).
    return Math.min(1, (this.epsilon * this.table.size) / (this.ledger.issued + 1));
  }

  protected choose(): ArmDecision {
    const k = this.table.size;
    const eps = this.currentEpsilon;
    const scores = this.scores;
    const states = this.table.states;
    let best = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < k; i++) {
      const s = states[i] as CountState;
      const v = s.n > 0 ? s.sum / s.n : Number.POSITIVE_INFINITY;
      scores[i] = v;
      if (v > best) best = v;
    }
    let ties = 0;
    for (let i = 0; i < k; i++) if (scores[i] === best) ties++;
    // One uniform draw decides explore vs exploit; eps = 0 or 1 still draws, so the stream is stable.
    const explore = this.rng.uniform() < eps;
    const i = explore ? this.rng.int(k) : argmaxRandomTie(scores, k, this.rng);
    const propensity = eps / k + (scores[i] === best ? (1 - eps) / ties : 0);
    return this.issue(i, propensity);
  }

  toJSON(): Snapshot {
    return makeSnapshot(EpsilonGreedy.kind, CLASSIC_SNAPSHOT_VERSION, {
      epsilon: this.epsilon,
      decay: this.decay,
      ...this.countingState(),
    });
  }

  static fromJSON(snapshot: unknown): EpsilonGreedy {
    const st = readSnapshot(snapshot, EpsilonGreedy.kind, CLASSIC_SNAPSHOT_VERSION);
    const epsilon = readNumber(st, "epsilon", (v) => v >= 0 && v <= 1, "a number in [0, 1]");
    const decay = readEnum(st, "decay", ["none", "1/t"] as const);
    const snap = readCountingState(st);
    return restoring(EpsilonGreedy.kind, () => {
      const p = new EpsilonGreedy({
        arms: [],
        epsilon,
        decay,
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
      });
      p.restoreCounting(snap);
      return p;
    });
  }
}
