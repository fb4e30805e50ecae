import { describe, ErrorCode, RouteKitError } from "@routekit/core";

/**
 * Returns `v` if it is a finite number satisfying `ok`; else throws by core's error rule: INVALID_ARGUMENT for
 * another type, NON_FINITE for NaN or +-Infinity, OUT_OF_RANGE for a number `ok` refuses.
 */
export function checkNumber(v: unknown, what: string, ok: (v: number) => boolean, expected: string): number {
  if (typeof v === "number" && Number.isFinite(v) && ok(v)) return v;
  const code =
    typeof v !== "number" ? ErrorCode.InvalidArgument : Number.isFinite(v) ? ErrorCode.OutOfRange : ErrorCode.NonFinite;
  throw new RouteKitError(code, `${what} must be ${expected}, got ${describe(v)}`);
}

/**
 * Largest reward noise standard deviation and Gaussian mean magnitude of the basic bandits. A draw needs |mean| +
 * 8.6 sd within the largest double (core's `normal`), so noiseSd = 1e308 was accepted and then failed every run at
 * its first pull, and means of +-1e308 made the first regret infinite; 1e100, as for LinearContextualBandit's theta
 * norms, leaves room for differences, noise and sums over any horizon.
 */
export const MAX_REWARD_SCALE = 1e100;

/** A round index t: an integer >= 0 (NON_FINITE, OUT_OF_RANGE or INVALID_ARGUMENT otherwise, by checkNumber's rule). */
export function checkRound(t: unknown, what: string): number {
  return checkNumber(t, what, (v) => Number.isInteger(v) && v >= 0, "an integer >= 0");
}

/** Arm ids: the given ones (validated, unique) or "arm0".."arm{k-1}". */
export function armIds(given: readonly string[] | undefined, k: number, what: string): string[] {
  if (given === undefined) return Array.from({ length: k }, (_, i) => `arm${i}`);
  if (!Array.isArray(given) || given.length === 0) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be a non-empty array of arm ids`);
  }
  const seen = new Set<string>();
  for (const id of given) {
    if (typeof id !== "string" || id.length === 0) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must hold non-empty strings, got ${describe(id)}`);
    }
    if (seen.has(id)) throw new RouteKitError(ErrorCode.DuplicateArm, `${what} lists arm "${id}" twice`);
    seen.add(id);
  }
  return [...given];
}

/** Throws INVALID_STATE when an environment is used before reset(). */
export function needReset(ready: boolean, name: string): void {
  if (!ready) throw new RouteKitError(ErrorCode.InvalidState, `${name}: call reset(rng) before using the environment`);
}

export function unknownArm(arm: string, live: readonly string[]): RouteKitError {
  return new RouteKitError(
    ErrorCode.UnknownArm,
    `unknown or not yet live arm ${describe(arm)} (live: ${live.join(", ")})`,
  );
}

/**
 * A given `k` must agree with the number of arms the lists give (`arms`, `means`, `thetas`): it was ignored, so
 * `{ k: 3, means: [0.1, 0.2] }` silently made a 2-armed problem.
 */
export function checkArmCount(k: number | undefined, count: number, lists: string): void {
  if (k === undefined) return;
  checkNumber(k, "option k", (v) => Number.isInteger(v) && v >= 1, "an integer >= 1");
  if (k !== count) {
    throw new RouteKitError(ErrorCode.DimensionMismatch, `option k is ${k} but ${lists} give ${count} arms`);
  }
}
