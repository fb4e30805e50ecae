import { linkSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { readTextIfExists } from "./snapshot-file.js";

/** Lock files this process holds: its own pid in a pid file means a live lock only if it is in here. */
const held = new Set<string>();

/**
 * One gateway process per state directory: two would interleave their logs and overwrite each other's
 * snapshots. The lock is a pid file created exclusively; one whose process is gone (a crash) is taken
 * over. Taking over is itself exclusive (a `<lock>.takeover` file, see {@link takeOver}), so two starts
 * finding the same stale pid file cannot both end up holding the lock.
 */
export function acquireStateLock(path: string): () => void {
  const key = resolve(path);
  for (let attempt = 0; ; attempt++) {
    if (createExclusive(path)) break;
    const pid = readPid(path);
    if (pid === undefined) continue; // removed since the create failed: try again
    if (isLive(pid, key)) throw new Error(`${path}: the state directory is in use by process ${pid}`);
    // A stale lock; after a few rounds lost to other starts, report it as busy rather than spin.
    if (attempt >= 8) throw new Error(`${path}: another process is taking over the state directory`);
    takeOver(path, pid);
  }
  held.add(key);
  return () => {
    held.delete(key);
    rmSync(path, { force: true });
  };
}

/**
 * Removes the pid file if it still names the stale `pid`, holding `<path>.takeover` meanwhile: a second
 * start that read the same stale pid waits its turn, then finds the file changed and leaves it alone.
 * Without it, that start could remove the lock the first one had just created.
 */
export function takeOver(path: string, stale: number): void {
  const guard = `${path}.takeover`;
  if (!createExclusive(guard)) {
    const owner = readPid(guard);
    if (owner === undefined) return; // that takeover just ended: look at the lock again
    if (isLive(owner, "")) throw new Error(`${path}: another process (${owner}) is taking over the state directory`);
    // Left by a start that crashed within its takeover (microseconds long). Removing it is check-then-act,
    // so only a second fault (starts racing on such a leftover) could still let two starts in.
    rmSync(guard, { force: true });
    return;
  }
  try {
    if (readPid(path) === stale) rmSync(path, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

/**
 * Creates `path` holding this process's pid; false if it exists. The pid is written to a file of its own
 * first and hard-linked into place, so the lock file never exists empty: a start reading it between
 * another's create and write would take it for stale.
 */
function createExclusive(path: string): boolean {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, String(process.pid));
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** The pid in a lock file; undefined if it is gone. A file without a valid pid reads as 0 (stale). */
function readPid(path: string): number | undefined {
  const text = readTextIfExists(path);
  if (text === undefined) return undefined;
  const pid = Number(text);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
}

/** Whether a lock file naming `pid` belongs to a running process other than a dead earlier incarnation of this one. */
function isLive(pid: number, key: string): boolean {
  if (pid === 0) return false;
  // Our own pid, not held by us: a previous incarnation with the same pid (a container's pid 1, restarted
  // after a kill -9). Treating it as alive would refuse every restart.
  if (pid === process.pid) return held.has(key);
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else, so it is alive.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
