import { decodeF64, ErrorCode, encodeF64, field, type Json, RouteKitError } from "@routekit/core";
import { type ArmState, BaseArmPolicy, type BasePolicyOptions, uidCodec } from "./base.js";

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
export abstract class CountingPolicy extends BaseArmPolicy<CountState, number> {
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

  protected uidOf(payload: number): number {
    return payload;
  }

  protected learn(state: CountState, _payload: number, reward: number): void {
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
    const id = this.ledger.issue(s.uid);
    const arm = this.table.ids[i] as string;
    return propensity === undefined ? { id, arm } : { id, arm, propensity };
  }

  protected encodeArm(state: CountState): Record<string, Json> {
    return { stats: encodeF64(Float64Array.of(state.n, state.sum)) };
  }

  protected decodeArm(json: Record<string, Json>, uid: number): CountState {
    const v = decodeF64(json.stats, "arms[].stats", 2);
    return { uid, n: v[0] as number, sum: v[1] as number };
  }

  protected countingState(): Record<string, Json> {
    return { ...this.baseState(), observations: this.observations };
  }

  protected restoreCounting(st: Record<string, Json>): void {
    this.restoreBase(st);
    const o = field(st, "observations", "number");
    if (!Number.isInteger(o) || o < 0) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, "snapshot field observations must be an integer >= 0");
    }
    this.observations = o;
  }
}
