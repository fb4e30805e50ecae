import type { Rng } from "@routekit/core";

/**
 * Index of the largest of scores[0..n), ties broken uniformly at random (reservoir sampling, one
 * RNG draw per tie met). +Infinity is allowed; NaN never wins.
 */
export function argmaxRandomTies(scores: Float64Array, n: number, rng: Rng): number {
  let best = -1;
  let bestV = Number.NEGATIVE_INFINITY;
  let ties = 0;
  for (let i = 0; i < n; i++) {
    const v = scores[i] as number;
    if (v > bestV || best < 0) {
      if (Number.isNaN(v)) continue;
      best = i;
      bestV = v;
      ties = 1;
    } else if (v === bestV) {
      ties++;
      if (rng.int(ties) === 0) best = i;
    }
  }
  return best < 0 ? 0 : best;
}

/**
 * Among the arms whose `visited(i)` is false, one uniformly at random; -1 when all are visited.
 * PAK-UCB and RFF-UCB play every unvisited arm first (spec §2.2, P11): this also avoids
 * inf + 0 * inf = NaN when eta = 0.
 */
export function pickUnvisited(n: number, count: (i: number) => number, rng: Rng): number {
  let unvisited = 0;
  for (let i = 0; i < n; i++) if (count(i) === 0) unvisited++;
  if (unvisited === 0) return -1;
  let k = unvisited === 1 ? 0 : rng.int(unvisited);
  for (let i = 0; i < n; i++) {
    if (count(i) === 0) {
      if (k === 0) return i;
      k--;
    }
  }
  return -1;
}
