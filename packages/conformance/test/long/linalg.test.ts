/**
 * Long-horizon stability of the incremental structures of @routekit/linalg against a fresh
 * recomputation (ml-matrix) from the same data: relative Frobenius error < 1e-9.
 * Fixed-size structures run 10^5 updates in CI and 10^6 with ROUTEKIT_LONG=large; growing ones
 * (bordered inverse, Cholesky append: O(n^2) memory) run n = 400 / 1,500 appends.
 */
import { longHorizon } from "@routekit/core/testing";
import {
  borderedInverseAppend,
  choleskyAppendRow,
  choleskyRank1Update,
  rbfKernel,
  setScaledIdentity,
  shermanMorrisonUpdate,
} from "@routekit/linalg";
import { Matrix } from "ml-matrix";
import { describe, expect, it } from "vitest";
import { lowerFrom, refCholesky, refInverse, relErr, symFromUpper, unitStream } from "./reference.js";

const T = longHorizon(100_000, 1_000_000);
const N = longHorizon(400, 1500);
const TOL = 1e-9;
const d = 4;

describe.each(["isotropic", "concentrated"] as const)("%s contexts", (kind) => {
  it(`Sherman-Morrison inverse after ${T} rank-1 updates`, () => {
    const next = unitStream(`sm-${kind}`, d, kind);
    const Ainv = new Float64Array(d * d);
    setScaledIdentity(Ainv, d, 1);
    const A = new Float64Array(d * d);
    setScaledIdentity(A, d, 1);
    const u = new Float64Array(d);
    for (let t = 0; t < T; t++) {
      const x = next();
      shermanMorrisonUpdate(Ainv, d, x, u, 1);
      for (let i = 0; i < d; i++) for (let j = i; j < d; j++) A[i * d + j] += x[i] * x[j];
    }
    const err = relErr(symFromUpper(Ainv, d), refInverse(symFromUpper(A, d)));
    console.log(`[long] sherman-morrison ${kind} T=${T}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
  });

  it(`Cholesky rank-1 update after ${T} updates`, () => {
    const next = unitStream(`chol-${kind}`, d, kind);
    const L = new Float64Array(d * d);
    setScaledIdentity(L, d, 1);
    const A = new Float64Array(d * d);
    setScaledIdentity(A, d, 1);
    const scratch = new Float64Array(d);
    for (let t = 0; t < T; t++) {
      const x = next();
      for (let i = 0; i < d; i++) for (let j = i; j < d; j++) A[i * d + j] += x[i] * x[j];
      scratch.set(x);
      choleskyRank1Update(L, d, scratch);
    }
    const err = relErr(lowerFrom(L, d), refCholesky(symFromUpper(A, d)));
    console.log(`[long] cholesky rank-1 ${kind} T=${T}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
  });

  it(`bordered kernel inverse (K + alpha I)^-1 after ${N} appends`, () => {
    const next = unitStream(`border-${kind}`, d, kind);
    const k = rbfKernel(1);
    const alpha = 1;
    const X = new Float64Array(N * d);
    const Q = new Float64Array(N * N);
    const b = new Float64Array(N);
    const work = new Float64Array(N);
    for (let n = 0; n < N; n++) {
      X.set(next(), n * d);
      for (let i = 0; i < n; i++) b[i] = k.eval(X, X, d, i * d, n * d);
      borderedInverseAppend(Q, n, N, b, k.diag(X, d, n * d) + alpha, work);
    }
    const K = new Matrix(N, N);
    for (let i = 0; i < N; i++)
      for (let j = 0; j < N; j++) K.set(i, j, k.eval(X, X, d, i * d, j * d) + (i === j ? alpha : 0));
    const err = relErr(symFromUpper(Q, N, N), refInverse(K));
    console.log(`[long] bordered inverse ${kind} n=${N}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
  });

  it(`Cholesky append of (K + alpha I) after ${N} rows`, () => {
    const next = unitStream(`append-${kind}`, d, kind);
    const k = rbfKernel(1);
    const alpha = 1;
    const X = new Float64Array(N * d);
    const L = new Float64Array(N * N);
    const b = new Float64Array(N);
    for (let n = 0; n < N; n++) {
      X.set(next(), n * d);
      for (let i = 0; i < n; i++) b[i] = k.eval(X, X, d, i * d, n * d);
      choleskyAppendRow(L, n, N, b, k.diag(X, d, n * d) + alpha);
    }
    const K = new Matrix(N, N);
    for (let i = 0; i < N; i++)
      for (let j = 0; j < N; j++) K.set(i, j, k.eval(X, X, d, i * d, j * d) + (i === j ? alpha : 0));
    const err = relErr(lowerFrom(L, N, N), refCholesky(K));
    console.log(`[long] cholesky append ${kind} n=${N}: rel err ${err.toExponential(2)}`);
    expect(err).toBeLessThan(TOL);
  });
});
