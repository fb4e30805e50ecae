/**
 * README "Policies and options" sentences no other test checked: each policy's documented defaults (the table and the
 * options every policy accepts), the contextDim range of the context-free policies (0 ignores any context, at most
 * 65,536), the expiry of the oldest pending decision beyond maxPending, and that rewards 0 and 1 never draw in the
 * Beta-Bernoulli sampler's Bernoulli trick.
 */
import { type ArmPolicy, ErrorCode, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
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

const arms = ["a", "b", "c"];
const state = (p: ArmPolicy) => p.toJSON().state as Record<string, unknown>;
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe("README: the documented defaults", () => {
  it("the options table's defaults, contextDim 0 for the context-free policies, maxPending 100,000, seed 0", () => {
    const cases: [ArmPolicy, Record<string, unknown>][] = [
      [new RandomPolicy({ arms }), {}],
      [new EpsilonGreedy({ arms }), { epsilon: 0.1, decay: "none" }],
      [new UCB1({ arms }), { exploration: Math.SQRT2 }],
      [new ThompsonBernoulli({ arms }), { priorAlpha: 1, priorBeta: 1, fractionalRewards: "bernoulli-trick" }],
      [new ThompsonGaussian({ arms }), { priorMean: 0, priorVariance: 1, noiseVariance: 1 }],
    ];
    for (const [p, own] of cases)
      expect(state(p), p.kind).toMatchObject({ ...own, contextDim: 0, maxPending: 100_000 });
    expect(state(new LinUCBDisjoint({ arms, contextDim: 3 }))).toMatchObject({
      exploration: 1,
      ridge: 1,
      maxPending: 100_000,
    });
    expect(state(new LinUCBShared({ arms, contextDim: 3 }))).toMatchObject({ exploration: 1, ridge: 1, maxArms: 64 });
    // seed defaults to 0: the same random stream as seed 0, and rng wins over seed.
    expect(state(new UCB1({ arms })).rng).toEqual(state(new UCB1({ arms, seed: 0 })).rng);
    expect(state(new UCB1({ arms, seed: 5, rng: Rng.fromSeed(9) })).rng).toEqual(
      state(new UCB1({ arms, seed: 9 })).rng,
    );
  });
});

describe("README: contextDim of the context-free policies", () => {
  const make = [
    (o: object) => new RandomPolicy({ arms, ...o }),
    (o: object) => new EpsilonGreedy({ arms, ...o }),
    (o: object) => new UCB1({ arms, ...o }),
    (o: object) => new ThompsonBernoulli({ arms, ...o }),
    (o: object) => new ThompsonGaussian({ arms, ...o }),
    (o: object) => new OneArmOracle({ arms, arm: "a", ...o }),
  ];
  it("0 (the default) ignores any context; > 0 requires a finite context of that length; at most 65,536", () => {
    for (const m of make) {
      const free = m({});
      for (const ctx of [undefined, Float64Array.of(1, 2, 3, 4, 5), Float64Array.of(Number.NaN)]) {
        const d = free.select(ctx);
        free.update(d, { reward: 1 });
      }
      const two = m({ contextDim: 2 });
      expect(
        codeOf(() => two.select()),
        two.kind,
      ).toBeDefined(); // no context at all (INVALID_ARGUMENT)
      expect(
        codeOf(() => two.select(Float64Array.of(1, 2, 3))),
        two.kind,
      ).toBe(ErrorCode.DimensionMismatch);
      expect(
        codeOf(() => two.select(Float64Array.of(1, Number.POSITIVE_INFINITY))),
        two.kind,
      ).toBe(ErrorCode.NonFinite);
      two.update(two.select(Float64Array.of(1, 2)), { reward: 1 });
      expect(codeOf(() => m({ contextDim: 65_536 }))).toBeUndefined();
      expect(codeOf(() => m({ contextDim: 65_537 }))).toBe(ErrorCode.OutOfRange);
    }
  });
});

describe("README: maxPending", () => {
  it("keeps that many pending decisions; the oldest expires beyond it (DECISION_EXPIRED)", () => {
    const p = new EpsilonGreedy({ arms, maxPending: 3, seed: 1 });
    const ds = [p.select(), p.select(), p.select(), p.select()];
    expect(codeOf(() => p.update(ds[0] as never, { reward: 1 }))).toBe(ErrorCode.DecisionExpired);
    for (const d of ds.slice(1)) p.update(d, { reward: 1 });
  });
});

describe("README: the Bernoulli trick", () => {
  it("a reward in (0, 1) draws a success from the policy's rng; rewards 0 and 1 never draw", () => {
    const played = () => {
      const p = new ThompsonBernoulli({ arms, seed: 3 });
      return [p, p.select()] as const;
    };
    for (const reward of [0, 1]) {
      const [p, d] = played();
      const rng = JSON.stringify(state(p).rng);
      p.update(d, { reward });
      expect(JSON.stringify(state(p).rng), `reward ${reward}`).toBe(rng);
    }
    const [p, d] = played();
    const rng = JSON.stringify(state(p).rng);
    p.update(d, { reward: 0.5 });
    expect(JSON.stringify(state(p).rng)).not.toBe(rng);
  });
});
