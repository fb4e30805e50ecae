import { type ArmDecision, type ArmPolicy, type ErrorCode, isRouteKitError, Rng, type Snapshot } from "@routekit/core";
import { expect } from "vitest";
import {
  EpsilonGreedy,
  LinUCBDisjoint,
  LinUCBShared,
  OneArmOracle,
  RandomPolicy,
  ThompsonBernoulli,
  ThompsonGaussian,
  UCB1,
} from "../src/index.js";

export const D = 4;

export interface Case {
  readonly name: string;
  readonly contextDim: number;
  readonly create: (arms: readonly string[], seed?: number) => ArmPolicy;
  readonly restore: (s: Snapshot) => ArmPolicy;
  /** Arms the policy never explores to (the oracle). */
  readonly fixed?: boolean;
}

export const CASES: readonly Case[] = [
  {
    name: "random",
    contextDim: 0,
    create: (arms, seed) => new RandomPolicy({ arms, seed }),
    restore: RandomPolicy.fromJSON,
  },
  {
    name: "epsilon-greedy",
    contextDim: 0,
    create: (arms, seed) => new EpsilonGreedy({ arms, seed, epsilon: 0.2 }),
    restore: EpsilonGreedy.fromJSON,
  },
  {
    name: "epsilon-greedy 1/t",
    contextDim: 0,
    create: (arms, seed) => new EpsilonGreedy({ arms, seed, epsilon: 1, decay: "1/t" }),
    restore: EpsilonGreedy.fromJSON,
  },
  { name: "ucb1", contextDim: 0, create: (arms, seed) => new UCB1({ arms, seed }), restore: UCB1.fromJSON },
  {
    name: "thompson-bernoulli",
    contextDim: 0,
    create: (arms, seed) => new ThompsonBernoulli({ arms, seed }),
    restore: ThompsonBernoulli.fromJSON,
  },
  {
    name: "thompson-bernoulli fractional",
    contextDim: 0,
    create: (arms, seed) => new ThompsonBernoulli({ arms, seed, fractionalRewards: "fractional" }),
    restore: ThompsonBernoulli.fromJSON,
  },
  {
    name: "thompson-gaussian",
    contextDim: 0,
    create: (arms, seed) => new ThompsonGaussian({ arms, seed }),
    restore: ThompsonGaussian.fromJSON,
  },
  {
    name: "ucb1 with contextDim",
    contextDim: D,
    create: (arms, seed) => new UCB1({ arms, seed, contextDim: D }),
    restore: UCB1.fromJSON,
  },
  {
    name: "linucb-disjoint",
    contextDim: D,
    create: (arms, seed) => new LinUCBDisjoint({ arms, seed, contextDim: D }),
    restore: LinUCBDisjoint.fromJSON,
  },
  {
    name: "linucb-shared",
    contextDim: D,
    create: (arms, seed) => new LinUCBShared({ arms, seed, contextDim: D, maxArms: 2 }),
    restore: LinUCBShared.fromJSON,
  },
  {
    name: "one-arm-oracle",
    contextDim: 0,
    create: (arms, seed) => new OneArmOracle({ arms, seed, arm: arms[0] ?? "a" }),
    restore: OneArmOracle.fromJSON,
    fixed: true,
  },
];

/**
 * Plays `rounds` selects against a toy reward (arm-dependent, in [0, 1]); feedback is delayed and
 * out of order: each round, with probability 0.6, one random pending decision gets its feedback.
 * Returns the picks (arm and propensity) in order. `pending` holds undelivered decisions.
 */
export function drive(
  policy: ArmPolicy,
  rng: Rng,
  rounds: number,
  pending: ArmDecision[],
  log: string[] = [],
): string[] {
  const d = policy.contextDim;
  for (let t = 0; t < rounds; t++) {
    const x = d > 0 ? rng.fillNormal(new Float64Array(d)) : undefined;
    const dec = policy.select(x);
    log.push(`${dec.id}:${dec.arm}:${dec.propensity ?? "-"}`);
    pending.push(dec);
    if (rng.uniform() < 0.6 && pending.length > 0) {
      const j = rng.int(pending.length);
      const [done] = pending.splice(j, 1) as [ArmDecision];
      const base = (done.arm.charCodeAt(done.arm.length - 1) % 7) / 7;
      policy.update(done, { reward: Math.min(1, Math.max(0, base + 0.2 * rng.normal())) });
    }
  }
  return log;
}

export function context(policy: ArmPolicy, rng: Rng = Rng.fromSeed(99)): Float64Array | undefined {
  return policy.contextDim > 0 ? rng.fillNormal(new Float64Array(policy.contextDim)) : undefined;
}

/** Asserts fn throws a RouteKitError with `code` and leaves the policy's snapshot text unchanged. */
export function expectRejects(policy: ArmPolicy, fn: () => unknown, code: ErrorCode): void {
  const before = JSON.stringify(policy.toJSON());
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, `expected ${code}`).toBeDefined();
  if (!isRouteKitError(err, code)) throw new Error(`expected RouteKitError ${code}, got ${String(err)}`);
  expect((err as Error).message.length).toBeGreaterThan(10);
  expect(JSON.stringify(policy.toJSON())).toBe(before);
}
