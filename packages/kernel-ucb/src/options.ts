/**
 * Option readers and the score/context maps shared by the family (internal: not exported from the
 * package entry, except the option types).
 */
import {
  checkNumber,
  describe,
  ErrorCode,
  type Json,
  optionKeys,
  RouteKitError,
  readNumber,
  readObject,
  rejectUnknownOptions,
} from "@routekit/core";

/**
 * Exploration multiplier of the index mu + exploration * sigma (the paper's eta).
 * - `"paper"`: sqrt(2 ln(2G/delta)), the value of the paper's experiments (App. C.4; G = live arms).
 * - `"theory"`: sqrt(2 ln(2GT/delta)), Theorem 3's value; needs `horizon`.
 * - `"anytime"`: sqrt(2 ln(2Gt/delta)) with t the current round (RouteKit's, not the paper's).
 * - a number >= 0: used as is (0 gives Naive-KRR, the greedy baseline).
 *
 * delta is the `confidence` option.
 */
export type Exploration = number | "paper" | "theory" | "anytime";

const PRESETS = ["paper", "theory", "anytime"] as const;

/** Reads an exploration value (option or snapshot field): a number >= 0 or a preset name. */
export function checkExploration(v: unknown, what: string): Exploration {
  if (typeof v === "number") return checkNumber(v, what, { min: 0 });
  if (typeof v !== "string" || !(PRESETS as readonly string[]).includes(v)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} must be a number >= 0 or one of "paper", "theory", "anytime", got ${describe(v)}`,
    );
  }
  return v as Exploration;
}

/**
 * ln(a / b) that stays finite when a / b overflows (a confidence down to the smallest double): the same
 * bits as Math.log(a / b) whenever the quotient is finite.
 */
export function logRatio(a: number, b: number): number {
  const q = a / b;
  return Number.isFinite(q) ? Math.log(q) : Math.log(a) - Math.log(b);
}

/**
 * The numeric exploration multiplier for G live arms at round t (1-based), the public form: every argument is
 * checked as the options are (an unknown preset was computed as "anytime", "theory" without a horizon as T = 1,
 * and a confidence outside (0, 1) gave NaN or Infinity).
 */
export function resolveExploration(
  e: Exploration,
  confidence: number,
  arms: number,
  t: number,
  horizon: number | undefined,
): number {
  const ex = checkExploration(e, "exploration");
  checkNumber(confidence, "confidence", { min: 0, max: 1, openMin: true, openMax: true });
  checkNumber(arms, "arms", { integer: true, min: 0 });
  checkNumber(t, "t", { integer: true, min: 1 });
  if (horizon !== undefined) checkNumber(horizon, "horizon", { integer: true, min: 1 });
  else if (ex === "theory") {
    throw new RouteKitError(ErrorCode.InvalidArgument, 'exploration "theory" needs the horizon T');
  }
  return explorationValue(ex, confidence, arms, t, horizon);
}

/** {@link resolveExploration} without the argument checks, for the policies (whose options are checked). */
export function explorationValue(
  e: Exploration,
  confidence: number,
  arms: number,
  t: number,
  horizon: number | undefined,
): number {
  resolveExplorationTo(e, confidence, arms, t, horizon, EXPLORATION_OUT, 0);
  return EXPLORATION_OUT[0] as number;
}

/** Scratch for {@link explorationValue}. */
const EXPLORATION_OUT = new Float64Array(1);

/**
 * {@link resolveExploration} stored into out[oi] instead of returned (a returned double is boxed when the call is
 * not inlined: 16 bytes per select). Same value.
 */
export function resolveExplorationTo(
  e: Exploration,
  confidence: number,
  arms: number,
  t: number,
  horizon: number | undefined,
  out: Float64Array,
  oi: number,
): void {
  if (typeof e === "number") {
    out[oi] = e;
    return;
  }
  const G = Math.max(1, arms);
  if (e === "paper") out[oi] = Math.sqrt(2 * logRatio(2 * G, confidence));
  else if (e === "theory") out[oi] = Math.sqrt(2 * logRatio(2 * G * (horizon ?? 1), confidence));
  else out[oi] = Math.sqrt(2 * logRatio(2 * G * Math.max(1, t), confidence));
}

/**
 * Affine map applied to every observed score before learning: the UCB index is not scale-invariant
 * (multiplying every score by c is the same as dividing the exploration by c), so the scale is part of
 * the model. `learned = (reward - offset) * scale - priorMean`, so the regressions shrink towards
 * `priorMean` instead of 0; predictions are reported on the caller's scale.
 */
export interface ScoreTransform {
  /** Multiplier (default 1: scores already in [0, 1]; use 0.01 for raw CLIPScore). */
  readonly scale?: number;
  /** Subtracted before scaling (default 0). */
  readonly offset?: number;
  /** Constant the per-arm regressions shrink towards (default 0, as in the paper). */
  readonly priorMean?: number;
}

/** The keys of {@link ScoreTransform}. */
export const SCORE_TRANSFORM_KEYS = optionKeys<ScoreTransform>()(["scale", "offset", "priorMean"]);

/** A score transform with every field set. */
export interface ResolvedTransform {
  readonly scale: number;
  readonly offset: number;
  readonly priorMean: number;
}

/**
 * Scale range: below 1e-12 the learned scores are subnormal and predictions divided back by the scale
 * overflow (a visited arm's sigma was Infinity at 5e-324).
 */
const SCALE = { min: 1e-12, max: 1e6 } as const;
const SHIFT = { min: -1e12, max: 1e12 } as const;

/** The `scoreTransform` option (undefined: identity). */
export function readTransform(v: unknown): ResolvedTransform {
  if (v === undefined) return { scale: 1, offset: 0, priorMean: 0 };
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option scoreTransform must be an object { scale?, offset?, priorMean? }, got ${describe(v)}`,
    );
  }
  const o = v as Record<string, unknown>;
  rejectUnknownOptions(o, SCORE_TRANSFORM_KEYS, "option scoreTransform");
  const num = (name: string, fallback: number, range: typeof SCALE | typeof SHIFT) => {
    const x = o[name];
    return x === undefined ? fallback : checkNumber(x, `option scoreTransform.${name}`, range);
  };
  return { scale: num("scale", 1, SCALE), offset: num("offset", 0, SHIFT), priorMean: num("priorMean", 0, SHIFT) };
}

/** A snapshot's score transform: every field present and in range (SNAPSHOT_CORRUPT otherwise). */
export function readTransformJSON(v: Json | undefined): ResolvedTransform {
  const o = readObject(v, '"scoreTransform"');
  rejectUnknownOptions(o, SCORE_TRANSFORM_KEYS, '"scoreTransform"');
  const inShift = (x: number) => x >= SHIFT.min && x <= SHIFT.max;
  return {
    scale: readNumber(o, "scale", (x) => x >= SCALE.min && x <= SCALE.max, "a number in [1e-12, 1e6]"),
    offset: readNumber(o, "offset", inShift, "a number in [-1e12, 1e12]"),
    priorMean: readNumber(o, "priorMean", inShift, "a number in [-1e12, 1e12]"),
  };
}

/** Largest |learned score| accepted; beyond it an update could overflow the regressions. */
export const MAX_SCORE = 1e12;

/** The learned score of a reward: (reward - offset) * scale - priorMean, checked before any mutation. */
export function learnedScore(reward: number, t: ResolvedTransform): number {
  learnedScoreTo(reward, t, SCORE_OUT, 0);
  return SCORE_OUT[0] as number;
}

/** Scratch for {@link learnedScore}. */
const SCORE_OUT = new Float64Array(1);

/**
 * {@link learnedScore} stored into out[oi] instead of returned: a double returned from a call V8 does not inline
 * is boxed into a 16-byte heap number (per round, in the update path), one stored into a typed array is not.
 */
export function learnedScoreTo(reward: number, t: ResolvedTransform, out: Float64Array, oi: number): void {
  const s = (reward - t.offset) * t.scale - t.priorMean;
  if (!(Math.abs(s) <= MAX_SCORE)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `reward ${reward} maps to a learned score of ${s}, beyond +-${MAX_SCORE}: rescale the scores (scoreTransform.scale)`,
    );
  }
  out[oi] = s;
}

/** Largest ||y||^2 accepted for unnormalised contexts (normalizeContext: false). */
export const MAX_CONTEXT_NORM2 = 1e12;

/**
 * Writes y / ||y|| into out (y itself when ||y|| = 0, or when `normalize` is false); returns
 * ||out||^2 (summed in index order). Magnitudes whose squares overflow or underflow are rescaled by
 * the largest entry first. Unnormalised contexts must have ||y||^2 <= MAX_CONTEXT_NORM2 (OUT_OF_RANGE
 * otherwise). A pure function of y: the same input gives the same bits at select and at update.
 */
export function normalizeInto(y: ArrayLike<number>, out: Float64Array, d: number, normalize: boolean): number {
  normalizeIntoTo(y, out, d, normalize, NORM2_OUT, 0);
  return NORM2_OUT[0] as number;
}

/** Scratch for {@link normalizeInto}. */
const NORM2_OUT = new Float64Array(1);

/**
 * {@link normalizeInto} with ||out||^2 stored into norm2[ni] instead of returned (a returned double is boxed when
 * the call is not inlined; RFF-UCB's select does not use the norm). Same bits.
 */
export function normalizeIntoTo(
  y: ArrayLike<number>,
  out: Float64Array,
  d: number,
  normalize: boolean,
  norm2: Float64Array,
  ni: number,
): void {
  let s = 0;
  for (let i = 0; i < d; i++) {
    const v = y[i] as number;
    out[i] = v;
    s += v * v;
  }
  if (!normalize) {
    if (!(s <= MAX_CONTEXT_NORM2)) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `context has squared norm ${s}, above ${MAX_CONTEXT_NORM2}: normalise it (normalizeContext: true) or scale it down`,
      );
    }
    norm2[ni] = s;
    return;
  }
  if (s === 0 || !Number.isFinite(s) || s < 1e-290) {
    // All zeros, or squares that overflow or underflow: rescale by the largest magnitude first.
    let m = 0;
    for (let i = 0; i < d; i++) m = Math.max(m, Math.abs(out[i] as number));
    if (m === 0) {
      norm2[ni] = 0;
      return;
    }
    for (let i = 0; i < d; i++) out[i] = (out[i] as number) / m;
    s = 0;
    for (let i = 0; i < d; i++) s += (out[i] as number) * (out[i] as number);
  }
  const inv = 1 / Math.sqrt(s);
  let s2 = 0;
  for (let i = 0; i < d; i++) {
    const v = (out[i] as number) * inv;
    out[i] = v;
    s2 += v * v;
  }
  norm2[ni] = s2;
}
