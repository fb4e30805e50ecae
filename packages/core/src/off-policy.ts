/**
 * Off-policy evaluation of logged arm decisions: what would another policy have earned on the traffic a live
 * router logged (`{ ...policy.decisionRecord(decision), feedback }` events)?
 *
 * - {@link estimateOffPolicy}: a *fixed* target policy, given by its action probabilities, scored by inverse
 *   propensity scoring (IPS), self-normalised IPS (SNIPS) or doubly robust (DR) estimation, with optional weight
 *   clipping, a standard error and a normal-approximation confidence interval.
 * - {@link replayEvaluate}: a *learning* policy (any {@link ArmPolicy}) scored by the replay (rejection-sampling)
 *   evaluator of Li, Chu, Langford & Wang (WSDM 2011): the policy selects on each logged context, learns only from
 *   the events where it picked the logged arm, and is scored on those.
 *
 * Both need the logging policy's propensity (decision.propensity: the probability it picked the logged arm), which
 * randomized policies record. No Node built-ins: this bundles for browsers.
 */
import { ErrorCode, RouteKitError } from "./errors.js";
import type { ArmEvent } from "./events.js";
import { meanStd } from "./metrics.js";
import {
  callNumber,
  checkValue,
  finish,
  type LoggedEvent,
  readCommon,
  readLog,
  weightedMean,
} from "./off-policy-log.js";
import { optionKeys, rejectUnknownOptions } from "./option-keys.js";
import { enumOption, functionOption, readOptions } from "./options.js";
import type { VectorInput } from "./protocols.js";
import { describe, errorText, isFloatArray } from "./validate.js";

/** The fixed-target estimators of {@link estimateOffPolicy}. */
export type OffPolicyEstimator = "ips" | "snips" | "dr";

/**
 * pi(arm | context): the probability that the target policy picks `arm` on the context of logged event `index`
 * (`context` is undefined for events logged without one). Must return a number in [0, 1].
 */
export type TargetProbability = (arm: string, context: Float64Array | undefined, index: number) => number;

/** rhat(arm, context): the reward model of the doubly robust estimator, a finite prediction of the arm's reward. */
export type RewardModel = (arm: string, context: Float64Array | undefined, index: number) => number;

/**
 * The target policy of {@link estimateOffPolicy}, in one of three forms:
 * - a function pi(arm, context, index) (every estimator);
 * - an array with, per event, the target's probability of the *logged* arm (IPS and SNIPS): a number[], a
 *   Float64Array or a Float32Array (what a model runtime returns), as every vector input of RouteKit;
 * - `{ picks }`: per event, the arm a (possibly randomized) target picked on that event's context. Its
 *   probability of the logged arm is then estimated by the indicator 1[pick = logged arm], which is unbiased
 *   (E[1[a' = a]] = pi(a | x)); a deterministic target's indicator is exactly its probability. DR's model term
 *   uses rhat(pick), unbiased for sum_a pi(a | x) rhat(a, x).
 */
export type TargetPolicy = TargetProbability | VectorInput | { readonly picks: readonly string[] };

/** What the logged events share with both evaluators. */
export interface LogOptions {
  /**
   * The logging policy's arms (default: the arms the events name, in order of first appearance). A logged arm
   * outside this list, a `picks` entry or a replayed policy's arm outside it, is UNKNOWN_ARM: the log says nothing
   * about an arm the logging policy never plays.
   */
  readonly arms?: readonly string[];
  /** Largest importance weight; larger weights are cut to it (default: no clipping). > 0. */
  readonly clip?: number;
  /** Confidence level of the interval, in (0, 1) (default 0.95). */
  readonly level?: number;
  /**
   * Logging propensity assumed for events that lack `decision.propensity` (e.g. 1/K for a uniform logger that did
   * not record it), in (0, 1]. Without it such an event is INVALID_EVENT. Counted in `missingPropensity`.
   */
  readonly fallbackPropensity?: number;
}

export interface OffPolicyOptions extends LogOptions {
  /** The target policy (see {@link TargetPolicy}). */
  readonly target: TargetPolicy;
  /** "ips" (default), "snips" or "dr". */
  readonly estimator?: OffPolicyEstimator;
  /** Reward model of the doubly robust estimator (required by "dr", refused by the others). */
  readonly rewardModel?: RewardModel;
}

export type ReplayOptions = LogOptions;

/** The option keys of {@link OffPolicyOptions}. */
export const OFF_POLICY_OPTION_KEYS = optionKeys<OffPolicyOptions>()([
  "arms",
  "clip",
  "level",
  "fallbackPropensity",
  "target",
  "estimator",
  "rewardModel",
]);

/** The option keys of {@link ReplayOptions}. */
export const REPLAY_OPTION_KEYS = optionKeys<ReplayOptions>()(["arms", "clip", "level", "fallbackPropensity"]);

/** An off-policy estimate with its uncertainty and weight diagnostics. */
export interface OffPolicyResult {
  readonly estimator: OffPolicyEstimator | "replay";
  /** Estimated mean reward per request of the target policy. */
  readonly estimate: number;
  /** Standard error of the estimate. */
  readonly se: number;
  /** Confidence level of [lower, upper]. */
  readonly level: number;
  /** estimate -+ z se, z the normal quantile of (1 + level) / 2. */
  readonly lower: number;
  readonly upper: number;
  /** Events evaluated. */
  readonly n: number;
  /** (sum w)^2 / sum w^2 over the importance weights (replay: over the matched events); 0 when every weight is 0. */
  readonly effectiveSampleSize: number;
  /** Largest importance weight (after clipping). */
  readonly maxWeight: number;
  /** Weights cut to `clip`. */
  readonly clipped: number;
  /** Events without a logging propensity (evaluated with `fallbackPropensity`). */
  readonly missingPropensity: number;
}

export interface ReplayResult extends OffPolicyResult {
  readonly estimator: "replay";
  /** Events where the policy picked the logged arm (it learned from exactly these). */
  readonly matched: number;
}

/**
 * Estimates the mean reward per request a fixed target policy would have earned on logged traffic.
 *
 * With w_i = min(pi(a_i | x_i) / mu_i, clip) (pi the target, mu_i the logged propensity of the logged arm a_i) and
 * r_i the logged reward over n events:
 * - IPS: (1/n) sum w_i r_i, standard error sd(w_i r_i) / sqrt(n);
 * - SNIPS: sum w_i r_i / sum w_i, delta-method standard error (NUMERICAL when every weight is 0);
 * - DR: (1/n) sum [ sum_a pi(a | x_i) rhat(a, x_i) + w_i (r_i - rhat(a_i, x_i)) ], standard error sd / sqrt(n).
 *
 * Without clipping IPS and DR are unbiased whenever the logging propensities are right and positive wherever the
 * target puts probability (DR for any reward model); SNIPS is consistent. Clipping trades a bias for less variance.
 * The interval is estimate -+ z se with the normal quantile z of (1 + level) / 2.
 *
 * Everything is validated before computing: INVALID_ARGUMENT (not an array, no events, an unknown option, a wrong
 * target or reward model type), INVALID_EVENT (a malformed event, or one without propensity and no
 * fallbackPropensity, or contexts of different lengths), OUT_OF_RANGE (a propensity outside (0, 1], a target
 * probability outside [0, 1], DR probabilities over the arms not summing to 1), NON_FINITE (NaN or +-Infinity from
 * the target or reward model), DIMENSION_MISMATCH (a per-event array of another length), UNKNOWN_ARM (see
 * {@link LogOptions.arms}). A target or reward model that throws is a RouteKitError (its own code when it threw one,
 * else INVALID_ARGUMENT); every error about one event names its index (`events[i]`, `details.index`).
 */
export function estimateOffPolicy(events: readonly ArmEvent[], options: OffPolicyOptions): OffPolicyResult {
  rejectUnknownOptions(options, OFF_POLICY_OPTION_KEYS, "estimateOffPolicy");
  const o = readOptions(options, "estimateOffPolicy");
  const estimator = enumOption(o, "estimator", ["ips", "snips", "dr"] as const, "ips");
  const common = readCommon(o);
  const target = o.target as unknown;
  const rewardModel = functionOption<RewardModel>(o, "rewardModel", undefined);
  if (estimator === "dr" && rewardModel === undefined) {
    throw new RouteKitError(ErrorCode.InvalidArgument, "estimator dr needs option rewardModel(arm, context, index)");
  }
  if (estimator !== "dr" && rewardModel !== undefined) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `option rewardModel applies to estimator dr, not ${estimator}`);
  }
  const log = readLog(events, common, undefined);
  const n = log.events.length;
  const picks = readTarget(target, estimator, n);
  if (picks !== undefined && picks.kind === "picks") {
    for (let i = 0; i < n; i++) {
      const a = picks.values[i] as string;
      if (!log.armSet.has(a)) {
        throw new RouteKitError(
          ErrorCode.UnknownArm,
          `events[${i}]: the target picked ${describe(a)}, an arm the log never names (no estimate can cover it)`,
          { index: i, arm: a },
        );
      }
    }
  }

  const w = new Float64Array(n);
  const r = new Float64Array(n);
  const terms: number[] = new Array(n);
  let clipped = 0;
  for (let i = 0; i < n; i++) {
    const ev = log.events[i] as LoggedEvent;
    let pi: number;
    if (picks === undefined) pi = callNumber(target as TargetProbability, "target", ev.arm, ev, i, true);
    else if (picks.kind === "picks") pi = picks.values[i] === ev.arm ? 1 : 0;
    else pi = picks.values[i] as number;
    const raw = pi / ev.propensity;
    if (raw > common.clip) clipped++;
    const wi = Math.min(raw, common.clip);
    w[i] = wi;
    r[i] = ev.feedback.reward;
    if (estimator === "dr") {
      const model = rewardModel as RewardModel;
      let direct = 0;
      if (picks === undefined) {
        let mass = 0;
        for (const a of log.arms) {
          const pa = a === ev.arm ? pi : callNumber(target as TargetProbability, "target", a, ev, i, true);
          mass += pa;
          if (pa > 0) direct += pa * callNumber(model, "rewardModel", a, ev, i, false);
        }
        if (Math.abs(mass - 1) > 1e-6) {
          throw new RouteKitError(
            ErrorCode.OutOfRange,
            `events[${i}]: target probabilities over the ${log.arms.length} arms sum to ${mass}, expected 1`,
            { index: i },
          );
        }
      } else {
        direct = callNumber(model, "rewardModel", picks.values[i] as string, ev, i, false);
      }
      const own = callNumber(model, "rewardModel", ev.arm, ev, i, false);
      terms[i] = direct + wi * (ev.feedback.reward - own);
    } else {
      terms[i] = wi * ev.feedback.reward;
    }
  }
  if (estimator === "snips") {
    const s = weightedMean(w, r);
    if (s === undefined) {
      throw new RouteKitError(
        ErrorCode.Numerical,
        `SNIPS is undefined: the target gives probability 0 to the logged arm of all ${n} events`,
      );
    }
    return finish(estimator, s.mean, s.se, w, n, common, log, clipped);
  }
  const m = meanStd(terms);
  return finish(estimator, m.mean, m.se, w, n, common, log, clipped);
}

/** The array forms of a target, validated; undefined for a function. */
function readTarget(
  target: unknown,
  estimator: OffPolicyEstimator,
  n: number,
): { kind: "probabilities"; values: readonly number[] } | { kind: "picks"; values: readonly string[] } | undefined {
  if (typeof target === "function") return undefined;
  // The vector forms every RouteKit API takes (VectorInput): a Float32Array of probabilities (an ONNX or
  // transformers.js softmax) is read exactly as the same numbers in a plain array.
  if (Array.isArray(target) || isFloatArray(target)) {
    if (estimator === "dr") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "estimator dr needs the target's probability of every arm: give target as a function or as { picks }",
      );
    }
    return {
      kind: "probabilities",
      values: readArray(target as ArrayLike<unknown>, n, "target", (v, i) => checkValue(v, `target[${i}]`, i, true)),
    };
  }
  if (target !== null && typeof target === "object" && !Array.isArray(target) && !ArrayBuffer.isView(target)) {
    let raw: unknown;
    try {
      raw = (target as { picks?: unknown }).picks;
    } catch (e) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `reading option target.picks threw: ${errorText(e)}`);
    }
    if (Array.isArray(raw)) {
      const values = readArray(raw, n, "target.picks", (v, i) => {
        if (typeof v !== "string" || v.length === 0) {
          throw new RouteKitError(
            ErrorCode.InvalidArgument,
            `target.picks[${i}] must be an arm id, got ${describe(v)}`,
            { index: i },
          );
        }
        return v;
      });
      return { kind: "picks", values };
    }
  }
  throw new RouteKitError(
    ErrorCode.InvalidArgument,
    `option target must be a function pi(arm, context, index), probabilities (number[], Float64Array or Float32Array) or { picks: arm ids }, got ${describe(target)}`,
  );
}

function readArray<T>(src: ArrayLike<unknown>, n: number, what: string, check: (v: unknown, i: number) => T): T[] {
  let len: number;
  const out: T[] = [];
  try {
    len = src.length;
    if (len !== n) {
      throw new RouteKitError(
        ErrorCode.DimensionMismatch,
        `${what} has ${len} entries, one per event expected (${n})`,
        {
          expected: n,
          actual: len,
        },
      );
    }
    for (let i = 0; i < len; i++) out.push(check(src[i], i));
  } catch (e) {
    if (e instanceof RouteKitError) throw e;
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading ${what} threw: ${errorText(e)}`);
  }
  return out;
}
