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
  create: (arms: readonly string[]) => P,
  restore: (s: Snapshot) => P,
  extra: Partial<CascadePolicySpec<P>> = {},
): CascadePolicySpec<CascadePolicy> {
  return { name, create: ({ arms }) => create(arms), restore, ...extra } as CascadePolicySpec<CascadePolicy>;
}

export const cascadePolicies: CascadePolicySpec[] = [
  cascade(
    "pandora/cosmos-known",
    (arms) => new Cosmos({ arms, ...dims, rewardParameter: [1, 0, 0], indexLink: "linear" }),
    Cosmos.fromJSON,
  ),
  cascade("pandora/cosmos-learned", (arms) => new Cosmos({ arms, ...dims, rewardIntercept: true }), Cosmos.fromJSON),
  cascade(
    "pandora/cosmos-learned-logistic-geometric",
    (arms) => new Cosmos({ arms, ...dims, rewardLink: "logistic", refit: "geometric", rewardBound: 5 }),
    Cosmos.fromJSON,
  ),
  cascade(
    "pandora/cosmos-theory",
    (arms) =>
      new Cosmos({ arms, ...dims, rewardBound: 3, radiusMode: "theory", theory: { kappa: 0.05 }, horizon: 1000 }),
    Cosmos.fromJSON,
  ),
  cascade(
    "pandora/cosmos-greedy",
    (arms) => new Cosmos({ arms, ...dims, rewardParameter: [1, 0, 0], exploration: 0 }),
    Cosmos.fromJSON,
  ),
  cascade("pandora/query-all", (arms) => new QueryAll({ arms, ...dims }), QueryAll.fromJSON),
  cascade(
    "pandora/threshold",
    (arms) => new ThresholdCascade({ arms, ...dims, rewardParameter: [1, 0, 0], threshold: 0.4 }),
    ThresholdCascade.fromJSON,
  ),
  cascade("pandora/one-shot", (arms) => new OneShot({ arms, ...dims }), OneShot.fromJSON),
  cascade(
    "pandora/oracle",
    (arms) =>
      new WeitzmanOracle({
        arms,
        ...dims,
        rewardParameter: [1, 0, 0],
        indexParameters: Object.fromEntries(arms.map((a, i) => [a, [0.5 - 0.1 * i, 0.1, 0]])),
      }),
    WeitzmanOracle.fromJSON,
    { dynamicArms: false },
  ),
];
