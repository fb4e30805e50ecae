/**
 * Starting `redis-server` on a port another process may take first: the launch loop behind
 * `startRedisServer` (`@routekit/replicate/server`). Not an entry of the package: its tests import it to choose the
 * ports tried.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import type { RedisServer } from "./server.js";

/** New ports tried when the one picked was taken before redis-server could bind it. */
export const FREE_PORT_TRIES = 10;
/** Tries on a given port (a restart) while another process holds it, with a doubling pause from 100 ms (3.1 s in all). */
export const SAME_PORT_TRIES = 6;
const FIRST_PAUSE_MS = 100;
/** How long a started redis-server may take to answer before it is killed and the start rejects. */
const ANSWER_MS = 15_000;

export interface LaunchPlan {
  readonly bin: string;
  readonly dir: string;
  readonly appendOnly: boolean;
  /** The port to listen on (a restart: tried again while in use), or undefined for one from `pickPort`. */
  readonly port: number | undefined;
  /** A port believed free (`freePort`): called again for each try after a port turned out to be taken. */
  readonly pickPort: () => Promise<number>;
  /** Called each time redis-server could not bind a port because another process holds it. */
  readonly onPortInUse?: (port: number, attempt: number) => void | Promise<void>;
}

/**
 * Starts redis-server on 127.0.0.1 and resolves once this very process answers (its INFO `process_id`, so another
 * server already listening on the port is never taken for it). When it exits because the port is in use
 * ("Address already in use" in its log), a picked port is replaced by a new one (up to FREE_PORT_TRIES) and a given
 * port is tried again after a pause (up to SAME_PORT_TRIES); then the start rejects, naming the port.
 */
export async function launchRedisServer(plan: LaunchPlan): Promise<RedisServer> {
  const tries = plan.port === undefined ? FREE_PORT_TRIES : SAME_PORT_TRIES;
  let pause = FIRST_PAUSE_MS;
  let waited = 0;
  let port = 0;
  for (let attempt = 1; attempt <= tries; attempt++) {
    port = plan.port ?? (await plan.pickPort());
    const started = await launchOnce(plan, port);
    if (started !== "in-use") return started;
    await plan.onPortInUse?.(port, attempt);
    if (plan.port !== undefined && attempt < tries) {
      await sleep(pause);
      waited += pause;
      pause *= 2;
    }
  }
  throw new Error(
    plan.port === undefined
      ? `redis-server found no free port on 127.0.0.1: each of the ${tries} ports picked (the last ${port}) was ` +
          "taken by another process before it could listen"
      : `redis-server cannot listen on 127.0.0.1:${port}: another process holds the port (tried ${tries} times ` +
          `over ${(waited / 1000).toFixed(1)} s)`,
  );
}

/** One redis-server on `port`: running and answering, or "in-use" when it exited because the port was taken. */
async function launchOnce(plan: LaunchPlan, port: number): Promise<RedisServer | "in-use"> {
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    plan.dir,
    "--save",
    "",
    "--appendonly",
    plan.appendOnly ? "yes" : "no",
    "--appendfsync",
    "always",
    "--protected-mode",
    "yes",
    "--daemonize",
    "no",
    "--loglevel",
    "warning",
  ];
  // redis-server logs to stdout (a failed bind included); both streams are read for as long as it runs, so a full
  // pipe never blocks it, and the tail is kept for error messages.
  const child: ChildProcess = spawn(plan.bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const keep = (b: Buffer) => {
    log = (log + String(b)).slice(-8192);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let gone = false;
  let spawnError = "";
  const exited = new Promise<void>((r) => {
    const end = () => {
      gone = true;
      r();
    };
    child.once("exit", end);
    // A failed spawn (the binary removed meanwhile) may emit "error" without "exit".
    child.once("error", (e) => {
      spawnError = String(e);
      end();
    });
  });
  // "exit" can come before the last of the child's output has been read: a failed start's log (the bind error) is
  // complete once its pipes close, which a failed start does at once (it forked nothing that could hold them).
  const drained = new Promise<void>((r) => child.once("close", () => r()));
  const deadline = Date.now() + ANSWER_MS;
  for (;;) {
    if (gone) {
      await Promise.race([drained, sleep(2000)]);
      if (/Address already in use/i.test(log)) return "in-use";
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}): ${spawnError}${log.trim()}`);
    }
    if (await Promise.race([answersAsItself(port, child.pid), exited.then(() => false)])) break;
    if (gone) continue;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await exited;
      throw new Error(`redis-server did not answer on 127.0.0.1:${port} within ${ANSWER_MS / 1000} s: ${log.trim()}`);
    }
    await sleep(50);
  }
  const stop = async (opts: { removeData?: boolean } = {}) => {
    if (!gone) {
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    }
    if (opts.removeData) rmSync(plan.dir, { recursive: true, force: true });
  };
  const kill = async () => {
    if (!gone) {
      child.kill("SIGKILL");
      await exited;
    }
  };
  return { port, dir: plan.dir, url: `redis://127.0.0.1:${port}`, stop, kill };
}

/** Whether the server answering PING on `port` is the process `pid` (another one may hold the port). */
async function answersAsItself(port: number, pid: number | undefined): Promise<boolean> {
  const { Redis } = await import("ioredis");
  const c = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // Whatever else holds the port may accept and never answer.
    connectTimeout: 1000,
    commandTimeout: 1000,
  });
  c.on("error", () => undefined);
  try {
    await c.connect();
    const info = await c.info("server");
    if (pid === undefined || !new RegExp(`^process_id:${pid}\\s*$`, "m").test(info)) return false;
    return (await c.ping()) === "PONG"; // refused while it still loads its append-only file
  } catch {
    return false; // not up yet, or not a Redis
  } finally {
    c.disconnect();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
