/**
 * The exported hypentropy / projection toolkit validates its input by core's rule (Int32Array or a NaN went through
 * silently), throws NUMERICAL instead of returning an overflowed value, and the iterates saturate the ball for a
 * query whose squared norm overflows (it was a silent no-op, or a TypeError in the dense reference).
 */
import { describe, expect, test } from "vitest";
import {
  bisectThreshold,
  DenseMirrorIterate,
  hypentropy,
  hypentropyBregman,
  hypentropyConjugate,
  hypentropyCurvature,
  hypentropyProject,
  hypentropyThreshold,
  inverseMirrorMap,
  l1Threshold,
  MirrorIterate,
  matrixBregman,
  matrixHypentropy,
  matrixInverseMirrorMap,
  matrixMirrorMap,
  mirrorMap,
  nuclearNorm,
  softThreshold,
  spectralMap,
} from "../src/index.js";

const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });
const g = () => Float64Array.of(3, -1.5, 0.2, 0);

describe("threshold toolkit input checks", () => {
  const readers: [string, (x: never, n: number) => unknown][] = [
    ["hypentropyThreshold", (x, n) => hypentropyThreshold(x, n, 0.5, 1, new Float64Array(8))],
    ["bisectThreshold", (x, n) => bisectThreshold(x, n, 0.5, 1)],
    ["l1Threshold", (x, n) => l1Threshold(x, n, 1, new Float64Array(8))],
  ];
  test.each(readers)("%s: vector types, lengths, NaN", (_name, f) => {
    const ref = f(g() as never, 4);
    expect(f(Float32Array.from(g()) as never, 4)).toBe(ref);
    expect(f([...g()] as never, 4)).toBe(ref);
    expect(f(Float64Array.of(3, -1.5, 0.2, 0, Number.NaN) as never, 4)).toBe(ref); // entries past n are not read
    expect(() => f(Int32Array.of(3, -1, 0, 0) as never, 4)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => f({ length: 4, 0: 1 } as never, 4)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => f(["3", 1, 0, 0] as never, 4)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => f(Float64Array.of(3, Number.NaN, 0, 0) as never, 4)).toThrow(code("NON_FINITE"));
    expect(() => f([3, Number.POSITIVE_INFINITY, 0, 0] as never, 4)).toThrow(code("NON_FINITE"));
    expect(() => f(g() as never, 5)).toThrow(code("DIMENSION_MISMATCH"));
    expect(() => f(g() as never, -1)).toThrow(code("OUT_OF_RANGE"));
    expect(() => f(g() as never, 1.5)).toThrow(code("OUT_OF_RANGE"));
    expect(() => f(g() as never, Number.NaN)).toThrow(code("NON_FINITE"));
  });

  test("parameters: beta > 0, tau >= 0, nu >= 0 finite; scratch a long enough, separate Float64Array", () => {
    const s = new Float64Array(4);
    for (const beta of [0, -1]) expect(() => hypentropyThreshold(g(), 4, beta, 1, s)).toThrow(code("OUT_OF_RANGE"));
    expect(() => hypentropyThreshold(g(), 4, Number.NaN, 1, s)).toThrow(code("NON_FINITE"));
    expect(() => hypentropyThreshold(g(), 4, 0.5, -1, s)).toThrow(code("OUT_OF_RANGE"));
    expect(() => hypentropyThreshold(g(), 4, 0.5, Number.POSITIVE_INFINITY, s)).toThrow(code("NON_FINITE"));
    expect(() => bisectThreshold(g(), 4, 0.5, Number.NaN)).toThrow(code("NON_FINITE"));
    expect(() => l1Threshold(g(), 4, -1, s)).toThrow(code("OUT_OF_RANGE"));
    expect(() => l1Threshold(g(), 4, "1" as never, s)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => hypentropyThreshold(g(), 4, 0.5, 1, new Float64Array(3))).toThrow(code("DIMENSION_MISMATCH"));
    expect(() => hypentropyThreshold(g(), 4, 0.5, 1, [0, 0, 0, 0] as never)).toThrow(code("INVALID_ARGUMENT"));
    const shared = g();
    expect(() => hypentropyProject(shared, 4, 0.5, 1, shared)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => softThreshold(g(), 4, -0.1)).toThrow(code("OUT_OF_RANGE"));
    expect(() => softThreshold(g(), 4, Number.NaN)).toThrow(code("NON_FINITE"));
    // In-place functions take a Float64Array only.
    expect(() => softThreshold(Float32Array.from(g()) as never, 4, 0.1)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => hypentropyProject([3, 1] as never, 2, 0.5, 1, s)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => hypentropyProject(Int32Array.of(3, 1) as never, 2, 0.5, 1, s)).toThrow(code("INVALID_ARGUMENT"));
  });

  test("a throwing call changes neither the vector nor the scratch", () => {
    const x = Float64Array.of(3, -1.5, Number.NaN, 1);
    const s = Float64Array.of(7, 7, 7, 7);
    expect(() => hypentropyProject(x, 4, 0.5, 1, s)).toThrow(code("NON_FINITE"));
    expect(() => hypentropyProject(g(), 4, 0, 1, s)).toThrow(code("OUT_OF_RANGE"));
    expect(() => softThreshold(x, 4, 0.5)).toThrow(code("NON_FINITE"));
    expect([...x.subarray(0, 2)]).toEqual([3, -1.5]);
    expect([...s]).toEqual([7, 7, 7, 7]);
  });

  test("valid input gives what it gave before (the routers' kernels are unchanged)", () => {
    const a = g();
    const nu = hypentropyThreshold(a, 4, 0.5, 1, new Float64Array(4));
    const b = g();
    expect(hypentropyProject(b, 4, 0.5, 1, new Float64Array(4))).toBe(nu);
    softThreshold(a, 4, nu);
    expect([...b]).toEqual([...a]);
    expect(l1Threshold([3, -1.5], 2, 1, new Float64Array(2))).toBe(2);
  });
});

describe("hypentropy toolkit input checks", () => {
  const scalar: [string, (a: number, b: number) => number][] = [
    ["hypentropy", hypentropy],
    ["mirrorMap", mirrorMap],
    ["inverseMirrorMap", inverseMirrorMap],
    ["hypentropyCurvature", hypentropyCurvature],
    ["hypentropyConjugate", hypentropyConjugate],
    ["hypentropyBregman", (x, beta) => hypentropyBregman(x, 0.3, beta)],
  ];
  test.each(scalar)("%s", (_n, f) => {
    expect(Number.isFinite(f(0.7, 0.5))).toBe(true);
    expect(() => f(Number.NaN, 0.5)).toThrow(code("NON_FINITE"));
    expect(() => f(Number.POSITIVE_INFINITY, 0.5)).toThrow(code("NON_FINITE"));
    expect(() => f("1" as never, 0.5)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => f(0.7, 0)).toThrow(code("OUT_OF_RANGE"));
    expect(() => f(0.7, -2)).toThrow(code("OUT_OF_RANGE"));
    expect(() => f(0.7, Number.NaN)).toThrow(code("NON_FINITE"));
  });

  test("results that overflow a double are NUMERICAL, never Infinity or NaN", () => {
    expect(() => inverseMirrorMap(800, 1)).toThrow(code("NUMERICAL"));
    expect(() => hypentropyConjugate(-800, 1)).toThrow(code("NUMERICAL"));
    expect(() => hypentropy(1e308, 1e-308)).toThrow(code("NUMERICAL"));
    expect(() => hypentropyBregman(1e308, 1e308, 1e-300)).toThrow(code("NUMERICAL")); // was NaN
    expect(() => matrixInverseMirrorMap(Float64Array.of(800, 0, 0, 1), 2, 1)).toThrow(code("NUMERICAL"));
  });

  test("matrix functions: matrix input types, side, beta, f", () => {
    const X = Float64Array.of(2, 0.5, 0.5, -1);
    const ref = matrixHypentropy(X, 2, 0.5);
    expect(matrixHypentropy(Float32Array.from(X), 2, 0.5)).toBe(ref);
    expect(matrixHypentropy([...X] as never, 2, 0.5)).toBe(ref);
    const fns: ((M: never) => unknown)[] = [
      (M) => matrixHypentropy(M, 2, 0.5),
      (M) => matrixMirrorMap(M, 2, 0.5),
      (M) => matrixInverseMirrorMap(M, 2, 0.5),
      (M) => matrixBregman(M, X, 2, 0.5),
      (M) => matrixBregman(X, M, 2, 0.5),
      (M) => nuclearNorm(M, 2),
      (M) => spectralMap(M, 2, (l) => l),
    ];
    for (const f of fns) {
      expect(() => f(Int32Array.of(1, 0, 0, 1) as never)).toThrow(code("INVALID_ARGUMENT"));
      expect(() => f(Float64Array.of(1, Number.NaN, 0, 1) as never)).toThrow(code("NON_FINITE"));
      expect(() => f(Float64Array.of(1, 0, 0) as never)).toThrow(code("DIMENSION_MISMATCH"));
    }
    expect(() => matrixHypentropy(X, 0, 0.5)).toThrow(code("OUT_OF_RANGE"));
    expect(() => nuclearNorm(X, 1.5)).toThrow(code("OUT_OF_RANGE"));
    expect(() => matrixMirrorMap(X, 2, 0)).toThrow(code("OUT_OF_RANGE"));
    expect(() => matrixBregman(X, X, 2, Number.NaN)).toThrow(code("NON_FINITE"));
    expect(() => spectralMap(X, 2, null as never)).toThrow(code("INVALID_ARGUMENT"));
    expect(() => spectralMap(X, 2, () => Number.NaN)).toThrow(code("NON_FINITE"));
  });
});

describe("iterate step with a query whose squared norm overflows", () => {
  const u = Float64Array.of(2 / Math.sqrt(5), 1 / Math.sqrt(5), 0);
  for (const s of [1e154, 1e155, 1e200, 1e300, 1.7e308]) {
    test(`|q| = ${s}: MirrorIterate (both geometries) and DenseMirrorIterate saturate the ball along q`, () => {
      const q = Float64Array.of(s, s / 2, 0);
      const its = [
        new MirrorIterate({ dim: 3, beta: 0.5, radius: 2 }),
        new MirrorIterate({ dim: 3, beta: 0.5, radius: 2, geometry: "euclidean" }),
        new DenseMirrorIterate({ dim: 3, beta: 0.5, radius: 2 }),
      ];
      for (const it of its) {
        it.step(Float64Array.of(0, 0, 1), 3);
        it.step(q, -1);
        expect(it.score(u)).toBeCloseTo(-2, 9);
        expect(Math.abs(it.score(Float64Array.of(0, 0, 1)))).toBeLessThan(1e-9);
        it.step([s, s / 2, 0], 1); // a plain array too
        expect(it.score(u)).toBeCloseTo(2, 9);
      }
    });
  }
  test("a NaN or infinite entry is still NON_FINITE", () => {
    const it = new MirrorIterate({ dim: 2, beta: 0.5, radius: 2 });
    expect(() => it.step(Float64Array.of(1e200, Number.POSITIVE_INFINITY), 1)).toThrow(code("NON_FINITE"));
    expect(() => it.step(Float64Array.of(Number.NaN, 1e200), 1)).toThrow(code("NON_FINITE"));
    expect(it.rank).toBe(0);
  });
});
