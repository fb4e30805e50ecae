/**
 * Input checks of the exported hypentropy and projection toolkit (hypentropy.ts, threshold.ts), by core's rule:
 * vectors are Float64Array, Float32Array or number[] (another type, or an entry that is no number,
 * INVALID_ARGUMENT), NaN or +-Infinity is NON_FINITE, a finite number outside its range OUT_OF_RANGE, a vector too
 * short DIMENSION_MISMATCH. The iterates and routers call the unchecked kernels (threshold-core.ts) instead.
 */
import {
  assertFinite,
  assertInt,
  checkNumber,
  copyNumbers,
  describe,
  ErrorCode,
  isFloatArray,
  MAX_CONTEXT_DIM,
  RouteKitError,
  readLength,
  readVectorInto,
} from "@routekit/core";

/** beta: a finite number > 0. */
export function checkBeta(beta: unknown): number {
  return checkNumber(beta, "beta", { min: 0, openMin: true });
}

/** A radius tau (or a threshold nu): a finite number >= 0. */
export function checkRadius(tau: unknown, what = "tau"): number {
  return checkNumber(tau, what, { min: 0 });
}

/** A scalar argument: any finite number. */
export function checkScalar(x: unknown, what: string): number {
  assertFinite(x as number, what);
  return x as number;
}

/** A matrix side d: an integer in [1, 65536]. */
export function checkSide(d: unknown): number {
  assertInt(d as number, "d", 1, MAX_CONTEXT_DIM);
  return d as number;
}

/** A checked copy of a d x d matrix (vector input of d^2 finite numbers, each entry read once). */
export function readMatrix(X: unknown, d: number, what: string): Float64Array {
  return readVectorInto(X, d * d, new Float64Array(d * d), what);
}

/**
 * The first `n` entries of vector input `x` (n an integer in [0, x.length]), finite: `x` itself when it is a
 * Float64Array, else a checked copy (each entry read once).
 */
export function readPrefix(
  x: unknown,
  n: unknown,
  what: string,
  // The caller's name for the count, so a message names the argument the caller passed (softmaxInto's is k).
  countName = "n",
): { values: ArrayLike<number>; n: number } {
  if (!isFloatArray(x) && !Array.isArray(x))
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} must be a Float64Array, Float32Array or number[], got ${describe(x)}`,
    );
  assertInt(n as number, countName, 0);
  const count = n as number;
  const len = readLength(x as ArrayLike<unknown>, what);
  if (len < count)
    throw new RouteKitError(
      ErrorCode.DimensionMismatch,
      `${what} has length ${len}, expected at least ${countName} = ${count}`,
      {
        expected: count,
        actual: len,
      },
    );
  let values: Float64Array;
  if (x instanceof Float64Array) values = x;
  else {
    values = new Float64Array(count);
    if (isFloatArray(x)) values.set(x.subarray(0, count));
    else copyNumbers(x as ArrayLike<unknown>, values, count, what);
  }
  for (let i = 0; i < count; i++)
    if (!Number.isFinite(values[i] as number))
      throw new RouteKitError(ErrorCode.NonFinite, `${what}[${i}] must be finite, got ${values[i]}`, { index: i });
  return { values, n: count };
}

/** A vector updated in place: a Float64Array (anything else INVALID_ARGUMENT) with `n` finite leading entries. */
export function readInPlace(x: unknown, n: unknown, what: string): number {
  if (!(x instanceof Float64Array))
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} must be a Float64Array (it is updated in place), got ${describe(x)}`,
    );
  return readPrefix(x, n, what).n;
}

/** Work space: a Float64Array of at least `n` entries that shares no memory with `input`. */
export function checkScratch(scratch: unknown, n: number, input: unknown): Float64Array {
  if (!(scratch instanceof Float64Array))
    throw new RouteKitError(ErrorCode.InvalidArgument, `scratch must be a Float64Array, got ${describe(scratch)}`);
  if (scratch.length < n)
    throw new RouteKitError(
      ErrorCode.DimensionMismatch,
      `scratch has length ${scratch.length}, expected at least n = ${n}`,
      { expected: n, actual: scratch.length },
    );
  if (isFloatArray(input) && input.buffer === scratch.buffer) {
    const a0 = input.byteOffset;
    const a1 = a0 + input.byteLength;
    const b0 = scratch.byteOffset;
    const b1 = b0 + scratch.byteLength;
    if (a0 < b1 && b0 < a1)
      throw new RouteKitError(ErrorCode.InvalidArgument, "scratch must not share memory with the input vector");
  }
  return scratch;
}

/** The result of a toolkit function: finite, else NUMERICAL (the inputs are valid but the value overflows). */
export function finiteResult(v: number, what: string): number {
  if (!Number.isFinite(v))
    throw new RouteKitError(
      ErrorCode.Numerical,
      `${what} is ${v} for these (finite) arguments: the value overflows a double`,
    );
  return v;
}

/** Every entry of a toolkit matrix result finite, else NUMERICAL. */
export function finiteMatrix(M: Float64Array, what: string): Float64Array {
  for (let i = 0; i < M.length; i++)
    if (!Number.isFinite(M[i] as number)) finiteResult(M[i] as number, `${what}[${i}]`);
  return M;
}
