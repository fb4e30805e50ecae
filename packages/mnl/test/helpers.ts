import type { AssortmentQuery, Rng } from "@routekit/core";

/** A query with N items of clipped-normal features (as the paper) and optional U(0,1) revenues. */
export function randomQuery(rng: Rng, N: number, d: number, K: number, revenues = false): AssortmentQuery {
  const b = 1 / Math.sqrt(d);
  const features = Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, rng.normal())));
  return {
    features,
    numItems: N,
    maxSize: K,
    ...(revenues ? { revenues: Float64Array.from({ length: N }, () => rng.uniform()) } : {}),
  };
}

/** Samples an MNL choice for `items` under parameter w (v0 outside attraction). */
export function sampleChoice(
  rng: Rng,
  q: AssortmentQuery,
  d: number,
  w: ArrayLike<number>,
  items: readonly number[],
  v0 = 1,
): number | null {
  const weights = items.map((i) => {
    let u = 0;
    for (let k = 0; k < d; k++) u += q.features[i * d + k]! * w[k]!;
    return Math.exp(u);
  });
  weights.push(v0);
  const c = rng.categorical(weights);
  return c === items.length ? null : items[c]!;
}

/** Dense helpers for independent reference computations in tests. */
export function solveDense(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[piv]![c]!)) piv = r;
    [M[c], M[piv]] = [M[piv]!, M[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return M.map((row, i) => row[n]! / row[i]!);
}

/** Naive MNL probabilities, gradient and Hessian for rows X (arrays) at w. */
export function naiveMnl(X: number[][], w: number[], v0: number, choice: number) {
  const e = X.map((x) => Math.exp(x.reduce((s, xi, k) => s + xi * w[k]!, 0)));
  const den = v0 + e.reduce((a, b) => a + b, 0);
  const p = e.map((v) => v / den);
  const d = w.length;
  const g = Array.from({ length: d }, (_, k) => X.reduce((s, x, i) => s + (p[i]! - (i === choice ? 1 : 0)) * x[k]!, 0));
  const G = Array.from({ length: d }, (_, a) =>
    Array.from({ length: d }, (_, b) => {
      let s = 0;
      for (let i = 0; i < X.length; i++) {
        s += p[i]! * X[i]![a]! * X[i]![b]!;
        for (let j = 0; j < X.length; j++) s -= p[i]! * p[j]! * X[i]![a]! * X[j]![b]!;
      }
      return s;
    }),
  );
  return { p, g, G };
}
