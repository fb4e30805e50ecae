/**
 * Outside audit of the README against a real redis-server: a stream trimmed under a replica that stalled,
 * a corrupt newest snapshot, and call checks on odd input. Seeded; no timing assertions.
 */
import { createHash } from "node:crypto";
import { type LinUCBDisjoint, LinUCBShared } from "@routekit/classic";
import { ErrorCode, isRouteKitError, Rng, type Snapshot } from "@routekit/core";
import { StageRoute } from "@routekit/stageroute";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { compareStreamIds } from "../src/entries.js";
import { Replica } from "../src/index.js";
import { startRedisServer } from "../src/server.js";
import { codeOf, linucbOptions, linucbOptionsOn, redisForFile, snapshotsSettled } from "./fixture.js";

const redis = redisForFile();

const opts = linucbOptionsOn(redis);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Serves `rounds` requests on `r` with feedback, seeded. */
async function play(r: Replica<LinUCBDisjoint>, rounds: number, rng: Rng): Promise<void> {
  for (let t = 0; t < rounds; t++) {
    const ctx = new Float64Array([rng.uniformIn(-1, 1), 0.5, 1]);
    const d = r.select(ctx);
    r.feedback(d.id, { reward: d.arm === "large" ? 0.5 + 0.4 * (ctx[0] as number) : 0.45 });
    if (t % 20 === 19) await sleep(5);
  }
  await r.flush();
}

/**
 * Two rounds of 60 entries on `a` (snapshotEvery 20), each snapshotted (a snapshot within its last 20 entries) before
 * the next: the second round's snapshot keeps the first's as the previous and trims the stream behind it. Settled,
 * `a` writes no further snapshot until more entries come (a sleep left that to the host's load).
 */
async function twoSnapshotRounds(a: Replica<LinUCBDisjoint>, rng: Rng): Promise<void> {
  for (let k = 0; k < 2; k++) {
    await play(a, 30, rng);
    await a.catchUp();
    await snapshotsSettled(a, 20);
  }
}

/** A replica "a" on `stream` (snapshotEvery 20) after {@link twoSnapshotRounds} from seed `seed`. */
async function snapshottedTwice(
  stream: string,
  seed: number,
  onError?: (e: unknown) => void,
): Promise<{ a: Replica<LinUCBDisjoint>; rng: Rng }> {
  const a = await Replica.start(opts(stream, "a", { snapshotEvery: 20, ...(onError ? { onError } : {}) }));
  const rng = Rng.fromSeed(seed);
  await twoSnapshotRounds(a, rng);
  return { a, rng };
}

/**
 * Starts replica "c" on `stream`: it must load the snapshot at `position`, report exactly one SNAPSHOT_CORRUPT saying
 * `says`, and reach `a`'s learned state. Closes "c".
 */
async function expectStartsAt(a: Replica<LinUCBDisjoint>, stream: string, position: string, says: string) {
  const loadErrors: unknown[] = [];
  const c = await Replica.start(opts(stream, "c", { onError: (e) => loadErrors.push(e) }));
  expect(c.stats().position).toBe(position);
  expect(loadErrors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
  expect(String(loadErrors[0])).toContain(says);
  await c.catchUp();
  await a.catchUp();
  expect(c.learnedState()).toBe(a.learnedState());
  await c.close();
}

/**
 * Holds a replica's stream reads (a GC pause, a partition) until `release` is called. The read loop sends its
 * XREAD in a pipeline with the stream-head check, so the pipelines' `exec` waits at the gate (patching
 * `reader.xread`, as this did before the loop used a pipeline, held nothing: the replica read on). `atGate`
 * resolves once the loop's next read waits there: the read in flight has been applied and the loop's position
 * heartbeat written, and nothing of this replica's changes until `release`.
 */
function stallReads(r: Replica<LinUCBDisjoint>): { atGate: Promise<void>; release: () => void } {
  const reader = (r as unknown as { reader: Redis }).reader;
  const pipeline = reader.pipeline;
  let open = () => {};
  const gate = new Promise<void>((res) => {
    open = res;
  });
  let reached = () => {};
  const atGate = new Promise<void>((res) => {
    reached = res;
  });
  reader.pipeline = ((...args: Parameters<Redis["pipeline"]>) => {
    const p = pipeline.apply(reader, args);
    const exec = p.exec.bind(p);
    p.exec = ((...a: Parameters<typeof exec>) => {
      reached();
      return gate.then(() => exec(...a));
    }) as typeof p.exec;
    return p;
  }) as Redis["pipeline"];
  return {
    atGate,
    release: () => {
      reader.pipeline = pipeline;
      open();
    },
  };
}

/** The id of the stream's first entry. */
async function firstEntry(raw: Redis, stream: string): Promise<string> {
  return ((await raw.xrange(stream, "-", "+", "COUNT", 1)) as [string, string[]][])[0]?.[0] as string;
}

describe("a stream trimmed under a replica", () => {
  it("a replica silent for longer than the liveness window resyncs from a snapshot instead of skipping trimmed entries", async () => {
    const a = await Replica.start(opts("audit:trim", "a", { snapshotEvery: 20 }));
    const errors: unknown[] = [];
    const b = await Replica.start(opts("audit:trim", "b", { onError: (e) => errors.push(e) }));
    const rng = Rng.fromSeed(11);
    await play(a, 30, rng);
    await a.catchUp();
    await b.catchUp();
    expect(b.learnedState()).toBe(a.learnedState());
    const stall = stallReads(b);
    await stall.atGate; // b's read in flight has returned; the next one waits at the gate
    const stalledAt = b.stats().position;
    // b has been silent for 61 s as far as the other replicas can tell.
    const raw = new Redis(redis.server.url);
    await raw.hset("audit:trim:positions", b.decisionPrefix, `${stalledAt} ${Date.now() - 61_000}`);
    // Two rounds of 60 entries, each snapshotted (a snapshot within its last 20 entries) before the next: the
    // second round's snapshot trims the stream behind the first round's, past b's position.
    await twoSnapshotRounds(a, rng);
    const first = await firstEntry(raw, "audit:trim");
    raw.disconnect();
    // The precondition of the scenario: b read nothing while stalled, and entries it never read were trimmed.
    expect(b.stats().position).toBe(stalledAt);
    expect(compareStreamIds(first, stalledAt)).toBeGreaterThan(0);
    stall.release();
    await b.catchUp();
    await a.catchUp();
    expect(b.stats().position).toBe(a.stats().position);
    expect(b.learnedState()).toBe(a.learnedState());
    // The newest snapshot covered the trimmed entries: no loss was reported.
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.InvalidState))).toEqual([]);
    await a.close();
    await b.close();
  }, 60_000);
});

describe("a malformed newest snapshot", () => {
  it("a starting replica loads the previous snapshot (the stream is trimmed behind it) and reaches the others' state", async () => {
    // Two rounds of 60 entries, each snapshotted before the next (see the trim test). Settled, a writes no
    // snapshot that could replace the corrupt one below (a sleep left that to the host's load).
    const { a } = await snapshottedTwice("audit:corrupt", 12);
    const raw = new Redis(redis.server.url);
    expect(await raw.exists("audit:corrupt:snapshot:prev")).toBe(1);
    expect(await raw.xlen("audit:corrupt")).toBeLessThan(120); // trimmed: the start of the stream is gone
    await raw.set("audit:corrupt:snapshot", "{ not json");
    raw.disconnect();
    const errors: unknown[] = [];
    const c = await Replica.start(opts("audit:corrupt", "c", { onError: (e) => errors.push(e) }));
    expect(c.stats().position).not.toBe("0-0");
    await c.catchUp();
    await a.catchUp();
    expect(c.learnedState()).toBe(a.learnedState());
    expect(errors.some((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toBe(true);
    await a.close();
    await c.close();
  }, 60_000);
});

/** The SHA-1 (hex) of a stored value's bytes, as the replicas store it beside a snapshot. */
const sha1 = (text: string | null) =>
  createHash("sha1")
    .update(Buffer.from(text ?? "", "utf8"))
    .digest("hex");

/**
 * Waits until `r` has applied everything and written any snapshot due, then appends exactly `snapshotEvery` entries
 * (select and feedback pairs) and waits again: more entries than are left before the next snapshot is due, fewer than
 * two snapshots' worth, so exactly one snapshot is written (and the stream trimmed once).
 */
async function oneSnapshotWrite(r: Replica<LinUCBDisjoint>, snapshotEvery: number, rng: Rng): Promise<void> {
  await r.catchUp();
  await snapshotsSettled(r, snapshotEvery);
  const before = r.stats().snapshotsWritten;
  await play(r, snapshotEvery / 2, rng);
  await r.catchUp();
  await snapshotsSettled(r, snapshotEvery);
  expect(r.stats().snapshotsWritten).toBe(before + 1);
}

describe("a newest snapshot changed in Redis is never kept as the previous one", () => {
  it("two corruptions of the newest snapshot with a snapshot write between: a new replica still starts from a valid one", async () => {
    const errors: unknown[] = [];
    const { a, rng } = await snapshottedTwice("audit:twice", 13, (e) => errors.push(e));
    const raw = new Redis(redis.server.url);
    const prev = (await raw.get("audit:twice:snapshot:prev")) as string;
    const prevPos = (await raw.get("audit:twice:snapshot:prev:pos")) as string;
    expect(compareStreamIds(prevPos, "0-0")).toBeGreaterThan(0);
    expect(await raw.xlen("audit:twice")).toBeLessThan(120); // trimmed behind the previous snapshot
    // First fault: the newest is overwritten in Redis; then one snapshot write; second fault: the snapshot that write
    // stored is overwritten too.
    await raw.set("audit:twice:snapshot", "{ not json");
    await oneSnapshotWrite(a, 20, rng);
    await raw.set("audit:twice:snapshot", "{ not json either");
    const loadErrors: unknown[] = [];
    const c = await Replica.start(opts("audit:twice", "c", { onError: (e) => loadErrors.push(e) }));
    // c loaded the previous snapshot from before both faults (not a fresh policy at 0-0) and reaches the primary's
    // state; no loss of trimmed entries was reported.
    expect(c.stats().position).toBe(prevPos);
    await c.catchUp();
    await a.catchUp();
    expect(c.stats().position).toBe(a.stats().position);
    expect(c.learnedState()).toBe(a.learnedState());
    expect(loadErrors.filter((e) => isRouteKitError(e, ErrorCode.InvalidState))).toEqual([]);
    expect(loadErrors.some((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toBe(true);
    // The previous snapshot and its position are still those valid ones, and the stream still holds every entry after
    // that position.
    expect(await raw.get("audit:twice:snapshot:prev")).toBe(prev);
    expect(await raw.get("audit:twice:snapshot:prev:pos")).toBe(prevPos);
    expect(compareStreamIds(await firstEntry(raw, "audit:twice"), prevPos)).toBeLessThanOrEqual(0);
    // The write after the first fault reported the changed snapshot (once) instead of keeping it as the previous.
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
    expect(errors).toHaveLength(1);
    // Each snapshot has its digest beside it: the newest's is the one it was written with, and the previous one kept
    // its own.
    expect(await raw.get("audit:twice:snapshot:sha1")).not.toBe(sha1(await raw.get("audit:twice:snapshot")));
    expect(await raw.get("audit:twice:snapshot:prev:sha1")).toBe(sha1(prev));
    raw.disconnect();
    await a.close();
    await c.close();
  }, 60_000);

  it("a newest changed to text that still restores is caught by its digest at load: the previous one is loaded, and the next write does not keep it", async () => {
    const errors: unknown[] = [];
    const { a, rng } = await snapshottedTwice("audit:parses", 15, (e) => errors.push(e));
    const raw = new Redis(redis.server.url);
    // Another program stores the older snapshot as the newest with the newest's position: it parses and restores,
    // and loaded as it is it would skip every entry between the two positions.
    const prev = (await raw.get("audit:parses:snapshot:prev")) as string;
    const prevPos = (await raw.get("audit:parses:snapshot:prev:pos")) as string;
    const newestPos = (await raw.get("audit:parses:snapshot:pos")) as string;
    expect(compareStreamIds(newestPos, prevPos)).toBeGreaterThan(0);
    const moved = JSON.stringify({ ...JSON.parse(prev), position: newestPos });
    await raw.set("audit:parses:snapshot", moved);
    await expectStartsAt(a, "audit:parses", prevPos, "digest");
    await oneSnapshotWrite(a, 20, rng);
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
    expect(await raw.get("audit:parses:snapshot:prev:pos")).toBe(prevPos); // the changed one was not kept
    raw.disconnect();
    await a.close();
  }, 60_000);

  it("a newest that parses but does not restore (a policy field edited, no digest to tell: its checksum refuses it) falls back to the previous one", async () => {
    const { a } = await snapshottedTwice("audit:restore", 16);
    const raw = new Redis(redis.server.url);
    const prevPos = (await raw.get("audit:restore:snapshot:prev:pos")) as string;
    // One learned number of the policy changed by hand, as an earlier version (no digest) would have stored it: the
    // text parses, and the policy's own checksum refuses it.
    const stored = JSON.parse((await raw.get("audit:restore:snapshot")) as string);
    const text = JSON.stringify(stored.policy);
    const edited = text.replace(/"uid":0,"version":(\d+)/, (_m, n: string) => `"uid":0,"version":${Number(n) + 1}`);
    expect(edited).not.toBe(text);
    await raw.set("audit:restore:snapshot", JSON.stringify({ ...stored, policy: JSON.parse(edited) }));
    await raw.del("audit:restore:snapshot:sha1");
    await expectStartsAt(a, "audit:restore", prevPos, "does not restore");
    raw.disconnect();
    await a.close();
  }, 60_000);

  it("no fresh start when no stored snapshot restores: both refused as corrupt, or a restore of the wrong class", async () => {
    const { a } = await snapshottedTwice("audit:none", 19);
    await a.close();
    const startError = (o: unknown) =>
      Replica.start(o as never).then(
        (r) => r.close().then(() => "started"),
        (e: unknown) => e,
      );
    // The wrong class refuses the snapshot as another kind's: start rejects, as it always did.
    const wrong = { ...opts("audit:none", "c"), restore: (s: Snapshot) => LinUCBShared.fromJSON(s) };
    expect(isRouteKitError(await startError(wrong), ErrorCode.SnapshotKind)).toBe(true);
    // Both snapshots edited so that the policy refuses each as corrupt: start rejects instead of starting fresh.
    const raw = new Redis(redis.server.url);
    for (const key of ["audit:none:snapshot", "audit:none:snapshot:prev"]) {
      const stored = JSON.parse((await raw.get(key)) as string);
      const text = JSON.stringify(stored.policy);
      const edited = text.replace(/"uid":0,"version":(\d+)/, (_m, n: string) => `"uid":0,"version":${Number(n) + 1}`);
      expect(edited).not.toBe(text);
      await raw.set(key, JSON.stringify({ ...stored, policy: JSON.parse(edited) }));
    }
    await raw.del("audit:none:snapshot:sha1", "audit:none:snapshot:prev:sha1");
    raw.disconnect();
    expect(isRouteKitError(await startError(opts("audit:none", "d")), ErrorCode.SnapshotCorrupt)).toBe(true);
  }, 60_000);

  it("stale digests on intact snapshots (an earlier version wrote last) do not lose them: the newest is loaded, and reported", async () => {
    const { a } = await snapshottedTwice("audit:stale", 17);
    const raw = new Redis(redis.server.url);
    const newestPos = (await raw.get("audit:stale:snapshot:pos")) as string;
    await raw.set("audit:stale:snapshot:sha1", sha1("another snapshot"));
    await raw.set("audit:stale:snapshot:prev:sha1", sha1("yet another"));
    await expectStartsAt(a, "audit:stale", newestPos, "loaded as it is");
    raw.disconnect();
    await a.close();
  }, 60_000);

  it("a position key that is not a stream id (a foreign write) does not stop snapshot writes: reported, not kept as the previous", async () => {
    const errors: unknown[] = [];
    const { a, rng } = await snapshottedTwice("audit:pos", 18, (e) => errors.push(e));
    const raw = new Redis(redis.server.url);
    const prev = await raw.get("audit:pos:snapshot:prev");
    const prevPos = await raw.get("audit:pos:snapshot:prev:pos");
    await raw.set("audit:pos:snapshot:pos", "not a stream id");
    // The script compared that key as a stream id and failed: every later write threw, and the stream was never
    // trimmed again.
    await oneSnapshotWrite(a, 20, rng);
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(await raw.get("audit:pos:snapshot:prev")).toBe(prev);
    expect(await raw.get("audit:pos:snapshot:prev:pos")).toBe(prevPos);
    expect(await raw.get("audit:pos:snapshot:pos")).toBe(a.stats().position);
    // The next write keeps the snapshot just written as the previous one and trims behind it, as usual.
    const newest = await raw.get("audit:pos:snapshot");
    const newestPos = await raw.get("audit:pos:snapshot:pos");
    await oneSnapshotWrite(a, 20, rng);
    expect(errors).toHaveLength(1);
    expect(await raw.get("audit:pos:snapshot:prev")).toBe(newest);
    expect(await firstEntry(raw, "audit:pos")).toBe(newestPos);
    raw.disconnect();
    await a.close();
  }, 60_000);

  it("a position key moved to another stream id (past the stream's end, or just past the snapshot's) does not stop snapshot writes or trim past the previous snapshot", async () => {
    const errors: unknown[] = [];
    const { a, rng } = await snapshottedTwice("audit:moved", 27, (e) => errors.push(e));
    const raw = new Redis(redis.server.url);
    const named = async (key: string) => JSON.parse((await raw.get(key)) as string).position as string;
    const moves = [
      // Past the stream's end: every later write compared its position below the key's and wrote nothing, unreported,
      // and the stream was never trimmed again.
      () => "99999999999999-0",
      // Just past the position the snapshot names: the next write kept the snapshot with the key as its previous
      // position, and the stream was trimmed behind an entry that snapshot names and never learned.
      (pos: string) => pos.replace(/-(\d+)$/, (_m, n: string) => `-${Number(n) + 1}`),
    ];
    for (const move of moves) {
      const prev = await raw.get("audit:moved:snapshot:prev");
      const prevPos = await raw.get("audit:moved:snapshot:prev:pos");
      const reported = errors.length;
      await raw.set("audit:moved:snapshot:pos", move(await named("audit:moved:snapshot")));
      await oneSnapshotWrite(a, 20, rng);
      expect(errors.slice(reported).filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
      expect(await raw.get("audit:moved:snapshot:prev")).toBe(prev);
      expect(await raw.get("audit:moved:snapshot:prev:pos")).toBe(prevPos);
      expect(await named("audit:moved:snapshot:prev")).toBe(prevPos);
      expect(await raw.get("audit:moved:snapshot:pos")).toBe(await named("audit:moved:snapshot"));
      expect(compareStreamIds(await firstEntry(raw, "audit:moved"), prevPos as string)).toBeLessThanOrEqual(0);
    }
    expect(errors).toHaveLength(2);
    raw.disconnect();
    await a.close();
  }, 60_000);

  it("a newest snapshot without a digest (an earlier version's) is not kept as the previous at the first write, and is at the next", async () => {
    const errors: unknown[] = [];
    const { a, rng } = await snapshottedTwice("audit:legacy", 14, (e) => errors.push(e));
    const raw = new Redis(redis.server.url);
    // As an earlier version leaves them: the same snapshots, no digests.
    await raw.del("audit:legacy:snapshot:sha1", "audit:legacy:snapshot:prev:sha1");
    const prev = await raw.get("audit:legacy:snapshot:prev");
    const prevPos = await raw.get("audit:legacy:snapshot:prev:pos");
    const trimmedTo = await firstEntry(raw, "audit:legacy");
    await oneSnapshotWrite(a, 20, rng);
    expect(errors).toEqual([]); // not known to be intact, not known to be changed: nothing reported
    expect(await raw.get("audit:legacy:snapshot:prev")).toBe(prev);
    expect(await raw.get("audit:legacy:snapshot:prev:pos")).toBe(prevPos);
    expect(await firstEntry(raw, "audit:legacy")).toBe(trimmedTo); // trimmed no further
    const newest = await raw.get("audit:legacy:snapshot");
    const newestPos = await raw.get("audit:legacy:snapshot:pos");
    expect(await raw.get("audit:legacy:snapshot:sha1")).toBe(sha1(newest));
    // The next write keeps that snapshot, which has its digest, as the previous one, and trims behind it.
    await oneSnapshotWrite(a, 20, rng);
    expect(errors).toEqual([]);
    expect(await raw.get("audit:legacy:snapshot:prev")).toBe(newest);
    expect(await raw.get("audit:legacy:snapshot:prev:pos")).toBe(newestPos);
    expect(await raw.get("audit:legacy:snapshot:prev:sha1")).toBe(sha1(newest));
    expect(await firstEntry(raw, "audit:legacy")).toBe(newestPos);
    raw.disconnect();
    await a.close();
  }, 60_000);
});

describe("calls with input a user would try", () => {
  it("typed errors at the call, nothing written: a bigint arm id, a cyclic or throwing feedback, an id of the wrong form, a bad URL", async () => {
    const a = await Replica.start(opts("audit:calls", "gw:1"));
    try {
      const d = a.select(Float64Array.of(0.1, 0.2, 0.3));
      await a.flush();
      const cyclic: Record<string, unknown> = { reward: 1 };
      cyclic.self = cyclic;
      expect(await codeOf(() => a.addArm(10n as never))).toBe(ErrorCode.InvalidArgument);
      expect(await codeOf(() => a.removeArm(Symbol("x") as never))).toBe(ErrorCode.InvalidArgument);
      expect(await codeOf(() => a.feedback(d.id, cyclic as never))).toBe(ErrorCode.InvalidArgument);
      const throwing = {
        get reward(): number {
          throw new Error("boom");
        },
      };
      expect(await codeOf(() => a.feedback(d.id, throwing as never))).toBe(ErrorCode.InvalidArgument);
      expect(await codeOf(() => a.feedback(10n as never, { reward: 1 }))).toBe(ErrorCode.InvalidArgument);
      // README: "a BigInt, function, symbol ... INVALID_ARGUMENT" (JSON.stringify would drop the last two silently).
      expect(await codeOf(() => a.feedback(d.id, { reward: 1, note: () => 1 } as never))).toBe(
        ErrorCode.InvalidArgument,
      );
      expect(await codeOf(() => a.feedback(d.id, { reward: 1, tag: Symbol("x") } as never))).toBe(
        ErrorCode.InvalidArgument,
      );
      expect(await codeOf(() => a.feedback(d.id, { reward: 2n } as never))).toBe(ErrorCode.InvalidArgument);
      // Not of the form <replicaId>~<incarnation>:<local id>.
      for (const id of ["gw:1~abc", "~", "x~:d0", "gw:1~abc:"]) {
        expect(await codeOf(() => a.feedback(id, { reward: 1 }))).toBe(ErrorCode.UnknownDecision);
      }
      expect(a.stats().buffered).toBe(0);
      // A getter is read once: the value checked is the value written.
      let reads = 0;
      const flaky = {
        get reward(): number {
          reads++;
          return reads === 1 ? 0.25 : Number.NaN;
        },
      };
      a.feedback(d.id, flaky as never);
      expect(reads).toBe(1);
      await a.flush();
      await a.catchUp();
      expect(a.stats().counts.learned).toBe(1);
      expect(a.stats().counts.rejected).toBe(0);
      // A URL ioredis cannot parse is a bad option, not a crash.
      expect(await codeOf(() => Replica.start(opts("audit:calls", "b", { redis: "not a url" })))).toBe(
        ErrorCode.InvalidArgument,
      );
    } finally {
      await a.close();
    }
    // After close, a writing call throws INVALID_STATE whatever its arguments.
    expect(await codeOf(() => a.feedback(5 as never, { reward: 1 }))).toBe(ErrorCode.InvalidState);
    expect(await codeOf(() => a.addArm("" as never))).toBe(ErrorCode.InvalidState);
  });
});

describe("replicas whose create() draws differently (per-replica seeds, as in examples/shared-learning.mjs)", () => {
  it("StageRoute replicas seeded 1 and 2 start from the first one's policy and hold the same learned state", async () => {
    const arms = ["a", "b", "c", "d"];
    const COST: Record<string, number> = { a: 0.1, b: 0.5, c: 1, d: 2 };
    // Padding the deployed set breaks ties between unplayed models by a seeded shuffle: seeds 1 and 2
    // deploy [a, c] and [a, b] at stage 0.
    const make = (seed: number) => () => new StageRoute({ arms, budget: 0.6, maxDeployed: 2, stageLength: 10, seed });
    const restoreSr = (s: Snapshot) => StageRoute.fromJSON(s);
    const base = { redis: redis.server.url, stream: "audit:seeds", restore: restoreSr, blockMs: 20 };
    const [a, b] = await Promise.all([
      Replica.start({ ...base, replicaId: "s1", create: make(1) }),
      Replica.start({ ...base, replicaId: "s2", create: make(2) }),
    ]);
    expect(b.policy.deployedArms).toEqual(a.policy.deployedArms);
    const rng = Rng.fromSeed(13);
    for (let t = 0; t < 120; t++) {
      const here = t % 2 === 0 ? a : b;
      const d = here.select();
      (rng.uniform() < 0.5 ? a : b).feedback(d.id, {
        reward: rng.uniform() < 0.6 ? 1 : 0,
        cost: COST[d.arm] as number,
      });
      if (t % 10 === 9) await sleep(2);
    }
    await a.flush();
    await b.flush();
    await a.catchUp();
    await b.catchUp();
    expect(a.stats().counts.learned).toBe(120);
    expect(b.learnedState()).toBe(a.learnedState());
    expect(b.policy.deployedArms).toEqual(a.policy.deployedArms);
    await a.close();
    await b.close();
  }, 60_000);
});

describe("a policy with options that JSON cannot carry (README: restore's closure supplies them)", () => {
  it("StageRoute with an external DeployOPT solver: restore passes it again; replicas agree and deploy by it", async () => {
    const arms = ["a", "b", "c", "d", "e", "f"];
    const COST: Record<string, number> = { a: 0.1, b: 0.3, c: 0.5, d: 0.8, e: 1, f: 2 };
    // A feasible answer the package's routing LP accepts (the cheapest models: their caps carry all traffic within
    // budget), deterministic as replicas need; an exact solver would be plugged in the same way.
    // One solver object per replica (the same answers), so each replica's use of it is counted.
    const asked = { created: 0, restored: 0 };
    const cheapest = (who: keyof typeof asked) => ({
      name: "cheapest",
      solve: (p: { n: number; cost: Float64Array; slots: number }) => {
        asked[who]++;
        return Array.from({ length: p.n }, (_, i) => i)
          .sort((i, j) => (p.cost[i] as number) - (p.cost[j] as number) || i - j)
          .slice(0, p.slots);
      },
    });
    const deploySolver = cheapest("created");
    const P_REWARD: Record<string, number> = { a: 0.1, b: 0.3, c: 0.4, d: 0.6, e: 0.7, f: 0.9 };
    // The best models are the dearest, so the budget binds and the relaxation's support (up to two models at
    // their cap plus two fractional ones) outgrows the three slots: DeployOPT asks the solver.
    const options = { arms, budget: 0.5, maxShare: 0.4, maxDeployed: 3, stageLength: 10, enumLimit: 0, deploySolver };
    const base = {
      redis: redis.server.url,
      stream: "audit:solver",
      restore: (s: Snapshot) => StageRoute.fromJSON(s, { deploySolver: cheapest("restored") }),
      blockMs: 20,
    };
    const a = await Replica.start({ ...base, replicaId: "s1", create: () => new StageRoute({ ...options, seed: 1 }) });
    const b = await Replica.start({ ...base, replicaId: "s2", create: () => new StageRoute({ ...options, seed: 2 }) });
    const rng = Rng.fromSeed(17);
    // Only a selects: b restored the stream's snapshot with a fresh random stream (seeded by its random
    // incarnation, README), so decisions it made would take another path on every run, and in about 1 run of 8
    // that path crossed no boundary where the solver is needed. b still learns every event and deploys by the solver.
    for (let t = 0; t < 80; t++) {
      const d = a.select();
      const reward = rng.uniform() < (P_REWARD[d.arm] as number) ? 1 : 0;
      (rng.uniform() < 0.5 ? a : b).feedback(d.id, { reward, cost: COST[d.arm] as number });
      // Both replicas apply each round before the next select, so what the run exercises (which boundaries the
      // solver decides) does not depend on replication lag.
      for (const r of [a, b]) await r.flush();
      for (const r of [a, b]) await r.catchUp();
    }
    await a.flush();
    await b.flush();
    await a.catchUp();
    await b.catchUp();
    expect(b.learnedState()).toBe(a.learnedState());
    // a created its policy (with the first solver); b restored the stream's snapshot (with the second).
    expect(asked.created).toBeGreaterThan(0);
    expect(asked.restored).toBeGreaterThan(0);
    expect(b.policy.deployedArms).toEqual(a.policy.deployedArms);
    expect(a.policy.solverFallbacks + b.policy.solverFallbacks).toBe(0);
    // Without the solver, restoring the stream's snapshot is refused at start, typed.
    const plain = { ...base, replicaId: "s3", create: () => new StageRoute({ ...options, seed: 3 }) };
    expect(await codeOf(() => Replica.start({ ...plain, restore: (s: Snapshot) => StageRoute.fromJSON(s) }))).toBe(
      ErrorCode.InvalidArgument,
    );
    await a.close();
    await b.close();
  }, 60_000);
});

describe("onError (errors that do not stop the replica)", () => {
  it("a hook that throws does not stop the replica: a start that reports a malformed snapshot still starts and learns", async () => {
    const raw = new Redis(redis.server.url);
    await raw.set("audit:hook:snapshot", "{ not json");
    raw.disconnect();
    const a = await Replica.start(
      opts("audit:hook", "a", {
        onError: (e) => {
          throw e;
        },
      }),
    );
    const d = a.select(Float64Array.of(0.1, 0.2, 0.3));
    a.feedback(d.id, { reward: 0.5 });
    await a.flush();
    await a.catchUp();
    expect(a.stats().counts.learned).toBe(1);
    await a.close();
  });
});

describe("outside audit of the snapshot fallback: a missing newest, a key of another type, a resync, starts at once, restore's own errors", () => {
  it("a newest snapshot deleted (its previous one and the position keys left): a new replica loads the previous one instead of starting fresh", async () => {
    const { a } = await snapshottedTwice("audit:gone", 21);
    const raw = new Redis(redis.server.url);
    const prev = await raw.get("audit:gone:snapshot:prev");
    const prevPos = (await raw.get("audit:gone:snapshot:prev:pos")) as string;
    expect(await raw.xlen("audit:gone")).toBeLessThan(120); // trimmed behind the previous snapshot
    await raw.del("audit:gone:snapshot");
    // Was: no newest meant a new stream, so c stored its fresh policy as the snapshot at 0-0 and started from it,
    // reporting the trimmed entries as lost although the previous snapshot covers them.
    await expectStartsAt(a, "audit:gone", prevPos, "is missing");
    // Nothing was stored in the newest's place, and the previous snapshot is untouched.
    expect(await raw.exists("audit:gone:snapshot")).toBe(0);
    expect(await raw.get("audit:gone:snapshot:prev")).toBe(prev);
    raw.disconnect();
    await a.close();
  }, 60_000);

  it("a snapshot key of another Redis type (no previous one) is reported at start, not taken for a new stream silently", async () => {
    const raw = new Redis(redis.server.url);
    await raw.hset("audit:type:snapshot", "position", "0-0");
    raw.disconnect();
    const errors: unknown[] = [];
    const c = await Replica.start(opts("audit:type", "c", { onError: (e) => errors.push(e) }));
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
    expect(String(errors[0])).toContain("holds no string");
    await c.close();
  });

  it("a replica stalled past a trim while the newest snapshot is malformed resyncs from the previous one", async () => {
    const a = await Replica.start(opts("audit:resync", "a", { snapshotEvery: 20 }));
    const errors: unknown[] = [];
    const b = await Replica.start(opts("audit:resync", "b", { onError: (e) => errors.push(e) }));
    const rng = Rng.fromSeed(22);
    await play(a, 30, rng);
    await a.catchUp();
    await b.catchUp();
    const stall = stallReads(b);
    await stall.atGate;
    const stalledAt = b.stats().position;
    const raw = new Redis(redis.server.url);
    await raw.hset("audit:resync:positions", b.decisionPrefix, `${stalledAt} ${Date.now() - 61_000}`);
    await twoSnapshotRounds(a, rng);
    await raw.set("audit:resync:snapshot", "{ not json");
    const prevPos = (await raw.get("audit:resync:snapshot:prev:pos")) as string;
    expect(compareStreamIds(await firstEntry(raw, "audit:resync"), stalledAt)).toBeGreaterThan(0);
    raw.disconnect();
    stall.release();
    await b.catchUp();
    await a.catchUp();
    expect(compareStreamIds(b.stats().position, prevPos)).toBeGreaterThan(0);
    expect(b.learnedState()).toBe(a.learnedState());
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt))).toHaveLength(1);
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.InvalidState))).toEqual([]);
    await a.close();
    await b.close();
  }, 60_000);

  it("replicas started at once on a malformed newest all load the previous one, and agree with the writer as it goes on", async () => {
    const { a, rng } = await snapshottedTwice("audit:many", 23);
    const raw = new Redis(redis.server.url);
    const prevPos = (await raw.get("audit:many:snapshot:prev:pos")) as string;
    await raw.set("audit:many:snapshot", "{ not json");
    raw.disconnect();
    const errors: unknown[] = [];
    const cs = await Promise.all(
      [1, 2, 3].map((i) =>
        Replica.start(opts("audit:many", `c${i}`, { snapshotEvery: 20, onError: (e) => errors.push(e) })),
      ),
    );
    // Each loaded the previous snapshot (and may have read on from it since).
    for (const c of cs) expect(compareStreamIds(c.stats().position, prevPos)).toBeGreaterThanOrEqual(0);
    const corrupt = errors.filter((e) => isRouteKitError(e, ErrorCode.SnapshotCorrupt));
    expect(corrupt).toHaveLength(3);
    for (const e of corrupt) expect(String(e)).toContain("loading the previous one");
    // Then the writer goes on: snapshots are written (the malformed one replaced, the stream trimmed) under them.
    await play(a, 30, rng);
    await a.catchUp();
    for (const c of cs) await c.catchUp();
    for (const c of cs) expect(c.learnedState()).toBe(a.learnedState());
    expect(errors.filter((e) => isRouteKitError(e, ErrorCode.InvalidState))).toEqual([]);
    await a.close();
    for (const c of cs) await c.close();
  }, 60_000);

  it("a restore that throws something other than a RouteKitError rejects start with INVALID_ARGUMENT, not UNAVAILABLE", async () => {
    const { a } = await snapshottedTwice("audit:throws", 24);
    await a.close();
    const bug = new TypeError("cannot read properties of undefined");
    const e = await Replica.start(
      opts("audit:throws", "c", {
        restore: () => {
          throw bug;
        },
      }),
    ).then(
      (r) => r.close().then(() => "started"),
      (err: unknown) => err,
    );
    expect(isRouteKitError(e, ErrorCode.InvalidArgument), String(e)).toBe(true);
    expect(String(e)).toContain("option restore threw");
    expect((e as { details?: { cause?: unknown } }).details?.cause).toBe(bug);
  }, 60_000);
});

describe("Redis restarted without its append-only file (README: run it with appendonly yes)", () => {
  it("running replicas report the gap; a replica started before the next snapshot write starts fresh and differs, unreported", async () => {
    let server = await startRedisServer({ appendOnly: false });
    try {
      const o = (id: string, extra: Record<string, unknown>) =>
        linucbOptions(server.url, "audit:noaof", id, { snapshotEvery: 20, ...extra });
      const errors: unknown[] = [];
      const a = await Replica.start(o("a", { onError: (e: unknown) => errors.push(e) }));
      await twoSnapshotRounds(a, Rng.fromSeed(25));
      await server.kill();
      server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly: false });
      const cErrors: unknown[] = [];
      const c = await Replica.start(o("c", { onError: (e: unknown) => cErrors.push(e) }));
      expect(c.stats().position).toBe("0-0");
      await play(a, 5, Rng.fromSeed(26));
      await a.catchUp();
      await c.catchUp();
      expect(c.learnedState()).not.toBe(a.learnedState());
      expect(errors.filter((e) => isRouteKitError(e, ErrorCode.InvalidState))).toHaveLength(1);
      expect(cErrors).toEqual([]);
      await a.close();
      await c.close();
    } finally {
      await server.stop({ removeData: true });
    }
  }, 60_000);
});

describe("a read loop that keeps failing", () => {
  it("reports a failure that persists once (the loop retries every 100 ms), and again after reads recovered", async () => {
    const errors: unknown[] = [];
    const a = await Replica.start(opts("audit:wrongtype", "a", { onError: (e) => errors.push(e), blockMs: 20 }));
    const raw = new Redis(redis.server.url);
    const wrongType = () => errors.filter((e) => /WRONGTYPE/.test(String(e))).length;
    try {
      for (let run = 1; run <= 2; run++) {
        await raw.del("audit:wrongtype");
        await raw.hset("audit:wrongtype", "not", "a stream");
        while (wrongType() < run) await sleep(10);
        await sleep(400); // about four more failed reads
        expect(wrongType()).toBe(run);
        // A stream again: reads succeed, and the next failure is a new one.
        await raw.del("audit:wrongtype");
        const d = a.select(new Float64Array([0.1, 0.5, 1]));
        a.feedback(d.id, { reward: 0.5 });
        await a.catchUp();
      }
    } finally {
      raw.disconnect();
      await a.close();
    }
  }, 60_000);
});

describe("Redis refusing writes", () => {
  it("an XADD refused (Redis out of memory) is reported once per run of failures, and the entries are written once Redis accepts them", async () => {
    const errors: unknown[] = [];
    const a = await Replica.start(opts("audit:oom", "a", { onError: (e) => errors.push(e) }));
    const raw = new Redis(redis.server.url);
    const ctx = new Float64Array([0.1, 0.5, 1]);
    const oomReports = () => errors.filter((e) => /OOM/.test(String(e))).length;
    const until = async (what: () => boolean) => {
      while (!what()) await sleep(10);
    };
    try {
      for (let run = 1; run <= 2; run++) {
        await raw.config("SET", "maxmemory", "1");
        for (let t = 0; t < 5; t++) {
          const d = a.select(ctx);
          a.feedback(d.id, { reward: 0.5 });
        }
        await until(() => oomReports() === run);
        // The pump retries every 20 ms while Redis refuses: more entries and retries, no second report in this run.
        const d = a.select(ctx);
        a.feedback(d.id, { reward: 0.5 });
        await sleep(200);
        expect(oomReports()).toBe(run);
        await raw.config("SET", "maxmemory", "0");
        await a.flush();
      }
      expect(await raw.xlen("audit:oom")).toBe(24);
    } finally {
      await raw.config("SET", "maxmemory", "0");
      raw.disconnect();
      await a.close();
    }
  }, 60_000);
});
