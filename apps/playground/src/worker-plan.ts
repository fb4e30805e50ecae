/**
 * Worker-thread entry for `runExperimentInWorkers`: each worker imports this module and rebuilds the experiment
 * from the JSON spec with the full registry.
 */
import type { Experiment, Json } from "@routekit/core";
import { registry } from "./registry/index.js";
import { buildExperimentFrom, type RunSpec } from "./spec.js";

export function buildExperiment(spec: Json): Experiment {
  return buildExperimentFrom(registry, spec as unknown as RunSpec);
}
