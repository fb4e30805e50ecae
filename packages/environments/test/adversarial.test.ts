import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  arenaSim2025,
  CascadeReplayEnvironment,
  ContextualMnlEnvironment,
  envA,
  envB,
  LinearContextualBandit,
  PromptPoolEnvironment,
  parseReplay,
  promptPoolConfig,
  promptPoolPresets,
  ReplayEnvironment,
  StagedCostBandit,
  type StageValueSolver,
  StochasticBandit,
} from "../src/index.js";

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped ${(e as Error).constructor.name}`;
  }
  return "no error";
}

/** Best single affordable model, its weight 1 (a fresh weights array per call). */
const bestAffordable: StageValueSolver = (r, c, _caps, b) => {
  const w = new Float64Array(r.length);
  let best = -1;
  for (let i = 0; i < r.length; i++)
    if ((c[i] as number) <= b && (best < 0 || (r[i] as number) > (r[best] as number))) best = i;
  if (best < 0) return { value: 0, weights: w };
  w[best] = 1;
  return { value: r[best] as number, weights: w };
};

describe("adversarial audit of the environments", () => {
  it("arrival rounds at or past 2^31 are kept exactly (they wrapped in an Int32Array: a model due at 2^32 was live at round 0)", () => {
    const staged = new StagedCostBandit({
      models: [
        { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
        { id: "late", reward: 0.9, cost: 1, maxShare: 1, arrival: 2 ** 32 },
      ],
      budget: 2,
      stageLength: 10,
      maxDeployed: 2,
      oracle: bestAffordable,
    });
    expect(staged.initialArms).toEqual(["a"]);
    staged.reset(Rng.fromSeed(1));
    staged.next(0);
    expect(staged.poolSizeAt(0)).toBe(1);
    expect(staged.oracleReward()).toBe(0.5);
    expect(code(() => staged.pull("late"))).toBe("UNKNOWN_ARM");
    expect(staged.models[1]?.arrival).toBe(2 ** 32);

    // arenaSim2025 with arrivals far apart (in effect: only the initial models): the 9th model was due at 3e9 and
    // wrapped to a negative round.
    const arena = arenaSim2025({ oracle: bestAffordable, arrivalInterval: 1e9 });
    expect(arena.models.map((m) => m.arrival)).toEqual([
      0,
      0,
      0,
      0,
      0,
      0,
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => i * 1e9),
    ]);
    expect(arena.poolSizeAt(2.5e9)).toBe(8);

    const cfg = promptPoolConfig(promptPoolPresets[0] as (typeof promptPoolPresets)[number], {});
    const pool = new PromptPoolEnvironment({
      ...cfg,
      poolSize: 20,
      armArrivals: { [cfg.arms[1] as string]: 2 ** 32 },
      categoryStarts: cfg.categories.map((_, i) => (i === 0 ? 0 : 2 ** 32)),
    });
    expect(pool.initialArms).toEqual([cfg.arms[0]]);
    pool.reset(Rng.fromSeed(1));
    for (let t = 0; t < 50; t++) {
      pool.next(t);
      expect(pool.currentCategory).toBe(0);
    }
  });

  it("StagedCostBandit.stageOptimum returns a copy: writing to it changes neither oracleReward nor isOptimal", () => {
    const env = new StagedCostBandit({
      models: [
        { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
        { id: "b", reward: 0.9, cost: 1, maxShare: 1 },
      ],
      budget: 2,
      stageLength: 10,
      maxDeployed: 2,
      oracle: bestAffordable,
    });
    env.reset(Rng.fromSeed(1));
    env.next(0);
    const opt = env.stageOptimum(2) as { value: number; weights: Float64Array };
    opt.value = 123;
    opt.weights[0] = 1;
    opt.weights[1] = 0;
    expect(env.oracleReward()).toBe(0.9);
    expect(env.isOptimal("b")).toBe(true);
    expect(env.isOptimal("a")).toBe(false);
  });

  it("a solver that reuses its weights buffer across calls does not change the optimum kept for another pool size", () => {
    const buf = new Float64Array(8);
    const reusing: StageValueSolver = (r, c, caps, b, m) => {
      const got = bestAffordable(r, c, caps, b, m);
      buf.fill(0);
      buf.set(got.weights as Float64Array);
      return { value: got.value, weights: buf };
    };
    const env = new StagedCostBandit({
      models: [
        { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
        { id: "b", reward: 0.9, cost: 1, maxShare: 1, arrival: 10 },
      ],
      budget: 2,
      stageLength: 10,
      maxDeployed: 2,
      oracle: reusing,
    });
    env.reset(Rng.fromSeed(1));
    env.next(0);
    expect(env.isOptimal("a")).toBe(true);
    env.next(10); // the pool of 2: the solver writes b's weight 1 and a's 0 into the same buffer
    expect(env.isOptimal("b")).toBe(true);
    expect(env.stageOptimum(1).weights[0]).toBe(1);
  });

  it("StagedCostBandit before reset: expectedCost and the best fixed arm throw INVALID_STATE, as the README says of every use", () => {
    const staged = () =>
      new StagedCostBandit({
        models: [{ id: "a", reward: 0.5, cost: 1, maxShare: 1 }],
        budget: 2,
        stageLength: 10,
        maxDeployed: 1,
        oracle: bestAffordable,
      });
    expect(code(() => staged().expectedCost("a"))).toBe("INVALID_STATE");
    expect(code(() => staged().bestFixedArm())).toBe("INVALID_STATE");
    expect(code(() => staged().bestFixedReward())).toBe("INVALID_STATE");
  });

  it("StochasticBandit / LinearContextualBandit before reset: expectedCost throws INVALID_STATE (Linear's was UNKNOWN_ARM)", () => {
    expect(code(() => new LinearContextualBandit({ contextDim: 2, k: 2 }).expectedCost("arm0"))).toBe("INVALID_STATE");
    expect(code(() => new StochasticBandit({ k: 2, costs: [1, 2] }).expectedCost("arm0"))).toBe("INVALID_STATE");
  });

  it("LinearContextualBandit: after reset, a round's quantities need next(t) (they were the previous run's last round, and pull drew noise)", () => {
    const env = new LinearContextualBandit({ contextDim: 3, k: 2, mcSamples: 50 });
    env.reset(Rng.fromSeed(1));
    for (const f of [
      () => env.pull("arm0"),
      () => env.expectedReward("arm0"),
      () => env.oracleReward(),
      () => env.bestFixedReward(),
      () => env.isOptimal("arm0"),
      () => env.bestArm(),
    ]) {
      expect(code(f)).toBe("INVALID_STATE");
    }
    env.next(0);
    env.next(1);
    env.reset(Rng.fromSeed(2));
    expect(code(() => env.oracleReward())).toBe("INVALID_STATE");
    // Allowed right after reset: the instance's own quantities.
    expect(env.initialArms).toContain(env.bestFixedArm());
    expect(Object.keys(env.bestArmShares())).toEqual(["arm0", "arm1"]);
    env.next(0);
    expect(Number.isFinite(env.oracleReward())).toBe(true);
  });

  it("LinearContextualBandit: arrivals that are not an array, or hold a non-object, are INVALID_ARGUMENT (were TypeErrors)", () => {
    expect(code(() => new LinearContextualBandit({ arrivals: 5 as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => new LinearContextualBandit({ arrivals: {} as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => new LinearContextualBandit({ arrivals: [null, { round: 1, arm: "x" }] as never }))).toBe(
      "INVALID_ARGUMENT",
    );
    expect(code(() => new LinearContextualBandit({ arrivals: [{ round: 1, arm: "x" }, 7] as never }))).toBe(
      "INVALID_ARGUMENT",
    );
  });

  it("initialArms is frozen: writing to it cannot change the best fixed arm", () => {
    const sb = new StochasticBandit({ means: [0.1, 0.9] });
    const lin = new LinearContextualBandit({ contextDim: 2, k: 2, mcSamples: 20 });
    sb.reset(Rng.fromSeed(1));
    lin.reset(Rng.fromSeed(1));
    const best = lin.bestFixedArm();
    for (const arms of [sb.initialArms, lin.initialArms]) {
      expect(Object.isFrozen(arms)).toBe(true);
      expect(() => {
        (arms as string[])[0] = "zzz";
        (arms as string[])[1] = "zzz";
      }).toThrow(TypeError);
    }
    expect(sb.bestFixedArm()).toBe("arm1");
    expect(lin.bestFixedArm()).toBe(best);
  });

  it("ReplayEnvironment: writing to a round's context leaves the table (shared by every run on it) unchanged", () => {
    const rows: string[] = [];
    for (let p = 0; p < 3; p++)
      for (const m of ["a", "b"]) rows.push(JSON.stringify({ embedding: [p + 1, 0.5], model: m, score: 0.5 }));
    const table = parseReplay(rows.join("\n"));
    const first = new ReplayEnvironment(table, { order: "sequential" });
    first.reset(Rng.fromSeed(1));
    const ctx = first.next(0).context as Float64Array;
    expect([...ctx]).toEqual([1, 0.5]);
    ctx[0] = 999;
    expect([...table.contexts]).toEqual([1, 0.5, 2, 0.5, 3, 0.5]);
    const second = new ReplayEnvironment(table, { order: "sequential" });
    second.reset(Rng.fromSeed(1));
    expect([...(second.next(0).context as Float64Array)]).toEqual([1, 0.5]);
    expect([...(first.next(3).context as Float64Array)]).toEqual([1, 0.5]);
  });

  it("parseReplay: options.models listing a model twice is DUPLICATE_ARM, a non-array or a non-string entry INVALID_ARGUMENT; maxListed is an integer >= 1", () => {
    const text = [
      '{"prompt":"p","model":"a","score":1}',
      '{"prompt":"p","model":"b","score":0}',
      '{"prompt":"q","model":"a","score":0}',
      '{"prompt":"q","model":"b","score":1}',
    ].join("\n");
    expect(code(() => parseReplay(text, { models: ["a", "a"] }))).toBe("DUPLICATE_ARM");
    expect(code(() => parseReplay(text, { models: ["a", "b", "a"] }))).toBe("DUPLICATE_ARM");
    expect(code(() => parseReplay(text, { models: "ab" as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => parseReplay(text, { models: ["a", 1 as never] }))).toBe("INVALID_ARGUMENT");
    expect(code(() => parseReplay(text, { models: ["a", ""] }))).toBe("INVALID_ARGUMENT");
    expect(parseReplay(text, { models: ["b", "a"] }).models).toEqual(["b", "a"]);
    const bad = '{"prompt":"p","model":"a","score":"x"}';
    expect(code(() => parseReplay(bad, { maxListed: -1 }))).toBe("OUT_OF_RANGE");
    expect(code(() => parseReplay(bad, { maxListed: Number.NaN }))).toBe("NON_FINITE");
    expect(code(() => parseReplay(bad, { maxListed: "3" as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => parseReplay(bad, { maxListed: 1 }))).toBe("INVALID_ARGUMENT");
  });

  it("ReplayEnvironment before reset: bestFixedArm throws INVALID_STATE", () => {
    const table = parseReplay('{"prompt":"p","model":"a","score":1}\n{"prompt":"p","model":"b","score":0}');
    expect(code(() => new ReplayEnvironment(table).bestFixedArm())).toBe("INVALID_STATE");
  });
});

describe("outside-tester pass: overflow, skipped rounds, shared buffers, injected solvers", () => {
  it("parseReplay: two scores near 1.7e308 for one cell average to 1.7e308 (their sum overflowed: mean Infinity, regret NaN)", () => {
    const rows = [
      { prompt: "p", model: "a", score: 1.7e308, cost: 1.7e308 },
      { prompt: "p", model: "a", score: 1.7e308, cost: 1.7e308 },
      { prompt: "p", model: "b", score: -1.7e308, cost: 0 },
      { prompt: "p", model: "b", score: -1.7e308, cost: 0 },
    ];
    const table = parseReplay(rows.map((r) => JSON.stringify(r)).join("\n"));
    expect([...table.meanScore]).toEqual([1.7e308, -1.7e308]);
    expect([...table.meanCost]).toEqual([1.7e308, 0]);
    const env = new ReplayEnvironment(table);
    env.reset(Rng.fromSeed(1));
    env.next(0);
    expect(env.oracleReward() - env.expectedReward("a")).toBe(0);
    const two = parseReplay(
      ["p", "q"].map((p) => JSON.stringify({ prompt: p, model: "a", score: 1.7e308 })).join("\n"),
    );
    expect(new ReplayEnvironment(two).oracleMeanReward).toBe(1.7e308);
    // Ordinary values keep the plain sum / n, bit for bit (0.1 + 0.2 + 0.4 = 0.7000000000000001, / 3).
    const plain = parseReplay(
      [0.1, 0.2, 0.4].map((s) => JSON.stringify({ prompt: "q", model: "a", score: s, cost: s })).join("\n"),
    );
    expect(plain.meanScore[0]).toBe((0.1 + 0.2 + 0.4) / 3);
    expect(plain.meanCost[0]).toBe((0.1 + 0.2 + 0.4) / 3);
  });
});

describe("outside-tester pass: LinearContextualBandit theta bound", () => {
  it("a theta of norm above 1e100 is OUT_OF_RANGE naming the option (entries near 1.7e308 made expected rewards Infinity / NaN)", () => {
    const refused = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return isRouteKitError(e) ? `${e.code}: ${e.message}` : `untyped ${String(e)}`;
      }
      return "no error";
    };
    const huge = refused(
      () =>
        new LinearContextualBandit({
          thetas: [
            [1.7e308, 1.7e308],
            [0, 1],
          ],
          mcSamples: 10,
        }),
    );
    expect(huge).toMatch(/^OUT_OF_RANGE: option thetas\[0\] must have a Euclidean norm of at most 1e100/);
    expect(
      refused(
        () =>
          new LinearContextualBandit({
            thetas: [
              [0, 1],
              [2e100, 0],
            ],
            mcSamples: 10,
          }),
      ),
    ).toMatch(/^OUT_OF_RANGE: option thetas\[1\]/);
    const late = refused(
      () =>
        new LinearContextualBandit({
          thetas: [[0, 1]],
          arrivals: [{ round: 3, arm: "big", theta: [1e200, 0] }],
          mcSamples: 10,
        }),
    );
    expect(late).toMatch(/^OUT_OF_RANGE: the theta of arrival "big"/);
    // At the bound: expected rewards and regrets stay finite.
    const env = new LinearContextualBandit({
      thetas: [
        [1e100, 0],
        [0, -1e100],
      ],
      mcSamples: 10,
    });
    env.reset(Rng.fromSeed(1));
    env.next(0);
    for (const a of env.initialArms) {
      expect(Number.isFinite(env.oracleReward() - env.expectedReward(a))).toBe(true);
      expect(Number.isFinite(env.pull(a).reward)).toBe(true);
    }
  });
});

describe("outside-tester pass: skipped rounds and round checks of StagedCostBandit", () => {
  const models = [
    { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
    { id: "b", reward: 0.6, cost: 1, maxShare: 1, arrival: 3 },
    { id: "c", reward: 0.7, cost: 1, maxShare: 1, arrival: 3 },
    { id: "d", reward: 0.8, cost: 1, maxShare: 1, arrival: 4 },
    { id: "e", reward: 0.9, cost: 1, maxShare: 1, arrival: 9 },
  ];
  const make = () =>
    new StagedCostBandit({ models, budget: 2, stageLength: 2, maxDeployed: 2, oracle: bestAffordable });

  it("next(t) announces every model arrived by t and not yet announced, in arrival order (next(5) after next(1) missed b, c, d)", () => {
    const env = make();
    env.reset(Rng.fromSeed(1));
    expect(env.next(0).arrivals).toBeUndefined();
    expect(env.next(1).arrivals).toBeUndefined();
    expect(env.next(5).arrivals).toEqual(["b", "c", "d"]);
    expect(env.next(6).arrivals).toBeUndefined();
    expect(env.expectedReward("d")).toBe(0.8);
    expect(env.next(20).arrivals).toEqual(["e"]);
    // Round by round: each model at its own round, as before; a reset announces them again.
    env.reset(Rng.fromSeed(1));
    const seen: [number, readonly string[]][] = [];
    for (let t = 0; t < 12; t++) {
      const a = env.next(t).arrivals;
      if (a) seen.push([t, a]);
    }
    expect(seen).toEqual([
      [3, ["b", "c"]],
      [4, ["d"]],
      [9, ["e"]],
    ]);
  });

  it("next(t) going back before an announced model's arrival is INVALID_STATE, the environment unchanged (the pool shrank under the policies)", () => {
    const env = make();
    env.reset(Rng.fromSeed(1));
    env.next(0);
    expect(env.next(5).arrivals).toEqual(["b", "c", "d"]);
    // Back within what was live: allowed, nothing announced again.
    expect(env.next(4).arrivals).toBeUndefined();
    let err: unknown;
    try {
      env.next(2);
    } catch (e) {
      err = e;
    }
    expect(isRouteKitError(err) && err.code).toBe("INVALID_STATE");
    expect((err as Error).message).toMatch(/round 2 is before the arrival of model "b" \(round 3\)/);
    expect(env.expectedReward("d")).toBe(0.8);
    expect(env.next(9).arrivals).toEqual(["e"]);
    env.reset(Rng.fromSeed(1));
    expect(env.next(2).arrivals).toBeUndefined();
  });

  it("the other pools announce skipped arrivals too (LinearContextualBandit, PromptPoolEnvironment)", () => {
    const lin = new LinearContextualBandit({
      thetas: [[1, 0]],
      arrivals: [
        { round: 3, arm: "x" },
        { round: 4, arm: "y" },
      ],
      mcSamples: 10,
    });
    lin.reset(Rng.fromSeed(1));
    lin.next(0);
    expect(lin.next(7).arrivals).toEqual(["x", "y"]);
    const cfg = promptPoolConfig(promptPoolPresets[0] as (typeof promptPoolPresets)[number], {});
    const late = cfg.arms[1] as string;
    const pool = new PromptPoolEnvironment({ ...cfg, poolSize: 20, armArrivals: { [late]: 3 } });
    pool.reset(Rng.fromSeed(1));
    pool.next(0);
    expect(pool.next(7).arrivals).toEqual([late]);
  });

  it("poolSizeAt, next and stageOptimum refuse a round or pool size that is not an integer in range (poolSizeAt(NaN) was 0)", () => {
    const env = make();
    expect(code(() => env.poolSizeAt(Number.NaN))).toBe("NON_FINITE");
    expect(code(() => env.poolSizeAt(Number.POSITIVE_INFINITY))).toBe("NON_FINITE");
    expect(code(() => env.poolSizeAt(1.5))).toBe("OUT_OF_RANGE");
    expect(code(() => env.poolSizeAt(-2))).toBe("OUT_OF_RANGE");
    expect(code(() => env.poolSizeAt("3" as never))).toBe("INVALID_ARGUMENT");
    expect(env.poolSizeAt(4)).toBe(4);
    env.reset(Rng.fromSeed(1));
    expect(code(() => env.next(Number.NaN))).toBe("NON_FINITE");
    expect(code(() => env.next(0.5))).toBe("OUT_OF_RANGE");
    expect(code(() => env.stageOptimum(Number.NaN))).toBe("NON_FINITE");
    expect(code(() => env.stageOptimum(0))).toBe("OUT_OF_RANGE");
    expect(code(() => env.stageOptimum(6))).toBe("OUT_OF_RANGE");
    expect(env.stageOptimum(5).value).toBe(0.9);
  });
});

describe("outside-tester pass: the injected stage solver's output is checked", () => {
  const models = [
    { id: "a", reward: 0.5, cost: 1, maxShare: 1 },
    { id: "b", reward: 0.9, cost: 1, maxShare: 1 },
  ];
  const withSolver = (oracle: StageValueSolver) => {
    const env = new StagedCostBandit({ models, budget: 2, stageLength: 10, maxDeployed: 1, oracle });
    env.reset(Rng.fromSeed(1));
    env.next(0);
    return env;
  };
  const refusal = (oracle: StageValueSolver): string => {
    try {
      withSolver(oracle).oracleReward();
    } catch (e) {
      return isRouteKitError(e) ? `${e.code}: ${e.message}` : `untyped ${String(e)}`;
    }
    return "no error";
  };

  it("a value or weights that are no routing of the pool are INVALID_ARGUMENT naming the solver (they were regret references)", () => {
    const cases: [StageValueSolver, RegExp][] = [
      [() => ({ value: Number.NaN, weights: [0, 1] }), /value NaN/],
      [() => ({ value: 0.9, weights: [1] }), /1 weights for a pool of 2/],
      [() => ({ value: 0.9, weights: undefined as never }), /weights that are not an array/],
      [() => ({ value: 0.9, weights: [Number.NaN, 1] }), /weights\[0\] = NaN/],
      [() => ({ value: 0.9, weights: [-0.5, 1.5] }), /weights\[0\] = -0.5/],
      [() => ({ value: 0.45, weights: [0.5, 0] }), /summing to 0.5/],
      [() => ({ value: 0.7, weights: [0.5, 0.5] }), /2 positive weights, more than maxDeployed = 1/],
      [() => ({ value: 0.5, weights: [0, 1] }), /value 0.5, but its weights give/],
      [() => null as never, /null, not an object/],
    ];
    for (const [solver, why] of cases) {
      const got = refusal(solver);
      expect(got).toMatch(/^INVALID_ARGUMENT: option oracle \(the stage solver\) returned /);
      expect(got).toMatch(why);
    }
    // A routing, and the infeasible answer (all zeros, value 0), are accepted.
    expect(withSolver(() => ({ value: 0.9, weights: [0, 1] })).oracleReward()).toBe(0.9);
    expect(withSolver(() => ({ value: 0, weights: new Float64Array(2) })).oracleReward()).toBe(0);
    expect(withSolver(bestAffordable).isOptimal("b")).toBe(true);
  });
});

describe("outside-tester pass: a cascade query's features are the caller's to write", () => {
  it("writing to a returned features vector changes no later query of that box, nor the reward (pandora env A / B and the cascade replay)", () => {
    const rows = ["p", "q"].flatMap((prompt, i) =>
      ["a", "b"].map((model, m) => ({ prompt, model, score: 0.2 + 0.3 * i + 0.1 * m, cost: 0.05 })),
    );
    const replay = new CascadeReplayEnvironment(parseReplay(rows.map((r) => JSON.stringify(r)).join("\n")));
    for (const env of [envA(), envB(), replay]) {
      env.reset(Rng.fromSeed(3));
      const arm = env.initialArms[0] as string;
      let kept: Float64Array | undefined;
      for (let t = 0; t < 3; t++) {
        env.next(t);
        const first = env.query(arm);
        const want = [...first.features];
        const reward = env.expectedReward(arm);
        first.features.fill(123);
        const again = env.query(arm);
        expect([...again.features]).toEqual(want);
        expect(env.expectedReward(arm)).toBe(reward);
        // One buffer per box, rewritten on every query (no allocation per round).
        if (kept) expect(again.features).toBe(kept);
        kept = again.features;
      }
    }
  });
});

describe("outside-tester pass: replay rounds that skip or go back", () => {
  const n = 6;
  const rows = Array.from({ length: n }, (_, p) =>
    ["a", "b"].map((model, m) => JSON.stringify({ embedding: [p, 1], model, score: 0.1 * p + 0.01 * m, cost: 0.1 })),
  ).flat();
  const table = parseReplay(rows.join("\n"));

  it("skipping passes plays each round's prompt as round by round; going back to an earlier pass is INVALID_STATE", () => {
    for (const make of [
      () => new ReplayEnvironment(table),
      () => new CascadeReplayEnvironment(table),
      () => new ReplayEnvironment(table, { order: "sequential" }),
    ]) {
      const byRound = make();
      byRound.reset(Rng.fromSeed(4));
      const want: number[] = [];
      for (let t = 0; t < 5 * n; t++) {
        byRound.next(t);
        want.push(byRound.currentPrompt);
      }
      const skipping = make();
      skipping.reset(Rng.fromSeed(4));
      skipping.next(1);
      expect(skipping.currentPrompt).toBe(want[1]);
      // From pass 1 to pass 4 (it drew one permutation for the three passes: another order than round by round).
      for (const t of [3 * n + 2, 3 * n, 3 * n + 5, 3 * n + 1]) {
        skipping.next(t);
        expect(skipping.currentPrompt).toBe(want[t]);
      }
      expect(skipping.passes).toBe(4);
      expect(code(() => skipping.next(n))).toBe("INVALID_STATE");
      expect(() => skipping.next(n)).toThrow(/rounds may go back only within the current pass/);
      skipping.next(4 * n + 3);
      expect(skipping.currentPrompt).toBe(want[4 * n + 3]);
    }
  });
});

describe("outside-tester pass: pnpm bench runs every script", () => {
  it("the bench script runs both scripts even when the first fails, and exits non-zero (`a && b` skipped b)", () => {
    const pkgDir = join(import.meta.dirname, "..");
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const words = (pkg.scripts.bench as string).split(/\s+/);
    expect(words.slice(0, 3)).toEqual(["node", "--expose-gc", "bench/all.mjs"]);
    expect(words.slice(3)).toEqual(["bench/run.mjs", "bench/replay-csv.mjs"]);
    const dir = mkdtempSync(join(tmpdir(), "envfix-bench-"));
    try {
      writeFileSync(join(dir, "fail.mjs"), "process.exit(3);\n");
      // Records its flags and that it ran with the runner's node flags (--expose-gc: gc is defined).
      writeFileSync(
        join(dir, "ok.mjs"),
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(dir, "ran"))}, JSON.stringify([typeof gc, process.argv.slice(2)]));\n`,
      );
      const run = (...scripts: string[]) =>
        spawnSync(process.execPath, ["--expose-gc", join(pkgDir, "bench/all.mjs"), ...scripts, "--quick"], {
          cwd: dir,
          encoding: "utf8",
        });
      const failing = run("fail.mjs", "ok.mjs");
      expect(failing.status).toBe(1);
      expect(failing.stderr).toMatch(/1 of 2 script\(s\) failed: fail.mjs \(exit 3\)/);
      expect(existsSync(join(dir, "ran"))).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, "ran"), "utf8"))).toEqual(["function", ["--quick"]]);
      expect(run("ok.mjs", "ok.mjs").status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ContextualMnlEnvironment: the injected assortment oracle", () => {
  const N = 6;
  const K = 3;
  const make = (oracle: (u: Float64Array) => unknown) => {
    const env = new ContextualMnlEnvironment({
      numItems: N,
      contextDim: 2,
      maxSize: K,
      rewards: "nonuniform",
      oracle: oracle as (u: Float64Array) => number[],
    });
    env.reset(Rng.fromSeed(4));
    return env;
  };
  it("an output that is no assortment of the round's items is INVALID_ARGUMENT naming the oracle (was a NaN oracle revenue)", () => {
    const bad: unknown[] = [null, 7, "012", [0, 1, 2, 3], [0, 6], [-1], [1.5], [Number.NaN], ["1"], [2, 2]];
    for (const out of bad) {
      const env = make(() => out);
      let err: unknown;
      try {
        env.next(0);
      } catch (e) {
        err = e;
      }
      expect(isRouteKitError(err) && err.code, JSON.stringify(out)).toBe("INVALID_ARGUMENT");
      expect((err as Error).message).toMatch(/option oracle \(the assortment solver\) returned/);
    }
    // Valid: empty, a typed array, fewer than K items, any order.
    for (const out of [[], Int32Array.of(5, 0), [4, 1, 3]]) {
      const env = make(() => out);
      env.next(0);
      expect(env.oracleAssortment).toEqual(Array.from(out));
      expect(Number.isFinite(env.oracleRevenue())).toBe(true);
    }
  });
  it("an oracle writing to its output buffer after the round changes nothing (the assortment was kept by reference)", () => {
    const buffer = [0, 1, 2];
    const env = make(() => buffer);
    env.next(0);
    const revenue = env.oracleRevenue();
    buffer[0] = 5;
    buffer[1] = 4;
    expect(env.oracleAssortment).toEqual([0, 1, 2]);
    expect(env.oracleRevenue()).toBe(revenue);
    expect(env.expectedRevenue([0, 1, 2])).toBe(revenue);
  });
});
