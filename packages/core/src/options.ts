/**
 * Readers for constructor options. Every policy reads its options with these, so the same fault
 * gets the same error code in every package (see the rule on {@link ErrorCode}) and a message that
 * names the option and what it accepts. They read each field once (a getter is not called twice).
 */
import { ErrorCode, RouteKitError } from "./errors.js";
import { Rng } from "./rng.js";
import { assertFinite, describe, errorText } from "./validate.js";

/** Guarded views handed out, so guarding one again does not stack proxies. */
const guardedSet = new WeakSet<object>();

/**
 * A view of `options` whose property reads turn a getter (or proxy trap) that throws into INVALID_ARGUMENT naming the
 * option: the guarantee covers "a getter that throws" among the values no JSON body holds, and without this its own
 * `Error` escaped every constructor. Reads go to `options` itself (inherited and prototype getters included), each
 * read once per access as before.
 */
function guardOptions(options: object, what: string): Record<string, unknown> {
  if (guardedSet.has(options)) return options as Record<string, unknown>;
  const view = new Proxy(options as Record<string | symbol, unknown>, {
    get(target, key) {
      try {
        return Reflect.get(target, key, target);
      } catch (e) {
        if (e instanceof RouteKitError) throw e;
        const name = typeof key === "symbol" ? "a symbol key" : key;
        throw new RouteKitError(ErrorCode.InvalidArgument, `${what}: reading option ${name} threw: ${errorText(e)}`, {
          option: name,
        });
      }
    },
  }) as Record<string, unknown>;
  guardedSet.add(view);
  return view;
}

/**
 * The options object itself: INVALID_ARGUMENT unless a plain object (`undefined` allowed when `optional`). The result
 * reads through to `options`; a getter that throws while it is read is INVALID_ARGUMENT naming the option.
 */
export function readOptions(options: unknown, what: string, optional = false): Record<string, unknown> {
  if (options === undefined && optional) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} options must be an object, got ${describe(options)}`);
  }
  return guardOptions(options, what);
}

/** Bounds of a numeric option; `openMin`/`openMax` exclude the end. */
export interface NumberRange {
  readonly min?: number;
  readonly max?: number;
  readonly openMin?: boolean;
  readonly openMax?: boolean;
  readonly integer?: boolean;
}

function rangeText(r: NumberRange): string {
  const lo = r.min === undefined ? "(-Infinity" : `${r.openMin ? "(" : "["}${r.min}`;
  const max = r.max ?? (r.integer ? Number.MAX_SAFE_INTEGER : undefined);
  const hi = max === undefined ? "Infinity)" : `${max}${r.openMax ? ")" : "]"}`;
  return `${r.integer ? "an integer" : "a number"} in ${lo}, ${hi}`;
}

/** Checks a number against a range: INVALID_ARGUMENT, NON_FINITE or OUT_OF_RANGE naming `what`. */
export function checkNumber(v: unknown, what: string, range: NumberRange = {}): number {
  if (typeof v !== "number") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be ${rangeText(range)}, got ${describe(v)}`);
  }
  assertFinite(v, what);
  const { min, max } = range;
  const ok =
    // Integers must be safe: above 2^53 - 1 they are not exact, and snapshots refuse them.
    (!range.integer || Number.isSafeInteger(v)) &&
    (min === undefined || (range.openMin ? v > min : v >= min)) &&
    (max === undefined || (range.openMax ? v < max : v <= max));
  if (!ok) throw new RouteKitError(ErrorCode.OutOfRange, `${what} must be ${rangeText(range)}, got ${v}`);
  return v;
}

/** `o[name]` as a number in `range`, or `fallback` when absent (undefined). */
export function numberOption(o: Record<string, unknown>, name: string, fallback: number, range?: NumberRange): number;
export function numberOption(
  o: Record<string, unknown>,
  name: string,
  fallback: undefined,
  range?: NumberRange,
): number | undefined;
export function numberOption(
  o: Record<string, unknown>,
  name: string,
  fallback: number | undefined,
  range: NumberRange = {},
): number | undefined {
  const v = o[name];
  if (v === undefined) return fallback;
  return checkNumber(v, `option ${name}`, range);
}

/** `o[name]` as a required number in `range`. */
export function requiredNumber(o: Record<string, unknown>, name: string, range: NumberRange = {}): number {
  const v = o[name];
  if (v === undefined) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `option ${name} is required (${rangeText(range)})`);
  }
  return checkNumber(v, `option ${name}`, range);
}

/** `o[name]` as a boolean (true/false only: `0` or `"false"` are INVALID_ARGUMENT), or `fallback`. */
export function booleanOption(o: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const v = o[name];
  if (v === undefined) return fallback;
  if (typeof v !== "boolean") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `option ${name} must be true or false, got ${describe(v)}`);
  }
  return v;
}

/** `o[name]` as one of `values`, or `fallback`. */
export function enumOption<T extends string>(
  o: Record<string, unknown>,
  name: string,
  values: readonly T[],
  fallback: T,
): T {
  const v = o[name];
  if (v === undefined) return fallback;
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option ${name} must be one of ${values.map((x) => JSON.stringify(x)).join(", ")}, got ${describe(v)}`,
    );
  }
  return v as T;
}

/** `o[name]` as a function, or `fallback`. */
export function functionOption<F extends (...args: never[]) => unknown>(
  o: Record<string, unknown>,
  name: string,
  fallback: F | undefined,
): F | undefined {
  const v = o[name];
  if (v === undefined) return fallback;
  if (typeof v !== "function") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `option ${name} must be a function, got ${describe(v)}`);
  }
  return v as F;
}

/** Largest number of arms a policy accepts at construction. */
export const MAX_INITIAL_ARMS = 1 << 16;

/**
 * `o.arms` as a fresh array of arm ids: an array (a string is refused, not split into letters) of
 * non-empty strings, none listed twice. `required` (default true) makes a missing list an error.
 */
export function armsOption(o: Record<string, unknown>, required = true): string[] {
  const v = o.arms;
  if (v === undefined && !required) return [];
  if (!Array.isArray(v)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option arms must be an array of arm ids (e.g. ["gpt-4o", "claude"]), got ${describe(v)}`,
    );
  }
  if (v.length > MAX_INITIAL_ARMS) {
    throw new RouteKitError(ErrorCode.OutOfRange, `option arms has ${v.length} ids, at most ${MAX_INITIAL_ARMS}`);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const id = v[i] as unknown;
    if (typeof id !== "string" || id.length === 0) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option arms[${i}] must be a non-empty string, got ${describe(id)}`,
      );
    }
    if (seen.has(id)) throw new RouteKitError(ErrorCode.DuplicateArm, `arm "${id}" is listed twice in option arms`);
    seen.add(id);
    out.push(id);
  }
  return out;
}

/** The policy's random stream: `o.rng` (an Rng of this library), else `Rng.fromSeed(o.seed ?? 0)` (a number or string seed). */
export function rngOption(o: Record<string, unknown>): Rng {
  const rng = o.rng;
  if (rng !== undefined) {
    if (!(rng instanceof Rng)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "option rng must be an Rng from @routekit/core");
    }
    return rng;
  }
  const seed = o.seed;
  if (seed === undefined) return Rng.fromSeed(0);
  if (typeof seed === "string") return Rng.fromSeed(seed);
  return Rng.fromSeed(checkNumber(seed, "option seed", {}));
}

/** Default number of pending decisions a policy keeps for late feedback. */
export const DEFAULT_MAX_PENDING = 100_000;
/** Largest maxPending accepted (each pending decision holds a few hundred bytes to a context copy). */
export const MAX_MAX_PENDING = 10_000_000;

/** `o.maxPending`: an integer in [1, 10^7], default 100,000. */
export function maxPendingOption(o: Record<string, unknown>): number {
  return numberOption(o, "maxPending", DEFAULT_MAX_PENDING, { integer: true, min: 1, max: MAX_MAX_PENDING });
}
