import { readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * One gateway process per state directory: two would interleave their logs and overwrite each other's
 * snapshots. The lock is a pid file; one whose process is gone (a crash) is taken over.
 */
export function acquireStateLock(path: string): () => void {
  try {
    writeFileSync(path, String(process.pid), { flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const pid = Number(readFileSync(path, "utf8"));
    if (Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new Error(`${path}: the state directory is in use by process ${pid}`);
    }
    writeFileSync(path, String(process.pid));
  }
  return () => rmSync(path, { force: true });
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
