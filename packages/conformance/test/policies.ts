/**
 * Every registered policy, per family, as a fuzzer spec. Small dimensions keep the suite fast;
 * the contract does not depend on size. Add a policy here and every conformance suite covers it.
 */
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
import type { ArmPolicy, AssortmentPolicy, Snapshot } from "@routekit/core";
import { type ArmPolicySpec, type AssortmentPolicySpec, HOSTILE_IDS, type OptionRange } from "@routekit/core/testing";
import { EuclideanPg, Exp3, Hpg, LogLinearPg, ParameterFreeHpg, UniformRouter } from "@routekit/hpg";
import { KernelUcb, PakUcb, RffUcb, SupPakUcb, SupRffUcb } from "@routekit/kernel-ucb";
import { OfuMnlPlus, TsMnl, UcbMnl } from "@routekit/mnl";
import { RatioGreedy, StageOracle, StageRoute } from "@routekit/stageroute";

/** Context length used for contextual arm policies. */
export const D = 3;
/** Item feature dimension and capacity used for assortment policies. */
export const MNL_D = 3;
export const MNL_K = 4;

function arm<P extends ArmPolicy>(
  name: string,
  create: (seed: number, arms: readonly string[]) => P,
  restore: (s: Snapshot) => P,
  extra: Partial<ArmPolicySpec<P>> = {},
): ArmPolicySpec<ArmPolicy> {
  return { name, create: ({ seed, arms }) => create(seed, arms), restore, ...extra } as ArmPolicySpec<ArmPolicy>;
}

/**
 * The raw-constructor part of a spec (misuse, option-range and maxPending checks): `cls` called with
 * `{ ...base, arms: ["arm-0", "arm-1", "arm-2"], seed: 1 }` must build a valid policy.
 */
function raw<P extends ArmPolicy>(
  cls: new (o: never) => P,
  base: Record<string, unknown>,
  optionRanges: OptionRange[] = [],
): Partial<ArmPolicySpec<P>> {
  return {
    construct: (o: unknown) => new cls(o as never),
    baseOptions: { arms: ["arm-0", "arm-1", "arm-2"], seed: 1, ...base },
    optionRanges,
  };
}

/** An option whose documented range is a finite number > 0 (ridges, prior variances). */
const positive = (name: string): OptionRange => ({ name, min: 0, openMin: true });
/** An option whose documented range is a finite number >= 0 (exploration multipliers). */
const nonNegative = (name: string): OptionRange => ({ name, min: 0 });
/** An integer option in [min, max] (no upper end when max is omitted). */
const int = (name: string, min: number, max?: number): OptionRange =>
  max === undefined ? { name, min, integer: true } : { name, min, max, integer: true };
/** A failure probability in (0, 1). */
const probability = (name: string): OptionRange => ({ name, min: 0, max: 1, openMin: true, openMax: true });
/** An option taking one of `values` (an enum of strings, or true/false). */
const choice = (name: string, ...values: (string | boolean)[]): OptionRange => ({ name, values });
const flag = (name: string): OptionRange => choice(name, true, false);
/** Pending decisions kept for late feedback: an integer in [1, 10^7] for every policy. */
const maxPending = int("maxPending", 1, 10_000_000);

/** Classic family: costs are validated (negative or non-finite cost is INVALID input). */
export const classicPolicies: ArmPolicySpec[] = [
  arm("classic/random", (seed, arms) => new RandomPolicy({ arms, seed }), RandomPolicy.fromJSON, {
    validatesCost: true,
    ...raw(RandomPolicy, {}),
  }),
  arm(
    "classic/epsilon-greedy",
    (seed, arms) => new EpsilonGreedy({ arms, seed, epsilon: 0.2 }),
    EpsilonGreedy.fromJSON,
    {
      validatesCost: true,
      ...raw(EpsilonGreedy, { epsilon: 0.2 }, [{ name: "epsilon", min: 0, max: 1 }, choice("decay", "none", "1/t")]),
    },
  ),
  arm(
    "classic/epsilon-greedy-1/t",
    (seed, arms) => new EpsilonGreedy({ arms, seed, epsilon: 1, decay: "1/t" }),
    EpsilonGreedy.fromJSON,
    { validatesCost: true, ...raw(EpsilonGreedy, { epsilon: 1, decay: "1/t" }, [{ name: "epsilon", min: 0, max: 1 }]) },
  ),
  arm("classic/ucb1", (seed, arms) => new UCB1({ arms, seed }), UCB1.fromJSON, {
    validatesCost: true,
    ...raw(UCB1, {}, [nonNegative("exploration")]),
  }),
  arm("classic/thompson-bernoulli", (seed, arms) => new ThompsonBernoulli({ arms, seed }), ThompsonBernoulli.fromJSON, {
    validatesCost: true,
    ...raw(ThompsonBernoulli, {}, [
      positive("priorAlpha"),
      positive("priorBeta"),
      choice("fractionalRewards", "bernoulli-trick", "fractional"),
    ]),
  }),
  arm(
    "classic/thompson-bernoulli-binary",
    (seed, arms) => new ThompsonBernoulli({ arms, seed, fractionalRewards: "fractional" }),
    ThompsonBernoulli.fromJSON,
    { validatesCost: true, rewards: "binary", ...raw(ThompsonBernoulli, { fractionalRewards: "fractional" }) },
  ),
  arm("classic/thompson-gaussian", (seed, arms) => new ThompsonGaussian({ arms, seed }), ThompsonGaussian.fromJSON, {
    validatesCost: true,
    rewards: [-5, 5],
    ...raw(ThompsonGaussian, {}, [positive("priorVariance"), positive("noiseVariance")]),
  }),
  arm(
    "classic/linucb-disjoint",
    (seed, arms) => new LinUCBDisjoint({ arms, seed, contextDim: D }),
    LinUCBDisjoint.fromJSON,
    {
      validatesCost: true,
      contexts: "box",
      ...raw(LinUCBDisjoint, { contextDim: D }, [nonNegative("exploration"), { name: "ridge", min: 1e-8, max: 1e8 }]),
    },
  ),
  arm(
    "classic/linucb-shared",
    (seed, arms) => new LinUCBShared({ arms, seed, contextDim: D, maxArms: 2 }),
    LinUCBShared.fromJSON,
    {
      validatesCost: true,
      ...raw(LinUCBShared, { contextDim: D, maxArms: 2 }, [
        nonNegative("exploration"),
        { name: "ridge", min: 1e-8, max: 1e8 },
      ]),
    },
  ),
  arm(
    "classic/one-arm-oracle",
    (seed, arms) => new OneArmOracle({ arms, seed, arm: arms[0] as string }),
    OneArmOracle.fromJSON,
    { validatesCost: true, pinnedArms: ["arm-0"], ...raw(OneArmOracle, { arm: "arm-0" }) },
  ),
];

/** Documented ranges shared by the kernel-ucb family (README "Options"). */
const kernelCommon: OptionRange[] = [
  nonNegative("exploration"),
  probability("confidence"),
  int("horizon", 1),
  int("contextDim", 1),
  maxPending,
  flag("normalizeContext"),
];
/**
 * The ridge's range is [1e-4, 1e9] for kernels whose values on unit contexts are at most 1 (RBF, linear, RFF); a
 * kernel with larger values needs k(y, y) / ridge <= 1e4, so the poly entries (and KernelUCB, whose default is
 * poly on the augmented context) check only the top end.
 */
const kernelRidge: OptionRange = { name: "ridge", min: 1e-4, max: 1e9 };
const kernelRidgeTop: OptionRange = { name: "ridge", max: 1e9 };

/** Kernel-UCB family (An Online Learning Approach to Prompt-based Selection of Generative Models and LLMs). */
export const kernelPolicies: ArmPolicySpec[] = [
  arm("kernel-ucb/pak-ucb-rbf", (seed, arms) => new PakUcb({ arms, seed, contextDim: D }), PakUcb.fromJSON, {
    validatesCost: true,
    ...raw(PakUcb, { contextDim: D }, [...kernelCommon, kernelRidge, int("initialCapacity", 1, 4096)]),
  }),
  arm(
    "kernel-ucb/pak-ucb-poly",
    (seed, arms) => new PakUcb({ arms, seed, contextDim: D, kernel: { type: "poly", gamma: 5 }, exploration: 0 }),
    PakUcb.fromJSON,
    {
      validatesCost: true,
      ...raw(PakUcb, { contextDim: D, kernel: { type: "poly", gamma: 5 }, exploration: 0 }, [
        ...kernelCommon,
        kernelRidgeTop,
        int("initialCapacity", 1, 4096),
      ]),
    },
  ),
  arm(
    "kernel-ucb/pak-ucb-linear",
    (seed, arms) => new PakUcb({ arms, seed, contextDim: D, kernel: { type: "linear" } }),
    PakUcb.fromJSON,
    {
      validatesCost: true,
      ...raw(PakUcb, { contextDim: D, kernel: { type: "linear" } }, [...kernelCommon, kernelRidge]),
    },
  ),
  arm(
    "kernel-ucb/rff-ucb",
    (seed, arms) => new RffUcb({ arms, seed, contextDim: D, frequencies: 8 }),
    RffUcb.fromJSON,
    {
      validatesCost: true,
      ...raw(RffUcb, { contextDim: D, frequencies: 8 }, [
        ...kernelCommon,
        kernelRidge,
        { name: "sigma", min: 1e-6, max: 1e6 },
        int("frequencies", 1, 1024),
        choice("rffVariant", "paper", "cosBias", "repo2D"),
      ]),
    },
  ),
  arm("kernel-ucb/kernel-ucb", (seed, arms) => new KernelUcb({ arms, seed, contextDim: D }), KernelUcb.fromJSON, {
    validatesCost: true,
    ...raw(KernelUcb, { contextDim: D }, [...kernelCommon, kernelRidgeTop, int("initialCapacity", 1, 4096)]),
  }),
  arm(
    "kernel-ucb/sup-pak-ucb",
    (seed, arms) => new SupPakUcb({ arms, seed, contextDim: D, horizon: 256 }),
    SupPakUcb.fromJSON,
    {
      validatesCost: true,
      ...raw(SupPakUcb, { contextDim: D, horizon: 256 }, [
        ...kernelCommon,
        kernelRidge,
        int("stages", 1, 64),
        choice("exploreChoice", "largest-width", "random"),
      ]),
    },
  ),
  arm(
    "kernel-ucb/sup-rff-ucb",
    (seed, arms) => new SupRffUcb({ arms, seed, contextDim: D, horizon: 256, maxFrequencies: 4 }),
    (s) => SupRffUcb.fromJSON(s),
    {
      validatesCost: true,
      ...raw(SupRffUcb, { contextDim: D, horizon: 256, maxFrequencies: 4 }, [
        ...kernelCommon,
        kernelRidge,
        int("stages", 1, 64),
        { name: "sigma", min: 1e-6, max: 1e6 },
        int("maxFrequencies", 1, 1024),
        choice("exploreChoice", "largest-width", "random"),
      ]),
    },
  ),
];

function assortment<P extends AssortmentPolicy>(
  name: string,
  create: (seed: number) => P,
  restore: (s: Snapshot) => P,
  extra: Partial<AssortmentPolicySpec<P>> = {},
): AssortmentPolicySpec<AssortmentPolicy> {
  return {
    name,
    create: ({ seed }) => create(seed),
    restore,
    maxK: MNL_K,
    maxItems: 8,
    ...extra,
  } as AssortmentPolicySpec<AssortmentPolicy>;
}

/** Documented ranges shared by the MNL family (README "Options"); contextDim's top (4096) is too big to build here. */
const mnlCommon: OptionRange[] = [
  positive("v0"),
  int("maxSize", 1, 1 << 20),
  int("contextDim", 1),
  maxPending,
  nonNegative("exploration"),
  positive("ridge"),
];
/** OFU-MNL+'s own options. */
const ofuRanges: OptionRange[] = [
  // ridge and stepSize >= 1e-100: H^-1 starts at I / ridge and the radius grows with ln(1 / ridge).
  ...mnlCommon.filter((r) => r.name !== "ridge"),
  { name: "ridge", min: 1e-100 },
  { name: "stepSize", min: 1e-100 },
  { name: "confidence", min: 0, max: 1, openMin: true },
  nonNegative("beta"),
  { name: "stepMultiplier", min: 0, max: 1e6, openMin: true },
  choice("preset", "paper", "authors-uniform", "authors-nonuniform", "practical"),
  choice("betaMode", "theory", "frozen", "constant"),
  choice("projection", "exact", "none"),
];
/** UCB-MNL's and TS-MNL's own options. */
const mleRanges: OptionRange[] = [
  ...mnlCommon,
  int("maxNewtonIterations", 1, 1000),
  choice("preset", "authors-uniform", "authors-nonuniform", "theory"),
  choice("alphaMode", "frozen", "theory"),
  choice("kappaMode", "code", "theory"),
];

/** MNL family (Nearly Minimax Optimal Regret for Multinomial Logistic Bandit). */
export const mnlPolicies: AssortmentPolicySpec[] = [
  assortment("mnl/ofu-mnl-plus", () => new OfuMnlPlus({ contextDim: MNL_D, maxSize: MNL_K }), OfuMnlPlus.fromJSON, {
    fillsUnderUniformRevenue: true,
    construct: (o: unknown) => new OfuMnlPlus(o as never),
    baseOptions: { contextDim: MNL_D, maxSize: MNL_K },
    optionRanges: ofuRanges,
  }),
  assortment(
    "mnl/ofu-mnl-plus-practical",
    () => new OfuMnlPlus({ contextDim: MNL_D, maxSize: MNL_K, preset: "practical" }),
    OfuMnlPlus.fromJSON,
    {
      fillsUnderUniformRevenue: true,
      construct: (o: unknown) => new OfuMnlPlus(o as never),
      baseOptions: { contextDim: MNL_D, maxSize: MNL_K, preset: "practical" },
      optionRanges: ofuRanges,
    },
  ),
  assortment("mnl/ucb-mnl", () => new UcbMnl({ contextDim: MNL_D, maxSize: MNL_K }), UcbMnl.fromJSON, {
    fillsUnderUniformRevenue: true,
    construct: (o: unknown) => new UcbMnl(o as never),
    baseOptions: { contextDim: MNL_D, maxSize: MNL_K },
    optionRanges: mleRanges,
  }),
  assortment("mnl/ts-mnl", (seed) => new TsMnl({ contextDim: MNL_D, maxSize: MNL_K, seed }), TsMnl.fromJSON, {
    fillsUnderUniformRevenue: true,
    construct: (o: unknown) => new TsMnl(o as never),
    baseOptions: { contextDim: MNL_D, maxSize: MNL_K, seed: 1 },
    optionRanges: [...mleRanges, int("samples", 1, 10_000)],
  }),
];

/**
 * StageRoute family (Keeping Up with the Models): costs required and validated; short stages so the fuzzer crosses
 * many stage boundaries.
 */
const stage = { budget: 1, maxDeployed: 3, stageLength: 4 };
/**
 * The oracle needs true means for every arm it may meet (an unknown id is refused): every id the suites add, i.e. the
 * fuzzer's `arm-<k>` (at most 4 initial arms plus one per step, 20 steps at most), the concurrency check's
 * `arm-new-<k>`, the fixture generator's `late-<run seed>-<k>` (one per 17 rounds of 40), and the hostile ids when
 * it starts from them (only then: the 10,000-character id would otherwise sit in every snapshot). Rewards and costs
 * spread over [0.2, 0.9] and [0.2, 1.8], so the budget of 1 binds.
 */
function oracleMeans(arms: readonly string[]): Record<string, { reward: number; cost: number }> {
  const ids = [
    ...Array.from({ length: 32 }, (_, k) => `arm-${k}`),
    ...Array.from({ length: 6 }, (_, k) => `arm-new-${k}`),
  ];
  for (const run of ["warmup", "continuation"])
    for (let k = 0; k < 3; k++) ids.push(`late-stageroute/oracle:${run}-${k}`);
  if (arms.some((a) => HOSTILE_IDS.includes(a))) ids.push(...HOSTILE_IDS);
  const means: Record<string, { reward: number; cost: number }> = {};
  ids.forEach((id, k) => {
    // defineProperty: "__proto__" must become an own key, not the record's prototype.
    Object.defineProperty(means, id, {
      value: { reward: 0.2 + 0.7 * ((k * 0.618034) % 1), cost: 0.2 + 1.6 * ((k * 0.381966) % 1) },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return means;
}
/** Documented ranges of the stage options (README "Options"). */
const stageRanges: OptionRange[] = [
  // >= 1e-100: costs are divided by the unit (budget by default), so a smaller one overflows them.
  { name: "budget", min: 1e-100 },
  int("maxDeployed", 1, 1 << 16),
  int("stageLength", 1),
  // (0, 1]; the low end is not checked alone: three arms capped below 1/3 each are INFEASIBLE_BUDGET together.
  // It also takes a per-arm map { [arm]: share }, so an empty object is valid.
  { name: "maxShare", max: 1, alsoObject: true },
  nonNegative("exploration"),
  nonNegative("minCost"),
  { name: "costUnit", min: 1e-100 },
  { name: "priorReward", min: 0, max: 1 },
  nonNegative("priorCost"),
  int("initialPulls", 1, 1_000_000),
  int("enumLimit", 0, 1e8),
  int("horizon", 1),
  maxPending,
  choice("estimator", "mean", "shrunk"),
  flag("fillSlots"),
  choice("tieBreak", "random", "index"),
];
export const stageroutePolicies: ArmPolicySpec[] = [
  arm(
    "stageroute/stageroute-budget-average",
    (seed, arms) => new StageRoute({ arms, seed, ...stage }),
    StageRoute.fromJSON,
    {
      validatesCost: true,
      costs: [0, 2],
      ...raw(StageRoute, stage, stageRanges),
    },
  ),
  arm(
    "stageroute/stageroute-budget-paced",
    (seed, arms) => new StageRoute({ arms, seed, ...stage, budgetMode: "paced", horizon: 50, initialPulls: 2 }),
    StageRoute.fromJSON,
    {
      validatesCost: true,
      costs: [0, 2],
      ...raw(StageRoute, { ...stage, budgetMode: "paced", horizon: 50, initialPulls: 2 }, [
        ...stageRanges,
        choice("budgetMode", "average", "paced"),
      ]),
    },
  ),
  arm("stageroute/ratio-greedy", (seed, arms) => new RatioGreedy({ arms, seed, ...stage }), RatioGreedy.fromJSON, {
    validatesCost: true,
    costs: [0, 2],
    ...raw(RatioGreedy, stage, stageRanges),
  }),
  arm(
    "stageroute/oracle",
    (seed, arms) => new StageOracle({ arms, seed, ...stage, means: oracleMeans(arms) }),
    StageOracle.fromJSON,
    {
      validatesCost: true,
      costs: [0, 2],
      ...raw(StageOracle, { ...stage, means: oracleMeans([]) }, stageRanges),
    },
  ),
];

/** Ranges every HPG-family router documents. */
const routerRanges: OptionRange[] = [
  int("horizon", 1),
  int("contextDim", 1),
  maxPending,
  flag("normalizeContext"),
  flag("clipRewards"),
];
/** The low-rank routers' iterate options. */
const lowRank: OptionRange[] = [...routerRanges, positive("stepSize"), int("maxRank", 1), int("reorthEvery", 0)];

/** HPG family (Policy Regret for Embedding Model Routing): routers over unit-norm query embeddings, rewards clipped to [-1, 1]. */
export const hpgPolicies: ArmPolicySpec[] = [
  arm(
    "hpg/hpg",
    (seed, arms) => new Hpg({ arms, seed, contextDim: D, horizon: 200, normalizeContext: true }),
    Hpg.fromJSON,
    raw(Hpg, { contextDim: D, horizon: 200, normalizeContext: true }, [
      ...lowRank,
      positive("radius"),
      positive("beta"),
      int("latentRank", 1, D),
    ]),
  ),
  arm(
    "hpg/parameter-free",
    (seed, arms) => new ParameterFreeHpg({ arms, seed, contextDim: D, horizon: 200, normalizeContext: true }),
    ParameterFreeHpg.fromJSON,
    raw(ParameterFreeHpg, { contextDim: D, horizon: 200, normalizeContext: true }, [
      ...lowRank,
      positive("initialWealth"),
    ]),
  ),
  arm(
    "hpg/euclidean-pg",
    (seed, arms) => new EuclideanPg({ arms, seed, contextDim: D, horizon: 200, normalizeContext: true }),
    EuclideanPg.fromJSON,
    raw(EuclideanPg, { contextDim: D, horizon: 200, normalizeContext: true }, [
      ...lowRank,
      positive("radius"),
      int("latentRank", 1, D),
    ]),
  ),
  arm(
    "hpg/log-linear-pg",
    (seed, arms) => new LogLinearPg({ arms, seed, contextDim: D, horizon: 200, normalizeContext: true }),
    LogLinearPg.fromJSON,
    raw(LogLinearPg, { contextDim: D, horizon: 200, normalizeContext: true }, [...routerRanges, positive("stepSize")]),
  ),
  arm(
    "hpg/exp3",
    (seed, arms) => new Exp3({ arms, seed, contextDim: D, horizon: 200, normalizeContext: true }),
    Exp3.fromJSON,
    raw(Exp3, { contextDim: D, horizon: 200, normalizeContext: true }, [
      ...routerRanges,
      { name: "gamma", min: 0, max: 1, openMin: true },
    ]),
  ),
  arm(
    "hpg/uniform",
    (seed, arms) => new UniformRouter({ arms, seed, contextDim: D, normalizeContext: true }),
    UniformRouter.fromJSON,
    raw(UniformRouter, { contextDim: D, normalizeContext: true }, routerRanges),
  ),
  // Last, so the robustness suite's "another policy's snapshot" never picks hpg/hpg for it (same kind).
  arm(
    "hpg/hpg-rank-capped",
    (seed, arms) => new Hpg({ arms, seed, contextDim: D, maxRank: 1, radius: 0.5, normalizeContext: true }),
    Hpg.fromJSON,
    raw(Hpg, { contextDim: D, maxRank: 1, radius: 0.5, normalizeContext: true }, [...lowRank, positive("radius")]),
  ),
];

export const armPolicies: ArmPolicySpec[] = [
  ...classicPolicies,
  ...kernelPolicies,
  ...stageroutePolicies,
  ...hpgPolicies,
];
