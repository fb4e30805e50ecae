import { ErrorCode, RouteKitError } from "./errors.js";
import { checkNumber } from "./options.js";
import { describe } from "./validate.js";

/** Largest buffer length a Float64Pool hands out (2^31 - 1 values, 16 GiB per buffer). */
const MAX_POOL_LENGTH = 2 ** 31 - 1;

/** Throws INVALID_ARGUMENT unless `f` is a function (a pool's factory, checked at construction). */
function checkFactory(f: unknown, what: string): void {
  if (typeof f !== "function") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be a function, got ${describe(f)}`);
  }
}

/**
 * A free list of equal-length Float64Arrays. Policies that must keep a vector per pending decision
 * (a context, or A^-1 x reused at update time) take buffers from here, so a steady stream of
 * select/update pairs allocates no new arrays.
 */
export class Float64Pool {
  private readonly free: Float64Array[] = [];

  /**
   * @param length values per buffer
   * @param maxFree buffers kept for reuse at most
   * @param allocate how a new buffer is made; pass linalg's `allocF64` for buffers that hot kernels
   *   read, so they live in WebAssembly-reachable memory (core does not depend on linalg)
   */
  constructor(
    readonly length: number,
    private readonly maxFree = 1024,
    private readonly allocate: (n: number) => Float64Array = (n) => new Float64Array(n),
  ) {
    // Checked here: new Float64Pool(-1) was accepted and threw a RangeError at its first acquire().
    checkNumber(length, "Float64Pool length", { min: 0, max: MAX_POOL_LENGTH, integer: true });
    checkNumber(maxFree, "Float64Pool maxFree", { min: 0, integer: true });
    checkFactory(allocate, "Float64Pool allocate");
  }

  /** A buffer of `length` values (contents unspecified). */
  acquire(): Float64Array {
    return this.free.pop() ?? this.allocate(this.length);
  }

  /** A pooled copy of `src`. */
  copyOf(src: ArrayLike<number>): Float64Array {
    const b = this.acquire();
    for (let i = 0; i < this.length; i++) b[i] = src[i] as number;
    return b;
  }

  release(buf: Float64Array): void {
    if (buf.length === this.length && this.free.length < this.maxFree) this.free.push(buf);
  }
}

/**
 * A free list of reusable objects (e.g. ledger payload records with their buffers attached), so a
 * steady select/update stream allocates none.
 */
export class ObjectPool<T> {
  private readonly free: T[] = [];

  /**
   * @param make how a new object is made
   * @param maxFree objects kept for reuse at most
   */
  constructor(
    private readonly make: () => T,
    private readonly maxFree = 1024,
  ) {
    checkFactory(make, "ObjectPool make");
    checkNumber(maxFree, "ObjectPool maxFree", { min: 0, integer: true });
  }

  acquire(): T {
    return this.free.pop() ?? this.make();
  }

  /** Keeps `x` for reuse; false when the pool is full (the caller may then free what `x` holds). */
  release(x: T): boolean {
    if (this.free.length >= this.maxFree) return false;
    this.free.push(x);
    return true;
  }
}
