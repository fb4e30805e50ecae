/** What the replica test files share: a LinUCB policy over three arms and a real redis-server per file. */
import { LinUCBDisjoint } from "@routekit/classic";
import {
  type DecisionEvent,
  isRouteKitError,
  learnedState,
  type PolicyBase,
  Rng,
  type Snapshot,
  withReplicaParts,
} from "@routekit/core";
import { afterAll, beforeAll, expect, vi } from "vitest";
import { type ReplicablePolicy, StreamApplier } from "../src/apply.js";
import type { StreamEntry } from "../src/entries.js";
import type { Replica, ReplicaOptions, ReplicaPolicy } from "../src/index.js";
import { type RedisServer, startRedisServer } from "../src/server.js";

export const ARMS = ["small", "medium", "large"];
export const create = () => new LinUCBDisjoint({ arms: ARMS, contextDim: 3, seed: 1 });
export const restore = (s: Snapshot) => LinUCBDisjoint.fromJSON(s);

/**
 * Starts a redis-server on a free loopback port before this file's tests and stops it after them. The first
 * start may install Debian's redis-server (apt-get), which can take a few minutes. A test that restarts the server
 * assigns the new one to `server`.
 */
export function redisForFile(): { server: RedisServer } {
  const holder = {} as { server: RedisServer };
  beforeAll(async () => {
    holder.server = await startRedisServer();
  }, 600_000);
  afterAll(async () => {
    await holder.server?.stop({ removeData: true });
  });
  return holder;
}

/** Replica options for the LinUCB policy on `stream`. */
export function linucbOptions(
  url: string,
  stream: string,
  replicaId: string,
  extra: Partial<ReplicaOptions<LinUCBDisjoint>> | Record<string, unknown> = {},
): ReplicaOptions<LinUCBDisjoint> {
  return { redis: url, stream, replicaId, create, restore, blockMs: 50, ...extra } as ReplicaOptions<LinUCBDisjoint>;
}

/** {@link linucbOptions} on the file's redis-server (from {@link redisForFile}), once it has started. */
export function linucbOptionsOn(redis: { server: RedisServer }) {
  return (
    stream: string,
    replicaId: string,
    extra: Partial<ReplicaOptions<LinUCBDisjoint>> | Record<string, unknown> = {},
  ): ReplicaOptions<LinUCBDisjoint> => linucbOptions(redis.server.url, stream, replicaId, extra);
}

/**
 * Resolves once `r` has no snapshot being written and none due: fewer than `snapshotEvery` entries applied since
 * its last snapshot began (read from the replica's private fields). Call it after `catchUp` while nothing else is
 * written to the stream: the state is then final, so the snapshot keys and the stream's trim are too, and its
 * last snapshot is at most `snapshotEvery - 1` entries behind the stream's end. A snapshot is written in the
 * background after a read, so a fixed sleep after `catchUp` was a guess that a loaded machine could miss.
 */
export async function snapshotsSettled<P extends ReplicaPolicy>(r: Replica<P>, snapshotEvery: number): Promise<void> {
  const s = r as unknown as { snapshotting: boolean; sinceSnapshot: number };
  await vi.waitFor(
    () => {
      expect(s.snapshotting, "a snapshot is being written").toBe(false);
      expect(s.sinceSnapshot, "entries applied since the last snapshot").toBeLessThan(snapshotEvery);
    },
    { timeout: 30_000, interval: 10 },
  );
}

/** The RouteKitError code `fn` throws or rejects with (the test fails on any other error), or undefined. */
export async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (e) {
    expect(isRouteKitError(e), String(e)).toBe(true);
    return (e as { code: string }).code;
  }
  return undefined;
}

const learnedOf = (p: PolicyBase) => JSON.stringify(learnedState(p.toJSON()));

/**
 * The fold's promise for any protocol (README): replicas that apply each decision and its feedback in either order
 * (feedback first: the pair is learned when the decision arrives, so the learning order is the same), and one started
 * half-way from another replica's snapshot (its own random stream, no pending decisions), hold the learned state of
 * one learner fed every event. `make(seed)` builds a fresh policy; the stream was played by another one.
 */
export function expectFoldMatchesOneLearner<P extends ReplicablePolicy>(
  entries: { decisions: StreamEntry[]; feedbacks: StreamEntry[]; events: DecisionEvent[] },
  make: (seed: number) => P,
  fromJSON: (s: Snapshot) => P,
): void {
  const { decisions, feedbacks, events } = entries;
  const single = make(2);
  for (const e of events) single.learn(e);
  expect(learnedOf(single)).not.toBe(learnedOf(make(2))); // it learned something
  const a = new StreamApplier(make(3), 1000);
  const b = new StreamApplier(make(4), 1000);
  for (let i = 0; i < decisions.length; i++) {
    a.apply(decisions[i] as StreamEntry);
    a.apply(feedbacks[i] as StreamEntry);
    b.apply(feedbacks[i] as StreamEntry);
    b.apply(decisions[i] as StreamEntry);
  }
  expect(a.counts).toMatchObject({ learned: decisions.length, rejected: 0 });
  expect(learnedOf(a.policy)).toBe(learnedOf(single));
  expect(learnedOf(b.policy)).toBe(learnedOf(single));
  const mid = Math.floor(decisions.length / 2);
  const half = new StreamApplier(make(5), 1000);
  for (let i = 0; i < mid; i++) {
    half.apply(decisions[i] as StreamEntry);
    half.apply(feedbacks[i] as StreamEntry);
  }
  const c = new StreamApplier(fromJSON(withReplicaParts(half.policy.toJSON(), Rng.fromSeed("replica-c"))), 1000);
  for (let i = mid; i < decisions.length; i++) {
    c.apply(decisions[i] as StreamEntry);
    c.apply(feedbacks[i] as StreamEntry);
  }
  expect(learnedOf(c.policy)).toBe(learnedOf(single));
}
