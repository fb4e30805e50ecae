import { Rng } from "@routekit/core";
import { choleskyFactor, choleskySolve, type Kernel } from "@routekit/linalg";

export function unitVectors(rng: Rng, n: number, d: number): Float64Array[] {
  return Array.from({ length: n }, () => {
    const v = new Float64Array(d);
    let s = 0;
    for (let i = 0; i < d; i++) {
      v[i] = rng.normal();
      s += (v[i] as number) ** 2;
    }
    for (let i = 0; i < d; i++) v[i] = (v[i] as number) / Math.sqrt(s);
    return v;
  });
}

/** Direct KRR: mu = k_y^T (K + aI)^-1 v, sigma = a^-1/2 sqrt(k(y,y) - k_y^T (K + aI)^-1 k_y). */
export function directKrr(
  kernel: Kernel,
  X: Float64Array[],
  v: number[],
  alpha: number,
): { Kinv: () => Float64Array; query: (y: Float64Array) => { mu: number; sigma: number } } {
  const n = X.length;
  const d = (X[0] as Float64Array).length;
  const K = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      K[i * n + j] = kernel.eval(X[i] as Float64Array, X[j] as Float64Array, d) + (i === j ? alpha : 0);
  const L = new Float64Array(n * n);
  if (!choleskyFactor(K, n, L)) throw new Error("not SPD");
  const Kinv = () => {
    const out = new Float64Array(n * n);
    const e = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      e.fill(0);
      e[j] = 1;
      choleskySolve(L, n, e, e);
      for (let i = 0; i < n; i++) out[i * n + j] = e[i] as number;
    }
    return out;
  };
  const av = new Float64Array(v);
  choleskySolve(L, n, av, av);
  return {
    Kinv,
    query: (y) => {
      const ky = new Float64Array(n);
      for (let i = 0; i < n; i++) ky[i] = kernel.eval(y, X[i] as Float64Array, d);
      let mu = 0;
      for (let i = 0; i < n; i++) mu += (ky[i] as number) * (av[i] as number);
      const r = new Float64Array(ky);
      choleskySolve(L, n, r, r);
      let q = 0;
      for (let i = 0; i < n; i++) q += (ky[i] as number) * (r[i] as number);
      return { mu, sigma: Math.sqrt(Math.max(0, kernel.diag(y, d) - q) / alpha) };
    },
  };
}

/** Inverse of a symmetric positive-definite n x n matrix (Cholesky). */
export function spdInverse(A: Float64Array, n: number): Float64Array {
  const L = new Float64Array(n * n);
  if (!choleskyFactor(A, n, L)) throw new Error("not SPD");
  const out = new Float64Array(n * n);
  const e = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    e.fill(0);
    e[j] = 1;
    choleskySolve(L, n, e, e);
    for (let i = 0; i < n; i++) out[i * n + j] = e[i] as number;
  }
  return out;
}

export const seeded = (s: number) => Rng.fromSeed(s);
