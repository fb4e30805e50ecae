import {
  EpsilonGreedy,
  LinUCBDisjoint,
  LinUCBShared,
  OneArmOracle,
  RandomPolicy,
  ThompsonBernoulli,
  ThompsonGaussian,
  UCB1,
} from "@routekit/classic";
import { type ArmEnvironment, ErrorCode, MAX_INITIAL_ARMS, RouteKitError } from "@routekit/core";
import { type LinearArrival, LinearContextualBandit, StochasticBandit } from "@routekit/environments";
import { numberText } from "../number-text.js";
import type { EnvInfo, FamilyRegistry, Params, PolicyEntry } from "./types.js";

const FAMILY = "@routekit/classic";

/** Comma-separated numbers ("" = none). */
function numbers(v: unknown, what: string): number[] | undefined {
  const s = String(v ?? "").trim();
  if (s === "") return undefined;
  return s.split(",").map((p) => {
    const x = numberText(p);
    if (Number.isNaN(x)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${what} must be comma-separated numbers, got "${s}"`);
    }
    return x;
  });
}

/** "round:arm,round:arm" ("" = none). */
function arrivals(v: unknown): LinearArrival[] {
  const s = String(v ?? "").trim();
  if (s === "") return [];
  return s.split(",").map((p) => {
    const [r, arm] = p.split(":").map((q) => q.trim());
    const round = numberText(r);
    if (!arm || !Number.isInteger(round)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `arrivals must look like "1000:new-model,2000:other", got "${s}"`,
      );
    }
    return { round, arm };
  });
}

function armInfo(info: EnvInfo, policy: string): { arms: readonly string[]; contextDim: number } {
  if (info.protocol !== "arm") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${policy} plays the arm protocol, not "${info.protocol}"`);
  }
  return { arms: info.arms, contextDim: info.dim };
}

function contextual(info: EnvInfo, policy: string): { arms: readonly string[]; contextDim: number } {
  const a = armInfo(info, policy);
  if (a.contextDim < 1) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${policy} needs a contextual environment (context dim >= 1)`);
  }
  return a;
}

const policies: PolicyEntry[] = [
  {
    name: "random",
    protocol: "arm",
    family: FAMILY,
    description: "uniform random arm each round (linear-regret baseline)",
    defaults: {},
    create: (_p, { rng, info }) => new RandomPolicy({ ...armInfo(info, "random"), rng }),
  },
  {
    name: "epsilon-greedy",
    protocol: "arm",
    family: FAMILY,
    description: "empirical-mean greedy, uniform exploration with probability epsilon (decay none or 1/t)",
    defaults: { epsilon: 0.1, decay: "none" },
    create: (p, { rng, info }) =>
      new EpsilonGreedy({
        ...armInfo(info, "epsilon-greedy"),
        rng,
        epsilon: Number(p.epsilon),
        decay: String(p.decay) as "none" | "1/t",
      }),
  },
  {
    name: "ucb1",
    protocol: "arm",
    family: FAMILY,
    description: "UCB1 (Auer et al. 2002): mean + exploration sqrt(ln t / n), context-free",
    defaults: { exploration: Math.SQRT2 },
    create: (p, { rng, info }) => new UCB1({ ...armInfo(info, "ucb1"), rng, exploration: Number(p.exploration) }),
  },
  {
    name: "thompson-bernoulli",
    protocol: "arm",
    family: FAMILY,
    description: "Beta-Bernoulli Thompson sampling, rewards in [0, 1]",
    defaults: { priorAlpha: 1, priorBeta: 1, fractionalRewards: "bernoulli-trick" },
    create: (p, { rng, info }) =>
      new ThompsonBernoulli({
        ...armInfo(info, "thompson-bernoulli"),
        rng,
        priorAlpha: Number(p.priorAlpha),
        priorBeta: Number(p.priorBeta),
        fractionalRewards: String(p.fractionalRewards) as "bernoulli-trick" | "fractional",
      }),
  },
  {
    name: "thompson-gaussian",
    protocol: "arm",
    family: FAMILY,
    description: "Gaussian Thompson sampling (normal prior, known noise variance)",
    defaults: { priorMean: 0, priorVariance: 1, noiseVariance: 1 },
    create: (p, { rng, info }) =>
      new ThompsonGaussian({
        ...armInfo(info, "thompson-gaussian"),
        rng,
        priorMean: Number(p.priorMean),
        priorVariance: Number(p.priorVariance),
        noiseVariance: Number(p.noiseVariance),
      }),
  },
  {
    name: "linucb-disjoint",
    protocol: "arm",
    family: FAMILY,
    description: "LinUCB with one ridge model per arm (Li et al. 2010); = PAK-UCB with the linear kernel",
    defaults: { exploration: 1, ridge: 1 },
    create: (p, { rng, info }) =>
      new LinUCBDisjoint({
        ...contextual(info, "linucb-disjoint"),
        rng,
        exploration: Number(p.exploration),
        ridge: Number(p.ridge),
      }),
  },
  {
    name: "linucb-shared",
    protocol: "arm",
    family: FAMILY,
    paper: "003 (Hu, Leung, Farnia, ICML 2025), baseline",
    description: "LinUCB with one shared ridge model on [context; one-hot(arm)] (shared-weight baseline)",
    defaults: { exploration: 1, ridge: 1, maxArms: 64 },
    create: (p, { rng, info }) =>
      new LinUCBShared({
        ...contextual(info, "linucb-shared"),
        rng,
        exploration: Number(p.exploration),
        ridge: Number(p.ridge),
        maxArms: Number(p.maxArms),
      }),
  },
  {
    name: "one-arm-oracle",
    protocol: "arm",
    family: FAMILY,
    description: "always plays the environment's best single arm (the O2B reference; knows the answer in advance)",
    defaults: {},
    create: (_p, { rng, info }) =>
      // The runner resets the environment before creating the policy, so bestFixedArm() is available.
      new OneArmOracle({ ...armInfo(info, "one-arm-oracle"), rng, arm: (info.env as ArmEnvironment).bestFixedArm() }),
  },
];

const kArmedDefaults: Params = { k: 10, rewards: "bernoulli", noiseSd: 0.5, means: "", costs: "" };
const linearDefaults: Params = { contextDim: 10, k: 5, spread: 1, noiseSd: 0.1, mcSamples: 20000, arrivals: "" };

/** Policies, environments and scenarios contributed by this family. */
export const classicRegistry: FamilyRegistry = {
  policies,
  environments: [
    {
      name: "k-armed",
      protocol: "arm",
      family: "@routekit/environments",
      description: "stochastic K-armed bandit (Bernoulli or Gaussian rewards; means given or drawn per seed)",
      defaults: kArmedDefaults,
      create: (p) => {
        const means = numbers(p.means, "means");
        const costs = numbers(p.costs, "costs");
        return new StochasticBandit({
          k: armCount(p.k),
          rewards: String(p.rewards) as "bernoulli" | "gaussian",
          noiseSd: Number(p.noiseSd),
          ...(means ? { means } : {}),
          ...(costs ? { costs } : {}),
        });
      },
    },
    {
      name: "linear-contextual",
      protocol: "arm",
      family: "@routekit/environments",
      description: "contexts on the unit sphere, reward <theta_arm, x> + noise; the best arm depends on the context",
      defaults: linearDefaults,
      create: (p) =>
        new LinearContextualBandit({
          contextDim: Number(p.contextDim),
          k: armCount(p.k),
          spread: Number(p.spread),
          noiseSd: Number(p.noiseSd),
          mcSamples: mcSampleCount(p.mcSamples),
          arrivals: arrivals(p.arrivals),
        }),
    },
  ],
  scenarios: [
    {
      name: "classic-demo",
      protocol: "arm",
      description:
        "classic baselines on a linear contextual bandit (d = 10, K = 5): per-arm LinUCB learns the context-dependent best arm, context-free policies cannot",
      environment: { name: "linear-contextual", params: { contextDim: 10, k: 5 } },
      policies: [
        { label: "one-arm oracle", policy: "one-arm-oracle" },
        { label: "random", policy: "random" },
        { label: "epsilon-greedy", policy: "epsilon-greedy" },
        { label: "UCB1", policy: "ucb1" },
        { label: "Thompson (Gaussian)", policy: "thompson-gaussian", params: { noiseVariance: 0.01 } },
        { label: "LinUCB shared", policy: "linucb-shared" },
        { label: "LinUCB disjoint", policy: "linucb-disjoint" },
      ],
      seeds: 5,
      horizon: 3000,
      metrics: ["regret", "o2b", "opr"],
      reference:
        "expected: LinUCB disjoint regret far below all others (~50 at T = 5000 in our runs) with positive O2B; the context-free policies and shared LinUCB track the one-arm oracle (O2B ~ 0)",
    },
  ],
};

/**
 * The environment's arm count, at most what a policy accepts: checked before the environment allocates its
 * arms (k = 1e9 ran out of memory instead of failing as bad usage).
 */
function armCount(k: unknown): number {
  const n = Number(k);
  if (n > MAX_INITIAL_ARMS) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `option k must be at most ${MAX_INITIAL_ARMS} (the most arms a policy takes), got ${n}`,
    );
  }
  return n;
}

/** Monte-Carlo samples of the linear environment, capped as the HPG environments cap theirs (1e12 ran for hours). */
function mcSampleCount(m: unknown): number {
  const n = Number(m);
  if (n > 10_000_000) {
    throw new RouteKitError(ErrorCode.OutOfRange, `option mcSamples must be at most 10000000, got ${n}`);
  }
  return n;
}
