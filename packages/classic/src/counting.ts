import {
  type ArmBaseSnapshot,
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmState,
  checkCountTotal,
  ErrorCode,
  encodeF64,
  type Json,
  RouteKitError,
  readArmBaseState,
  readF64,
  readInt,
  snapshotCorrupt,
} from "@routekit/core";
import { type BasePolicyOptions, decodeUidPayload, type UidPayload, uidCodec } from "./base.js";

/** Per-arm sufficient statistics of the context-free policies: pulls with feedback and reward sum. */
export interface CountState extends ArmState {
  n: number;
  sum: number;
}

/** Observed statistics of one arm. */
export interface ArmStats {
  /** Feedback received for this arm. */
  readonly n: number;
  /** Sum of those rewards. */
  readonly sum: number;
  /** sum / n (NaN before any feedback). */
  readonly mean: number;
}

/**
 * Context-free policies that keep (n, sum of rewards) per arm and a ledger of arm uids.
 * Counts move at update time, so pending decisions do not count until their feedback arrives.
 */
export abstract class CountingPolicy extends ArmPolicyBase<CountState, UidPayload> {
  /** Feedback applied so far to live arms (UCB1's t). */
  protected observations = 0;

  protected constructor(options: BasePolicyOptions) {
    super(options, uidCodec, 0);
  }

  /** Observed statistics of arm `id` (throws UNKNOWN_ARM). */
  armStats(id: string): ArmStats {
    const s = this.table.get(id);
    return { n: s.n, sum: s.sum, mean: s.n > 0 ? s.sum / s.n : Number.NaN };
  }

  protected createArm(uid: number): CountState {
    return { uid, n: 0, sum: 0 };
  }

  protected uidOf(payload: UidPayload): number {
    return payload.uid;
  }

  protected override eventPropensity(payload: UidPayload): number | undefined {
    return Number.isNaN(payload.propensity) ? undefined : payload.propensity;
  }

  protected payloadFromEvent(event: ArmEvent, state: CountState): UidPayload {
    return { uid: state.uid, propensity: event.decision.propensity ?? Number.NaN };
  }

  protected applyFeedback(state: CountState, _payload: UidPayload, feedback: ArmFeedback): void {
    const reward = feedback.reward;
    if (!Number.isFinite(state.sum + reward)) {
      throw new RouteKitError(ErrorCode.Numerical, `reward ${reward} would overflow the arm's reward sum; not applied`);
    }
    state.n += 1;
    state.sum += reward;
    this.observations++;
  }

  /** Issues a decision for the arm at table index `i`. */
  protected issue(i: number, propensity?: number): { id: string; arm: string; propensity?: number } {
    const s = this.table.states[i] as CountState;
    const id = this.ledger.issue({ uid: s.uid, propensity: propensity ?? Number.NaN });
    const arm = this.table.ids[i] as string;
    return propensity === undefined ? { id, arm } : { id, arm, propensity };
  }

  protected encodeArm(state: CountState): Record<string, Json> {
    return { stats: encodeF64(Float64Array.of(state.n, state.sum)) };
  }

  protected countingState(): Record<string, Json> {
    return { ...this.baseState(), observations: this.observations };
  }

  /** Loads a snapshot validated by {@link readCountingState} into a policy constructed with no arms. */
  protected restoreCounting(snap: CountingSnapshot): void {
    this.restoreBase(snap, (a, uid) => ({ uid, n: a.n, sum: a.sum }));
    this.observations = snap.observations;
  }
}

/** The validated state of a counting policy's snapshot. */
export interface CountingSnapshot extends ArmBaseSnapshot<{ n: number; sum: number }> {
  readonly observations: number;
}

/**
 * Reads and validates the state {@link CountingPolicy} snapshots (SNAPSHOT_CORRUPT otherwise): per
 * arm an integer count n >= 0 and a finite reward sum (further checked by `checkSum`, e.g. [0, n]),
 * and observations >= the live arms' counts.
 */
export function readCountingState(
  st: Record<string, Json>,
  checkSum: (sum: number, n: number) => boolean = () => true,
): CountingSnapshot {
  const base = readArmBaseState(st, {
    arm: (json) => {
      const v = readF64(json.stats, "arms[].stats", 2);
      const n = v[0] as number;
      const sum = v[1] as number;
      if (!Number.isSafeInteger(n) || n < 0) snapshotCorrupt("arms[].stats[0]", `an integer count >= 0, got ${n}`);
      if (!checkSum(sum, n)) snapshotCorrupt("arms[].stats[1]", `a valid reward sum for ${n} rewards, got ${sum}`);
      return { n, sum };
    },
    payload: (json) => decodeUidPayload(json).uid,
  });
  const observations = readInt(st, "observations", 0);
  let live = 0;
  for (const a of base.arms) live += a.data.n;
  checkCountTotal(live, observations, "arms[].stats[0]", '"observations"');
  return { ...base, observations };
}
