import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  assertId,
  ErrorCode,
  makeSnapshot,
  optionKeys,
  RouteKitError,
  readId,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  type Snapshot,
} from "@routekit/core";
import { type BasePolicyOptions, CLASSIC_SNAPSHOT_VERSION, restoring } from "./base.js";
import { CountingPolicy, readCountingState } from "./counting.js";

export interface OneArmOracleOptions extends BasePolicyOptions {
  /** The arm to always play (e.g. `env.bestFixedArm()`); must be one of `arms` when `arms` is not empty. */
  readonly arm: string;
}

/** The option keys of {@link OneArmOracleOptions}. */
export const ONE_ARM_ORACLE_OPTION_KEYS = optionKeys<OneArmOracleOptions>()([...ARM_POLICY_OPTION_KEYS, "arm"]);

/**
 * The one-arm oracle: always plays one fixed arm (propensity 1), typically the best single arm over
 * the request distribution. It is the reference of the O2B metric ("outscore the best"). Its arm can
 * not be removed (INVALID_STATE) and select() throws INVALID_STATE while that arm is not live.
 */
export class OneArmOracle extends CountingPolicy {
  static readonly kind = "classic/one-arm-oracle";
  readonly kind = OneArmOracle.kind;
  readonly arm: string;

  constructor(options: OneArmOracleOptions) {
    rejectUnknownOptions(options, ONE_ARM_ORACLE_OPTION_KEYS, OneArmOracle.kind);
    super(options);
    const o = readOptions(options, OneArmOracle.kind);
    const arm = o.arm as string;
    assertId(arm, "option arm");
    this.arm = arm;
    const arms = o.arms as readonly string[];
    if (arms.length > 0 && !arms.includes(arm)) {
      throw new RouteKitError(ErrorCode.UnknownArm, `option arm "${arm}" is not one of the arms (${arms.join(", ")})`);
    }
    this.addInitialArms(options);
  }

  protected override checkRemovable(id: string): void {
    if (id === this.arm) {
      throw new RouteKitError(ErrorCode.InvalidState, `cannot remove "${id}": it is the arm this one-arm oracle plays`);
    }
  }

  protected choose(): ArmDecision {
    if (!this.table.has(this.arm)) {
      throw new RouteKitError(
        ErrorCode.InvalidState,
        `the oracle's arm "${this.arm}" is not live: add it with addArm()`,
      );
    }
    return this.issue(this.table.indexOf(this.arm), 1);
  }

  toJSON(): Snapshot {
    return makeSnapshot(OneArmOracle.kind, CLASSIC_SNAPSHOT_VERSION, { arm: this.arm, ...this.countingState() });
  }

  static fromJSON(snapshot: unknown): OneArmOracle {
    const st = readSnapshot(snapshot, OneArmOracle.kind, CLASSIC_SNAPSHOT_VERSION);
    const arm = readId(st, "arm");
    const snap = readCountingState(st);
    return restoring(OneArmOracle.kind, () => {
      const p = new OneArmOracle({ arms: [], arm, contextDim: snap.contextDim, maxPending: snap.maxPending });
      p.restoreCounting(snap);
      return p;
    });
  }
}
