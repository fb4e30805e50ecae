import { ErrorCode, RouteKitError } from "./errors.js";
import { describe, errorText } from "./validate.js";

/** Format tag carried by every snapshot; bumped only when the envelope itself changes. */
export const SNAPSHOT_FORMAT = "routekit/snapshot";
export const SNAPSHOT_FORMAT_VERSION = 1;

/** A JSON value: what a snapshot's `state` may contain. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * A versioned, JSON-safe snapshot of a policy (or any stateful object).
 * `kind` names the class (e.g. `"classic/ucb1"`), `kindVersion` its state layout.
 * Float64 data is stored as base64 of the raw little-endian bytes, so it restores bit-exactly
 * (including -0, subnormals and NaN payloads).
 */
export interface Snapshot<S extends Json = Json> {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: number;
  readonly kind: string;
  readonly kindVersion: number;
  readonly state: S;
  /**
   * Integrity check over `kind`, `kindVersion` and the JSON text of `state` (see {@link snapshotChecksum}):
   * a snapshot altered after it was written (a flipped bit in a base64 field, an edited number) is
   * refused with SNAPSHOT_CORRUPT instead of loading as a different state.
   */
  readonly checksum: string;
}

/**
 * The checksum a snapshot carries: two 32-bit FNV-1a style lanes (different offsets, one
 * multiply-mixed) over the UTF-16 code units of `JSON.stringify([kind, kindVersion, state])`,
 * as 16 hex digits. It detects accidental corruption (every single-bit change), not tampering.
 */
export function snapshotChecksum(kind: string, kindVersion: number, state: unknown): string {
  return checksumOfText(JSON.stringify([kind, kindVersion, state]));
}

function checksumOfText(text: string): string {
  let a = 0x811c9dc5 | 0;
  let b = 0x2545f491 | 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return (a >>> 0).toString(16).padStart(8, "0") + ((b ^ (b >>> 16)) >>> 0).toString(16).padStart(8, "0");
}

/**
 * Wraps `state` in the snapshot envelope, with its checksum. A NaN or +-Infinity anywhere in `state` is NON_FINITE
 * naming its path (`state.arms[1].mean`, also in `details.path`): JSON writes it as null, so the snapshot silently
 * held another state. Float64 data goes through {@link encodeF64}, which keeps every bit.
 */
export function makeSnapshot<S extends Json>(kind: string, kindVersion: number, state: S): Snapshot<S> {
  let text: string;
  try {
    text = JSON.stringify([kind, kindVersion, state]);
  } catch (e) {
    // A cycle or a bigint (TypeError), or a getter that throws: typed, naming the policy.
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `cannot snapshot "${kind}": the state is not JSON: ${errorText(e)}`,
    );
  }
  // JSON.stringify writes a non-finite number as null, so a text without "null" cannot hold one: the walk below
  // runs only when "null" occurs somewhere (a real null, an id or a base64 run that spells it).
  if (text.includes("null")) {
    const bad = nonFinitePath(state);
    if (bad !== undefined) {
      throw new RouteKitError(
        ErrorCode.NonFinite,
        `cannot snapshot "${kind}": ${bad.path} is ${String(bad.value)}, and JSON would write it as null ` +
          "(a state must hold finite numbers; encode Float64 data with encodeF64)",
        { path: bad.path },
      );
    }
  }
  const checksum = checksumOfText(text);
  return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_FORMAT_VERSION, kind, kindVersion, state, checksum };
}

/**
 * Checks the envelope and returns its state. Throws SNAPSHOT_KIND for a snapshot of another class,
 * SNAPSHOT_VERSION for another layout version, SNAPSHOT_CORRUPT for anything that is not a snapshot
 * or whose checksum does not match its content.
 */
export function readSnapshot(snapshot: unknown, kind: string, kindVersion: number): Record<string, Json> {
  const s = snapshot as Partial<Snapshot>;
  if (s === null || typeof s !== "object" || s.format !== SNAPSHOT_FORMAT) {
    throw new RouteKitError(
      ErrorCode.SnapshotCorrupt,
      `not a RouteKit snapshot (expected format "${SNAPSHOT_FORMAT}")`,
    );
  }
  if (s.version !== SNAPSHOT_FORMAT_VERSION) {
    throw new RouteKitError(
      ErrorCode.SnapshotVersion,
      `snapshot envelope version ${describe(s.version)} is not supported (expected ${SNAPSHOT_FORMAT_VERSION})`,
    );
  }
  if (s.kind !== kind) {
    throw new RouteKitError(ErrorCode.SnapshotKind, `snapshot is of kind ${describe(s.kind)}, expected "${kind}"`);
  }
  if (s.kindVersion !== kindVersion) {
    throw new RouteKitError(
      ErrorCode.SnapshotVersion,
      `snapshot of "${kind}" has state version ${describe(s.kindVersion)}, this build reads version ${kindVersion}`,
    );
  }
  if (s.state === null || typeof s.state !== "object" || Array.isArray(s.state)) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot of "${kind}" has no state object`);
  }
  if (typeof s.checksum !== "string" || s.checksum !== snapshotChecksum(kind, kindVersion, s.state)) {
    throw new RouteKitError(
      ErrorCode.SnapshotCorrupt,
      `snapshot of "${kind}" fails its integrity check (checksum ${typeof s.checksum === "string" ? "mismatch" : "missing"}): it was altered or damaged after it was written`,
    );
  }
  return s.state as Record<string, Json>;
}

/**
 * The path ("state.a[2].b") and value of the first NaN or +-Infinity in a JSON state, or undefined. It visits what
 * JSON.stringify writes: array items and own enumerable keys (it runs after stringify, so the state is acyclic).
 */
function nonFinitePath(state: unknown): { path: string; value: number } | undefined {
  const at: (string | number)[] = [];
  let value = 0;
  const visit = (v: unknown): boolean => {
    if (typeof v === "number") {
      value = v;
      return !Number.isFinite(v);
    }
    if (v === null || typeof v !== "object") return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (visit(v[i])) {
          at.push(i);
          return true;
        }
      }
      return false;
    }
    for (const k of Object.keys(v)) {
      if (visit((v as Record<string, unknown>)[k])) {
        at.push(k);
        return true;
      }
    }
    return false;
  };
  if (!visit(state)) return undefined;
  let path = "state";
  for (let i = at.length - 1; i >= 0; i--) {
    const k = at[i] as string | number;
    path += typeof k === "number" ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
  }
  return { path, value };
}

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === "function";

/** Float64Array -> base64 of its bytes (little-endian on every platform Node supports). */
export function encodeF64(a: Float64Array): string {
  const chars = Math.ceil(a.byteLength / 3) * 4;
  if (chars > MAX_STRING_LENGTH) {
    throw new RouteKitError(
      ErrorCode.InvalidState,
      `a state array of ${a.length} Float64 values is ${chars} characters of base64, above JavaScript's string limit ` +
        `(${MAX_STRING_LENGTH}): this state is too large for a JSON snapshot`,
    );
  }
  const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  if (hasBuffer) return Buffer.from(bytes).toString("base64");
  let bin = "";
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i] as number);
  return btoa(bin);
}

/** The longest string V8 builds (2^29 - 24 characters); a longer base64 field cannot be written. */
export const MAX_STRING_LENGTH = 2 ** 29 - 24;

// Node's base64 decoder skips characters it does not know; a snapshot must not decode "mostly".
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** base64 -> Float64Array; checks the length when `expectedLength` is given. */
export function decodeF64(s: Json | undefined, what: string, expectedLength?: number): Float64Array {
  if (typeof s !== "string" || s.length % 4 !== 0 || !BASE64.test(s))
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field ${what} must be a base64 string`);
  let bytes: Uint8Array;
  if (hasBuffer) {
    bytes = new Uint8Array(Buffer.from(s, "base64"));
  } else {
    const bin = atob(s);
    bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  }
  if (bytes.length % 8 !== 0) throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field ${what} is truncated`);
  const out = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8).slice();
  if (expectedLength !== undefined && out.length !== expectedLength) {
    throw new RouteKitError(
      ErrorCode.SnapshotCorrupt,
      `snapshot field ${what} has ${out.length} values, expected ${expectedLength}`,
    );
  }
  return out;
}

/**
 * Decodes a snapshot's Float64 field into `target` (which must have exactly the stored length), so
 * restored state can live in buffers the caller chose, e.g. linalg's WebAssembly-reachable `allocF64`.
 */
export function decodeF64Into(s: Json | undefined, what: string, target: Float64Array): Float64Array {
  target.set(decodeF64(s, what, target.length));
  return target;
}

// ------------------------------------------------------------ field readers
//
// fromJSON reads a snapshot with these before constructing anything: a field that is missing, of
// the wrong type, non-finite or out of range throws SNAPSHOT_CORRUPT naming it and what was expected.
// `name` is a key of `o` (quoted in the message); `what` is a path such as `arms[2].b` (as is).

/** Throws SNAPSHOT_CORRUPT: "snapshot field <what> must be <expected>". */
export function snapshotCorrupt(what: string, expected: string): never {
  throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field ${what} must be ${expected}`);
}

/** A plain object (not null, not an array). */
export function readObject(v: Json | undefined, what: string): Record<string, Json> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) snapshotCorrupt(what, "an object");
  return v as Record<string, Json>;
}

/** `o[name]`: a safe integer in [min, max] (a count, a size or an id number). */
export function readInt(o: Record<string, Json>, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = o[name];
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    snapshotCorrupt(`"${name}"`, `an integer in [${min}, ${max}]`);
  }
  return v as number;
}

/** `o[name]`: a finite number satisfying `ok` (described by `expected`). */
export function readNumber(
  o: Record<string, Json>,
  name: string,
  ok: (v: number) => boolean = () => true,
  expected = "a finite number",
): number {
  const v = o[name];
  if (typeof v !== "number" || !Number.isFinite(v) || !ok(v)) snapshotCorrupt(`"${name}"`, expected);
  return v as number;
}

/** `o[name]`: one of the strings `values`. */
export function readEnum<T extends string>(o: Record<string, Json>, name: string, values: readonly T[]): T {
  const v = o[name];
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    snapshotCorrupt(`"${name}"`, `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`);
  }
  return v as T;
}

/** `o[name]`: a non-empty string (an arm id). */
export function readId(o: Record<string, Json>, name: string): string {
  const v = o[name];
  if (typeof v !== "string" || v.length === 0) snapshotCorrupt(`"${name}"`, "a non-empty string");
  return v as string;
}

/**
 * Float64 data (base64, see {@link decodeF64}) whose entries are all finite and satisfy `ok(value, index)`;
 * its length is `length` when a number, or must satisfy `length` when a function.
 */
export function readF64(
  v: Json | undefined,
  what: string,
  length?: number | ((n: number) => boolean),
  ok?: (x: number, i: number) => boolean,
): Float64Array {
  const a = decodeF64(v, what, typeof length === "number" ? length : undefined);
  if (typeof length === "function" && !length(a.length)) snapshotCorrupt(what, "Float64 data of a consistent length");
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    if (!Number.isFinite(x) || (ok !== undefined && !ok(x, i)))
      snapshotCorrupt(`${what}[${i}]`, "a valid finite value");
  }
  return a;
}

// ------------------------------------------------------------ semantic checks
//
// The checksum proves a snapshot was not damaged, not that it holds a state the policy can reach: a snapshot edited and
// resealed (its checksum recomputed) with finite but absurd values (a negative variance, a count below its parts,
// probabilities that do not sum to 1) passes every field reader above. These checks, each O(size of the data), refuse
// what no sequence of calls can produce; every family runs them in fromJSON before building anything, so a refused
// snapshot leaves nothing changed. Each throws SNAPSHOT_CORRUPT "snapshot field <what> is <value>; <property>".

/** Throws SNAPSHOT_CORRUPT: "snapshot field <what> is <value>; <property>" (the value read, the rule it breaks). */
export function snapshotInvalid(what: string, value: number | string, property: string): never {
  throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field ${what} is ${String(value)}; ${property}`);
}

/**
 * Checks the diagonal of an n x n matrix stored row-major with row stride `ld` (a full or an upper-triangle matrix;
 * `packed` for the packed upper triangle, rows of n, n - 1, ... entries): every entry in [min, max] (min exclusive when
 * `openMin`). `property` says why, e.g. "an inverse Gram matrix has a positive diagonal".
 */
export function checkDiagonal(
  m: ArrayLike<number>,
  n: number,
  what: string,
  property: string,
  bounds: { readonly min: number; readonly openMin?: boolean; readonly max?: number },
  layout: { readonly ld?: number; readonly packed?: boolean } = {},
): void {
  const ld = layout.ld ?? n;
  const max = bounds.max ?? Number.POSITIVE_INFINITY;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const x = m[layout.packed ? k : i * ld + i] as number;
    k += n - i;
    if (!(bounds.openMin ? x > bounds.min : x >= bounds.min) || !(x <= max)) {
      snapshotInvalid(`${what} diagonal entry ${i}`, x, property);
    }
  }
}

/**
 * Checks that the n x n row-major matrix `m` (row stride `ld`) is symmetric: bit for bit when `tolerance` is 0 (a matrix
 * the code writes to both triangles alike), else |m_ij - m_ji| <= tolerance * max(|m_ij|, |m_ji|, |m_ii|, |m_jj|).
 */
export function checkSymmetric(m: ArrayLike<number>, n: number, what: string, tolerance = 0, ld = n): void {
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = m[i * ld + j] as number;
      const b = m[j * ld + i] as number;
      if (a === b) continue;
      const scale = Math.max(
        Math.abs(a),
        Math.abs(b),
        Math.abs(m[i * ld + i] as number),
        Math.abs(m[j * ld + j] as number),
      );
      if (!(Math.abs(a - b) <= tolerance * scale)) {
        snapshotInvalid(`${what}[${i}, ${j}]`, a, `it differs from ${what}[${j}, ${i}] = ${b} in a symmetric matrix`);
      }
    }
  }
}

/**
 * Checks that the n x n row-major matrix `m` (row stride `ld`) is exactly 0 on one side of its diagonal (`zero`): a
 * triangular factor, or a matrix of which the code writes one triangle only. Names the first non-zero entry; `property`
 * says why, e.g. "a lower-triangular Cholesky factor is 0 above its diagonal".
 */
export function checkTriangular(
  m: ArrayLike<number>,
  n: number,
  what: string,
  zero: "above" | "below",
  property: string,
  ld = n,
): void {
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const [r, c] = zero === "above" ? [i, j] : [j, i];
      const v = m[r * ld + c] as number;
      if (v !== 0) snapshotInvalid(`${what}[${r}, ${c}]`, v, property);
    }
  }
}

/** Whether p[0..n) are numbers in [0, 1] summing to 1 within `tolerance` (1e-9 by default). */
export function isProbabilityVector(p: ArrayLike<number>, n: number, tolerance = 1e-9): boolean {
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = p[i] as number;
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) return false;
    s += v;
  }
  return Math.abs(s - 1) <= tolerance;
}

/** Checks that p[0..n) is a probability distribution ({@link isProbabilityVector}); names the first bad entry or the sum. */
export function checkProbabilities(p: ArrayLike<number>, n: number, what: string, tolerance = 1e-9): void {
  if (isProbabilityVector(p, n, tolerance)) return;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const v = p[i] as number;
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) snapshotInvalid(`${what}[${i}]`, v, "a probability is in [0, 1]");
    s += v;
  }
  snapshotInvalid(`${what} (sum)`, s, `probabilities sum to 1 (within ${tolerance})`);
}

/**
 * Checks that parts counted in `total` do not exceed it: `sum` (the per-arm counts added up) <= `total`, or
 * equal to it when `equal` (no part of the total can have left, e.g. no arm was ever removed).
 */
export function checkCountTotal(sum: number, total: number, what: string, totalName: string, equal = false): void {
  if (equal ? sum !== total : !(sum <= total)) {
    snapshotInvalid(`${what} (sum)`, sum, `per-arm counts add up to ${equal ? "" : "at most "}${totalName} (${total})`);
  }
}

/** Reads a required field of a snapshot state with a type check. */
export function field<T extends "number" | "string" | "boolean" | "object" | "array">(
  state: Record<string, Json>,
  name: string,
  type: T,
): T extends "number"
  ? number
  : T extends "string"
    ? string
    : T extends "boolean"
      ? boolean
      : T extends "array"
        ? Json[]
        : Record<string, Json> {
  const v = state[name];
  const ok =
    type === "array"
      ? Array.isArray(v)
      : type === "object"
        ? v !== null && typeof v === "object" && !Array.isArray(v)
        : typeof v === type;
  if (!ok) throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field "${name}" must be ${type}`);
  // biome-ignore lint/suspicious/noExplicitAny: narrowed by the runtime check above
  return v as any;
}

/**
 * The per-replica fields of every policy snapshot's state: the random stream and the pending decisions.
 * Everything else is learned state, a function of the feedback learned (in order) alone.
 */
export const PER_REPLICA_FIELDS = ["rng", "ledger"] as const;

/**
 * A snapshot's learned state: its `state` without the per-replica fields ({@link PER_REPLICA_FIELDS}).
 * Two replicas that learned the same events in the same order have equal learned states, byte for byte,
 * as JSON, whatever each selected.
 */
export function learnedState(snapshot: Snapshot): Record<string, Json> {
  const st = { ...(snapshot.state as Record<string, Json>) };
  for (const f of PER_REPLICA_FIELDS) delete st[f];
  return st;
}

/**
 * A copy of `snapshot` with its per-replica fields replaced: `rng` (when the policy keeps one) by the
 * given stream's state and `ledger` by an empty ledger. This is how a new replica starts from another replica's snapshot
 * without sharing its random stream or its pending decisions.
 */
export function withReplicaParts(snapshot: Snapshot, rng: { toJSON(): unknown }): Snapshot {
  // Verify the integrity of what we are given before resealing it: a new checksum must never launder
  // a damaged snapshot.
  const st = readSnapshot(snapshot, (snapshot as { kind?: string })?.kind as string, snapshot?.kindVersion);
  if (!("ledger" in st)) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, "snapshot state has no ledger field to replace");
  }
  // A policy that draws nothing (OFU-MNL+, UCB-MNL) keeps no stream: only its ledger is per-replica.
  const state: Record<string, Json> = { ...st, ledger: { nextSeq: 0, lastEvicted: -1, entries: [] } };
  if ("rng" in st) state.rng = rng.toJSON() as Json;
  return makeSnapshot(snapshot.kind, snapshot.kindVersion, state);
}
