import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  type ArmFeedback,
  assertInRange,
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
import {
  argmaxRandomTie,
  type BasePolicyOptions,
  CLASSIC_SNAPSHOT_VERSION,
  restoring,
  type UidPayload,
} from "./base.js";
import { CountingPolicy, type CountState, readCountingState } from "./counting.js";

/** A positive number (any finite value > 0 is safe: see the README's numerics notes). */
const POSITIVE = { min: 0, openMin: true } as const;

export interface ThompsonBernoulliOptions extends BasePolicyOptions {
  /** Beta prior alpha (default 1), > 0. */
  readonly priorAlpha?: number;
  /** Beta prior beta (default 1), > 0. */
  readonly priorBeta?: number;
  /**
   * How a reward strictly between 0 and 1 updates the posterior:
   * - "bernoulli-trick" (default): Agrawal & Goyal (2012), Algorithm 2: draw a Bernoulli(reward)
   *   success from the policy's rng and update with it, so the posterior stays an exact Beta posterior
   *   of Bernoulli observations whose mean is the arm's mean reward.
   * - "fractional": add reward to the successes and 1 - reward to the failures (deterministic,
   *   lower variance, but the posterior is then over-confident for non-binary rewards).
   * Rewards of exactly 0 or 1 are counted as such in both modes (no random draw).
   */
  readonly fractionalRewards?: "bernoulli-trick" | "fractional";
}

/** The option keys of {@link ThompsonBernoulliOptions}. */
export const THOMPSON_BERNOULLI_OPTION_KEYS = optionKeys<ThompsonBernoulliOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "priorAlpha",
  "priorBeta",
  "fractionalRewards",
]);

/**
 * Beta-Bernoulli Thompson sampling (Thompson 1933; Agrawal & Goyal 2012): sample
 * theta_i ~ Beta(priorAlpha + successes_i, priorBeta + failures_i) for each arm and play the argmax.
 * Rewards must lie in [0, 1] (OUT_OF_RANGE otherwise).
 */
export class ThompsonBernoulli extends CountingPolicy {
  static readonly kind = "classic/thompson-bernoulli";
  readonly kind = ThompsonBernoulli.kind;
  readonly priorAlpha: number;
  readonly priorBeta: number;
  readonly fractionalRewards: "bernoulli-trick" | "fractional";

  constructor(options: ThompsonBernoulliOptions) {
    rejectUnknownOptions(options, THOMPSON_BERNOULLI_OPTION_KEYS, ThompsonBernoulli.kind);
    super(options);
    const o = readOptions(options, ThompsonBernoulli.kind);
    this.priorAlpha = numberOption(o, "priorAlpha", 1, POSITIVE);
    this.priorBeta = numberOption(o, "priorBeta", 1, POSITIVE);
    this.fractionalRewards = enumOption(
      o,
      "fractionalRewards",
      ["bernoulli-trick", "fractional"] as const,
      "bernoulli-trick",
    );
    this.addInitialArms(options);
  }

  protected override checkReward(reward: number): void {
    assertInRange(reward, "feedback.reward (Beta-Bernoulli Thompson sampling)", 0, 1);
  }

  protected override applyFeedback(state: CountState, _payload: UidPayload, feedback: ArmFeedback): void {
    const reward = feedback.reward;
    let success = reward;
    if (reward > 0 && reward < 1 && this.fractionalRewards === "bernoulli-trick") {
      success = this.rng.bernoulli(reward) ? 1 : 0;
    }
    state.n += 1;
    state.sum += success;
    this.observations++;
  }

  protected choose(): ArmDecision {
    const k = this.table.size;
    const scores = this.scores;
    const states = this.table.states;
    for (let i = 0; i < k; i++) {
      const s = states[i] as CountState;
      scores[i] = this.rng.beta(this.priorAlpha + s.sum, this.priorBeta + (s.n - s.sum));
    }
    return this.issue(argmaxRandomTie(scores, k, this.rng));
  }

  toJSON(): Snapshot {
    return makeSnapshot(ThompsonBernoulli.kind, CLASSIC_SNAPSHOT_VERSION, {
      priorAlpha: this.priorAlpha,
      priorBeta: this.priorBeta,
      fractionalRewards: this.fractionalRewards,
      ...this.countingState(),
    });
  }

  static fromJSON(snapshot: unknown): ThompsonBernoulli {
    const st = readSnapshot(snapshot, ThompsonBernoulli.kind, CLASSIC_SNAPSHOT_VERSION);
    const priorAlpha = readNumber(st, "priorAlpha", (v) => v > 0, "a finite number > 0");
    const priorBeta = readNumber(st, "priorBeta", (v) => v > 0, "a finite number > 0");
    const fractionalRewards = readEnum(st, "fractionalRewards", ["bernoulli-trick", "fractional"] as const);
    // Successes lie in [0, n] (whole in the Bernoulli-trick mode), so both Beta parameters stay > 0.
    const snap = readCountingState(
      st,
      (sum, n) => sum >= 0 && sum <= n && (fractionalRewards === "fractional" || Number.isInteger(sum)),
    );
    return restoring(ThompsonBernoulli.kind, () => {
      const p = new ThompsonBernoulli({
        arms: [],
        priorAlpha,
        priorBeta,
        fractionalRewards,
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
      });
      p.restoreCounting(snap);
      return p;
    });
  }
}

export interface ThompsonGaussianOptions extends BasePolicyOptions {
  /** Prior mean of every arm's mean reward (default 0). */
  readonly priorMean?: number;
  /** Prior variance of every arm's mean reward (default 1), > 0. */
  readonly priorVariance?: number;
  /** Known variance of a reward around its arm's mean (default 1), > 0. */
  readonly noiseVariance?: number;
}

/** The option keys of {@link ThompsonGaussianOptions}. */
export const THOMPSON_GAUSSIAN_OPTION_KEYS = optionKeys<ThompsonGaussianOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "priorMean",
  "priorVariance",
  "noiseVariance",
]);

/**
 * Gaussian Thompson sampling with a conjugate normal prior and known noise variance: arm i's
 * posterior is N(m_i, 1/p_i) with p_i = 1/priorVariance + n_i/noiseVariance and
 * m_i = (priorMean/priorVariance + sum_i/noiseVariance) / p_i; sample each and play the argmax.
 */
export class ThompsonGaussian extends CountingPolicy {
  static readonly kind = "classic/thompson-gaussian";
  readonly kind = ThompsonGaussian.kind;
  readonly priorMean: number;
  readonly priorVariance: number;
  readonly noiseVariance: number;

  constructor(options: ThompsonGaussianOptions) {
    rejectUnknownOptions(options, THOMPSON_GAUSSIAN_OPTION_KEYS, ThompsonGaussian.kind);
    super(options);
    const o = readOptions(options, ThompsonGaussian.kind);
    this.priorMean = numberOption(o, "priorMean", 0);
    this.priorVariance = numberOption(o, "priorVariance", 1, POSITIVE);
    this.noiseVariance = numberOption(o, "noiseVariance", 1, POSITIVE);
    this.addInitialArms(options);
  }

  /** Posterior mean and variance of arm `id`'s mean reward. */
  posterior(id: string): { mean: number; variance: number } {
    const s = this.table.get(id);
    this.posteriorOf(s.n, s.sum);
    return { mean: this.postMean, variance: this.postVariance };
  }

  private postMean = 0;
  private postVariance = 0;

  /**
   * Posterior of n rewards summing to `sum`, written in terms of rho = priorVariance / noiseVariance:
   * the mean is the convex combination (1 - w) priorMean + w (sum / n) with w = rho n / (1 + rho n),
   * and the variance priorVariance / (1 + rho n). Unlike the precision form 1/priorVariance +
   * n/noiseVariance, nothing here overflows for variances down to 5e-324 (1 / 5e-324 = Infinity made
   * every score NaN); when rho n overflows the data dominate and the posterior is N(sum/n, noise/n).
   */
  private posteriorOf(n: number, sum: number): void {
    if (n === 0) {
      this.postMean = this.priorMean;
      this.postVariance = this.priorVariance;
      return;
    }
    const rn = (this.priorVariance / this.noiseVariance) * n;
    const avg = sum / n;
    if (!Number.isFinite(rn)) {
      this.postMean = avg;
      this.postVariance = this.noiseVariance / n;
      return;
    }
    const w = rn / (1 + rn);
    this.postMean = (1 - w) * this.priorMean + w * avg;
    this.postVariance = this.priorVariance / (1 + rn);
  }

  protected choose(): ArmDecision {
    const k = this.table.size;
    const scores = this.scores;
    const states = this.table.states;
    for (let i = 0; i < k; i++) {
      const s = states[i] as CountState;
      this.posteriorOf(s.n, s.sum);
      scores[i] = this.rng.normal(this.postMean, Math.sqrt(this.postVariance));
    }
    return this.issue(argmaxRandomTie(scores, k, this.rng));
  }

  toJSON(): Snapshot {
    return makeSnapshot(ThompsonGaussian.kind, CLASSIC_SNAPSHOT_VERSION, {
      priorMean: this.priorMean,
      priorVariance: this.priorVariance,
      noiseVariance: this.noiseVariance,
      ...this.countingState(),
    });
  }

  static fromJSON(snapshot: unknown): ThompsonGaussian {
    const st = readSnapshot(snapshot, ThompsonGaussian.kind, CLASSIC_SNAPSHOT_VERSION);
    const priorMean = readNumber(st, "priorMean");
    const priorVariance = readNumber(st, "priorVariance", (v) => v > 0, "a finite number > 0");
    const noiseVariance = readNumber(st, "noiseVariance", (v) => v > 0, "a finite number > 0");
    const snap = readCountingState(st);
    return restoring(ThompsonGaussian.kind, () => {
      const p = new ThompsonGaussian({
        arms: [],
        priorMean,
        priorVariance,
        noiseVariance,
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
      });
      p.restoreCounting(snap);
      return p;
    });
  }
}
