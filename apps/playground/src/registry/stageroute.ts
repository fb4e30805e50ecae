import { ErrorCode, RouteKitError } from "@routekit/core";
import {
  arenaSim2025,
  batchSwitch,
  routerBenchSurrogate,
  StagedCostBandit,
  stationaryInstance,
} from "@routekit/environments";
import {
  RatioGreedy,
  STAGE_PRESETS,
  StageOracle,
  type StageRestoreOptions,
  StageRoute,
  type StageRouteOptions,
  stageValue,
} from "@routekit/stageroute";
import { type ExternalDeploySolver, highsDeploySolver } from "@routekit/stageroute/highs";
import { numberText } from "../number-text.js";
import type { EnvInfo, FamilyRegistry, Params, PolicyEntry, ScenarioEntry } from "./types.js";

const FAMILY = "@routekit/stageroute";
const PAPER = "002 (Li & Li, Keeping Up with the Models)";

/** A number parameter, or the environment's value when "env". */
function fromEnv(v: unknown, envValue: number | undefined, what: string): number {
  if (v === "env") {
    if (envValue === undefined) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `${what}=env needs a stage environment (arena-sim-2025, routerbench-surrogate, ...); give a number`,
      );
    }
    return envValue;
  }
  return numberParam(v, what, '"env"');
}

/**
 * A number parameter given as a string (or a number): a blank value or one that is no number is refused naming
 * what was typed (Number("") would be 0, Number("none") NaN), `or` the words it may also be.
 */
function numberParam(v: unknown, what: string, or: string, infinite = false): number {
  const x = numberText(v, infinite);
  if (Number.isNaN(x)) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be a number or ${or}, got "${String(v)}"`);
  }
  return x;
}

/** The values of the parameter deploySolver. */
const DEPLOY_SOLVERS = ["builtin", "highs"] as const;

/**
 * HiGHS's DeployOPT solver, loaded by {@link prepareStage} (asynchronously, once per process or worker thread) for
 * the synchronous factories; undefined until then.
 */
let highs: ExternalDeploySolver | undefined;

/** `prepare` of the stage policies: loads HiGHS when deploySolver is "highs" (MISSING_DEPENDENCY without it). */
async function prepareStage(p: Params): Promise<void> {
  if (p.deploySolver === "highs") highs ??= await highsDeploySolver();
}

/**
 * `restoreOptions` of the stage policies: a snapshot whose configuration names HiGHS restores with HiGHS loaded
 * again (fromJSON requires the solver the snapshot was made with); any other snapshot needs nothing.
 */
async function restoreStage(snapshot: unknown): Promise<unknown> {
  const state = (snapshot as { state?: { config?: { deploySolver?: unknown } } } | null)?.state;
  if (state?.config?.deploySolver !== "highs") return undefined;
  highs ??= await highsDeploySolver();
  return { deploySolver: highs };
}

/** The `deploySolver` option of a parameter value: none for "builtin", HiGHS (loaded by prepare) for "highs". */
function deploySolver(v: unknown): { deploySolver?: ExternalDeploySolver } {
  if (v === "builtin") return {};
  if (v !== "highs") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `deploySolver must be one of ${DEPLOY_SOLVERS.join(", ")}, got "${String(v)}"`,
    );
  }
  if (highs === undefined) {
    throw new RouteKitError(
      ErrorCode.InvalidState,
      "deploySolver=highs needs HiGHS loaded first: await prepareSpec(registry, spec) (or the entry's prepare(params)) before building the policy, as the CLI does",
    );
  }
  return { deploySolver: highs };
}

/** The options every stage policy gets from its parameters and the environment. */
function stageOptions(p: Params, info: EnvInfo, policy: string): StageRouteOptions {
  if (info.protocol !== "arm" || info.dim !== 0) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${policy} plays context-free arm environments`);
  }
  const env = info.env instanceof StagedCostBandit ? info.env : undefined;
  const preset = String(p.preset);
  // Own keys only: "toString", "constructor" or "__proto__" name no preset.
  if (preset !== "library" && !Object.hasOwn(STAGE_PRESETS, preset)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `preset must be "library" or "arena2025-paper", got "${preset}"`,
    );
  }
  const base = preset === "library" ? {} : STAGE_PRESETS[preset as keyof typeof STAGE_PRESETS];
  const costUnit =
    p.costUnit === "preset"
      ? undefined
      : p.costUnit === "budget"
        ? "budget"
        : numberParam(p.costUnit, "costUnit", '"budget" or "preset"');
  const mode = String(p.budgetMode) as "average" | "paced";
  return {
    ...base,
    arms: info.arms,
    budget: fromEnv(p.budget, env?.budget, "budget"),
    maxDeployed: fromEnv(p.maxDeployed, env?.maxDeployed, "maxDeployed"),
    stageLength: fromEnv(p.stageLength, env?.stageLength, "stageLength"),
    ...(env ? { maxShare: env.maxShares } : {}),
    exploration: Number(p.exploration),
    minCost: fromEnv(p.minCost, env?.minCost, "minCost"),
    ...(p.maxCost === "env" && env && Number.isFinite(env.maxCost) ? { maxCost: env.maxCost } : {}),
    ...(p.maxCost !== "env" ? { maxCost: numberParam(p.maxCost, "maxCost", '"env"', true) } : {}),
    ...(costUnit === undefined ? {} : { costUnit }),
    initialPulls: Number(p.initialPulls),
    fillSlots: p.fillSlots === true || p.fillSlots === "true",
    tieBreak: String(p.tieBreak) as "random" | "index",
    estimator: String(p.estimator) as "mean" | "shrunk",
    budgetMode: mode,
    ...(mode === "paced" ? { horizon: info.horizon } : {}),
    ...(p.searchNodeLimit === "none"
      ? {}
      : { searchNodeLimit: numberParam(p.searchNodeLimit, "searchNodeLimit", '"none"') }),
    ...(p.enumLimit === undefined ? {} : { enumLimit: Number(p.enumLimit) }),
    ...(p.deploySolver === undefined ? {} : deploySolver(p.deploySolver)),
  };
}

const stageDefaults: Params = {
  preset: "library",
  budget: "env",
  maxDeployed: "env",
  stageLength: "env",
  exploration: 0.2,
  minCost: "env",
  maxCost: "env",
  costUnit: "preset",
  initialPulls: 1,
  fillSlots: true,
  tieBreak: "random",
  estimator: "mean",
  budgetMode: "average",
  /** DeployOPT's branch-and-bound node budget per stage boundary, or "none" (the library's default: no limit). */
  searchNodeLimit: "none",
};

/** StageRoute's and the oracle's: DeployOPT's solver (the greedy baseline deploys by its own rule, not DeployOPT). */
const deployDefaults: Params = {
  ...stageDefaults,
  /** DeployOPT enumerates subsets up to this many, else runs its branch-and-bound (or the deploySolver). */
  enumLimit: 50_000,
  /** DeployOPT beyond enumLimit: "builtin" (the exact branch-and-bound) or "highs" (the HiGHS MIP, npm highs). */
  deploySolver: "builtin",
};

const policies: PolicyEntry[] = [
  {
    name: "stageroute",
    protocol: "arm",
    family: FAMILY,
    paper: PAPER,
    description:
      "StageRoute: DeployOPT picks <= M_max models per stage by reward UCB / cost LCB, RouteOPT routes each query",
    defaults: deployDefaults,
    prepare: prepareStage,
    restoreOptions: restoreStage,
    fromJSON: (s, o) => StageRoute.fromJSON(s, o as StageRestoreOptions | undefined),
    create: (p, { rng, info }) => new StageRoute({ ...stageOptions(p, info, "stageroute"), rng }),
  },
  {
    name: "stageroute-greedy",
    protocol: "arm",
    family: FAMILY,
    paper: PAPER,
    description: "the paper's greedy baseline: deploy the top M_max by UCB(reward) / LCB(cost), route like StageRoute",
    defaults: stageDefaults,
    fromJSON: (s, o) => RatioGreedy.fromJSON(s, o as StageRestoreOptions | undefined),
    create: (p, { rng, info }) => new RatioGreedy({ ...stageOptions(p, info, "stageroute-greedy"), rng }),
  },
  {
    name: "stageroute-oracle",
    protocol: "arm",
    family: FAMILY,
    paper: PAPER,
    description: "the paper's oracle: true means, optimal stage-wise deployment and fixed optimal routing",
    defaults: deployDefaults,
    prepare: prepareStage,
    restoreOptions: restoreStage,
    fromJSON: (s, o) => StageOracle.fromJSON(s, o as StageRestoreOptions | undefined),
    create: (p, { rng, info }) => {
      const env = info.env;
      if (!(env instanceof StagedCostBandit)) {
        throw new RouteKitError(ErrorCode.InvalidArgument, "stageroute-oracle needs a stage environment (true means)");
      }
      const means = Object.fromEntries(env.models.map((m) => [m.id, { reward: m.reward, cost: m.cost }]));
      return new StageOracle({ ...stageOptions(p, info, "stageroute-oracle"), means, rng });
    },
  },
];

const environments = [
  {
    name: "arena-sim-2025",
    protocol: "arm" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description: "15 models from Arena Elo and prices, 6 at start + 1 per 1000 rounds, budget 2, caps 0.4 (Yi 1.0)",
    defaults: { stageLength: 250, maxDeployed: 6, normalization: "minmax", rewardNoise: "gaussian" } as Params,
    create: (p: Params) =>
      arenaSim2025({
        oracle: stageValue,
        stageLength: Number(p.stageLength),
        maxDeployed: Number(p.maxDeployed),
        normalization: String(p.normalization) as "minmax" | "divmax",
        rewardNoise: String(p.rewardNoise) as "gaussian" | "bernoulli",
      }),
  },
  {
    name: "routerbench-surrogate",
    protocol: "arm" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description: "RouterBench per-model averages: 11 models, 5 at start + 1 per 5000 queries, budget $0.0002/query",
    defaults: { stageLength: 500, maxDeployed: 6 } as Params,
    create: (p: Params) =>
      routerBenchSurrogate({
        oracle: stageValue,
        stageLength: Number(p.stageLength),
        maxDeployed: Number(p.maxDeployed),
      }),
  },
  {
    name: "stationary-budget",
    protocol: "arm" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description: "5 fixed models, Bernoulli rewards, deterministic costs; budget slack (0.6) or tight (0.25)",
    defaults: { budget: "slack" } as Params,
    create: (p: Params) => stationaryInstance({ oracle: stageValue, budget: String(p.budget) as "slack" | "tight" }),
  },
  {
    name: "batch-switch",
    protocol: "arm" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description: "the lower-bound instance (App. C): M fresh models per batch, one slightly better, unit costs",
    defaults: { models: 2, horizon: 20000 } as Params,
    create: (p: Params) => batchSwitch({ oracle: stageValue, models: Number(p.models), horizon: Number(p.horizon) }),
  },
];

const PAPER_PRESET = { preset: "arena2025-paper" };
const trio = [
  { label: "StageRoute", policy: "stageroute", params: PAPER_PRESET },
  { label: "Greedy", policy: "stageroute-greedy", params: PAPER_PRESET },
  { label: "Oracle", policy: "stageroute-oracle", params: PAPER_PRESET },
];

/** Reference numbers of an independent re-implementation (10 seeds of its own RNG) and RouteKit's (seeds 0-9). */
const REF: Record<string, string> = {
  "250/6":
    "reference re-implementation: StageRoute regret 17.1, greedy 350, realised oracle reward 6291 (OPT* 6300.9), spend 0.91-0.97 b; RouteKit tests (seeds 0-9): 19.2 vs 359, spend 0.92 b",
  "500/6": "reference re-implementation: StageRoute regret 28.0, greedy 338; RouteKit tests: 31.1 vs 350",
  "1000/6": "reference re-implementation: StageRoute regret 58.7, greedy 311; RouteKit tests: 56.9 vs 322",
  "500/3":
    "reference re-implementation: StageRoute regret 34.5, greedy 1664, about 2486 fallback rounds (OPT* 6153.4); RouteKit tests: 38.3 vs 1584",
  "500/10":
    "reference re-implementation: StageRoute regret 0.6 (greedy and StageRoute both near the oracle); RouteKit tests: 6.2",
};

function arena(name: string, L: number, M: number, description: string, group?: string, panel?: string): ScenarioEntry {
  return {
    name,
    protocol: "arm",
    paper: PAPER,
    description,
    environment: { name: "arena-sim-2025", params: { stageLength: L, maxDeployed: M } },
    policies: trio,
    seeds: 10,
    horizon: 10_000,
    metrics: ["regret", "reward", "cost"],
    reference: REF[`${L}/${M}`] ?? "",
    ...(group ? { group, panel: panel ?? name } : {}),
  };
}

const scenarios: ScenarioEntry[] = [
  arena(
    "stageroute-fig2",
    250,
    6,
    "Fig. 2: cumulative reward and regret vs the oracle and the UCB/LCB-ratio greedy, L = 250, M_max = 6",
  ),
  ...[250, 500, 1000].map((L) =>
    arena(
      `stageroute-fig3-interval-${L}`,
      L,
      6,
      `Fig. 3: update interval effect, L = ${L}, M_max = 6`,
      "stageroute-fig3-interval",
      `L = ${L}`,
    ),
  ),
  ...[3, 6, 10].map((M) =>
    arena(
      `stageroute-fig4-capacity-${M}`,
      500,
      M,
      `Fig. 4: deployment capacity effect, M_max = ${M}, L = 500`,
      "stageroute-fig4-capacity",
      `M_max = ${M}`,
    ),
  ),
  {
    name: "stageroute-cost-arena",
    protocol: "arm",
    paper: PAPER,
    description: "cost use: average vs paced budget on the simulation (raw units), L = 250, M_max = 6",
    environment: { name: "arena-sim-2025", params: { stageLength: 250, maxDeployed: 6 } },
    policies: [
      { label: "average", policy: "stageroute", params: PAPER_PRESET },
      { label: "paced", policy: "stageroute", params: { ...PAPER_PRESET, budgetMode: "paced" } },
      { label: "Oracle", policy: "stageroute-oracle", params: PAPER_PRESET },
    ],
    seeds: 10,
    horizon: 10_000,
    metrics: ["cost", "regret"],
    reference: "reference re-implementation: average mode spends 0.91-0.97 b = 1.82-1.94 per query (b = 2)",
    group: "stageroute-cost",
    panel: "simulation, b = 2",
  },
  {
    name: "stageroute-cost-routerbench",
    protocol: "arm",
    paper: PAPER,
    description:
      "cost use: average vs paced budget on the RouterBench surrogate (costs in budgets), L = 500, M_max = 6",
    environment: { name: "routerbench-surrogate", params: { stageLength: 500, maxDeployed: 6 } },
    policies: [
      { label: "average", policy: "stageroute" },
      { label: "paced", policy: "stageroute", params: { budgetMode: "paced" } },
      { label: "Greedy", policy: "stageroute-greedy" },
    ],
    seeds: 10,
    horizon: 36_497,
    metrics: ["cost", "regret"],
    reference:
      "reference re-implementation: average 2.04e-4 $/query (1.02 b), paced 1.000 b; regrets heavy-tailed (compare medians); RouteKit tests: 1.020 b and 1.0001 b",
    group: "stageroute-cost",
    panel: "RouterBench surrogate, b = $0.0002",
  },
  {
    name: "stageroute-fig6-routerbench",
    protocol: "arm",
    paper: PAPER,
    description: "Fig. 6: cumulative reward on the RouterBench surrogate (11 models), L = 500, M_max = 6",
    environment: { name: "routerbench-surrogate", params: { stageLength: 500, maxDeployed: 6 } },
    policies: [
      { label: "StageRoute", policy: "stageroute" },
      { label: "Greedy", policy: "stageroute-greedy" },
      { label: "Oracle", policy: "stageroute-oracle" },
    ],
    seeds: 10,
    horizon: 36_497,
    metrics: ["reward", "regret", "cost"],
    reference:
      "reference re-implementation: OPT* about 20,161; StageRoute and greedy regrets about equal (54 vs 57, heavy-tailed); spend 2.04e-4 $/query",
  },
  {
    name: "stageroute-stationary",
    protocol: "arm",
    paper: PAPER,
    description:
      "fixed pool (no arrivals, one stage, all 5 models deployed, so greedy routes alike): Bernoulli rewards, slack budget 0.6; regret should flatten (sublinear)",
    environment: { name: "stationary-budget", params: { budget: "slack" } },
    policies: [
      { label: "StageRoute", policy: "stageroute", params: { initialPulls: 3, minCost: "0.1", maxCost: "0.5" } },
      { label: "Oracle", policy: "stageroute-oracle" },
    ],
    seeds: 20,
    horizon: 32_000,
    metrics: ["regret", "cost"],
    reference:
      "RouteKit tests (20 seeds, initialPulls 3): StageRoute mean regret 13.9 / 14.4 / 14.6 at T = 2k / 8k / 32k, reward within 0.01 of V = 0.9 per query",
  },
  {
    name: "stageroute-lower-bound",
    protocol: "arm",
    paper: PAPER,
    description:
      "the lower-bound instance (App. C) built for T = 16,000: 2 fresh models per batch, one slightly better; regret must grow like T^(2/3)",
    environment: { name: "batch-switch", params: { models: 2, horizon: 16_000 } },
    policies: [
      { label: "StageRoute", policy: "stageroute", params: { minCost: "1", maxCost: "1", costUnit: "1" } },
      { label: "Oracle", policy: "stageroute-oracle", params: { minCost: "1", maxCost: "1", costUnit: "1" } },
    ],
    seeds: 8,
    horizon: 16_000,
    metrics: ["regret"],
    reference:
      "RouteKit tests (8 seeds, an instance built for each T): StageRoute regret 96.8 / 259.1 / 711.4 at T = 4000 / 16000 / 64000, growing faster than log T",
  },
];

/** Policies, environments and scenarios contributed by this family. */
export const stagerouteRegistry: FamilyRegistry = { policies, environments, scenarios };
