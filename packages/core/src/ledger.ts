import { ErrorCode, RouteKitError } from "./errors.js";
import { rejectUnknownOptions } from "./option-keys.js";
import { maxPendingOption, readOptions } from "./options.js";
import type { Json } from "./snapshot.js";
import { describe, errorText } from "./validate.js";

/**
 * "000" .. "999", built on first use: ids from 1000 on are a cached prefix of the thousands plus one of
 * these, so issuing an id converts no number to a string. (Each conversion goes through V8's number-string
 * cache, which then holds thousands of fresh strings that every young-generation collection copies.)
 */
let threeDigits: string[] | undefined;
function lastThreeDigits(): string[] {
  if (threeDigits === undefined) threeDigits = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
  return threeDigits;
}

/**
 * Sequence numbers stay below 10^15: `get` reads at most 15 digits (so the value is a safe integer), and a
 * ledger restored at nextSeq 10^15 + 10 issued ids it then refused as never issued (past 2^53 it issued the
 * same id twice).
 */
const SEQ_LIMIT = 1e15;

/** How a ledger stores its payloads in a snapshot, and what to do with a payload it drops. */
export interface LedgerCodec<P> {
  encode(payload: P): Json;
  decode(json: Json): P;
  /** Called when a payload leaves the ledger (settled or evicted), e.g. to return a pooled buffer. */
  dispose?(payload: P): void;
}

export interface LedgerOptions {
  /**
   * How many decisions may wait for feedback; the oldest is dropped beyond this, so feedback that
   * never comes cannot grow memory without bound. Default 100,000.
   */
  maxPending?: number;
  /** Prefix of decision ids (default "d"). */
  prefix?: string;
}

/** Anything that names a decision: the Decision object a policy returned, or its id. */
export type DecisionRef = string | { readonly id: string };

/**
 * Decisions awaiting feedback. Feedback may arrive late, out of order, or never; each decision
 * accepts feedback once. The ledger is part of a policy's snapshot, so feedback for a decision
 * made before a restart still applies after it.
 */
export class DecisionLedger<P> {
  private nextSeq = 0;
  private lastEvicted = -1;
  /** No pending decision has a sequence number below this (eviction scans upward from it). */
  private oldestBound = 0;
  /** Pending decisions except the newest (see `hotSeq`). */
  private readonly pending = new Map<number, P>();
  /**
   * The newest decision while it is pending (-1: none), kept out of the Map: in the usual stream
   * (select, then its feedback, then the next select) no decision ever enters the Map, which saves the
   * Map's set, get and delete on every round. It moves into the Map when a newer one is issued.
   */
  private hotSeq = -1;
  private hotPayload: P | undefined = undefined;
  /** The last id issued and its sequence number: update and settle look the same id up, parsed once. */
  private lastId = "";
  private lastIdSeq = -1;
  /**
   * The reference object `get` resolved last and its sequence number: `settle` of the same object uses
   * that number instead of reading `ref.id` again, so a getter cannot make get and settle name two
   * different decisions (the feedback applied to one, the other settled).
   */
  private lastRef: object | undefined = undefined;
  private lastRefSeq = -1;
  /** The id prefix followed by the thousands of the last id of 1000 or more, and those thousands. */
  private thousandsId = "";
  private thousands = -1;
  private readonly maxPending: number;
  private readonly prefix: string;

  constructor(
    private readonly codec: LedgerCodec<P>,
    options: LedgerOptions = {},
  ) {
    checkCodec(codec);
    // The option reader policies use, so the same fault gets the same code (maxPending: 0 is OUT_OF_RANGE).
    if (options === null || typeof options !== "object") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `ledger options must be an object, got ${describe(options)}`);
    }
    // As every constructor in RouteKit: a misspelt key (`maxPendng`) was ignored, leaving the default in force.
    rejectUnknownOptions(options, ["maxPending", "prefix"], "DecisionLedger");
    // Read through readOptions: a getter that throws is INVALID_ARGUMENT naming the option (its Error escaped).
    const o = readOptions(options, "DecisionLedger");
    this.maxPending = maxPendingOption(o);
    const prefix: unknown = o.prefix ?? "d";
    if (typeof prefix !== "string") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `option prefix must be a string, got ${describe(prefix)}`);
    }
    this.prefix = prefix;
  }

  /** Number of decisions waiting for feedback. */
  get size(): number {
    return this.pending.size + (this.hotSeq >= 0 ? 1 : 0);
  }

  /** Number of decisions ever issued (the next decision's sequence number). */
  get issued(): number {
    return this.nextSeq;
  }

  /** Records a new decision and returns its id. */
  issue(payload: P): string {
    if (this.nextSeq >= SEQ_LIMIT) {
      throw new RouteKitError(
        ErrorCode.InvalidState,
        `this ledger has issued ${SEQ_LIMIT} decision ids, the most it can tell apart; start a new policy`,
      );
    }
    const seq = this.nextSeq++;
    if (this.hotSeq >= 0) this.pending.set(this.hotSeq, this.hotPayload as P);
    this.hotSeq = seq;
    this.hotPayload = payload;
    // The newest is never the oldest of more than maxPending >= 1 decisions: the one to drop is in the Map.
    if (this.pending.size + 1 > this.maxPending) {
      // Sequence numbers only grow, so the oldest pending decision is the first present at or above
      // oldestBound; the scan is amortised O(1) per decision. (A Map's first key is not: V8 walks
      // every deleted entry at the head of its table, 12-47 us per decision once the ledger is full.)
      let oldest = this.oldestBound;
      let p = this.pending.get(oldest);
      while (p === undefined) p = this.pending.get(++oldest);
      this.pending.delete(oldest);
      this.oldestBound = oldest + 1;
      this.lastEvicted = oldest;
      this.codec.dispose?.(p);
    }
    let id: string;
    if (seq < 1000) id = this.prefix + seq;
    else {
      const k = (seq - (seq % 1000)) / 1000;
      if (k !== this.thousands) {
        this.thousands = k;
        this.thousandsId = this.prefix + k;
      }
      id = this.thousandsId + (lastThreeDigits()[seq - k * 1000] as string);
    }
    this.lastId = id;
    this.lastIdSeq = seq;
    return id;
  }

  /** The payload of a pending decision; throws a typed error otherwise. Does not remove it. */
  get(ref: DecisionRef): P {
    const seq = this.parse(ref);
    if (typeof ref === "object") {
      this.lastRef = ref;
      this.lastRefSeq = seq;
    }
    const p = seq === this.hotSeq ? this.hotPayload : this.pending.get(seq);
    if (p === undefined) {
      if (seq <= this.lastEvicted) {
        throw new RouteKitError(
          ErrorCode.DecisionExpired,
          `decision "${this.prefix}${seq}" already received feedback or was dropped after ${this.maxPending} newer decisions`,
        );
      }
      throw new RouteKitError(
        ErrorCode.DecisionAlreadyUsed,
        `decision "${this.prefix}${seq}" already received feedback`,
      );
    }
    return p;
  }

  /**
   * The id of the decision `ref` names, as issued (prefix + sequence number). Right after `get(ref)` of the same
   * object it does not read `ref.id` again, so a record made with it names the decision `get` resolved even when
   * the id is a getter that changes between reads. Throws as `get` does for an id this ledger never issued.
   */
  idOf(ref: DecisionRef): string {
    if (typeof ref === "string") {
      this.parse(ref);
      return ref;
    }
    return this.prefix + (ref === this.lastRef ? this.lastRefSeq : this.parse(ref));
  }

  /** Removes a decision after its feedback has been applied. */
  settle(ref: DecisionRef): void {
    const seq = ref === this.lastRef ? this.lastRefSeq : this.parse(ref);
    this.lastRef = undefined;
    if (seq === this.hotSeq) {
      const p = this.hotPayload as P;
      this.hotSeq = -1;
      this.hotPayload = undefined;
      this.codec.dispose?.(p);
      return;
    }
    const p = this.pending.get(seq);
    if (p === undefined) return;
    this.pending.delete(seq);
    this.codec.dispose?.(p);
  }

  /** Iterates pending payloads (oldest first). */
  *values(): IterableIterator<P> {
    yield* this.pending.values();
    if (this.hotSeq >= 0) yield this.hotPayload as P;
  }

  toJSON(): Json {
    const entries: Json[] = [];
    for (const [seq, p] of this.pending) entries.push([seq, this.codec.encode(p)]);
    if (this.hotSeq >= 0) entries.push([this.hotSeq, this.codec.encode(this.hotPayload as P)]);
    return { nextSeq: this.nextSeq, lastEvicted: this.lastEvicted, entries };
  }

  /**
   * Checks a ledger snapshot without loading it: the same structural checks as {@link loadJSON}, with
   * `checkPayload` run on every pending payload (it throws on an invalid one). Throws SNAPSHOT_CORRUPT.
   */
  static validateJSON(json: Json | undefined, checkPayload: (payload: Json) => void): void {
    parseLedger(json, checkPayload);
  }

  /**
   * Replaces this ledger's content with a snapshot's, validating it all first: on a corrupt
   * snapshot it throws SNAPSHOT_CORRUPT and the ledger is unchanged. If the snapshot holds more
   * pending decisions than this ledger's `maxPending`, the oldest are dropped as `issue` would.
   */
  loadJSON(json: Json | undefined): void {
    const parsed = parseLedger(json, (p) => this.codec.decode(p));
    const decoded = parsed.entries;
    let lastEvicted = parsed.lastEvicted;
    for (const p of this.values()) this.codec.dispose?.(p);
    this.pending.clear();
    this.hotSeq = -1;
    this.hotPayload = undefined;
    this.lastId = "";
    this.lastIdSeq = -1;
    const drop = Math.max(0, decoded.length - this.maxPending);
    for (let i = 0; i < decoded.length; i++) {
      const [seq, p] = decoded[i] as [number, P];
      if (i < drop) {
        lastEvicted = seq;
        this.codec.dispose?.(p);
      } else {
        this.pending.set(seq, p);
      }
    }
    this.nextSeq = parsed.nextSeq;
    this.lastEvicted = lastEvicted;
    this.oldestBound = lastEvicted + 1;
  }

  private parse(ref: DecisionRef): number {
    const id = typeof ref === "string" ? ref : ref !== null && typeof ref === "object" ? readRefId(ref) : undefined;
    if (id === this.lastId && this.lastIdSeq >= 0) return this.lastIdSeq;
    if (typeof id !== "string") {
      // Not an id at all (a number, null, an object without id): "unknown decision id undefined" named nothing.
      throw new RouteKitError(
        ErrorCode.UnknownDecision,
        `unknown decision: expected an id string or a decision { id }, got ${describe(ref)}`,
      );
    }
    if (!id.startsWith(this.prefix)) {
      throw new RouteKitError(ErrorCode.UnknownDecision, `unknown decision id ${JSON.stringify(id)}`);
    }
    // Canonical decimal digits after the prefix (no sign, no leading zero), parsed without a regex:
    // this runs on every update. 15 digits keep the value a safe integer. Every id runs the same
    // operations (the leading-zero test is not inside the loop): an operation that only the first id
    // "d0" reaches has no type feedback in a process's first ledger, and reaching it later made V8
    // discard the optimised update of every policy built after the first.
    const start = this.prefix.length;
    const end = id.length;
    const len = end - start;
    let seq = len > 0 && len <= 15 && (len === 1 || id.charCodeAt(start) !== 48) ? 0 : -1;
    for (let i = start; i < end && seq >= 0; i++) {
      const c = id.charCodeAt(i) - 48;
      seq = c >= 0 && c <= 9 ? seq * 10 + c : -1;
    }
    if (seq < 0 || seq >= this.nextSeq) {
      throw new RouteKitError(
        ErrorCode.UnknownDecision,
        `unknown decision id ${JSON.stringify(id)}: this policy never issued it`,
      );
    }
    return seq;
  }
}

/**
 * Throws INVALID_ARGUMENT unless `codec` is an object with `encode` and `decode` functions (and `dispose`, when
 * present, a function): `new DecisionLedger(null)` was accepted and the first snapshot or settle threw a TypeError.
 */
function checkCodec(codec: unknown): void {
  if (codec === null || typeof codec !== "object") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `ledger codec must be an object, got ${describe(codec)}`);
  }
  const c = readOptions(codec, "DecisionLedger codec");
  for (const name of ["encode", "decode", "dispose"]) {
    const f = c[name];
    if (typeof f !== "function" && !(name === "dispose" && f === undefined)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `ledger codec ${name} must be a function${name === "dispose" ? " or undefined" : ""}, got ${describe(f)}`,
      );
    }
  }
}

/** `ref.id`, read once; a getter that throws is INVALID_ARGUMENT. */
function readRefId(ref: { readonly id: string }): unknown {
  try {
    return ref.id;
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading the decision's id threw: ${errorText(e)}`);
  }
}

/**
 * Parses a ledger snapshot, decoding each pending payload with `decode`; throws SNAPSHOT_CORRUPT on
 * any structural fault (decode throws its own errors). Changes nothing.
 */
function parseLedger<P>(
  json: Json | undefined,
  decode: (payload: Json) => P,
): { nextSeq: number; lastEvicted: number; entries: [number, P][] } {
  const o = json as { nextSeq?: unknown; lastEvicted?: unknown; entries?: unknown };
  if (
    o === null ||
    typeof o !== "object" ||
    !Number.isSafeInteger(o.nextSeq) ||
    !Number.isSafeInteger(o.lastEvicted) ||
    (o.nextSeq as number) < 0 ||
    (o.nextSeq as number) > SEQ_LIMIT ||
    (o.lastEvicted as number) < -1 ||
    (o.lastEvicted as number) >= (o.nextSeq as number) ||
    !Array.isArray(o.entries)
  ) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, "snapshot has no valid decision ledger");
  }
  const nextSeq = o.nextSeq as number;
  const lastEvicted = o.lastEvicted as number;
  const entries: [number, P][] = [];
  let prev = lastEvicted;
  for (const e of o.entries as unknown[]) {
    // Sequence numbers must increase (eviction drops the oldest first) and lie in (lastEvicted, nextSeq).
    if (!Array.isArray(e) || e.length !== 2 || !Number.isInteger(e[0]) || e[0] <= prev || e[0] >= nextSeq) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, "snapshot has a malformed pending decision");
    }
    prev = e[0] as number;
    let payload: P;
    try {
      payload = decode(e[1] as Json);
    } catch (err) {
      // The codec's own refusal keeps its code; anything else (a TypeError on a malformed payload) is a bad snapshot.
      if (err instanceof RouteKitError) throw err;
      throw new RouteKitError(
        ErrorCode.SnapshotCorrupt,
        `snapshot has a pending decision whose payload cannot be decoded: ${errorText(err)}`,
      );
    }
    entries.push([prev, payload]);
  }
  return { nextSeq, lastEvicted, entries };
}
