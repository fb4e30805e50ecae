import { assertFinite, assertInRange, assertInt, ErrorCode, RouteKitError } from "@routekit/core";

/**
 * Exploration multiplier eta of the index mu + eta * sigma (spec P3).
 * - `"paper"`: sqrt(2 ln(2G/delta)), the paper's App. C.4 value (G = live arms).
 * - `"theory"`: sqrt(2 ln(2GT/delta)), Theorem 3's value; needs `horizon`.
 * - `"anytime"`: sqrt(2 ln(2Gt/delta)) with t the current round (RouteKit's, not the paper's).
 * - a number: used as is (0 gives Naive-KRR, the greedy baseline).
 */
export type EtaOption = number | "paper" | "theory" | "anytime";

/** Checks an eta option before anything is built. */
export function checkEta(eta: EtaOption, delta: number, horizon: number | undefined): void {
  assertInRange(delta, "delta", 0, 1, { min: true, max: true });
  if (typeof eta === "number") {
    assertFinite(eta, "eta");
    if (eta < 0) throw new RouteKitError(ErrorCode.OutOfRange, `eta must be >= 0, got ${eta}`);
    return;
  }
  if (eta !== "paper" && eta !== "theory" && eta !== "anytime") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `eta must be a number >= 0 or one of "paper", "theory", "anytime", got ${String(eta)}`,
    );
  }
  if (eta === "theory") {
    if (horizon === undefined) {
      throw new RouteKitError(ErrorCode.InvalidArgument, 'eta "theory" needs the horizon T: pass options.horizon');
    }
  }
}

/** The numeric eta for G live arms at round t (1-based). */
export function resolveEta(eta: EtaOption, delta: number, arms: number, t: number, horizon?: number): number {
  if (typeof eta === "number") return eta;
  const G = Math.max(1, arms);
  if (eta === "paper") return Math.sqrt(2 * Math.log((2 * G) / delta));
  if (eta === "theory") return Math.sqrt(2 * Math.log((2 * G * (horizon ?? 1)) / delta));
  return Math.sqrt(2 * Math.log((2 * G * Math.max(1, t)) / delta));
}

/**
 * Affine map applied to every observed score before learning (spec P1: the UCB index is not
 * scale-invariant, so the scale is part of the model). `learned = (reward - offset) * scale`,
 * then `priorMean` is subtracted so the regression shrinks towards it instead of 0; predictions
 * are reported on the learned scale with `priorMean` added back.
 */
export interface ScoreTransform {
  /** Multiplier (default 1: scores already in [0, 1]; use 0.01 for raw CLIPScore). */
  readonly scale?: number;
  /** Subtracted before scaling (default 0). */
  readonly offset?: number;
  /** Constant the per-arm regressions shrink towards (default 0, as in the paper). */
  readonly priorMean?: number;
}

export interface ResolvedTransform {
  readonly scale: number;
  readonly offset: number;
  readonly priorMean: number;
}

export function resolveTransform(t: ScoreTransform | undefined): ResolvedTransform {
  const scale = t?.scale ?? 1;
  const offset = t?.offset ?? 0;
  const priorMean = t?.priorMean ?? 0;
  assertInRange(scale, "scoreTransform.scale", 0, 1e6, { min: true });
  assertInRange(offset, "scoreTransform.offset", -1e12, 1e12);
  assertInRange(priorMean, "scoreTransform.priorMean", -1e12, 1e12);
  return { scale, offset, priorMean };
}

/** Validates the common numeric options shared by every policy of the family. */
export function checkCommon(o: { contextDim: number; alpha: number }): void {
  assertInt(o.contextDim, "contextDim", 1, 1 << 20);
  // Bounded so no valid input can overflow the inverses (1/alpha and alpha enter them directly).
  assertInRange(o.alpha, "alpha", 1e-9, 1e9);
}

/** Largest |learned score| accepted; beyond it an update could overflow the regressions. */
export const MAX_SCORE = 1e12;

/** The learned score of a reward: (reward - offset) * scale - priorMean, checked before any mutation. */
export function learnedScore(reward: number, t: ResolvedTransform): number {
  const s = (reward - t.offset) * t.scale - t.priorMean;
  if (!(Math.abs(s) <= MAX_SCORE)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `reward ${reward} maps to a learned score of ${s}, beyond +-${MAX_SCORE}: rescale the scores (scoreTransform.scale)`,
    );
  }
  return s;
}

/** Largest ||y||^2 accepted for unnormalised contexts (normalizeContext: false). */
export const MAX_CONTEXT_NORM2 = 1e12;

/**
 * Writes y / ||y|| into out (y itself when ||y|| = 0, or when `normalize` is false); returns
 * ||out||^2. Magnitudes whose squares overflow or underflow are rescaled by the largest entry first.
 * Unnormalised contexts must have ||y||^2 <= MAX_CONTEXT_NORM2 (OUT_OF_RANGE otherwise).
 */
export function normalizeInto(y: ArrayLike<number>, out: Float64Array, d: number, normalize: boolean): number {
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
    return s;
  }
  if (s === 0) {
    // All zeros, or every square underflowed: rescale by the largest magnitude first.
    let m = 0;
    for (let i = 0; i < d; i++) m = Math.max(m, Math.abs(out[i] as number));
    if (m === 0) return 0;
    for (let i = 0; i < d; i++) out[i] = (out[i] as number) / m;
    s = 0;
    for (let i = 0; i < d; i++) s += (out[i] as number) * (out[i] as number);
  } else if (!Number.isFinite(s) || s < 1e-290) {
    let m = 0;
    for (let i = 0; i < d; i++) m = Math.max(m, Math.abs(out[i] as number));
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
  return s2;
}
