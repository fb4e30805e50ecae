import { type CascadePolicy, decodeF64, type Snapshot } from "@routekit/core";
import { shermanMorrisonUpdate } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import {
  Cosmos,
  type CosmosOptions,
  IndexSolver,
  indexLink,
  linearTailsLink,
  OneShot,
  QueryAll,
  RewardModel,
  rewardLink,
  ThresholdCascade,
  updateInverse,
  WeitzmanOracle,
} from "../src/index.js";

const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });
const arms = ["mini", "standard", "frontier"];

/** One full episode: every asked box answers `features` at `cost`; deploys and rewards 1. */
function episode(p: CascadePolicy, context: number[], features: number[], cost = 0.1): void {
  const e = p.begin(Float64Array.from(context));
  for (let s = p.next(e); "query" in s; s = p.next(e)) p.observe(e, s.query, Float64Array.from(features), cost);
  p.choose(e);
  p.feedback(e, 1);
}

describe("parameters given as options are bounded like the inputs, so no product overflows", () => {
  it("rewardParameter with a squared norm above 1e100 is OUT_OF_RANGE (it made the reward NaN and the snapshot unreadable)", () => {
    const huge = [1e308, 1e308];
    const common = { arms, contextDim: 2, outputDim: 2 };
    expect(() => new Cosmos({ ...common, rewardParameter: huge })).toThrow(code("OUT_OF_RANGE"));
    expect(() => new QueryAll({ ...common, rewardParameter: huge })).toThrow(code("OUT_OF_RANGE"));
    expect(() => new ThresholdCascade({ ...common, rewardParameter: huge })).toThrow(code("OUT_OF_RANGE"));
    const rho = { mini: [0, 0, 0], standard: [0, 0, 0], frontier: [0, 0, 0] };
    expect(() => new WeitzmanOracle({ ...common, rewardParameter: huge, indexParameters: rho })).toThrow(
      code("OUT_OF_RANGE"),
    );
    // The largest accepted parameter keeps every snapshot readable.
    const p = new Cosmos({ ...common, rewardParameter: [1e50 / Math.SQRT2, 1e50 / Math.SQRT2] });
    episode(p, [0.1, 0.2], [1e50 / Math.SQRT2, -1e50 / Math.SQRT2]);
    episode(p, [0.1, 0.2], [1e50 / Math.SQRT2, 1e50 / Math.SQRT2]);
    const s = JSON.stringify(p.toJSON());
    expect(JSON.stringify(Cosmos.fromJSON(JSON.parse(s)).toJSON())).toBe(s);
  });

  it("WeitzmanOracle: indexParameters rows with a squared norm above 1e100 are OUT_OF_RANGE (sigma was NaN)", () => {
    const o = { arms: ["b", "c"], contextDim: 2, outputDim: 1, rewardParameter: [1] };
    expect(() => new WeitzmanOracle({ ...o, indexParameters: { b: [0, 1e308, 1e308], c: [0, 0, 0] } })).toThrow(
      code("OUT_OF_RANGE"),
    );
  });

  it("WeitzmanOracle: an id named like an Object.prototype member has no index parameter unless given one", () => {
    const p = new WeitzmanOracle({
      arms: ["b"],
      contextDim: 1,
      outputDim: 1,
      rewardParameter: [1],
      indexParameters: { b: [0.1, 0] },
    });
    for (const id of ["toString", "constructor", "valueOf", "hasOwnProperty"]) {
      const before = JSON.stringify(p.toJSON());
      expect(() => p.addArm(id)).toThrow(code("INVALID_ARGUMENT"));
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
    const q = new WeitzmanOracle({
      arms: ["__proto__", "constructor"],
      contextDim: 1,
      outputDim: 1,
      rewardParameter: [1],
      indexParameters: JSON.parse('{"__proto__": [0.5, 0], "constructor": [0.2, 0]}'),
    });
    expect(q.arms).toEqual(["__proto__", "constructor"]);
    episode(q, [0.3], [0.9]);
    const s = JSON.stringify(q.toJSON());
    expect(JSON.stringify(WeitzmanOracle.fromJSON(JSON.parse(s)).toJSON())).toBe(s);
    expect(JSON.stringify(WeitzmanOracle.fromJSON(structuredClone(q.toJSON())).toJSON())).toBe(s);
    const e = q.begin(Float64Array.of(0.3));
    expect(q.next(e)).toEqual({ query: "__proto__" }); // index tanh(0.5) > tanh(0.2)
  });
});

describe("inputs of mixed scale (inside the documented bounds) keep every kept inverse positive definite", () => {
  // A context of norm 1e20 next to the intercept (or answer features of norm 1e20 next to the ridge) made the
  // Sherman-Morrison update cancel: V_a^-1 (or Phi^-1) got a negative diagonal after 2 episodes, the widths a
  // negative variance (read as 0), and the policy's own snapshot was refused by fromJSON as SNAPSHOT_CORRUPT.
  const common = { arms, contextDim: 2, outputDim: 2 };
  const run = (
    p: CascadePolicy,
    restore: (s: unknown) => CascadePolicy,
    ctx: (t: number) => number[],
    phi: (t: number) => number[],
  ) => {
    for (let t = 0; t < 300; t++) {
      episode(p, ctx(t), phi(t));
      const json = JSON.stringify(p.toJSON());
      expect(JSON.stringify(restore(JSON.parse(json)).toJSON()), `episode ${t}`).toBe(json);
    }
  };
  const wave = (t: number) => (((t * 7919) % 1000) + 1) / 1000;
  it.each([
    [
      "Cosmos, known reward, contexts of norm 1e20",
      { rewardParameter: [1, 0] },
      (t: number) => [1e20 * wave(t), wave(t + 1)],
      (t: number) => [wave(t), 0.5],
    ],
    [
      "Cosmos, learned reward, answer features of norm 1e20",
      {},
      (t: number) => [wave(t), wave(t + 1)],
      (t: number) => [1e20 * wave(t), wave(t + 2)],
    ],
    [
      "Cosmos, contexts alternating 7e49 and 0.5 (squared norm < 1e100)",
      { indexRidge: 1e-8 },
      (t: number) => (t % 2 ? [7e49, 0] : [0.5, 0.5]),
      (t: number) => [wave(t), 0.5],
    ],
  ] as const)("%s: the snapshot after every episode reads back", (_name, extra, ctx, phi) => {
    run(new Cosmos({ ...common, ...extra } as CosmosOptions), (s) => Cosmos.fromJSON(s as Snapshot), ctx, phi);
  });
  it("the kept inverses have a positive diagonal (OneShot's A^-1 too, whose reader also refuses one that is not)", () => {
    const p = new Cosmos({ ...common, rewardParameter: [1, 0] });
    const q = new OneShot(common);
    for (let t = 0; t < 20; t++) {
      episode(p, t % 2 ? [1e20, 0] : [0.5, 0.5], [wave(t), 0.5]);
      episode(q, t % 2 ? [1e20, 0] : [0.5, 0.5], [wave(t), 0.5]);
    }
    const diag = (flat: number[], m: number) => Array.from({ length: m }, (_, i) => flat[i * m + i] as number);
    const decode = (v: unknown) => Array.from(decodeF64(v as never, "inverse", 9));
    const st = p.toJSON().state as { boxes: { Vinv: unknown }[] };
    for (const b of st.boxes) for (const v of diag(decode(b.Vinv), 3)) expect(v).toBeGreaterThan(0);
    const os = q.toJSON().state as { states: { Ainv: unknown }[] };
    for (const b of os.states) for (const v of diag(decode(b.Ainv), 3)) expect(v).toBeGreaterThan(0);
  });
  it("ordinary inputs keep the plain Sherman-Morrison inverse bit for bit (the repair never runs)", () => {
    const m = 3;
    const A = new Float64Array(m * m);
    const kept = new Float64Array(m * m);
    const plain = new Float64Array(m * m);
    for (let i = 0; i < m; i++) {
      A[i * m + i] = 1;
      kept[i * m + i] = 1;
      plain[i * m + i] = 1;
    }
    const L = new Float64Array(m * m);
    const u = new Float64Array(m);
    for (let t = 1; t < 256; t++) {
      const x = Float64Array.of(1, wave(t) - 0.5, wave(t + 3) - 0.5);
      for (let i = 0; i < m; i++)
        for (let j = i; j < m; j++) A[i * m + j] = (A[i * m + j] as number) + (x[i] as number) * (x[j] as number);
      updateInverse(A, m, kept, x, t, L, u);
      shermanMorrisonUpdate(plain, m, x, u);
    }
    expect(Array.from(kept)).toEqual(Array.from(plain));
  });
});

describe("vector inputs are read once", () => {
  /** An array whose entry i reads as `vals[i]` for its first `reads` reads and as NaN after (a getter or proxy). */
  const flaky = (vals: number[], reads: number): number[] => {
    const count = vals.map(() => 0);
    return new Proxy(vals.slice(), {
      get(t, k) {
        if (typeof k === "string" && /^\d+$/.test(k)) {
          const i = Number(k);
          count[i] = (count[i] as number) + 1;
          return (count[i] as number) > reads ? Number.NaN : t[i];
        }
        return Reflect.get(t, k);
      },
    });
  };
  it.each([1, 2, 3])(
    "begin's context and observe's features that turn NaN after %i reads are learned as first read (NaN got in; the snapshot was unreadable)",
    (reads) => {
      const p = new Cosmos({ arms, contextDim: 2, outputDim: 2 });
      const e = p.begin(flaky([0.1, -0.2], reads));
      const s = p.next(e);
      if (!("query" in s)) throw new Error("expected a query");
      p.observe(e, s.query, flaky([0.6, 0.3], reads), 0.1);
      p.choose(e);
      const record = p.decisionRecord(e);
      expect(record.decision.context).toEqual([0.1, -0.2]);
      expect(record.decision.queried[0]?.features).toEqual([0.6, 0.3]);
      p.feedback(e, 1);
      const json = JSON.stringify(p.toJSON());
      expect(JSON.stringify(Cosmos.fromJSON(JSON.parse(json)).toJSON())).toBe(json);
    },
  );
});

describe("option vectors and records whose reads throw", () => {
  /** An array (a proxy: it passes Array.isArray) whose `key` read throws a plain Error. */
  const throwing = (vals: number[], key: string): number[] =>
    new Proxy(vals.slice(), {
      get(t, k) {
        if (k === key) throw new Error(`read ${key}`);
        return Reflect.get(t, k);
      },
    });
  it("rewardParameter and indexParameters rows whose entry or length getter throws are INVALID_ARGUMENT (the Error escaped)", () => {
    for (const key of ["0", "length"]) {
      expect(() => new Cosmos({ arms, contextDim: 1, outputDim: 1, rewardParameter: throwing([1], key) })).toThrow(
        code("INVALID_ARGUMENT"),
      );
      const oracle = {
        arms: ["a"],
        contextDim: 1,
        outputDim: 1,
        rewardParameter: [1],
        indexParameters: { a: throwing([0.1, 0.2], key) },
      };
      expect(() => new WeitzmanOracle(oracle)).toThrow(code("INVALID_ARGUMENT"));
    }
  });
  it("an option or a theory constant whose getter throws is INVALID_ARGUMENT naming it", () => {
    const theory = Object.defineProperty({}, "kappa", {
      enumerable: true,
      get() {
        throw new Error("kappa");
      },
    });
    expect(() => new Cosmos({ arms, contextDim: 1, outputDim: 1, theory: theory as { kappa: number } })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", message: "theory: reading option kappa threw: kappa" }),
    );
    const seeded = Object.defineProperty({ arms, contextDim: 1, outputDim: 1 }, "seed", {
      enumerable: true,
      get() {
        throw new Error("seed");
      },
    });
    expect(() => new Cosmos(seeded)).toThrow(code("INVALID_ARGUMENT"));
  });
});

describe("models removed while an episode is open", () => {
  it("the outstanding model is asked for until observed even when removed; planned models removed are skipped", () => {
    const p = new Cosmos({ arms, contextDim: 2, outputDim: 2, rewardParameter: [1, 0] });
    const e = p.begin(Float64Array.of(0.1, 0.2));
    expect(p.next(e)).toEqual({ query: "mini" });
    p.removeArm("mini");
    p.removeArm("standard");
    expect(p.next(e)).toEqual({ query: "mini" });
    p.observe(e, "mini", Float64Array.of(0.1, 0), 0.1);
    expect(p.next(e)).toEqual({ query: "frontier" }); // "standard" was removed before it was asked
    p.observe(e, "frontier", Float64Array.of(0.05, 0), 0.1);
    expect(p.next(e)).toEqual({ stop: true });
    expect(p.choose(e)).toBe("mini"); // the answer in hand is deployed; its feedback teaches the live boxes only
    p.feedback(e, 1);
    expect(p.arms).toEqual(["frontier"]);
    const s = JSON.stringify(p.toJSON());
    expect(JSON.stringify(Cosmos.fromJSON(JSON.parse(s)).toJSON())).toBe(s);
  });

  it("an episode whose every planned model was removed before any was asked says to discard it (state unchanged)", () => {
    const p = new Cosmos({ arms: ["a", "b"], contextDim: 1, outputDim: 1, rewardParameter: [1] });
    const f = p.begin(Float64Array.of(0));
    p.addArm("c");
    p.removeArm("a");
    p.removeArm("b");
    const before = JSON.stringify(p.toJSON());
    expect(() => p.next(f)).toThrow(code("INVALID_STATE"));
    expect(JSON.stringify(p.toJSON())).toBe(before);
    p.discard(f);
    expect(p.pendingDecisions).toBe(0);
  });
});

describe("radii at the ends of their options' ranges", () => {
  /** Plays n episodes; after each observation the snapshot must read back and the indices be numbers. */
  function check(o: Partial<CosmosOptions>, features: number[], n = 4): void {
    const p = new Cosmos({ arms, contextDim: 2, outputDim: 2, ...o });
    for (let t = 0; t < n; t++) {
      const e = p.begin(Float64Array.of(0.3, -0.1));
      for (let s = p.next(e); "query" in s; s = p.next(e)) {
        p.observe(e, s.query, Float64Array.from(features), 0.1);
        const json = JSON.stringify(p.toJSON());
        expect(JSON.stringify(Cosmos.fromJSON(JSON.parse(json)).toJSON()), JSON.stringify(o)).toBe(json);
      }
      p.choose(e);
      p.feedback(e, 0.5);
    }
    const { sigma, beta } = p.optimisticIndices(Float64Array.of(0.3, -0.1));
    expect(sigma.every((v) => !Number.isNaN(v)) && !Number.isNaN(beta), JSON.stringify(o)).toBe(true);
  }

  it("an infinite radius (confidence 5e-324, exploration 1e308) gives sigma~ = 1, not NaN, and snapshots read back", () => {
    for (const features of [
      [0, 0],
      [0.5, 0.5],
    ]) {
      check({ confidence: 5e-324 }, features);
      check({ explorationReward: 1e308 }, features);
      check({ exploration: 1e308 }, features);
      check({ exploration: 0, confidence: 5e-324 }, features); // greedy: 0 times an infinite log is no radius
      check({ exploration: 0, confidence: 5e-324, rewardParameter: [1, 0] }, features);
      check(
        {
          radiusMode: "theory",
          theory: { kappa: 0.5, psiBound: 1e308, phiBound: 1e308, rewardMax: 1e308 },
          rewardBound: 1e308,
        },
        features,
      );
    }
    const greedy = new Cosmos({ arms, contextDim: 2, outputDim: 2, exploration: 0, confidence: 5e-324 });
    expect(greedy.rewardRadius()).toBe(0);
  });
});

describe("theory constants", () => {
  it('are validated and kept in snapshots whenever given, and used only with radiusMode "theory"', () => {
    const o = { arms, contextDim: 2, outputDim: 2, rewardParameter: [1, 0] };
    expect(() => new Cosmos({ ...o, theory: "x" as never })).toThrow(code("INVALID_ARGUMENT")); // was ignored
    expect(() => new Cosmos({ ...o, theory: { kappa: -1 } })).toThrow(code("OUT_OF_RANGE")); // was ignored
    const kept = new Cosmos({ ...o, theory: { kappa: 0.1 } });
    expect(kept.config.theory?.kappa).toBe(0.1);
    expect(Cosmos.fromJSON(JSON.parse(JSON.stringify(kept.toJSON()))).config.theory?.kappa).toBe(0.1);
    const plain = new Cosmos(o);
    for (const p of [kept, plain]) episode(p, [0.1, 0.2], [0.5, 0]);
    expect(kept.indexRadius(0)).toBe(plain.indexRadius(0)); // scaled radii: the constants are not used
    const theory = new Cosmos({ ...o, radiusMode: "theory", theory: { kappa: 0.1 } });
    episode(theory, [0.1, 0.2], [0.5, 0]);
    expect(theory.indexRadius(0)).toBeGreaterThan(100 * plain.indexRadius(0));
  });
});

describe("inspection methods validate their input like begin()", () => {
  it("optimisticIndices / estimatedIndex refuse contexts of the wrong length, non-finite or too large; indexRadius a bad position", () => {
    for (const o of [{ rewardParameter: [1, 0] }, {}]) {
      const p = new Cosmos({ arms, contextDim: 2, outputDim: 2, ...o });
      const before = JSON.stringify(p.toJSON());
      expect(() => p.optimisticIndices(Float64Array.of(1))).toThrow(code("DIMENSION_MISMATCH"));
      expect(() => p.optimisticIndices(Float64Array.of(Number.NaN, 0))).toThrow(code("NON_FINITE"));
      expect(() => p.optimisticIndices(Float64Array.of(1e200, 0))).toThrow(code("OUT_OF_RANGE"));
      expect(() => p.optimisticIndices(null as never)).toThrow(code("INVALID_ARGUMENT"));
      expect(() => p.estimatedIndex("mini", Float64Array.of(0))).toThrow(code("DIMENSION_MISMATCH"));
      expect(() => p.estimatedIndex("mini", Float64Array.of(0, Number.POSITIVE_INFINITY))).toThrow(code("NON_FINITE"));
      for (const i of [-1, 3, 0.5]) expect(() => p.indexRadius(i)).toThrow(code("OUT_OF_RANGE"));
      expect(() => p.indexRadius(Number.NaN)).toThrow(code("NON_FINITE"));
      expect(JSON.stringify(p.toJSON())).toBe(before);
      expect(p.indexRadius(2)).toBeGreaterThanOrEqual(0);
    }
  });
});

describe("the link building blocks", () => {
  it("indexLink / rewardLink refuse unknown names and knees outside (0, 1) with typed errors", () => {
    expect(() => indexLink("nope" as never)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => rewardLink("nope" as never)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => indexLink("linear", 1)).toThrow(code("OUT_OF_RANGE"));
    expect(() => linearTailsLink(0)).toThrow(code("OUT_OF_RANGE"));
    expect(() => indexLink("linear", Number.NaN)).toThrow(code("NON_FINITE"));
    expect(indexLink("linear", 0.5).value(0.25)).toBe(0.25);
    expect(rewardLink("logistic").value(0)).toBe(0.5);
  });
});

describe("the solver building blocks", () => {
  it("IndexSolver and RewardModel refuse bad dimensions, ridges, bounds and parameters with typed errors", () => {
    expect(() => new IndexSolver(-1)).toThrow(code("OUT_OF_RANGE"));
    expect(() => new IndexSolver(0)).toThrow(code("OUT_OF_RANGE"));
    expect(() => new IndexSolver(1.5)).toThrow(code("OUT_OF_RANGE"));
    const G = rewardLink("identity");
    expect(() => new RewardModel(2, G, 0, Number.POSITIVE_INFINITY, null)).toThrow(code("OUT_OF_RANGE"));
    expect(() => new RewardModel(0, G, 1, Number.POSITIVE_INFINITY, null)).toThrow(code("OUT_OF_RANGE"));
    expect(() => new RewardModel(2, G, 1, -1, null)).toThrow(code("OUT_OF_RANGE"));
    expect(() => new RewardModel(2, G, 1, Number.POSITIVE_INFINITY, [1])).toThrow(code("DIMENSION_MISMATCH"));
    expect(() => new RewardModel(2, G, 1, Number.POSITIVE_INFINITY, [1, Number.NaN])).toThrow(code("NON_FINITE"));
    expect(() => new RewardModel(2, null as never, 1, Number.POSITIVE_INFINITY, null)).toThrow(
      code("INVALID_ARGUMENT"),
    );
    expect(
      new RewardModel(2, G, 1, Number.POSITIVE_INFINITY, Float64Array.of(1, 0)).mean(Float64Array.of(0.4, 9)),
    ).toBe(0.4);
  });
});
