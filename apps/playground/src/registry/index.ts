import { classicRegistry } from "./classic.js";
import { hpgRegistry } from "./hpg.js";
import { kernelucbRegistry } from "./kernel-ucb.js";
import { mnlRegistry } from "./mnl.js";
import { pandoraRegistry } from "./pandora.js";
import { replayRegistry } from "./replay.js";
import { stagerouteRegistry } from "./stageroute.js";
import type { EnvironmentEntry, FamilyRegistry, PolicyEntry, ScenarioEntry } from "./types.js";

export * from "./types.js";

const families: readonly FamilyRegistry[] = [
  classicRegistry,
  kernelucbRegistry,
  mnlRegistry,
  replayRegistry,
  hpgRegistry,
  pandoraRegistry,
  stagerouteRegistry,
];

export const policies: readonly PolicyEntry[] = families.flatMap((f) => f.policies);
export const environments: readonly EnvironmentEntry[] = families.flatMap((f) => f.environments);
export const scenarios: readonly ScenarioEntry[] = families.flatMap((f) => f.scenarios);

/** Everything registered, as one FamilyRegistry (the CLI's default; tests may pass their own). */
export const registry: FamilyRegistry = { policies, environments, scenarios };
