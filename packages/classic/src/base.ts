/**
 * Helpers the classic policies share. The policies themselves extend core's `ArmPolicyBase` (named
 * arms, pending decisions, the seeded Rng, validation, decision events, the snapshot base).
 */
import {
  type ArmPolicyOptions,
  assertFinite,
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
export const CLASSIC_SNAPSHOT_VERSION = 2;

/** Largest context length any classic policy accepts (option and snapshot). */
export const MAX_CONTEXT_DIM = 1 << 16;
/** Largest side of a ridge matrix (LinUCB: d, or d + one-hot slots), so its d^2 Float64s stay allocatable. */
export const MAX_RIDGE_DIM = 1 << 14;

/**
 * Throws unless `v` is a finite number satisfying `ok`: INVALID_ARGUMENT for a non-number, NON_FINITE
 * for NaN or +-Infinity, OUT_OF_RANGE otherwise (core's error-code rule).
 */
export function checkOption(v: number, what: string, ok: (v: number) => boolean, expected: string): void {
  assertFinite(v, `option ${what}`);
  if (!ok(v)) {
    throw new RouteKitError(ErrorCode.OutOfRange, `option ${what} must be ${expected}, got ${String(v)}`);
  }
}

/** Validates a pending decision payload that is just an arm uid (context-free policies); returns it. */
export function checkUidPayload(json: Json): number {
  if (typeof json !== "number" || !Number.isSafeInteger(json) || json < 0) {
    snapshotCorrupt("ledger payload", "an arm uid");
  }
  return json as number;
}

/** Ledger codec for payloads that are just the chosen arm's uid (context-free policies). */
export const uidCodec: LedgerCodec<number> = {
  encode: (uid) => uid,
  decode: (json) => {
    if (!Number.isSafeInteger(json) || (json as number) < 0) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, "pending decision payload must be an arm uid");
    }
    return json as number;
  },
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

/** Throws OUT_OF_RANGE when |x|^2 overflows (such a context cannot be scored). */
export function checkContextNorm(xx: number): void {
  if (!Number.isFinite(xx)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      "context is too large: its squared norm overflows (expected entries well below 1e150 in magnitude)",
    );
  }
}
