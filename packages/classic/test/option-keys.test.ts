import { isRouteKitError, type PolicyBase, type Snapshot } from "@routekit/core";
import { checkUnknownOptionKey } from "@routekit/core/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  EPSILON_GREEDY_OPTION_KEYS,
  EpsilonGreedy,
  type EpsilonGreedyOptions,
  LINUCB_DISJOINT_OPTION_KEYS,
  LINUCB_SHARED_OPTION_KEYS,
  LinUCBDisjoint,
  type LinUCBDisjointOptions,
  LinUCBShared,
  type LinUCBSharedOptions,
  ONE_ARM_ORACLE_OPTION_KEYS,
  OneArmOracle,
  type OneArmOracleOptions,
  RANDOM_POLICY_OPTION_KEYS,
  RandomPolicy,
  type RandomPolicyOptions,
  THOMPSON_BERNOULLI_OPTION_KEYS,
  THOMPSON_GAUSSIAN_OPTION_KEYS,
  ThompsonBernoulli,
  type ThompsonBernoulliOptions,
  ThompsonGaussian,
  type ThompsonGaussianOptions,
  UCB1,
  UCB1_OPTION_KEYS,
  type UCB1Options,
} from "../src/index.js";

it("each key list names exactly the keys of its options type", () => {
  expectTypeOf<(typeof UCB1_OPTION_KEYS)[number]>().toEqualTypeOf<keyof UCB1Options>();
  expectTypeOf<(typeof RANDOM_POLICY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof RandomPolicyOptions>();
  expectTypeOf<(typeof EPSILON_GREEDY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof EpsilonGreedyOptions>();
  expectTypeOf<(typeof ONE_ARM_ORACLE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof OneArmOracleOptions>();
  expectTypeOf<(typeof THOMPSON_BERNOULLI_OPTION_KEYS)[number]>().toEqualTypeOf<keyof ThompsonBernoulliOptions>();
  expectTypeOf<(typeof THOMPSON_GAUSSIAN_OPTION_KEYS)[number]>().toEqualTypeOf<keyof ThompsonGaussianOptions>();
  expectTypeOf<(typeof LINUCB_DISJOINT_OPTION_KEYS)[number]>().toEqualTypeOf<keyof LinUCBDisjointOptions>();
  expectTypeOf<(typeof LINUCB_SHARED_OPTION_KEYS)[number]>().toEqualTypeOf<keyof LinUCBSharedOptions>();
  expect(new Set(UCB1_OPTION_KEYS).size).toBe(UCB1_OPTION_KEYS.length);
});

type Case = [
  string,
  (o: unknown) => PolicyBase,
  (s: Snapshot) => PolicyBase,
  Record<string, unknown>,
  readonly string[],
];
const arms = ["a", "b"];
const CASES: Case[] = [
  ["UCB1", (o) => new UCB1(o as never), UCB1.fromJSON, { arms, exploration: 1 }, UCB1_OPTION_KEYS],
  [
    "RandomPolicy",
    (o) => new RandomPolicy(o as never),
    RandomPolicy.fromJSON,
    { arms, seed: 1 },
    RANDOM_POLICY_OPTION_KEYS,
  ],
  [
    "EpsilonGreedy",
    (o) => new EpsilonGreedy(o as never),
    EpsilonGreedy.fromJSON,
    { arms, epsilon: 0.2 },
    EPSILON_GREEDY_OPTION_KEYS,
  ],
  [
    "OneArmOracle",
    (o) => new OneArmOracle(o as never),
    OneArmOracle.fromJSON,
    { arms, arm: "a" },
    ONE_ARM_ORACLE_OPTION_KEYS,
  ],
  [
    "ThompsonBernoulli",
    (o) => new ThompsonBernoulli(o as never),
    ThompsonBernoulli.fromJSON,
    { arms, priorAlpha: 2 },
    THOMPSON_BERNOULLI_OPTION_KEYS,
  ],
  [
    "ThompsonGaussian",
    (o) => new ThompsonGaussian(o as never),
    ThompsonGaussian.fromJSON,
    { arms, noiseVariance: 2 },
    THOMPSON_GAUSSIAN_OPTION_KEYS,
  ],
  [
    "LinUCBDisjoint",
    (o) => new LinUCBDisjoint(o as never),
    LinUCBDisjoint.fromJSON,
    { arms, contextDim: 2, ridge: 2 },
    LINUCB_DISJOINT_OPTION_KEYS,
  ],
  [
    "LinUCBShared",
    (o) => new LinUCBShared(o as never),
    LinUCBShared.fromJSON,
    { arms, contextDim: 2, maxArms: 4 },
    LINUCB_SHARED_OPTION_KEYS,
  ],
];

describe.each(CASES)("%s", (name, construct, restore, baseOptions, keys) => {
  it("refuses unknown and misspelt option keys with INVALID_ARGUMENT", () => {
    expect(checkUnknownOptionKey({ name, construct, restore, baseOptions })).toBeGreaterThan(3);
  });
  it("accepts every listed key set to undefined (the default)", () => {
    for (const k of keys) {
      if (k in baseOptions && (k === "arms" || k === "arm" || k === "contextDim")) continue;
      expect(() => construct({ ...baseOptions, [k]: undefined } as never), k).not.toThrow();
    }
  });
});

it("README: an unknown option key, e.g. `exploraton`, is INVALID_ARGUMENT naming the near miss", () => {
  try {
    new UCB1({ arms, exploraton: 0.5 } as UCB1Options);
    expect.unreachable();
  } catch (e) {
    expect(isRouteKitError(e, "INVALID_ARGUMENT")).toBe(true);
    expect((e as Error).message).toContain('unknown option "exploraton" (did you mean "exploration"?)');
  }
});
