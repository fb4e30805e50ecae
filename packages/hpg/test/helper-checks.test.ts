/**
 * The exported helpers of the routers (softmaxInto, hpgStepSize, basisCap, initialModelCount, checkRoutePayload,
 * encodeIterate / readIterate) validate their input by core's rule (an Int32Array, a NaN or a negative size went
 * through); the routers call unchecked versions. MirrorIterate.score scales a huge query as step does.
 */
import type { Json } from "@routekit/core";
import { describe, expect, test } from "vitest";
import {
  basisCap,
  bisectThreshold,
  checkRoutePayload,
  DenseMirrorIterate,
  encodeIterate,
  Hpg,
  hpgStepSize,
  initialModelCount,
  MirrorIterate,
  readIterate,
  softmaxInto,
} from "../src/index.js";

const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });

describe("softmaxInto", () => {
  const s = () => Float64Array.of(0.5, -1, 2);
  test("takes Float64Array, Float32Array and number[] scores alike, and out === scores", () => {
    const ref = new Float64Array(3);
    softmaxInto(s(), 3, ref);
    expect(ref.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 15);
    for (const x of [[0.5, -1, 2], Float32Array.of(0.5, -1, 2)]) {
      const out = new Float64Array(3);
      softmaxInto(x as never, 3, out);
      expect(Array.from(out)).toEqual(Array.from(ref));
    }
    const same = s();
    softmaxInto(same, 3, same);
    expect(Array.from(same)).toEqual(Array.from(ref));
    // out overlapping the scores at another offset: computed from the scores as given.
    const buf = new Float64Array([0.5, -1, 2, 0]);
    softmaxInto(buf.subarray(0, 3), 3, buf.subarray(1, 4));
    expect(Array.from(buf.subarray(1, 4))).toEqual(Array.from(ref));
  });
  test("bad input is a typed error and writes nothing", () => {
    const cases: [() => unknown, string][] = [];
    const out = Float64Array.of(7, 7, 7);
    const call =
      (scores: unknown, k: unknown, o: unknown = out) =>
      () =>
        softmaxInto(scores as never, k as never, o as never);
    cases.push([call(Int32Array.of(1, 2, 3), 3), "INVALID_ARGUMENT"]);
    cases.push([call(Float64Array.of(1, Number.NaN, 3), 3), "NON_FINITE"]);
    cases.push([call(Float64Array.of(1, Number.POSITIVE_INFINITY, 3), 3), "NON_FINITE"]);
    cases.push([call([1, "2", 3], 3), "INVALID_ARGUMENT"]);
    cases.push([call(s(), 4), "DIMENSION_MISMATCH"]);
    cases.push([call(s(), 0), "OUT_OF_RANGE"]);
    cases.push([call(s(), -1), "OUT_OF_RANGE"]);
    cases.push([call(s(), 1.5), "OUT_OF_RANGE"]);
    cases.push([call(s(), Number.NaN), "NON_FINITE"]);
    cases.push([call(s(), "3"), "INVALID_ARGUMENT"]);
    cases.push([call(s(), 3, new Float32Array(3)), "INVALID_ARGUMENT"]);
    cases.push([call(s(), 3, [0, 0, 0]), "INVALID_ARGUMENT"]);
    cases.push([call(s(), 3, new Float64Array(2)), "DIMENSION_MISMATCH"]);
    cases.push([call(Object.create(null), 3), "INVALID_ARGUMENT"]);
    for (const [f, c] of cases) {
      expect(f).toThrow(code(c));
      expect(Array.from(out)).toEqual([7, 7, 7]);
    }
  });
});

describe("length messages name the caller's count", () => {
  test("softmaxInto's short scores name k, bisectThreshold's short z names m (they said n)", () => {
    expect(() => softmaxInto(Float64Array.of(1, 2), 3, new Float64Array(3))).toThrow(
      "scores has length 2, expected at least k = 3",
    );
    expect(() => bisectThreshold(Float64Array.of(1, 2), 3, 1, 1)).toThrow("z has length 2, expected at least m = 3");
  });
});

describe("hpgStepSize, basisCap, initialModelCount", () => {
  test("valid input gives the documented values", () => {
    expect(hpgStepSize(4, 16, 1000)).toBe(Math.sqrt((4 * Math.log(16)) / 1000));
    expect(hpgStepSize(0, 1, 1)).toBe(Math.sqrt(2 * Math.log(3)));
    expect(basisCap(16, 4)).toBe(9);
    expect(basisCap(5, 4)).toBe(5);
    expect(initialModelCount({})).toBe(2);
    expect(initialModelCount({ arms: ["a", "b", "c"] })).toBe(3);
    // The upper ends the README states: integers up to 2^53 - 1.
    const top = Number.MAX_SAFE_INTEGER;
    expect(Number.isFinite(hpgStepSize(top, 65536, top))).toBe(true);
    expect(basisCap(65536, top)).toBe(65536);
  });
  test("bad input is a typed error", () => {
    const cases: [() => unknown, string][] = [
      [() => hpgStepSize(Number.NaN, 4, 10), "NON_FINITE"],
      [() => hpgStepSize(-1, 4, 10), "OUT_OF_RANGE"],
      [() => hpgStepSize(2.5, 4, 10), "OUT_OF_RANGE"],
      [() => hpgStepSize("2" as never, 4, 10), "INVALID_ARGUMENT"],
      [() => hpgStepSize(2, 0, 10), "OUT_OF_RANGE"],
      [() => hpgStepSize(2, -3, 10), "OUT_OF_RANGE"],
      [() => hpgStepSize(2, 65537, 10), "OUT_OF_RANGE"],
      [() => hpgStepSize(2, 4, 0), "OUT_OF_RANGE"],
      [() => hpgStepSize(2, 4, -10), "OUT_OF_RANGE"],
      [() => hpgStepSize(2, 4, Number.POSITIVE_INFINITY), "NON_FINITE"],
      [() => hpgStepSize(2 ** 53, 4, 10), "OUT_OF_RANGE"],
      [() => hpgStepSize(2, 4, 2 ** 53), "OUT_OF_RANGE"],
      [() => basisCap(8, 2 ** 53), "OUT_OF_RANGE"],
      [() => basisCap(Number.NaN, 2), "NON_FINITE"],
      [() => basisCap(0, 2), "OUT_OF_RANGE"],
      [() => basisCap(8, 0), "OUT_OF_RANGE"],
      [() => basisCap(8, -1), "OUT_OF_RANGE"],
      [() => basisCap(8, 1.5), "OUT_OF_RANGE"],
      [() => basisCap(8, null as never), "INVALID_ARGUMENT"],
      [() => initialModelCount(null as never), "INVALID_ARGUMENT"],
      [() => initialModelCount([] as never), "INVALID_ARGUMENT"],
      [() => initialModelCount({ arms: "abc" }), "INVALID_ARGUMENT"],
      [() => initialModelCount({ arms: 3 }), "INVALID_ARGUMENT"],
      // An arms proxy whose length read throws (its own Error escaped: outside audit, 2026-11-27).
      [
        () =>
          initialModelCount({
            arms: new Proxy([], {
              get(t, k) {
                if (k === "length") throw new Error("length");
                return Reflect.get(t, k);
              },
            }),
          }),
        "INVALID_ARGUMENT",
      ],
    ];
    for (const [f, c] of cases) expect(f).toThrow(code(c));
  });
});

/** A router with one pending decision and some learned state. */
function router() {
  const p = new Hpg({ arms: ["a", "b", "c"], contextDim: 4, seed: 1 });
  for (let t = 0; t < 20; t++) {
    const d = p.select(Float64Array.of(0.5, -0.5, 0.1 * (t % 3), 0.2));
    p.update(d, { reward: t % 2 });
  }
  p.select(Float64Array.of(0.1, 0.2, 0.3, 0.4));
  const st = p.toJSON().state as { ledger: { entries: unknown[] }; arms: { rank: number }[] };
  return { p, st };
}

describe("checkRoutePayload", () => {
  test("checks its dim and auxPerArm; a bad payload stays SNAPSHOT_CORRUPT", () => {
    const { st } = router();
    const ledger = st.ledger as unknown as Record<string, Json>;
    const entries = JSON.stringify(ledger).match(/\{"uid":\d+,"chosen".*?"aux":"[^"]*"\}/);
    expect(entries).not.toBeNull();
    const payload = JSON.parse((entries as RegExpMatchArray)[0]) as Json;
    expect(checkRoutePayload(payload, 4, 0)).toBeGreaterThanOrEqual(0);
    expect(() => checkRoutePayload(payload, 3, 0)).toThrow(code("SNAPSHOT_CORRUPT"));
    expect(() => checkRoutePayload(null, 4, 0)).toThrow(code("SNAPSHOT_CORRUPT"));
    const cases: [() => unknown, string][] = [
      [() => checkRoutePayload(payload, Number.NaN, 0), "NON_FINITE"],
      [() => checkRoutePayload(payload, -1, 0), "OUT_OF_RANGE"],
      [() => checkRoutePayload(payload, 0, 0), "OUT_OF_RANGE"],
      [() => checkRoutePayload(payload, 4.5, 0), "OUT_OF_RANGE"],
      [() => checkRoutePayload(payload, "4" as never, 0), "INVALID_ARGUMENT"],
      [() => checkRoutePayload(payload, 4, -1), "OUT_OF_RANGE"],
      [() => checkRoutePayload(payload, 4, 0.5), "OUT_OF_RANGE"],
      [() => checkRoutePayload(payload, 4, Number.NaN), "NON_FINITE"],
    ];
    for (const [f, c] of cases) expect(f).toThrow(code(c));
  });
});

describe("encodeIterate / readIterate", () => {
  const iterate = () => {
    const it = new MirrorIterate({ dim: 4, beta: 0.5, radius: 2, maxRank: 2 });
    it.step(Float64Array.of(0.5, 0.5, 0.5, 0.5), 1);
    it.step(Float64Array.of(1, 0, 0, 0), -0.7);
    return it;
  };
  test("round trip of valid input", () => {
    const it = iterate();
    const json = encodeIterate(it);
    const a = readIterate(json, 4, 2, 0.5, 2);
    expect(a.rank).toBe(it.rank);
    expect(readIterate(json, 4, 2, 0.5, 2, "hypentropy")).toEqual(a);
  });
  test("bad input is a typed error", () => {
    const json = encodeIterate(iterate());
    const cases: [() => unknown, string][] = [
      [() => encodeIterate({} as never), "INVALID_ARGUMENT"],
      [() => encodeIterate(null as never), "INVALID_ARGUMENT"],
      [() => encodeIterate(new DenseMirrorIterate({ dim: 4, beta: 0.5, radius: 2 }) as never), "INVALID_ARGUMENT"],
      [() => readIterate(null as never, 4, 2, 0.5, 2), "SNAPSHOT_CORRUPT"],
      [() => readIterate([] as never, 4, 2, 0.5, 2), "SNAPSHOT_CORRUPT"],
      [() => readIterate(json, Number.NaN, 2, 0.5, 2), "NON_FINITE"],
      [() => readIterate(json, -4, 2, 0.5, 2), "OUT_OF_RANGE"],
      [() => readIterate(json, 4.5, 2, 0.5, 2), "OUT_OF_RANGE"],
      [() => readIterate(json, 4, 0, 0.5, 2), "OUT_OF_RANGE"],
      [() => readIterate(json, 4, 5, 0.5, 2), "OUT_OF_RANGE"],
      [() => readIterate(json, 4, 2, 0, 2), "OUT_OF_RANGE"],
      [() => readIterate(json, 4, 2, -0.5, 2), "OUT_OF_RANGE"],
      [() => readIterate(json, 4, 2, Number.NaN, 2), "NON_FINITE"],
      [() => readIterate(json, 4, 2, 0.5, Number.POSITIVE_INFINITY), "NON_FINITE"],
      [() => readIterate(json, 4, 2, 0.5, 0), "OUT_OF_RANGE"],
      [() => readIterate(json, 4, 2, "0.5" as never, 2), "INVALID_ARGUMENT"],
      [() => readIterate(json, 4, 2, 0.5, 2, "spherical" as never), "INVALID_ARGUMENT"],
    ];
    for (const [f, c] of cases) expect(f).toThrow(code(c));
  });
});

describe("score of a query whose squared norm overflows", () => {
  const u = Float64Array.of(0.6, -0.8, 0, 0);
  const iterates = (radius: number) => {
    const beta = radius / 4;
    const made = [new MirrorIterate({ dim: 4, beta, radius }), new DenseMirrorIterate({ dim: 4, beta, radius })];
    for (const it of made) {
      it.step(u, 1);
      it.step(Float64Array.of(0, 0, 1, 0), -0.5);
    }
    return made;
  };
  test("is s^2 score(u) when that is a double", () => {
    for (const it of iterates(1e-300)) {
      const base = it.score(u);
      expect(base).toBeGreaterThan(0);
      for (const s of [1e155, 1e200, 1e250]) {
        const got = it.score(Float64Array.from(u, (v) => v * s));
        expect(Number.isFinite(got)).toBe(true);
        expect(got / (base * s * s)).toBeCloseTo(1, 10);
        expect(it.score(Array.from(u, (v) => v * s))).toBe(got);
      }
    }
  });
  test("is NUMERICAL when q^T W q is beyond the largest double, and changes nothing", () => {
    for (const it of iterates(2)) {
      const before = it.score(u);
      // It returned Infinity, and NaN (Infinity - Infinity) along directions of both signs of the spectrum.
      expect(() => it.score(Float64Array.from(u, (v) => v * 1e200))).toThrow(code("NUMERICAL"));
      expect(() => it.score(Float64Array.of(0.6e200, -0.8e200, 1e200, 0))).toThrow(code("NUMERICAL"));
      expect(() => it.score([0.6e200, -0.8e200, 1e200, 0])).toThrow(code("NUMERICAL"));
      expect(it.score(u)).toBe(before);
      // A large but representable score is still returned.
      expect(Number.isFinite(it.score(Float64Array.from(u, (v) => v * 1e150)))).toBe(true);
    }
  });
});
