import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type CascadePolicy, learnedState, Rng, type Snapshot } from "@routekit/core";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  Cosmos,
  indexBernoulli,
  indexDiscrete,
  OneShot,
  QueryAll,
  reservationIndex,
  scaledIndexRadius,
  scaledRewardRadius,
  ThresholdCascade,
  WeitzmanOracle,
} from "../src/index.js";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");

/** The README's fuller example (the simulated workload with callModel). */
const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].find((b) =>
  (b[1] as string).includes("function callModel"),
)?.[1] as string;

describe("README example", () => {
  // Type-checking the block (strict, against the published types) is done for every README by
  // packages/conformance/test/readme-examples.test.ts.
  it("runs as written (extracted from README.md) and cascades mostly over the cheap models", () => {
    expect(block).toContain('from "@routekit/pandora"');
    // The block is TypeScript: strip the types, then run it with the package bound to its import.
    const js = ts.transpileModule(block.replace(/^import .*$/m, ""), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
    }).outputText;
    const code = js.replace(/^export \{\};$/m, "");
    const logs: string[] = [];
    const fakeConsole = { log: (s: string) => logs.push(s) };
    const run = new Function("Cosmos", "console", `${code}\nreturn { router, saved };`);
    const { router, saved } = run(Cosmos, fakeConsole) as { router: Cosmos; saved: string };
    const calls = Number(/per request: ([\d.]+)/.exec(logs[0] ?? "")?.[1]);
    expect(calls).toBeGreaterThan(1.6);
    expect(calls).toBeLessThan(2.2);
    const back = Cosmos.fromJSON(JSON.parse(saved));
    expect(JSON.stringify(back.toJSON())).toBe(saved);
    const ctx = new Float64Array([0.2, -0.4]);
    expect(back.optimisticIndices(ctx)).toEqual(router.optimisticIndices(ctx));
  });
});

// ---------------------------------------------------------------------------------------------------------
// Every other promise of the README, one check each (the options table, the input bounds, the protocol).

const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });
const opts = { arms: ["mini", "standard", "frontier"], contextDim: 2, outputDim: 2 };
const known = { ...opts, rewardParameter: [1, 0] };
const oracleOpts = {
  ...known,
  indexParameters: { mini: [0.2, 0.1, 0], standard: [0.4, 0, 0.1], frontier: [0.6, -0.1, 0] },
};
const kinds: [string, () => CascadePolicy, (s: Snapshot) => CascadePolicy][] = [
  ["COSMOS known", () => new Cosmos(known), (s) => Cosmos.fromJSON(s)],
  ["COSMOS learned, exact", () => new Cosmos({ ...opts, refit: "exact" }), (s) => Cosmos.fromJSON(s)],
  ["QueryAll learned", () => new QueryAll({ ...opts, exploration: 0.3 }), (s) => QueryAll.fromJSON(s)],
  ["ThresholdCascade", () => new ThresholdCascade(known), (s) => ThresholdCascade.fromJSON(s)],
  ["OneShot", () => new OneShot(opts), (s) => OneShot.fromJSON(s)],
  ["WeitzmanOracle", () => new WeitzmanOracle(oracleOpts), (s) => WeitzmanOracle.fromJSON(s)],
];

/** A deterministic answer stream: request t's answer of a model, its cost and the deployed reward. */
const answer = (t: number, arm: string) => {
  const k = arm.length + t;
  return { features: Float64Array.of(((k * 37) % 101) / 100, ((k * 13) % 7) / 7), cost: 0.01 + (arm.length % 3) / 50 };
};
const request = (t: number) => Float64Array.of(Math.sin(t), Math.cos(3 * t));

function play(p: CascadePolicy, t: number, via: "feedback" | "learn" = "feedback", into?: CascadePolicy): void {
  const e = p.begin(request(t));
  for (let s = p.next(e); "query" in s; s = p.next(e)) {
    const a = answer(t, s.query);
    p.observe(e, s.query, a.features, a.cost);
  }
  const chosen = p.choose(e);
  const reward = t % 3 === 0 ? -0 : answer(t, chosen).features[0];
  if (via === "learn") (into as CascadePolicy).learn({ ...p.decisionRecord(e), feedback: { reward } });
  p.feedback(e, reward);
}

describe("README promises", () => {
  it("the options table's defaults", () => {
    const learned = new Cosmos(opts).config;
    expect(learned).toEqual({
      arms: opts.arms,
      contextDim: 2,
      outputDim: 2,
      rewardParameter: null,
      rewardLink: "identity",
      indexLink: "tanh",
      linkKnee: 0.9,
      indexIntercept: true,
      rewardIntercept: false,
      indexBound: 3,
      rewardBound: Number.POSITIVE_INFINITY,
      ridge: 1,
      indexRidge: 1,
      radiusMode: "scaled",
      exploration: 0.25,
      explorationPlugIn: 0.25,
      explorationReward: 0.25,
      theory: null,
      horizon: null,
      confidence: null,
      refit: "geometric",
      refitGrowth: 1.2,
      maxIter: 50,
      maxPending: 100_000,
    });
    const k = new Cosmos({ ...known, exploration: 0.7 }).config;
    expect([k.exploration, k.explorationPlugIn, k.explorationReward]).toEqual([0.7, 0.7, 0.7]);
    expect(new Cosmos(known).config.exploration).toBe(0.5);
    const state = (p: { toJSON(): Snapshot }) => (p.toJSON().state as { config: Record<string, unknown> }).config;
    expect(state(new QueryAll(opts))).toMatchObject({ exploration: 0, ridge: 1, rewardLink: "identity" });
    expect(state(new QueryAll(opts))).toMatchObject({ rewardIntercept: false, maxPending: 100_000 });
    expect(state(new ThresholdCascade(opts))).toMatchObject({ threshold: 0.7 });
    expect(state(new OneShot(opts))).toMatchObject({ exploration: 0.5, ridge: 1, indexIntercept: true });
    expect(state(new WeitzmanOracle(oracleOpts))).toMatchObject({ indexLink: "tanh", linkKnee: 0.9 });
    expect(state(new WeitzmanOracle(oracleOpts))).toMatchObject({ indexIntercept: true });
  });

  it("confidence defaults to 1/T with a known reward and 1/sqrt(T) with a learned one", () => {
    const T = 100;
    const k = new Cosmos({ ...known, horizon: T });
    play(k, 0);
    const inputs = { m: 3, d: 2, A: 3, T, t: 1, eta1: 1, eta0: 1 };
    expect(k.indexRadius(0)).toBe(scaledIndexRadius({ ...inputs, delta: 1 / T }, 0.5, 0.5, true, 0));
    const l = new Cosmos({ ...opts, horizon: T });
    play(l, 0);
    expect(l.rewardRadius()).toBe(scaledRewardRadius({ ...inputs, delta: 1 / Math.sqrt(T) }, 0.25));
  });

  it("ridge and indexRidge lie in [1e-8, 1e8] (COSMOS and the baselines' ridge)", () => {
    for (const name of ["ridge", "indexRidge"]) {
      for (const v of [1e-8, 1e8]) expect(() => new Cosmos({ ...opts, [name]: v })).not.toThrow();
      for (const v of [0.99e-8, 1.01e8, 0, -1])
        expect(() => new Cosmos({ ...opts, [name]: v })).toThrow(code("OUT_OF_RANGE"));
    }
    for (const make of [
      (r: number) => new QueryAll({ ...opts, ridge: r }),
      (r: number) => new ThresholdCascade({ ...opts, ridge: r }),
      (r: number) => new OneShot({ ...opts, ridge: r }),
    ]) {
      expect(() => make(1e-8)).not.toThrow();
      expect(() => make(1e8)).not.toThrow();
      expect(() => make(0.99e-8)).toThrow(code("OUT_OF_RANGE"));
      expect(() => make(1.01e8)).toThrow(code("OUT_OF_RANGE"));
    }
  });

  it("input bounds: squared norms up to 1e100, |cost| and |reward| up to 1e6; beyond is OUT_OF_RANGE, state unchanged", () => {
    for (const [name, make, restore] of kinds) {
      const p = make();
      const unchanged = (c: string, fn: () => unknown) => {
        const before = JSON.stringify(p.toJSON());
        expect(fn, name).toThrow(code(c));
        expect(JSON.stringify(p.toJSON()), name).toBe(before);
      };
      unchanged("OUT_OF_RANGE", () => p.begin(Float64Array.of(1e50, 1e-300 * 1e250)));
      const edge = 1e50 * (1 - 2 ** -52); // squared norm 1e100 to the last bit (1e50 squared rounds above it)
      const e = p.begin(Float64Array.of(edge, 0));
      const s = p.next(e) as { query: string };
      unchanged("OUT_OF_RANGE", () => p.observe(e, s.query, Float64Array.of(-1e50, 1e40), 0.1));
      unchanged("OUT_OF_RANGE", () => p.observe(e, s.query, Float64Array.of(0.5, 0), 1e6 * (1 + 2 ** -52)));
      p.observe(e, s.query, Float64Array.of(-edge, 0), 1e6);
      p.choose(e);
      unchanged("OUT_OF_RANGE", () => p.feedback(e, -1e6 * (1 + 2 ** -52)));
      p.feedback(e, -1e6);
      // Every field stays finite: the snapshot reads back (fromJSON validates each) and play goes on.
      const json = JSON.stringify(p.toJSON());
      expect(JSON.stringify(restore(JSON.parse(json)).toJSON()), name).toBe(json);
      play(p, 1);
    }
  });

  it("feedback equals learn({ ...decisionRecord, feedback }) bit for bit, for every policy", () => {
    for (const [name, make] of kinds) {
      const a = make();
      const b = make();
      for (let t = 0; t < 40; t++) {
        play(a, t, "learn", b);
        expect(JSON.stringify(learnedState(b.toJSON())), `${name} t=${t}`).toBe(
          JSON.stringify(learnedState(a.toJSON())),
        );
      }
    }
  });

  it("snapshots round-trip bit for bit (JSON and structuredClone), also mid-episode; restoring and continuing equals never stopping", () => {
    for (const [name, make, restore] of kinds) {
      const p = make();
      for (let t = 0; t < 30; t++) play(p, t);
      // Leave one episode mid-cascade and one chosen, then snapshot.
      const e1 = p.begin(request(100));
      const s1 = p.next(e1) as { query: string };
      p.observe(e1, s1.query, answer(100, s1.query).features, 0.02);
      p.next(e1);
      const e2 = p.begin(request(101));
      const s2 = p.next(e2) as { query: string };
      p.observe(e2, s2.query, answer(101, s2.query).features, 0.02);
      p.choose(e2);
      const snap = p.toJSON();
      const json = JSON.stringify(snap);
      const viaJson = restore(JSON.parse(json));
      const viaClone = restore(structuredClone(snap));
      expect(JSON.stringify(viaJson.toJSON()), name).toBe(json);
      expect(JSON.stringify(viaClone.toJSON()), name).toBe(json);
      const finish = (q: CascadePolicy) => {
        for (let s = q.next(e1); "query" in s; s = q.next(e1))
          q.observe(e1, s.query, answer(100, s.query).features, 0.03);
        q.choose(e1);
        q.feedback(e2, 0.25);
        q.feedback(e1, 0.75);
        for (let t = 30; t < 60; t++) play(q, t);
        return JSON.stringify(q.toJSON());
      };
      const never = finish(p);
      expect(finish(viaJson), name).toBe(never);
      expect(finish(viaClone), name).toBe(never);
    }
  });

  it("Weitzman index helpers: cost 0 is OUT_OF_RANGE; reservationIndex throws NUMERICAL beyond about +-3.2e60", () => {
    expect(() => indexDiscrete([0, 1], [0.5, 0.5], 0)).toThrow(code("OUT_OF_RANGE"));
    expect(() => indexBernoulli(0.5, 0)).toThrow(code("OUT_OF_RANGE"));
    // Pareto(1.01) rewards: E[(mu - s)^+] = s^-0.01 / 0.01 for s >= 1, so cost 1e-6 puts the index at 1e800.
    const pareto = (s: number) => (s <= 1 ? 101 - s : s ** -0.01 / 0.01);
    expect(() => reservationIndex(pareto, 1e-6)).toThrow(code("NUMERICAL"));
    // Pareto(1.5) at cost 0.01: s^-0.5 / 0.5 = 0.01 at s = 40000, well inside the bracket.
    expect(reservationIndex((s) => (s <= 1 ? 3 - s : s ** -0.5 / 0.5), 0.01)).toBeCloseTo(40_000, 6);
  });

  it("COSMOS and the baselines draw nothing from their random stream (seed / rng)", () => {
    for (const [name, make] of kinds) {
      const p = make();
      const rng = JSON.stringify((p.toJSON().state as { rng: unknown }).rng);
      expect(rng, name).toBe(JSON.stringify(Rng.fromSeed(0).toJSON()));
      for (let t = 0; t < 30; t++) play(p, t);
      expect(JSON.stringify((p.toJSON().state as { rng: unknown }).rng), name).toBe(rng);
    }
  });

  it("choose deploys the first queried answer of highest optimistic reward; the rng option wins over seed", () => {
    const p = new QueryAll(known);
    const e = p.begin(Float64Array.of(0, 0));
    for (let s = p.next(e); "query" in s; s = p.next(e))
      p.observe(e, s.query, Float64Array.of(0.5, s.query.length), 0.1);
    expect(p.choose(e)).toBe("mini");
    const rng = Rng.fromSeed(9);
    const c = new Cosmos({ ...known, seed: 5, rng });
    expect((c.toJSON().state as { rng: unknown }).rng).toEqual(Rng.fromSeed(9).toJSON());
    expect((new Cosmos({ ...known, seed: 5 }).toJSON().state as { rng: unknown }).rng).toEqual(
      Rng.fromSeed(5).toJSON(),
    );
  });
});
