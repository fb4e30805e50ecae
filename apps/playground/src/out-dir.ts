/** The output directory: checked before a run starts, so a bad `--out` fails at once with a one-line message. */
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { METRICS } from "./aggregate.js";
import { CliFailure } from "./errors.js";

/** Throws a CliFailure unless `dir` is, or can be created as, a writable directory (creates nothing). */
export function checkOutDir(dir: string): void {
  let p = resolve(dir);
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const up = dirname(p);
      if ((code === "ENOENT" || code === "ENOTDIR") && up !== p) {
        p = up;
        continue;
      }
      throw new CliFailure(`cannot write outputs to ${dir}: ${p}: ${code ?? String(e)}`);
    }
    if (!isDir) throw new CliFailure(`cannot write outputs to ${dir}: ${p} is a file, not a directory`);
    try {
      accessSync(p, constants.W_OK);
    } catch {
      throw new CliFailure(`cannot write outputs to ${dir}: ${p} is not writable`);
    }
    return;
  }
}

/** Creates `dir` (and its parents) after {@link checkOutDir}; returns its absolute path. */
export function ensureOutDir(dir: string): string {
  checkOutDir(dir);
  const abs = resolve(dir);
  try {
    mkdirSync(abs, { recursive: true });
  } catch (e) {
    throw new CliFailure(`cannot write outputs to ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return abs;
}

/** Every file name a scenario or compare run may write (the README's output table), its results file first. */
export const RUN_OUTPUT_FILES: readonly string[] = [
  "results.json",
  "summary.csv",
  "runs.csv",
  "series.csv",
  "pick-share.csv",
  "references.csv",
  "report.html",
  ...["panel", "pick-share", "pick-share-rounds", ...METRICS].flatMap((n) => [`${n}.svg`, `${n}.png`]),
];

/** Every file name a group run may write into its own directory (members write into subdirectories), group.json first. */
export const GROUP_OUTPUT_FILES: readonly string[] = [
  "group.json",
  "summary.csv",
  "series.csv",
  "references.csv",
  "references.md",
  "figure.svg",
  "figure.png",
  "report.html",
];

/** Whether `dir` holds a RouteKit results file `marker` (JSON with `spec` or `members`). */
function holdsRun(dir: string, marker: string): boolean {
  let previous: unknown;
  try {
    previous = JSON.parse(readFileSync(join(dir, marker), "utf8"));
  } catch {
    return false; // no previous run here (or not ours)
  }
  return previous !== null && typeof previous === "object" && ("spec" in previous || "members" in previous);
}

/**
 * Removes the files a previous RouteKit run left in `dir`, so that a run into an existing output directory never
 * leaves another run's report, plots or reference checks beside its own results (`--no-plots` kept the old
 * report.html and its numbers; a run without costs kept cost.png). A previous run of either kind counts: a group
 * run into a scenario's directory kept its results.json and plots, and a scenario run into a group's directory kept
 * group.json and figure.svg. Only a directory that holds a RouteKit results file (results.json or group.json) is
 * cleaned, and only that kind's file names; a group's member subdirectories are left alone.
 */
export function removeStaleOutputs(dir: string): void {
  for (const names of [RUN_OUTPUT_FILES, GROUP_OUTPUT_FILES]) {
    if (!holdsRun(dir, names[0] as string)) continue;
    for (const name of names) {
      const p = join(dir, name);
      try {
        if (statSync(p).isFile()) rmSync(p);
      } catch {
        // absent
      }
    }
  }
}

/** The signals that end a command run from a terminal or a supervisor. */
const TERMINATION_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Runs `write` (a sequence of `writeFileAtomicSync` calls, with awaits between them) so that a termination signal
 * never ends the process inside one of those synchronous writes: without a listener, a signal kills the process at
 * once, also halfway through writing a file's temporary copy, which then stayed beside the outputs (a Ctrl-C while a
 * 50 MB results.json was written left `.results.json.<pid>.1.tmp`). A listener only runs on the event loop, so
 * between two files; there it removes itself and raises the signal again, which ends the process by the signal as
 * before (exit status 128 + n). Signals that already have a listener (a program embedding the API) are left alone.
 */
export async function withSignalsBetweenWrites<T>(write: () => Promise<T>): Promise<T> {
  const held = TERMINATION_SIGNALS.filter((s) => process.listenerCount(s) === 0);
  const release = () => {
    for (const s of held) process.removeListener(s, onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    release();
    process.kill(process.pid, signal);
  }
  for (const s of held) process.on(s, onSignal);
  try {
    return await write();
  } finally {
    // A signal that arrived during the last synchronous write is dispatched on a later turn of the event loop:
    // give it those turns while the listener is still there, or it would be consumed by no one.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    release();
  }
}

/**
 * Writes a run's outputs into `dir` ({@link withSignalsBetweenWrites}); a file system error on the way (a directory
 * where a file goes, a full disk) is a CliFailure naming the directory (exit 1), not an unexpected error that asks for
 * a stack trace as if RouteKit had a bug.
 */
export async function writeRunOutputs<T>(dir: string, write: () => Promise<T>): Promise<T> {
  try {
    return await withSignalsBetweenWrites(write);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (e instanceof Error && typeof code === "string" && /^E[A-Z]+$/.test(code)) {
      throw new CliFailure(`cannot write outputs to ${dir}: ${e.message}`, { cause: e });
    }
    throw e;
  }
}
