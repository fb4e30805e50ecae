/** The logged events and the statistics both off-policy evaluators share (internal to core: see off-policy.ts). */
import { ErrorCode, RouteKitError } from "./errors.js";
import { checkEvent, eventVector } from "./events.js";
import { normalQuantile } from "./normal.js";
import type { OffPolicyResult } from "./off-policy.js";
import { armsOption, type NumberRange, numberOption } from "./options.js";
import type { ArmFeedback } from "./protocols.js";
import { assertFinite, assertInRange, describe, errorText, readLength } from "./validate.js";

/** One validated logged event. */
export interface LoggedEvent {
  readonly arm: string;
  readonly context: Float64Array | undefined;
  readonly propensity: number;
  readonly feedback: ArmFeedback;
}

export interface Log {
  readonly events: readonly LoggedEvent[];
  readonly arms: readonly string[];
  readonly armSet: ReadonlySet<string>;
  readonly missing: number;
}

export interface CommonOptions {
  readonly clip: number;
  readonly level: number;
  readonly fallback: number | undefined;
  readonly arms: readonly string[];
  /** Whether the caller gave `arms`: an explicit empty list names no arm, so every logged arm is outside it. */
  readonly armsGiven: boolean;
}

export const UNIT_OPEN: NumberRange = { min: 0, max: 1, openMin: true, openMax: true };

export function readCommon(o: Record<string, unknown>): CommonOptions {
  const arms = o.arms; // read once: armsOption reads the copy below
  return {
    arms: armsOption({ arms }, false),
    armsGiven: arms !== undefined,
    clip: numberOption(o, "clip", Number.POSITIVE_INFINITY, { min: 0, openMin: true }),
    level: numberOption(o, "level", 0.95, UNIT_OPEN),
    fallback: numberOption(o, "fallbackPropensity", undefined, { min: 0, max: 1, openMin: true }),
  };
}

/** Re-throws a RouteKitError raised about event `i` with the index in its message and details. */
export function atEvent(i: number, e: unknown): never {
  if (e instanceof RouteKitError) {
    throw new RouteKitError(e.code, `events[${i}]: ${e.message}`, { ...e.details, index: i });
  }
  throw e;
}

/** `events[i]`; a getter or proxy that throws makes the event unreadable: INVALID_EVENT. */
export function readEvent(events: readonly unknown[], i: number): unknown {
  try {
    return events[i];
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidEvent, `reading the event threw: ${errorText(e)}`);
  }
}

/** Validates every event (before anything is computed or any policy is touched) and reads each field once. */
export function readLog(events: unknown, common: CommonOptions, contextDim: number | undefined): Log {
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
      // Not `arms.length > 0`: `arms: []` was read as "not given" and every logged arm passed.
      if (common.armsGiven && !given.has(arm)) {
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
  const arms = common.armsGiven ? common.arms : named;
  return { events: out, arms, armSet: new Set(arms), missing };
}

export function contextLength(expected: string, len: number | null): never {
  throw new RouteKitError(
    ErrorCode.InvalidEvent,
    `event decision.context must be ${expected}, got ${len === null ? "null" : `${len} numbers`}`,
  );
}

/** Calls a caller's function for event `i` and checks its result is a number in [lo, hi] (hi Infinity: finite). */
export function callNumber(
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
  return checkValue(v, `${name}(${describe(arm)}, context)`, i, probability); // checkValue prefixes events[i]
}

/** `v` as a finite number (in [0, 1] for a probability): the typed errors of assertFinite / assertInRange, at event i. */
export function checkValue(v: unknown, what: string, i: number, probability: boolean): number {
  try {
    if (probability) assertInRange(v as number, what, 0, 1);
    else assertFinite(v as number, what);
  } catch (e) {
    atEvent(i, e);
  }
  return v as number;
}

/** Weight statistics and the interval, shared by every estimator. */
export function finish(
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
  // z = Phi^-1((1 + level) / 2), taken from the lower tail: (1 + level) / 2 rounds to 1 for a level within 1.1e-16
  // of 1 (a valid level), whose quantile is Infinity; (1 - level) / 2 keeps its digits.
  const z = -normalQuantile((1 - common.level) / 2);
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
 * Both are invariant to the scale of the weights, and scale with the rewards: when a sum overflows (weights near
 * 1e300 from tiny propensities, rewards near 1e308) they are formed again from weights and rewards scaled by powers
 * of two (exact), so finite results come back finite (they were NUMERICAL). Sums that do not overflow keep their bits.
 */
export function weightedMean(w: ArrayLike<number>, r: ArrayLike<number>): { mean: number; se: number } | undefined {
  const plain = weightedMeanScaled(w, r, 1, 1);
  if (plain === undefined || (Number.isFinite(plain.mean) && Number.isFinite(plain.se))) return plain;
  let maxW = 0;
  let maxR = 0;
  for (let i = 0; i < w.length; i++) {
    maxW = Math.max(maxW, w[i] as number);
    maxR = Math.max(maxR, Math.abs(r[i] as number));
  }
  // An infinite weight (a propensity whose inverse overflows) has no finite ratio: left to the caller's NUMERICAL.
  if (!(maxW < Number.POSITIVE_INFINITY) || !(maxR < Number.POSITIVE_INFINITY)) return plain;
  // The largest weight to [0.5, 1), the largest |reward| to at most 0.25 (so r - V cannot overflow); m = w.length
  // terms of at most 1 each then sum to at most m.
  const sw = powerOfTwoBelow(maxW);
  const sr = maxR > 0.25 ? powerOfTwoBelow(maxR) / 4 : 1;
  const scaled = weightedMeanScaled(w, r, sw, sr);
  if (scaled === undefined) return plain;
  return { mean: scaled.mean / sr, se: scaled.se / sr };
}

/**
 * 2^-e with 2^(e-1) <= x < 2^e (about; x > 0 finite). An exact power of two, subnormal for e above 1022, which still
 * scales a normal double exactly into the normal range.
 */
function powerOfTwoBelow(x: number): number {
  return 2 ** -(Math.floor(Math.log2(x)) + 1);
}

function weightedMeanScaled(
  w: ArrayLike<number>,
  r: ArrayLike<number>,
  sw: number,
  sr: number,
): { mean: number; se: number } | undefined {
  const m = w.length;
  let sumW = 0;
  let sumWr = 0;
  for (let i = 0; i < m; i++) {
    const wi = (w[i] as number) * sw;
    sumW += wi;
    sumWr += wi * ((r[i] as number) * sr);
  }
  if (!(sumW > 0)) return undefined;
  const mean = sumWr / sumW;
  let s = 0;
  for (let i = 0; i < m; i++) {
    const d = (w[i] as number) * sw * ((r[i] as number) * sr - mean);
    s += d * d;
  }
  return { mean, se: m > 1 ? Math.sqrt((s * m) / (m - 1)) / sumW : 0 };
}
