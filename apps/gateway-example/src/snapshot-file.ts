import { readFileSync } from "node:fs";
import { type WriteFileAtomicOptions, writeFileAtomic, writeFileAtomicSync } from "@routekit/core/node";

/**
 * The gateway's snapshot file: the policy's own snapshot plus what a restart needs to continue the event
 * log exactly and to tell which earlier decision ids are still good (see `Lineage`).
 */
export interface GatewaySnapshot {
  v: 1;
  /** Bytes of the event log the policy state includes; a restart learns the lines after it. */
  logOffset: number;
  lineage: Lineage[];
  policy: unknown;
  /**
   * Written by a clean stop (`close()`), after which nothing is appended: the log may then be archived
   * (moved away) and the next start begins a new one.
   */
  clean?: true;
}

/**
 * Decisions a run issued that the snapshot's state holds: run `run` issued the policy's sequence
 * numbers [from, to). A decision a run made after its last snapshot is lost when it crashes, and the
 * restored policy reuses those sequence numbers; the run prefix in public ids keeps the two apart.
 */
export interface Lineage {
  run: string;
  from: number;
  to: number;
}

export function readSnapshotFile(path: string): GatewaySnapshot | undefined {
  const text = readTextIfExists(path);
  if (text === undefined) return undefined;
  const snap = JSON.parse(text) as GatewaySnapshot;
  if (snap?.v !== 1 || !Number.isSafeInteger(snap.logOffset) || !Array.isArray(snap.lineage)) {
    throw new Error(`${path} is not a gateway snapshot (v 1)`);
  }
  return snap;
}

/**
 * Written through a temporary file renamed over the old one: a crash mid-write leaves the previous snapshot,
 * never half of one. With `fsync` the file and the directory entry are on the disk when it resolves.
 */
export function writeSnapshotFile(
  path: string,
  snap: GatewaySnapshot,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  return writeFileAtomic(path, JSON.stringify(snap), options);
}

/** The same, synchronously: for the snapshot a start writes before it serves its first request. */
export function writeSnapshotFileSync(path: string, snap: GatewaySnapshot, options: WriteFileAtomicOptions = {}): void {
  writeFileAtomicSync(path, JSON.stringify(snap), options);
}

/** A file's text, or undefined when there is no such file (other errors are thrown). */
export function readTextIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}
