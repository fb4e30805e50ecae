/**
 * Test helpers: a small seeded generator (linalg must not depend on @routekit/core), random and
 * ill-conditioned matrices, and naive reference implementations written as plainly as possible.
 */
import { inverse, Matrix, QrDecomposition } from "ml-matrix";

/** mulberry32 uniform in [0, 1) plus Box-Muller normals; deterministic per seed. */
export class TestRng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  uniform(): number {
    this.s = (this.s + 0x6d2b79f5) | 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  normal(): number {
    let u = 0;
    while (u === 0) u = this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }
  int(n: number): number {
    return Math.floor(this.uniform() * n);
  }
  fill(a: Float64Array, scale = 1): Float64Array {
    for (let i = 0; i < a.length; i++) a[i] = scale * this.normal();
    return a;
  }
  vector(n: number, scale = 1): Float64Array {
    return this.fill(new Float64Array(n), scale);
  }
}

/** Random orthogonal n x n matrix (Q of a Gaussian matrix's QR), row-major. */
export function randomOrthogonal(rng: TestRng, n: number): Float64Array {
  const G = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) G.set(i, j, rng.normal());
  const Q = new QrDecomposition(G).orthogonalMatrix;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = Q.get(i, j);
  return out;
}

/** Full symmetric Q diag(eigs) Q^T (row-major n x n). */
export function spdWithEigenvalues(rng: TestRng, eigs: ArrayLike<number>): Float64Array {
  const n = eigs.length;
  const Q = randomOrthogonal(rng, n);
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += (Q[i * n + k] as number) * (eigs[k] as number) * (Q[j * n + k] as number);
      A[i * n + j] = s;
      A[j * n + i] = s;
    }
  }
  return A;
}

/** Eigenvalues log-spaced from 1 down to 1/cond. */
export function logSpaced(n: number, cond: number): Float64Array {
  const e = new Float64Array(n);
  for (let i = 0; i < n; i++) e[i] = n === 1 ? 1 : cond ** (-i / (n - 1));
  return e;
}

/** A well-conditioned random SPD matrix: G G^T / n + I. */
export function randomSpd(rng: TestRng, n: number): Float64Array {
  const G = rng.vector(n * n);
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = i === j ? 1 : 0;
      for (let k = 0; k < n; k++) s += ((G[i * n + k] as number) * (G[j * n + k] as number)) / n;
      A[i * n + j] = s;
    }
  }
  return A;
}

/** Copies an n x n row-major block into a buffer with row stride ld (other entries `fill`). */
export function withStride(A: Float64Array, n: number, ld: number, fill = Number.NaN, m = n): Float64Array {
  const out = new Float64Array(m * ld).fill(fill);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) out[i * ld + j] = A[i * n + j] as number;
  return out;
}

export function naiveMatmul(A: Float64Array, B: Float64Array, r: number, k: number, c: number): Float64Array {
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++)
    for (let j = 0; j < c; j++) {
      let s = 0;
      for (let t = 0; t < k; t++) s += (A[i * k + t] as number) * (B[t * c + j] as number);
      out[i * c + j] = s;
    }
  return out;
}

/** Inverse of a full n x n matrix through ml-matrix (LU), row-major: an independent reference. */
export function mlInverse(A: Float64Array, n: number): Float64Array {
  const M = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) M.set(i, j, A[i * n + j] as number);
  const inv = inverse(M);
  return Float64Array.from(inv.to1DArray());
}

/** max_ij |A_ij - B_ij| / max_ij |B_ij| over the upper triangles of n x n matrices (strides la, lb). */
export function relErrUpper(A: Float64Array, B: Float64Array, n: number, la = n, lb = n): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      num = Math.max(num, Math.abs((A[i * la + j] as number) - (B[i * lb + j] as number)));
      den = Math.max(den, Math.abs(B[i * lb + j] as number));
    }
  return num / den;
}

/** max_i |a_i - b_i| / max_i |b_i|. */
export function relErr(a: ArrayLike<number>, b: ArrayLike<number>, n = b.length): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num = Math.max(num, Math.abs((a[i] as number) - (b[i] as number)));
    den = Math.max(den, Math.abs(b[i] as number));
  }
  return den === 0 ? num : num / den;
}

export const EPS = 2 ** -52;
