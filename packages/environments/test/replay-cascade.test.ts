import { type ErrorCode, indexDiscrete, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { CascadeReplayEnvironment, parseReplay } from "../src/replay/index.js";
import { jsonl } from "./replay-helpers.js";

const table = (rows: object[]) => parseReplay(jsonl(rows), { featurizer: { dim: 8 } });

/** Three prompts, three models, one row per cell. */
const single = [
  ["sort a list in Rust", [0.9, 0.6, 0.95], [0.05, 0.1, 0.6]],
  ["prove sqrt 2 is irrational", [0.2, 0.8, 0.9], [0.05, 0.1, 0.6]],
  ["a haiku about rain", [0.7, 0.7, 0.72], [0.05, 0.1, 0.6]],
] as const;
const models = ["small", "math", "frontier"];
const singleRows = single.flatMap(([prompt, s, c]) =>
  models.map((model, m) => ({ prompt, model, score: s[m], cost: c[m] })),
);

describe("CascadeReplayEnvironment", () => {
  it("one row per cell: a query shows the logged score and cost, the oracle earns max(s - c) per prompt", () => {
    const env = new CascadeReplayEnvironment(table(singleRows));
    expect(env.outputDim).toBe(1);
    expect(env.initialArms).toEqual(models);
    env.reset(Rng.fromSeed(1));
    const seen = new Set<number>();
    for (let t = 0; t < 9; t++) {
      env.next(t);
      const p = env.currentPrompt;
      seen.add(p);
      const [, s, c] = single[p] as (typeof single)[number];
      let best = Number.NEGATIVE_INFINITY;
      for (let m = 0; m < 3; m++) {
        const q = env.query(models[m] as string);
        expect(Array.from(q.features)).toEqual([s[m]]);
        expect(q.cost).toBe(c[m]);
        expect(env.reward(models[m] as string)).toBe(s[m]);
        best = Math.max(best, (s[m] as number) - (c[m] as number));
      }
      expect(env.oracleUtility()).toBeCloseTo(best, 12);
      if (t === 2) expect(seen.size).toBe(3); // a pass plays every prompt once
    }
    expect(env.passes).toBe(3);
  });

  it("several rows per cell: the index is that of the rows' distribution and the oracle follows Weitzman's rule", () => {
    // "risky" scores 0 or 1 at cost 0.1: E(V - s)^+ = 0.5 (1 - s) = 0.1 gives s = 0.8; "safe" 0.6 at 0.05 gives 0.55.
    const rows = [
      { prompt: "q", model: "risky", score: 0, cost: 0.1 },
      { prompt: "q", model: "risky", score: 1, cost: 0.1 },
      { prompt: "q", model: "safe", score: 0.6, cost: 0.05 },
    ];
    const env = new CascadeReplayEnvironment(table(rows));
    env.reset(Rng.fromSeed(3));
    const utilities = new Set<number>();
    for (let t = 0; t < 200; t++) {
      env.next(t);
      const truth = env.truth();
      expect(truth.indices[0]).toBeCloseTo(0.8, 12);
      expect(truth.indices[0]).toBe(indexDiscrete([0, 1], [0.5, 0.5], 0.1));
      expect(truth.indices[1]).toBeCloseTo(0.55, 12);
      // Open risky first; a 1 stops (0.9), a 0 goes on to safe (0.6 - 0.15).
      const risky = env.query("risky").features[0];
      expect(env.oracleUtility()).toBeCloseTo(risky === 1 ? 0.9 : 0.45, 12);
      expect(env.oracleQueries()).toBe(risky === 1 ? 1 : 2);
      utilities.add(Math.round(env.oracleUtility() * 100));
    }
    expect([...utilities].sort()).toEqual([45, 90]); // both draws occur
  });

  it("the same seed replays the same rounds; costWeight scales every cost", () => {
    const a = new CascadeReplayEnvironment(table(singleRows), { costWeight: 0.5 });
    const b = new CascadeReplayEnvironment(table(singleRows), { costWeight: 0.5 });
    a.reset(Rng.fromSeed(9));
    b.reset(Rng.fromSeed(9));
    for (let t = 0; t < 12; t++) {
      expect(Array.from(a.next(t).context)).toEqual(Array.from(b.next(t).context));
      expect(a.currentPrompt).toBe(b.currentPrompt);
      const [, , c] = single[a.currentPrompt] as (typeof single)[number];
      expect(a.query("frontier").cost).toBe(0.5 * (c[2] as number));
    }
  });

  it("refuses tables it cannot replay as a cascade, with the reason", () => {
    const code = (fn: () => unknown, c: `${ErrorCode}`, msg: RegExp) => {
      try {
        fn();
      } catch (e) {
        expect(isRouteKitError(e, c)).toBe(true);
        expect(String((e as Error).message)).toMatch(msg);
        return;
      }
      throw new Error("expected a throw");
    };
    const noCost = singleRows.map(({ cost: _c, ...r }) => r);
    code(() => new CascadeReplayEnvironment(table(noCost)), "INVALID_ARGUMENT", /needs a cost column/);
    const big = singleRows.map((r, i) => (i === 4 ? { ...r, score: 7 } : r));
    code(
      () => new CascadeReplayEnvironment(table(big)),
      "INVALID_ARGUMENT",
      /prompt 2, model "math": score 7 is outside \[0, 1\]/,
    );
    const free = singleRows.map((r, i) => (i === 0 ? { ...r, cost: 0 } : r));
    code(() => new CascadeReplayEnvironment(table(free)), "INVALID_ARGUMENT", /cost 0 is not > 0/);
    // A weighted cost beyond 1e6 reward units (or one that overflows) is refused here, with its row, instead of
    // failing the cascade policies mid-run (they accept costs up to 1e6).
    const dear = singleRows.map((r, i) => (i === 1 ? { ...r, cost: 2e6 } : r));
    code(() => new CascadeReplayEnvironment(table(dear)), "INVALID_ARGUMENT", /prompt 1, model "math": cost 2000000/);
    code(
      () => new CascadeReplayEnvironment(table(singleRows), { costWeight: 1e308 }),
      "INVALID_ARGUMENT",
      /cost 0.05 .*is above 1000000/,
    );
    expect(() => new CascadeReplayEnvironment(table(singleRows.map((r) => ({ ...r, cost: 1e6 }))))).not.toThrow();
    // Embeddings of squared norm above 1e100 are refused too (the policies reject such contexts).
    const huge = singleRows.map(({ prompt: _p, ...r }, i) => ({
      ...r,
      id: `p${Math.floor(i / 3)}`,
      embedding: [1e51, 0],
    }));
    code(
      () => new CascadeReplayEnvironment(parseReplay(jsonl(huge), {})),
      "INVALID_ARGUMENT",
      /prompt 1: the context has squared norm 1e\+102/,
    );
    for (const w of [0, -1, Number.NaN, Infinity]) {
      code(() => new CascadeReplayEnvironment(table(singleRows), { costWeight: w }), "OUT_OF_RANGE", /costWeight/);
    }
    code(() => new CascadeReplayEnvironment(table(singleRows), null as never), "INVALID_ARGUMENT", /options/);
    const env = new CascadeReplayEnvironment(table(singleRows));
    code(() => env.indexParameters(), "INVALID_ARGUMENT", /no parametric reservation index/);
    code(() => env.next(0), "INVALID_STATE", /reset/);
  });
});
