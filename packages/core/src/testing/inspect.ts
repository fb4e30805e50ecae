/**
 * Inspection helpers for conformance tests: finding non-finite values inside a snapshot
 * (including the Float64 fields stored as base64), and comparing states.
 */
import { ErrorCode, RouteKitError } from "../errors.js";
import type { Json, Snapshot } from "../snapshot.js";

/** One non-finite value found in a snapshot, with its JSON path (`state.arms[2].Ainv[5]`). */
export interface NonFiniteHit {
  readonly path: string;
  readonly value: number;
  /** True when the value came from a base64 Float64 field. */
  readonly encoded: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes `s` as a base64 Float64 field when it can only be one: a base64 string of at least one
 * full float (12 characters) whose byte length is a multiple of 8. Arm and decision ids used by the
 * harness contain `-` or `:`, so they never match. Returns undefined for anything else.
 */
export function tryDecodeF64(s: string): Float64Array | undefined {
  if (s.length < 12 || s.length % 4 !== 0 || !BASE64.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64");
  if (bytes.length === 0 || bytes.length % 8 !== 0) return undefined;
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

export interface ScanOptions {
  /** Also report +-Infinity inside base64 Float64 fields (plain JSON numbers are always checked). Default false. */
  readonly infinityInEncoded?: boolean;
  /** Stop after this many hits (default 5). */
  readonly limit?: number;
}

/**
 * Every NaN (and, as plain JSON numbers, every +-Infinity, which JSON cannot carry) in a snapshot.
 * NaN inside base64 Float64 fields is always reported; Infinity there only with `infinityInEncoded`.
 */
export function findNonFinite(value: unknown, options: ScanOptions = {}): NonFiniteHit[] {
  const hits: NonFiniteHit[] = [];
  const limit = options.limit ?? 5;
  const walk = (v: unknown, path: string): void => {
    if (hits.length >= limit) return;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) hits.push({ path, value: v, encoded: false });
    } else if (typeof v === "string") {
      const f = tryDecodeF64(v);
      if (f === undefined) return;
      for (let i = 0; i < f.length && hits.length < limit; i++) {
        const x = f[i] as number;
        if (Number.isNaN(x) || (options.infinityInEncoded && !Number.isFinite(x))) {
          hits.push({ path: `${path}[${i}]`, value: x, encoded: true });
        }
      }
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], `${path}[${i}]`);
    } else if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    }
  };
  walk(value, "");
  return hits;
}

/** Numbers of an iterable of numeric arrays that are NaN; used for policy-provided state hooks. */
export function findNaNIn(arrays: Iterable<ArrayLike<number>>, label = "hook"): NonFiniteHit[] {
  const hits: NonFiniteHit[] = [];
  let k = 0;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) {
      const x = a[i] as number;
      if (Number.isNaN(x)) hits.push({ path: `${label}#${k}[${i}]`, value: x, encoded: false });
    }
    k++;
  }
  return hits;
}

/**
 * The canonical text of a snapshot (JSON.stringify). Two states are "the same" for the harness
 * exactly when these strings are equal.
 */
export function snapshotText(s: Snapshot): string {
  return JSON.stringify(s);
}

/** Finds a base64 Float64 field by a path of keys/indices inside a snapshot state and decodes it. */
export function decodeAt(state: Json, path: readonly (string | number)[]): Float64Array {
  let v: unknown = state;
  for (const k of path) {
    if (v === null || typeof v !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, `no field ${path.join(".")}`);
    v = (v as Record<string | number, unknown>)[k];
  }
  const f = typeof v === "string" ? tryDecodeF64(v) : undefined;
  if (f === undefined)
    throw new RouteKitError(ErrorCode.InvalidArgument, `field ${path.join(".")} is not Float64 data`);
  return f;
}

/** Describes a thrown value in one line (for failure messages). */
export function describeError(e: unknown): string {
  if (e instanceof RouteKitError) return `RouteKitError(${e.code}): ${e.message}`;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return `non-Error value ${String(e)}`;
}

/** A short printable form of an argument for failure messages. */
export function show(x: unknown): string {
  if (x instanceof Float64Array) {
    const head = Array.from(x.subarray(0, 6), (v) => (Number.isFinite(v) ? Number(v.toPrecision(4)) : String(v)));
    return `F64[${x.length}](${head.join(", ")}${x.length > 6 ? ", ..." : ""})`;
  }
  if (typeof x === "number") return String(x);
  if (typeof x === "string") return JSON.stringify(x);
  if (x === undefined) return "undefined";
  try {
    return JSON.stringify(x, (_k, v) =>
      v instanceof Float64Array ? show(v) : typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
    );
  } catch {
    return String(x);
  }
}

/**
 * The first place where `value` is not plain JSON data, i.e. where JSON.stringify would drop or change it (an
 * undefined field, a function, a typed array, a Map, a class instance, a non-finite number), or null.
 */
export function findNonJson(value: unknown, path = "snapshot"): string | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNonJson(value[i], `${path}[${i}]`);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (typeof value !== "object") return path;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return path;
  for (const [k, v] of Object.entries(value)) {
    const hit = findNonJson(v, `${path}.${k}`);
    if (hit !== null) return hit;
  }
  return null;
}
