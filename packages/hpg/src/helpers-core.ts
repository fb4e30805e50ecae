/**
 * The unchecked helpers behind the exported ones of router.ts, hpg.ts, mirror.ts and hpg-snapshot.ts (which
 * validate their input and then call these). The routers and iterates call these directly with their own, already
 * valid, arguments (every round: the softmax; at construction and restore: the rest): not exported from the package.
 */
import {
  checkProbabilities,
  decodeF64,
  encodeF64,
  isProbabilityVector,
  type Json,
  readF64,
  readInt,
  readObject,
  snapshotCorrupt,
} from "@routekit/core";
import { mirrorNuclearNorm, rowsOrthonormalityError } from "./iterate-options.js";
import type { MirrorGeometry, MirrorIterate } from "./mirror.js";

/** Softmax of scores[0..k) into out (max-shifted). */
export function softmaxIntoUnchecked(scores: ArrayLike<number>, k: number, out: Float64Array): void {
  let mx = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < k; i++) if ((scores[i] as number) > mx) mx = scores[i] as number;
  let z = 0;
  for (let i = 0; i < k; i++) {
    const e = Math.exp((scores[i] as number) - mx);
    out[i] = e;
    z += e;
  }
  for (let i = 0; i < k; i++) out[i] = (out[i] as number) / z;
}

/** Initial model count for the default step sizes (at least 2). */
export function initialModelCountUnchecked(o: Record<string, unknown>): number {
  return Math.max(2, Array.isArray(o.arms) ? (o.arms as unknown[]).length : 0);
}

/** The defaults of the paper's Theorem 3: eta = sqrt(M ln d / T), M at least 2, d at least 3. */
export function hpgStepSizeUnchecked(models: number, dim: number, horizon: number): number {
  return Math.sqrt((Math.max(2, models) * Math.log(Math.max(dim, 3))) / horizon);
}

/** Most basis rows kept for a rank cap: maxRank + 1 for the update plus maxRank of slack, at most dim. */
export function basisCapUnchecked(dim: number, maxRank: number): number {
  return Math.min(dim, 2 * maxRank + 1);
}

/** Every entry of p[0..n) a number in [0, 1], summing to 1 within 1e-9 (core's isProbabilityVector); else `fail()`. */
export function checkDistribution(p: ArrayLike<number>, n: number, fail: () => never): void {
  if (!isProbabilityVector(p, n)) fail();
}

/** Validates a snapshot's pending decision and returns its arm uid (SNAPSHOT_CORRUPT otherwise). */
export function checkRoutePayloadUnchecked(json: Json, dim: number, auxPerArm: number): number {
  const o = readObject(json, "ledger payload");
  const uid = o.uid;
  if (!Number.isSafeInteger(uid) || (uid as number) < 0) snapshotCorrupt("ledger uid", "an arm uid");
  const probs = decodeF64(o.probs, "ledger probs");
  const n = probs.length;
  const arms = o.arms;
  if (!Array.isArray(arms) || arms.length !== n || n === 0 || arms.some((a) => typeof a !== "string" || a === "")) {
    snapshotCorrupt("ledger arms", "one model id per probability");
  }
  if (!Number.isSafeInteger(o.chosen) || (o.chosen as number) < 0 || (o.chosen as number) >= n) {
    snapshotCorrupt("ledger chosen", `an index in [0, ${n})`);
  }
  checkProbabilities(probs, n, "ledger probs");
  const x = decodeF64(o.x, "ledger x", dim);
  const a = decodeF64(o.aux, "ledger aux", n * auxPerArm);
  for (const v of x) if (!Number.isFinite(v)) snapshotCorrupt("ledger x", "finite numbers");
  for (const v of a) if (!Number.isFinite(v)) snapshotCorrupt("ledger aux", "finite numbers");
  return uid as number;
}

/** One model's factored iterate as a snapshot reads it back. */
export interface IterateData {
  readonly rank: number;
  readonly steps: number;
  readonly basisSize: number;
  readonly basis: Float64Array;
  readonly coef: Float64Array;
  readonly gamma: Float64Array;
}

/** One model's factored mirror eigenpairs as snapshot JSON. */
export function encodeIterateUnchecked(it: MirrorIterate): Record<string, Json> {
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

/**
 * Reads one model's factored mirror eigenpairs from a snapshot: rank <= maxRank <= basisSize <=
 * basisCap, orthonormal basis rows and coefficient rows (to 1e-6), nonzero mirror eigenvalues, and a
 * primal nuclear norm inside the ball (the mirror eigenvalues are the primal ones in the Euclidean geometry).
 */
export function readIterateUnchecked(
  json: Record<string, Json>,
  d: number,
  maxRank: number,
  beta: number,
  radius: number,
  geometry: MirrorGeometry = "hypentropy",
): IterateData {
  const rank = readInt(json, "rank", 0, maxRank);
  const steps = readInt(json, "steps", 0);
  const basisSize = readInt(json, "basisSize", rank, basisCapUnchecked(d, maxRank));
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
