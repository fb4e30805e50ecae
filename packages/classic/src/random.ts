import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  makeSnapshot,
  optionKeys,
  readSnapshot,
  rejectUnknownOptions,
  type Snapshot,
} from "@routekit/core";
import { type BasePolicyOptions, CLASSIC_SNAPSHOT_VERSION, restoring } from "./base.js";
import { CountingPolicy, readCountingState } from "./counting.js";

export interface RandomPolicyOptions extends BasePolicyOptions {}

/** The option keys of {@link RandomPolicyOptions}. */
export const RANDOM_POLICY_OPTION_KEYS = optionKeys<RandomPolicyOptions>()([...ARM_POLICY_OPTION_KEYS]);

/**
 * Picks a live arm uniformly at random each round (propensity 1/K). The baseline whose regret
 * grows linearly; it still records per-arm reward statistics (see `armStats`).
 */
export class RandomPolicy extends CountingPolicy {
  static readonly kind = "classic/random";
  readonly kind = RandomPolicy.kind;

  constructor(options: RandomPolicyOptions) {
    rejectUnknownOptions(options, RANDOM_POLICY_OPTION_KEYS, RandomPolicy.kind);
    super(options);
    this.addInitialArms(options);
  }

  protected choose(): ArmDecision {
    const k = this.table.size;
    return this.issue(this.rng.int(k), 1 / k);
  }

  toJSON(): Snapshot {
    return makeSnapshot(RandomPolicy.kind, CLASSIC_SNAPSHOT_VERSION, this.countingState());
  }

  static fromJSON(snapshot: unknown): RandomPolicy {
    const st = readSnapshot(snapshot, RandomPolicy.kind, CLASSIC_SNAPSHOT_VERSION);
    const snap = readCountingState(st);
    return restoring(RandomPolicy.kind, () => {
      const p = new RandomPolicy({ arms: [], contextDim: snap.contextDim, maxPending: snap.maxPending });
      p.restoreCounting(snap);
      return p;
    });
  }
}
