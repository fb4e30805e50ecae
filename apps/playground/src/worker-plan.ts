/**
 * Worker-thread entry for `runExperimentInWorkers`: each worker imports this module and rebuilds the experiment
 * from the JSON spec with the full registry, after the policies' asynchronous preparation (e.g. loading HiGHS).
 */
import type { Experiment, Json } from "@routekit/core";
import { registry } from "./registry/index.js";
import { buildExperimentFrom, prepareSpec, type RunSpec } from "./spec.js";

export async function buildExperiment(spec: Json): Promise<Experiment> {
  await prepareSpec(registry, spec as unknown as RunSpec);
  return buildExperimentFrom(registry, spec as unknown as RunSpec);
}
