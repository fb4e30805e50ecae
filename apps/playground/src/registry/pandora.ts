import { ErrorCode, RouteKitError } from "@routekit/core";
import { type CascadeEnvironmentBase, envA, envB, llmCascadePreset } from "@routekit/environments";
import { Cosmos, OneShot, QueryAll, ThresholdCascade, WeitzmanOracle } from "@routekit/pandora";
import { UsageError } from "../errors.js";
import type { EnvInfo, FamilyRegistry, Params, PolicyEntry, ScenarioEntry } from "./types.js";

const FAMILY = "@routekit/pandora";
const PAPER = "001 (Belloni, Chen & Wei, 2026: Online Pandora's Box for Contextual LLM Cascading)";

/** The cascade environment a policy will play, with its true links and parameters. */
function cascadeEnv(info: EnvInfo, policy: string): CascadeEnvironmentBase {
  const env = info.env as Partial<CascadeEnvironmentBase>;
  if (info.protocol !== "cascade" || typeof env.outputDim !== "number") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${policy} plays the cascade protocol, not "${info.protocol}"`);
  }
  return env as CascadeEnvironmentBase;
}

/**
 * What a learning cascade policy needs from its setting: the output length, and the environment when there is
 * one. A policy built for a log (`routekit train`) has none: its links are the policy's defaults (or
 * `--param indexLink=...`), and a reward it should know must be learned instead.
 */
function cascadeSetting(
  info: EnvInfo,
  policy: string,
  known: boolean,
): { outputDim: number; env?: CascadeEnvironmentBase } {
  if (info.outputDim === undefined)
    return { outputDim: cascadeEnv(info, policy).outputDim, env: cascadeEnv(info, policy) };
  if (known) {
    throw new UsageError(
      `${policy}: reward=known takes the true reward parameter from a simulated environment; for a log use --param reward=learned`,
    );
  }
  return { outputDim: info.outputDim };
}

/** "env" = the environment's own link (the policy's default when there is no environment); otherwise the named one. */
function link<T extends string>(v: unknown, fromEnv: T | undefined): T | undefined {
  const s = String(v ?? "env");
  return (s === "env" ? fromEnv : s) as T | undefined;
}

/** 0 (the default) = no value (option omitted); anything else is passed on for COSMOS to validate. */
function positive(v: unknown): number | undefined {
  return v === undefined || Number(v) === 0 ? undefined : Number(v);
}

const cosmosDefaults: Params = {
  reward: "known",
  exploration: -1,
  explorationPlugIn: -1,
  explorationReward: -1,
  radiusMode: "scaled",
  kappa: 0.05,
  refit: "geometric",
  refitGrowth: 1.2,
  indexLink: "env",
  ridge: 1,
  indexRidge: 1,
  indexBound: 3,
  rewardBound: 0,
  useHorizon: true,
};

/** The `reward` parameter: true for "known", false for "learned", INVALID_ARGUMENT otherwise. */
function knownReward(p: Params, name: string): boolean {
  const known = String(p.reward) === "known";
  if (!known && String(p.reward) !== "learned")
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${name}: reward must be "known" or "learned", got "${p.reward}"`,
    );
  return known;
}

function cosmosOptions(p: Params, info: EnvInfo, name: string) {
  const known = knownReward(p, name);
  const { outputDim, env } = cascadeSetting(info, name, known);
  const indexLink = link(p.indexLink, env?.indexLink);
  // -1 (the default) = the option's own default; any other value is passed on for COSMOS to validate.
  const scale = (v: unknown) => (v === undefined || Number(v) === -1 ? undefined : Number(v));
  const theory = String(p.radiusMode) === "theory";
  return {
    arms: info.arms,
    contextDim: info.dim,
    outputDim,
    ...(indexLink !== undefined ? { indexLink } : {}),
    ...(env !== undefined ? { rewardLink: env.rewardLink } : {}),
    ...(known && env !== undefined ? { rewardParameter: env.rewardParameter() } : {}),
    ...(scale(p.exploration) !== undefined ? { exploration: scale(p.exploration) } : {}),
    ...(scale(p.explorationPlugIn) !== undefined ? { explorationPlugIn: scale(p.explorationPlugIn) } : {}),
    ...(scale(p.explorationReward) !== undefined ? { explorationReward: scale(p.explorationReward) } : {}),
    radiusMode: theory ? ("theory" as const) : ("scaled" as const),
    ...(theory ? { theory: { kappa: Number(p.kappa) } } : {}),
    refit: String(p.refit) as "exact" | "geometric",
    refitGrowth: Number(p.refitGrowth),
    ridge: Number(p.ridge),
    indexRidge: Number(p.indexRidge),
    indexBound: Number(p.indexBound),
    ...(positive(p.rewardBound) !== undefined
      ? { rewardBound: positive(p.rewardBound) }
      : theory && !known
        ? { rewardBound: 5 }
        : {}),
    ...(p.useHorizon === true || p.useHorizon === "true" ? { horizon: Math.max(2, info.horizon) } : {}),
  };
}

const cosmos: PolicyEntry = {
  name: "cosmos",
  protocol: "cascade",
  family: FAMILY,
  paper: PAPER,
  description:
    "COSMOS: Weitzman's cascade with optimistic index and reward; reward known | learned, radius scaled | theory, refit exact | geometric",
  defaults: cosmosDefaults,
  create: (p, { rng, info }) => new Cosmos({ ...cosmosOptions(p, info, "cosmos"), rng }),
};

const cosmosGreedy: PolicyEntry = {
  name: "cosmos-greedy",
  protocol: "cascade",
  family: FAMILY,
  paper: PAPER,
  description: "Greedy COSMOS: all radii 0 (keeps the initial all-box period); can stop opening a box for good",
  defaults: { ...cosmosDefaults, exploration: 0 },
  create: (p, { rng, info }) =>
    new Cosmos({
      ...cosmosOptions({ ...p, exploration: 0, explorationPlugIn: 0, explorationReward: 0 }, info, "cosmos-greedy"),
      rng,
    }),
};

const oracle: PolicyEntry = {
  name: "pandora-oracle",
  protocol: "cascade",
  family: FAMILY,
  paper: PAPER,
  description: "Weitzman's index policy with the environment's true index and reward parameters (learns nothing)",
  defaults: {},
  create: (_p, { rng, info }) => {
    const env = cascadeEnv(info, "pandora-oracle");
    const rho = env.indexParameters();
    return new WeitzmanOracle({
      arms: info.arms,
      contextDim: info.dim,
      outputDim: env.outputDim,
      indexLink: env.indexLink,
      rewardLink: env.rewardLink,
      indexParameters: Object.fromEntries(env.initialArms.map((a, i) => [a, rho[i] as number[]])),
      rewardParameter: env.rewardParameter(),
      rng,
    });
  },
};

function rewardOptions(p: Params, info: EnvInfo, name: string) {
  const known = knownReward(p, name);
  const { outputDim, env } = cascadeSetting(info, name, known);
  return {
    arms: info.arms,
    contextDim: info.dim,
    outputDim,
    ...(env !== undefined ? { rewardLink: env.rewardLink } : {}),
    ...(known && env !== undefined ? { rewardParameter: env.rewardParameter() } : {}),
  };
}

const queryAll: PolicyEntry = {
  name: "query-all",
  protocol: "cascade",
  family: FAMILY,
  description: "Open every box, deploy the best output (reward known, or learned by ridge GLM)",
  defaults: { reward: "known" },
  create: (p, { rng, info }) => new QueryAll({ ...rewardOptions(p, info, "query-all"), rng }),
};

const threshold: PolicyEntry = {
  name: "threshold-cascade",
  protocol: "cascade",
  family: FAMILY,
  description: "Fixed cheapest-first cascade (arms order) that stops once an output's reward reaches the threshold",
  defaults: { reward: "known", threshold: 0.7 },
  create: (p, { rng, info }) =>
    new ThresholdCascade({ ...rewardOptions(p, info, "threshold-cascade"), threshold: Number(p.threshold), rng }),
};

const oneShot: PolicyEntry = {
  name: "one-shot",
  protocol: "cascade",
  family: FAMILY,
  description: "API-as-arm routing: one box per request by disjoint LinUCB on r - c (cannot cascade)",
  defaults: { exploration: 0.5, ridge: 1 },
  create: (p, { rng, info }) =>
    new OneShot({
      rng,
      arms: info.arms,
      contextDim: info.dim,
      outputDim: info.outputDim ?? cascadeEnv(info, "one-shot").outputDim,
      exploration: Number(p.exploration),
      ridge: Number(p.ridge),
    }),
};

const environments = [
  {
    name: "pandora-env-a",
    protocol: "cascade" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description: "Env-A: 3 boxes, uniform answer quality, exactly linear index, output-dependent costs 0.01/0.04/0.12",
    defaults: {} as Params,
    create: () => envA(),
  },
  {
    name: "pandora-env-b",
    protocol: "cascade" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description: "Env-B: logistic reward, tanh index, Gaussian outputs, costs reverse-engineered from the index",
    defaults: {} as Params,
    create: () => envB(),
  },
  {
    name: "pandora-llm-cascade",
    protocol: "cascade" as const,
    family: "@routekit/environments",
    paper: PAPER,
    description:
      'LLM cascade preset: "mini" (cheap, erratic), "standard", "frontier" (expensive, strong) over prompt features',
    defaults: {} as Params,
    create: () => llmCascadePreset(),
  },
];

const METRICS = ["regret", "queriesPerRound", "cost", "usPerRound"] as const;

const BASELINES = [
  { label: "oracle", policy: "pandora-oracle" },
  { label: "one-shot (LinUCB)", policy: "one-shot" },
  { label: "query-all", policy: "query-all" },
  { label: "threshold 0.7", policy: "threshold-cascade" },
];

const scenarios: ScenarioEntry[] = [
  {
    name: "pandora-env-a-known",
    protocol: "cascade",
    paper: PAPER,
    description: "Env-A, known reward: COSMOS (scaled radius 0.5 and 1.0) and greedy COSMOS against the baselines",
    environment: { name: "pandora-env-a" },
    policies: [
      { label: "COSMOS s=0.5", policy: "cosmos", params: { reward: "known", exploration: 0.5 } },
      { label: "COSMOS s=1.0", policy: "cosmos", params: { reward: "known", exploration: 1 } },
      { label: "greedy", policy: "cosmos-greedy", params: { reward: "known" } },
      ...BASELINES,
    ],
    seeds: 10,
    horizon: 4000,
    metrics: METRICS,
    reference:
      "COSMOS implementation notes (prototype, seeds 0/1): s=0.5 R = 24/40/63/88 at T = 500/1000/2000/4000 (2.4 queries); " +
      "independent rebuild 27.1/42.9/62.3/84.4 (10 seeds, sd ~2, 2.39 queries); s=1.0 28/57/107/173; greedy is bimodal " +
      "(mean 15.7/27.9/49.5/91.3, ~30% of seeds near-oracle). Oracle 0.688/period (1.86 queries), one-shot 0.645, query-all 0.627 " +
      "(so one-shot and query-all grow ~0.043 T and ~0.061 T). RouteKit (clipped box-3 quality): oracle 0.687, one-shot 0.644, query-all 0.626; " +
      "RouteKit 10 seeds (node packages/pandora/bench/regret.mjs): s=0.5 27.6/44.6/64.9/88.3 (2.39 queries), s=1.0 31.1/60.8/109.6/174.7, " +
      "greedy (20 seeds) 13.8/24.9/43.0/78.0 (bimodal), threshold 0.7 7.1/14.1/27.4/53.6 (linear, ~0.013 per request).",
    group: "pandora-env-a",
    panel: "known reward",
  },
  {
    name: "pandora-env-a-learned",
    protocol: "cascade",
    paper: PAPER,
    description:
      "Env-A, learned reward (GLM/ridge from deployed outputs): COSMOS scales 0.25 and 0.5, exact vs geometric refits",
    environment: { name: "pandora-env-a" },
    policies: [
      {
        label: "COSMOS learned s=0.25",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.25, refit: "exact" },
      },
      {
        label: "COSMOS learned s=0.5",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.5, refit: "exact" },
      },
      {
        label: "COSMOS learned s=0.25 geometric",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.25, refit: "geometric" },
      },
      { label: "greedy learned", policy: "cosmos-greedy", params: { reward: "learned" } },
      { label: "COSMOS known s=0.5", policy: "cosmos", params: { reward: "known", exploration: 0.5 } },
      { label: "oracle", policy: "pandora-oracle" },
    ],
    seeds: 10,
    horizon: 4000,
    metrics: METRICS,
    reference:
      "COSMOS implementation notes (prototype): learned s=0.5 R = 22/33/61/112 (T = 500/1000/2000/4000, 2.35 queries); " +
      "s=0.25 at T = 8000: 14/26/45/65/91; s=1.0 61/78/94/133; greedy learned 12/12/12/13 (works here, not a guarantee). " +
      "RouteKit: s=0.5 exact 17.7/31.7/61.1/111.4 (3 seeds), s=0.25 exact 17.7/30.4/46.1/64.3 (3 seeds), s=0.25 geometric 19.6/32.3/48.5/67.1 (10 seeds).",
    group: "pandora-env-a",
    panel: "learned reward",
  },
  {
    name: "pandora-env-a-radius",
    protocol: "cascade",
    paper: PAPER,
    description: "Env-A, known reward: theory radii (the paper's constants) against scaled radii",
    environment: { name: "pandora-env-a" },
    policies: [
      { label: "theory (kappa 0.05)", policy: "cosmos", params: { reward: "known", radiusMode: "theory" } },
      { label: "scaled s=0.5", policy: "cosmos", params: { reward: "known", exploration: 0.5 } },
      { label: "query-all", policy: "query-all" },
    ],
    seeds: 10,
    horizon: 2000,
    metrics: METRICS,
    reference:
      "The theory radius is ~1400 for kappa mu1 = 0.1, so every sigma~ stays at 1 until ~10^6 samples: theory COSMOS opens every box " +
      "(3 queries) and tracks query-all (~0.061 regret per round); Env-A itself violates the paper's Assumption 4.1 (kappa = 0).",
    group: "pandora-env-a",
    panel: "radius modes",
  },
  {
    name: "pandora-env-b-known",
    protocol: "cascade",
    paper: PAPER,
    description: "Env-B (logistic reward, tanh index), known reward: COSMOS against the baselines",
    environment: { name: "pandora-env-b" },
    policies: [
      {
        label: "COSMOS known s=0.5",
        policy: "cosmos",
        params: { reward: "known", exploration: 0.5, refit: "geometric" },
      },
      { label: "greedy", policy: "cosmos-greedy", params: { reward: "known", refit: "geometric" } },
      ...BASELINES,
    ],
    seeds: 10,
    horizon: 4000,
    metrics: METRICS,
    reference:
      "COSMOS implementation notes (independent rebuild, exact refits, 5 seeds): known s=0.5 R = 11.8/17.4/23.7/31.9 at " +
      "T = 500/1000/2000/4000. Geometric refits keep the run fast (see the README); RouteKit, geometric, 5 seeds: " +
      "10.6/16.2/21.8/28.3.",
    group: "pandora-env-b",
    panel: "known reward",
  },
  {
    name: "pandora-env-b-learned",
    protocol: "cascade",
    paper: PAPER,
    description: "Env-B, learned logistic reward: COSMOS (scales 0.25 and 0.5) against the baselines",
    environment: { name: "pandora-env-b" },
    policies: [
      {
        label: "COSMOS learned s=0.25",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.25, refit: "geometric" },
      },
      {
        label: "COSMOS learned s=0.5",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.5, refit: "geometric" },
      },
      { label: "query-all (learned)", policy: "query-all", params: { reward: "learned" } },
      { label: "one-shot (LinUCB)", policy: "one-shot" },
      { label: "oracle", policy: "pandora-oracle" },
    ],
    seeds: 10,
    horizon: 4000,
    metrics: METRICS,
    reference:
      "The implementation notes expect the learned-reward variant to stay pre-asymptotic longer than the known one " +
      "(sublinear, slope < 1 over T in [2000, 8000]); they give no Env-B numbers for it.",
    group: "pandora-env-b",
    panel: "learned reward",
  },
  {
    name: "pandora-llm-known",
    protocol: "cascade",
    paper: PAPER,
    description:
      'LLM cascade preset ("mini", "standard", "frontier"), known reward (a judge score): COSMOS against the baselines',
    environment: { name: "pandora-llm-cascade" },
    policies: [
      { label: "COSMOS known s=0.5", policy: "cosmos", params: { reward: "known", exploration: 0.5 } },
      ...BASELINES,
    ],
    seeds: 10,
    horizon: 4000,
    metrics: METRICS,
    reference:
      "No paper numbers (the paper has no experiments). RouteKit Monte Carlo: oracle 0.693/period (1.99 queries), " +
      "best one-shot per context 0.655, query-all 0.648.",
    group: "pandora-llm",
    panel: "known reward",
  },
  {
    name: "pandora-llm-learned",
    protocol: "cascade",
    paper: PAPER,
    description: "LLM cascade preset, reward learned from user feedback on the deployed answer",
    environment: { name: "pandora-llm-cascade" },
    policies: [
      {
        label: "COSMOS learned s=0.25",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.25, refit: "geometric" },
      },
      { label: "query-all (learned)", policy: "query-all", params: { reward: "learned" } },
      { label: "one-shot (LinUCB)", policy: "one-shot" },
      { label: "oracle", policy: "pandora-oracle" },
    ],
    seeds: 10,
    horizon: 4000,
    metrics: METRICS,
    reference:
      "No paper numbers. Oracle 0.693/period, best one-shot per context 0.655, query-all 0.648 (RouteKit Monte Carlo).",
    group: "pandora-llm",
    panel: "learned reward",
  },
  {
    name: "pandora-refit-learned",
    protocol: "cascade",
    paper: PAPER,
    description: "Per-request time of the learned-reward variant: exact refits (O(t) per request) vs geometric refits",
    environment: { name: "pandora-env-a" },
    policies: [
      {
        label: "learned exact",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.25, refit: "exact" },
      },
      {
        label: "learned geometric",
        policy: "cosmos",
        params: { reward: "learned", exploration: 0.25, refit: "geometric" },
      },
    ],
    seeds: 10,
    horizon: 4000,
    metrics: ["usPerRound", "regret"],
    reference:
      "The paper's learned-reward variant re-solves every box over its whole history each period (O(T^2) in total): " +
      "exact time per request grows linearly in t, geometric refits keep it flat (amortised). RouteKit R at 4000: " +
      "exact 64.3 (3 seeds), geometric 67.1 (10 seeds).",
    group: "pandora-refit",
    panel: "learned reward",
  },
  {
    name: "pandora-refit-known",
    protocol: "cascade",
    paper: PAPER,
    description: "Per-request time of the known-reward variant: exact refits (O(n_a) per refit) vs geometric refits",
    environment: { name: "pandora-env-a" },
    policies: [
      { label: "known exact", policy: "cosmos", params: { reward: "known", exploration: 0.5, refit: "exact" } },
      { label: "known geometric", policy: "cosmos", params: { reward: "known", exploration: 0.5, refit: "geometric" } },
    ],
    seeds: 10,
    horizon: 4000,
    metrics: ["usPerRound", "regret"],
    reference:
      "With a known reward only the boxes opened last request are refit, each over its own samples: time per request " +
      "grows with those counts under exact refits and stays flat (amortised) under geometric ones.",
    group: "pandora-refit",
    panel: "known reward",
  },
];

/** Policies, environments and scenarios contributed by this family. */
export const pandoraRegistry: FamilyRegistry = {
  policies: [cosmos, cosmosGreedy, oracle, queryAll, threshold, oneShot],
  environments,
  scenarios,
};
