import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import { ErrorCode, isRouteKitError, RouteKitError } from "./errors.js";
import { describe, errorText, isFloatArray } from "./validate.js";

/** Largest n of int(n): every integer below 2^53 is a double. */
const MAX_INT_RANGE = 2 ** 53;

/** JSON form of an {@link Rng}: its stream key and the generator's current state. */
export interface RngState {
  readonly key: readonly number[];
  readonly state: readonly number[];
}

/** splitmix32 finaliser: spreads a 32-bit word so nearby seeds give unrelated streams. */
function mix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) | 0;
}

/** FNV-1a over UTF-16 code units: a stable 32-bit hash for fork labels and string seeds. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * Expands a 4-word key into a generator state in which every word depends on every key word.
 * (Mixing word by word would let two seeds that share their high word share the first output,
 * since xoroshiro128+'s first output is s[1] + s[3].)
 */
function keyToState(key: readonly number[]): number[] {
  const s: number[] = [];
  for (let i = 0; i < 4; i++) {
    let z = mix32(Math.imul(i + 1, 0x9e3779b9));
    for (let j = 0; j < 4; j++) z = mix32(z ^ (key[(i + j) % 4] as number));
    s.push(z);
  }
  // xoroshiro128+ must never hold the all-zero state.
  if (!s.some((w) => w !== 0)) s[0] = 1;
  return s;
}

/**
 * The xoroshiro128+ state one step before `st` (pure-rand's getState order [s01, s00, s11, s10]): next() is
 * a = s0 ^ s1, s0' = rotl(s0, 24) ^ a ^ (a << 16), s1' = rotl(a, 37) on 64-bit words held as 32-bit halves.
 */
function previousState(st: readonly number[]): number[] {
  const n01 = st[0] as number;
  const n00 = st[1] as number;
  const n11 = st[2] as number;
  const n10 = st[3] as number;
  const a0 = (n11 >>> 5) | (n10 << 27);
  const a1 = (n10 >>> 5) | (n11 << 27);
  const r0 = n00 ^ a0 ^ (a0 << 16);
  const r1 = n01 ^ a1 ^ ((a1 << 16) | (a0 >>> 16));
  const s00 = (r0 >>> 24) | (r1 << 8);
  const s01 = (r1 >>> 24) | (r0 << 8);
  return [s01, s00, a1 ^ s01, a0 ^ s00];
}

/** The error of normal(mean, sd) for parameters it refuses (off the hot path). */
function normalParameterError(mean: number, sd: number): RouteKitError {
  if (!(Number.isFinite(mean) && sd >= 0 && Number.isFinite(sd))) {
    return new RouteKitError(
      ErrorCode.InvalidArgument,
      `normal(mean, sd) needs a finite mean and a finite sd >= 0, got ${mean} and ${sd}`,
    );
  }
  return new RouteKitError(
    ErrorCode.OutOfRange,
    `normal(mean, sd) needs |mean| + 8.6 sd <= ${Number.MAX_VALUE} (else a draw can overflow to Infinity), got ${mean} and ${sd}`,
  );
}

/**
 * A seeded random stream (xoroshiro128+ from pure-rand underneath).
 *
 * Streams are identified by a 128-bit key. `fork(label)` derives a child key from the parent's key
 * and the label only, never from how many numbers the parent has drawn, so adding a draw in one
 * component never shifts the random numbers of another.
 */
// A registered symbol, as RouteKitError's: an Rng made by another copy of core (the CommonJS build next to the
// ESM one, a second bundle) is still an Rng, e.g. the runner's stream given to a policy loaded through require.
const RNG_BRAND = Symbol.for("@routekit/core/Rng");

export class Rng {
  private readonly key: readonly number[];
  private gen: RandomGenerator;

  private constructor(key: readonly number[], gen: RandomGenerator) {
    this.key = key;
    this.gen = gen;
    Object.defineProperty(this, RNG_BRAND, { value: true });
  }

  /** `x instanceof Rng` for an Rng of any copy of this module. */
  static [Symbol.hasInstance](x: unknown): boolean {
    return x !== null && typeof x === "object" && (x as Record<symbol, unknown>)[RNG_BRAND] === true;
  }

  /** A stream from an integer or string seed. Same seed, same numbers, on every platform. */
  static fromSeed(seed: number | string): Rng {
    let words: number[];
    if (typeof seed === "string") {
      words = [fnv1a(seed), fnv1a(`${seed}#1`), fnv1a(`${seed}#2`), fnv1a(`${seed}#3`)];
    } else {
      if (!Number.isFinite(seed))
        throw new RouteKitError(ErrorCode.InvalidArgument, `seed must be finite, got ${seed}`);
      // The integer part, toward zero: -0.5 seeds as 0 and -4294967296.5 as -4294967296 (floor of a
      // negative fraction would move the high word and give a stream no integer seed has).
      const n = Math.trunc(seed);
      const lo = n | 0;
      const hi = Math.floor(n / 4294967296) | 0;
      words = [lo, hi, mix32(lo), mix32(hi ^ 0x5bd1e995)];
    }
    return new Rng(words, xoroshiro128plusFromState(keyToState(words)));
  }

  /** Restores a stream exactly where {@link Rng.toJSON} left it. */
  static fromJSON(s: RngState): Rng {
    const ok =
      s !== null &&
      typeof s === "object" &&
      Array.isArray(s.key) &&
      s.key.length === 4 &&
      Array.isArray(s.state) &&
      s.state.length === 4 &&
      [...s.key, ...s.state].every((w) => Number.isInteger(w) && (w | 0) === w) &&
      s.state.some((w) => w !== 0);
    if (!ok) {
      throw new RouteKitError(
        ErrorCode.SnapshotCorrupt,
        "RNG state must hold 4 key and 4 state int32 words, the state not all zero",
      );
    }
    return new Rng([...s.key], xoroshiro128plusFromState(s.state));
  }

  toJSON(): RngState {
    return { key: [...this.key], state: [...this.gen.getState()] };
  }

  /** An independent child stream named by `label`; the same label always gives the same child. */
  fork(label: string): Rng {
    // A number label would hash as the empty string (fork(5) was fork(6)), undefined threw a TypeError.
    if (typeof label !== "string") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `fork label must be a string, got ${describe(label)}`);
    }
    const h = fnv1a(label);
    // Chain all parent words and the label into each child word (see keyToState for why).
    const key = keyToState(this.key.map((k, i) => k ^ mix32(h + i)));
    return new Rng(key, xoroshiro128plusFromState(keyToState(key)));
  }

  /** Uniform on [0, 1) with 53 random bits. */
  uniform(): number {
    return uniformFloat64(this.gen);
  }

  /** Uniform on [a, b) for finite a, b (else INVALID_ARGUMENT, nothing drawn). */
  uniformIn(a: number, b: number): number {
    const w = b - a;
    if (!(w - w === 0)) return this.uniformInWide(a, b);
    return a + w * uniformFloat64(this.gen);
  }

  /**
   * uniformIn when b - a is not finite: a NaN or infinite end (refused, as every other draw refuses a non-finite
   * parameter: it returned NaN or Infinity), or finite ends more than the largest double apart, such as
   * (-1e308, 1e308), where a + (b - a) u returned Infinity. Half the width does not overflow, and a + h u + h u
   * stays in [a, b]. Off the common path, so the usual draw keeps its bits.
   */
  private uniformInWide(a: number, b: number): number {
    if (!(Number.isFinite(a) && Number.isFinite(b))) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `uniformIn(a, b) needs finite ends, got ${a} and ${b}`);
    }
    const h = b / 2 - a / 2;
    const u = uniformFloat64(this.gen);
    return a + h * u + h * u;
  }

  /**
   * Uniform integer in [0, n), n an integer in [1, 2^53]: every integer below 2^53 is a double, and above it the
   * generator's integer draw never returned (int(2 ** 64) hung the process).
   */
  int(n: number): number {
    if (!(n >= 1 && n <= MAX_INT_RANGE) || !Number.isInteger(n))
      throw new RouteKitError(ErrorCode.InvalidArgument, `int(n) needs an integer n in [1, 2^53], got ${n}`);
    return uniformInt(this.gen, 0, n - 1);
  }

  /**
   * N(mean, sd^2) by Box-Muller; stateless (no cached spare), so snapshots stay simple. A non-finite mean or sd, or
   * sd < 0, is INVALID_ARGUMENT; finite parameters with |mean| + 8.6 sd above the largest double (a draw could
   * overflow to Infinity) are OUT_OF_RANGE. Nothing is drawn when it throws.
   */
  normal(mean = 0, sd = 1): number {
    // One test for all: a NaN or infinite mean or sd, or a negative sd, returned NaN or +-Infinity silently, and so
    // did finite parameters whose draw overflows (normal(1e308, 1e308)). |z| <= sqrt(-2 ln 2^-53) < 8.58 (u >= 2^-53),
    // and rounding is monotone, so when |mean| + 8.6 sd is at most the largest double every draw is finite.
    if (!(sd >= 0 && Math.abs(mean) + 8.6 * sd <= Number.MAX_VALUE)) throw normalParameterError(mean, sd);
    let u = 0;
    while (u === 0) u = uniformFloat64(this.gen);
    const v = uniformFloat64(this.gen);
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /**
   * Fills `out` (a Float64Array, Float32Array or writable number[]) with i.i.d. N(mean, sd^2) draws. Anything else is
   * INVALID_ARGUMENT before any draw: a frozen array threw a TypeError part-way, an integer typed array stored the
   * normals truncated.
   */
  fillNormal<T extends Float64Array | Float32Array | number[]>(out: T, mean = 0, sd = 1): T {
    if (!isFloatArray(out) && !(Array.isArray(out) && !Object.isFrozen(out))) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `fillNormal needs a Float64Array, Float32Array or writable array, got ${Object.isFrozen(out) && Array.isArray(out) ? "a frozen array" : describe(out)}`,
      );
    }
    for (let i = 0; i < out.length; i++) out[i] = this.normal(mean, sd);
    return out;
  }

  /** Bernoulli(p). */
  bernoulli(p: number): boolean {
    // A NaN p answered false silently; p outside [0, 1] keeps its natural meaning (always or never).
    if (Number.isNaN(p)) throw new RouteKitError(ErrorCode.InvalidArgument, "bernoulli(p) needs a number p, got NaN");
    return uniformFloat64(this.gen) < p;
  }

  /** Gamma(shape, 1) by Marsaglia-Tsang; shape < 1 through the boost u^(1/shape). */
  gamma(shape: number): number {
    if (!(shape > 0 && shape < Number.POSITIVE_INFINITY)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `gamma shape must be finite and > 0, got ${shape}`);
    }
    if (shape < 1) {
      let u = 0;
      while (u === 0) u = this.uniform();
      return this.gamma(shape + 1) * u ** (1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniform();
      if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /**
   * Beta(a, b) for any a, b > 0, through two gammas. With both shapes >= 1 it is X / (X + Y). With a
   * shape below 1 the gammas can underflow to 0 (shape 1e-300 gives 0 almost surely), so the draw is
   * 1 / (1 + Y/X) formed from their logarithms scaled by min(a, b): tiny shapes then give 0 or 1
   * (their limit, a Bernoulli(a / (a + b)) draw) instead of 0/0 = NaN. Both paths use the same draws.
   */
  beta(a: number, b: number): number {
    if (!(a > 0 && a < Number.POSITIVE_INFINITY) || !(b > 0 && b < Number.POSITIVE_INFINITY)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `beta shapes must be finite and > 0, got ${a} and ${b}`);
    }
    if (a >= 1 && b >= 1) {
      const x = this.gamma(a);
      const y = this.gamma(b);
      const sum = x + y;
      // Shapes near the largest double draw gammas whose sum overflows (x / Infinity was 0 for beta(1e308, 1e308)):
      // halved, the ratio is the same and the sum finite. Off the common path, so the usual draw keeps its bits.
      return sum < Number.POSITIVE_INFINITY ? x / sum : x / 2 / (x / 2 + y / 2);
    }
    const m = Math.min(a, b, 1);
    const lx = this.scaledLogGamma(a, m);
    const ly = this.scaledLogGamma(b, m);
    return 1 / (1 + Math.exp((ly - lx) / m));
  }

  /** scale x log Gamma(shape) draw, kept finite for shapes whose draw underflows (see beta). */
  private scaledLogGamma(shape: number, scale: number): number {
    if (shape >= 1) return scale * Math.log(this.gamma(shape));
    const g = this.gamma(shape + 1);
    let u = 0;
    while (u === 0) u = this.uniform();
    return scale * Math.log(g) + (scale / shape) * Math.log(u);
  }

  /**
   * Index drawn with probability proportional to `weights[i]` (non-negative, finite, not all 0),
   * over the first `n` entries. Throws INVALID_ARGUMENT (drawing nothing) otherwise, and when reading `weights`
   * throws (a getter or proxy trap; its Error escaped, after the draw when only a second read threw).
   */
  categorical(weights: ArrayLike<number>, n?: number): number {
    let drawn = false;
    try {
      const len = weights.length;
      const m = n === undefined ? len : n;
      if (!(m >= 1 && m <= len) || !Number.isInteger(m)) {
        throw new RouteKitError(
          ErrorCode.InvalidArgument,
          `categorical needs an integer n in [1, ${len}] (the number of weights), got ${m}`,
        );
      }
      let total = 0;
      let min = 0;
      let max = 0;
      for (let i = 0; i < m; i++) {
        const w = weights[i] as number;
        total += w;
        if (w < min) min = w;
        if (w > max) max = w;
      }
      // Finite weights whose sum overflows (two of 1e308) are valid: they are drawn from scaled by the largest.
      const scale = total === Number.POSITIVE_INFINITY && max < Number.POSITIVE_INFINITY ? 1 / max : 1;
      if (scale !== 1) {
        total = 0;
        for (let i = 0; i < m; i++) total += (weights[i] as number) * scale;
      }
      if (!(total > 0) || !Number.isFinite(total) || min < 0) {
        throw new RouteKitError(ErrorCode.InvalidArgument, "categorical weights must be finite, >= 0 and not all 0");
      }
      let u = uniformFloat64(this.gen) * total;
      drawn = true;
      for (let i = 0; i < m; i++) {
        u -= (weights[i] as number) * scale;
        if (u < 0) return i;
      }
      // Rounding can leave u >= 0 after the last subtraction: return the last positive weight.
      for (let i = m - 1; i >= 0; i--) if ((weights[i] as number) > 0) return i;
      return m - 1;
    } catch (e) {
      // A getter that threw on a later read than the check's: the draw is undone (uniformFloat64 takes two steps).
      if (drawn) this.gen = xoroshiro128plusFromState(previousState(previousState(this.gen.getState())));
      if (isRouteKitError(e)) throw e;
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `reading the categorical weights threw: ${errorText(e)}`,
        undefined,
        {
          cause: e,
        },
      );
    }
  }

  /** Fisher-Yates shuffle in place. */
  shuffle<T>(a: T[]): T[] {
    // A string (or any non-array) failed with a raw TypeError part-way, after drawing.
    if (!Array.isArray(a) && !ArrayBuffer.isView(a)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `shuffle needs an array, got ${describe(a)}`);
    }
    // A frozen array threw a TypeError part-way, after drawing.
    if (Array.isArray(a) && Object.isFrozen(a) && a.length > 1) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "shuffle needs a writable array, got a frozen one");
    }
    for (let i = a.length - 1; i > 0; i--) {
      const j = uniformInt(this.gen, 0, i);
      const t = a[i] as T;
      a[i] = a[j] as T;
      a[j] = t;
    }
    return a;
  }
}
