/**
 * Regression tests for defects an outside adversarial test found (each failed on the code before
 * its fix): overflow on finite rewards, unrestorable reachable states, NaN from tiny valid priors.
 */
import { type ArmPolicy, ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  EpsilonGreedy,
  LinUCBDisjoint,
  LinUCBShared,
  RandomPolicy,
  ThompsonBernoulli,
  ThompsonGaussian,
} from "../src/index.js";

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("LinUCB numerics", () => {
  it("LinUCBDisjoint: a reward that would overflow b is NUMERICAL and changes nothing", () => {
    const p = new LinUCBDisjoint({ arms: ["a"], contextDim: 2 });
    const d1 = p.select(new Float64Array([1, 0]));
    p.update(d1, { reward: 1e308 });
    const d2 = p.select(new Float64Array([1, 0]));
    const before = JSON.stringify(p.toJSON());
    expect(codeOf(() => p.update(d2, { reward: 1e308 }))).toBe(ErrorCode.Numerical);
    const after = JSON.parse(JSON.stringify(p.toJSON()));
    // Only the decision is still pending; nothing learned changed.
    expect(JSON.stringify(after)).toBe(before);
    expect(Array.from(p.theta("a")).every(Number.isFinite)).toBe(true);
  });

  for (const make of [
    () => new LinUCBDisjoint({ arms: ["a", "b"], contextDim: 2 }),
    () => new LinUCBShared({ arms: ["a", "b"], contextDim: 2 }),
  ]) {
    it(`${make().kind}: the state after a context (1e8, 0) restores (an exact 0 on the inverse's diagonal)`, () => {
      const p = make();
      const d = p.select(new Float64Array([1e8, 0]));
      p.update(d, { reward: 1 });
      const Ctor = p.constructor as unknown as { fromJSON(s: unknown): ArmPolicy };
      const q = Ctor.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
      expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
    });

    it(`${make().kind}: every state reached by large and mixed-scale contexts restores`, () => {
      const p = make();
      const rng = Rng.fromSeed(11);
      const Ctor = p.constructor as unknown as { fromJSON(s: unknown): ArmPolicy };
      for (let t = 0; t < 300; t++) {
        const scale = 10 ** rng.int(12);
        const x = new Float64Array([scale * rng.normal(), rng.normal()]);
        const d = p.select(x);
        try {
          p.update(d, { reward: rng.normal() });
        } catch (e) {
          expect(isRouteKitError(e, ErrorCode.Numerical)).toBe(true);
        }
        const q = Ctor.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
        expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
      }
    });
  }
});

describe("Thompson sampling with tiny valid priors", () => {
  it("Gaussian: priorVariance = noiseVariance = 5e-324 learns the best arm, no NaN", () => {
    const p = new ThompsonGaussian({ arms: ["a", "b", "c"], priorVariance: 5e-324, noiseVariance: 5e-324, seed: 1 });
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let t = 0; t < 300; t++) {
      const d = p.select();
      counts[d.arm] = (counts[d.arm] ?? 0) + 1;
      p.update(d, { reward: d.arm === "c" ? 1 : 0 });
    }
    for (const a of ["a", "b", "c"]) {
      const post = p.posterior(a);
      expect(Number.isFinite(post.mean) && Number.isFinite(post.variance)).toBe(true);
    }
    expect(counts.c).toBeGreaterThan(250);
  });

  it("Gaussian: extreme variance ratios (1e308 / 5e-324 and back) stay finite", () => {
    for (const [pv, nv] of [
      [1e308, 5e-324],
      [5e-324, 1e308],
      [Number.MAX_VALUE, Number.MAX_VALUE],
    ] as const) {
      const p = new ThompsonGaussian({ arms: ["a", "b"], priorVariance: pv, noiseVariance: nv, seed: 2 });
      for (let t = 0; t < 50; t++) {
        const d = p.select();
        p.update(d, { reward: d.arm === "a" ? 1 : -1 });
      }
      for (const a of ["a", "b"]) expect(Number.isNaN(p.posterior(a).mean)).toBe(false);
    }
  });

  it("Bernoulli: priors of 5e-324 learn the best arm instead of always picking the first", () => {
    const p = new ThompsonBernoulli({ arms: ["a", "b", "c"], priorAlpha: 5e-324, priorBeta: 5e-324, seed: 3 });
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let t = 0; t < 300; t++) {
      const d = p.select();
      counts[d.arm] = (counts[d.arm] ?? 0) + 1;
      p.update(d, { reward: d.arm === "c" ? 1 : 0 });
    }
    expect(counts.c).toBeGreaterThan(250);
  });

  it("Bernoulli: with priors a = b = 1e-3 the first pick is spread over the arms (no NaN tie-break)", () => {
    const first: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let seed = 0; seed < 300; seed++) {
      const p = new ThompsonBernoulli({ arms: ["a", "b", "c"], priorAlpha: 1e-3, priorBeta: 1e-3, seed });
      const d = p.select();
      first[d.arm] = (first[d.arm] ?? 0) + 1;
    }
    for (const a of ["a", "b", "c"]) expect(first[a]).toBeGreaterThan(60);
  });
});

describe("decision records carry the propensity where the distribution is explicit", () => {
  it("random and epsilon-greedy: the record's propensity is the decision's", () => {
    for (const p of [
      new RandomPolicy({ arms: ["a", "b", "c", "d"], seed: 1 }),
      new EpsilonGreedy({ arms: ["a", "b", "c"], seed: 1, epsilon: 0.3 }),
    ]) {
      for (let t = 0; t < 30; t++) {
        const d = p.select();
        const rec = JSON.parse(JSON.stringify(p.decisionRecord(d)));
        expect(rec.decision.propensity).toBe(d.propensity);
        expect(d.propensity).toBeGreaterThan(0);
        // The snapshot keeps it for pending decisions.
        const Ctor = p.constructor as unknown as { fromJSON(s: unknown): ArmPolicy };
        const q = Ctor.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
        expect(q.decisionRecord(d).decision.propensity).toBe(d.propensity);
        p.update(d, { reward: t % 2 });
      }
    }
  });
});

describe("options follow core's error-code rule", () => {
  const arms = ["a", "b"];
  it("wrong type INVALID_ARGUMENT, NaN NON_FINITE, outside the range OUT_OF_RANGE", () => {
    const cases: [() => unknown, string][] = [
      [() => new EpsilonGreedy({ arms, epsilon: "0.1" as never }), ErrorCode.InvalidArgument],
      [() => new EpsilonGreedy({ arms, decay: "1/n" as never }), ErrorCode.InvalidArgument],
      [() => new EpsilonGreedy({ arms, epsilon: 1.5 }), ErrorCode.OutOfRange],
      [() => new ThompsonBernoulli({ arms, priorAlpha: 0 }), ErrorCode.OutOfRange],
      [() => new ThompsonBernoulli({ arms, fractionalRewards: "x" as never }), ErrorCode.InvalidArgument],
      [() => new ThompsonGaussian({ arms, priorMean: Number.NaN }), ErrorCode.NonFinite],
      [() => new ThompsonGaussian({ arms, noiseVariance: -1 }), ErrorCode.OutOfRange],
      [() => new LinUCBDisjoint({ arms, contextDim: 2, exploration: -1 }), ErrorCode.OutOfRange],
      [() => new LinUCBShared({ arms, contextDim: 2, ridge: 0 }), ErrorCode.OutOfRange],
      [() => new LinUCBShared({ arms, contextDim: 2, exploration: "2" as never }), ErrorCode.InvalidArgument],
      [() => new RandomPolicy({ arms, maxPending: 0 }), ErrorCode.OutOfRange],
      [() => new RandomPolicy(null as never), ErrorCode.InvalidArgument],
    ];
    for (const [fn, code] of cases) expect(codeOf(fn), String(fn)).toBe(code);
  });
});

describe("plain-array contexts are never coerced", () => {
  it('a string entry was read as "3" + 0 = 30; now every non-number entry is INVALID_ARGUMENT and nothing changes', () => {
    const p = new LinUCBDisjoint({ arms: ["a", "b"], contextDim: 2 });
    const before = JSON.stringify(p.toJSON());
    for (const bad of ["3", null, true, [0.5], Object.create(null), Symbol("s"), 10n]) {
      expect(codeOf(() => p.select([bad, 0] as never))).toBe(ErrorCode.InvalidArgument);
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
    const d = p.select([0.6, -0] as unknown as Float64Array);
    expect(p.decisionRecord(d).decision.context).toEqual([0.6, 0]);
  });

  it("an arm id that is not a string is INVALID_ARGUMENT in addArm and removeArm (a prototype-less object threw a TypeError)", () => {
    const p = new LinUCBDisjoint({ arms: ["a", "b"], contextDim: 2 });
    for (const bad of [Object.create(null), Symbol("s"), 7, { toString: () => "a" }]) {
      expect(codeOf(() => p.addArm(bad as never))).toBe(ErrorCode.InvalidArgument);
      expect(codeOf(() => p.removeArm(bad as never))).toBe(ErrorCode.InvalidArgument);
    }
    expect(p.arms).toEqual(["a", "b"]);
  });
});

describe("feedback fields are read once", () => {
  it("a reward getter cannot pass validation with one value and be learned with another (update and learn)", () => {
    const flaky = () => {
      let reads = 0;
      return {
        get reward() {
          reads++;
          return reads === 1 ? 0.5 : Number.NaN;
        },
      };
    };
    const p = new LinUCBDisjoint({ arms: ["a"], contextDim: 1 });
    const q = new LinUCBDisjoint({ arms: ["a"], contextDim: 1 });
    const d = p.select(Float64Array.of(0.5));
    const record = p.decisionRecord(d);
    p.update(d, flaky());
    q.learn({ ...record, feedback: flaky() });
    const r = new LinUCBDisjoint({ arms: ["a"], contextDim: 1 });
    r.update(r.select(Float64Array.of(0.5)), { reward: 0.5 });
    expect(Array.from(p.theta("a"))).toEqual(Array.from(r.theta("a")));
    expect(Array.from(q.theta("a"))).toEqual(Array.from(r.theta("a")));
  });
});

describe("LinUCBShared's default maxArms fits the 4,096-feature cap", () => {
  it("contextDim above 4,032 without maxArms builds (the default 64 was OUT_OF_RANGE), with 4,096 - contextDim slots", () => {
    const p = new LinUCBShared({ arms: ["a", "b"], contextDim: 4090 });
    expect(p.maxArms).toBe(6);
    expect(p.capacity).toBe(6);
    const x = new Float64Array(4090).fill(1e-3);
    const d = p.select(x);
    p.update(d, { reward: 1 });
    expect(JSON.stringify(LinUCBShared.fromJSON(JSON.parse(JSON.stringify(p.toJSON()))).toJSON())).toBe(
      JSON.stringify(p.toJSON()),
    );
    // Unchanged where 64 fits; an explicit value past the cap is still OUT_OF_RANGE.
    expect(new LinUCBShared({ arms: [], contextDim: 4032 }).maxArms).toBe(64);
    expect(codeOf(() => new LinUCBShared({ arms: [], contextDim: 4090, maxArms: 7 }))).toBe(ErrorCode.OutOfRange);
  });
});
