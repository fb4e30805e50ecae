/**
 * Seeded statistical checks on the planted log-quadratic environment (d = 16, M = 4, s = 1, kappa = 2, theory
 * defaults, exact rank) with the seed count (10) and thresholds of the implementation notes RouteKit's HPG was
 * written from: linearized regret over T (separate runs per T), beating context-free and log-linear routers
 * where the best model depends on the query through an even function, parameter-free HPG within 3x of
 * tuned HPG, and, on the query-planted problem (5 seeds), dimension robustness and the rank cap against exact
 * rank. Seeded runs are memoised: the T = 16,000 HPG runs of the regret-over-T test are the tuned side of the
 * parameter-free comparison, the exact d = 64 runs serve both query-planted checks.
 */
import type { Rng } from "@routekit/core";
import {
  type DistributionRouter,
  PlantedQuadraticEnvironment,
  type RoutingExperimentResult,
  runRoutingExperiment,
} from "@routekit/environments";
import { describe, expect, test } from "vitest";
import { Exp3, Hpg, LogLinearPg, ParameterFreeHpg, UniformRouter } from "../src/index.js";

const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const D = 16;
const M = 4;

/** Mean and standard error over seeds. */
function meanSe(xs: number[]): { mean: number; se: number } {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const v = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(v / n) };
}
const mean = (xs: number[]) => meanSe(xs).mean;

type Make = (arms: string[], rng: Rng, T: number) => DistributionRouter;
const memo = new Map<string, RoutingExperimentResult[]>();
/** One run per seed of `SEEDS`, memoised by (router, planted, T). */
function runs(router: string, make: Make, T: number, planted: "ambient" | "query" = "ambient") {
  const key = `${router}/${planted}/${T}`;
  let r = memo.get(key);
  if (!r) {
    r = SEEDS.map((seed) => {
      const env = new PlantedQuadraticEnvironment({ contextDim: D, models: M, latentRank: 1, mcSamples: 200, planted });
      return runRoutingExperiment(env, (rng) => make([...env.initialArms], rng, T), { horizon: T, seed });
    });
    memo.set(key, r);
  }
  return r;
}
const hpg: Make = (arms, rng, T) => new Hpg({ arms, contextDim: D, horizon: T, rng });
const lin = (rs: RoutingExperimentResult[]) => rs.map((r) => r.linearizedRegret);
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" ");

describe("HPG statistical properties (seeded, 10 seeds)", () => {
  test("log-quadratic beats log-linear, EXP3 and uniform by > 3 s.e. where the best model depends on |u^T q| (T = 2 10^4)", () => {
    // Planted eigenvectors inside the query subspace with balanced signs: every model has the same mean
    // reward, and R_m(q) is even in q, so neither a constant nor a linear score can help. (With the planted
    // eigenvectors anywhere in R^d, the 4-dimensional query subspace sees a random part of each W*_m, some
    // models are better on average and EXP3 is not beaten: the README's "ambient" row.)
    const T = 20_000;
    const reward = (name: string, make: Make) => runs(name, make, T, "query").map((r) => r.expectedReward);
    const h = reward("hpg", hpg);
    const others = {
      "log-linear PG": reward(
        "log-linear",
        (arms, rng, TT) => new LogLinearPg({ arms, contextDim: D, horizon: TT, rng }),
      ),
      EXP3: reward("exp3", (arms, rng, TT) => new Exp3({ arms, contextDim: D, horizon: TT, rng })),
      uniform: reward("uniform", (arms, rng, TT) => new UniformRouter({ arms, contextDim: D, horizon: TT, rng })),
    };
    console.log(`expected reward at T = ${T}, seeds 0-9: HPG ${fmt(h)}`);
    for (const [name, xs] of Object.entries(others)) {
      const diff = meanSe(h.map((x, i) => x - (xs[i] as number)));
      console.log(
        `    ${name} ${fmt(xs)}; HPG minus ${name}: mean ${diff.mean.toFixed(0)} (s.e. ${diff.se.toFixed(0)}), ` +
          `range ${Math.min(...h.map((x, i) => x - (xs[i] as number))).toFixed(0)}-${Math.max(...h.map((x, i) => x - (xs[i] as number))).toFixed(0)}`,
      );
      expect(diff.mean, `HPG vs ${name}`).toBeGreaterThan(3 * diff.se);
      expect(diff.mean, `HPG vs ${name}`).toBeGreaterThan(0);
      // The README: "above ... on every seed".
      for (let i = 0; i < SEEDS.length; i++) expect(h[i], `HPG vs ${name}, seed ${i}`).toBeGreaterThan(xs[i] as number);
    }
  }, 600_000);

  test("linearized regret at T = 1k / 4k / 16k / 64k (separate runs): under 12 s sqrt(M T ln d), LinReg_T / T falling, log-log slopes falling, last <= 0.65", () => {
    const Ts = [1000, 4000, 16_000, 64_000];
    const per = Ts.map((T) => lin(runs("hpg", hpg, T)));
    const means = per.map(mean);
    const slopes = means.slice(1).map((m, i) => Math.log(m / (means[i] as number)) / Math.log(4));
    Ts.forEach((T, i) => {
      console.log(
        `HPG LinReg at T = ${T}: mean ${(means[i] as number).toFixed(1)}; seeds 0-9: ${fmt(per[i] as number[])}`,
      );
    });
    console.log(`    log-log slopes ${slopes.map((s) => s.toFixed(3)).join(", ")}`);
    Ts.forEach((T, i) => {
      expect(means[i]).toBeLessThanOrEqual(12 * 1 * Math.sqrt(M * T * Math.log(D)));
      if (i > 0) expect((means[i] as number) / T).toBeLessThan((means[i - 1] as number) / (Ts[i - 1] as number));
    });
    for (let i = 1; i < slopes.length; i++) expect(slopes[i]).toBeLessThan(slopes[i - 1] as number);
    expect(slopes[slopes.length - 1]).toBeLessThanOrEqual(0.65);
    for (const s of slopes) expect(s).toBeLessThan(1);
  }, 600_000);

  /**
   * The query-planted problem with the query noise's norm held at 0.4 (queryNoise 0.4 / sqrt(d)): the same routing
   * problem at every d, only the ambient dimension grows. (With "ambient" planting the query subspace sees less of
   * each W*_m as d grows, every model's mean reward approaches 0.5, and both the dimension and the rank-cap checks
   * pass by margins that say nothing about HPG: ratio 0.01, rewards equal to 4 digits.) Seeds 0-4, T = 4,000,
   * memoised by (d, maxRank).
   */
  const queryRuns = new Map<string, RoutingExperimentResult[]>();
  function queryPlanted(d: number, maxRank?: number): RoutingExperimentResult[] {
    const key = `${d}/${maxRank ?? "default"}`;
    let r = queryRuns.get(key);
    if (!r) {
      r = [0, 1, 2, 3, 4].map((seed) => {
        const env = new PlantedQuadraticEnvironment({
          contextDim: d,
          models: M,
          latentRank: 1,
          mcSamples: 200,
          planted: "query",
          queryNoise: 0.4 / Math.sqrt(d),
        });
        const rank = maxRank === undefined ? {} : { maxRank };
        return runRoutingExperiment(
          env,
          (rng) => new Hpg({ arms: [...env.initialArms], contextDim: d, horizon: 4000, ...rank, rng }),
          { horizon: 4000, seed },
        );
      });
      queryRuns.set(key, r);
    }
    return r;
  }

  test("dimension robustness: at d = 64 and 256 HPG's linearized regret stays under 2x that at d = 16 (T = 4,000, 5 seeds)", () => {
    // Exact rank at d = 16 and 64 (maxRank = d), the default cap 32 at d = 256 (exact there costs minutes).
    // Measured (seeds 0-4): mean 300.4 / 389.2 / 438.8 at d = 16 / 64 / 256, ratios 1.30 and 1.46;
    // sqrt(ln 256 / ln 16) = 1.41. 2x is the implementation notes' suggested threshold.
    const per = [queryPlanted(16), queryPlanted(64, 64), queryPlanted(256)].map(lin);
    const [m16, m64, m256] = per.map(mean) as [number, number, number];
    console.log(
      `HPG LinReg at T = 4000, planted "query", seeds 0-4: d = 16 ${fmt(per[0] as number[])} (mean ${m16.toFixed(1)}), ` +
        `d = 64 ${fmt(per[1] as number[])} (${m64.toFixed(1)}), d = 256 ${fmt(per[2] as number[])} (${m256.toFixed(1)}); ` +
        `ratios ${(m64 / m16).toFixed(2)}, ${(m256 / m16).toFixed(2)}`,
    );
    expect(m64 / m16).toBeLessThan(2);
    expect(m256 / m16).toBeLessThan(2);
    // Not vacuous: the problem keeps its difficulty as d grows (the "ambient" set-up's ratio was 0.01).
    expect(m256).toBeGreaterThan(m16);
  }, 600_000);

  test("rank cap maxRank = 2 tau = 4 against exact rank at d = 64: expected reward within 2%, linearized regret within 10%", () => {
    const exact = queryPlanted(64, 64);
    const capped = queryPlanted(64, 4);
    const reward = (rs: RoutingExperimentResult[]) => mean(rs.map((r) => r.expectedReward));
    const [re, rc, le, lc] = [reward(exact), reward(capped), mean(lin(exact)), mean(lin(capped))];
    console.log(
      `d = 64, T = 4000, seeds 0-4: expected reward exact ${re.toFixed(1)} vs maxRank 4 ${rc.toFixed(1)}; ` +
        `LinReg ${le.toFixed(1)} vs ${lc.toFixed(1)} (${fmt(lin(exact))} / ${fmt(lin(capped))})`,
    );
    expect(Math.abs(rc - re) / re).toBeLessThan(0.02);
    expect(Math.abs(lc - le) / le).toBeLessThan(0.1);
  }, 600_000);

  test("parameter-free HPG, without knowing s, stays within 3x of tuned HPG's linearized regret (T = 16,000)", () => {
    const T = 16_000;
    const tuned = runs("hpg", hpg, T);
    const free = runs(
      "parameter-free",
      (arms, rng, TT) => new ParameterFreeHpg({ arms, contextDim: D, horizon: TT, rng }),
      T,
    );
    const [lt, lf] = [mean(lin(tuned)), mean(lin(free))];
    console.log(
      `T = ${T}: parameter-free LinReg mean ${lf.toFixed(1)} (seeds ${fmt(lin(free))}) vs tuned ${lt.toFixed(1)}: ` +
        `ratio ${(lf / lt).toFixed(2)}; oracle gap ${mean(free.map((r) => r.oracleGap)).toFixed(0)} vs ${mean(tuned.map((r) => r.oracleGap)).toFixed(0)}`,
    );
    expect(lf).toBeLessThanOrEqual(3 * lt);
  }, 600_000);
});
