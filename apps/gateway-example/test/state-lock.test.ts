// One gateway per state directory: the lock directory, its takeover of crashed owners, and the interleavings
// that a pid file with a takeover guard could not make safe (two faults: a start crashing within its takeover,
// then starts racing on what it left).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createRffGateway } from "../src/index.js";
import { acquireStateLock, clearLegacyPidFile, removeStaleLock } from "../src/state-lock.js";
import { stateDir } from "./fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid as number;

/** A lock directory at `lock` naming `owners` (as a crashed gateway leaves it). */
function lockNaming(lock: string, ...owners: string[]): void {
  mkdirSync(lock);
  for (const o of owners) writeFileSync(join(lock, o), "");
}

describe("the state lock", () => {
  it("holds exactly its owner's pid, refuses a second start of a live owner, and leaves nothing on release", () => {
    const dir = stateDir();
    const lock = join(dir, "gateway.lock");
    const release = acquireStateLock(lock);
    expect(readdirSync(lock)).toEqual([String(process.pid)]);
    expect(() => acquireStateLock(lock)).toThrow(`in use by process ${process.pid}`);
    expect(readdirSync(lock)).toEqual([String(process.pid)]);
    release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("takes over a dead owner, an empty lock (a crash mid-takeover or mid-release) and a foreign entry", () => {
    for (const owners of [[String(deadPid())], [], ["not-a-pid"], ["-4"], [String(deadPid()), String(deadPid())]]) {
      const dir = stateDir();
      const lock = join(dir, "gateway.lock");
      lockNaming(lock, ...owners);
      const release = acquireStateLock(lock);
      expect(readdirSync(lock)).toEqual([String(process.pid)]);
      release();
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("a live owner is never displaced: a start that found a stale owner, then lost the race, removes nothing", () => {
    const dir = stateDir();
    const lock = join(dir, "gateway.lock");
    const stale = String(deadPid());
    // Start B read the stale owner; start A took the lock over first; B's removal of the stale owner runs now.
    lockNaming(lock, stale);
    const release = acquireStateLock(lock); // A
    removeStaleLock(lock, [stale]); // B: its file is gone, and the directory is not empty
    expect(readdirSync(lock)).toEqual([String(process.pid)]);
    expect(() => acquireStateLock(lock)).toThrow(/in use by process/); // B retries and refuses
    release();
  });

  it("a start installs over the empty lock a crashed takeover left, and late removals by racers touch nothing", () => {
    const dir = stateDir();
    const lock = join(dir, "gateway.lock");
    const stale = String(deadPid());
    // Start C removed the stale owner's file and crashed before removing the directory: it is left empty.
    lockNaming(lock);
    const release = acquireStateLock(lock); // A
    // Starts that had read the stale owner, or found the directory empty, run their removals now.
    removeStaleLock(lock, [stale]);
    removeStaleLock(lock, []);
    expect(readdirSync(lock)).toEqual([String(process.pid)]);
    release();
  });

  it("clears a dead start's staging directory, and one of an earlier incarnation of this process", () => {
    const dir = stateDir();
    const lock = join(dir, "gateway.lock");
    const busy = spawn("sleep", ["600"]);
    try {
      for (const pid of [deadPid(), process.pid, busy.pid as number]) lockNaming(`${lock}.${pid}.tmp`, String(pid));
      const release = acquireStateLock(lock);
      // The live process's staging directory is its own business.
      expect(readdirSync(dir).sort()).toEqual(["gateway.lock", `gateway.lock.${busy.pid}.tmp`].sort());
      release();
    } finally {
      busy.kill();
    }
  });

  it("a file where the lock directory belongs is refused with a message, not taken", () => {
    const dir = stateDir();
    const lock = join(dir, "gateway.lock");
    writeFileSync(lock, "mine");
    expect(() => acquireStateLock(lock)).toThrow("exists and is not a lock directory");
    expect(readdirSync(dir)).toEqual(["gateway.lock"]);
  });

  it("a gateway of an earlier version (its gateway.pid naming a live process) makes a start refuse", () => {
    const dir = stateDir();
    const busy = spawn("sleep", ["600"]);
    try {
      writeFileSync(join(dir, "gateway.pid"), String(busy.pid));
      expect(() => createRffGateway({ stateDir: dir, models: ["a", "b"] })).toThrow(/earlier version/);
      expect(existsSync(join(dir, "gateway.lock"))).toBe(false);
    } finally {
      busy.kill();
    }
    writeFileSync(join(dir, "gateway.pid"), String(deadPid())); // a crashed one's: removed
    clearLegacyPidFile(join(dir, "gateway.pid"));
    expect(existsSync(join(dir, "gateway.pid"))).toBe(false);
  });

  it("eight starts at once on a crashed gateway's lock: exactly one holds it, the others refuse", async () => {
    const lock = join(stateDir(), "gateway.lock");
    lockNaming(lock, String(deadPid()));
    const src = join(here, "..", "dist", "index.js");
    // The holder keeps the lock until the test closes its stdin, once every start has answered: a holder that let go
    // after 2 s could exit before a start slowed by a loaded machine ran, which then rightly took over a dead owner's
    // lock (two "held").
    const script = `const { acquireStateLock } = await import(${JSON.stringify(src)});
      try {
        acquireStateLock(${JSON.stringify(lock)});
        console.log("held");
        process.stdin.resume();
        await new Promise((r) => process.stdin.once("end", r));
      } catch (e) { console.log(/in use|taking over/.test(e.message) ? "refused" : e.message); }`;
    const children = Array.from({ length: 8 }, () =>
      spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "inherit"] }),
    );
    const closed = children.map((child) => new Promise((r) => child.once("close", r)));
    const outputs = await Promise.all(
      children.map(
        (child) =>
          new Promise<string>((answered) => {
            let out = "";
            child.stdout.on("data", (b: Buffer) => {
              out += b.toString();
              if (out.includes("\n")) answered(out.trim());
            });
            child.once("close", () => answered(out.trim()));
          }),
      ),
    );
    for (const child of children) {
      child.stdin.on("error", () => {}); // a start that refused has exited already
      child.stdin.end();
    }
    await Promise.all(closed);
    expect(outputs.filter((o) => o === "held")).toHaveLength(1);
    expect(outputs.filter((o) => o === "refused")).toHaveLength(7);
  });
});
