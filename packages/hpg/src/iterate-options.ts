/**
 * Validation shared by the two exported single-model iterates ({@link MirrorIterate} and its dense
 * reference {@link DenseMirrorIterate}): their options, and the query and step of each `step` call, so
 * bad input is a typed RouteKitError that changes nothing, as everywhere in RouteKit. (The routers pass
 * only validated queries, so the per-step check is one pass over q.)
 */
import {
  assertFinite,
  assertVector,
  ErrorCode,
  enumOption,
  MAX_CONTEXT_DIM,
  numberOption,
  RouteKitError,
  readOptions,
  requiredNumber,
} from "@routekit/core";

/** The validated options of an iterate (defaults filled in; `maxRank` not yet capped at `dim`). */
export interface IterateConfig {
  readonly dim: number;
  readonly beta: number;
  readonly radius: number;
  readonly geometry: "hypentropy" | "euclidean";
  readonly maxRank: number;
  readonly reorthEvery: number;
}

/**
 * Reads an iterate's options: `dim` an integer in [1, 65536], `beta` and `radius` finite and > 0,
 * `geometry` "hypentropy" (default) or "euclidean", `maxRank` an integer >= 1 (default `dim`),
 * `reorthEvery` an integer >= 0 (default 1000). Throws INVALID_ARGUMENT, NON_FINITE or OUT_OF_RANGE.
 */
export function readIterateOptions(options: unknown, what: string): IterateConfig {
  const o = readOptions(options, what);
  const dim = requiredNumber(o, "dim", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
  const beta = requiredNumber(o, "beta", { min: 0, openMin: true });
  const radius = requiredNumber(o, "radius", { min: 0, openMin: true });
  const geometry = enumOption(o, "geometry", ["hypentropy", "euclidean"] as const, "hypentropy");
  const maxRank = numberOption(o, "maxRank", dim, { integer: true, min: 1 });
  const reorthEvery = numberOption(o, "reorthEvery", 1000, { integer: true, min: 0 });
  return { dim, beta, radius, geometry, maxRank, reorthEvery };
}

/**
 * Checks the arguments of an iterate's `step(q, rho)`: q `dim` finite numbers (INVALID_ARGUMENT,
 * DIMENSION_MISMATCH, NON_FINITE), rho a finite number (INVALID_ARGUMENT, NON_FINITE).
 */
export function checkStep(q: unknown, dim: number, rho: unknown): void {
  assertFinite(rho as number, "rho");
  // The routers' path (a Float64Array of the right length, every step of every model) in one multiply-add per
  // entry: x * 0 is 0 for every finite x and NaN for NaN or +-Infinity. Anything else gets the full check.
  if (q instanceof Float64Array && q.length === dim) {
    let z = 0;
    for (let i = 0; i < dim; i++) z += (q[i] as number) * 0;
    if (z === 0) return;
  }
  assertVector(q, dim, "q");
}

/** Checks the length of a query given to an iterate's `score` (DIMENSION_MISMATCH; O(1), it runs per select). */
export function checkScoreLength(q: ArrayLike<number>, dim: number): void {
  if (q === null || typeof q !== "object" || q.length !== dim) {
    const got = q !== null && typeof q === "object" ? `length ${q.length}` : typeof q;
    throw new RouteKitError(ErrorCode.DimensionMismatch, `q must hold dim = ${dim} numbers, got ${got}`);
  }
}
