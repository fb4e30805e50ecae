import type { Rng } from "@routekit/core";

/**
 * Among the arms whose `count(i)` is 0, one uniformly at random; -1 when all have data. PAK-UCB and
 * RFF-UCB play every unvisited arm first, as the reference code does: the paper's +Infinity index
 * for an empty arm would give Infinity + 0 * Infinity = NaN when the exploration is 0.
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
