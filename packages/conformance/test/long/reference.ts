/**
 * Independent reference recomputations (ml-matrix, not @routekit/linalg) for the long-horizon tests.
 */
import { Rng } from "@routekit/core";
import { CholeskyDecomposition, inverse, Matrix } from "ml-matrix";

/** Row-major n x n Float64Array (full or upper-stored with stride ld) -> symmetric ml-matrix. */
export function symFromUpper(a: ArrayLike<number>, n: number, ld = n): Matrix {
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      const v = a[i * ld + j] as number;
      m.set(i, j, v);
      m.set(j, i, v);
    }
  return m;
}

/** Symmetric matrix from a packed upper triangle (row by row). */
export function symFromPacked(p: ArrayLike<number>, n: number): Matrix {
  const m = new Matrix(n, n);
  let k = 0;
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      const v = p[k++] as number;
      m.set(i, j, v);
      m.set(j, i, v);
    }
  return m;
}

/** Lower-triangular matrix from row-major storage with stride ld. */
export function lowerFrom(a: ArrayLike<number>, n: number, ld = n): Matrix {
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) m.set(i, j, a[i * ld + j] as number);
  return m;
}

/** ||A - B||_F / ||B||_F. */
export function relErr(a: Matrix, b: Matrix): number {
  return Matrix.sub(a, b).norm("frobenius") / b.norm("frobenius");
}

export function refInverse(a: Matrix): Matrix {
  return inverse(a);
}

export function refCholesky(a: Matrix): Matrix {
  const c = new CholeskyDecomposition(a);
  if (!c.isPositiveDefinite()) throw new Error("reference matrix is not positive definite");
  return c.lowerTriangularMatrix;
}

/**
 * Unit vectors in R^d. "isotropic": uniform on the sphere. "concentrated": around e_1 with 5%
 * noise, like embeddings of similar prompts, so the Gram matrix is ill-conditioned (cond ~ 1e3..1e4).
 */
export function unitStream(seed: string, d: number, kind: "isotropic" | "concentrated"): () => Float64Array {
  const rng = Rng.fromSeed(seed);
  const x = new Float64Array(d);
  return () => {
    let n = 0;
    for (let i = 0; i < d; i++) {
      x[i] = (kind === "concentrated" ? (i === 0 ? 1 : 0) + 0.05 * rng.normal() : rng.normal()) as number;
      n += x[i] * x[i];
    }
    const s = 1 / Math.sqrt(n);
    for (let i = 0; i < d; i++) x[i] *= s;
    return x;
  };
}
