/** What the replica test files share: a LinUCB policy over three arms and a real redis-server per file. */
import { LinUCBDisjoint } from "@routekit/classic";
import type { Snapshot } from "@routekit/core";
import { afterAll, beforeAll } from "vitest";
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
