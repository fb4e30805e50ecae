import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readTextIfExists } from "./snapshot-file.js";

/** Lock directories this process holds: its own pid in a lock means a live lock only if it is in here. */
const held = new Set<string>();

/**
 * One gateway process per state directory: two would interleave their logs and overwrite each other's
 * snapshots. The lock is a directory holding one empty file named after its owner's pid.
 *
 * No step checks and then acts, so of any number of starts racing on a crashed gateway's lock exactly one
 * ends up holding it, whatever else crashes meanwhile:
 * - a start builds its lock under a name of its own and renames it into place, and rename(2) replaces a
 *   directory only when that one is empty: it can never install itself over a live owner;
 * - a stale owner (its process is gone) is removed by unlinking the file named after it, which cannot hit a
 *   newer owner's file, then the directory with rmdir(2), which removes only an empty one;
 * - a crash in between leaves an empty directory, which the next start's rename replaces.
 */
export function acquireStateLock(path: string): () => void {
  const key = resolve(path);
  const me = String(process.pid);
  const staging = `${path}.${me}.tmp`;
  removeDeadStaging(path);
  mkdirSync(staging);
  writeFileSync(join(staging, me), "");
  try {
    for (let attempt = 0; !install(staging, path); attempt++) {
      const entries = entriesOf(path);
      if (entries === undefined) continue; // removed since the rename failed: try again
      const live = entries.map(pidOf).find((pid) => isLive(pid, key));
      if (live !== undefined) throw new Error(`${path}: the state directory is in use by process ${live}`);
      // Stale; after a few rounds lost to other starts, report it as busy rather than spin.
      if (attempt >= 8) throw new Error(`${path}: another process is taking over the state directory`);
      removeStaleLock(path, entries);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  held.add(key);
  return () => {
    held.delete(key);
    removeStaleLock(path, [me]);
  };
}

/**
 * Removes the given entries (stale owners' pids) from the lock directory, then the directory if that left it
 * empty. Safe against any interleaving: it removes only entries with these names, and only an empty directory,
 * so a lock another start installed in the meantime stays as it is.
 */
export function removeStaleLock(path: string, entries: readonly string[]): void {
  for (const entry of entries) ignoring(["ENOTDIR"], () => rmSync(join(path, entry), { recursive: true, force: true }));
  ignoring(["ENOENT", "ENOTEMPTY", "EEXIST", "ENOTDIR"], () => rmdirSync(path));
}

/**
 * Removes the staging directories (`<lock>.<pid>.tmp`) of starts that died between building their lock and
 * renaming it into place, and one of an earlier incarnation of this process (a container's pid 1 after a
 * kill -9). A staging directory belongs to its pid alone, so removing a dead one races with nothing.
 */
function removeDeadStaging(path: string): void {
  const prefix = `${basename(path)}.`;
  for (const name of entriesOf(dirname(path)) ?? []) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    const pid = pidOf(name.slice(prefix.length, -".tmp".length));
    if (pid === process.pid || !isLive(pid, "")) rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}

/** Renames the staged lock into place; false when a lock directory with an owner is there. */
function install(staging: string, path: string): boolean {
  try {
    renameSync(staging, path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTEMPTY / EEXIST: a lock with an owner; EPERM / EACCES: how Windows refuses to replace any directory.
    if (code === "ENOTEMPTY" || code === "EEXIST" || code === "EPERM" || code === "EACCES") return false;
    if (code === "ENOTDIR") throw new Error(`${path} exists and is not a lock directory: remove it`);
    throw e;
  }
}

/** The entries of a lock directory (its owners' pids; none when a start or a release crashed half-way); undefined if it is gone. */
function entriesOf(path: string): string[] | undefined {
  try {
    return readdirSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The pid an entry names; 0 (a stale owner) for an entry that is not a pid, which should not be there. */
function pidOf(entry: string): number {
  const pid = Number(entry);
  return String(pid) === entry && Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
}

function ignoring(codes: readonly string[], action: () => void): void {
  try {
    action();
  } catch (e) {
    if (!codes.includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
  }
}

/**
 * Refuses to start while a gateway of an earlier version, which locked the state directory with a pid file
 * (`gateway.pid`), runs on it; removes that file when its process is gone.
 */
export function clearLegacyPidFile(path: string): void {
  const text = readTextIfExists(path);
  if (text === undefined) return;
  const pid = Number(text);
  if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isLive(pid, "")) {
    throw new Error(`${path}: the state directory is in use by process ${pid} (a gateway of an earlier version)`);
  }
  rmSync(path, { force: true });
}

/** Whether a lock naming `pid` belongs to a running process other than a dead earlier incarnation of this one. */
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
