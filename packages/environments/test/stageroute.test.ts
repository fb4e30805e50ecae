import { isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  ARENA_2025_MODELS,
  arenaSim2025,
  batchSwitch,
  routerBenchSurrogate,
  StagedCostBandit,
  type StageValueSolver,
  stationaryInstance,
} from "../src/stageroute/index.js";

/** Test oracle: records the pool sizes it is asked about; value = best single affordable mean. */
function recordingOracle(): { oracle: StageValueSolver; pools: number[] } {
  const pools: number[] = [];
  const oracle: StageValueSolver = (r, c, _a, b) => {
    pools.push(r.length);
    const w = new Float64Array(r.length);
    let best = -1;
    for (let i = 0; i < r.length; i++)
      if ((c[i] as number) <= b && (best < 0 || (r[i] as number) > (r[best] as number))) best = i;
    if (best >= 0) w[best] = 1;
    return { value: best >= 0 ? (r[best] as number) : 0, weights: w };
  };
  return { oracle, pools };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("ArenaSim 2025", () => {
  it("has the paper's 15 models, caps and arrivals (6 at start, one every 1000 rounds)", () => {
    const env = arenaSim2025({ oracle: recordingOracle().oracle });
    expect(env.initialArms).toEqual(ARENA_2025_MODELS.slice(0, 6).map((m) => m.id));
    const models = env.models;
    expect(models.map((m) => m.arrival)).toEqual([
      0, 0, 0, 0, 0, 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000,
    ]);
    expect(env.maxShares["yi-lightning"]).toBe(1);
    expect(models.filter((m) => m.maxShare === 0.4)).toHaveLength(14);
    expect(models[4]?.reward).toBe(0); // Llama 3.3, the lowest Elo
    expect(models[14]?.reward).toBe(1); // Gemini-2.5-Pro, the highest
    env.reset(Rng.fromSeed(1));
    const arrivals: [number, readonly string[]][] = [];
    for (let t = 0; t < 10_000; t++) {
      const r = env.next(t);
      if (r.arrivals) arrivals.push([t, r.arrivals]);
    }
    expect(arrivals.map(([t]) => t)).toEqual([1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000]);
    expect(arrivals[0]?.[1]).toEqual(["gemini-2.0-flash"]);
  });

  it("noise keeps the means: rewards clamp(mu + N(0, 0.01)), costs price (1 + N(0, 0.01)) in [0.1, 50]", () => {
    const env = arenaSim2025({ oracle: recordingOracle().oracle });
    env.reset(Rng.fromSeed(2));
    env.next(0);
    const n = 20_000;
    let r = 0;
    let c = 0;
    let cmin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const fb = env.pull("deepseek-r1");
      r += fb.reward;
      c += fb.cost ?? 0;
      cmin = Math.min(cmin, env.pull("yi-lightning").cost ?? 0);
    }
    expect(Math.abs(r / n - (1358 - 1257) / 189)).toBeLessThan(0.005);
    expect(Math.abs(c / n - 0.55)).toBeLessThan(0.002);
    expect(cmin).toBeGreaterThanOrEqual(0.1);
  });

  it("each model draws from its own stream: another model's pulls do not shift it", () => {
    const a = arenaSim2025({ oracle: recordingOracle().oracle });
    const b = arenaSim2025({ oracle: recordingOracle().oracle });
    a.reset(Rng.fromSeed(3));
    b.reset(Rng.fromSeed(3));
    a.next(0);
    b.next(0);
    const seqA: number[] = [];
    const seqB: number[] = [];
    for (let i = 0; i < 50; i++) {
      seqA.push(a.pull("gpt-4o").reward);
      b.pull("o1-mini");
      b.pull("yi-lightning");
      seqB.push(b.pull("gpt-4o").reward);
    }
    expect(seqB).toEqual(seqA);
  });

  it("the oracle's pool is the models available at the start of the round's stage", () => {
    const { oracle, pools } = recordingOracle();
    const env = new StagedCostBandit({
      models: [
        { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
        { id: "b", reward: 0.9, cost: 1, maxShare: 1, arrival: 1000 },
      ],
      budget: 2,
      stageLength: 750,
      maxDeployed: 2,
      oracle,
    });
    env.reset(Rng.fromSeed(1));
    const seen: number[] = [];
    for (let t = 0; t < 2000; t++) {
      env.next(t);
      seen.push(env.oracleReward());
    }
    // b arrives at round 1000 (mid-stage [750, 1500)) and counts from round 1500 on.
    expect(seen[1499]).toBe(0.5);
    expect(seen[1500]).toBe(0.9);
    expect(new Set(pools)).toEqual(new Set([1, 2]));
    expect(env.isOptimal("a")).toBe(false);
    expect(env.isOptimal("b")).toBe(true);
    // an arm not yet arrived cannot be pulled
    const fresh = new StagedCostBandit({
      models: [
        { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
        { id: "b", reward: 0.9, cost: 1, maxShare: 1, arrival: 10 },
      ],
      budget: 2,
      stageLength: 5,
      maxDeployed: 2,
      oracle,
    });
    fresh.reset(Rng.fromSeed(1));
    fresh.next(3);
    expect(code(() => fresh.pull("b"))).toBe("UNKNOWN_ARM");
  });

  it("maxShares keeps every model's cap, whatever its id (own keys: __proto__, constructor)", () => {
    const { oracle } = recordingOracle();
    const models = ["__proto__", "constructor", "toString"].map((id, i) => ({
      id,
      reward: 0.5,
      cost: 1,
      maxShare: 0.25 * (i + 1),
    }));
    const caps = new StagedCostBandit({ budget: 1, stageLength: 10, maxDeployed: 3, oracle, models }).maxShares;
    expect(Object.keys(caps)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.entries(caps)).toEqual([
      ["__proto__", 0.25],
      ["constructor", 0.5],
      ["toString", 0.75],
    ]);
    expect(JSON.parse(JSON.stringify(caps))).toEqual(caps);
  });

  it("rejects bad options with typed errors", () => {
    const { oracle } = recordingOracle();
    const base = { budget: 1, stageLength: 10, maxDeployed: 1, oracle };
    expect(code(() => new StagedCostBandit({ ...base, models: [] }))).toBe("INVALID_ARGUMENT");
    expect(
      code(() => new StagedCostBandit({ ...base, models: [{ id: "a", reward: 1.5, cost: 1, maxShare: 1 }] })),
    ).toBe("OUT_OF_RANGE");
    expect(
      code(() => new StagedCostBandit({ ...base, models: [{ id: "a", reward: 0.5, cost: 1, maxShare: 0 }] })),
    ).toBe("OUT_OF_RANGE");
    expect(
      code(
        () => new StagedCostBandit({ ...base, models: [{ id: "a", reward: 0.5, cost: 1, maxShare: 1, arrival: 5 }] }),
      ),
    ).toBe("INVALID_ARGUMENT");
    expect(
      code(
        () =>
          new StagedCostBandit({ ...base, stageLength: 0, models: [{ id: "a", reward: 0.5, cost: 1, maxShare: 1 }] }),
      ),
    ).toBe("OUT_OF_RANGE");
    const env = arenaSim2025({ oracle });
    expect(code(() => env.pull("gpt-4o"))).toBe("INVALID_STATE");
  });
});

describe("RouterBench surrogate, stationary instances, BatchSwitch", () => {
  it("RouterBench surrogate: 11 models, 5 at start, one every 5000 queries, mean-preserving costs in [1e-5, 0.05]", () => {
    const env = routerBenchSurrogate({ oracle: recordingOracle().oracle });
    expect(env.initialArms).toHaveLength(5);
    expect(env.models.map((m) => m.arrival).slice(4)).toEqual([0, 5000, 10000, 15000, 20000, 25000, 30000]);
    expect(env.maxShares["WizardLM/WizardLM-13B-V1.2"]).toBe(1);
    env.reset(Rng.fromSeed(4));
    env.next(0);
    let c = 0;
    let r = 0;
    const n = 40_000;
    for (let i = 0; i < n; i++) {
      const fb = env.pull("claude-v1");
      c += fb.cost ?? 0;
      r += fb.reward;
      expect(fb.reward === 0 || fb.reward === 1).toBe(true);
    }
    expect(Math.abs(c / n / 0.00587 - 1)).toBeLessThan(0.02);
    expect(Math.abs(r / n - 0.648)).toBeLessThan(0.01);
  });

  it("stationary instances: deterministic costs, slack and tight budgets", () => {
    const { oracle } = recordingOracle();
    const slack = stationaryInstance({ oracle });
    const tight = stationaryInstance({ oracle, budget: "tight" });
    expect(slack.budget).toBe(0.6);
    expect(tight.budget).toBe(0.25);
    slack.reset(Rng.fromSeed(1));
    slack.next(0);
    expect(slack.pull("m3").cost).toBe(0.3);
    expect(slack.initialArms).toHaveLength(5);
  });

  it("BatchSwitch: batch j's strong model has mean 1/2 + j eps, the others 1/2 + (j-1) eps", () => {
    const env = batchSwitch({ oracle: recordingOracle().oracle, models: 2, horizon: 8000 });
    expect(env.epsilon).toBeCloseTo((2 / 64000) ** (1 / 3), 12);
    expect(env.batchLength).toBe(Math.round(2 * 2 ** (1 / 3) * 8000 ** (2 / 3)));
    env.reset(Rng.fromSeed(5));
    const mus = env.models.map((m) => m.reward);
    for (let j = 0; j < env.batches; j++) {
      const pair = mus.slice(2 * j, 2 * j + 2).sort();
      expect(pair[0]).toBeCloseTo(0.5 + j * env.epsilon, 12);
      expect(pair[1]).toBeCloseTo(0.5 + (j + 1) * env.epsilon, 12);
    }
    expect(Math.max(...mus)).toBeLessThanOrEqual(0.75 + 1e-9);
  });
});
