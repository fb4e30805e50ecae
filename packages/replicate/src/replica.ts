/**
 * A gateway replica's router that learns from every replica's feedback. Selection is local and never
 * waits on Redis; decisions, feedback and arm changes are appended to one Redis stream; every replica
 * reads that stream in order (its own entries included) and applies it with the same deterministic fold
 * ({@link StreamApplier}), so all replicas that have read up to the same entry hold identical learned
 * state. Snapshots with their stream position let new and restarted replicas start without replaying
 * the whole history; the stream is trimmed only behind the older of the two kept snapshots and behind
 * every live replica's position.
 */

import { createHash } from "node:crypto";
import {
  checkNumber,
  describe,
  ErrorCode,
  errorText,
  isRouteKitError,
  type Json,
  learnedState,
  numberOption,
  optionKeys,
  Rng,
  RouteKitError,
  rejectUnknownOptions,
  type Snapshot,
  withReplicaParts,
} from "@routekit/core";
import { Redis, type RedisOptions } from "ioredis";
import { type ApplyCounts, type JoinState, type ReplicablePolicy, readJoinState, StreamApplier } from "./apply.js";
import { compareStreamIds, decodeEntry, encodeEntry, type StreamEntry } from "./entries.js";
import { LagStats } from "./lag.js";

/** What a replica needs of its policy: it selects, learns from events and names its decisions. */
export interface ReplicaPolicy extends ReplicablePolicy {
  // biome-ignore lint/suspicious/noExplicitAny: select's argument is the protocol's (context or assortment query)
  select(input?: any): { readonly id: string };
  discard(ref: string): void;
}

export interface ReplicaOptions<P extends ReplicaPolicy> {
  /** Redis to use: a URL (`redis://127.0.0.1:6379`) or ioredis options. */
  readonly redis: string | RedisOptions;
  /** Key of the event stream shared by the replicas; snapshots live under `<stream>:snapshot`. */
  readonly stream: string;
  /** This replica's name (unique among live replicas; a restart may reuse it). */
  readonly replicaId: string;
  /** A fresh policy, used when Redis holds no snapshot yet. */
  readonly create: () => P;
  /** Rebuilds a policy from a snapshot (the class's `fromJSON`). */
  readonly restore: (snapshot: Snapshot) => P;
  /** Write a snapshot after every this many applied entries (default 1000). */
  readonly snapshotEvery?: number;
  /**
   * Entries kept while Redis is unreachable (default 100,000). When full, the oldest buffered entry is
   * dropped (counted in `stats().dropped`): serving never blocks on Redis.
   */
  readonly maxBuffered?: number;
  /** Decisions waiting for feedback (and early feedbacks) kept by the join (default 100,000). */
  readonly joinCapacity?: number;
  /** How long one blocking read waits for new entries, ms (default 500). */
  readonly blockMs?: number;
  /** Called with errors that do not stop the replica (Redis unreachable, a snapshot write failed). */
  readonly onError?: (error: unknown) => void;
  /** Called after each stream entry is applied, with its stream id (for audit logs and tests). */
  readonly onApplied?: (streamId: string, entry: StreamEntry | undefined) => void;
}

/** The keys of {@link ReplicaOptions}. */
export const REPLICA_OPTION_KEYS = optionKeys<ReplicaOptions<ReplicaPolicy>>()([
  "redis",
  "stream",
  "replicaId",
  "create",
  "restore",
  "snapshotEvery",
  "maxBuffered",
  "joinCapacity",
  "blockMs",
  "onError",
  "onApplied",
]);

/** What a replica reports about itself. */
export interface ReplicaStats {
  /** Id of the last stream entry applied ("0-0" before any). */
  readonly position: string;
  readonly counts: Readonly<ApplyCounts>;
  /** Entries written locally and not yet acknowledged by Redis. */
  readonly buffered: number;
  /** Entries dropped because the buffer was full. */
  readonly dropped: number;
  /** Milliseconds from an entry's write (by any replica) to its application here. */
  readonly lagMs: { readonly median: number; readonly p99: number; readonly max: number; readonly samples: number };
  readonly connected: boolean;
  /** Snapshots this replica wrote. */
  readonly snapshotsWritten: number;
}

interface StoredSnapshot {
  readonly v: 1;
  readonly position: string;
  readonly policy: Snapshot;
  readonly join: JoinState;
  readonly counts: ApplyCounts;
}

// Replaces the newest snapshot only with a newer one; the one it replaces is kept as the previous only when it still
// matches the SHA-1 digest stored beside it when it was written (KEYS[5]). A newest changed since (by hand, by a
// foreign writer) or deleted is dropped instead, and the previous snapshot stays with its position, so the stream is
// still trimmed behind a snapshot that loads. A newest without a digest (written by a version before digests) is not
// known to be intact: it is dropped the same way, once. ARGV: position, snapshot text, its SHA-1 (hex, computed by the
// writer: hashing in Lua would cost Redis a second pass over a multi-MB value). Returns 0 when the stored snapshot is
// as new (nothing written), 1 when written (the replaced one kept as the previous, or there was none), 2 when written
// and the replaced one did not match its digest or its position key is not the position the snapshot names (a foreign
// write: a key that is not a stream id failed every later comparison, and one moved past the stream's end made every
// later write return 0, so no snapshot was ever written again and the stream never trimmed; one moved to another
// entry was kept as the previous position, and the stream trimmed behind an entry that snapshot never learned), 3 when
// written and the replaced one had no digest. The position the newest names is read from its first bytes (GETRANGE:
// the writers' JSON starts {"v":1,"position":"<id>").
const WRITE_SNAPSHOT = `
local function parse(id)
  local ms, seq = string.match(id, "^(%d+)-(%d+)$")
  return tonumber(ms), tonumber(seq)
end
local cur = redis.call('GET', KEYS[2])
local cm, cs
if cur then
  local named = string.match(redis.call('GETRANGE', KEYS[1], 0, 63), '^{"v":1,"position":"(%d+%-%d+)"')
  if named == cur then cm, cs = parse(cur) end
end
local nm, ns = parse(ARGV[1])
if cm and (cm > nm or (cm == nm and cs >= ns)) then return 0 end
local out = 1
if cur then
  local newest = redis.call('GET', KEYS[1])
  local digest = redis.call('GET', KEYS[5])
  if not cm then
    out = 2
  elseif not digest then
    out = 3
  elseif not newest or redis.sha1hex(newest) ~= digest then
    out = 2
  else
    redis.call('SET', KEYS[3], newest)
    redis.call('SET', KEYS[4], cur)
    redis.call('SET', KEYS[6], digest)
  end
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[5], ARGV[3])
return out
`;

// Stores the first replica's fresh policy (with its digest, as WRITE_SNAPSHOT), unless a snapshot exists already.
const WRITE_INITIAL_SNAPSHOT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[3])
return 1
`;

const LIVE_MS = 60_000;

// The stream's first entry id, its length and the entries ever added (-1 before Redis 7), without the
// entries' contents (XINFO STREAM returns the first and last entries whole).
const STREAM_HEAD = `
local ok, info = pcall(redis.call, 'XINFO', 'STREAM', KEYS[1])
if not ok then return {} end
local out = {'', '0', '-1'}
for i = 1, #info, 2 do
  local k = info[i]
  if k == 'first-entry' and info[i + 1] then out[1] = info[i + 1][1]
  elseif k == 'length' then out[2] = tostring(info[i + 1])
  elseif k == 'entries-added' then out[3] = tostring(info[i + 1]) end
end
return out
`;

export class Replica<P extends ReplicaPolicy> {
  private readonly writer: Redis;
  private readonly reader: Redis;
  private readonly incarnation: string;
  private readonly prefix: string;
  private applier: StreamApplier;
  private position = "0-0";
  private readonly buffer: string[][] = [];
  private bufferHead = 0;
  private sending = false;
  private dropped = 0;
  private closed = false;
  /**
   * Settles when `close()` is called. The read loop's awaits of Redis replies race it: ioredis never settles a
   * command it queued for retry across a reconnect once the client is disconnected while reconnecting, so a
   * `close()` while Redis was unreachable waited for the read loop forever.
   */
  private readonly closedSignal: Promise<undefined>;
  private fireClosed: () => void = () => undefined;
  private readLoop: Promise<void> | undefined;
  private sinceSnapshot = 0;
  private snapshotting = false;
  private snapshotsWritten = 0;
  private readonly lag = new LagStats();
  /** Global id -> this replica's local decision id, for decisions this replica made and has not seen learned. */
  private readonly own = new Map<string, string>();
  private readonly keys: {
    snapshot: string;
    snapshotPos: string;
    snapshotSha1: string;
    prevSnapshot: string;
    prevSnapshotPos: string;
    prevSnapshotSha1: string;
    lock: string;
    positions: string;
  };

  private constructor(
    private readonly options: ReplicaOptions<P>,
    private current: P,
  ) {
    const base: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
      retryStrategy: (times) => Math.min(50 * times, 500),
    };
    const extra = typeof options.redis === "string" ? {} : options.redis;
    const url = typeof options.redis === "string" ? options.redis : undefined;
    this.writer = url ? new Redis(url, base) : new Redis({ ...extra, ...base });
    this.reader = url ? new Redis(url, base) : new Redis({ ...extra, ...base });
    for (const c of [this.writer, this.reader]) c.on("error", (e) => this.report(e));
    this.writer.on("ready", () => void this.pump());
    const bytes = Rng.fromSeed(`${options.replicaId}:${Date.now()}:${Math.random()}`).uniform();
    this.incarnation = Math.floor(bytes * 2 ** 32).toString(36);
    this.prefix = `${options.replicaId}~${this.incarnation}:`;
    const s = options.stream;
    this.keys = {
      snapshot: `${s}:snapshot`,
      snapshotPos: `${s}:snapshot:pos`,
      snapshotSha1: `${s}:snapshot:sha1`,
      prevSnapshot: `${s}:snapshot:prev`,
      prevSnapshotPos: `${s}:snapshot:prev:pos`,
      prevSnapshotSha1: `${s}:snapshot:prev:sha1`,
      lock: `${s}:snapshot:lock`,
      positions: `${s}:positions`,
    };
    this.applier = this.makeApplier(current);
    this.closedSignal = new Promise((resolve) => {
      this.fireClosed = () => resolve(undefined);
    });
  }

  /** `p`, or undefined once the replica is closed (whichever comes first). */
  private orClosed<T>(p: Promise<T>): Promise<T | undefined> {
    return Promise.race([p, this.closedSignal]);
  }

  /**
   * Connects, loads the newest snapshot (or builds a fresh policy when there is none) and starts
   * reading the stream from the snapshot's position. Needs Redis reachable to start.
   */
  static async start<P extends ReplicaPolicy>(options: ReplicaOptions<P>): Promise<Replica<P>> {
    checkOptions(options);
    const policy = options.create();
    let r: Replica<P>;
    try {
      r = new Replica(options, policy);
    } catch (e) {
      // ioredis parses a URL string in its constructor (e.g. "not a url" throws TypeError: Invalid URL).
      throw new RouteKitError(ErrorCode.InvalidArgument, `option redis is not usable: ${errorText(e)}`, { cause: e });
    }
    try {
      await r.writer.connect();
      await r.reader.connect();
      await r.loadNewestSnapshot();
    } catch (e) {
      // Without this the clients keep reconnecting forever and the process never exits.
      r.closed = true;
      r.writer.disconnect();
      r.reader.disconnect();
      throw unavailable(e, "start");
    }
    r.readLoop = r.read();
    return r;
  }

  /** The policy (read it, e.g. for diagnostics; select through the replica so decisions are shared). */
  get policy(): P {
    return this.current;
  }

  /** This replica's id and incarnation, the prefix of its decisions' global ids. */
  get decisionPrefix(): string {
    return this.prefix;
  }

  /**
   * Selects locally (never waits on Redis) and appends the decision record to the stream. The returned
   * decision's `id` is global: pass it to `feedback` on any replica.
   */
  select(input?: Parameters<P["select"]>[0]): ReturnType<P["select"]> {
    this.checkOpen();
    const d = this.current.select(input);
    const record = this.current.decisionRecord(d.id);
    const gid = this.prefix + d.id;
    this.own.set(gid, d.id);
    if (this.own.size > (this.options.joinCapacity ?? 100_000)) {
      const oldest = this.own.keys().next().value as string;
      this.own.delete(oldest);
    }
    this.publish({
      type: "d",
      id: gid,
      record: JSON.stringify({ ...record, id: gid }),
      writer: this.prefix,
      ts: Date.now(),
    });
    return { ...d, id: gid } as ReturnType<P["select"]>;
  }

  /**
   * Appends the feedback of a decision (by its global id, from any replica) to the stream. Every replica
   * learns it when it reads it; its shape is checked here (INVALID_ARGUMENT), its content by each
   * policy's `learn` (a refused event is skipped by every replica alike).
   */
  feedback(globalId: string, feedback: Json): void {
    this.checkOpen();
    if (typeof globalId !== "string") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `a decision id must be a string, got ${describe(globalId)}`);
    }
    if (!GLOBAL_ID.test(globalId)) {
      throw new RouteKitError(
        ErrorCode.UnknownDecision,
        `not a replicated decision id (<replicaId>~<incarnation>:<local id>): ${describe(globalId)}`,
      );
    }
    // The stream carries JSON: NaN would arrive as null and be refused by every replica, long after the call.
    // Each field is read once, into the copy that is written.
    const text = JSON.stringify(feedbackJson(feedback));
    this.publish({ type: "f", id: globalId, feedback: text, writer: this.prefix, ts: Date.now() });
  }

  /**
   * Adds an arm on every replica (applied when read from the stream, here too). `options`, when given, is passed
   * to the policy's own `addArm(id, options)` on every replica (e.g. StageRoute's `{ maxShare }`): it must be a
   * plain JSON object (checked here as feedback is: INVALID_ARGUMENT, NaN or Infinity NON_FINITE; each field read
   * once); its content is checked by each policy's addArm, and an addition it refuses is skipped on every replica
   * alike (counted in `counts.armChangesIgnored`).
   */
  addArm(id: string, options?: AddArmOptionsOf<P>): void {
    this.checkOpen();
    checkArmId(id);
    const text = options === undefined ? undefined : JSON.stringify(armOptionsJson(options));
    this.publish({
      type: "a",
      arm: id,
      ...(text === undefined ? {} : { options: text }),
      writer: this.prefix,
      ts: Date.now(),
    });
  }

  /** Removes an arm on every replica (applied when read from the stream, here too). */
  removeArm(id: string): void {
    this.checkOpen();
    checkArmId(id);
    this.publish({ type: "r", arm: id, writer: this.prefix, ts: Date.now() });
  }

  stats(): ReplicaStats {
    return {
      position: this.position,
      counts: { ...this.applier.counts },
      buffered: this.buffer.length - this.bufferHead,
      dropped: this.dropped,
      lagMs: this.lag.summary(),
      connected: this.writer.status === "ready",
      snapshotsWritten: this.snapshotsWritten,
    };
  }

  /**
   * The replicated state as JSON: the policy's learned state (its snapshot less the random stream and
   * pending decisions) and the join table. Equal, byte for byte, on replicas at the same position.
   */
  learnedState(): string {
    return JSON.stringify({ policy: learnedState(this.current.toJSON()), join: this.applier.joinState() });
  }

  /**
   * Resolves once every locally written entry is acknowledged by Redis (or rejects after `timeoutMs`). On a closed
   * replica it rejects with INVALID_STATE at once (its unwritten entries are lost), as does a flush under way when
   * the replica is closed.
   */
  async flush(timeoutMs = 30_000): Promise<void> {
    this.checkOpen();
    await until(
      () => this.buffer.length === this.bufferHead && !this.sending,
      timeoutMs,
      "flush",
      () => this.closed,
    );
  }

  /**
   * Resolves once this replica has applied every entry the stream held when called. On a closed replica it rejects
   * with INVALID_STATE at once, as does a catchUp under way when the replica is closed.
   */
  async catchUp(timeoutMs = 30_000): Promise<string> {
    this.checkOpen();
    const deadline = Date.now() + timeoutMs;
    let last: string | undefined;
    while (last === undefined) {
      try {
        const r = (await this.writer.xrevrange(this.options.stream, "+", "-", "COUNT", 1)) as [string, string[]][];
        last = r[0]?.[0] ?? "0-0";
      } catch (e) {
        this.checkOpen();
        if (Date.now() > deadline) throw unavailable(e, "catchUp");
        await sleep(50);
      }
    }
    const target = last;
    await until(
      () => compareStreamIds(this.position, target) >= 0,
      Math.max(1, deadline - Date.now()),
      "catchUp",
      () => this.closed,
    );
    return target;
  }

  /** Stops reading and closes the connections (buffered entries not yet written are lost: flush first). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fireClosed();
    this.writer.disconnect();
    this.reader.disconnect();
    await this.readLoop?.catch(() => undefined);
  }

  // ------------------------------------------------------------ writing

  private checkOpen(): void {
    if (this.closed) throw new RouteKitError(ErrorCode.InvalidState, "the replica is closed");
  }

  private publish(e: StreamEntry): void {
    this.checkOpen();
    const max = this.options.maxBuffered ?? 100_000;
    if (this.buffer.length - this.bufferHead >= max) {
      this.bufferHead++;
      this.dropped++;
    }
    this.buffer.push(encodeEntry(e));
    void this.pump();
  }

  /** Whether the last pipeline of writes had an entry refused (reported once per run of failures). */
  private writesFailing = false;

  /** Sends buffered entries in order, in pipelines; stops at the first failure and retries on reconnect. */
  private async pump(): Promise<void> {
    if (this.sending || this.closed || this.writer.status !== "ready") return;
    this.sending = true;
    try {
      while (this.bufferHead < this.buffer.length && this.writer.status === "ready") {
        const start = this.bufferHead;
        const end = Math.min(this.buffer.length, start + 256);
        const pipe = this.writer.pipeline();
        for (let i = start; i < end; i++) pipe.xadd(this.options.stream, "*", ...(this.buffer[i] as string[]));
        const res = (await pipe.exec()) ?? [];
        let ok = 0;
        while (ok < res.length && !(res[ok] as [Error | null, unknown])[0]) ok++;
        // Entries whose reply was lost are sent again: the fold ignores the duplicate. (A buffer-full
        // drop may have moved bufferHead meanwhile; never move it back.)
        this.bufferHead = Math.max(this.bufferHead, start + ok);
        if (ok < end - start) {
          // Reported once per run of failed writes (the pump retries every 20 ms): Redis out of memory or the stream
          // key of another type refuse every XADD, while reads, and so the read loop's reports, may go on.
          const refused = (res[ok] as [Error | null, unknown] | undefined)?.[0];
          if (!this.writesFailing && refused) this.report(refused);
          this.writesFailing = true;
          break;
        }
        this.writesFailing = false;
      }
    } catch (e) {
      this.report(e);
    } finally {
      this.sending = false;
      if (this.bufferHead > 65_536 && this.bufferHead * 2 > this.buffer.length) {
        this.buffer.splice(0, this.bufferHead);
        this.bufferHead = 0;
      }
    }
    if (this.bufferHead < this.buffer.length && this.writer.status === "ready" && !this.closed) {
      setTimeout(() => void this.pump(), 20);
    }
  }

  // ------------------------------------------------------------ reading

  private makeApplier(policy: P): StreamApplier {
    return new StreamApplier(policy, this.options.joinCapacity ?? 100_000, (gid) => {
      const local = this.own.get(gid);
      if (local === undefined) return;
      this.own.delete(gid);
      try {
        policy.discard(local);
      } catch (e) {
        // Already expired from the policy's ledger (maxPending newer decisions): nothing to drop.
        if (!isRouteKitError(e)) throw e;
      }
    });
  }

  private async read(): Promise<void> {
    let lastBeat = 0;
    while (!this.closed) {
      try {
        // The stream's head is read right after the blocking read, in the same pipeline (no extra round
        // trip): entries this replica never read may have been trimmed meanwhile (it looked dead to the
        // trimming replica: silent for LIVE_MS, a paused process, a clock behind), and applying what follows
        // would skip them silently. The newest snapshot covers every trimmed entry: load it, read on from there.
        const stream = this.options.stream;
        const pipe = this.reader.pipeline();
        pipe.xread("COUNT", 1024, "BLOCK", this.options.blockMs ?? 500, "STREAMS", stream, this.position);
        pipe.eval(STREAM_HEAD, 1, stream);
        const replies = (await this.orClosed(pipe.exec())) ?? [];
        if (this.closed) break;
        const [readError, read] = replies[0] ?? [new Error("no reply to XREAD")];
        if (readError) throw readError;
        const res = read as [string, [string, string[]][]][] | null;
        if (res !== null) {
          const [headError, head] = replies[1] ?? [new Error("no reply to the stream head")];
          if (headError) throw headError;
          const resynced = await this.orClosed(this.resyncIfTrimmed(head as string[]));
          if (this.closed) break;
          if (resynced) continue;
        }
        if (res !== null)
          for (const [, entries] of res) for (const [id, fields] of entries) this.applyEntry(id, fields);
        if (this.sinceSnapshot >= (this.options.snapshotEvery ?? 1000) && !this.snapshotting) {
          this.sinceSnapshot = 0;
          void this.writeSnapshot();
        }
        if (Date.now() - lastBeat > 250) {
          lastBeat = Date.now();
          await this.orClosed(
            this.writer.hset(this.keys.positions, this.prefix, `${this.position} ${lastBeat}`).catch(() => 0),
          );
        }
        this.readFailure = undefined;
      } catch (e) {
        if (this.closed) break;
        // The loop retries every 100 ms: a failure that persists (no stored snapshot restores at a resync, the
        // stream key of another type) is reported once until a read succeeds or the failure changes.
        const text = errorText(e);
        if (text !== this.readFailure) this.report(e);
        this.readFailure = text;
        await sleep(100);
      }
    }
  }

  /** The last failure of the read loop, reported once until a read succeeds or another failure comes. */
  private readFailure: string | undefined;

  private applyEntry(id: string, fields: string[]): void {
    const e = decodeEntry(fields);
    if (e !== undefined) {
      this.applier.apply(e);
      if (Number.isFinite(e.ts)) this.lag.add(Date.now() - e.ts);
    }
    this.position = id;
    this.sinceSnapshot++;
    const hook = this.options.onApplied;
    if (hook === undefined) return;
    try {
      hook(id, e);
    } catch (err) {
      // Reported like any error that does not stop the replica. Thrown into the read loop, it skipped the rest
      // of the batch and paused 100 ms: one entry per pause for a hook that always throws.
      this.report(err);
    }
  }

  // ------------------------------------------------------------ snapshots

  private async loadNewestSnapshot(): Promise<void> {
    let stored = await this.readStoredSnapshot();
    if (stored === undefined && this.noSnapshot) {
      // The first replica on this stream: its fresh policy becomes every replica's starting point, so all
      // start from the same learned state even when `create` draws differently per replica (another seed:
      // a StageRoute's deployment tie-breaks, RFF-UCB's random features).
      if (await this.writeInitialSnapshot()) return;
      stored = await this.readStoredSnapshot(); // another replica's fresh policy came first
      if (stored === undefined && this.noSnapshot) {
        // The snapshot key exists (the script found it) but holds no string (MGET reads another type as nil):
        // starting fresh silently would diverge from replicas that learned from entries since trimmed.
        this.report(
          new RouteKitError(
            ErrorCode.SnapshotCorrupt,
            `the stored replication snapshot key ${this.keys.snapshot} holds no string (another Redis type?): none is loaded`,
          ),
        );
      }
    }
    if (stored !== undefined) this.loadStored(stored);
  }

  /** Stores this replica's fresh policy at position "0-0" unless a snapshot exists; whether it did. */
  private async writeInitialSnapshot(): Promise<boolean> {
    const stored = this.storedNow();
    const text = snapshotBytes(stored);
    const wrote = await this.writer.eval(
      WRITE_INITIAL_SNAPSHOT,
      3,
      this.keys.snapshot,
      this.keys.snapshotPos,
      this.keys.snapshotSha1,
      stored.position,
      text,
      sha1Hex(text),
    );
    if (wrote !== 1) return false;
    this.snapshotsWritten++;
    return true;
  }

  /** The replicated state at the current position, as a snapshot stores it. */
  private storedNow(): StoredSnapshot {
    return {
      v: 1,
      position: this.position,
      policy: withReplicaParts(this.current.toJSON(), Rng.fromSeed("snapshot")),
      join: this.applier.joinState(),
      counts: { ...this.applier.counts },
    };
  }

  /** Whether the last {@link Replica.readStoredSnapshot} found no snapshot key at all. */
  private noSnapshot = false;

  /**
   * The newest snapshot, restored, or the previous one when the newest cannot be used (both cover every
   * trimmed entry: the stream is trimmed only behind the previous one); undefined when Redis holds
   * none or none parses; the restore error when one parses and none restores. A snapshot whose digest no longer matches (changed in Redis since it was
   * written) is used only when no intact one restores: digests are missing or stale after an earlier
   * version wrote (an upgrade), and a changed snapshot that restores beats starting fresh.
   */
  private async readStoredSnapshot(): Promise<LoadedSnapshot<P> | undefined> {
    // One MGET: a snapshot write between separate GETs would pair a snapshot with another's digest.
    const [newest = null, prev = null, newestDigest = null, prevDigest = null] = await this.writer.mget(
      this.keys.snapshot,
      this.keys.prevSnapshot,
      this.keys.snapshotSha1,
      this.keys.prevSnapshotSha1,
    );
    // A missing newest with a previous one left is a newest that cannot be used, not a new stream: starting fresh
    // there (and storing the fresh policy as the snapshot at 0-0) lost every entry the previous one covers.
    this.noSnapshot = newest === null && prev === null;
    if (newest === null && prev === null) return undefined;
    const first =
      newest === null
        ? { loaded: undefined, changed: false, problem: "is missing" }
        : this.restoreStored(newest, newestDigest);
    if (first.loaded !== undefined && !first.changed) return first.loaded;
    const second = prev === null ? undefined : this.restoreStored(prev, prevDigest);
    const chosen =
      [first, second].find((c) => c?.loaded !== undefined && !c.changed) ??
      [first, second].find((c) => c?.loaded !== undefined);
    // One parsed but the policy refused every one as corrupt: starting fresh would silently diverge from the other
    // replicas, so the restore error stops the start (a resync reports it and retries), as before the fallback.
    const refusal = first.refusal ?? second?.refusal;
    if (chosen === undefined && refusal !== undefined) throw refusal;
    const why =
      first.loaded === undefined ? first.problem : "was changed in Redis since it was written (its digest differs)";
    const then =
      chosen === first
        ? "; no intact previous one restores either, so it is loaded as it is"
        : chosen === undefined
          ? `, and ${second === undefined ? "no previous one is kept" : `the previous one ${second.problem ?? "cannot be used"}`}; none is loaded`
          : chosen.changed
            ? "; loading the previous one, which was changed too but restores"
            : "; loading the previous one";
    this.report(new RouteKitError(ErrorCode.SnapshotCorrupt, `the stored replication snapshot ${why}${then}`));
    return chosen?.loaded;
  }

  /** A stored snapshot's text restored (undefined with the problem when it cannot be), and whether its digest differs. */
  private restoreStored(
    text: string,
    digest: string | null,
  ): { loaded: LoadedSnapshot<P> | undefined; changed: boolean; problem?: string; refusal?: unknown } {
    const changed = digest !== null && sha1Hex(Buffer.from(text, "utf8")) !== digest;
    const stored = parseStored(text);
    if (stored === undefined) return { loaded: undefined, changed, problem: "is malformed" };
    try {
      const policy = this.options.restore(withReplicaParts(stored.policy, Rng.fromSeed(this.prefix)));
      return { loaded: { stored, policy }, changed };
    } catch (e) {
      // Only the policy's own refusal of the snapshot's content falls back; any other error (a `restore` missing an
      // option JSON cannot carry, a bug) stops the start as before: a fallback to a fresh policy would hide it. What
      // is not a RouteKitError is the `restore` option's own failure: start reported it as Redis being unreachable.
      if (!isRouteKitError(e)) {
        throw new RouteKitError(ErrorCode.InvalidArgument, `option restore threw: ${errorText(e)}`, { cause: e });
      }
      if (!isRouteKitError(e, ErrorCode.SnapshotCorrupt)) throw e;
      return { loaded: undefined, changed, problem: `does not restore (${errorText(e)})`, refusal: e };
    }
  }

  private loadStored({ stored, policy }: LoadedSnapshot<P>): void {
    this.current = policy;
    this.applier = this.makeApplier(policy);
    this.applier.loadJoinState(stored.join, stored.counts);
    this.position = stored.position;
    this.sinceSnapshot = 0;
    // The restored policy holds no pending decisions of this replica's (their events are learned from the stream).
    this.own.clear();
  }

  /** First stream entry id at the last reported loss (see resyncIfTrimmed): each loss is reported once. */
  private gapReported = "0-0";

  /**
   * Whether entries after this replica's position may have been trimmed before it read them: the stream's
   * first entry lies past the position (the entry at the position is gone; from "0-0", entries were ever
   * removed). If the newest snapshot is at or past that first entry it covers them: loads it and returns
   * true. Otherwise reports the loss once (onError) and returns false, and the replica reads on.
   */
  private async resyncIfTrimmed(head: readonly string[]): Promise<boolean> {
    const [first, length, added] = head;
    if (first === undefined || first === "" || compareStreamIds(first, this.position) <= 0) return false;
    // From the start, a stream that never lost an entry holds every entry ever added (-1: Redis < 7 cannot tell).
    if (this.position === "0-0" && (added === "-1" || added === length)) return false;
    const stored = await this.readStoredSnapshot();
    if (stored !== undefined && compareStreamIds(stored.stored.position, first) >= 0) {
      this.loadStored(stored);
      return true;
    }
    if (compareStreamIds(first, this.gapReported) > 0) {
      this.gapReported = first;
      this.report(
        new RouteKitError(
          ErrorCode.InvalidState,
          `stream entries after position ${this.position} were trimmed before this replica read them (the stream ` +
            `now starts at ${first}), and no stored snapshot covers them: its learned state may now differ from the other replicas'`,
          { position: this.position, first },
        ),
      );
    }
    return false;
  }

  /** Writes a snapshot at the current position when no other replica is writing one, then trims. */
  private async writeSnapshot(): Promise<void> {
    this.snapshotting = true;
    try {
      const got = await this.writer.set(this.keys.lock, this.prefix, "PX", 60_000, "NX");
      if (got !== "OK") return;
      try {
        // Everything below the await-free block is one consistent state at `position`.
        const stored = this.storedNow();
        const text = snapshotBytes(stored);
        const k = this.keys;
        const wrote = await this.writer.eval(
          WRITE_SNAPSHOT,
          6,
          k.snapshot,
          k.snapshotPos,
          k.prevSnapshot,
          k.prevSnapshotPos,
          k.snapshotSha1,
          k.prevSnapshotSha1,
          stored.position,
          text,
          sha1Hex(text),
        );
        if (wrote !== 0) this.snapshotsWritten++;
        if (wrote === 2) {
          this.report(
            new RouteKitError(
              ErrorCode.SnapshotCorrupt,
              "the stored replication snapshot no longer matched its digest or position (changed outside the replicas): it was " +
                "replaced without being kept as the previous one, which stays",
            ),
          );
        }
        await this.trim();
      } finally {
        if ((await this.writer.get(this.keys.lock)) === this.prefix) await this.writer.del(this.keys.lock);
      }
    } catch (e) {
      this.report(e);
    } finally {
      this.snapshotting = false;
    }
  }

  /** Trims entries older than the previous snapshot and than every live replica's position. */
  private async trim(): Promise<void> {
    const prev = await this.writer.get(this.keys.prevSnapshotPos);
    // Not a stream id (written outside the replicas): no trim until a snapshot write replaces it.
    if (prev === null || !/^\d+-\d+$/.test(prev)) return;
    let min = prev;
    const positions = await this.writer.hgetall(this.keys.positions);
    const now = Date.now();
    for (const [who, v] of Object.entries(positions)) {
      if (who === this.prefix) continue; // this replica's own position is this.position, newer than its beat
      const [pos, at] = v.split(" ");
      if (pos === undefined || !(now - Number(at) < LIVE_MS)) {
        await this.writer.hdel(this.keys.positions, who);
        continue;
      }
      if (compareStreamIds(pos, min) < 0) min = pos;
    }
    // MINID keeps entries with id >= min; everything before it is covered by the previous snapshot and
    // already applied by every live replica.
    await this.writer.xtrim(this.options.stream, "MINID", min);
  }

  private report(e: unknown): void {
    if (this.closed) return;
    try {
      this.options.onError?.(e);
    } catch {
      // A hook that throws (e.g. rethrows) must not stop the read loop or surface as an uncaught
      // exception from a Redis client's event: these errors do not stop the replica.
    }
  }
}

/** A snapshot as the bytes written to Redis (the digest is of exactly these). */
function snapshotBytes(stored: StoredSnapshot): Buffer {
  return Buffer.from(JSON.stringify(stored), "utf8");
}

/** SHA-1 in lowercase hex, as Redis's `redis.sha1hex` writes it. */
function sha1Hex(bytes: Buffer): string {
  return createHash("sha1").update(bytes).digest("hex");
}

/** A stored snapshot and the policy restored from it. */
interface LoadedSnapshot<P> {
  readonly stored: StoredSnapshot;
  readonly policy: P;
}

function parseStored(text: string): StoredSnapshot | undefined {
  try {
    const o = JSON.parse(text) as Partial<StoredSnapshot>;
    if (o.v !== 1 || typeof o.position !== "string" || !/^\d+-\d+$/.test(o.position)) return undefined;
    if (o.policy === null || typeof o.policy !== "object") return undefined;
    const join = readJoinState(o.join as unknown as Json);
    if (join === undefined || o.counts === null || typeof o.counts !== "object") return undefined;
    return { v: 1, position: o.position, policy: o.policy, join, counts: o.counts };
  } catch {
    return undefined;
  }
}

function checkOptions<P extends ReplicaPolicy>(o: ReplicaOptions<P>): void {
  if (o === null || typeof o !== "object")
    throw new RouteKitError(ErrorCode.InvalidArgument, "options must be an object");
  rejectUnknownOptions(o, REPLICA_OPTION_KEYS, "Replica.start");
  for (const k of ["stream", "replicaId"] as const) {
    if (typeof o[k] !== "string" || o[k].length === 0 || /[~\s]/.test(o[k])) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option ${k} must be a non-empty string without spaces or "~"`,
      );
    }
  }
  if (typeof o.create !== "function" || typeof o.restore !== "function") {
    throw new RouteKitError(ErrorCode.InvalidArgument, "options create and restore must be functions");
  }
  for (const k of ["onError", "onApplied"] as const) {
    // `onError: 5` swallowed every error it was meant to report (its TypeError is caught like a hook's throw).
    if (o[k] !== undefined && typeof o[k] !== "function") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `option ${k} must be a function, got ${describe(o[k])}`);
    }
  }
  if (typeof o.redis !== "string" && (o.redis === null || typeof o.redis !== "object")) {
    throw new RouteKitError(ErrorCode.InvalidArgument, "option redis must be a URL string or ioredis options");
  }
  checkRedisPort(o.redis);
  // Wrong type INVALID_ARGUMENT, NaN/Infinity NON_FINITE, below 1 or fractional OUT_OF_RANGE.
  for (const k of ["snapshotEvery", "maxBuffered", "joinCapacity", "blockMs"] as const) {
    numberOption(o as unknown as Record<string, unknown>, k, 1, { integer: true, min: 1 });
  }
}

/**
 * The port the `redis` option names, checked before anything connects: an integer in [1, 65535]. ioredis 5.9 took
 * `redis://127.0.0.1:70000` (and every version takes `{ port: 70000 }`) and failed to connect, so the bad option
 * came out as UNAVAILABLE. A URL string with a bad port (or that does not parse) is INVALID_ARGUMENT; an options
 * object's `port` follows the error-code rule (wrong type INVALID_ARGUMENT, NaN NON_FINITE, out of range
 * OUT_OF_RANGE). The URL is not echoed: it may hold a password.
 */
function checkRedisPort(redis: string | RedisOptions): void {
  const bad = (why: string): never => {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option redis must be a Redis URL (redis://host:port, port an integer in [1, 65535]): ${why}`,
    );
  };
  if (typeof redis !== "string") {
    const port = (redis as { port?: unknown }).port;
    if (port !== undefined) checkNumber(port, "option redis.port", { integer: true, min: 1, max: 65535 });
    return;
  }
  // As ioredis reads the string: a bare integer is a port, a leading "/" a Unix socket path, else a URL.
  if (/^\d+$/.test(redis)) {
    if (!(Number(redis) >= 1 && Number(redis) <= 65535)) bad("the port is out of range");
    return;
  }
  if (redis.startsWith("/") && !redis.startsWith("//")) return;
  let url: URL | undefined;
  try {
    url = new URL(
      /^rediss?:\/\//i.test(redis) ? redis : redis.startsWith("//") ? `redis:${redis}` : `redis://${redis}`,
    );
  } catch {
    url = undefined;
  }
  if (url === undefined) bad("this one does not parse (a port above 65535 or not a number?)");
  else if (url.port === "0") bad("the port is 0");
}

function checkArmId(id: unknown): void {
  if (typeof id !== "string" || id.length === 0) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `an arm id must be a non-empty string, got ${describe(id)}`);
  }
}

/**
 * The options a policy's own `addArm(id, options)` takes (e.g. StageRoute's `{ maxShare }`); `undefined` for a
 * policy whose addArm takes none.
 */
export type AddArmOptionsOf<P> = P extends { addArm(id: string, ...rest: infer R): void }
  ? R extends []
    ? undefined
    : R[0]
  : undefined;

/**
 * A plain copy of addArm options, as {@link feedbackJson} copies feedback: an object of JSON data, each field read
 * once; NaN or Infinity NON_FINITE, anything else JSON cannot carry INVALID_ARGUMENT.
 */
function armOptionsJson(options: unknown): Json {
  try {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `addArm options must be an object (the policy's own addArm options), got ${describe(options)}`,
      );
    }
    return jsonCopy(options, "addArm options", "", new Set()) as Json;
  } catch (e) {
    if (isRouteKitError(e)) throw e;
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading the addArm options threw: ${errorText(e)}`);
  }
}

/** A decision id `select` returns: `<replicaId>~<incarnation>:<local id>`. */
const GLOBAL_ID = /^[^~\s]+~[0-9a-z]+:.+$/s;

/**
 * A plain copy of a feedback object that survives JSON exactly, each field read once (a getter cannot pass
 * the check with one value and be written with another): NaN or Infinity anywhere is NON_FINITE; a BigInt,
 * function, symbol, cycle, or a getter that throws is INVALID_ARGUMENT.
 */
function feedbackJson(feedback: unknown): Json {
  try {
    if (feedback === null || typeof feedback !== "object" || Array.isArray(feedback)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "feedback must be an object, e.g. { reward: 0.8 }");
    }
    return jsonCopy(feedback, "feedback", "", new Set()) as Json;
  } catch (e) {
    if (isRouteKitError(e)) throw e;
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading the feedback threw: ${errorText(e)}`);
  }
}

function jsonCopy(v: unknown, path: string, key: string, open: Set<object>): Json {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new RouteKitError(ErrorCode.NonFinite, `${path} must be finite, got ${v}`);
    return v;
  }
  if (typeof v !== "object") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${path} must be plain JSON data, got ${describe(v)}`);
  }
  if (open.has(v)) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${path} contains itself (a cycle): JSON cannot carry it`);
  }
  // What JSON.stringify would write for it (a Date's ISO string).
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return jsonCopy(toJSON.call(v, key), path, key, open);
  open.add(v);
  try {
    if (Array.isArray(v)) {
      const out: Json[] = [];
      for (let i = 0; i < v.length; i++) out.push(jsonCopy(v[i], `${path}[${i}]`, String(i), open));
      return out;
    }
    const out: Record<string, Json> = Object.create(null);
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonCopy(x, `${path}.${k}`, k, open);
    return out;
  } finally {
    open.delete(v);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(done: () => boolean, timeoutMs: number, what: string, closed: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (closed()) throw new RouteKitError(ErrorCode.InvalidState, `${what}: the replica was closed`);
    if (Date.now() > deadline)
      throw new RouteKitError(ErrorCode.InvalidState, `${what} timed out after ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** A Redis client's error as UNAVAILABLE (RouteKit throws only RouteKitError); a RouteKitError passes through. */
function unavailable(e: unknown, what: string): RouteKitError {
  if (isRouteKitError(e)) return e;
  const text = e instanceof Error ? e.message : String(e);
  return new RouteKitError(ErrorCode.Unavailable, `${what}: Redis cannot be reached (${text})`, { cause: e });
}
