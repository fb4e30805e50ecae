/**
 * Helpers the classic policies share. The policies themselves extend core's `ArmPolicyBase` (named
 * arms, pending decisions, the seeded Rng, validation, decision events, the snapshot base).
 */
import {
  type ArmPolicyOptions,
  ErrorCode,
  type Json,
  type LedgerCodec,
  RouteKitError,
  snapshotCorrupt,
} from "@routekit/core";

export { type ArmState, argmaxRandomTie, restoring } from "@routekit/core";

/** Options every classic policy accepts (core's arm-policy options). */
export type BasePolicyOptions = ArmPolicyOptions;

/** Current snapshot layout version of every classic policy. */
export const CLASSIC_SNAPSHOT_VERSION = 3;

/** Largest context length any classic policy accepts (option and snapshot). */
export const MAX_CONTEXT_DIM = 1 << 16;
/** Largest side of a ridge matrix (LinUCB: d, or d + one-hot slots): core's, shared with the cascade policies. */
export { MAX_RIDGE_DIM } from "@routekit/core";

/**
 * A pending decision of a context-free policy: the chosen arm's uid and, for policies whose
 * distribution is explicit (random, epsilon-greedy), the probability of the pick (NaN otherwise).
 */
export interface UidPayload {
  readonly uid: number;
  readonly propensity: number;
}

/**
 * Decodes a pending decision payload of a context-free policy (SNAPSHOT_CORRUPT otherwise): an arm
 * uid, or [uid, propensity] with the propensity in (0, 1].
 */
export function decodeUidPayload(json: Json): UidPayload {
  const pair = Array.isArray(json);
  const uid = pair ? (json as Json[])[0] : json;
  const propensity = pair ? (json as Json[])[1] : Number.NaN;
  if (typeof uid !== "number" || !Number.isSafeInteger(uid) || uid < 0) {
    snapshotCorrupt("ledger payload", "an arm uid or [uid, propensity]");
  }
  if (
    pair &&
    ((json as Json[]).length !== 2 || typeof propensity !== "number" || !(propensity > 0 && propensity <= 1))
  ) {
    snapshotCorrupt("ledger payload", "[uid, propensity] with the propensity in (0, 1]");
  }
  return { uid: uid as number, propensity: propensity as number };
}

/** Ledger codec of {@link UidPayload}: the uid alone, or [uid, propensity]. */
export const uidCodec: LedgerCodec<UidPayload> = {
  encode: (p) => (Number.isNaN(p.propensity) ? p.uid : [p.uid, p.propensity]),
  decode: decodeUidPayload,
};

/**
 * Guards a ridge update before it mutates anything: throws NUMERICAL when the Sherman-Morrison step
 * (A^-1 -= u u^T / denom) or the accompanying vector step (`step` = largest |increment|, e.g.
 * |reward| |x|) would overflow, so extreme-but-finite input cannot leave Infinity or NaN behind.
 */
export function checkRidgeStep(uu: number, denom: number, step: number): void {
  if (!(Number.isFinite(denom) && denom > 0 && Number.isFinite(uu / denom) && Number.isFinite(step))) {
    throw new RouteKitError(
      ErrorCode.Numerical,
      "this feedback would overflow the ridge model (context or reward magnitude too large); the update was not applied",
    );
  }
}

/**
 * Clears the rounding left on the diagonal of A^-1 (upper storage, row stride ld) by a Sherman-Morrison
 * step: the exact diagonal is 1/(1 + ...) > 0, but a context such as (1e8, 0) makes
 * a_00 - u_0^2 / (1 + x.u) = 1 - 1e16/(1 + 1e16) cancel to 0, and rounding can push it below 0.
 * Negative entries are set to 0, so every reachable A^-1 has a diagonal >= 0, which is what a
 * snapshot is checked against (it must restore every state an update can reach).
 */
export function clampInverseDiagonal(Ainv: Float64Array, n: number, ld = n): void {
  for (let i = 0; i < n; i++) {
    const k = i * ld + i;
    if ((Ainv[k] as number) < 0) Ainv[k] = 0;
  }
}

/** Throws OUT_OF_RANGE when |x|^2 overflows (such a context cannot be scored). */
export function checkContextNorm(xx: number): void {
  if (!Number.isFinite(xx)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      "context is too large: its squared norm overflows (expected entries well below 1e150 in magnitude)",
    );
  }
}

/** Refuses (INVALID_EVENT) an event context whose squared norm overflows, as `select` refuses it (OUT_OF_RANGE). */
export function checkEventContextNorm(xx: number): void {
  if (!Number.isFinite(xx)) {
    throw new RouteKitError(
      ErrorCode.InvalidEvent,
      "event decision.context is too large: its squared norm overflows (select refuses such a context with OUT_OF_RANGE)",
    );
  }
}

/** Documented range of LinUCB's `ridge` option. */
export const RIDGE_RANGE = { min: 1e-8, max: 1e8 } as const;

/**
 * The exponent e of a power of two with |v| <= 2^e (up to Math.log2's rounding: |v| / 2^e < 2 in any case), at
 * least 0 and at most 1023, so 2^-e is an exact scale that only ever shrinks a value. For the robust score path of
 * the LinUCB policies: dividing by such powers of two keeps every quantity below the largest double.
 */
export function scaleExponent(v: number): number {
  const a = Math.abs(v);
  if (!(a > 1)) return 0;
  return Math.min(1023, Math.ceil(Math.log2(a)));
}

/** Largest |a[i]| over i < n. */
export function maxAbs(a: ArrayLike<number>, n: number, from = 0): number {
  let m = 0;
  for (let i = from; i < n; i++) m = Math.max(m, Math.abs(a[i] as number));
  return m;
}
