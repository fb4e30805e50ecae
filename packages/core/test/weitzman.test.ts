import { describe, expect, it } from "vitest";
import {
  type DiscreteBox,
  ErrorCode,
  indexBernoulli,
  indexDeterministic,
  indexDiscrete,
  indexNormal,
  indexUniform,
  RouteKitError,
  reservationIndex,
  weitzmanOrder,
  weitzmanPlay,
  weitzmanValue,
} from "../src/index.js";
import { normalCdf, normalPdf } from "../src/normal.js";
import { Rng } from "../src/rng.js";

describe("reservation index closed forms", () => {
  it("deterministic, Bernoulli, uniform", () => {
    expect(indexDeterministic(0.8, 0.1)).toBeCloseTo(0.7, 14);
    expect(indexBernoulli(0.1, 0.01)).toBeCloseTo(0.9, 14);
    expect(indexBernoulli(0.5, 0.1)).toBeCloseTo(0.8, 14);
    expect(indexBernoulli(0.2, 0.3)).toBeCloseTo(-0.1, 14);
    expect(indexUniform(0, 1, 0.02)).toBeCloseTo(0.8, 14);
    expect(indexUniform(0, 1, 0.5)).toBeCloseTo(0, 14);
    expect(indexUniform(0, 1, 0.7)).toBeCloseTo(-0.2, 14);
    expect(indexUniform(0.3, 0.85, 0.04)).toBeCloseTo(0.85 - Math.sqrt(2 * 0.55 * 0.04), 14);
  });
  it("normal (solver outside [0,1])", () => {
    expect(indexNormal(0, 1, 0.3989423)).toBeCloseTo(0, 6);
    expect(indexNormal(0, 1, 1.0833155)).toBeCloseTo(-1, 6);
    const s = indexNormal(0.3, 0.2, 0.05);
    const k = (0.3 - s) / 0.2;
    expect(0.2 * (normalPdf(k) + k * normalCdf(k))).toBeCloseTo(0.05, 12);
  });
  it("normal CDF matches known values", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316301, 15);
    expect(normalCdf(-6)).toBeCloseTo(9.865876450376946e-10, 20);
  });
  it("every closed form agrees with bisection on the excess function to 1e-12", () => {
    const bern = (p: number) => (s: number) => p * Math.max(1 - s, 0) + (1 - p) * Math.max(-s, 0);
    const unif = (lo: number, hi: number) => (s: number) => {
      if (s <= lo) return (lo + hi) / 2 - s;
      if (s >= hi) return 0;
      return (hi - s) ** 2 / (2 * (hi - lo));
    };
    for (const [p, c] of [
      [0.1, 0.01],
      [0.5, 0.1],
      [0.2, 0.3],
      [0.9, 0.05],
    ] as const)
      expect(Math.abs(reservationIndex(bern(p), c) - indexBernoulli(p, c))).toBeLessThan(1e-11);
    for (const [lo, hi, c] of [
      [0, 1, 0.02],
      [0, 1, 0.5],
      [0, 1, 0.7],
      [0.2, 0.6, 0.03],
    ] as const)
      expect(Math.abs(reservationIndex(unif(lo, hi), c) - indexUniform(lo, hi, c))).toBeLessThan(1e-11);
    const norm = (m: number, sd: number) => (s: number) => {
      const k = (m - s) / sd;
      return sd * (normalPdf(k) + k * normalCdf(k));
    };
    for (const [m, sd, c] of [
      [0, 1, 0.3989423],
      [0.5, 0.1, 0.01],
      [0.2, 0.3, 0.6],
    ] as const)
      expect(Math.abs(reservationIndex(norm(m, sd), c) - indexNormal(m, sd, c))).toBeLessThan(1e-9);
  });
  it("discrete distributions are exact", () => {
    expect(indexDiscrete([1, 0], [0.1, 0.9], 0.01)).toBeCloseTo(0.9, 14);
    expect(indexDiscrete([0.8], [1], 0.1)).toBeCloseTo(0.7, 14);
    expect(indexDiscrete([1, 0], [0.2, 0.8], 0.3)).toBeCloseTo(-0.1, 14);
  });
  it("rejects bad costs with typed errors", () => {
    expect(() => indexUniform(0, 1, 0)).toThrow(expect.objectContaining({ code: "OUT_OF_RANGE" }));
    expect(() => indexUniform(0, 1, Number.NaN)).toThrow(expect.objectContaining({ code: "NON_FINITE" }));
  });
});

describe("the paper's two-box example", () => {
  const box1: DiscreteBox = { values: [1], probs: [1], cost: 0.5 };
  const box2: DiscreteBox = { values: [1, 0], probs: [0.1, 0.9], cost: 0.01 };
  it("indices (0.5, 0.9), box 2 first, value 0.54 with 1.9 queries; best one-shot 0.5", () => {
    const s1 = indexDiscrete(box1.values, box1.probs, box1.cost);
    const s2 = indexDiscrete(box2.values, box2.probs, box2.cost);
    expect(s1).toBeCloseTo(0.5, 14);
    expect(s2).toBeCloseTo(0.9, 14);
    expect(weitzmanOrder([s1, s2])).toEqual([1, 0]);
    expect(weitzmanValue([box1, box2])).toBeCloseTo(0.54, 12);
    let value = 0;
    let queries = 0;
    for (const [w2, p] of [
      [1, 0.1],
      [0, 0.9],
    ] as const) {
      const play = weitzmanPlay([s1, s2], [1, w2], [0.5, 0.01]);
      value += p * play.utility;
      queries += p * play.queried.length;
    }
    expect(value).toBeCloseTo(0.54, 12);
    expect(queries).toBeCloseTo(1.9, 12);
    expect(Math.max(1 - 0.5, 0.1 - 0.01)).toBe(0.5);
  });
});

/** Exact DP over (opened set, best reward so far), at least one box opened. */
function bruteForce(boxes: DiscreteBox[]): number {
  const A = boxes.length;
  const memo = new Map<string, number>();
  const V = (mask: number, best: number): number => {
    const key = `${mask}:${best}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let v = mask === 0 ? Number.NEGATIVE_INFINITY : best;
    for (let a = 0; a < A; a++) {
      if (mask & (1 << a)) continue;
      const b = boxes[a] as DiscreteBox;
      let ev = -b.cost;
      for (let i = 0; i < b.values.length; i++)
        ev += (b.probs[i] as number) * V(mask | (1 << a), Math.max(best, b.values[i] as number));
      if (ev > v) v = ev;
    }
    memo.set(key, v);
    return v;
  };
  return V(0, Number.NEGATIVE_INFINITY);
}

describe("oracle vs brute-force dynamic program", () => {
  it("eq. (3) equals the exact DP on 300 random instances to 1e-9; Monte Carlo play agrees", () => {
    const rng = Rng.fromSeed(7);
    let maxDiff = 0;
    for (let inst = 0; inst < 300; inst++) {
      const A = 1 + Math.floor(rng.uniform() * 4);
      const boxes: DiscreteBox[] = [];
      for (let a = 0; a < A; a++) {
        const k = 1 + Math.floor(rng.uniform() * 3);
        const values = Array.from({ length: k }, () => rng.uniform());
        const w = values.map(() => 0.05 + rng.uniform());
        const tot = w.reduce((x, y) => x + y, 0);
        boxes.push({ values, probs: w.map((x) => x / tot), cost: 0.005 + 0.3 * rng.uniform() });
      }
      maxDiff = Math.max(maxDiff, Math.abs(bruteForce(boxes) - weitzmanValue(boxes)));
      if (inst < 20) {
        // exact expectation of the index policy by enumerating every joint outcome
        const sig = boxes.map((b) => indexDiscrete(b.values, b.probs, b.cost));
        let ev = 0;
        const rec = (a: number, p: number, mus: number[], cs: number[]) => {
          if (a === A) {
            ev += p * weitzmanPlay(sig, mus, cs).utility;
            return;
          }
          const b = boxes[a] as DiscreteBox;
          for (let i = 0; i < b.values.length; i++)
            rec(a + 1, p * (b.probs[i] as number), [...mus, b.values[i] as number], [...cs, b.cost]);
        };
        rec(0, 1, [], []);
        expect(Math.abs(ev - weitzmanValue(boxes))).toBeLessThan(1e-9);
      }
    }
    expect(maxDiff).toBeLessThan(1e-9);
  });
});

describe("Weitzman helpers at the edges of double range and on malformed input", () => {
  const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });

  it("a normal box whose cost dwarfs its sd has index mean - cost, not -Infinity", () => {
    expect(indexNormal(0.5, 1e-310, 0.1)).toBe(0.4); // cost / sd overflows
    expect(indexNormal(0, 1, 1e308)).toBe(-1e308);
    expect(indexNormal(0.5, 1, 100)).toBe(0.5 - 100);
    // Unchanged where cost / sd is moderate: the solver agrees with the closed form to 1e-12.
    expect(indexNormal(0.5, 0.2, 0.01)).toBeCloseTo(
      reservationIndex(
        (s) => 0.2 * (normalPdf((0.5 - s) / 0.2) + ((0.5 - s) / 0.2) * normalCdf((0.5 - s) / 0.2)),
        0.01,
      ),
      11,
    );
  });

  it("a uniform box as wide as the double range keeps a finite index", () => {
    const wide = indexUniform(-1e308, 1e308, 0.1);
    expect(Number.isFinite(wide)).toBe(true);
    expect(wide).toBe(1e308 - 2 * Math.sqrt(1e308) * Math.sqrt(0.1)); // hi - sqrt(2 w c) with w = 2e308
    expect(indexUniform(-1e308, 1e308, 1.5e308)).toBe(-1.5e308);
  });

  it("closed-form indices whose intermediate products overflow or underflow stay finite and accurate", () => {
    const rel = (x: number, y: number) => Math.abs(x - y) / Math.abs(y);
    // sqrt(2 w c) <= w is finite, but 2 w c overflowed (before: NUMERICAL "the index is -Infinity").
    expect(rel(indexUniform(0, 1e308, 1e307), 1e308 - Math.SQRT2 * 1e154 * Math.sqrt(1e307))).toBeLessThan(1e-12);
    // 2 w c underflowed to 0 (before: the index was hi, 1.4e-5 too high relative to the box).
    expect(
      rel(indexUniform(0, 1e-300, 1e-310), 1e-300 - Math.SQRT2 * Math.sqrt(1e-300) * Math.sqrt(1e-310)),
    ).toBeLessThan(1e-12);
    // The normal index for c / sd far below 1e-140: the root k of pdf(k) + k Phi(k) = c / sd lies near -26 to -34,
    // where Newton's steps are about 1 / |k| long; the 200 steps ran out at k = -25.27 for every c below about
    // 1e-140 (1e-150 and 1e-200 gave the same index). Reference: the root of the tail series
    // pdf(s) / s^2 (1 - 3 / s^2 + 15 / s^4 - 105 / s^6), whose next term is below 1e-8 relative there.
    const tailRoot = (c: number) => {
      const f = (x: number) =>
        (Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI) / (x * x)) * (1 - 3 / x ** 2 + 15 / x ** 4 - 105 / x ** 6);
      let lo = 20;
      let hi = 40;
      for (let i = 0; i < 200; i++) {
        const m = (lo + hi) / 2;
        if (f(m) > c) lo = m;
        else hi = m;
      }
      return lo;
    };
    for (const c of [1e-150, 1e-200, 1e-250, 1e-300])
      expect(Math.abs(indexNormal(0, 1, c) - tailRoot(c))).toBeLessThan(1e-6);
    // mean - sd k is finite though sd k overflows (before: NUMERICAL "the index is Infinity").
    expect(rel(indexNormal(-1.7e308, 1e307, 1e106), 2 * (-0.85e308 + 0.5e307 * tailRoot(1e-201)))).toBeLessThan(1e-9);
  });

  it("weitzmanPlay and weitzmanOrder refuse arrays of other lengths and NaN / non-finite entries", () => {
    expect(() => weitzmanPlay([0.5, 0.7], [0.3], [0.1, 0.1])).toThrow(code("DIMENSION_MISMATCH"));
    expect(() => weitzmanPlay([0.5, 0.7], [0.3, 0.2], [0.1])).toThrow(code("DIMENSION_MISMATCH"));
    expect(() => weitzmanPlay([0.5, 0.7], [Number.NaN, 0.2], [0.1, 0.1])).toThrow(code("NON_FINITE"));
    expect(() => weitzmanPlay([0.5, 0.7], [0.3, 0.2], [0.1, Number.POSITIVE_INFINITY])).toThrow(code("NON_FINITE"));
    expect(() => weitzmanPlay([0.5, Number.NaN], [0.3, 0.2], [0.1, 0.1])).toThrow(code("NON_FINITE"));
    expect(() => weitzmanOrder([0.5, Number.NaN, 0.7])).toThrow(code("NON_FINITE"));
    expect(() => weitzmanOrder([0.5, "0.6" as unknown as number])).toThrow(code("INVALID_ARGUMENT"));
    expect(() => weitzmanOrder([0.5, Object.create(null) as number])).toThrow(code("INVALID_ARGUMENT"));
    // Infinite indices are allowed (a box that must be opened first, or never).
    expect(weitzmanOrder([Number.POSITIVE_INFINITY, 0.5, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])).toEqual([
      0, 2, 1, 3,
    ]);
    expect(weitzmanPlay([Number.POSITIVE_INFINITY, 0.5], [0.3, 0.9], [0.1, 0.1]).queried).toEqual([0, 1]);
  });

  it("reservationIndex refuses a NaN or negative tolerance; weitzmanValue a box that is not an object", () => {
    const excess = (s: number) => 0.5 * Math.max(0, 1 - s) + 0.5 * Math.max(0, -s);
    expect(() => reservationIndex(excess, 0.1, Number.NaN)).toThrow(code("NON_FINITE"));
    expect(() => reservationIndex(excess, 0.1, -1)).toThrow(code("OUT_OF_RANGE"));
    expect(reservationIndex(excess, 0.1, 0)).toBeCloseTo(0.8, 12);
    expect(() => weitzmanValue([null as unknown as DiscreteBox])).toThrow(code("INVALID_ARGUMENT"));
  });
});

describe("toolkit inputs are vector inputs, as everywhere in RouteKit (outside audit)", () => {
  const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });
  const bad: unknown[] = [
    Int32Array.of(1, 0),
    Uint8Array.of(1, 0),
    new Uint8ClampedArray([1, 0]),
    BigInt64Array.of(1n, 0n),
    { length: 2, 0: 1, 1: 0 },
    "10",
    null,
    undefined,
    7,
  ];
  const as = (v: unknown) => v as number[];

  it("another typed array, an array-like object or null is INVALID_ARGUMENT (it was read as numbers, or a TypeError)", () => {
    for (const v of bad) {
      expect(() => indexDiscrete(as(v), [0.5, 0.5], 0.1), String(v)).toThrow(code("INVALID_ARGUMENT"));
      expect(() => indexDiscrete([1, 0], as(v), 0.1)).toThrow(code("INVALID_ARGUMENT"));
      expect(() => weitzmanOrder(as(v))).toThrow(code("INVALID_ARGUMENT"));
      expect(() => weitzmanPlay(as(v), [1, 0], [0.1, 0.1])).toThrow(code("INVALID_ARGUMENT"));
      expect(() => weitzmanPlay([0.5, 0.9], as(v), [0.1, 0.1])).toThrow(code("INVALID_ARGUMENT"));
      expect(() => weitzmanPlay([0.5, 0.9], [1, 0], as(v))).toThrow(code("INVALID_ARGUMENT"));
      expect(() => weitzmanValue([{ values: as(v), probs: [0.5, 0.5], cost: 0.1 }])).toThrow(code("INVALID_ARGUMENT"));
      expect(() => weitzmanValue([{ values: [1, 0], probs: as(v), cost: 0.1 }])).toThrow(code("INVALID_ARGUMENT"));
    }
  });

  it("a Float32Array is read as its exact float64 widening, a Float64Array as itself", () => {
    const v32 = Float32Array.of(0.9, 0.2);
    const p32 = Float32Array.of(0.25, 0.75);
    const wide = (a: Float32Array) => Array.from(a);
    expect(indexDiscrete(v32, p32, 0.05)).toBe(indexDiscrete(wide(v32), wide(p32), 0.05));
    expect(indexDiscrete(Float64Array.of(1, 0), Float64Array.of(0.1, 0.9), 0.01)).toBe(0.9);
    expect(weitzmanOrder(Float32Array.of(0.1, 0.7, 0.3))).toEqual([1, 2, 0]);
    const play = weitzmanPlay(Float32Array.of(0.5, 0.9), Float32Array.of(1, 0), Float32Array.of(0.5, 0.01));
    expect(play).toEqual(weitzmanPlay([0.5, 0.9], [1, 0], [0.5, Math.fround(0.01)]));
    expect(weitzmanValue([{ values: Float64Array.of(1), probs: Float32Array.of(1), cost: 0.5 }])).toBe(0.5);
  });

  it("entries are read once: a getter cannot pass the checks with one value and be used with another", () => {
    let reads = 0;
    const values = [0, 1];
    Object.defineProperty(values, 0, {
      get: () => (reads++ === 0 ? 0 : Number.NaN),
    });
    expect(indexDiscrete(values, [0.9, 0.1], 0.01)).toBe(indexDiscrete([0, 1], [0.9, 0.1], 0.01));
    expect(reads).toBe(1);
  });

  it("reservationIndex: an excess that is not a function, or returns a non-number or NaN, is a typed error", () => {
    expect(() => reservationIndex(null as unknown as (s: number) => number, 0.1)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => reservationIndex((() => "0.5") as unknown as (s: number) => number, 0.1)).toThrow(
      code("INVALID_ARGUMENT"),
    );
    expect(() => reservationIndex(() => Number.NaN, 0.1)).toThrow(code("NON_FINITE"));
    // NaN inside the bracket only (it steered the bisection to an arbitrary end).
    expect(() => reservationIndex((s) => (s > 0.5 && s < 0.9 ? Number.NaN : Math.max(1 - s, 0)), 0.1)).toThrow(
      code("NON_FINITE"),
    );
  });

  it("weitzmanPlay refuses a negative cost (OUT_OF_RANGE, as the cascade protocol does); 0 is a free box", () => {
    expect(() => weitzmanPlay([0.5], [1], [-0.1])).toThrow(code("OUT_OF_RANGE"));
    expect(weitzmanPlay([0.5], [1], [0]).utility).toBe(1);
  });
});

describe("closed-form indices beyond the largest double are NUMERICAL, never +-Infinity (outside test)", () => {
  const numerical = expect.objectContaining({ name: "RouteKitError", code: "NUMERICAL" });
  it("each closed form", () => {
    expect(() => indexNormal(1e308, 1e308, 1)).toThrow(numerical); // returned Infinity
    expect(() => indexDeterministic(-1.7e308, 1.7e308)).toThrow(numerical); // returned -Infinity
    expect(() => indexNormal(-1.7e308, 0, 1.7e308)).toThrow(numerical);
    expect(() => indexUniform(-1.7e308, -1.6e308, 1.7e308)).toThrow(numerical); // mean - cost below -1.8e308
    expect(() => indexDiscrete([-1.7e308, -1e308], [0.5, 0.5], 1.7e308)).toThrow(numerical);
    // Near the edge but representable: still a number.
    expect(indexDeterministic(-0.8e308, 0.8e308)).toBe(-1.6e308);
    expect(indexNormal(1e300, 1e300, 1)).toBeGreaterThan(1e300);
    expect(Number.isFinite(indexUniform(-1.7e308, 1.7e308, 1))).toBe(true);
    // At cost = half the width the index is lo exactly (this case was asserted NUMERICAL: 2 sqrt(h c) overflowed).
    const rel = (x: number, y: number) => Math.abs(x - y) / Math.abs(y);
    expect(rel(indexUniform(-1.7e308, 1.7e308, 1.7e308), -1.7e308)).toBeLessThan(1e-15);
    expect(rel(indexUniform(-1e308, 1e308, 1e308), -1e308)).toBeLessThan(1e-15);
  });
});

describe("caller code that throws inside the Weitzman helpers (outside audit, core 2026-11-27)", () => {
  it("an excess function that throws is a RouteKitError naming sigma (its own code when it threw one)", () => {
    const plain = () => {
      throw new Error("model down");
    };
    expect(() => reservationIndex(plain, 0.1)).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: expect.stringMatching(/^excess\(.*\) threw: model down$/),
      }),
    );
    const typed = () => {
      throw new RouteKitError(ErrorCode.OutOfRange, "sigma too small");
    };
    expect(() => reservationIndex(typed, 0.1)).toThrow(expect.objectContaining({ code: "OUT_OF_RANGE" }));
  });

  it("weitzmanValue: a box whose field getter throws, or a boxes proxy whose entry read throws, is INVALID_ARGUMENT", () => {
    for (const key of ["values", "probs", "cost"]) {
      const box = { values: [0, 1], probs: [0.5, 0.5], cost: 0.1 };
      Object.defineProperty(box, key, {
        get() {
          throw new Error(`getter ${key}`);
        },
      });
      expect(() => weitzmanValue([box])).toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENT", message: `reading boxes[0].${key} threw: getter ${key}` }),
      );
    }
    const boxes = new Proxy([{ values: [1], probs: [1], cost: 0.1 }], {
      get(t, k) {
        if (k === "0") throw new Error("entry");
        return Reflect.get(t, k);
      },
    });
    expect(() => weitzmanValue(boxes)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
