/**
 * Outside audit (session 7): the README's aliasing rules, and the edge sizes n = 0 and 1.
 */
import { describe, expect, test } from "vitest";
import {
  allocF64,
  backSubstTransposed,
  choleskyFactor,
  choleskySolve,
  dot,
  forwardSubst,
  gemv,
  quadFormUpper,
  setScaledIdentity,
  shermanMorrisonUpdate,
  symvUpper,
} from "../src/index.js";

const spd = (n: number) => {
  const A = allocF64(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) A[i * n + j] = 1 / (1 + i + j) + (i === j ? n : 0);
  return A;
};
const vec = (n: number) => Float64Array.from({ length: n }, (_, i) => Math.cos(i + 0.5));

describe("aliasing: where the README says an output may alias an input, the result is the same bits", () => {
  for (const n of [1, 2, 5, 13]) {
    test(`n = ${n}: choleskyFactor in place, forwardSubst, backSubstTransposed, choleskySolve with out = b`, () => {
      const A = spd(n);
      const L = new Float64Array(n * n);
      expect(choleskyFactor(A, n, L)).toBe(true);
      const inPlace = Float64Array.from(A);
      expect(choleskyFactor(inPlace, n, inPlace)).toBe(true);
      // L's strictly upper part is zeroed; its lower triangle equals the separate factor bit for bit.
      for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) expect(inPlace[i * n + j]).toBe(L[i * n + j]);
      for (const f of [forwardSubst, backSubstTransposed, choleskySolve]) {
        const b = vec(n);
        const out = new Float64Array(n);
        f(L, n, b, out);
        f(L, n, b, b);
        expect(Array.from(b)).toEqual(Array.from(out));
      }
    });
  }
});

describe("aliasing where it is not allowed: what the README warns of", () => {
  test("symvUpper(A, n, x, x) returns zeros; shermanMorrisonUpdate(Ainv, n, x, x) leaves Ainv unchanged", () => {
    for (const n of [3, 8, 17]) {
      const x = allocF64(n);
      x.set(vec(n));
      symvUpper(spd(n), n, x, x, n);
      expect(Array.from(x)).toEqual(new Array(n).fill(0));
      const Ainv = allocF64(n * n);
      setScaledIdentity(Ainv, n, 2, n);
      const before = Array.from(Ainv);
      const xs = allocF64(n);
      xs.set(vec(n));
      shermanMorrisonUpdate(Ainv, n, xs, xs);
      expect(Array.from(Ainv)).toEqual(before);
    }
  });
});

describe("edge sizes", () => {
  test("n = 0 gives 0 (dot, quadFormUpper) and leaves y untouched (gemv); n = 1 is the scalar case", () => {
    expect(dot(vec(3), vec(3), 0)).toBe(0);
    expect(quadFormUpper(spd(2), 0, vec(2))).toBe(0);
    const y = Float64Array.of(7, 7);
    gemv(spd(2), 0, 2, vec(2), y, 1, 0, 2);
    expect(Array.from(y)).toEqual([7, 7]);
    expect(quadFormUpper(Float64Array.of(2), 1, Float64Array.of(3))).toBe(18);
  });
});
