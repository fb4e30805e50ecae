/** The README's promises that no other test covers: the option defaults and the clamped-noise remark. */
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { LinearContextualBandit, StochasticBandit } from "../src/basic/index.js";
import { ARENA_2025_MODELS, arenaSim2025, type StageValueSolver } from "../src/stageroute/index.js";

describe("README option tables: the documented defaults", () => {
  it("StochasticBandit: k 10 (arm0..arm9), Bernoulli rewards, noiseSd 0.5, no costs, name k-armed(K, rewards)", () => {
    const env = new StochasticBandit();
    expect(env.initialArms).toEqual(Array.from({ length: 10 }, (_, i) => `arm${i}`));
    expect([env.rewards, env.noiseSd, env.name]).toEqual(["bernoulli", 0.5, "k-armed(10, bernoulli)"]);
    env.reset(Rng.fromSeed(3));
    for (const arm of env.initialArms) {
      expect(env.expectedCost(arm)).toBe(0);
      const fb = env.pull(arm);
      expect(fb.reward === 0 || fb.reward === 1).toBe(true);
      expect(fb.cost ?? 0).toBe(0);
    }
  });

  it("LinearContextualBandit: contextDim 10, k 5, spread 1, noiseSd 0.1, mcSamples 20,000, name", () => {
    const env = new LinearContextualBandit();
    expect([env.contextDim, env.initialArms.length, env.spread, env.noiseSd, env.mcSamples, env.name]).toEqual([
      10,
      5,
      1,
      0.1,
      20_000,
      "linear-contextual(d=10, K=5)",
    ]);
    expect(env.initialArms).toEqual(["arm0", "arm1", "arm2", "arm3", "arm4"]);
  });

  it("each round's context is a fresh Float64Array (policies may keep it)", () => {
    const env = new LinearContextualBandit({ contextDim: 3, k: 2 });
    env.reset(Rng.fromSeed(1));
    const a = env.next(0).context as Float64Array;
    const kept = Float64Array.from(a);
    const b = env.next(1).context as Float64Array;
    expect(a).toBeInstanceOf(Float64Array);
    expect(b).not.toBe(a);
    expect(Array.from(a)).toEqual(Array.from(kept));
  });
});

describe("README: regret uses the un-clamped means", () => {
  it("a model at mu = 0 under N(0, 0.1^2) noise clamped to [0, 1] realises about 0.04 (0.1 / sqrt(2 pi)); its expected reward is 0", () => {
    const oracle: StageValueSolver = () => ({ value: 0, weights: [] });
    const env = arenaSim2025({ oracle });
    env.reset(Rng.fromSeed(5));
    env.next(0);
    const lowest = ARENA_2025_MODELS[4]?.id as string;
    expect(env.expectedReward(lowest)).toBe(0);
    const n = 40_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += env.pull(lowest).reward;
    // sd of the clamped draw is below 0.06, so 0.002 is more than 6 standard errors of the mean.
    expect(Math.abs(sum / n - 0.1 / Math.sqrt(2 * Math.PI))).toBeLessThan(0.002);
    expect(Math.abs(sum / n - 0.04)).toBeLessThan(0.0025);
  });
});
