import { type ArmPolicy, type Experiment, logLogSlope, type PolicyFactory, runExperiment } from "@routekit/core";
import { LinearContextualBandit, StochasticBandit } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { LinUCBDisjoint, LinUCBShared, RandomPolicy, ThompsonBernoulli, ThompsonGaussian, UCB1 } from "../src/index.js";

const SEEDS = [1, 2, 3, 4, 5];

function run(
  env: () => StochasticBandit | LinearContextualBandit,
  horizon: number,
  policies: Record<string, PolicyFactory<ArmPolicy>>,
) {
  const exp: Experiment<"arm"> = {
    protocol: "arm",
    environment: env,
    seeds: SEEDS,
    horizon,
    points: 50,
    policies: Object.entries(policies).map(([label, create]) => ({ label, create })),
  };
  const res = runExperiment(exp);
  const by = (label: string) => {
    const runs = res.runs.filter((r) => r.policy === label);
    const slopes = runs.map((r) => logLogSlope(r.series.t, r.series.regret));
    const summary = res.summary.find((s) => s.policy === label);
    return { slopes, regret: summary?.regret.mean as number, o2b: summary?.o2b.mean as number };
  };
  return by;
}

describe("seeded regret growth", () => {
  it("K-armed Bernoulli: UCB1 and Thompson sub-linear, Random linear", () => {
    const arms = new StochasticBandit({ k: 5 }).initialArms;
    const by = run(() => new StochasticBandit({ k: 5 }), 10_000, {
      random: ({ rng }) => new RandomPolicy({ arms, rng }),
      ucb1: ({ rng }) => new UCB1({ arms, rng }),
      tsBeta: ({ rng }) => new ThompsonBernoulli({ arms, rng }),
      tsGauss: ({ rng }) => new ThompsonGaussian({ arms, rng, noiseVariance: 0.25 }),
    });
    const random = by("random");
    const ucb = by("ucb1");
    // Measured (5 seeds): Random 0.99-1.02, UCB1 0.22-0.56.
    for (const s of random.slopes) expect(s).toBeGreaterThan(0.9);
    for (const s of ucb.slopes) expect(s).toBeLessThan(0.75);
    // Measured: Thompson regret ~22 vs Random ~3800 and UCB1 ~150.
    for (const ts of ["tsBeta", "tsGauss"]) {
      expect(by(ts).regret).toBeLessThan(0.05 * random.regret);
      expect(by(ts).regret).toBeLessThan(ucb.regret);
      // No seed locks onto a worse arm: every seed sub-linear (linear is ~1, as Random shows). Measured:
      // tsGauss 0.14-0.78, tsBeta 0.00-0.33; a Gaussian sampler drawing with the posterior variance as its
      // standard deviation (too little exploration) locked in on seed 1 at slope 0.98 (regret 436).
      for (const s of by(ts).slopes) expect(s).toBeLessThan(0.9);
    }
    // Beta-Bernoulli Thompson is far below UCB1 (Chapelle & Li 2011). Measured: 20.6 vs 162 (0.13); a
    // posterior counting n rather than n - sum failures (Beta(1 + sum, 1 + n)) still converges but reached
    // 123 (0.76).
    expect(by("tsBeta").regret).toBeLessThan(0.3 * ucb.regret);
  });

  it("linear contextual: LinUCB-disjoint sub-linear and far below UCB1, shared LinUCB and Random", () => {
    const env = () => new LinearContextualBandit({ contextDim: 10, k: 5 });
    const arms = env().initialArms;
    const by = run(env, 5000, {
      random: ({ rng }) => new RandomPolicy({ arms, rng }),
      ucb1: ({ rng }) => new UCB1({ arms, rng }),
      disjoint: ({ rng }) => new LinUCBDisjoint({ arms, rng, contextDim: 10 }),
      shared: ({ rng }) => new LinUCBShared({ arms, rng, contextDim: 10 }),
    });
    const lin = by("disjoint");
    // Measured (5 seeds): LinUCB-disjoint 0.34-0.45 (regret ~52), UCB1 ~690, shared ~550, Random ~1900 (slope ~1).
    for (const s of lin.slopes) expect(s).toBeLessThan(0.75);
    for (const s of by("random").slopes) expect(s).toBeGreaterThan(0.9);
    expect(lin.regret).toBeLessThan(0.25 * by("ucb1").regret);
    expect(lin.regret).toBeLessThan(0.25 * by("shared").regret);
    // The per-context learner beats the best single arm (positive O2B); UCB1 cannot.
    expect(lin.o2b).toBeGreaterThan(0.05);
    expect(by("ucb1").o2b).toBeLessThan(0.01);
  });
});
