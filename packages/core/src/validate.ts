import { ErrorCode, RouteKitError } from "./errors.js";

/**
 * A short, safe description of a value for an error message. It never calls user code: no toString, valueOf or
 * Symbol.toPrimitive of the value (an object without a prototype, or one whose toString throws, would otherwise
 * turn a typed error into a TypeError while its message is being built).
 */
export function describe(x: unknown): string {
  switch (typeof x) {
    case "string":
      return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}...` : x);
    case "number":
    case "boolean":
    case "undefined":
      return String(x);
    case "bigint":
      return `${x.toString()}n (a bigint)`;
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
  }
  if (x === null) return "null";
  if (ArrayBuffer.isView(x)) return "a typed array";
  try {
    return Array.isArray(x) ? "an array" : "an object";
  } catch {
    return "an object"; // a revoked proxy
  }
}

/** Throws INVALID_ARGUMENT unless `x` is a number, then NON_FINITE unless it is finite. */
export function assertFinite(x: number, what: string): void {
  if (typeof x !== "number") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be a finite number, got ${describe(x)}`);
  }
  if (!Number.isFinite(x)) {
    throw new RouteKitError(ErrorCode.NonFinite, `${what} must be a finite number, got ${String(x)}`);
  }
}

/**
 * Throws unless `x` is a Float64Array, a Float32Array or a number array of length `dim` with finite entries:
 * INVALID_ARGUMENT for another type or an entry that is not a number, DIMENSION_MISMATCH for another length,
 * NON_FINITE for NaN or +-Infinity.
 */
export function assertVector(x: unknown, dim: number, what: string): asserts x is ArrayLike<number> {
  if (!isFloatArray(x) && !Array.isArray(x)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} must be a Float64Array, Float32Array or number[] of length ${dim}, got ${describe(x)}`,
    );
  }
  const v = x as ArrayLike<number>;
  const len = readLength(v, what);
  if (len !== dim) {
    throw new RouteKitError(ErrorCode.DimensionMismatch, `${what} has length ${len}, expected ${dim}`, {
      expected: dim,
      actual: len,
    });
  }
  const typed = isFloatArray(x); // its element reads cannot throw
  for (let i = 0; i < dim; i++) {
    const e: unknown = typed ? v[i] : readEntry(v, i, what);
    if (typeof e !== "number") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${what}[${i}] must be a number, got ${describe(e)}`, {
        index: i,
      });
    }
    if (!Number.isFinite(e)) {
      throw new RouteKitError(ErrorCode.NonFinite, `${what}[${i}] must be finite, got ${String(e)}`, { index: i });
    }
  }
}

/** A Float64Array or Float32Array: numbers only, whose element and length reads run no user code. */
export function isFloatArray(x: unknown): x is Float64Array | Float32Array {
  return x instanceof Float64Array || x instanceof Float32Array;
}

/**
 * `src.length`, read once; a proxy (it passes Array.isArray) whose length getter throws is INVALID_ARGUMENT (the
 * caller's input is unreadable).
 */
export function readLength(src: ArrayLike<unknown>, what: string): number {
  try {
    return src.length;
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading ${what}.length threw: ${errorText(e)}`);
  }
}

/** `src[i]`; a getter or proxy that throws becomes INVALID_ARGUMENT (the caller's input is unreadable). */
function readEntry(src: ArrayLike<unknown>, i: number, what: string): unknown {
  try {
    return src[i];
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading ${what}[${i}] threw: ${errorText(e)}`, { index: i });
  }
}

/** A thrown value's message for another error's message (never runs the value's own code). */
export function errorText(e: unknown): string {
  // instanceof runs a proxy's getPrototypeOf trap and `message` may be a getter: either can throw (a revoked proxy
  // thrown by a getter turned the typed error being built into a TypeError).
  try {
    if (e instanceof Error) {
      const m: unknown = e.message;
      return typeof m === "string" ? m : describe(m);
    }
  } catch {
    return "a thrown value that cannot be read";
  }
  return describe(e);
}

/**
 * Copies `n` entries of an array-like into `dst`, reading each entry once (a getter cannot change it between the
 * check and the copy). Every entry must be a number, else INVALID_ARGUMENT: plain JavaScript would store "3" as 3
 * (or, through `"3" + 0`, as 30), null as 0 and true as 1 without a word. Finiteness is left to the caller, who
 * checks the copy.
 */
export function copyNumbers(src: ArrayLike<unknown>, dst: Float64Array, n: number, what: string): void {
  for (let i = 0; i < n; i++) {
    const v = readEntry(src, i, what);
    if (typeof v !== "number") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${what}[${i}] must be a number, got ${describe(v)}`, {
        index: i,
      });
    }
    dst[i] = v;
  }
}

/**
 * Copies a vector input of `dim` numbers into `dst`, reading each entry once, and validates the copy: a getter or
 * proxy cannot pass the checks with one value and be used with another. INVALID_ARGUMENT (not an array, or a
 * non-number entry), DIMENSION_MISMATCH or NON_FINITE as {@link assertVector}. -0 is written as 0 (x + 0), as in
 * decision events, so `update` and `learn` of the same decision agree bit for bit. Returns `dst`.
 */
export function readVectorInto(src: unknown, dim: number, dst: Float64Array, what: string): Float64Array {
  // A caller's buffer shorter than dim dropped the writes past its end and was then reported as a wrong length of
  // the input (`what`); it is the caller's fault, said as such, before anything is read or written.
  if (!(dst instanceof Float64Array) || dst.length < dim) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `readVectorInto needs a Float64Array of at least ${dim} entries to copy ${what} into, got ${describe(dst)}`,
    );
  }
  if (!isFloatArray(src) && !Array.isArray(src)) assertVector(src, dim, what);
  const v = src as ArrayLike<number>;
  if (readLength(v, what) !== dim) assertVector(v, dim, what);
  const from = isFloatArray(v) ? v : dst;
  if (from === dst) copyNumbers(v, dst, dim, what);
  for (let i = 0; i < dim; i++) dst[i] = (from[i] as number) + 0;
  // Only the first dim entries are the copy: a longer (pooled) buffer was refused as "what has length dst.length".
  for (let i = 0; i < dim; i++) {
    const e = dst[i] as number;
    if (!Number.isFinite(e)) {
      throw new RouteKitError(ErrorCode.NonFinite, `${what}[${i}] must be finite, got ${String(e)}`, { index: i });
    }
  }
  return dst;
}

/**
 * Throws unless `x` is an integer in [min, max]: INVALID_ARGUMENT for a non-number, NON_FINITE for
 * NaN or +-Infinity, OUT_OF_RANGE for a fraction or a value outside the range.
 */
export function assertInt(x: number, what: string, min = -Infinity, max = Infinity): void {
  if (typeof x !== "number") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be an integer, got ${describe(x)}`);
  }
  assertFinite(x, what);
  if (!Number.isInteger(x)) {
    throw new RouteKitError(ErrorCode.OutOfRange, `${what} must be an integer, got ${x}`);
  }
  if (x < min || x > max) {
    throw new RouteKitError(ErrorCode.OutOfRange, `${what} must be in [${min}, ${max}], got ${x}`);
  }
}

/** Throws unless `x` is a finite number in [min, max] (open ends with `open`). */
export function assertInRange(
  x: number,
  what: string,
  min: number,
  max: number,
  open: { min?: boolean; max?: boolean } = {},
): void {
  assertFinite(x, what);
  const lo = open.min ? x > min : x >= min;
  const hi = open.max ? x < max : x <= max;
  if (!lo || !hi) {
    const l = open.min ? "(" : "[";
    const r = open.max ? ")" : "]";
    throw new RouteKitError(ErrorCode.OutOfRange, `${what} must be in ${l}${min}, ${max}${r}, got ${x}`);
  }
}

/** Throws NON_FINITE unless `x` is finite, then OUT_OF_RANGE unless it is > 0. */
export function assertPositive(x: number, what: string): void {
  assertFinite(x, what);
  if (!(x > 0)) throw new RouteKitError(ErrorCode.OutOfRange, `${what} must be > 0, got ${x}`);
}

/** Throws INVALID_ARGUMENT unless `id` is a non-empty string. */
export function assertId(id: unknown, what: string): asserts id is string {
  if (typeof id !== "string" || id.length === 0) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be a non-empty string, got ${describe(id)}`);
  }
}
