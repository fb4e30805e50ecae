import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

/** Lock files this process holds: its own pid in a pid file means a live lock only if it is in here. */
const held = new Set<string>();

/**
 * One gateway process per state directory: two would interleave their logs and overwrite each other's
 * snapshots. The lock is a pid file; one whose process is gone (a crash) is taken over.
 */
export function acquireStateLock(path: string): () => void {
  const key = resolve(path);
  try {
    writeFileSync(path, String(process.pid), { flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const pid = Number(readFileSync(path, "utf8"));
    // Our own pid, not held by us: a previous incarnation with the same pid (a container's pid 1, restarted
    // after a kill -9). Treating it as alive would refuse every restart.
    const ours = pid === process.pid && !held.has(key);
    if (Number.isSafeInteger(pid) && pid > 0 && !ours && isAlive(pid)) {
      throw new Error(`${path}: the state directory is in use by process ${pid}`);
    }
    writeFileSync(path, String(process.pid));
  }
  held.add(key);
  return () => {
    held.delete(key);
    rmSync(path, { force: true });
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else, so it is alive.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
