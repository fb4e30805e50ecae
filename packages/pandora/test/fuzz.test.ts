import { fuzzCascadePolicy } from "@routekit/core/testing";
import { describe, it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade, WeitzmanOracle } from "../src/index.js";

const dims = { contextDim: 2, outputDim: 3 };

describe("cascade protocol fuzzing", () => {
  it("COSMOS, known reward", () => {
    fuzzCascadePolicy(
      {
        name: "cosmos-known",
        create: ({ arms }) => new Cosmos({ arms, ...dims, rewardParameter: [1, 0, 0], indexLink: "linear" }),
        restore: (s) => Cosmos.fromJSON(s),
      },
      { numRuns: 150 },
    );
  });
  it("COSMOS, learned logistic reward, geometric refits", () => {
    fuzzCascadePolicy(
      {
        name: "cosmos-unknown",
        create: ({ arms }) =>
          new Cosmos({ arms, ...dims, rewardLink: "logistic", refit: "geometric", rewardIntercept: true }),
        restore: (s) => Cosmos.fromJSON(s),
      },
      { numRuns: 150 },
    );
  });
  it("baselines", () => {
    fuzzCascadePolicy(
      {
        name: "query-all",
        create: ({ arms }) => new QueryAll({ arms, ...dims }),
        restore: (s) => QueryAll.fromJSON(s),
      },
      { numRuns: 60 },
    );
    fuzzCascadePolicy(
      {
        name: "threshold",
        create: ({ arms }) => new ThresholdCascade({ arms, ...dims, rewardParameter: [1, 0, 0], threshold: 0.3 }),
        restore: (s) => ThresholdCascade.fromJSON(s),
      },
      { numRuns: 60 },
    );
    fuzzCascadePolicy(
      { name: "one-shot", create: ({ arms }) => new OneShot({ arms, ...dims }), restore: (s) => OneShot.fromJSON(s) },
      { numRuns: 60 },
    );
    fuzzCascadePolicy(
      {
        name: "oracle",
        dynamicArms: false,
        create: ({ arms }) =>
          new WeitzmanOracle({
            arms,
            ...dims,
            rewardParameter: [1, 0, 0],
            indexParameters: Object.fromEntries(arms.map((a, i) => [a, [0.5 - 0.1 * i, 0.1, 0]])),
          }),
        restore: (s) => WeitzmanOracle.fromJSON(s),
      },
      { numRuns: 60 },
    );
  });
});
