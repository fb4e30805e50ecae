/**
 * Snapshot robustness: corrupted, truncated, re-typed or foreign snapshots must be rejected with a
 * RouteKitError, never half-loaded. A mutated snapshot that still loads must give a working policy
 * (checked by a caller-supplied smoke run), not a time bomb.
 */
import { RouteKitError } from "../errors.js";
import type { PolicyBase } from "../protocols.js";
import type { Rng } from "../rng.js";
import { type Json, type Snapshot, snapshotChecksum } from "../snapshot.js";
import { ContractViolation, checkState, Trace } from "./check.js";
import { describeError, tryDecodeF64 } from "./inspect.js";

export interface Corruption {
  readonly label: string;
  readonly value: unknown;
  /** Codes the restore must throw; undefined when loading is acceptable if the result then works. */
  readonly mustThrow?: readonly string[];
}

function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

/**
 * Recomputes a (mutated) snapshot's checksum, so the mutation reaches the class's own field
 * validation instead of stopping at the integrity check.
 */
export function resealSnapshot<T extends { kind: string; kindVersion: number; state: unknown }>(s: T): T {
  return { ...s, checksum: snapshotChecksum(s.kind, s.kindVersion, s.state) };
}

/** An edit of a snapshot's parsed state, in place, by path. */
// biome-ignore lint/suspicious/noExplicitAny: tests edit parsed JSON by path
export type SnapshotEdit = (state: Record<string, any>) => void;

/**
 * A deep copy of a snapshot whose state `edit` changed in place (parsed JSON, edited by path), resealed so the edit
 * reaches the class's own checks: how a test builds a tampered snapshot.
 */
export function tamperedSnapshot<T extends { kind: string; kindVersion: number; state: unknown }>(
  snapshot: T,
  edit: SnapshotEdit,
): T {
  const copy = clone(snapshot);
  edit(copy.state as Parameters<SnapshotEdit>[0]);
  return resealSnapshot(copy);
}

/**
 * Restores `snapshot` tampered by `edit` (see {@link tamperedSnapshot}) with `restore` and returns the outcome text
 * ({@link outcomeText}); a ContractViolation when the restore wrote to its input or changed `policy` (the policy the
 * snapshot came from): a refused snapshot leaves both as they were.
 */
export function tamperedRestoreOutcome<S extends { kind: string; kindVersion: number; state: unknown }>(
  policy: { toJSON(): unknown },
  snapshot: S,
  restore: (s: S) => unknown,
  edit: SnapshotEdit,
): string {
  const before = JSON.stringify(policy.toJSON());
  const bad = tamperedSnapshot(snapshot, edit);
  const badText = JSON.stringify(bad);
  const outcome = outcomeText(() => restore(bad));
  if (JSON.stringify(bad) !== badText) throw new ContractViolation(`restoring wrote to its input (${outcome})`);
  if (JSON.stringify(policy.toJSON()) !== before)
    throw new ContractViolation(`restoring changed the policy (${outcome})`);
  return outcome;
}

/**
 * What a call gave, as text a test can match: "CODE: message" for a RouteKitError it threw, "accepted" when it
 * returned. Any other error is rethrown (a TypeError is a bug, not an outcome).
 */
export function outcomeText(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof RouteKitError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return "accepted";
}

/** `v` with bit `bit` of character `at` flipped (characters stay in the 7-bit range when they were). */
function flipChar(v: string, at: number, bit: number): string {
  return v.slice(0, at) + String.fromCharCode(v.charCodeAt(at) ^ (1 << bit)) + v.slice(at + 1);
}

/** `v` with one bit of its IEEE-754 representation flipped. */
function flipNumber(v: number, bit: number): number {
  const f = new Float64Array([v]);
  const u = new Uint32Array(f.buffer);
  u[bit >> 5] = ((u[bit >> 5] as number) ^ (1 << (bit & 31))) >>> 0;
  return f[0] as number;
}

/**
 * One single-bit corruption of every leaf field of the snapshot's state (a character of a string,
 * for base64 data a bit inside the encoded bytes, a bit of a number's IEEE-754 bits, a boolean
 * negated), plus one of the checksum itself, all left unsealed: each must be refused with
 * SNAPSHOT_CORRUPT. At most `limit` leaves, spread evenly over the state.
 */
export function bitFlipCorruptions(snapshot: Snapshot, rng: Rng, limit = 200): Corruption[] {
  const C = ["SNAPSHOT_CORRUPT"];
  const paths: Path[] = [];
  leaves(snapshot.state, [], paths);
  const leafPaths = paths.filter((p) => {
    const v = getAt(snapshot.state, p);
    return p.length > 0 && (typeof v === "string" || typeof v === "number" || typeof v === "boolean");
  });
  const stride = Math.max(1, leafPaths.length / limit);
  const out: Corruption[] = [];
  for (let k = 0; k < leafPaths.length; k += stride) {
    const path = leafPaths[Math.floor(k)] as Path;
    const v = getAt(snapshot.state, path);
    const copy = clone(snapshot);
    const where = `state.${path.join(".")}`;
    let flipped: unknown;
    if (typeof v === "string") {
      if (v.length === 0) continue;
      const at = rng.int(v.length);
      flipped = flipChar(v, at, rng.int(v.charCodeAt(at) < 128 ? 7 : 16));
    } else if (typeof v === "number") {
      // Flipping the sign of 0 gives -0, which JSON writes as 0: flip a mantissa bit instead.
      flipped = flipNumber(v, v === 0 ? rng.int(52) : rng.int(64));
    } else flipped = !v;
    // A flip that JSON cannot carry (NaN, Infinity) still changes the text: it becomes null.
    setAt(copy.state, path, flipped);
    out.push({ label: `${where}: one bit flipped`, value: copy, mustThrow: C });
  }
  out.push({
    label: "checksum: one bit flipped",
    value: { ...clone(snapshot), checksum: flipChar(snapshot.checksum, 0, 0) },
    mustThrow: C,
  });
  return out;
}

type Path = (string | number)[];

function leaves(v: Json, path: Path, out: Path[]): void {
  if (Array.isArray(v)) {
    out.push(path);
    for (let i = 0; i < v.length; i++) leaves(v[i] as Json, [...path, i], out);
  } else if (v !== null && typeof v === "object") {
    out.push(path);
    for (const k of Object.keys(v)) leaves(v[k] as Json, [...path, k], out);
  } else out.push(path);
}

function getAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return v;
}

function setAt(root: unknown, path: Path, value: unknown, del = false): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown> | unknown[];
  const k = path[path.length - 1] as string | number;
  if (del) {
    if (Array.isArray(parent)) parent.splice(k as number, 1);
    else delete (parent as Record<string, unknown>)[k];
  } else (parent as Record<string | number, unknown>)[k] = value;
}

/**
 * Envelope corruptions (each must throw the listed codes), single-bit flips of every state field
 * (see {@link bitFlipCorruptions}; refused by the checksum) and `count` random mutations of the state
 * (delete a field, null it, change its type, a negative/fractional/huge/Infinity number, a truncated
 * base64 Float64 field, a shortened array), resealed with a valid checksum so they test the class's
 * own field validation. `other` is a snapshot of another policy class.
 */
export function corruptSnapshot(snapshot: Snapshot, other: Snapshot, rng: Rng, count = 40): Corruption[] {
  const C = ["SNAPSHOT_CORRUPT"];
  const out: Corruption[] = [
    { label: "null", value: null, mustThrow: C },
    { label: "a string", value: JSON.stringify(snapshot), mustThrow: C },
    { label: "an array", value: [snapshot], mustThrow: C },
    { label: "format changed", value: { ...clone(snapshot), format: "other/format" }, mustThrow: C },
    {
      label: "envelope version + 1",
      value: { ...clone(snapshot), version: snapshot.version + 1 },
      mustThrow: ["SNAPSHOT_VERSION"],
    },
    {
      label: "kindVersion + 1",
      value: { ...clone(snapshot), kindVersion: snapshot.kindVersion + 1 },
      mustThrow: ["SNAPSHOT_VERSION"],
    },
    { label: `another policy's snapshot (${other.kind})`, value: clone(other), mustThrow: ["SNAPSHOT_KIND"] },
    { label: "kind renamed", value: { ...clone(snapshot), kind: `${snapshot.kind}-x` }, mustThrow: ["SNAPSHOT_KIND"] },
    { label: "state missing", value: { ...clone(snapshot), state: undefined }, mustThrow: C },
    { label: "state is an array", value: { ...clone(snapshot), state: [] }, mustThrow: C },
    { label: "state is empty", value: { ...clone(snapshot), state: {} }, mustThrow: C },
    { label: "state is empty (resealed)", value: resealSnapshot({ ...clone(snapshot), state: {} }), mustThrow: C },
    { label: "checksum missing", value: { ...clone(snapshot), checksum: undefined }, mustThrow: C },
    ...bitFlipCorruptions(snapshot, rng),
  ];
  const paths: Path[] = [];
  leaves(snapshot.state, [], paths);
  const inner = paths.filter((p) => p.length > 0);
  for (let c = 0; c < count && inner.length > 0; c++) {
    const path = inner[rng.int(inner.length)] as Path;
    const v = getAt(snapshot.state, path);
    const copy = clone(snapshot);
    const st = copy.state as unknown;
    const where = `state.${path.join(".")}`;
    const r = rng.int(6);
    let label: string;
    if (typeof v === "string" && tryDecodeF64(v) && r < 3) {
      const cut = r === 0 ? 4 : r === 1 ? Math.floor(v.length / 2 / 4) * 4 : 1;
      setAt(st, path, v.slice(0, v.length - cut));
      label = `${where}: base64 Float64 data truncated by ${cut} chars`;
    } else if (Array.isArray(v) && v.length > 0 && r < 3) {
      setAt(st, path, v.slice(0, v.length - 1));
      label = `${where}: array shortened`;
    } else if (typeof v === "number" && r < 4) {
      const bad = [-1, 0.5, 2 ** 53, Infinity, -Infinity, 1e308][rng.int(6)] as number;
      setAt(st, path, v === bad ? -7 : bad);
      label = `${where}: number ${v} -> ${v === bad ? -7 : bad}`;
    } else if (r === 4) {
      setAt(st, path, undefined, true);
      label = `${where}: removed`;
    } else if (r === 5) {
      setAt(st, path, null);
      label = `${where}: null`;
    } else {
      setAt(st, path, typeof v === "string" ? 12 : "garbage");
      label = `${where}: type changed`;
    }
    out.push({ label: `${label} (resealed)`, value: resealSnapshot(copy) });
  }
  return out;
}

/**
 * Finite but absurd values, resealed (the checksum recomputed): for every Float64 field (base64) its first, middle and
 * last entry set to -1e308, and every number field set to -1e308 (at most `limit` corruptions, spread over the state).
 * No real state holds such a value where an invariant forbids it (a variance, a count, a probability, a budget), so
 * each must be refused with SNAPSHOT_CORRUPT or, where any finite value is valid (a weight), load into a policy that
 * works: give them to {@link checkCorruptions}.
 */
export function absurdValueCorruptions(snapshot: Snapshot, limit = 200): Corruption[] {
  const paths: Path[] = [];
  leaves(snapshot.state, [], paths);
  const all: Corruption[] = [];
  for (const path of paths) {
    if (path.length === 0) continue;
    const v = getAt(snapshot.state, path);
    const where = `state.${path.join(".")}`;
    if (typeof v === "number") {
      const copy = clone(snapshot);
      setAt(copy.state, path, -1e308);
      all.push({ label: `${where}: ${v} -> -1e308 (resealed)`, value: resealSnapshot(copy) });
    } else if (typeof v === "string") {
      const a = tryDecodeF64(v);
      if (a === undefined) continue;
      for (const k of new Set([0, a.length >> 1, a.length - 1])) {
        const b = a.slice();
        b[k] = -1e308;
        const copy = clone(snapshot);
        setAt(copy.state, path, Buffer.from(b.buffer).toString("base64"));
        all.push({ label: `${where}[${k}]: ${a[k]} -> -1e308 (resealed)`, value: resealSnapshot(copy) });
      }
    }
  }
  const stride = Math.max(1, all.length / limit);
  const out: Corruption[] = [];
  for (let k = 0; k < all.length; k += stride) out.push(all[Math.floor(k)] as Corruption);
  return out;
}

/**
 * Restores every corruption with `restore`; each must throw a RouteKitError (with the listed codes
 * for envelope corruptions), or load into a policy whose state is finite and which passes `smoke`.
 * Returns a tally of what happened, for the test log.
 */
export function checkCorruptions<P extends PolicyBase>(
  name: string,
  corruptions: readonly Corruption[],
  restore: (s: Snapshot) => P,
  smoke: (p: P) => void,
): { rejected: number; loaded: number; codes: Record<string, number> } {
  const tally = { rejected: 0, loaded: 0, codes: {} as Record<string, number> };
  for (const c of corruptions) {
    let policy: P;
    try {
      policy = restore(c.value as Snapshot);
    } catch (e) {
      if (!(e instanceof RouteKitError)) {
        throw new ContractViolation(`${name}: snapshot with ${c.label} crashed fromJSON: ${describeError(e)}`);
      }
      if (c.mustThrow && !c.mustThrow.includes(e.code)) {
        throw new ContractViolation(
          `${name}: snapshot with ${c.label} threw ${e.code}, expected ${c.mustThrow.join("|")} (${e.message})`,
        );
      }
      tally.rejected++;
      tally.codes[e.code] = (tally.codes[e.code] ?? 0) + 1;
      continue;
    }
    if (c.mustThrow) throw new ContractViolation(`${name}: snapshot with ${c.label} was accepted`);
    const trace = new Trace();
    trace.push(`${name}: fromJSON(snapshot with ${c.label}) loaded`);
    try {
      checkState(policy, {}, trace);
      try {
        smoke(policy);
      } catch (e) {
        if (e instanceof ContractViolation) throw e;
        if (!(e instanceof RouteKitError)) {
          trace.fail(`after loading a snapshot with ${c.label}, the policy crashed: ${describeError(e)}`);
        }
      }
      checkState(policy, {}, trace);
    } catch (e) {
      if (e instanceof ContractViolation) {
        throw new ContractViolation(
          e.message.includes(c.label) ? `${name}: ${e.message}` : `${name}: snapshot with ${c.label}: ${e.message}`,
        );
      }
      throw e;
    }
    tally.loaded++;
  }
  return tally;
}

/** A deep copy of JSON data whose objects have no prototype (as some JSON parsers and revivers produce). */
function nullPrototypeCopy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(nullPrototypeCopy);
  if (v === null || typeof v !== "object") return v;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, x] of Object.entries(v)) out[k] = nullPrototypeCopy(x);
  return out;
}

/** A deep copy of JSON data with every object and array frozen (fromJSON must not write to its input). */
function frozenCopy(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const out: unknown = Array.isArray(v)
    ? v.map(frozenCopy)
    : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, frozenCopy(x)]));
  return Object.freeze(out);
}

/**
 * A snapshot restores to the same state (bit for bit) from the forms it takes on its way back from storage: a
 * JSON round trip, a structuredClone, a deep copy whose objects have no prototype, and a deeply frozen copy; and
 * restoring does not write to the object it was given.
 */
export function checkRestoreFromForeignObjects<P extends PolicyBase>(
  name: string,
  policy: P,
  restore: (s: Snapshot) => P,
): number {
  const text = JSON.stringify(policy.toJSON());
  const forms: [string, () => unknown][] = [
    ["a JSON round trip", () => JSON.parse(text)],
    ["a structuredClone", () => structuredClone(policy.toJSON())],
    ["a deep copy whose objects have no prototype", () => nullPrototypeCopy(JSON.parse(text))],
    ["a deeply frozen copy", () => frozenCopy(JSON.parse(text))],
  ];
  for (const [what, make] of forms) {
    const input = make();
    let restored: P;
    try {
      restored = restore(input as Snapshot);
    } catch (e) {
      throw new ContractViolation(`${name}: fromJSON of ${what} threw ${describeError(e)}`);
    }
    if (JSON.stringify(restored.toJSON()) !== text) throw new ContractViolation(`${name}: fromJSON of ${what} differs`);
    if (JSON.stringify(input) !== text) throw new ContractViolation(`${name}: fromJSON wrote to ${what}`);
  }
  return forms.length;
}
