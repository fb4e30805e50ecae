import { isRouteKitError } from "@routekit/core";
import { expect, expectTypeOf, it } from "vitest";
import {
  ContextualMnlEnvironment,
  envA,
  envB,
  fitPolicyClasses,
  HashingFeaturizer,
  type LINEAR_CONTEXTUAL_BANDIT_OPTION_KEYS,
  LinearContextualBandit,
  type LinearContextualBanditOptions,
  PlantedQuadraticEnvironment,
  promptPool,
  type STAGED_COST_BANDIT_OPTION_KEYS,
  type STOCHASTIC_BANDIT_OPTION_KEYS,
  StagedCostBandit,
  type StagedCostBanditOptions,
  StochasticBandit,
  type StochasticBanditOptions,
  stationaryInstance,
  TwoTowerEnvironment,
  UniformCascadeEnvironment,
} from "../src/index.js";

it("key lists name exactly the keys of their options types", () => {
  expectTypeOf<(typeof STOCHASTIC_BANDIT_OPTION_KEYS)[number]>().toEqualTypeOf<keyof StochasticBanditOptions>();
  expectTypeOf<(typeof LINEAR_CONTEXTUAL_BANDIT_OPTION_KEYS)[number]>().toEqualTypeOf<
    keyof LinearContextualBanditOptions
  >();
  expectTypeOf<(typeof STAGED_COST_BANDIT_OPTION_KEYS)[number]>().toEqualTypeOf<keyof StagedCostBanditOptions>();
});

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isRouteKitError(e, "INVALID_ARGUMENT")) return e.message;
    throw e;
  }
  throw new Error("accepted");
}

const oracle = () => ({ value: 0, weights: [] });
const model = { id: "m", reward: 0.5, cost: 1, maxShare: 1 };
const box = { floor: [0.1, 0.1, 0], width: 0.8, meanCost: 0.01 };

it.each([
  ["StochasticBandit", () => new StochasticBandit({ noisesd: 1 } as never), '"noisesd" (did you mean "noiseSd"?)'],
  ["LinearContextualBandit", () => new LinearContextualBandit({ contextdim: 3 } as never), 'did you mean "contextDim"'],
  [
    "LinearContextualBandit arrivals[]",
    () => new LinearContextualBandit({ arrivals: [{ round: 1, arm: "x", thetas: [] }] } as never),
    'did you mean "theta"',
  ],
  ["ContextualMnlEnvironment", () => new ContextualMnlEnvironment({ maxsize: 2 } as never), 'did you mean "maxSize"'],
  ["envA", () => envA({ arm: ["a"] } as never), 'did you mean "arms"'],
  ["envB", () => envB({ nmae: "x" } as never), 'did you mean "name"'],
  [
    "UniformCascadeEnvironment boxes[]",
    () => new UniformCascadeEnvironment({ boxes: [{ ...box, meancost: 1 }] } as never),
    'boxes[0]: unknown option "meancost"',
  ],
  [
    "StagedCostBandit",
    () =>
      new StagedCostBandit({ models: [model], oracle, budget: 1, stageLength: 5, maxDeployed: 1, budgte: 1 } as never),
    'did you mean "budget"',
  ],
  [
    "StagedCostBandit models[]",
    () =>
      new StagedCostBandit({
        models: [{ ...model, share: 1 }],
        oracle,
        budget: 1,
        stageLength: 5,
        maxDeployed: 1,
      } as never),
    'models[0]: unknown option "share"',
  ],
  ["stationaryInstance", () => stationaryInstance({ oracle, stagelength: 5 } as never), 'did you mean "stageLength"'],
  ["HashingFeaturizer", () => new HashingFeaturizer({ dims: 8 } as never), 'did you mean "dim"'],
  [
    "PlantedQuadraticEnvironment",
    () => new PlantedQuadraticEnvironment({ contextDim: 4, latentrank: 1 } as never),
    'did you mean "latentRank"',
  ],
  ["TwoTowerEnvironment", () => new TwoTowerEnvironment({ contextDim: 4, item: 3 } as never), 'did you mean "items"'],
  ["promptPool overrides", () => promptPool("swap" as never, { poolsize: 4 } as never), 'did you mean "poolSize"'],
  [
    "fitPolicyClasses",
    () => fitPolicyClasses(new Float64Array(4), new Float64Array(4), 2, 2, 2, { iteration: 1 } as never),
    'did you mean "iterations"',
  ],
])("%s refuses an unknown option key with INVALID_ARGUMENT", (_name, build, text) => {
  expect(message(build)).toContain(text);
});

it("known keys set to undefined mean the default", () => {
  expect(() => new StochasticBandit({ noiseSd: undefined, k: 3 })).not.toThrow();
  expect(() => envA({ name: undefined })).not.toThrow();
  expect(() => new ContextualMnlEnvironment({ v0: undefined })).not.toThrow();
});
