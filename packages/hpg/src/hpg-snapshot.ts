/** Snapshot pieces shared by the routers of this package: the layout version and one model's factored iterate. */
import { encodeF64, type Json, readF64, readInt, snapshotCorrupt } from "@routekit/core";
import { mirrorNuclearNorm, rowsOrthonormalityError } from "./iterate-options.js";
import { basisCap, type MirrorGeometry, type MirrorIterate } from "./mirror.js";

/** Snapshot layout version of every policy in this package. */
export const HPG_SNAPSHOT_VERSION = 3;

export interface IterateData {
  readonly rank: number;
  readonly steps: number;
  readonly basisSize: number;
  readonly basis: Float64Array;
  readonly coef: Float64Array;
  readonly gamma: Float64Array;
}

/** One model's factored mirror eigenpairs as snapshot JSON. */
export function encodeIterate(it: MirrorIterate): Record<string, Json> {
  const e = it.eig;
  return {
    rank: e.rank,
    steps: it.steps,
    basisSize: e.basisSize,
    basis: encodeF64(e.basis.subarray(0, e.basisSize * e.dim)),
    coef: encodeF64(e.coefRows()),
    gamma: encodeF64(e.values.subarray(0, e.rank)),
  };
}

export function loadIterate(it: MirrorIterate, a: IterateData): void {
  it.load(a.basis, a.basisSize, a.coef, a.gamma, a.rank, a.steps);
}

/**
 * Reads one model's factored mirror eigenpairs from a snapshot: rank <= maxRank <= basisSize <=
 * basisCap, orthonormal basis rows and coefficient rows (to 1e-6), nonzero mirror eigenvalues, and a
 * primal nuclear norm inside the ball (the mirror eigenvalues are the primal ones in the Euclidean geometry).
 */
export function readIterate(
  json: Record<string, Json>,
  d: number,
  maxRank: number,
  beta: number,
  radius: number,
  geometry: MirrorGeometry = "hypentropy",
): IterateData {
  const rank = readInt(json, "rank", 0, maxRank);
  const steps = readInt(json, "steps", 0);
  const basisSize = readInt(json, "basisSize", rank, basisCap(d, maxRank));
  const basis = readF64(json.basis, "arms[].basis", basisSize * d);
  const coef = readF64(json.coef, "arms[].coef", rank * basisSize);
  const gamma = readF64(json.gamma, "arms[].gamma", rank, (x) => x !== 0);
  const nuclear = mirrorNuclearNorm(gamma, rank, beta, geometry);
  if (!(nuclear <= radius * (1 + 1e-9)))
    snapshotCorrupt("arms[].gamma", `a spectrum of nuclear norm <= radius (${radius})`);
  if (rowsOrthonormalityError(basis, basisSize, d) > 1e-6) snapshotCorrupt("arms[].basis", "orthonormal rows");
  if (rowsOrthonormalityError(coef, rank, basisSize) > 1e-6) snapshotCorrupt("arms[].coef", "orthonormal rows");
  return { rank, steps, basisSize, basis, coef, gamma };
}
