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
import { type ArmEvent, checkEvent, eventVector } from "./events.js";
import { meanStd } from "./metrics.js";
import { normalQuantile } from "./normal.js";
import { optionKeys, rejectUnknownOptions } from "./option-keys.js";
import { armsOption, enumOption, functionOption, type NumberRange, numberOption, readOptions } from "./options.js";
import type { ArmFeedback, ArmPolicy } from "./protocols.js";
import { assertFinite, assertInRange, describe, errorText, readLength } from "./validate.js";

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
 * - an array with, per event, the target's probability of the *logged* arm (IPS and SNIPS);
 * - `{ picks }`: per event, the arm a (possibly randomized) target picked on that event's context. Its
 *   probability of the logged arm is then estimated by the indicator 1[pick = logged arm], which is unbiased
 *   (E[1[a' = a]] = pi(a | x)); a deterministic target's indicator is exactly its probability. DR's model term
 *   uses rhat(pick), unbiased for sum_a pi(a | x) rhat(a, x).
 */
export type TargetPolicy = TargetProbability | readonly number[] | { readonly picks: readonly string[] };

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

/** One validated logged event. */
interface LoggedEvent {
  readonly arm: string;
  readonly context: Float64Array | undefined;
  readonly propensity: number;
  readonly feedback: ArmFeedback;
}

interface Log {
  readonly events: readonly LoggedEvent[];
  readonly arms: readonly string[];
  readonly armSet: ReadonlySet<string>;
  readonly missing: number;
}

interface CommonOptions {
  readonly clip: number;
  readonly level: number;
  readonly fallback: number | undefined;
  readonly arms: readonly string[];
}

const UNIT_OPEN: NumberRange = { min: 0, max: 1, openMin: true, openMax: true };

function readCommon(o: Record<string, unknown>): CommonOptions {
  return {
    arms: armsOption(o, false),
    clip: numberOption(o, "clip", Number.POSITIVE_INFINITY, { min: 0, openMin: true }),
    level: numberOption(o, "level", 0.95, UNIT_OPEN),
    fallback: numberOption(o, "fallbackPropensity", undefined, { min: 0, max: 1, openMin: true }),
  };
}

/** Re-throws a RouteKitError raised about event `i` with the index in its message and details. */
function atEvent(i: number, e: unknown): never {
  if (e instanceof RouteKitError) {
    throw new RouteKitError(e.code, `events[${i}]: ${e.message}`, { ...e.details, index: i });
  }
  throw e;
}

/** `events[i]`; a getter or proxy that throws makes the event unreadable: INVALID_EVENT. */
function readEvent(events: readonly unknown[], i: number): unknown {
  try {
    return events[i];
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidEvent, `reading the event threw: ${errorText(e)}`);
  }
}

/** Validates every event (before anything is computed or any policy is touched) and reads each field once. */
function readLog(events: unknown, common: CommonOptions, contextDim: number | undefined): Log {
  if (!Array.isArray(events)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `events must be an array of arm events, got ${describe(events)}`,
    );
  }
  const count = readLength(events, "events");
  if (count === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "events must hold at least one event");
  const out: LoggedEvent[] = [];
  const seen = new Set<string>();
  const named: string[] = [];
  const given = new Set(common.arms);
  // Context length of the first event (null: logged without a context), when the policy does not fix it.
  let first: number | null | undefined;
  let missing = 0;
  for (let i = 0; i < count; i++) {
    try {
      const ev = checkEvent(readEvent(events, i), "arm");
      // Each field is read once more, here, and the values read are the values checked and used.
      const d = ev.decision;
      const arm = d.arm;
      const raw = d.context;
      const p = d.propensity;
      const fb = ev.feedback;
      const reward = fb.reward;
      const cost = fb.cost;
      const feedback: ArmFeedback = cost === undefined ? { reward } : { reward, cost };
      const copy = {
        v: ev.v,
        kind: "copy",
        protocol: "arm",
        id: "copy",
        decision: { arm, context: raw, propensity: p },
        feedback,
      };
      const checked = checkEvent(copy, "arm");
      const context = raw === null ? undefined : eventVector(raw, "decision.context");
      const len = context === undefined ? null : context.length;
      if (contextDim === undefined) {
        if (first === undefined) first = len;
        else if (len !== first)
          contextLength(
            `${first === null ? "null (as the first event's)" : `${first} numbers (as the first event's)`}`,
            len,
          );
      } else if (contextDim > 0 && len !== contextDim) {
        contextLength(`${contextDim} numbers (the policy's contextDim)`, len);
      }
      if (common.arms.length > 0 && !given.has(arm)) {
        throw new RouteKitError(ErrorCode.UnknownArm, `logged arm ${describe(arm)} is not one of the arms option`, {
          arm,
        });
      }
      let propensity = checked.decision.propensity;
      if (propensity === undefined) {
        if (common.fallback === undefined) {
          throw new RouteKitError(
            ErrorCode.InvalidEvent,
            "event decision.propensity is missing: off-policy estimates need the logging probability of the logged arm (log a randomized policy's decisions, or give fallbackPropensity)",
          );
        }
        propensity = common.fallback;
        missing++;
      }
      if (!seen.has(arm)) {
        seen.add(arm);
        named.push(arm);
      }
      out.push({ arm, context: contextDim === 0 ? undefined : context, propensity, feedback });
    } catch (e) {
      atEvent(i, e);
    }
  }
  const arms = common.arms.length > 0 ? common.arms : named;
  return { events: out, arms, armSet: new Set(arms), missing };
}

function contextLength(expected: string, len: number | null): never {
  throw new RouteKitError(
    ErrorCode.InvalidEvent,
    `event decision.context must be ${expected}, got ${len === null ? "null" : `${len} numbers`}`,
  );
}

/** Calls a caller's function for event `i` and checks its result is a number in [lo, hi] (hi Infinity: finite). */
function callNumber(
  fn: (arm: string, context: Float64Array | undefined, index: number) => number,
  name: string,
  arm: string,
  ev: LoggedEvent,
  i: number,
  probability: boolean,
): number {
  let v: unknown;
  try {
    v = fn(arm, ev.context, i);
  } catch (e) {
    const code = e instanceof RouteKitError ? e.code : ErrorCode.InvalidArgument;
    throw new RouteKitError(code, `events[${i}]: ${name}(${describe(arm)}, context) threw: ${errorText(e)}`, {
      index: i,
    });
  }
  return checkValue(v, `events[${i}]: ${name}(${describe(arm)}, context)`, i, probability);
}

/** `v` as a finite number (in [0, 1] for a probability): the typed errors of assertFinite / assertInRange, at event i. */
function checkValue(v: unknown, what: string, i: number, probability: boolean): number {
  try {
    if (probability) assertInRange(v as number, what, 0, 1);
    else assertFinite(v as number, what);
  } catch (e) {
    atEvent(i, e);
  }
  return v as number;
}

/** Weight statistics and the interval, shared by every estimator. */
function finish(
  estimator: OffPolicyResult["estimator"],
  estimate: number,
  se: number,
  weights: ArrayLike<number>,
  n: number,
  common: CommonOptions,
  log: Log,
  clipped: number,
): OffPolicyResult {
  let maxWeight = 0;
  for (let i = 0; i < weights.length; i++) maxWeight = Math.max(maxWeight, weights[i] as number);
  // The effective sample size (sum w)^2 / sum w^2 from the weights scaled by the largest: it cannot overflow.
  let s1 = 0;
  let s2 = 0;
  if (maxWeight > 0) {
    for (let i = 0; i < weights.length; i++) {
      const u = (weights[i] as number) / maxWeight;
      s1 += u;
      s2 += u * u;
    }
  }
  const z = normalQuantile(0.5 + common.level / 2);
  const lower = estimate - z * se;
  const upper = estimate + z * se;
  // Finite input can still overflow: a propensity near 1e-300 makes a weight near 1e300, a reward near 1e308 a sum
  // past the largest double. Refused rather than returned as Infinity or NaN (the "no NaN, ever" rule).
  if (!Number.isFinite(estimate) || !Number.isFinite(lower) || !Number.isFinite(upper) || !Number.isFinite(maxWeight)) {
    throw new RouteKitError(
      ErrorCode.Numerical,
      `the ${estimator} estimate overflows (largest weight ${maxWeight}, estimate ${estimate}, standard error ${se}): ` +
        "cap the importance weights with option clip, or check the logged propensities and rewards",
    );
  }
  return {
    estimator,
    estimate,
    se,
    level: common.level,
    lower,
    upper,
    n,
    effectiveSampleSize: s2 > 0 ? (s1 * s1) / s2 : 0,
    maxWeight,
    clipped,
    missingPropensity: log.missing,
  };
}

/**
 * Self-normalised weighted mean sum w r / sum w and its delta-method standard error
 * sqrt(m / (m - 1) * sum w^2 (r - V)^2) / sum w over the m events (0 for m = 1), or undefined when sum w = 0.
 */
function weightedMean(w: ArrayLike<number>, r: ArrayLike<number>): { mean: number; se: number } | undefined {
  const m = w.length;
  let sw = 0;
  let swr = 0;
  for (let i = 0; i < m; i++) {
    sw += w[i] as number;
    swr += (w[i] as number) * (r[i] as number);
  }
  if (!(sw > 0)) return undefined;
  const mean = swr / sw;
  let s = 0;
  for (let i = 0; i < m; i++) {
    const d = (w[i] as number) * ((r[i] as number) - mean);
    s += d * d;
  }
  return { mean, se: m > 1 ? Math.sqrt((s * m) / (m - 1)) / sw : 0 };
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
  if (Array.isArray(target)) {
    if (estimator === "dr") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "estimator dr needs the target's probability of every arm: give target as a function or as { picks }",
      );
    }
    return {
      kind: "probabilities",
      values: readArray(target, n, "target", (v, i) => checkValue(v, `target[${i}]`, i, true)),
    };
  }
  if (target !== null && typeof target === "object" && !Array.isArray(target)) {
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
    `option target must be a function pi(arm, context, index), an array of probabilities or { picks: arm ids }, got ${describe(target)}`,
  );
}

function readArray<T>(src: readonly unknown[], n: number, what: string, check: (v: unknown, i: number) => T): T[] {
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

/**
 * The replay evaluator of Li, Chu, Langford & Wang (WSDM 2011, Algorithm 1) for a learning policy, with importance
 * weights for non-uniform logging. The events are streamed in order: on each, `policy.select(context)`; if the policy
 * picks the logged arm the event is *matched* and the policy learns the logged feedback with `update`, otherwise the
 * decision is discarded (`discard`). Every decision is settled, so no pending decision is left behind.
 *
 * The estimate is the weighted mean reward of the matched events, sum w_i r_i / sum w_i with w_i = min(1 / mu_i,
 * clip) (mu_i the logged propensity), and its standard error the delta-method one of that ratio. With uniform
 * logging every weight is equal and this is exactly Algorithm 1's average reward over the matched events: the
 * matched events are distributed as T rounds of the policy run online, T the match count (about n / K). With
 * non-uniform logging (e.g. an epsilon-greedy logger) the 1/mu weights make each matched event count as the
 * uniform-logging case would (the self-normalised weighted variant; consistent, not unbiased for small T), while
 * the policy still learns each matched event once, unweighted.
 *
 * The policy learns from the matched events: pass a fresh policy (or a copy) to evaluate it from scratch. Errors
 * are those of {@link estimateOffPolicy} for the log, plus INVALID_EVENT for a context whose length is not the
 * policy's `contextDim`, UNKNOWN_ARM when the policy has an arm the logging policy never plays, and INVALID_ARGUMENT
 * for something that is not an arm policy, all thrown before the policy is touched. An update the policy refuses
 * (e.g. a reward outside its range) is rethrown with the event's index after its decision is discarded. NUMERICAL
 * when no event matched, or when the estimate overflows (weights near 1e300 from tiny propensities: set `clip`),
 * both after the replay (the policy has then learned the matched events).
 */
export function replayEvaluate(
  events: readonly ArmEvent[],
  policy: ArmPolicy,
  options: ReplayOptions = {},
): ReplayResult {
  rejectUnknownOptions(options, REPLAY_OPTION_KEYS, "replayEvaluate", true);
  const common = readCommon(readOptions(options, "replayEvaluate", true));
  const p = policy as Partial<ArmPolicy> | null;
  if (
    p === null ||
    typeof p !== "object" ||
    p.protocol !== "arm" ||
    typeof p.select !== "function" ||
    typeof p.update !== "function" ||
    typeof p.discard !== "function" ||
    !Array.isArray(p.arms) ||
    typeof p.contextDim !== "number"
  ) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `policy must be an arm policy, got ${describe(policy)}`);
  }
  const log = readLog(events, common, policy.contextDim);
  for (const a of [...policy.arms]) {
    if (!log.armSet.has(a)) {
      throw new RouteKitError(
        ErrorCode.UnknownArm,
        `the policy's arm ${describe(a)} is not one the logging policy plays (logged arms: ${log.arms.map((x) => describe(x)).join(", ")}): replay cannot score its picks`,
        { arm: a },
      );
    }
  }
  const w: number[] = [];
  const r: number[] = [];
  let clipped = 0;
  for (let i = 0; i < log.events.length; i++) {
    const ev = log.events[i] as LoggedEvent;
    const d = policy.select(ev.context);
    if (d.arm !== ev.arm) {
      policy.discard(d);
      continue;
    }
    try {
      policy.update(d, ev.feedback);
    } catch (e) {
      try {
        policy.discard(d); // the refused update left it pending
      } catch {
        // the policy settled it anyway
      }
      atEvent(i, e);
    }
    const raw = 1 / ev.propensity;
    if (raw > common.clip) clipped++;
    w.push(Math.min(raw, common.clip));
    r.push(ev.feedback.reward);
  }
  const s = weightedMean(w, r);
  if (s === undefined) {
    throw new RouteKitError(
      ErrorCode.Numerical,
      `replay is undefined: the policy picked the logged arm on none of the ${log.events.length} events`,
    );
  }
  const result = finish("replay", s.mean, s.se, w, log.events.length, common, log, clipped);
  return { ...result, estimator: "replay", matched: w.length };
}
