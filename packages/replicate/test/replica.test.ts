import { learnedState, Rng } from "@routekit/core";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { StreamApplier } from "../src/apply.js";
import { compareStreamIds, decodeEntry } from "../src/entries.js";
import { Replica } from "../src/index.js";
import { startRedisServer } from "../src/server.js";
import { create, linucbOptionsOn, redisForFile, snapshotsSettled } from "./fixture.js";

const redis = redisForFile();

const opts = linucbOptionsOn(redis);

/** A toy world: the best arm depends on the context's first coordinate. */
function reward(arm: string, ctx: Float64Array, rng: Rng): number {
  const x = ctx[0] as number;
  const mean = arm === "small" ? 0.5 - 0.3 * x : arm === "medium" ? 0.45 : 0.4 + 0.4 * x;
  return mean + 0.1 * rng.normal();
}

/** The state one policy reaches by folding the whole stream in order. */
async function replayStream(stream: string): Promise<string> {
  const c = new Redis(redis.server.url);
  const entries = (await c.xrange(stream, "-", "+")) as [string, string[]][];
  c.disconnect();
  const a = new StreamApplier(create(), 100_000);
  for (const [, fields] of entries) {
    const e = decodeEntry(fields);
    if (e) a.apply(e);
  }
  return JSON.stringify({ policy: learnedState(a.policy.toJSON()), join: a.joinState() });
}

describe("Replica on a real Redis", () => {
  it("replicas learn from each other's feedback and end in the state of one policy fed the stream in order", async () => {
    const a = await Replica.start(opts("t1", "a"));
    const b = await Replica.start(opts("t1", "b"));
    const rng = Rng.fromSeed(3);
    for (let t = 0; t < 300; t++) {
      const [here, there] = t % 2 === 0 ? [a, b] : [b, a];
      const ctx = new Float64Array([rng.uniformIn(-1, 1), rng.uniformIn(-1, 1), 1]);
      const d = here.select(ctx);
      // Feedback reaches the other replica (the load balancer does not know who decided).
      there.feedback(d.id, { reward: reward(d.arm, ctx, rng) });
      if (t % 50 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await a.flush();
    await b.flush();
    await a.catchUp();
    await b.catchUp();
    expect(a.stats().counts.learned).toBe(300);
    expect(b.learnedState()).toBe(a.learnedState());
    expect(a.learnedState()).toBe(await replayStream("t1"));
    // Each replica's own pending decisions were dropped once their events were learned.
    expect(a.policy.pendingDecisions).toBe(0);
    expect(b.policy.pendingDecisions).toBe(0);
    expect(a.stats().lagMs.samples).toBeGreaterThan(0);
    await a.close();
    await b.close();
  });

  it("a new replica starts from the newest snapshot and reaches the same state; the stream is trimmed behind it", async () => {
    const a = await Replica.start(opts("t2", "a", { snapshotEvery: 100 }));
    const rng = Rng.fromSeed(4);
    // Two phases of 600 entries, each read and snapshotted before the next (snapshotsSettled): each leaves a snapshot
    // within its last 100 entries, so the second phase's snapshot trims the stream behind the first one's. (A sleep
    // after the whole run left it to the read batches and the host's load how many distinct snapshots there were.)
    for (let phase = 0; phase < 2; phase++) {
      for (let t = 0; t < 300; t++) {
        const ctx = new Float64Array([rng.uniformIn(-1, 1), 0.5, 1]);
        const d = a.select(ctx);
        a.feedback(d.id, { reward: reward(d.arm, ctx, rng) });
        if (t % 100 === 0) await new Promise((r) => setTimeout(r, 20));
      }
      await a.flush();
      await a.catchUp();
      await snapshotsSettled(a, 100);
    }
    // The first replica's fresh policy at 0-0, and at least the two phases' snapshots.
    expect(a.stats().snapshotsWritten).toBeGreaterThanOrEqual(3);
    const c = new Redis(redis.server.url);
    const len = await c.xlen("t2");
    const first = ((await c.xrange("t2", "-", "+", "COUNT", 1)) as [string, string[]][])[0]?.[0] as string;
    const prev = (await c.get("t2:snapshot:prev:pos")) as string;
    c.disconnect();
    expect(len).toBeLessThan(1200); // trimmed ...
    expect(compareStreamIds(first, prev)).toBe(0); // ... exactly behind the previous snapshot (a is the only reader)
    const n = await Replica.start(opts("t2", "n"));
    expect(n.stats().position).not.toBe("0-0"); // started from a snapshot, not from the stream's start
    await n.catchUp();
    expect(n.learnedState()).toBe(a.learnedState());
    // The new replica keeps its own random stream: not the snapshot writer's.
    expect(JSON.stringify(n.policy.toJSON().state)).not.toBe(JSON.stringify(a.policy.toJSON().state));
    await a.close();
    await n.close();
  });

  it("keeps serving while Redis restarts; no event is lost and none is applied twice", async () => {
    const a = await Replica.start(opts("t3", "a"));
    const b = await Replica.start(opts("t3", "b"));
    const rng = Rng.fromSeed(5);
    let decided = 0;
    const play = async (rounds: number) => {
      for (let t = 0; t < rounds; t++) {
        const here = rng.uniform() < 0.5 ? a : b;
        const ctx = new Float64Array([rng.uniformIn(-1, 1), 0, 1]);
        const d = here.select(ctx);
        decided++;
        (rng.uniform() < 0.5 ? a : b).feedback(d.id, { reward: reward(d.arm, ctx, rng) });
        if (t % 20 === 0) await new Promise((r) => setTimeout(r, 1));
      }
    };
    await play(200);
    await a.flush();
    await b.flush();
    await redis.server.stop(); // SIGTERM: acknowledged writes are in the append-only file
    await play(200); // served from local state, buffered
    expect(a.stats().buffered + b.stats().buffered).toBeGreaterThan(0);
    redis.server = await startRedisServer({ port: redis.server.port, dir: redis.server.dir });
    await play(100);
    await a.flush();
    await b.flush();
    await a.catchUp();
    await b.catchUp();
    expect(a.stats().counts.learned).toBe(decided);
    expect(b.learnedState()).toBe(a.learnedState());
    expect(a.learnedState()).toBe(await replayStream("t3"));
    await a.close();
    await b.close();
  });

  it("bounds the buffer while Redis is down: the oldest entries are dropped and counted", async () => {
    const a = await Replica.start(opts("t4", "a", { maxBuffered: 10 }));
    await redis.server.stop();
    for (let t = 0; t < 30; t++) a.select(new Float64Array([0, 0, 1]));
    expect(a.stats().buffered).toBe(10);
    expect(a.stats().dropped).toBe(20);
    redis.server = await startRedisServer({ port: redis.server.port, dir: redis.server.dir });
    await a.flush();
    await a.close();
  });
});
