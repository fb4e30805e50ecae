import { Rng } from "@routekit/core";

/** A uniformly random unit vector of R^d. */
export function unitVector(rng: Rng, d: number): Float64Array {
  const q = new Float64Array(d);
  let n = 0;
  for (let i = 0; i < d; i++) {
    const v = rng.normal();
    q[i] = v;
    n += v * v;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < d; i++) q[i] = (q[i] as number) / n;
  return q;
}

/** A random symmetric d x d matrix with N(0, 1) entries. */
export function randomSymmetric(rng: Rng, d: number, scale = 1): Float64Array {
  const X = new Float64Array(d * d);
  for (let i = 0; i < d; i++)
    for (let j = i; j < d; j++) {
      const v = scale * rng.normal();
      X[i * d + j] = v;
      X[j * d + i] = v;
    }
  return X;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
}

export const seeded = (seed: number): Rng => Rng.fromSeed(seed);
