/**
 * `@routekit/replicate/server`: a real `redis-server` for tests, benchmarks and local experiments,
 * started on a free loopback port with its own data directory and stopped by the caller. Node only.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkNumber } from "@routekit/core";
import { launchRedisServer } from "./redis-launch.js";

export interface RedisServerOptions {
  /**
   * Port to listen on, an integer in [1, 65535] (default: a free one; 0 is OUT_OF_RANGE, leave it out instead). Pass
   * the old port to restart a server on the same address: while another process holds it, the start tries again for
   * about 3 s, then rejects naming the port.
   */
  readonly port?: number;
  /** Data directory (default: a fresh temporary one, removed by `stop({ removeData: true })`). */
  readonly dir?: string;
  /** Append-only file with fsync on every write (default true), so a restart loses no acknowledged write. */
  readonly appendOnly?: boolean;
}

export interface RedisServer {
  readonly port: number;
  readonly dir: string;
  readonly url: string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s); `removeData` deletes its directory. */
  stop(opts?: { removeData?: boolean }): Promise<void>;
  /** Kills the server at once (SIGKILL): a crash, for failure tests. */
  kill(): Promise<void>;
}

/** Path of `redis-server`, installing Debian's package when it is missing and this process is root. */
export function ensureRedisServer(): string {
  const found = which("redis-server");
  if (found !== undefined) return found;
  if (typeof process.getuid === "function" && process.getuid() === 0) {
    execFileSync("apt-get", ["update"], { stdio: "ignore" });
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "redis-server"], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    const installed = which("redis-server");
    if (installed !== undefined) return installed;
  }
  throw new Error(
    "redis-server is not installed (Debian: apt-get install redis-server); run as root to have it installed automatically",
  );
}

function which(cmd: string): string | undefined {
  for (const p of (process.env.PATH ?? "").split(":").concat(["/usr/bin", "/usr/sbin", "/usr/local/bin"])) {
    try {
      execFileSync("test", ["-x", join(p, cmd)]);
      return join(p, cmd);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A TCP port on 127.0.0.1 that was free when this returned (the OS's pick for port 0). Another process may take it
 * before it is used: `startRedisServer` then tries another one.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` on 127.0.0.1 and resolves once it answers (this process: not another server that holds the
 * port). A free port (the default) that another process takes before redis-server binds it is replaced by another
 * one; a given `port` (a restart) is tried again while another process holds it, for about 3 s, and then the start
 * rejects with an error naming the port.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  // Port 0 would make redis-server pick one this process cannot know (it waited 15 s for an answer on port 0).
  if (options.port !== undefined) checkNumber(options.port, "option port", { integer: true, min: 1, max: 65535 });
  const bin = ensureRedisServer();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "routekit-redis-"));
  try {
    return await launchRedisServer({
      bin,
      dir,
      appendOnly: options.appendOnly ?? true,
      port: options.port,
      pickPort: freePort,
    });
  } catch (e) {
    if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
