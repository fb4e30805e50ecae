/** What the replica test files share: a LinUCB policy over three arms and a real redis-server per file. */
import { LinUCBDisjoint } from "@routekit/classic";
import { isRouteKitError, type Snapshot } from "@routekit/core";
import { afterAll, beforeAll, expect } from "vitest";
import type { ReplicaOptions } from "../src/index.js";
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
