/**
 * Seeded checks of the budget modes, sublinear regret on stationary instances, the discovery
 * bottleneck and the lower-bound instance (paper Thm. 1 and 2, App. C).
 */
import { batchSwitch, StagedCostBandit, stationaryInstance } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { StageRoute, type StageRouteOptions, stageValue } from "../src/index.js";
import { mean, median, pairedT, routerBenchRuns, routerBenchSetup, run } from "./helpers.js";

const seeds = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("budget", () => {
  it("RouterBench surrogate (costUnit = b, M_max = 6): average cost <= 1.10 b; paced: <= 1.002 b at T", () => {
    const { T } = routerBenchSetup();
    // The same memoised runs as readme.test.ts (seeds 0-9).
    const avg = routerBenchRuns({}, 10);
    const paced = routerBenchRuns({ budgetMode: "paced", horizon: T }, 10);
    // The notes also quote paced at M_max = 3 (prototype 1.0007 b, 3 seeds). It does not hold on 10 seeds:
    // 7 seeds end within 1.0006 b but seeds 5, 7 and 8 end at 1.0043, 1.0274 and 1.1049 b (mean 1.0138). With
    // 3 slots and caps 0.4 the frozen stage sets often lack WizardLM (the only model under b), so the early
    // stages spend about 2.7 b per round; pacing must then recover at about 0.73 b per round against a floor of
    // 0.705 b (the cheapest all-traffic mix), and one later optimistic deployment of an expensive newcomer
    // (the mid-stage fallback to the cheapest fill) makes the overspend unrecoverable. Not asserted (measured with seeds 0-9).
    const a = mean(avg.map((r) => r.avgCost)) / 0.0002;
    const p = Math.max(...paced.map((r) => r.avgCost)) / 0.0002;
    console.log(
      `RouterBench: average mode ${a.toFixed(3)} b (median regret ${median(avg.map((r) => r.regret)).toFixed(0)}), ` +
        `paced worst seed ${p.toFixed(4)} b (median regret ${median(paced.map((r) => r.regret)).toFixed(0)})`,
    );
    expect(a).toBeLessThanOrEqual(1.1);
    expect(p).toBeLessThanOrEqual(1.002);
  });
});

describe("cost units", () => {
  it("RouterBench dollars in raw units (costUnit 1) keep cost bounds at c1 and overspend far above b", () => {
    const raw = routerBenchRuns({ costUnit: 1 }, 3);
    const spend = mean(raw.map((r) => r.avgCost)) / 0.0002;
    console.log(`RouterBench raw units: ${spend.toFixed(2)} b`);
    expect(spend).toBeGreaterThan(2);
  });
});

describe("stationary instances (5 models, no arrivals, Bernoulli rewards, initialPulls = 3)", () => {
  const Ts = [2000, 8000, 32000];
  function regrets(kind: "slack" | "tight") {
    const env = stationaryInstance({ oracle: stageValue, budget: kind });
    const options: StageRouteOptions = {
      arms: env.initialArms,
      budget: env.budget,
      maxDeployed: 5,
      stageLength: 1_000_000,
      initialPulls: 3,
      minCost: 0.1,
      maxCost: 0.5,
    };
    return seeds(20).map((s) => run(env, (rng) => new StageRoute({ ...options, rng }), 32_000, s, Ts));
  }

  it("slack budget: regret / T falls across T = 2k, 8k, 32k, log-log slope < 0.9, reward within 0.01 of V", () => {
    const rs = regrets("slack");
    const meanAt = Ts.map((_, i) => mean(rs.map((r) => r.at[i] as number)));
    const medAt = Ts.map((_, i) => median(rs.map((r) => r.at[i] as number)));
    console.log(
      `slack: mean regret ${meanAt.map((x) => x.toFixed(1)).join(" / ")}, median ${medAt.map((x) => x.toFixed(1)).join(" / ")}`,
    );
    for (const at of [meanAt, medAt]) {
      expect((at[1] as number) / 8000).toBeLessThan((at[0] as number) / 2000);
      expect((at[2] as number) / 32000).toBeLessThan((at[1] as number) / 8000);
    }
    const slope = Math.log((meanAt[2] as number) / (meanAt[0] as number)) / Math.log(16);
    expect(slope).toBeLessThan(0.9);
    const V = stageValue([0.9, 0.8, 0.7, 0.6, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1], [1, 1, 1, 1, 1], 0.6, 5).value;
    expect(V).toBeCloseTo(0.9, 12);
    expect(Math.abs(mean(rs.map((r) => r.reward)) / 32000 - V)).toBeLessThan(0.01);
  });

  it("tight budget: |regret| / T falls (mean and median) and average cost <= 1.02 b at T = 32k", () => {
    const rs = regrets("tight");
    const absAt = Ts.map((T, i) => Math.abs(mean(rs.map((r) => r.at[i] as number))) / T);
    // Regrets here are heavy-tailed: compare medians as well as means.
    const absMedAt = Ts.map((T, i) => Math.abs(median(rs.map((r) => r.at[i] as number))) / T);
    console.log(
      `tight: |mean regret| / T ${absAt.map((x) => x.toFixed(4)).join(" / ")}, |median regret| / T ${absMedAt.map((x) => x.toFixed(4)).join(" / ")}, cost ${mean(rs.map((r) => r.avgCost)).toFixed(4)}`,
    );
    for (const at of [absAt, absMedAt]) {
      expect(at[1]).toBeLessThan(at[0] as number);
      expect(at[2]).toBeLessThan(at[1] as number);
    }
    expect(mean(rs.map((r) => r.avgCost))).toBeLessThanOrEqual(1.02 * 0.25);
  });
});

describe("discovery bottleneck and the lower-bound instance", () => {
  function discovery(M: number, K: number, seed: number) {
    const T = 20_000;
    const L = T / K;
    const env = new StagedCostBandit({
      models: Array.from({ length: 20 }, (_, i) => ({
        id: `m${i}`,
        reward: i === 13 ? 0.9 : 0.5,
        cost: 1,
        maxShare: 1,
      })),
      budget: 2,
      stageLength: L,
      maxDeployed: M,
      oracle: stageValue,
      rewardNoise: "bernoulli",
      costNoise: "fixed",
    });
    const options: StageRouteOptions = {
      arms: env.initialArms,
      budget: 2,
      maxDeployed: M,
      stageLength: L,
      minCost: 1,
      maxCost: 1,
      costUnit: 1,
    };
    return run(env, (rng) => new StageRoute({ ...options, rng }), T, seed).regret;
  }

  it("the best of 20 models is first deployed within ceil(N / M_max) = 10 stages, and regret grows with N / (M_max K)", () => {
    // Deployment of the best model: unplayed models keep UCB 1, so the slots rotate through them.
    for (const seed of seeds(10)) {
      const env = new StagedCostBandit({
        models: Array.from({ length: 20 }, (_, i) => ({
          id: `m${i}`,
          reward: i === 13 ? 0.9 : 0.5,
          cost: 1,
          maxShare: 1,
        })),
        budget: 2,
        stageLength: 500,
        maxDeployed: 2,
        oracle: stageValue,
        rewardNoise: "bernoulli",
        costNoise: "fixed",
      });
      let first = -1;
      run(
        env,
        (rng) => {
          const p = new StageRoute({
            arms: env.initialArms,
            budget: 2,
            maxDeployed: 2,
            stageLength: 500,
            minCost: 1,
            maxCost: 1,
            costUnit: 1,
            rng,
          });
          const select = p.select.bind(p);
          p.select = () => {
            if (first < 0 && p.deployedArms.includes("m13")) first = p.stage;
            return select();
          };
          return p;
        },
        6000,
        seed,
      );
      expect(first).toBeGreaterThanOrEqual(0);
      expect(first).toBeLessThan(10);
    }
    // >= 10 seeds, paired comparisons (the same seeds for every configuration).
    const per = (M: number, K: number) => seeds(10).map((s) => discovery(M, K, s));
    const [b, s5, s40] = [per(2, 10), per(5, 10), per(2, 40)];
    const [base, moreSlots, moreStages] = [mean(b), mean(s5), mean(s40)];
    console.log(
      `discovery regret (M_max, K) = (2,10) ${base.toFixed(0)}, (5,10) ${moreSlots.toFixed(0)}, (2,40) ${moreStages.toFixed(0)} ` +
        `(seeds 0-9; paired t of (5,10) - (2,10) ${pairedT(s5, b).toFixed(1)}, of (2,40) - (2,10) ${pairedT(s40, b).toFixed(1)})`,
    );
    expect(base).toBeGreaterThan(moreSlots);
    expect(base).toBeGreaterThan(moreStages);
  });

  it("BatchSwitch: regret is positive, grows faster than log T and like T^(2/3)", () => {
    const Ts = [4000, 16000, 64000];
    const reg = Ts.map((T) => {
      const env = batchSwitch({ oracle: stageValue, models: 2, horizon: T });
      const L = env.batchLength;
      return mean(
        seeds(10).map(
          (s) =>
            run(
              env,
              (rng) =>
                new StageRoute({
                  arms: env.initialArms,
                  budget: 1,
                  maxDeployed: env.maxDeployed,
                  stageLength: L,
                  minCost: 1,
                  maxCost: 1,
                  costUnit: 1,
                  rng,
                }),
              T,
              s,
            ).regret,
        ),
      );
    });
    console.log(`BatchSwitch regret at T = ${Ts.join(" / ")}: ${reg.map((x) => x.toFixed(1)).join(" / ")}`);
    for (const x of reg) expect(x).toBeGreaterThan(0);
    // log T grows by a factor log(64000) / log(4000) = 1.33; regret must grow by more.
    expect((reg[2] as number) / (reg[0] as number)).toBeGreaterThan(Math.log(64000) / Math.log(4000));
    // The README says regret grows like T^(2/3) here (the paper's lower bound, App. C, matched by its upper
    // bound): the log-log slope over T = 4000..64000 is within 0.1 of 2/3.
    const slope = Math.log((reg[2] as number) / (reg[0] as number)) / Math.log(16);
    console.log(`BatchSwitch log-log slope ${slope.toFixed(3)}`);
    expect(Math.abs(slope - 2 / 3)).toBeLessThan(0.1);
  });
});
