/**
 * Every cascade policy (the pandora family: Online Pandora's Box for Contextual LLM Cascading) as a fuzzer
 * spec, with small dimensions.
 */
import type { CascadePolicy, Snapshot } from "@routekit/core";
import type { CascadePolicySpec } from "@routekit/core/testing";
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
  ),
  cascade(
    "pandora/cosmos-greedy",
    (arms, seed) => new Cosmos({ arms, seed, ...dims, rewardParameter: [1, 0, 0], exploration: 0 }),
    Cosmos.fromJSON,
  ),
  cascade("pandora/query-all", (arms, seed) => new QueryAll({ arms, seed, ...dims }), QueryAll.fromJSON),
  cascade(
    "pandora/threshold",
    (arms, seed) => new ThresholdCascade({ arms, seed, ...dims, rewardParameter: [1, 0, 0], threshold: 0.4 }),
    ThresholdCascade.fromJSON,
  ),
  cascade("pandora/one-shot", (arms, seed) => new OneShot({ arms, seed, ...dims }), OneShot.fromJSON),
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
    { dynamicArms: false },
  ),
];
