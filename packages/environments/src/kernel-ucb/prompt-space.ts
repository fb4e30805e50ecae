import type { Rng } from "@routekit/core";
import { rbfKernel } from "@routekit/linalg";

/** Prompt geometry: categories on the unit sphere, or the Sudoku difficulty line. */
export type PromptLayout =
  | { readonly type: "categories"; readonly rho: number; readonly tau: number }
  /** blanks b ~ U{5..30}; y = normalize(c0 + lambda (b - 17.5)/12.5 u + tau z); category 0 if b > 15. */
  | { readonly type: "sudoku"; readonly lambda: number; readonly tau: number };

/**
 * The prompt generator: category centroids c_k = normalize(c0 + rho u_k) and prompts
 * y = normalize(c_k + tau z), z ~ N(0, I/d); or, for the Sudoku layout, a difficulty direction.
 * Built once per reset from the "pool" stream; `draw` writes one prompt into a row of a buffer.
 */
export class PromptSpace {
  private readonly c0: Float64Array;
  private readonly dirs: Float64Array[] = [];

  constructor(
    readonly layout: PromptLayout,
    readonly dim: number,
    readonly categories: number,
    rng: Rng,
  ) {
    const d = dim;
    this.c0 = gaussianVector(rng, d, 1 / Math.sqrt(d));
    if (layout.type === "categories") {
      for (let k = 0; k < categories; k++) {
        const u = gaussianVector(rng, d, 1 / Math.sqrt(d));
        for (let j = 0; j < d; j++) u[j] = (this.c0[j] as number) + layout.rho * (u[j] as number);
        this.dirs.push(normalize(u));
      }
    } else {
      this.dirs.push(normalize(gaussianVector(rng, d, 1 / Math.sqrt(d))));
    }
  }

  /**
   * Draws a prompt of category `k` (ignored by the Sudoku layout, which draws its own difficulty)
   * into `out[off .. off + d)` and returns its category.
   */
  draw(rng: Rng, k: number, out: Float64Array, off: number): number {
    const d = this.dim;
    const L = this.layout;
    if (L.type === "categories") {
      const ck = this.dirs[k] as Float64Array;
      const sd = L.tau / Math.sqrt(d);
      for (let j = 0; j < d; j++) out[off + j] = (ck[j] as number) + sd * rng.normal();
      normalizeRow(out, off, d);
      return k;
    }
    const blanks = 5 + rng.int(26);
    const s = (L.lambda * (blanks - 17.5)) / 12.5;
    const u = this.dirs[0] as Float64Array;
    const sd = L.tau / Math.sqrt(d);
    for (let j = 0; j < d; j++) out[off + j] = (this.c0[j] as number) + s * (u[j] as number) + sd * rng.normal();
    normalizeRow(out, off, d);
    return blanks > 15 ? 0 : 1;
  }
}

/**
 * A random function of an RKHS: f(y) = sum_j c_j k(y, z_j) with z_j drawn from the pool and
 * c ~ N(0, I) rescaled so that ||f||_H = sqrt(c^T K_z c) = `norm`. Returns an evaluator on rows of
 * a row-major matrix.
 */
export function rkhsFunction(
  pool: Float64Array,
  d: number,
  n: number,
  centers: number,
  sigma: number,
  norm: number,
  rng: Rng,
): (x: Float64Array, xo: number) => number {
  const k = rbfKernel(sigma);
  const J = Math.min(centers, n);
  const z = new Float64Array(J * d);
  for (let j = 0; j < J; j++) {
    const i = rng.int(n);
    z.set(pool.subarray(i * d, i * d + d), j * d);
  }
  const c = new Float64Array(J);
  for (let j = 0; j < J; j++) c[j] = rng.normal();
  let h2 = 0;
  for (let a = 0; a < J; a++) {
    for (let b = 0; b < J; b++) h2 += (c[a] as number) * (c[b] as number) * k.eval(z, z, d, a * d, b * d);
  }
  const s = h2 > 0 ? norm / Math.sqrt(h2) : 0;
  for (let j = 0; j < J; j++) c[j] = (c[j] as number) * s;
  return (x, xo) => {
    let f = 0;
    for (let j = 0; j < J; j++) f += (c[j] as number) * k.eval(x, z, d, xo, j * d);
    return f;
  };
}

function gaussianVector(rng: Rng, d: number, sd: number): Float64Array {
  const v = new Float64Array(d);
  for (let i = 0; i < d; i++) v[i] = sd * rng.normal();
  return v;
}

function normalize(v: Float64Array): Float64Array {
  normalizeRow(v, 0, v.length);
  return v;
}

function normalizeRow(a: Float64Array, off: number, d: number): void {
  let s = 0;
  for (let j = 0; j < d; j++) s += (a[off + j] as number) ** 2;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let j = 0; j < d; j++) a[off + j] = (a[off + j] as number) * inv;
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
