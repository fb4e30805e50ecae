import { type ArmEvent, ErrorCode, Rng, RouteKitError } from "@routekit/core";
import { describe, expect, test } from "vitest";
import {
  type DistributionRouter,
  fitPolicyClasses,
  PlantedQuadraticEnvironment,
  RoutingMeter,
  runRoutingExperiment,
  TwoTowerEnvironment,
} from "../src/index.js";

describe("hpg environments", () => {
  test("planted quadratic: unit queries, balanced planted matrices (trace 0, nuclear norm 2s), R = clip(0.5 + kappa q^T W q)", () => {
    const env = new PlantedQuadraticEnvironment({ contextDim: 12, models: 4, latentRank: 2, mcSamples: 200 });
    env.reset(Rng.fromSeed(1));
    const d = 12;
    for (let m = 0; m < 4; m++) {
      const W = env.plantedMatrix(m);
      let tr = 0;
      for (let i = 0; i < d; i++) tr += W[i * d + i] as number;
      expect(Math.abs(tr)).toBeLessThan(1e-12);
      let fro = 0;
      for (const v of W) fro += v * v;
      expect(fro).toBeCloseTo(4, 10); // four unit eigenvalues
    }
    for (let t = 0; t < 50; t++) {
      const q = env.next(t).context as Float64Array;
      let n = 0;
      for (const v of q) n += v * v;
      expect(n).toBeCloseTo(1, 12);
      for (let m = 0; m < 4; m++) {
        const W = env.plantedMatrix(m);
        let s = 0;
        for (let a = 0; a < d; a++)
          for (let b = 0; b < d; b++) s += (q[a] as number) * (W[a * d + b] as number) * (q[b] as number);
        expect(env.plantedScores[m]).toBeCloseTo(s, 12);
        expect(env.expectedReward(`model${m}`)).toBeCloseTo(Math.min(1, Math.max(0, 0.5 + 2 * s)), 12);
      }
      const r = env.pull("model0").reward;
      expect(r === 0 || r === 1).toBe(true);
    }
  });

  test("two-tower: expected rewards in [-1, 1], realised rewards clipped, same stream for the same seed", () => {
    const a = new TwoTowerEnvironment({ contextDim: 10, models: 3, mcSamples: 50 });
    const b = new TwoTowerEnvironment({ contextDim: 10, models: 3, mcSamples: 50 });
    a.reset(Rng.fromSeed(4));
    b.reset(Rng.fromSeed(4));
    let sum = 0;
    const T = 3000;
    for (let t = 0; t < T; t++) {
      const qa = a.next(t).context as Float64Array;
      const qb = b.next(t).context as Float64Array;
      expect(Array.from(qa)).toEqual(Array.from(qb));
      for (const m of a.initialArms) expect(Math.abs(a.expectedReward(m))).toBeLessThanOrEqual(1);
      const r = a.pull("model1").reward;
      expect(Math.abs(r)).toBeLessThanOrEqual(1);
      sum += r - a.expectedReward("model1");
    }
    // The realised reward is unbiased for R_m(q) (noise sd well below 1: 5 s.e. at most ~0.09).
    expect(Math.abs(sum / T)).toBeLessThan(0.05);
  });

  test("Table-2 analogue (d = 16, N = 256, M = 4, s = 2, Adam 1,500 iterations, 50/50 split): Gap_const >= Gap_lin > 2 Gap_quad", () => {
    for (const seed of [0, 1]) {
      const env = new TwoTowerEnvironment({ contextDim: 16, models: 4, latentRank: 2, items: 256, mcSamples: 10 });
      env.reset(Rng.fromSeed(seed));
      const { queries, rewards } = env.sampleTable(1000, Rng.fromSeed(100 + seed));
      const r = fitPolicyClasses(queries, rewards, 1000, 16, 4);
      expect(r.gap.constant).toBeGreaterThanOrEqual(r.gap.linear);
      expect(r.gap.quadratic).toBeLessThan(0.5 * r.gap.linear);
    }
  });

  test("RoutingMeter: the uniform router on a constant-reward instance has zero oracle gap and zero linearized regret", () => {
    const meter = new RoutingMeter(3, 2, 2);
    const q = Float64Array.from([1, 0, 0]);
    for (let t = 0; t < 10; t++) meter.record(q, [0.5, 0.5], [0.3, 0.3]);
    expect(meter.oracleGap).toBe(0);
    expect(meter.linearizedRegret()).toBe(0);
    const m2 = new RoutingMeter(3, 2, 2);
    for (let t = 0; t < 10; t++) m2.record(q, [0.5, 0.5], [1, 0]);
    // pi_0 A_0 = 0.25 each round: the comparator can put 2 q q^T on model 0 (gain 2 * 10 * 0.25 = 5)
    // and -2 q q^T on model 1 (another 5); the -sum pi A log pi term is 0 for the uniform router.
    expect(m2.linearizedRegret()).toBeCloseTo(10, 12);
    expect(m2.oracleGap).toBeCloseTo(5, 12);
  });

  test("runRoutingExperiment scores with the distribution in each decision's record, and refuses records without one", () => {
    // A router that picks at random and records the distribution (0.25, 0.75): the expected reward is that mix
    // of the rounds' means (queries come from their own stream, so replaying next() alone gives the same rounds).
    const probs = [0.25, 0.75];
    const router = (withProbs: boolean) => (rng: Rng) => {
      const arms = ["model0", "model1"];
      const picks = new Map<string, string>();
      return {
        arms,
        select() {
          const id = String(picks.size);
          picks.set(id, arms[rng.categorical(probs)] as string);
          return { id, arm: picks.get(id) as string };
        },
        update() {},
        decisionRecord(id: string): ArmEvent {
          const decision = { arm: picks.get(id) as string, context: null };
          return {
            v: 1,
            kind: "test/fixed-mix",
            protocol: "arm",
            id,
            decision: withProbs ? { ...decision, state: { arms, probs } } : decision,
          };
        },
      } satisfies DistributionRouter;
    };
    const env = () => new PlantedQuadraticEnvironment({ contextDim: 4, models: 2, mcSamples: 10 });
    const r = runRoutingExperiment(env(), router(true), { horizon: 50, seed: 3 });
    const replay = env();
    replay.reset(Rng.fromSeed(3).fork("env"));
    let expected = 0;
    for (let t = 0; t < 50; t++) {
      replay.next(t);
      expected += 0.25 * (replay.means[0] as number) + 0.75 * (replay.means[1] as number);
    }
    expect(r.expectedReward).toBeCloseTo(expected, 10);
    let code: unknown;
    try {
      runRoutingExperiment(env(), router(false), { horizon: 5, seed: 3 });
    } catch (e) {
      code = e instanceof RouteKitError ? e.code : e;
    }
    expect(code).toBe(ErrorCode.InvalidArgument);
  });
});
