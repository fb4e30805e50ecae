/**
 * `startRedisServer` when another process takes its port: a free port picked and then taken before redis-server
 * binds it (CI runs other packages' tests beside these), and a restart on a port held by someone else.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode, isRouteKitError } from "@routekit/core";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { launchRedisServer, SAME_PORT_TRIES } from "../src/redis-launch.js";
import { ensureRedisServer, freePort, startRedisServer } from "../src/server.js";

const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), "routekit-redis-test-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Another process's listener on a free loopback port (what redis-server's bind then runs into). */
async function holdPort(): Promise<{ port: number; server: Server; release: () => Promise<void> }> {
  const server = createServer((socket) => socket.destroy());
  const port = await new Promise<number>((r) =>
    server.listen(0, "127.0.0.1", () => r((server.address() as { port: number }).port)),
  );
  return { port, server, release: () => new Promise<void>((r) => server.close(() => r())) };
}

/** PING and the process id of the server answering on `port`. */
async function whoAnswers(port: number): Promise<{ pong: string; pid: string | undefined }> {
  const c = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on("error", () => undefined);
  try {
    const pong = await c.ping();
    const pid = /^process_id:(\d+)/m.exec(await c.info("server"))?.[1];
    return { pong, pid };
  } finally {
    c.disconnect();
  }
}

describe("a free port taken before redis-server binds it", () => {
  it("is replaced by another free port", async () => {
    const held = await holdPort();
    try {
      const picked = [held.port];
      const inUse: [number, number][] = [];
      const server = await launchRedisServer({
        bin: ensureRedisServer(),
        dir: dataDir(),
        appendOnly: false,
        port: undefined,
        // The first pick is the port another process took meanwhile.
        pickPort: async () => picked.shift() ?? (await freePort()),
        onPortInUse: (port, attempt) => void inUse.push([port, attempt]),
      });
      try {
        expect(inUse).toEqual([[held.port, 1]]);
        expect(server.port).not.toBe(held.port);
        expect((await whoAnswers(server.port)).pong).toBe("PONG");
      } finally {
        await server.stop();
      }
    } finally {
      await held.release();
    }
  });
});

describe("a restart on a port another process holds", () => {
  it("is tried again on the same port, and starts once the port is released", async () => {
    const held = await holdPort();
    const inUse: number[] = [];
    const server = await launchRedisServer({
      bin: ensureRedisServer(),
      dir: dataDir(),
      appendOnly: true,
      port: held.port,
      pickPort: () => Promise.reject(new Error("a given port is never replaced")),
      onPortInUse: async (port, attempt) => {
        inUse.push(port);
        if (attempt === 1) await held.release(); // the other process lets go after the first try
      },
    });
    try {
      expect(inUse).toEqual([held.port]);
      expect(server.port).toBe(held.port);
      expect((await whoAnswers(server.port)).pong).toBe("PONG");
    } finally {
      await server.stop();
    }
  });

  it("rejects with an error naming the port when it stays held", async () => {
    const held = await holdPort();
    const dir = dataDir();
    try {
      await expect(startRedisServer({ port: held.port, dir })).rejects.toThrow(
        `redis-server cannot listen on 127.0.0.1:${held.port}: another process holds the port (tried ${SAME_PORT_TRIES} times`,
      );
    } finally {
      await held.release();
    }
  });

  it("never takes another redis-server already listening there for the new one", async () => {
    const other = await startRedisServer({ appendOnly: false });
    try {
      const before = await whoAnswers(other.port);
      await expect(startRedisServer({ port: other.port, dir: dataDir() })).rejects.toThrow(
        `redis-server cannot listen on 127.0.0.1:${other.port}: another process holds the port`,
      );
      expect(await whoAnswers(other.port)).toEqual(before); // the other server is untouched
    } finally {
      await other.stop({ removeData: true });
    }
  });
});

describe("startRedisServer's port option", () => {
  it("is checked before anything starts: 0, 70000 and 1.5 are OUT_OF_RANGE, NaN NON_FINITE, a string INVALID_ARGUMENT", async () => {
    const cases: [unknown, string][] = [
      [0, ErrorCode.OutOfRange],
      [70_000, ErrorCode.OutOfRange],
      [1.5, ErrorCode.OutOfRange],
      [Number.NaN, ErrorCode.NonFinite],
      ["6379", ErrorCode.InvalidArgument],
    ];
    for (const [port, code] of cases) {
      const got = await startRedisServer({ port: port as number }).then(
        async (s) => {
          await s.stop({ removeData: true });
          return "started";
        },
        (e: unknown) => (isRouteKitError(e) ? e.code : String(e)),
      );
      expect(got, `port ${String(port)}`).toBe(code);
    }
  });
});
