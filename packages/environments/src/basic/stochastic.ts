import {
  type ArmEnvironment,
  type ArmFeedback,
  type ArmRound,
  describe,
  ErrorCode,
  optionKeys,
  type Rng,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import { armIds, checkArmCount, checkNumber, MAX_REWARD_SCALE, needReset, unknownArm } from "./common.js";

export interface StochasticBanditOptions {
  /** Number of arms when neither `arms` nor `means` is given (default 10). */
  readonly k?: number;
  /** Arm ids (default "arm0".."arm{K-1}"). */
  readonly arms?: readonly string[];
  /**
   * Mean reward of each arm. When omitted, drawn at every reset() uniformly in [0, 1] from the
   * "means" fork of the reset rng (so each seed is a different problem instance).
   */
  readonly means?: readonly number[];
  /** "bernoulli" (default): reward 1 with probability mean, else 0 (means must be in [0, 1]). "gaussian": mean + N(0, noiseSd^2). */
  readonly rewards?: "bernoulli" | "gaussian";
  /** Noise standard deviation of Gaussian rewards (default 0.5), >= 0. */
  readonly noiseSd?: number;
  /** Cost of one pull of each arm (>= 0; default none, i.e. 0). Realised cost = expected cost. */
  readonly costs?: readonly number[];
  readonly name?: string;
}

/** The option keys of {@link StochasticBanditOptions}. */
export const STOCHASTIC_BANDIT_OPTION_KEYS = optionKeys<StochasticBanditOptions>()([
  "k",
  "arms",
  "means",
  "rewards",
  "noiseSd",
  "costs",
  "name",
]);

/**
 * The stochastic K-armed bandit: no context, each arm pays i.i.d. rewards around a fixed mean.
 * Regret is measured against the best mean; the best fixed arm is that same arm.
 */
export class StochasticBandit implements ArmEnvironment {
  readonly name: string;
  readonly contextDim = 0;
  readonly initialArms: readonly string[];
  readonly rewards: "bernoulli" | "gaussian";
  readonly noiseSd: number;
  private readonly givenMeans: Float64Array | undefined;
  private readonly costs: Float64Array;
  private readonly index = new Map<string, number>();
  private readonly meansV: Float64Array;
  private noise: Rng | undefined;
  private best = 0;
  private bestMean = 0;

  constructor(options: StochasticBanditOptions = {}) {
    rejectUnknownOptions(options, STOCHASTIC_BANDIT_OPTION_KEYS, "StochasticBandit", true);
    const k0 = options.means?.length ?? options.arms?.length ?? options.k ?? 10;
    checkNumber(k0, "option k", (v) => Number.isInteger(v) && v >= 1, "an integer >= 1");
    const ids = armIds(options.arms, k0, "option arms");
    const k = ids.length;
    if (options.arms !== undefined || options.means !== undefined) checkArmCount(options.k, k, "arms / means");
    this.rewards = options.rewards ?? "bernoulli";
    if (this.rewards !== "bernoulli" && this.rewards !== "gaussian") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option rewards must be "bernoulli" or "gaussian", got ${describe(this.rewards)}`,
      );
    }
    this.noiseSd = checkNumber(
      options.noiseSd ?? 0.5,
      "option noiseSd",
      (v) => v >= 0 && v <= MAX_REWARD_SCALE,
      `in [0, ${MAX_REWARD_SCALE}]`,
    );
    if (options.means !== undefined) {
      if (options.means.length !== k) {
        throw new RouteKitError(
          ErrorCode.DimensionMismatch,
          `option means has ${options.means.length} values, expected ${k}`,
        );
      }
      const lo = this.rewards === "bernoulli" ? 0 : -MAX_REWARD_SCALE;
      const hi = this.rewards === "bernoulli" ? 1 : MAX_REWARD_SCALE;
      for (const m of options.means) {
        checkNumber(
          m,
          "option means[]",
          (v) => v >= lo && v <= hi,
          this.rewards === "bernoulli" ? "in [0, 1]" : `in [-${MAX_REWARD_SCALE}, ${MAX_REWARD_SCALE}]`,
        );
      }
      this.givenMeans = Float64Array.from(options.means);
    }
    this.costs = new Float64Array(k);
    if (options.costs !== undefined) {
      if (options.costs.length !== k) {
        throw new RouteKitError(
          ErrorCode.DimensionMismatch,
          `option costs has ${options.costs.length} values, expected ${k}`,
        );
      }
      options.costs.forEach((c, i) => {
        this.costs[i] = checkNumber(c, "option costs[]", (v) => v >= 0, "a finite number >= 0");
      });
    }
    // Frozen: bestFixedArm() reads it, so a caller writing to it would name another arm.
    this.initialArms = Object.freeze(ids);
    for (let i = 0; i < ids.length; i++) this.index.set(ids[i] as string, i);
    this.meansV = new Float64Array(k);
    this.name = options.name ?? `k-armed(${k}, ${this.rewards})`;
  }

  /** The arms' mean rewards of the current instance (after reset). */
  get means(): readonly number[] {
    needReset(this.noise !== undefined, this.name);
    return Array.from(this.meansV);
  }

  reset(rng: Rng): void {
    if (this.givenMeans) {
      this.meansV.set(this.givenMeans);
    } else {
      const r = rng.fork("means");
      for (let i = 0; i < this.meansV.length; i++) this.meansV[i] = r.uniform();
    }
    this.noise = rng.fork("noise");
    let best = 0;
    for (let i = 1; i < this.meansV.length; i++)
      if ((this.meansV[i] as number) > (this.meansV[best] as number)) best = i;
    this.best = best;
    this.bestMean = this.meansV[best] as number;
  }

  next(_t: number): ArmRound {
    needReset(this.noise !== undefined, this.name);
    return { context: undefined };
  }

  private at(arm: string): number {
    const i = this.index.get(arm);
    if (i === undefined) throw unknownArm(arm, this.initialArms);
    return i;
  }

  expectedReward(arm: string): number {
    needReset(this.noise !== undefined, this.name);
    return this.meansV[this.at(arm)] as number;
  }

  expectedCost(arm: string): number {
    needReset(this.noise !== undefined, this.name);
    return this.costs[this.at(arm)] as number;
  }

  oracleReward(): number {
    needReset(this.noise !== undefined, this.name);
    return this.bestMean;
  }

  bestFixedArm(): string {
    needReset(this.noise !== undefined, this.name);
    return this.initialArms[this.best] as string;
  }

  bestFixedReward(): number {
    return this.oracleReward();
  }

  isOptimal(arm: string): boolean {
    return this.expectedReward(arm) >= this.bestMean;
  }

  pull(arm: string): ArmFeedback {
    needReset(this.noise !== undefined, this.name);
    const i = this.at(arm);
    const noise = this.noise as Rng;
    const m = this.meansV[i] as number;
    const reward = this.rewards === "bernoulli" ? (noise.bernoulli(m) ? 1 : 0) : noise.normal(m, this.noiseSd);
    return { reward, cost: this.costs[i] as number };
  }
}
