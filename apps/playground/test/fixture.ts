/** A tiny registry for tests, independent of what the families register. */
import { LinUCBDisjoint, RandomPolicy, UCB1 } from "@routekit/classic";
import { LinearContextualBandit, StochasticBandit } from "@routekit/environments";
import { replayRegistry } from "../src/registry/replay.js";
import type { FamilyRegistry } from "../src/registry/types.js";

export const fixtureRegistry: FamilyRegistry = {
  policies: [
    {
      name: "random",
      protocol: "arm",
      family: "@routekit/classic",
      description: "uniform baseline",
      defaults: {},
      create: (_p, { rng, info }) => new RandomPolicy({ arms: info.arms, rng }),
    },
    {
      name: "ucb1",
      protocol: "arm",
      family: "@routekit/classic",
      description: "UCB1",
      defaults: { exploration: 2 },
      create: (p, { rng, info }) => new UCB1({ arms: info.arms, rng, exploration: p.exploration as number }),
    },
    {
      name: "linucb-disjoint",
      protocol: "arm",
      family: "@routekit/classic",
      paper: "Li et al. 2010",
      description: "LinUCB with disjoint models",
      defaults: { exploration: 1, ridge: 1 },
      create: (p, { rng, info }) =>
        new LinUCBDisjoint({
          arms: info.arms,
          rng,
          contextDim: info.dim,
          exploration: p.exploration as number,
          ridge: p.ridge as number,
        }),
    },
  ],
  environments: [
    {
      name: "k-armed",
      protocol: "arm",
      family: "@routekit/environments",
      description: "Bernoulli arms",
      defaults: { k: 3 },
      create: (p) => new StochasticBandit({ k: p.k as number }),
    },
    {
      name: "linear-contextual",
      protocol: "arm",
      family: "@routekit/environments",
      description: "linear contextual arms",
      defaults: { contextDim: 4, k: 3 },
      create: (p) => new LinearContextualBandit({ contextDim: p.contextDim as number, k: p.k as number }),
    },
    ...replayRegistry.environments,
  ],
  scenarios: [
    {
      name: "fixture-demo",
      protocol: "arm",
      description: "three policies on a linear contextual environment",
      environment: { name: "linear-contextual", params: { contextDim: 4 } },
      policies: [
        { label: "random", policy: "random" },
        { label: "ucb1", policy: "ucb1" },
        { label: "linucb", policy: "linucb-disjoint", params: { exploration: 0.5 } },
      ],
      seeds: 2,
      horizon: 300,
      reference: "linucb beats ucb1 beats random",
    },
  ],
};
