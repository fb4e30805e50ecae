/**
 * Every cascade policy (the pandora family: Online Pandora's Box for Contextual LLM Cascading) as a fuzzer
 * spec, with small dimensions.
 */
import type { CascadePolicy, Snapshot } from "@routekit/core";
import type { CascadePolicySpec, OptionRange } from "@routekit/core/testing";
import { Cosmos, OneShot, QueryAll, ThresholdCascade, WeitzmanOracle } from "@routekit/pandora";

/** Context and output-feature lengths used for cascade policies. */
export const CASCADE_DX = 2;
export const CASCADE_D = 3;
const dims = { contextDim: CASCADE_DX, outputDim: CASCADE_D };

function cascade<P extends CascadePolicy>(
  name: string,
  create: (arms: readonly string[], seed: number) => P,
  restore: (s: Snapshot) => P,
  extra: Partial<CascadePolicySpec<P>> = {},
): CascadePolicySpec<CascadePolicy> {
  return {
    name,
    create: ({ arms, seed }) => create(arms, seed),
    restore,
    ...extra,
  } as CascadePolicySpec<CascadePolicy>;
}

/**
 * The raw-constructor part of a spec (misuse and option checks): `cls` called with
 * `{ arms: ["arm-0", "arm-1", "arm-2"], seed: 1, ...dims, ...base }` must build a valid policy.
 */
function raw<P extends CascadePolicy>(
  cls: new (o: never) => P,
  base: Record<string, unknown>,
  optionRanges: OptionRange[],
): Partial<CascadePolicySpec<P>> {
  return {
    construct: (o: unknown) => new cls(o as never),
    baseOptions: { arms: ["arm-0", "arm-1", "arm-2"], seed: 1, ...dims, ...base },
    optionRanges,
  };
}

const nonNegative = (name: string): OptionRange => ({ name, min: 0 });
/** The ridges' documented range (README "Options"). */
const ridge = (name: string): OptionRange => ({ name, min: 1e-8, max: 1e8 });
const choice = (name: string, ...values: (string | boolean)[]): OptionRange => ({ name, values });
const flag = (name: string): OptionRange => choice(name, true, false);
/** Options every cascade policy documents (README "Options"); the dimensions' tops (65,536) are too big to build. */
const common: OptionRange[] = [
  { name: "contextDim", min: 0, integer: true },
  { name: "outputDim", min: 1, integer: true },
  { name: "maxPending", min: 1, max: 10_000_000, integer: true },
];
/** The learned-reward options of COSMOS and QueryAll / ThresholdCascade. */
const reward: OptionRange[] = [ridge("ridge"), choice("rewardLink", "identity", "logistic"), flag("rewardIntercept")];
/** COSMOS's own options (the radius bounds also take Infinity, so they are not declared as finite ranges). */
const cosmosRanges: OptionRange[] = [
  ...common,
  ...reward,
  nonNegative("exploration"),
  nonNegative("explorationPlugIn"),
  nonNegative("explorationReward"),
  ridge("indexRidge"),
  { name: "linkKnee", min: 0, max: 1, openMin: true, openMax: true },
  { name: "refitGrowth", min: 1, max: 1e6, openMin: true },
  { name: "maxIter", min: 1, max: 10_000, integer: true },
  { name: "horizon", min: 2, integer: true },
  { name: "confidence", min: 0, max: 1, openMin: true, openMax: true },
  choice("indexLink", "tanh", "logistic", "linear"),
  flag("indexIntercept"),
  choice("refit", "exact", "geometric"),
];

export const cascadePolicies: CascadePolicySpec[] = [
  cascade(
    "pandora/cosmos-known",
    (arms, seed) => new Cosmos({ arms, seed, ...dims, rewardParameter: [1, 0, 0], indexLink: "linear" }),
    Cosmos.fromJSON,
  ),
  cascade(
    "pandora/cosmos-learned",
    (arms, seed) => new Cosmos({ arms, seed, ...dims, rewardIntercept: true }),
    Cosmos.fromJSON,
    raw(Cosmos, { rewardIntercept: true }, cosmosRanges),
  ),
  cascade(
    "pandora/cosmos-learned-logistic-geometric",
    (arms, seed) => new Cosmos({ arms, seed, ...dims, rewardLink: "logistic", refit: "geometric", rewardBound: 5 }),
    Cosmos.fromJSON,
  ),
  cascade(
    "pandora/cosmos-theory",
    (arms, seed) =>
      new Cosmos({ arms, seed, ...dims, rewardBound: 3, radiusMode: "theory", theory: { kappa: 0.05 }, horizon: 1000 }),
    Cosmos.fromJSON,
    raw(Cosmos, { rewardBound: 3, radiusMode: "theory", theory: { kappa: 0.05 }, horizon: 1000 }, [
      choice("radiusMode", "scaled", "theory"),
    ]),
  ),
  cascade(
    "pandora/cosmos-greedy",
    (arms, seed) => new Cosmos({ arms, seed, ...dims, rewardParameter: [1, 0, 0], exploration: 0 }),
    Cosmos.fromJSON,
  ),
  cascade(
    "pandora/query-all",
    (arms, seed) => new QueryAll({ arms, seed, ...dims }),
    QueryAll.fromJSON,
    raw(QueryAll, {}, [...common, ...reward, nonNegative("exploration")]),
  ),
  cascade(
    "pandora/threshold",
    (arms, seed) => new ThresholdCascade({ arms, seed, ...dims, rewardParameter: [1, 0, 0], threshold: 0.4 }),
    ThresholdCascade.fromJSON,
    raw(ThresholdCascade, { threshold: 0.4 }, [...common, ...reward]),
  ),
  cascade(
    "pandora/one-shot",
    (arms, seed) => new OneShot({ arms, seed, ...dims }),
    OneShot.fromJSON,
    raw(OneShot, {}, [...common, nonNegative("exploration"), ridge("ridge"), flag("indexIntercept")]),
  ),
  cascade(
    "pandora/oracle",
    (arms, seed) =>
      new WeitzmanOracle({
        arms,
        seed,
        ...dims,
        rewardParameter: [1, 0, 0],
        indexParameters: Object.fromEntries(arms.map((a, i) => [a, [0.5 - 0.1 * i, 0.1, 0]])),
      }),
    WeitzmanOracle.fromJSON,
    {
      dynamicArms: false,
      ...raw(
        WeitzmanOracle,
        {
          rewardParameter: [1, 0, 0],
          indexParameters: Object.fromEntries(["arm-0", "arm-1", "arm-2"].map((a, i) => [a, [0.5 - 0.1 * i, 0.1, 0]])),
        },
        [
          common[2] as OptionRange,
          choice("indexLink", "tanh", "logistic", "linear"),
          { name: "linkKnee", min: 0, max: 1, openMin: true, openMax: true },
        ],
      ),
    },
  ),
];
