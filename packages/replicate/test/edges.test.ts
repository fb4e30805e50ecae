/**
 * Bad input found by an adversarial audit, against a real redis-server: typed errors at the call, and
 * nothing written or changed when a call throws.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { LinUCBDisjoint } from "@routekit/classic";
import { ErrorCode, isRouteKitError, type Snapshot } from "@routekit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Replica, type ReplicaOptions } from "../src/index.js";
import { type RedisServer, startRedisServer } from "../src/server.js";

const ARMS = ["small", "medium", "large"];
const create = () => new LinUCBDisjoint({ arms: ARMS, contextDim: 3, seed: 1 });
const restore = (s: Snapshot) => LinUCBDisjoint.fromJSON(s);

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
}, 600_000);
afterAll(async () => {
  await server?.stop({ removeData: true });
});

function opts(stream: string, replicaId: string, extra: Record<string, unknown> = {}) {
  return {
    redis: server.url,
    stream,
    replicaId,
    create,
    restore,
    blockMs: 50,
    ...extra,
  } as ReplicaOptions<LinUCBDisjoint>;
}

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (e) {
    expect(isRouteKitError(e), String(e)).toBe(true);
    return (e as { code: string }).code;
  }
  return undefined;
}

describe("options", () => {
  // Runs the built package (dist), as the cluster test's replica processes do.
  it("a start against an unreachable Redis rejects and leaves no connection keeping the process alive", () => {
    const script = `
      import { LinUCBDisjoint } from "@routekit/classic";
      import { Replica } from "${new URL("../dist/index.js", import.meta.url).href}";
      const create = () => new LinUCBDisjoint({ arms: ["a", "b"], contextDim: 3, seed: 1 });
      Replica.start({ redis: "redis://127.0.0.1:1", stream: "s", replicaId: "x", create, restore: create })
        .then(() => console.log("started"), () => console.log("rejected"));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(r.stdout.trim()).toBe("rejected");
    expect(r.signal).toBeNull(); // exited by itself, not killed by the timeout
    expect(r.status).toBe(0);
  }, 30_000);
});
