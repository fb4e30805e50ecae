/**
 * `@routekit/replicate/server`: a real `redis-server` for tests, benchmarks and local experiments,
 * started on a free loopback port with its own data directory and stopped by the caller. Node only.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServerOptions {
  /** Port to listen on (default: a free one). Pass the old port to restart a server on the same address. */
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

/** A free TCP port on 127.0.0.1. */
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

/** Starts `redis-server` on 127.0.0.1 and resolves once it answers PING. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const bin = ensureRedisServer();
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "routekit-redis-"));
  const appendOnly = options.appendOnly ?? true;
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    appendOnly ? "yes" : "no",
    "--appendfsync",
    "always",
    "--protected-mode",
    "yes",
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
  ];
  const child: ChildProcess = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (b) => {
    stderr += String(b);
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  await waitForPing(port, child, () => stderr);
  const stop = async (opts: { removeData?: boolean } = {}) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    }
    if (opts.removeData) rmSync(dir, { recursive: true, force: true });
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  };
  return { port, dir, url: `redis://127.0.0.1:${port}`, stop, kill };
}

async function waitForPing(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const { Redis } = await import("ioredis");
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${stderr()}`);
    const c = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    c.on("error", () => undefined);
    try {
      await c.connect();
      if ((await c.ping()) === "PONG") {
        c.disconnect();
        return;
      }
    } catch {
      // not up yet
    }
    c.disconnect();
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
