import { describe, expect, test } from "vitest";
import {
  allocF64,
  backSubstTransposed,
  borderedInverseAppend,
  borderedInverseAppendWithProduct,
  choleskyAppendRow,
  choleskyFactor,
  choleskyFactorUpper,
  choleskyInverseUpper,
  choleskyLogDet,
  choleskyRank1Downdate,
  choleskyRank1Update,
  choleskySolve,
  dot,
  forwardSubst,
  invertSPD,
  setScaledIdentity,
  shermanMorrisonUpdate,
  shermanMorrisonWithU,
  solveSPD,
  symvQuadUpper,
  symvUpper,
} from "../src/index.js";
import {
  EPS,
  logSpaced,
  mlInverse,
  randomSpd,
  relErr,
  relErrUpper,
  spdWithEigenvalues,
  TestRng,
  withStride,
} from "./helpers.js";

/** L L^T (n x n full) from a lower factor with stride ld. */
function llt(L: Float64Array, n: number, ld = n): Float64Array {
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k <= Math.min(i, j); k++) s += (L[i * ld + k] as number) * (L[j * ld + k] as number);
      out[i * n + j] = s;
    }
  return out;
}

describe("Sherman-Morrison", () => {
  test("one update equals the direct inverse of A + w x x^T (random and cond 1e10)", () => {
    const rng = new TestRng(1);
    for (const [n, cond] of [
      [1, 1],
      [7, 1],
      [40, 1],
      [40, 1e10],
    ] as const) {
      const A = spdWithEigenvalues(rng, logSpaced(n, cond));
      const Ainv = allocF64(n * n);
      Ainv.set(mlInverse(A, n));
      const x = rng.fill(allocF64(n));
      const u = allocF64(n);
      const w = 0.8;
      const denom = shermanMorrisonUpdate(Ainv, n, x, u, w);
      const B = A.slice();
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) B[i * n + j] += w * (x[i] as number) * (x[j] as number);
      const direct = mlInverse(B, n);
      // Inverting at condition number kappa loses ~kappa eps relative accuracy in either method.
      expect(relErrUpper(Ainv, direct, n)).toBeLessThan(100 * n * EPS * cond);
      let xAx = 0;
      const Ax = mlInverse(A, n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) xAx += (x[i] as number) * (Ax[i * n + j] as number) * (x[j] as number);
      expect(Math.abs(denom - (1 + w * xAx)) / denom).toBeLessThan(100 * n * EPS * cond);
    }
  });

  test("shermanMorrisonWithU reuses a caller-computed u = Ainv x", () => {
    const rng = new TestRng(2);
    const n = 12;
    const A = randomSpd(rng, n);
    const P = allocF64(n * n);
    P.set(mlInverse(A, n));
    const Q = allocF64(n * n);
    Q.set(P);
    const x = rng.fill(allocF64(n));
    const u = allocF64(n);
    shermanMorrisonUpdate(P, n, x, u, 2);
    const u2 = allocF64(n);
    symvUpper(Q, n, x, u2);
    shermanMorrisonWithU(Q, n, x, u2, 2);
    expect(Array.from(Q)).toEqual(Array.from(P));
  });

  test("10^4 updates stay within 1e-10 of a fresh inverse (the Pandora cascade needs 1e-9)", () => {
    const rng = new TestRng(3);
    const n = 40;
    const lambda = 1;
    const Ainv = allocF64(n * n);
    setScaledIdentity(Ainv, n, 1 / lambda);
    const A = new Float64Array(n * n);
    for (let i = 0; i < n; i++) A[i * n + i] = lambda;
    const x = allocF64(n);
    const u = allocF64(n);
    for (let t = 0; t < 10_000; t++) {
      rng.fill(x, 1 / Math.sqrt(n));
      shermanMorrisonUpdate(Ainv, n, x, u);
      for (let i = 0; i < n; i++) for (let j = i; j < n; j++) A[i * n + j] += (x[i] as number) * (x[j] as number);
    }
    const fresh = new Float64Array(n * n);
    expect(invertSPD(A, n, fresh)).toBe(true);
    expect(relErrUpper(Ainv, fresh, n)).toBeLessThan(1e-10);
  });
});

describe("bordered inverse growth (Schur complement)", () => {
  for (const [label, alpha] of [
    ["kernel matrix K + I", 1],
    ["nearly singular K + 1e-6 I", 1e-6],
  ] as const) {
    test(`growing to n = 150 matches a fresh inverse: ${label}`, () => {
      const rng = new TestRng(4);
      const N = 150;
      const d = 8;
      const ld = N;
      // RBF kernel on unit vectors, as in PAK-UCB.
      const X = new Float64Array(N * d);
      for (let i = 0; i < N; i++) {
        let s = 0;
        for (let k = 0; k < d; k++) s += (X[i * d + k] = rng.normal()) ** 2;
        for (let k = 0; k < d; k++) X[i * d + k] = (X[i * d + k] as number) / Math.sqrt(s);
      }
      const kern = (i: number, j: number) => {
        let s = 0;
        for (let k = 0; k < d; k++) s += ((X[i * d + k] as number) - (X[j * d + k] as number)) ** 2;
        return Math.exp(-s / 2);
      };
      const Q = allocF64(ld * ld);
      const b = allocF64(N);
      const work = allocF64(N);
      for (let n = 0; n < N; n++) {
        for (let i = 0; i < n; i++) b[i] = kern(i, n);
        const s = borderedInverseAppend(Q, n, ld, b, 1 + alpha, work, alpha);
        expect(s).toBeGreaterThanOrEqual(alpha);
        if (n + 1 === 10 || n + 1 === N) {
          const m = n + 1;
          const K = new Float64Array(m * m);
          for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) K[i * m + j] = kern(i, j) + (i === j ? alpha : 0);
          const fresh = new Float64Array(m * m);
          expect(invertSPD(K, m, fresh)).toBe(true);
          // cond(K + alpha I) <= (m + alpha) / alpha
          expect(relErrUpper(Q, fresh, m, ld, m)).toBeLessThan(1e-10 * Math.max(1, (m + alpha) / alpha / 1e3));
        }
      }
    });
  }

  test("borderedInverseAppendWithProduct, given symvQuadUpper's u = M^-1 b, gives borderedInverseAppend's bits", () => {
    const rng = new TestRng(77);
    const N = 120;
    const ld = N + 3;
    const d = 6;
    const X = Array.from({ length: N }, () => Array.from({ length: d }, () => rng.normal() / Math.sqrt(d)));
    const kern = (i: number, j: number) =>
      Math.exp(-(X[i] as number[]).reduce((s, v, k) => s + (v - ((X[j] as number[])[k] as number)) ** 2, 0) / 2);
    const Q1 = allocF64(ld * ld);
    const Q2 = allocF64(ld * ld);
    const b = allocF64(N);
    const w1 = allocF64(N);
    const u = allocF64(N);
    for (let n = 0; n < N; n++) {
      for (let i = 0; i < n; i++) b[i] = kern(i, n);
      const s1 = borderedInverseAppend(Q1, n, ld, b, 1.01, w1, 0.01);
      symvQuadUpper(Q2, n, b, u, ld);
      const uBefore = u.slice(0, n);
      const s2 = borderedInverseAppendWithProduct(Q2, n, ld, b, 1.01, u, 0.01);
      expect(Object.is(s1, s2)).toBe(true);
      expect(u.slice(0, n)).toEqual(uBefore); // u is read, not changed
    }
    let mismatches = 0;
    for (let k = 0; k < ld * ld; k++) if (!Object.is(Q1[k], Q2[k])) mismatches++;
    expect(mismatches).toBe(0);
  });

  test("the Schur complement is clamped at minSchur", () => {
    const Q = new Float64Array(4);
    Q[0] = 1; // M = [1]
    const s = borderedInverseAppend(Q, 1, 2, Float64Array.of(1), 1, new Float64Array(1), 0.5);
    expect(s).toBe(0.5); // c - b M^-1 b = 0 -> clamped
    expect(Q[3]).toBe(2);
  });
});

describe("Cholesky", () => {
  const rng = new TestRng(5);
  const cases = [
    [1, 1],
    [6, 1],
    [45, 1],
    [30, 1e10],
  ] as const;

  test.each(cases)("factor / solve / logdet / inverse, n = %i, cond = %d", (n, cond) => {
    const A = spdWithEigenvalues(rng, logSpaced(n, cond));
    const ld = n + 1;
    const As = withStride(A, n, ld, 0);
    const L = allocF64(n * ld);
    expect(choleskyFactor(As, n, L, ld)).toBe(true);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) expect(L[i * ld + j]).toBe(0);
    expect(relErr(llt(L, n, ld), A)).toBeLessThan(10 * n * EPS);
    // upper-reading variant agrees
    const U = withStride(A, n, ld, 0);
    for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) U[i * ld + j] = Number.NaN;
    const L2 = allocF64(n * ld);
    expect(choleskyFactorUpper(U, n, L2, ld)).toBe(true);
    expect(Array.from(L2)).toEqual(Array.from(L));
    // in place
    const inPlace = As.slice();
    choleskyFactor(inPlace, n, inPlace, ld);
    expect(Array.from(inPlace)).toEqual(Array.from(L));
    // solve: small backward error
    const xTrue = rng.vector(n);
    const bvec = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) bvec[i] += (A[i * n + j] as number) * (xTrue[j] as number);
    const x = bvec.slice();
    choleskySolve(L, n, x, x, ld);
    const r = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      r[i] = bvec[i] as number;
      for (let j = 0; j < n; j++) r[i] -= (A[i * n + j] as number) * (x[j] as number);
    }
    const normX = Math.max(...Array.from(x, Math.abs));
    expect(Math.max(...Array.from(r, Math.abs))).toBeLessThan(100 * n * EPS * normX);
    expect(relErr(x, xTrue)).toBeLessThan(100 * n * EPS * cond);
    // forward/back substitution separately
    const y = new Float64Array(n);
    forwardSubst(L, n, bvec, y, ld);
    const z = new Float64Array(n);
    backSubstTransposed(L, n, y, z, ld);
    expect(Array.from(z)).toEqual(Array.from(x));
    // log det = sum log eigenvalues
    const eig = logSpaced(n, cond);
    const want = eig.reduce((s, v) => s + Math.log(v), 0);
    expect(Math.abs(choleskyLogDet(L, n, ld) - want)).toBeLessThan(1e-10 * Math.max(1, Math.abs(want)));
    // inverse
    const inv = new Float64Array(n * ld);
    choleskyInverseUpper(L, n, inv, new Float64Array(n), ld);
    expect(relErrUpper(inv, mlInverse(A, n), n, ld, n)).toBeLessThan(100 * n * EPS * cond);
  });

  test("choleskySolve and forwardSubst give the bits of the implementation that took dot's return value (both backends)", () => {
    // The forward substitution as it was before its row dot products went through a typed-array slot.
    const referenceSolve = (L: Float64Array, n: number, b: Float64Array, out: Float64Array, ld: number): void => {
      for (let i = 0; i < n; i++) out[i] = ((b[i] as number) - dot(L, out, i, i * ld, 0)) / (L[i * ld + i] as number);
      for (let i = n - 1; i >= 0; i--) {
        let s = out[i] as number;
        for (let k = i + 1; k < n; k++) s -= (L[k * ld + i] as number) * (out[k] as number);
        out[i] = s / (L[i * ld + i] as number);
      }
    };
    const sameBits = (a: Float64Array, b: Float64Array, n: number): number => {
      let mismatches = 0;
      for (let i = 0; i < n; i++) if (!Object.is(a[i], b[i])) mismatches++;
      return mismatches;
    };
    const srng = new TestRng(77);
    const sizes = [...Array.from({ length: 40 }, (_, i) => i + 1), 64, 65, 129, 200, 333];
    for (const n of sizes) {
      const ld = n + (n % 3);
      const A = randomSpd(srng, n);
      const Ls = new Float64Array(n * ld);
      expect(choleskyFactor(withStride(A, n, ld, 0), n, Ls, ld)).toBe(true);
      const b = srng.vector(n);
      for (const make of [(k: number) => new Float64Array(k), (k: number) => allocF64(k)]) {
        const L = make(n * ld);
        L.set(Ls);
        const bb = make(n);
        bb.set(b);
        const want = make(n);
        referenceSolve(L, n, bb, want, ld);
        const got = make(n);
        choleskySolve(L, n, bb, got, ld);
        expect(sameBits(got, want, n)).toBe(0);
        const inPlace = make(n); // out aliasing b
        inPlace.set(b);
        choleskySolve(L, n, inPlace, inPlace, ld);
        expect(sameBits(inPlace, want, n)).toBe(0);
        const y = make(n);
        forwardSubst(L, n, bb, y, ld);
        const yWant = make(n);
        for (let i = 0; i < n; i++)
          yWant[i] = ((bb[i] as number) - dot(L, yWant, i, i * ld, 0)) / (L[i * ld + i] as number);
        expect(sameBits(y, yWant, n)).toBe(0);
      }
    }
  });

  test("a non-SPD matrix is rejected", () => {
    const A = Float64Array.of(1, 2, 2, 1);
    expect(choleskyFactor(A, 2, new Float64Array(4))).toBe(false);
    const out = new Float64Array(4).fill(9);
    expect(invertSPD(A, 2, out)).toBe(false);
    expect(solveSPD(A, 2, Float64Array.of(1, 1), out)).toBe(false);
    expect(Array.from(out)).toEqual([9, 9, 9, 9]);
    // Aliased (out = A, out = b): still no write on failure.
    const inPlace = Float64Array.of(1, 2, 2, 1);
    expect(invertSPD(inPlace, 2, inPlace)).toBe(false);
    const b = Float64Array.of(3, 4);
    expect(solveSPD(A, 2, b, b)).toBe(false);
    expect([...inPlace, ...b]).toEqual([1, 2, 2, 1, 3, 4]);
    // choleskyFactorUpper is, with choleskyFactor, the README's exception: false, but L may have been written.
    expect(choleskyFactorUpper(A, 2, new Float64Array(4).fill(9))).toBe(false);
  });

  test("appending rows equals refactorising the bordered matrix", () => {
    const n = 35;
    const ld = n;
    const A = randomSpd(rng, n);
    const L = allocF64(n * ld);
    for (let m = 0; m < n; m++) {
      const b = new Float64Array(m);
      for (let i = 0; i < m; i++) b[i] = A[m * n + i] as number;
      const d2 = choleskyAppendRow(L, m, ld, b, A[m * n + m] as number);
      expect(d2).toBeGreaterThan(0);
    }
    const ref = new Float64Array(n * n);
    choleskyFactor(A, n, ref);
    expect(relErr(L, ref)).toBeLessThan(1e3 * EPS);
  });

  test.each([
    [20, 1],
    [20, 1e8],
  ] as const)("rank-1 update and downdate equal refactorisation (n = %i, cond = %d)", (n, cond) => {
    const ld = n + 2;
    const A = spdWithEigenvalues(rng, logSpaced(n, cond));
    const L = allocF64(n * ld);
    choleskyFactor(withStride(A, n, ld, 0), n, L, ld);
    const L0 = L.slice();
    const x = rng.vector(n);
    const xs = x.slice();
    choleskyRank1Update(L, n, xs, ld);
    const B = A.slice();
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) B[i * n + j] += (x[i] as number) * (x[j] as number);
    const ref = allocF64(n * ld);
    choleskyFactor(withStride(B, n, ld, 0), n, ref, ld);
    expect(relErr(L, ref)).toBeLessThan(1e3 * n * EPS * Math.sqrt(cond));
    // downdate back
    const x2 = x.slice();
    expect(choleskyRank1Downdate(L, n, x2, ld)).toBe(true);
    expect(Array.from(x2)).toEqual(Array.from(x)); // x untouched
    expect(relErr(llt(L, n, ld), llt(L0, n, ld))).toBeLessThan(1e3 * n * EPS * cond);
    for (let i = 0; i < n; i++) expect(L[i * ld + i]).toBeGreaterThan(0);
  });

  test("a downdate that would lose definiteness returns false and leaves L unchanged", () => {
    const n = 5;
    const L = new Float64Array(n * n);
    choleskyFactor(randomSpd(rng, n), n, L);
    const before = L.slice();
    const x = new Float64Array(n);
    x[0] = (L[0] as number) * 1.0000001; // A_00 - x_0^2 < 0
    expect(choleskyRank1Downdate(L, n, x)).toBe(false);
    expect(Array.from(L)).toEqual(Array.from(before));
  });

  test("invertSPD and solveSPD read the upper triangle; out may alias", () => {
    for (const cond of [1, 1e10]) {
      const n = 25;
      const A = spdWithEigenvalues(rng, logSpaced(n, cond));
      const U = A.slice();
      for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) U[i * n + j] = Number.NaN;
      const inv = U.slice();
      expect(invertSPD(inv, n, inv)).toBe(true);
      expect(relErr(inv, mlInverse(A, n))).toBeLessThan(100 * n * EPS * cond);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(inv[i * n + j]).toBe(inv[j * n + i]);
      const b = rng.vector(n);
      const x = b.slice();
      expect(solveSPD(U, n, x, x)).toBe(true);
      const want = new Float64Array(n);
      const Ai = mlInverse(A, n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) want[i] += (Ai[i * n + j] as number) * (b[j] as number);
      expect(relErr(x, want)).toBeLessThan(100 * n * EPS * cond);
    }
  });
});

describe("choleskyInverseUpper", () => {
  /** The column-solve route (n Cholesky solves of unit vectors), the function's algorithm up to n = 8. */
  function inverseByColumnSolves(L: Float64Array, n: number, out: Float64Array, ld = n): void {
    const e = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      e.fill(0);
      e[j] = 1;
      choleskySolve(L, n, e, e, ld);
      for (let i = 0; i <= j; i++) out[i * ld + j] = e[i] as number;
    }
  }

  /** max_ij |(A X - I)_ij| for full A and X given by its upper triangle (both n x n, stride n). */
  function residual(A: Float64Array, X: Float64Array, n: number): number {
    let worst = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = i === j ? -1 : 0;
        for (let k = 0; k < n; k++) s += (A[i * n + k] as number) * (X[k <= j ? k * n + j : j * n + k] as number);
        worst = Math.max(worst, Math.abs(s));
      }
    return worst;
  }

  const rng = new TestRng(41);

  /** A (full), its factor L and both inverses' residuals; cond 0 means randomSpd (condition number about 5). */
  function inverses(n: number, cond: number): { direct: number; bySolves: number; inv: Float64Array } {
    const A = cond === 0 ? randomSpd(rng, n) : spdWithEigenvalues(rng, logSpaced(n, cond));
    const L = new Float64Array(n * n);
    expect(choleskyFactor(A, n, L)).toBe(true);
    const inv = new Float64Array(n * n);
    choleskyInverseUpper(L, n, inv, new Float64Array(n));
    const ref = new Float64Array(n * n);
    inverseByColumnSolves(L, n, ref);
    return { direct: residual(A, inv, n), bySolves: residual(A, ref, n), inv };
  }

  test("up to n = 8 it is the column-solve route, bit for bit (mnl's unrolled kernels rely on it)", () => {
    for (let n = 1; n <= 8; n++) {
      for (let rep = 0; rep < 4; rep++) {
        const L = new Float64Array(n * n);
        for (let i = 0; i < n; i++) {
          L[i * n + i] = 0.5 + 3 * rng.uniform();
          for (let j = 0; j < i; j++) L[i * n + j] = rng.uniform() < 0.1 ? -0 : 2 * rng.normal();
        }
        const got = new Float64Array(n * n);
        const want = new Float64Array(n * n);
        choleskyInverseUpper(L, n, got, new Float64Array(n));
        inverseByColumnSolves(L, n, want);
        for (let k = 0; k < n * n; k++) expect(Object.is(got[k], want[k]), `n=${n} entry ${k}`).toBe(true);
      }
    }
  });

  test.each([1, 2, 3, 9, 10, 64, 257])("n = %i: residual |A X - I| within 10 n eps cond, for cond 1 to 1e12", (n) => {
    for (const cond of [0, 1, 1e6, 1e12]) {
      const { direct } = inverses(n, cond);
      expect(direct, `cond ${cond}`).toBeLessThan(10 * n * EPS * Math.max(cond, 5));
    }
  });

  test("past n = 8 at least as accurate as the column solves: geometric mean of the residual ratios <= 1", () => {
    // Case by case the two rounding patterns differ either way (the new residual was 0.1x to 8x the old one
    // over 252 cases, the 8x at cond 1e15); over many cases the triangular inverse is slightly better.
    let logRatio = 0;
    let cases = 0;
    for (let rep = 0; rep < 3; rep++)
      for (const n of [9, 10, 17, 33, 64])
        for (const cond of [0, 1e4, 1e8, 1e12]) {
          const { direct, bySolves } = inverses(n, cond);
          expect(direct, `n ${n} cond ${cond}`).toBeLessThan(4 * bySolves + 4 * EPS);
          if (bySolves > 0 && direct > 0) {
            logRatio += Math.log(direct / bySolves);
            cases++;
          }
        }
    expect(cases).toBeGreaterThan(50);
    expect(Math.exp(logRatio / cases)).toBeLessThanOrEqual(1);
  });

  test("past n = 8: row stride ld > n, only the upper triangle written, whatever `out` held", () => {
    for (const n of [9, 16, 31]) {
      const ld = n + 3;
      const A = randomSpd(rng, n);
      const L = new Float64Array(n * ld);
      expect(choleskyFactor(withStride(A, n, ld, 0), n, L, ld)).toBe(true);
      const out = new Float64Array(n * ld).fill(Number.NaN);
      for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) out[i * ld + j] = -7;
      choleskyInverseUpper(L, n, out, new Float64Array(n), ld);
      const packed = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < ld; j++) {
          if (j < i) expect(out[i * ld + j]).toBe(-7);
          else if (j >= n) expect(out[i * ld + j]).toBeNaN();
          else packed[i * n + j] = out[i * ld + j] as number;
        }
      expect(relErrUpper(packed, mlInverse(A, n), n)).toBeLessThan(100 * n * EPS * 5);
    }
  });
});

describe("choleskyRank1Update with entries whose products overflow", () => {
  test("the factor of 4I updated by [1e200, 1e200, 0] is finite and factors 4I + x x^T", () => {
    // s * x_i = (x_k / l_kk) x_i overflowed: L held Infinity and NaN although the true factor is finite.
    const n = 3;
    const L = new Float64Array([2, 0, 0, 0, 2, 0, 0, 0, 2]);
    const x = new Float64Array([1e200, 1e200, 0]);
    choleskyRank1Update(L, n, x);
    expect(Array.from(L).every(Number.isFinite)).toBe(true);
    // 4I + x x^T = [[4 + 1e400, 1e400, 0], [1e400, 4 + 1e400, 0], [0, 0, 4]]: L00 = L10 ~ 1e200, L11^2 ~ 8, L22 = 2.
    expect(L[0]).toBeCloseTo(1e200, -190);
    expect((L[3] as number) / 1e200).toBeCloseTo(1, 12);
    expect(L[4] as number).toBeCloseTo(Math.sqrt(8), 12);
    expect(L[8]).toBe(2);
    expect([L[1], L[2], L[5], L[6], L[7]]).toEqual([0, 0, 0, 0, 0]);
    // Huge entries anywhere in x, and a diagonal near 0: L' L'^T = L L^T + x x^T to a backward error of 1e-12
    // sqrt(A'_ii A'_jj), checked scaled by 2^-330 (exact, a power of two) so that the products stay finite.
    const sc = 2 ** -330;
    const m = 6;
    const rng = new TestRng(7);
    for (const big of [0, 1, 3, 5]) {
      for (const tiny of [-1, 0, 2]) {
        const Lb = new Float64Array(m * m);
        choleskyFactor(randomSpd(rng, m), m, Lb);
        if (tiny >= 0) for (let i = tiny; i < m; i++) Lb[i * m + tiny] = (Lb[i * m + tiny] as number) * 1e-120;
        const xb = Float64Array.from(rng.vector(m), (v) => v * 1e10);
        xb[big] = 1e199;
        const want = llt(
          Lb.map((v) => v * sc),
          m,
          m,
        );
        for (let i = 0; i < m; i++)
          for (let j = 0; j < m; j++)
            want[i * m + j] = (want[i * m + j] as number) + (xb[i] as number) * sc * ((xb[j] as number) * sc);
        choleskyRank1Update(Lb, m, xb);
        expect(Array.from(Lb).every(Number.isFinite), `big ${big} tiny ${tiny}`).toBe(true);
        const got = llt(
          Lb.map((v) => v * sc),
          m,
          m,
        );
        for (let i = 0; i < m; i++)
          for (let j = 0; j < m; j++) {
            const tol = 1e-12 * Math.sqrt((want[i * m + i] as number) * (want[j * m + j] as number));
            expect(
              Math.abs((got[i * m + j] as number) - (want[i * m + j] as number)),
              `big ${big} tiny ${tiny} (${i}, ${j})`,
            ).toBeLessThanOrEqual(tol);
          }
      }
    }
    // Ordinary inputs keep their bits (pinned from the build before the change).
    const Lo = new Float64Array([2, 0, 0, 0.5, 1.5, 0, -0.25, 0.75, 3]);
    choleskyRank1Update(Lo, n, new Float64Array([0.3, -1.2, 0.7]));
    expect(Array.from(Lo)).toEqual([
      2.0223748416156684, 0, 0, 0.3164596329178552, 1.9595543627910648, 0, -0.14339577116590316, 0.10480902035940755,
      3.1754452793369055,
    ]);
  });
});
