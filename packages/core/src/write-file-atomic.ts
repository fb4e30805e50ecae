import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface WriteFileAtomicOptions {
  /**
   * Flush the file, then its directory entry, to disk before returning (default false). Without it a crash
   * of the process still never leaves half a file, but a power cut may lose the newest version.
   */
  fsync?: boolean;
}

let tmpCounter = 0;

/** A temporary name beside `path` (same directory, so the rename stays on one file system), unique per call. */
function tmpPath(path: string): string {
  tmpCounter = (tmpCounter + 1) % Number.MAX_SAFE_INTEGER;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${tmpCounter}.tmp`);
}

// Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
function fsyncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `data` to `path` so that a reader, or the next start after a crash or Ctrl-C, sees either the whole
 * previous file or the whole new one, never a mix: the data goes to a temporary file beside `path`, which is
 * then renamed over it. Concurrent writers of one path each write their own temporary file; the last rename wins.
 * On failure the temporary file is removed and `path` is untouched.
 */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): void {
  const tmp = tmpPath(path);
  try {
    const fd = openSync(tmp, "wx");
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  if (options.fsync) fsyncDirSync(dirname(path));
}

/** {@link writeFileAtomicSync} without blocking the event loop. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const tmp = tmpPath(path);
  try {
    const handle = await open(tmp, "wx");
    try {
      await handle.writeFile(data);
      if (options.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  if (options.fsync) fsyncDirSync(dirname(path));
}
