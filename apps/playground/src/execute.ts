import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type ExperimentResult, type Progress, runExperiment } from "@routekit/core";
import { runExperimentInWorkers } from "@routekit/core/node";
import { registry as defaultRegistry } from "./registry/index.js";
import type { FamilyRegistry } from "./registry/types.js";
import { buildExperimentFrom, prepareSpec, type RunSpec, resolveSpec, specToJson } from "./spec.js";

export interface ExecuteOptions {
  /** Worker threads (default: the number of cores); 1 runs in this thread. */
  readonly workers?: number;
  readonly onProgress?: (p: Progress) => void;
  readonly signal?: AbortSignal;
  /** Registry to resolve names in (default: everything registered). A custom registry always runs in-process. */
  readonly registry?: FamilyRegistry;
}

/** The built worker-plan module next to this file (dist), or undefined when running from source. */
function workerPlanModule(): string | undefined {
  const here = import.meta.url;
  const ext = here.endsWith(".cjs") ? ".cjs" : ".js";
  if (!here.includes("/dist/")) return undefined;
  const url = new URL(`./worker-plan${ext === ".cjs" ? ".js" : ext}`, here);
  return existsSync(fileURLToPath(url)) ? fileURLToPath(url) : undefined;
}

/**
 * Runs a spec: seeds (and policies) in parallel worker threads through core's `runExperimentInWorkers`, or in this
 * thread when workers <= 1, when a custom registry is given, or when running from source (no built worker plan).
 */
export async function execute(spec: RunSpec, options: ExecuteOptions = {}): Promise<ExperimentResult> {
  const reg = options.registry ?? defaultRegistry;
  // Names, parameters and protocols are checked here, before any thread starts; data problems (e.g. a bad replay
  // file) surface when the experiment is built, in this thread, before any worker starts either.
  resolveSpec(reg, spec);
  // Policies' asynchronous preparation (e.g. loading HiGHS) in this thread; each worker does its own (worker-plan.ts).
  await prepareSpec(reg, spec);
  const workers = Math.max(1, options.workers ?? availableParallelism());
  const module = options.registry ? undefined : workerPlanModule();
  if (workers <= 1 || module === undefined) {
    const exp = buildExperimentFrom(reg, spec);
    await new Promise((r) => setImmediate(r));
    return runExperiment(exp, { onProgress: options.onProgress, signal: options.signal });
  }
  // Parameter values are checked by building the experiment once here (environment and every policy), so a bad
  // value is a usage error (exit 2) before any worker starts.
  buildExperimentFrom(reg, spec);
  return runExperimentInWorkers(
    { module, spec: specToJson(spec) },
    { workers, onProgress: options.onProgress, signal: options.signal },
  );
}
