/**
 * Snapshot pieces shared by the routers of this package: the layout version and one model's factored iterate.
 * The exported readers check their arguments (core's rule); the routers call the unchecked versions
 * (helpers-core.ts) with their own, already valid, configuration.
 */
import {
  checkNumber,
  describe,
  ErrorCode,
  enumOption,
  type Json,
  MAX_CONTEXT_DIM,
  RouteKitError,
  readObject,
} from "@routekit/core";
import { encodeIterateUnchecked, type IterateData, readIterateUnchecked } from "./helpers-core.js";
import { type MirrorGeometry, MirrorIterate } from "./mirror.js";

export type { IterateData } from "./helpers-core.js";

/** Snapshot layout version of every policy in this package. */
export const HPG_SNAPSHOT_VERSION = 3;

/** One model's factored mirror eigenpairs as snapshot JSON. `it` must be a MirrorIterate (INVALID_ARGUMENT). */
export function encodeIterate(it: MirrorIterate): Record<string, Json> {
  if (!(it instanceof MirrorIterate))
    throw new RouteKitError(ErrorCode.InvalidArgument, `it must be a MirrorIterate, got ${describe(it)}`);
  return encodeIterateUnchecked(it);
}

export function loadIterate(it: MirrorIterate, a: IterateData): void {
  it.load(a.basis, a.basisSize, a.coef, a.gamma, a.rank, a.steps);
}

/**
 * Reads one model's factored mirror eigenpairs from a snapshot: rank <= maxRank <= basisSize <=
 * basisCap, orthonormal basis rows and coefficient rows (to 1e-6), nonzero mirror eigenvalues, and a
 * primal nuclear norm inside the ball (the mirror eigenvalues are the primal ones in the Euclidean geometry);
 * SNAPSHOT_CORRUPT otherwise (also when `json` is no object). The configuration it is read against is checked
 * first: `d` an integer in [1, 65536], `maxRank` one in [1, d], `beta` and `radius` finite and > 0, `geometry`
 * "hypentropy" (default) or "euclidean" (INVALID_ARGUMENT, NON_FINITE, OUT_OF_RANGE).
 */
export function readIterate(
  json: Record<string, Json>,
  d: number,
  maxRank: number,
  beta: number,
  radius: number,
  geometry: MirrorGeometry = "hypentropy",
): IterateData {
  const dim = checkNumber(d, "d", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
  const rank = checkNumber(maxRank, "maxRank", { integer: true, min: 1, max: dim });
  const b = checkNumber(beta, "beta", { min: 0, openMin: true });
  const r = checkNumber(radius, "radius", { min: 0, openMin: true });
  const g = enumOption({ geometry }, "geometry", ["hypentropy", "euclidean"] as const, "hypentropy");
  return readIterateUnchecked(readObject(json, "arms[]"), dim, rank, b, r, g);
}
