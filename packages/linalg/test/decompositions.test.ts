import { describe, expect, test } from "vitest";
import { svd, symmetricEigen } from "../src/index.js";
import { EPS, logSpaced, naiveMatmul, relErr, spdWithEigenvalues, TestRng } from "./helpers.js";

describe("symmetricEigen", () => {
  const rng = new TestRng(8);
  test.each([
    [1, 1],
    [5, 1],
    [40, 1],
    [30, 1e10],
  ] as const)("n = %i, cond = %d: A = V diag(values) V^T, V orthogonal, values sorted descending", (n, cond) => {
    const eigs = logSpaced(n, cond);
    // indefinite: flip the sign of every third eigenvalue
    for (let i = 0; i < n; i += 3) eigs[i] = -(eigs[i] as number);
    const A = spdWithEigenvalues(rng, eigs);
    const upperOnly = A.slice();
    for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) upperOnly[i * n + j] = Number.NaN;
    const { values, vectors } = symmetricEigen(upperOnly, n);
    const sorted = Array.from(eigs).sort((a, b) => b - a);
    expect(relErr(values, sorted)).toBeLessThan(100 * n * EPS);
    for (let k = 1; k < n; k++) expect(values[k]).toBeLessThanOrEqual(values[k - 1] as number);
    const VtV = naiveMatmul(transpose(vectors, n, n), vectors, n, n, n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        expect(Math.abs((VtV[i * n + j] as number) - (i === j ? 1 : 0))).toBeLessThan(100 * n * EPS);
    const VD = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let k = 0; k < n; k++) VD[i * n + k] = (vectors[i * n + k] as number) * (values[k] as number);
    expect(relErr(naiveMatmul(VD, transpose(vectors, n, n), n, n, n), A)).toBeLessThan(100 * n * EPS);
    // canonical sign: each column's largest-magnitude entry is positive
    for (let k = 0; k < n; k++) {
      let big = 0;
      for (let i = 0; i < n; i++)
        if (Math.abs(vectors[i * n + k] as number) > Math.abs(big)) big = vectors[i * n + k] as number;
      expect(big).toBeGreaterThan(0);
    }
  });

  test("reads a strided matrix", () => {
    const A = Float64Array.of(2, 1, 99, 1, 2, 99);
    const { values } = symmetricEigen(A, 2, 3);
    expect(values[0]).toBeCloseTo(3, 14);
    expect(values[1]).toBeCloseTo(1, 14);
  });
});

function transpose(A: Float64Array, r: number, c: number): Float64Array {
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = A[i * c + j] as number;
  return out;
}

describe("svd", () => {
  const rng = new TestRng(9);
  test.each([
    [1, 1],
    [6, 4],
    [4, 6],
    [30, 30],
  ] as const)("%i x %i: A = U diag(s) V^T with orthonormal columns, s descending", (rows, cols) => {
    const ld = cols + 1;
    const A = rng.vector(rows * ld);
    const { values, U, V, k } = svd(A, rows, cols, ld);
    expect(k).toBe(Math.min(rows, cols));
    for (let c = 1; c < k; c++) expect(values[c]).toBeLessThanOrEqual(values[c - 1] as number);
    const US = new Float64Array(rows * k);
    for (let i = 0; i < rows; i++)
      for (let c = 0; c < k; c++) US[i * k + c] = (U[i * k + c] as number) * (values[c] as number);
    const rec = naiveMatmul(US, transpose(V, cols, k), rows, k, cols);
    const dense = new Float64Array(rows * cols);
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) dense[i * cols + j] = A[i * ld + j] as number;
    expect(relErr(rec, dense)).toBeLessThan(1e3 * EPS);
    const UtU = naiveMatmul(transpose(U, rows, k), U, k, rows, k);
    const VtV = naiveMatmul(transpose(V, cols, k), V, k, cols, k);
    for (let i = 0; i < k; i++)
      for (let j = 0; j < k; j++) {
        expect(Math.abs((UtU[i * k + j] as number) - (i === j ? 1 : 0))).toBeLessThan(1e3 * EPS);
        expect(Math.abs((VtV[i * k + j] as number) - (i === j ? 1 : 0))).toBeLessThan(1e3 * EPS);
      }
  });

  test("singular values of a matrix with cond 1e10", () => {
    const n = 20;
    const s = logSpaced(n, 1e10);
    const A = spdWithEigenvalues(rng, s); // symmetric PD: singular values = eigenvalues
    const { values } = svd(A, n, n);
    for (let i = 0; i < n; i++) expect(Math.abs((values[i] as number) - (s[i] as number))).toBeLessThan(100 * n * EPS);
  });
});
