/**
 * Seeded statistical checks on Env-A and Env-B (thresholds and seed counts from the COSMOS implementation
 * notes): known-reward COSMOS (scale 0.5) has log-log regret slope <= 0.75 over the last doublings
 * up to T = 4000 and R_T / T decreasing on the notes' 10 seeds (prototype: slope about 0.5, R = 24 / 40 / 63 /
 * 88), and its 10-seed mean lies near the notes' two reference runs; greedy (radius 0) grows linearly on the
 * mean of 20 seeds up to T = 8000 while COSMOS, on the same 20 seeds, does not, and greedy's mean is the larger
 * at T = 8000 (greedy is bimodal across seeds, so only means over >= 20 seeds at T >= 8000 say anything); the
 * learned-reward variant has R_T / T decreasing and slope < 1 over T in [2000, 8000] (seeds averaged) on Env-A
 * and Env-B; COSMOS beats the
 * one-shot (API-as-arm) baseline (known and learned reward) and query-all for large T; known-reward regret <=
 * learned-reward regret at the same scale. Seeded runs are memoised, so a configuration shared by several checks runs once.
 */
import type { RunResult } from "@routekit/core";
import { envA, envB } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll } from "../src/index.js";
import { ENV_A_ARMS, meanRegret, play, slopeBetween } from "./helpers.js";

const T = 4000;
const base = { arms: ENV_A_ARMS, contextDim: 2, outputDim: 4, indexLink: "linear" as const };
const baseB = {
  arms: ENV_A_ARMS,
  contextDim: 2,
  outputDim: 3,
  indexLink: "tanh" as const,
  rewardLink: "logistic" as const,
};
const seeds = (n: number) => Array.from({ length: n }, (_, i) => i);
/** The notes' seed counts: 10 on Env-A (their reference runs), 20 where greedy is compared, 5 on Env-B. */
const SEEDS_A = seeds(10);
const SEEDS_GREEDY = seeds(20);
const SEEDS_B = seeds(5);

const memo = new Map<string, RunResult[]>();
/** One run per seed, memoised by `key` (the key must name everything the runs depend on). */
function runs(
  key: string,
  env: typeof envA | typeof envB,
  make: () => Parameters<typeof play>[1] extends () => infer P ? P : never,
  horizon: number,
  seedList: number[],
): RunResult[] {
  const k = `${key}/${horizon}/${seedList.join(",")}`;
  let r = memo.get(k);
  if (!r) {
    r = seedList.map((seed) => play(() => env(), make, horizon, seed));
    memo.set(k, r);
  }
  return r;
}
const knownA = (s: number, horizon: number, seedList: number[]) =>
  runs(
    `A/known/${s}`,
    envA,
    () => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], exploration: s, horizon }),
    horizon,
    seedList,
  );
/** Learned reward, scale 0.5, geometric refits, T = 4000, seeds 0-9 on Env-A. */
const learnedA05 = () =>
  runs(
    "A/learned/0.5",
    envA,
    () => new Cosmos({ ...base, exploration: 0.5, horizon: T, refit: "geometric" }),
    T,
    SEEDS_A,
  );
const fmt = (xs: readonly number[]) => xs.map((x) => x.toFixed(1)).join(" / ");
const finals = (rs: RunResult[]) => rs.map((r) => r.series.regret[r.series.regret.length - 1] as number);

/** R_T / T strictly decreasing along the checkpoints. */
function expectPerRoundRegretFalling(tt: readonly number[], r: readonly number[]): void {
  for (let i = 1; i < tt.length; i++)
    expect((r[i] as number) / (tt[i] as number)).toBeLessThan((r[i - 1] as number) / (tt[i - 1] as number));
}

/** Learned reward, s = 0.25, geometric refits, T = 8000 on `env`: slope < 1 over [2000, 8000] and R_T / T falling. */
function expectLearnedSublinear(env: "A" | "B", seeds: number[]): void {
  const rs = runs(
    `${env}/learned/0.25`,
    env === "A" ? envA : envB,
    () => new Cosmos({ ...(env === "A" ? base : baseB), exploration: 0.25, horizon: 8000, refit: "geometric" }),
    8000,
    seeds,
  );
  const r = meanRegret(rs);
  const tt = rs[0]?.series.t as number[];
  console.log(
    `Env-${env} learned s = 0.25, seeds ${seeds[0]}-${seeds[seeds.length - 1]}: mean R at ${tt.join(" / ")}: ${fmt(r)}; ` +
      `slope over [2000, 8000] ${slopeBetween(tt, r, 2000, 8000).toFixed(3)}`,
  );
  expect(slopeBetween(tt, r, 2000, 8000)).toBeLessThan(1);
  expectPerRoundRegretFalling(tt, r);
}

describe("regret on Env-A", () => {
  it("known reward, scale 0.5, 10 seeds: slope <= 0.75 over [1000, 4000] and R_T / T decreasing", () => {
    const runsK = knownA(0.5, T, SEEDS_A);
    const known = meanRegret(runsK);
    const t = runsK[0]?.series.t as number[];
    console.log(
      `Env-A known s = 0.5, seeds 0-9: mean R at ${t.join(" / ")}: ${fmt(known)}; slope over [1000, 4000] ${slopeBetween(t, known, 1000, 4000).toFixed(3)}`,
    );
    expect(slopeBetween(t, known, 1000, 4000)).toBeLessThanOrEqual(0.75);
    for (let i = 1; i < t.length; i++)
      expect((known[i] as number) / (t[i] as number)).toBeLessThan((known[i - 1] as number) / (t[i - 1] as number));
  });

  it("known reward, scale 0.5, 10 seeds: R at T = 500 / 1000 / 2000 / 4000 near the implementation notes' runs", () => {
    // The notes' prototype gave 24 / 40 / 63 / 88 and their independent rebuild 27.1 / 42.9 / 62.3 / 84.4
    // (sd about 2 over 10 seeds): accept the span of the two widened by 2 sd at each checkpoint.
    const rs = knownA(0.5, T, SEEDS_A);
    const r = meanRegret(rs);
    const tt = rs[0]?.series.t as number[];
    const at = (x: number) => r[tt.indexOf(x)] as number;
    const refs: [number, number, number][] = [
      [500, 24, 27.1],
      [1000, 40, 42.9],
      [2000, 62.3, 63],
      [4000, 84.4, 88],
    ];
    console.log(`Env-A known s = 0.5 at T = 4000, seeds 0-9: ${fmt(finals(rs))}`);
    for (const [x, lo, hi] of refs) {
      expect(at(x)).toBeGreaterThanOrEqual(lo - 4);
      expect(at(x)).toBeLessThanOrEqual(hi + 4);
    }
    // log-log slope about 0.5 (the prototype's series itself gives 0.62, the rebuild's 0.55)
    const slope = slopeBetween(tt, r, 500, 4000);
    expect(slope).toBeGreaterThan(0.45);
    expect(slope).toBeLessThan(0.7);
  });

  it("COSMOS beats the one-shot baseline (known and learned reward) and query-all at T = 4000 (10 seeds)", () => {
    const known = meanRegret(knownA(0.5, T, SEEDS_A));
    const oneShot = meanRegret(
      runs("A/one-shot", envA, () => new OneShot({ arms: ENV_A_ARMS, contextDim: 2, outputDim: 4 }), T, SEEDS_A),
    );
    const all = meanRegret(
      runs(
        "A/query-all",
        envA,
        // QueryAll has no index model: it takes no indexLink (an unknown option is refused).
        () => new QueryAll({ arms: base.arms, contextDim: 2, outputDim: 4, rewardParameter: [1, 0, 0, 0] }),
        T,
        SEEDS_A,
      ),
    );
    const learned = meanRegret(learnedA05());
    const last = known.length - 1;
    console.log(
      `Env-A T = 4000, seeds 0-9: COSMOS ${(known[last] as number).toFixed(1)} (learned reward ${(learned[last] as number).toFixed(1)}), one-shot ${(oneShot[last] as number).toFixed(1)}, query-all ${(all[last] as number).toFixed(1)}`,
    );
    expect(known[last]).toBeLessThan(oneShot[last] as number);
    expect(known[last]).toBeLessThan(all[last] as number);
    // The notes' claim is for COSMOS, and the learned-reward variant is COSMOS too: measured 112.3 against one-shot
    // 220.6. A reward bound subtracting its radius (pessimistic, theta . phi - beta ||phi||) reached 279.5.
    expect(learned[last]).toBeLessThan(oneShot[last] as number);
    // query-all pays the full gap 0.688 - 0.627 every round
    expect((all[last] as number) / T).toBeGreaterThan(0.05);
  });

  it("learned reward (geometric refits), scale 0.25, 10 seeds: slope < 1 over [2000, 8000] and R_T / T decreasing", () => {
    expectLearnedSublinear("A", SEEDS_A);
  });

  it("greedy (radius 0) grows linearly over [4000, 8000] on the mean of 20 seeds, COSMOS (s = 0.5, same 20 seeds) does not, and has the smaller mean at T = 8000", () => {
    // Greedy is bimodal across seeds (some stop opening a box and pay a constant gap per request, the rest
    // reach near-oracle play), so only a mean over many seeds at large T says anything.
    const greedy = meanRegret(knownA(0, 8000, SEEDS_GREEDY));
    const cosmos = meanRegret(knownA(0.5, 8000, SEEDS_GREEDY));
    const tt = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000];
    const [sg, sc] = [slopeBetween(tt, greedy, 4000, 8000), slopeBetween(tt, cosmos, 4000, 8000)];
    console.log(
      `Env-A T = 8000, seeds 0-19: greedy ${fmt(greedy)} (slope ${sg.toFixed(3)}); COSMOS ${fmt(cosmos)} (slope ${sc.toFixed(3)})`,
    );
    expect(sg).toBeGreaterThanOrEqual(0.75);
    expect(sc).toBeLessThanOrEqual(0.75);
    expect(cosmos[7]).toBeLessThan(greedy[7] as number);
  });

  it("known-reward regret <= learned-reward regret at the same scale (0.5) at T = 4000, averaged over 10 seeds", () => {
    const known = meanRegret(knownA(0.5, T, SEEDS_A));
    const unknown = meanRegret(learnedA05());
    const last = known.length - 1;
    console.log(
      `Env-A T = 4000, s = 0.5, seeds 0-9: known ${(known[last] as number).toFixed(1)}, learned ${(unknown[last] as number).toFixed(1)}`,
    );
    expect(known[last]).toBeLessThanOrEqual(unknown[last] as number);
  });
});

describe("regret on Env-B (logistic reward, tanh index)", () => {
  it("known reward, scale 0.5 (geometric refits), 5 seeds: slope <= 0.75 over [1000, 4000] and R_T / T decreasing", () => {
    const rs = runs(
      "B/known/0.5",
      envB,
      () => new Cosmos({ ...baseB, rewardParameter: [1.5, -1, 0.5], exploration: 0.5, horizon: T, refit: "geometric" }),
      T,
      SEEDS_B,
    );
    const r = meanRegret(rs);
    const tt = rs[0]?.series.t as number[];
    console.log(
      `Env-B known s = 0.5, seeds 0-4: mean R at ${tt.join(" / ")}: ${fmt(r)}; slope over [1000, 4000] ${slopeBetween(tt, r, 1000, 4000).toFixed(3)}`,
    );
    expect(slopeBetween(tt, r, 1000, 4000)).toBeLessThanOrEqual(0.75);
    expectPerRoundRegretFalling(tt, r);
  });

  it("learned reward, scale 0.25 (geometric refits), 5 seeds: slope < 1 over [2000, 8000] and R_T / T decreasing", () => {
    expectLearnedSublinear("B", SEEDS_B);
  });
});
