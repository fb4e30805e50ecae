/**
 * Edge inputs found by an adversarial audit: integer options beyond 2^53, option values at the far end
 * of their documented ranges, and queries whose squared norm under- or overflows.
 */
import { type ArmEvent, ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { EuclideanPg, Exp3, Hpg, LogLinearPg, ParameterFreeHpg } from "../src/index.js";
import { unitVector } from "./helpers.js";
import { type AnyRouter, routers } from "./policies.js";

const ARMS = ["a", "b", "c"];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(isRouteKitError(e), String(e)).toBe(true);
    return (e as { code: string }).code;
  }
  return undefined;
}

function run(p: AnyRouter, rounds: number, d: number, seed = 2): void {
  const rng = Rng.fromSeed(seed);
  for (let t = 0; t < rounds; t++) {
    const dec = p.select(unitVector(rng, d));
    p.update(dec, { reward: 2 * rng.uniform() - 1 });
  }
}

describe.each(routers)("%s: integer options", (_name, make, restore) => {
  it("a horizon above 2^53 - 1 is OUT_OF_RANGE; the largest safe one snapshots and restores", () => {
    const mk = make as (o: Record<string, unknown>) => AnyRouter;
    expect(codeOf(() => mk({ arms: ARMS, contextDim: 4, horizon: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => mk({ arms: ARMS, contextDim: 4, horizon: 1e308 }))).toBe(ErrorCode.OutOfRange);
    const p = mk({ arms: ARMS, contextDim: 4, horizon: Number.MAX_SAFE_INTEGER, seed: 1 });
    run(p, 20, 4);
    const text = JSON.stringify(p.toJSON());
    expect(JSON.stringify(restore(JSON.parse(text)).toJSON())).toBe(text);
  });
});

describe.each([
  ["hpg", Hpg],
  ["parameter-free", ParameterFreeHpg],
  ["euclidean-pg", EuclideanPg],
] as const)("%s: maxRank and reorthEvery", (_name, C) => {
  it("above 2^53 - 1 are OUT_OF_RANGE; the largest safe values snapshot and restore", () => {
    for (const k of ["maxRank", "reorthEvery"]) {
      expect(codeOf(() => new C({ arms: ARMS, contextDim: 4, [k]: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
      const p = new C({ arms: ARMS, contextDim: 4, [k]: Number.MAX_SAFE_INTEGER, seed: 1 });
      run(p as unknown as AnyRouter, 20, 4);
      const text = JSON.stringify(p.toJSON());
      expect(JSON.stringify((C.fromJSON(JSON.parse(text)) as { toJSON(): unknown }).toJSON())).toBe(text);
    }
  });
});

describe("the nuclear ball holds at the far end of the option ranges", () => {
  const cases: [string, () => Hpg | EuclideanPg][] = [
    ["Hpg beta 1e308", () => new Hpg({ arms: ARMS, contextDim: 4, seed: 1, beta: 1e308 })],
    [
      "Hpg beta 1e300, radius 1e-300",
      () => new Hpg({ arms: ARMS, contextDim: 4, seed: 1, beta: 1e300, radius: 1e-300 }),
    ],
    ["Hpg stepSize 1e308", () => new Hpg({ arms: ARMS, contextDim: 4, seed: 1, stepSize: 1e308 })],
    ["EuclideanPg stepSize 1e308", () => new EuclideanPg({ arms: ARMS, contextDim: 4, seed: 1, stepSize: 1e308 })],
    ["EuclideanPg stepSize 1e20", () => new EuclideanPg({ arms: ARMS, contextDim: 4, seed: 1, stepSize: 1e20 })],
  ];
  it.each(cases)(
    "%s: |W|_* <= radius after every step, so |q^T W q| <= radius, and the snapshot restores",
    (_n, mk) => {
      const p = mk();
      const rng = Rng.fromSeed(2);
      for (let t = 0; t < 200; t++) {
        const q = unitVector(rng, 4);
        const dec = p.select(q);
        p.update(dec, { reward: 2 * rng.uniform() - 1 });
        if (p instanceof Hpg)
          for (const s of p.spectra()) expect(s.nuclearNorm).toBeLessThanOrEqual(p.radius * (1 + 1e-9));
        // The README's promise: routing is never sharper than a factor e^(2 radius) between two models.
        const pi = Array.from(p.probabilities(q));
        for (const v of pi) expect(Number.isFinite(v) && v > 0).toBe(true);
        expect(Math.max(...pi) / Math.min(...pi)).toBeLessThanOrEqual(Math.exp(2 * p.radius) * (1 + 1e-9));
      }
      const text = JSON.stringify(p.toJSON());
      const C = p instanceof Hpg ? Hpg : EuclideanPg;
      expect(JSON.stringify(C.fromJSON(JSON.parse(text)).toJSON())).toBe(text);
    },
  );
});

describe.each(routers)("%s: normalizeContext on queries whose squared norm leaves the double range", (_n, make) => {
  it("scales 1e-200 and 1e200 queries to the unit vector they point along", () => {
    const mk = make as (o: Record<string, unknown>) => AnyRouter;
    const p = mk({ arms: ARMS, contextDim: 4, seed: 1, normalizeContext: true });
    run(p, 50, 4);
    const before = JSON.stringify(p.toJSON());
    const unit = Array.from(p.probabilities(Float64Array.of(0.6, -0.8, 0, 0)));
    for (const s of [1e-200, 1e200, 1e-300, 1e308]) {
      const q = Float64Array.of(0.6 * s, -0.8 * s, 0, 0);
      const pi = Array.from(p.probabilities(q));
      for (let i = 0; i < pi.length; i++) expect(pi[i]).toBeCloseTo(unit[i] as number, 12);
    }
    expect(JSON.stringify(p.toJSON())).toBe(before);
    expect(codeOf(() => p.select(new Float64Array(4)))).toBe(ErrorCode.OutOfRange);
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });
});

describe.each(routers)("%s: the unit-ball boundary", (_n, make) => {
  it("accepts norm exactly 1 (and 1 + 1e-9 of rounding), rejects 1 + 1e-5 with OUT_OF_RANGE and changes nothing", () => {
    const p = make({ arms: ARMS, contextDim: 4, seed: 1 });
    run(p, 30, 4);
    p.discard(p.select(Float64Array.of(0, 0, -1, 0)));
    p.discard(p.select(Float64Array.of(0.6, 0.8, 0, 0)));
    p.discard(p.select(Float64Array.of(1 + 1e-9, 0, 0, 0)));
    const before = JSON.stringify(p.toJSON());
    expect(codeOf(() => p.select(Float64Array.of(0, 1 + 1e-5, 0, 0)))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => p.probabilities(Float64Array.of(0, 1 + 1e-5, 0, 0)))).toBe(ErrorCode.OutOfRange);
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });

  it("takes an embedding normalised in float32 (norm 1 + 5e-8 at d = 384) as that direction scaled onto the sphere", () => {
    const d = 384;
    const rng = Rng.fromSeed(3);
    let x32 = new Float32Array(d);
    let worst = 0;
    for (let k = 0; k < 200; k++) {
      const v = Float32Array.from({ length: d }, () => rng.normal());
      const n = Math.fround(Math.hypot(...v));
      for (let i = 0; i < d; i++) v[i] = Math.fround((v[i] as number) / n);
      const norm = Math.hypot(...v);
      if (norm > worst) [worst, x32] = [norm, v];
    }
    expect(worst - 1).toBeGreaterThan(1e-9); // what the 1e-9 slack alone refused
    expect(worst - 1).toBeLessThan(1e-6);
    const arms = ["a", "b", "c"];
    const p = make({ arms, contextDim: d, seed: 1 });
    const q = make({ arms, contextDim: d, seed: 1 });
    const unit = Float64Array.from(x32, (v) => v / worst);
    const [pp, pq] = [p.probabilities(x32), q.probabilities(unit)];
    for (let m = 0; m < arms.length; m++) expect(Math.abs((pp[m] as number) - (pq[m] as number))).toBeLessThan(1e-12);
    // update and learn of its JSON event agree bit for bit (the event carries the query as given).
    for (let t = 0; t < 5; t++) {
      const dec = p.select(x32);
      const event = JSON.parse(JSON.stringify({ ...p.decisionRecord(dec), feedback: { reward: 1 } }));
      p.update(dec, { reward: 1 });
      q.learn(event);
    }
    const learned = (r: AnyRouter) => JSON.stringify((r.toJSON().state as unknown as { arms: unknown }).arms);
    expect(learned(p)).toContain('"c"');
    expect(learned(q)).toBe(learned(p));
  });
});

describe("Exp3 learns an event from another router whose chosen probability is tiny", () => {
  it("keeps its log weights finite (was Infinity: NaN probabilities, its own snapshot SNAPSHOT_CORRUPT)", () => {
    for (const p of [5e-324, 1e-308, 1e-300]) {
      const r = new Exp3({ arms: ["a", "b"], contextDim: 2 });
      // README: any router of the package learns another's event, with the logged probabilities.
      for (let k = 0; k < 3; k++) {
        r.learn({
          v: 1,
          kind: "hpg/hpg",
          protocol: "arm",
          id: `e${k}`,
          decision: { arm: "a", context: [0.6, 0.8], propensity: p, state: { arms: ["a", "b"], probs: [p, 1 - p] } },
          feedback: { reward: 1 },
        });
      }
      const pi = Array.from(r.probabilities([0.6, 0.8]));
      // All the softmax mass on "a": (1 - gamma) + gamma / 2, the rest gamma / 2.
      expect(pi[0]).toBeCloseTo(1 - r.gamma / 2, 12);
      expect(pi[1]).toBeCloseTo(r.gamma / 2, 12);
      const json = JSON.stringify(r.toJSON());
      expect(JSON.stringify(Exp3.fromJSON(JSON.parse(json)).toJSON())).toBe(json);
    }
  });
});

describe("an event whose propensity disagrees with its own probabilities", () => {
  it("is INVALID_EVENT with the router unchanged; a rounded propensity (1e-9 relative) and none at all are learned", () => {
    const event = (propensity: number | undefined): ArmEvent => ({
      v: 1,
      kind: "hpg/hpg",
      protocol: "arm",
      id: "e1",
      decision: {
        arm: "a",
        context: [0.6, 0.8],
        ...(propensity === undefined ? {} : { propensity }),
        state: { arms: ["a", "b"], probs: [1 / 3, 2 / 3] },
      },
      feedback: { reward: 1 },
    });
    for (const make of [
      () => new Hpg({ arms: ["a", "b"], contextDim: 2 }),
      () => new Exp3({ arms: ["a", "b"], contextDim: 2 }),
    ]) {
      const r = make();
      const before = JSON.stringify(r.toJSON());
      for (const p of [0.99, 2 / 3, 0.3333]) {
        expect(() => r.learn(event(p)), String(p)).toThrow(/decision\.propensity .* must equal decision\.state\.probs/);
        expect(JSON.stringify(r.toJSON())).toBe(before);
      }
      r.learn(event(1 / 3 + 1e-12));
      const once = JSON.stringify(r.toJSON());
      const s = make();
      s.learn(event(undefined));
      expect(JSON.stringify(s.toJSON())).toBe(once);
    }
  });
});

describe("an event that gives its chosen arm probability 0", () => {
  it("is INVALID_EVENT with the router unchanged (EXP3 learned 0/0 and pushed that arm's log weight to 1e300)", () => {
    const event: ArmEvent = {
      v: 1,
      kind: "classic/random",
      protocol: "arm",
      id: "e0",
      decision: { arm: "b", context: [0.6, 0.8], state: { arms: ["a", "b"], probs: [1, 0] } },
      feedback: { reward: -1 },
    };
    for (const r of [
      new Exp3({ arms: ["a", "b"], contextDim: 2 }),
      new Hpg({ arms: ["a", "b"], contextDim: 2 }),
      new LogLinearPg({ arms: ["a", "b"], contextDim: 2 }),
    ]) {
      const before = JSON.stringify(r.toJSON());
      expect(() => r.learn(event)).toThrow(/probs gives the chosen arm "b" probability 0: a routed arm/);
      expect(JSON.stringify(r.toJSON())).toBe(before);
    }
  });
});
