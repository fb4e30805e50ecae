import type { Worker } from "node:worker_threads";
import { ErrorCode, RouteKitError } from "./errors.js";
import type { RunResult } from "./metrics.js";
import { optionKeys, rejectUnknownOptions } from "./option-keys.js";
import { readOptions } from "./options.js";
import { reportProgress } from "./progress.js";
import {
  checkExperiment,
  type Experiment,
  type ExperimentResult,
  type Progress,
  runExperiment,
  summarize,
} from "./runner.js";
import type { Json } from "./snapshot.js";
import { describe, errorText } from "./validate.js";

/**
 * What a worker needs to rebuild an experiment: functions cannot cross thread boundaries, so the
 * experiment is described by a module and a JSON spec instead.
 */
export interface ExperimentPlan {
  /**
   * Absolute path or `file:` URL (a string or a `URL` object) of an ES module exporting
   * `buildExperiment(spec: Json): Experiment | Promise<Experiment>`; for a module next to the caller's file,
   * `new URL("./experiment.mjs", import.meta.url)`. A relative path is INVALID_ARGUMENT: it would be read
   * against the process's current directory, not against the caller's file (as `import()` reads it).
   * It is imported once in the calling thread and once in every worker; it must build the same
   * experiment every time (same policies in the same order, same seeds and horizon).
   */
  readonly module: string | URL;
  /** Passed to `buildExperiment` (structured-cloned into each worker). */
  readonly spec: Json;
}

export interface WorkerRunOptions {
  /** Worker threads to use (default `os.availableParallelism()`); <= 1 runs in this thread. */
  readonly workers?: number;
  /** Called as rounds complete, with `done` over all runs (monotone, ends at `total`). */
  readonly onProgress?: (p: Progress) => void;
  /** Aborting terminates the workers and rejects with INVALID_STATE "experiment aborted". */
  readonly signal?: AbortSignal;
  /**
   * Absolute path or `file:` URL (string or `URL`) of the worker entry; by default `worker.js` (or `.cjs`) next to
   * this module's build. A relative path, another URL scheme or a file that does not exist is INVALID_ARGUMENT.
   */
  readonly workerEntry?: string | URL;
}

/** The keys of {@link WorkerRunOptions}. */
export const WORKER_RUN_OPTION_KEYS = optionKeys<WorkerRunOptions>()([
  "workers",
  "onProgress",
  "signal",
  "workerEntry",
]);

/** Messages from the worker entry (`src/worker.ts`) to the pool. */
export type WorkerMessage =
  | { readonly type: "ready" }
  | { readonly type: "progress"; readonly task: number; readonly done: number }
  | { readonly type: "result"; readonly task: number; readonly result: RunResult }
  | { readonly type: "error"; readonly task: number; readonly error: SerializedError };

/** Messages from the pool to a worker: a run to play, or "close" when the runs are over (see `closeWorker`). */
export type PoolMessage =
  | {
      readonly type: "run";
      readonly task: number;
      readonly policy: number;
      readonly seed: number;
    }
  | { readonly type: "close" };

/** How long a worker asked to close may take to exit on its own before it is terminated. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Ends a worker whose runs are over by letting its thread finish by itself: asked to close, it closes its port, its
 * event loop empties, and Node drains the isolate's background tasks (optimizing compiles) before disposing of it.
 * `terminate()` right after the last run could dispose of the isolate under such a compile, which now and then
 * aborted the whole process after a successful experiment, before its results were written (Node 20: "Assertion
 * failed: (data.first) != nullptr" in NodePlatform::ForIsolate, from the optimizing compiler's thread). A worker
 * still running after CLOSE_GRACE_MS is terminated.
 */
function closeWorker(w: Worker): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(() => {
      w.terminate().then(
        () => done(),
        () => done(),
      );
    }, CLOSE_GRACE_MS);
    w.once("exit", () => {
      clearTimeout(timer);
      done();
    });
    w.postMessage({ type: "close" } satisfies PoolMessage);
  });
}

/** Data handed to each worker at start. */
export interface WorkerInit {
  readonly module: string;
  readonly spec: Json;
  /** Int32Array over a SharedArrayBuffer; [0] becomes 1 on abort. */
  readonly abort: SharedArrayBuffer;
}

/** An error as it crosses the thread boundary. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly details?: Record<string, unknown>;
  readonly stack?: string;
}

const ERROR_CODES = new Set<string>(Object.values(ErrorCode));

/** Error -> plain object (RouteKitError code and details kept); duck-typed so that copies of core bundled apart still match. */
export function serializeError(e: unknown): SerializedError {
  if (e !== null && typeof e === "object") {
    const o = e as { name?: unknown; message?: unknown; code?: unknown; details?: unknown; stack?: unknown };
    let details: Record<string, unknown> | undefined;
    if (o.details !== null && typeof o.details === "object") {
      try {
        details = structuredClone(o.details) as Record<string, unknown>;
      } catch {
        details = undefined;
      }
    }
    return {
      name: typeof o.name === "string" ? o.name : "Error",
      message: typeof o.message === "string" ? o.message : String(e),
      code: typeof o.code === "string" ? o.code : undefined,
      details,
      stack: typeof o.stack === "string" ? o.stack : undefined,
    };
  }
  return { name: "Error", message: String(e) };
}

/** The inverse of {@link serializeError}: a RouteKitError when the code is one of ours, else an Error. */
export function deserializeError(s: SerializedError): Error {
  if (s.name === "RouteKitError" && s.code !== undefined && ERROR_CODES.has(s.code)) {
    return new RouteKitError(s.code as ErrorCode, s.message, s.details);
  }
  const err = new Error(s.message);
  err.name = s.name;
  if (s.stack) err.stack = s.stack;
  return err;
}

/**
 * Node built-ins, imported on first use: the rest of core runs anywhere (browsers, edge runtimes),
 * so its entry point must not import Node modules at load time.
 */
async function nodeApi() {
  const [fs, os, path, url, threads] = await Promise.all([
    import("node:fs"),
    import("node:os"),
    import("node:path"),
    import("node:url"),
    import("node:worker_threads"),
  ]);
  return { fs, os, path, url, threads };
}

/**
 * The `file:` URL of a module given as an absolute path, a `file:` URL string or a `URL` object. A relative path
 * (its message shows how to build an absolute one, e.g. `new URL("./${example}", import.meta.url)`), another URL
 * scheme (https:, data:, node:) or anything else is INVALID_ARGUMENT naming `what`.
 */
async function fileUrlOf(module: unknown, what: string, example: string): Promise<URL> {
  const expected = `an absolute path or a file: URL (string or URL object) of an ES module`;
  if (module instanceof URL) {
    if (module.protocol !== "file:") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be ${expected}, got the URL ${module.href}`);
    }
    return new URL(module.href);
  }
  if (typeof module !== "string" || module.length === 0) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be ${expected}, got ${describe(module)}`);
  }
  if (module.startsWith("file:")) {
    try {
      return new URL(module);
    } catch {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${what} ${describe(module)} is not a valid file: URL`);
    }
  }
  // Another URL scheme (https:, data:, node:) was read as a relative path ("<cwd>/https:/..."). Two or more letters,
  // so a Windows drive (C:\x) is still a path.
  if (/^[a-z][a-z0-9+.-]+:/i.test(module)) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be ${expected}, got ${describe(module)}`);
  }
  const { path, url } = await nodeApi();
  if (!path.isAbsolute(module)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} ${describe(module)} is a relative path: build an absolute one from your file's location, e.g. ` +
        `new URL("./${example}", import.meta.url) (a relative path would be read against the process's current ` +
        "directory, not your file's)",
    );
  }
  return url.pathToFileURL(module);
}

/** `file:` URL (href) of an experiment module: see {@link fileUrlOf} (INVALID_ARGUMENT naming plan.module). */
export async function moduleUrl(module: string | URL): Promise<string> {
  return (await fileUrlOf(module, "plan.module", "experiment.mjs")).href;
}

/** Imports a plan's module and builds its experiment (in the calling thread). */
export async function loadExperiment(plan: ExperimentPlan): Promise<Experiment> {
  const href = await moduleUrl(plan.module);
  const shown = plan.module instanceof URL ? plan.module.href : plan.module;
  let mod: { buildExperiment?: unknown };
  try {
    mod = (await import(href)) as { buildExperiment?: unknown };
  } catch (e) {
    // A module that is not there or does not load (Node's ERR_MODULE_NOT_FOUND, a SyntaxError) is a bad plan, typed.
    if (e instanceof RouteKitError) throw e;
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `plan.module ${describe(shown)} could not be imported: ${errorText(e)}`,
    );
  }
  if (typeof mod.buildExperiment !== "function") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${shown} must export a function buildExperiment(spec) returning an Experiment`,
    );
  }
  return (await mod.buildExperiment(plan.spec)) as Experiment;
}

/**
 * The worker entry shipped with the build: `worker.js` (ESM) or `worker.cjs` next to the bundle,
 * or `../dist/worker.js` when this file runs from source (tests).
 */
export async function defaultWorkerEntry(): Promise<URL> {
  const { fs, url } = await nodeApi();
  const here = import.meta.url;
  const ext = here.endsWith(".cjs") ? ".cjs" : ".js";
  const candidates = [new URL(`./worker${ext}`, here), new URL("../dist/worker.js", here)];
  for (const c of candidates) if (fs.existsSync(url.fileURLToPath(c))) return c;
  throw new RouteKitError(
    ErrorCode.InvalidState,
    `cannot find the worker entry (looked for ${candidates.map((c) => url.fileURLToPath(c)).join(", ")}); build @routekit/core first`,
  );
}

function abortError(): RouteKitError {
  return new RouteKitError(ErrorCode.InvalidState, "experiment aborted");
}

/**
 * Plays every policy on every seed like {@link runExperiment}, spreading the policy x seed runs
 * over a pool of worker threads. Each worker imports `plan.module` and calls
 * `buildExperiment(plan.spec)` once, then plays the runs it is handed with `runOne`.
 *
 * Results come back in `runExperiment`'s order (policy-major, then seeds) with identical series
 * but for wall times. A failing run rejects the promise with the original RouteKitError code and
 * message, and stops the other workers.
 */
export async function runExperimentInWorkers(
  plan: ExperimentPlan,
  options: WorkerRunOptions = {},
): Promise<ExperimentResult> {
  rejectUnknownOptions(options, WORKER_RUN_OPTION_KEYS, "runExperimentInWorkers");
  // Read once, a getter that throws INVALID_ARGUMENT naming the option (it escaped as its own Error).
  const o = readOptions(options, "runExperimentInWorkers");
  const opts: WorkerRunOptions = {
    onProgress: o.onProgress as WorkerRunOptions["onProgress"],
    signal: o.signal as WorkerRunOptions["signal"],
    workers: o.workers as WorkerRunOptions["workers"],
    workerEntry: o.workerEntry as WorkerRunOptions["workerEntry"],
  };
  if (plan === null || typeof plan !== "object") {
    throw new RouteKitError(ErrorCode.InvalidArgument, "plan must be { module, spec }");
  }
  const url = await moduleUrl(plan.module);
  const node = await nodeApi();
  let entry: URL | undefined;
  if (opts.workerEntry !== undefined) {
    entry = await fileUrlOf(opts.workerEntry, "workerEntry", "worker.js");
    if (!node.fs.existsSync(node.url.fileURLToPath(entry))) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `workerEntry ${node.url.fileURLToPath(entry)} does not exist (omit workerEntry to use core's own)`,
      );
    }
  }
  const requested = opts.workers ?? node.os.availableParallelism();
  if (!Number.isInteger(requested) && requested !== Number.POSITIVE_INFINITY) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `workers must be an integer, got ${describe(requested)}`);
  }
  if (opts.signal?.aborted) throw abortError();
  const exp = await loadExperiment({ module: url, spec: plan.spec });
  checkExperiment(exp); // the same checks as runExperiment, before any thread starts
  if (opts.signal?.aborted) throw abortError();

  const tasks: { policy: number; seed: number; label: string }[] = [];
  for (let p = 0; p < exp.policies.length; p++) {
    for (const seed of exp.seeds) tasks.push({ policy: p, seed, label: exp.policies[p]?.label ?? "" });
  }
  const poolSize = Math.min(requested, tasks.length);
  if (poolSize <= 1) {
    return runExperiment(exp, { onProgress: opts.onProgress, signal: opts.signal });
  }
  const environment = exp.environmentName ?? exp.environment().name;
  return runPool(
    node.threads.Worker,
    url,
    plan.spec,
    tasks,
    poolSize,
    exp,
    environment,
    entry ?? (await defaultWorkerEntry()),
    opts,
  );
}

function runPool(
  WorkerClass: typeof Worker,
  url: string,
  spec: Json,
  tasks: readonly { policy: number; seed: number; label: string }[],
  poolSize: number,
  exp: Experiment,
  environment: string,
  entry: URL,
  options: WorkerRunOptions,
): Promise<ExperimentResult> {
  const horizon = exp.horizon;
  const runsTotal = tasks.length;
  const total = runsTotal * horizon;
  const abortBuf = new SharedArrayBuffer(4);
  const abortFlag = new Int32Array(abortBuf);
  const init: WorkerInit = { module: url, spec, abort: abortBuf };
  const results: (RunResult | undefined)[] = new Array(runsTotal).fill(undefined);
  const doneByTask = new Float64Array(runsTotal);
  let done = 0;
  let runsDone = 0;
  let nextTask = 0;
  const workers: Worker[] = [];

  return new Promise<ExperimentResult>((resolvePromise, rejectPromise) => {
    let settled = false;
    const finish = (err: Error | undefined, value?: ExperimentResult) => {
      if (settled) return;
      settled = true;
      Atomics.store(abortFlag, 0, 1);
      options.signal?.removeEventListener("abort", onAbort);
      // A failed or aborted experiment stops its workers at once; a finished one lets them exit by themselves.
      const settle = () => (err ? rejectPromise(err) : resolvePromise(value as ExperimentResult));
      Promise.all(workers.map((w) => (err ? w.terminate() : closeWorker(w)))).then(settle, settle);
    };
    const onAbort = () => finish(abortError());
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const dispatch = (w: Worker) => {
      if (nextTask >= runsTotal) return;
      const task = nextTask++;
      const t = tasks[task] as { policy: number; seed: number };
      const msg: PoolMessage = { type: "run", task, policy: t.policy, seed: t.seed };
      w.postMessage(msg);
    };

    const onMessage = (w: Worker, m: WorkerMessage) => {
      if (settled) return;
      if (m.type === "ready") {
        dispatch(w);
      } else if (m.type === "progress") {
        const prev = doneByTask[m.task] as number;
        if (m.done <= prev) return;
        done += m.done - prev;
        doneByTask[m.task] = m.done;
        const t = tasks[m.task] as { seed: number; label: string };
        // A throwing onProgress rejects the experiment (INVALID_ARGUMENT, the original as cause) and stops the
        // pool, as in runExperiment; thrown here it escaped the message handler as an uncaught exception.
        try {
          reportProgress(options.onProgress, { done, total, policy: t.label, seed: t.seed, runsDone, runsTotal });
        } catch (e) {
          finish(e as Error);
          return;
        }
      } else if (m.type === "result") {
        results[m.task] = m.result;
        runsDone++;
        if (runsDone === runsTotal) {
          const runs = results as RunResult[];
          finish(undefined, { protocol: exp.protocol, environment, horizon, runs, summary: summarize(runs) });
        } else {
          dispatch(w);
        }
      } else if (m.type === "error") {
        finish(deserializeError(m.error));
      }
    };

    for (let i = 0; i < poolSize; i++) {
      const w = new WorkerClass(entry, { workerData: init });
      workers.push(w);
      w.on("message", (m: WorkerMessage) => onMessage(w, m));
      w.on("error", (e) => finish(e instanceof Error ? e : new Error(String(e))));
      w.on("exit", (code) => {
        if (!settled) finish(new Error(`worker thread exited with code ${code} before the experiment finished`));
      });
    }
  });
}
