/**
 * Validation shared by the two exported single-model iterates ({@link MirrorIterate} and its dense
 * reference {@link DenseMirrorIterate}): their options, the query of each `score` and `step` call and the
 * eigenpairs of `load`, so bad input is a typed RouteKitError that changes nothing, as everywhere in RouteKit.
 * (The routers pass only validated queries, so the per-call check is one pass over q.)
 */
import {
  assertFinite,
  assertInt,
  assertVector,
  copyNumbers,
  ErrorCode,
  enumOption,
  isFloatArray,
  MAX_CONTEXT_DIM,
  numberOption,
  RouteKitError,
  readLength,
  readOptions,
  readVectorInto,
  requiredNumber,
} from "@routekit/core";
import { betaSinh } from "./threshold-core.js";

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
 * A query given to an iterate's `score` or `step`, checked as every RouteKit vector input (a Float64Array,
 * Float32Array or number[] of `dim` finite numbers: INVALID_ARGUMENT, DIMENSION_MISMATCH, NON_FINITE, as the
 * routers' `select`): `q` itself when it is a Float64Array of `dim` finite numbers whose squared norm is finite,
 * else a checked copy in `scratch` (each entry read once, see core's readVectorInto). The routers' path (a
 * Float64Array of the right length, every model on every round) costs one multiply-add per entry: the squared
 * norm is finite exactly when every entry is finite and |q|^2 does not overflow.
 */
export function readQuery(q: unknown, dim: number, scratch: Float64Array): Float64Array {
  if (q instanceof Float64Array && q.length === dim) {
    let z = 0;
    for (let i = 0; i < dim; i++) z += (q[i] as number) * (q[i] as number);
    if (z < Number.POSITIVE_INFINITY) return q;
  }
  return readVectorInto(q, dim, scratch, "q");
}

/**
 * Largest |rho| |q|^2 a step applies. A query whose squared norm overflows a double (|q| above about 1.3e154) is
 * scaled to unit largest entry and its weight rho |q|^2 capped here: a step that large already saturates the
 * ball (the iterate becomes, to rounding, the ball's extreme point along q), as the same step written with a
 * smaller q and a larger rho does. Before, |q|^2 = Infinity made the step a silent no-op (MirrorIterate) or a
 * TypeError (DenseMirrorIterate).
 */
export const MAX_STEP_WEIGHT = 1e300;

/** A step's checked query and weight (reused per iterate: no allocation per step). */
export interface StepInput {
  q: Float64Array;
  rho: number;
}

/**
 * Checks the arguments of an iterate's `step(q, rho)`: rho a finite number (INVALID_ARGUMENT, NON_FINITE), q as
 * {@link readQuery}. Fills `out` with the query and weight to apply: q and rho themselves, or, when |q|^2
 * overflows, q scaled into `scratch` (largest entry 1) with rho |q|^2 carried by the weight (capped at
 * {@link MAX_STEP_WEIGHT} / |scaled q|^2).
 */
export function checkStep(q: unknown, dim: number, rho: unknown, scratch: Float64Array, out: StepInput): StepInput {
  assertFinite(rho as number, "rho");
  const x = readQuery(q, dim, scratch);
  let r = rho as number;
  let z = 0;
  if (x === scratch) for (let i = 0; i < dim; i++) z += (x[i] as number) * (x[i] as number);
  if (z === Number.POSITIVE_INFINITY) {
    let m = 0;
    for (let i = 0; i < dim; i++) m = Math.max(m, Math.abs(x[i] as number));
    let u2 = 0;
    for (let i = 0; i < dim; i++) {
      const u = (x[i] as number) / m;
      scratch[i] = u;
      u2 += u * u;
    }
    r = r * m * m;
    if (!(Math.abs(r) * u2 <= MAX_STEP_WEIGHT)) r = (r > 0 ? MAX_STEP_WEIGHT : -MAX_STEP_WEIGHT) / u2;
    out.q = scratch;
  } else out.q = x;
  out.rho = r;
  return out;
}

/**
 * q^T W q by `quad` when its direct value overflowed (Infinity, or NaN from Infinity - Infinity: a query of norm
 * above about 1.3e154, whose squared norm overflows, or a huge ball): computed as (m^2) u^T W u with u = q / m, m
 * the largest |q_i| (u written into `scratch`, which may be `q`), as `step` scales such a query. Returns the value
 * when it is a finite double; throws NUMERICAL when q^T W q itself lies beyond the largest double.
 */
export function scaledScore(
  q: Float64Array,
  dim: number,
  scratch: Float64Array,
  quad: (u: Float64Array) => number,
): number {
  let m = 0;
  for (let i = 0; i < dim; i++) m = Math.max(m, Math.abs(q[i] as number));
  for (let i = 0; i < dim; i++) scratch[i] = (q[i] as number) / m;
  const v = quad(scratch) * m * m;
  if (Number.isFinite(v)) return v;
  throw new RouteKitError(
    ErrorCode.Numerical,
    `q^T W q overflows a double for this q (largest |q_i| = ${m}): scale q down (|q^T W q| <= radius |q|^2)`,
  );
}

/** Largest |row_i . row_j - [i = j]| of the n rows (length m) of A. */
export function rowsOrthonormalityError(A: Float64Array, n: number, m: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let l = 0; l < m; l++) s += (A[i * m + l] as number) * (A[j * m + l] as number);
      worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
    }
  return worst;
}

/** Primal nuclear norm of mirror eigenvalues `gamma` (sum beta sinh|gamma_i|, or sum |gamma_i| in the Euclidean geometry). */
export function mirrorNuclearNorm(gamma: ArrayLike<number>, rank: number, beta: number, geometry: string): number {
  let nuclear = 0;
  for (let i = 0; i < rank; i++) {
    const g = Math.abs(gamma[i] as number);
    nuclear += geometry === "hypentropy" ? betaSinh(beta, g) : g;
  }
  return nuclear;
}

/**
 * A checked copy of `n` numbers, each entry read once, bit for bit: as core's readVectorInto, but -0 stays -0 (a
 * restored state must snapshot to the same bytes).
 */
function exactCopy(src: unknown, n: number, what: string): Float64Array {
  if ((!isFloatArray(src) && !Array.isArray(src)) || readLength(src, what) !== n) assertVector(src, n, what);
  const out = new Float64Array(n);
  if (isFloatArray(src)) out.set(src);
  else copyNumbers(src as ArrayLike<unknown>, out, n, what);
  assertVector(out, n, what);
  return out;
}

/** The factored eigenpairs given to `MirrorIterate.load`, checked and copied. */
export interface IterateLoad {
  readonly basis: Float64Array;
  readonly coef: Float64Array;
  readonly gamma: Float64Array;
}

/**
 * Checks the arguments of `MirrorIterate.load` against the iterate's configuration, before anything changes:
 * `rank` an integer in [0, maxRank], `basisSize` one in [rank, cap], `steps` one >= 0 (OUT_OF_RANGE, NON_FINITE,
 * INVALID_ARGUMENT); `basis` basisSize x dim, `coef` rank x basisSize and `gamma` rank finite numbers (vector inputs:
 * INVALID_ARGUMENT, DIMENSION_MISMATCH, NON_FINITE); a primal nuclear norm inside the ball (OUT_OF_RANGE); basis and
 * coefficient rows orthonormal to 1e-6 (INVALID_ARGUMENT). These are what the snapshot reader checks.
 */
export function checkLoad(
  c: {
    readonly dim: number;
    readonly maxRank: number;
    readonly beta: number;
    readonly radius: number;
    readonly geometry: string;
  },
  cap: number,
  basis: unknown,
  basisSize: number,
  coef: unknown,
  gamma: unknown,
  rank: number,
  steps: number,
): IterateLoad {
  assertInt(rank, "rank", 0, c.maxRank);
  assertInt(basisSize, "basisSize", rank, cap);
  assertInt(steps, "steps", 0, Number.MAX_SAFE_INTEGER);
  const b = exactCopy(basis, basisSize * c.dim, "basis");
  const co = exactCopy(coef, rank * basisSize, "coef");
  const g = exactCopy(gamma, rank, "gamma");
  const nuclear = mirrorNuclearNorm(g, rank, c.beta, c.geometry);
  if (!(nuclear <= c.radius * (1 + 1e-9))) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `gamma gives a nuclear norm of ${nuclear}, outside the ball of radius ${c.radius}`,
    );
  }
  if (rowsOrthonormalityError(b, basisSize, c.dim) > 1e-6) {
    throw new RouteKitError(ErrorCode.InvalidArgument, "basis rows must be orthonormal");
  }
  if (rowsOrthonormalityError(co, rank, basisSize) > 1e-6) {
    throw new RouteKitError(ErrorCode.InvalidArgument, "coef rows must be orthonormal");
  }
  return { basis: b, coef: co, gamma: g };
}
