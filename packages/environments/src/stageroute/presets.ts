/**
 * The experiments of Li & Li, "Keeping Up with the Models: Online Deployment and Routing of LLMs at
 * Scale": the 15-model simulation built from Chatbot-Arena Elo and prices (Section 6.1), a surrogate
 * of the RouterBench replay (Section 6.2; the data set itself is not shipped), the stationary
 * instances used to check sublinear regret, and the batch-switching lower-bound instance (App. C).
 */
import { ErrorCode, optionKeys, type Rng, RouteKitError, rejectUnknownOptions } from "@routekit/core";
import { checkNumber } from "../basic/common.js";
import { StagedCostBandit, type StagedCostBanditOptions, type StagedModel, type StageValueSolver } from "./staged.js";

/** Table 1 of the paper: model, Arena Elo, output price in $ per 1M tokens, in release order. */
export const ARENA_2025_MODELS: readonly { id: string; elo: number; price: number }[] = [
  { id: "gpt-4o", elo: 1336, price: 10 },
  { id: "gemini-1.5-pro-002", elo: 1302, price: 5 },
  { id: "yi-lightning", elo: 1287, price: 0.14 },
  { id: "o1-mini", elo: 1304, price: 0.6 },
  { id: "llama-3.3-70b-instruct", elo: 1257, price: 0.4 },
  { id: "deepseek-r1", elo: 1358, price: 0.55 },
  { id: "gemini-2.0-flash", elo: 1380, price: 1.5 },
  { id: "claude-3.7-sonnet", elo: 1300, price: 15 },
  { id: "hunyuan-turbos", elo: 1296, price: 0.28 },
  { id: "deepseek-v3", elo: 1373, price: 0.28 },
  { id: "llama-4-maverick", elo: 1417, price: 0.82 },
  { id: "gpt-4.1", elo: 1366, price: 8 },
  { id: "grok-3-preview", elo: 1403, price: 15 },
  { id: "o3", elo: 1413, price: 40 },
  { id: "gemini-2.5-pro", elo: 1446, price: 10 },
];

type Common = Pick<StagedCostBanditOptions, "oracle" | "name"> & {
  readonly stageLength?: number;
  readonly maxDeployed?: number;
  readonly budget?: number;
};

const COMMON_KEYS = [
  "oracle",
  "name",
  "stageLength",
  "maxDeployed",
  "budget",
] as const satisfies readonly (keyof Common)[];

export interface ArenaSimOptions extends Common {
  /** How Elo becomes a reward in [0, 1]: "minmax" (default) (Elo - 1257) / 189, or "divmax" Elo / 1446. */
  readonly normalization?: "minmax" | "divmax";
  /** Models available at round 0 (default 6). */
  readonly initialModels?: number;
  /** Rounds between arrivals of the remaining models (default 1000: rounds 1000, 2000, ..., 9000). */
  readonly arrivalInterval?: number;
  readonly rewardNoise?: StagedCostBanditOptions["rewardNoise"];
  readonly rewardSd?: number;
  readonly costSd?: number;
}

/** The option keys of {@link ArenaSimOptions}. */
export const ARENA_SIM_OPTION_KEYS = optionKeys<ArenaSimOptions>()([
  ...COMMON_KEYS,
  "normalization",
  "initialModels",
  "arrivalInterval",
  "rewardNoise",
  "rewardSd",
  "costSd",
]);

/**
 * The paper's 15-model simulation (Section 6.1): rewards from Arena Elo, per-query cost the output
 * price with 10% Gaussian noise clamped to [0.1, 50], rewards with N(0, 0.1^2) noise clamped to
 * [0, 1], caps 0.4 except Yi-Lightning (1.0, the cheapest initial model, which keeps the budget
 * feasible), budget 2, 6 models at start and one more every 1000 rounds. Defaults: stageLength 250,
 * maxDeployed 6. Regret uses the un-clamped means (the `arena2025-paper` configuration).
 */
export function arenaSim2025(options: ArenaSimOptions): StagedCostBandit {
  rejectUnknownOptions(options, ARENA_SIM_OPTION_KEYS, "arenaSim2025");
  const norm = options.normalization ?? "minmax";
  if (norm !== "minmax" && norm !== "divmax") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option normalization must be "minmax" or "divmax", got ${String(norm)}`,
    );
  }
  const initial = checkNumber(
    options.initialModels ?? 6,
    "option initialModels",
    (v) => Number.isInteger(v) && v >= 1 && v <= 15,
    "an integer in [1, 15]",
  );
  const every = checkNumber(
    options.arrivalInterval ?? 1000,
    "option arrivalInterval",
    (v) => Number.isInteger(v) && v >= 1,
    "an integer >= 1",
  );
  const models: StagedModel[] = ARENA_2025_MODELS.map((m, i) => ({
    id: m.id,
    reward: norm === "minmax" ? (m.elo - 1257) / 189 : m.elo / 1446,
    cost: m.price,
    maxShare: m.id === "yi-lightning" ? 1 : 0.4,
    arrival: i < initial ? 0 : (i - initial + 1) * every,
  }));
  return new StagedCostBandit({
    models,
    oracle: options.oracle,
    budget: options.budget ?? 2,
    stageLength: options.stageLength ?? 250,
    maxDeployed: options.maxDeployed ?? 6,
    rewardNoise: options.rewardNoise ?? "gaussian",
    rewardSd: options.rewardSd ?? 0.1,
    costNoise: "gaussian",
    costSd: options.costSd ?? 0.1,
    minCost: 0.1,
    maxCost: 50,
    name: options.name ?? `arena-sim-2025(L=${options.stageLength ?? 250}, Mmax=${options.maxDeployed ?? 6})`,
  });
}

/** RouterBench (Hu et al. 2024) per-model averages: column, mean score, mean $ per query, in table order. */
export const ROUTERBENCH_MODELS: readonly { id: string; perf: number; cost: number }[] = [
  { id: "claude-instant-v1", perf: 0.59, cost: 0.001236 },
  { id: "claude-v1", perf: 0.648, cost: 0.00587 },
  { id: "claude-v2", perf: 0.5116, cost: 0.006153 },
  { id: "meta/llama-2-70b-chat", perf: 0.6059, cost: 0.001337 },
  { id: "WizardLM/WizardLM-13B-V1.2", perf: 0.5392, cost: 0.000142 },
  { id: "meta/code-llama-instruct-34b-chat", perf: 0.504, cost: 0.00055 },
  { id: "mistralai/mistral-7b-chat", perf: 0.4999, cost: 0.000139 },
  { id: "gpt-3.5-turbo-1106", perf: 0.6867, cost: 0.000709 },
  { id: "gpt-4-1106-preview", perf: 0.8048, cost: 0.007943 },
  { id: "zero-one-ai/Yi-34B-Chat", perf: 0.7153, cost: 0.000558 },
  { id: "mistralai/mixtral-8x7b-chat", perf: 0.6504, cost: 0.000414 },
];

export interface RouterBenchSurrogateOptions extends Common {
  /** Log-normal cost noise sd (default 0.5). */
  readonly costSd?: number;
}

/** The option keys of {@link RouterBenchSurrogateOptions}. */
export const ROUTERBENCH_SURROGATE_OPTION_KEYS = optionKeys<RouterBenchSurrogateOptions>()([...COMMON_KEYS, "costSd"]);

/**
 * A surrogate of the paper's RouterBench replay (Section 6.2) built from the data set's per-model
 * averages: Bernoulli(mean score) rewards, mean-preserving log-normal costs clamped to [1e-5, 0.05],
 * 5 models at start and one more every 5000 queries, budget 0.0002 $ per query, caps 0.4 except
 * WizardLM-13B (1.0: at this budget at least 94.7% of the first pool's traffic must go to it).
 * Defaults: stageLength 500, maxDeployed 6.
 */
export function routerBenchSurrogate(options: RouterBenchSurrogateOptions): StagedCostBandit {
  rejectUnknownOptions(options, ROUTERBENCH_SURROGATE_OPTION_KEYS, "routerBenchSurrogate");
  const models: StagedModel[] = ROUTERBENCH_MODELS.map((m, i) => ({
    id: m.id,
    reward: m.perf,
    cost: m.cost,
    maxShare: m.id === "WizardLM/WizardLM-13B-V1.2" ? 1 : 0.4,
    arrival: i < 5 ? 0 : (i - 4) * 5000,
  }));
  return new StagedCostBandit({
    models,
    oracle: options.oracle,
    budget: options.budget ?? 0.0002,
    stageLength: options.stageLength ?? 500,
    maxDeployed: options.maxDeployed ?? 6,
    rewardNoise: "bernoulli",
    costNoise: "lognormal",
    costSd: options.costSd ?? 0.5,
    minCost: 1e-5,
    maxCost: 0.05,
    name: options.name ?? `routerbench-surrogate(L=${options.stageLength ?? 500}, Mmax=${options.maxDeployed ?? 6})`,
  });
}

export interface StationaryInstanceOptions {
  readonly oracle: StageValueSolver;
  /** "slack" (default): b = 0.6, the best model alone fits; "tight": b = 0.25. */
  readonly budget?: "slack" | "tight";
  /** Stage length of the oracle (default: one stage for the whole run). */
  readonly stageLength?: number;
}

/** The option keys of {@link StationaryInstanceOptions}. */
export const STATIONARY_INSTANCE_OPTION_KEYS = optionKeys<StationaryInstanceOptions>()([
  "oracle",
  "budget",
  "stageLength",
]);

/**
 * Five models, no arrivals, Bernoulli rewards with means (0.9, 0.8, 0.7, 0.6, 0.5), deterministic
 * costs (0.5, 0.4, 0.3, 0.2, 0.1), caps 1, all models deployable: the plain budgeted bandit, for
 * checking that regret grows sublinearly.
 */
export function stationaryInstance(options: StationaryInstanceOptions): StagedCostBandit {
  rejectUnknownOptions(options, STATIONARY_INSTANCE_OPTION_KEYS, "stationaryInstance");
  const kind = options.budget ?? "slack";
  if (kind !== "slack" && kind !== "tight") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `option budget must be "slack" or "tight", got ${String(kind)}`);
  }
  const mu = [0.9, 0.8, 0.7, 0.6, 0.5];
  const cost = [0.5, 0.4, 0.3, 0.2, 0.1];
  return new StagedCostBandit({
    models: mu.map((m, i) => ({ id: `m${i + 1}`, reward: m, cost: cost[i] as number, maxShare: 1 })),
    oracle: options.oracle,
    budget: kind === "slack" ? 0.6 : 0.25,
    stageLength: options.stageLength ?? 1_000_000_000,
    maxDeployed: 5,
    rewardNoise: "bernoulli",
    costNoise: "fixed",
    name: `stationary-${kind}`,
  });
}

export interface BatchSwitchOptions {
  readonly oracle: StageValueSolver;
  /** Models per batch M (default 2). */
  readonly models?: number;
  /** Horizon T the instance is built for (default 20,000). */
  readonly horizon?: number;
}

/** The option keys of {@link BatchSwitchOptions}. */
export const BATCH_SWITCH_OPTION_KEYS = optionKeys<BatchSwitchOptions>()(["oracle", "models", "horizon"]);

/**
 * The lower-bound construction of the paper's App. C: unit costs, budget 1, caps 1. With
 * eps = (M / (8T))^(1/3) and batches of length 2 M^(1/3) T^(2/3), batch j brings M fresh models,
 * one of them (chosen at random per seed) with Bernoulli mean 1/2 + j eps and the others
 * 1/2 + (j - 1) eps; older models keep their means. Stages are one batch long and every model may be
 * deployed, so the oracle plays each batch's strong model.
 */
export function batchSwitch(options: BatchSwitchOptions): BatchSwitch {
  return new BatchSwitch(options);
}

export class BatchSwitch extends StagedCostBandit {
  readonly batchLength: number;
  readonly batches: number;
  readonly epsilon: number;
  private readonly perBatch: number;

  constructor(options: BatchSwitchOptions) {
    rejectUnknownOptions(options, BATCH_SWITCH_OPTION_KEYS, "batchSwitch");
    const M = checkNumber(
      options.models ?? 2,
      "option models",
      (v) => Number.isInteger(v) && v >= 2 && v <= 64,
      "an integer in [2, 64]",
    );
    const T = checkNumber(
      options.horizon ?? 20_000,
      "option horizon",
      (v) => Number.isInteger(v) && v >= 100,
      "an integer >= 100",
    );
    const eps = (M / (8 * T)) ** (1 / 3);
    const len = Math.max(1, Math.round(2 * M ** (1 / 3) * T ** (2 / 3)));
    // floor(T / len) batches (the last one runs to T), so every mean stays <= 1/2 + N_B eps = 3/4.
    const batches = Math.max(1, Math.floor(T / len));
    const models: StagedModel[] = [];
    for (let j = 0; j < batches; j++) {
      for (let i = 0; i < M; i++)
        models.push({ id: `b${j + 1}-m${i + 1}`, reward: 0.5, cost: 1, maxShare: 1, arrival: j * len });
    }
    super({
      models,
      oracle: options.oracle,
      budget: 1,
      stageLength: len,
      maxDeployed: M * batches,
      rewardNoise: "bernoulli",
      costNoise: "fixed",
      name: `batch-switch(M=${M}, T=${T})`,
    });
    this.batchLength = len;
    this.batches = batches;
    this.epsilon = eps;
    this.perBatch = M;
  }

  protected override onReset(rng: Rng): void {
    const r = rng.fork("strong");
    for (let j = 0; j < this.batches; j++) {
      const strong = r.int(this.perBatch);
      for (let i = 0; i < this.perBatch; i++) {
        this.mu[j * this.perBatch + i] = Math.min(1, 0.5 + (i === strong ? j + 1 : j) * this.epsilon);
      }
    }
  }
}
