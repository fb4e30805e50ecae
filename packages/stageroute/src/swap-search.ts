/**
 * The improvement phase of a DeployOPT search stopped at its node limit (deploy.ts): a deterministic local
 * search over subsets of at most s models, from the subset the stopped search left (its incumbent, or the
 * fallback picks), evaluating each candidate subset with the package's own routing LP (`SubsetLp`).
 *
 * Why: the depth-first branch-and-bound explores the models in the relaxation's order, so when it stops
 * early its incumbent differs from an optimum in a few models deep in the tree that it never reached (on
 * the bench's rate-limited pools, 10-16% of the value at M_max 16). Exchanging one model at a time repairs
 * exactly that, and every candidate is a subset whose routing LP passes (mass and budget), so the result is
 * as feasible as a leaf of the search: at most s models, within the caps, within the budget given.
 *
 * Moves, for each model j outside the set, in `rank` order (cyclically, from where the last move was made):
 * when the set has fewer than s models (models the routing gives no weight are dropped: they hold a slot
 * and carry nothing), add j (one LP; a superset is never worse); otherwise first the set with j added
 * (s + 1 models: a bound on every swap of j, whose sets are subsets of it, so a j that cannot gain costs one
 * LP), then, if that bound gains, swap j for each member in turn (s LPs) and keep the best swap. A move is
 * made when its value exceeds the current one by more than 1e-12 (relative, at least absolute): each move
 * gains, so the search cannot cycle. It ends at a local optimum (a full turn of `rank` without a move) or
 * after `maxEvals` LPs, whichever comes first; both counts are deterministic, so replicas end at the same
 * subset. The values of the sets with one model added, from its last turn, rank the models that the exact
 * search over a small pool takes in next (`candidates`, deploy.ts).
 */
import type { SubsetLp } from "./subset-lp.js";

export interface SwapResult {
  value: number;
  /** The routing over positions 0..n-1 (zero outside the set). */
  weights: Float64Array;
}

export class SwapSearch {
  /** Routing LPs solved by the last `improve`. */
  evals = 0;
  /** Moves made by the last `improve`. */
  moves = 0;
  private set = new Int32Array(16);
  private setP = new Float64Array(16);
  private trial = new Int32Array(16);
  private bestSet = new Int32Array(16);
  private bestP = new Float64Array(16);
  private inSet = new Uint8Array(16);
  /** value of the set with position j added, and the move count it was computed at (see `candidates`). */
  private gain = new Float64Array(16);
  private gainAt = new Int32Array(16);

  private grow(n: number): void {
    if (this.inSet.length >= n) return;
    const m = Math.max(n, this.inSet.length * 2);
    this.set = new Int32Array(m);
    this.setP = new Float64Array(m);
    this.trial = new Int32Array(m);
    this.bestSet = new Int32Array(m);
    this.bestP = new Float64Array(m);
    this.inSet = new Uint8Array(m);
    this.gain = new Float64Array(m);
    this.gainAt = new Int32Array(m);
  }

  /**
   * Up to k positions outside the last `improve`'s final set, those whose addition to it raises the value
   * most first (as computed during the search's last turn; the others after them in `rank` order).
   */
  candidates(k: number, rank: ArrayLike<number>, n: number): number[] {
    const { inSet, gain, gainAt } = this;
    const fresh: number[] = [];
    const rest: number[] = [];
    for (let p = 0; p < n; p++) {
      const j = rank[p] as number;
      if (inSet[j] === 1) continue;
      if (gainAt[j] === this.moves && gain[j] > Number.NEGATIVE_INFINITY) fresh.push(j);
      else rest.push(j);
    }
    // Stable: equal gains keep the rank order.
    fresh.sort((x, y) => (gain[y] as number) - (gain[x] as number));
    return fresh.concat(rest).slice(0, k);
  }

  /**
   * Improves the subset with routing `start` (its positive weights; value `value` under budget b) over
   * positions 0..n-1 by at most `maxEvals` routing LPs; undefined when no move was made.
   */
  improve(
    lp: SubsetLp,
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    start: ArrayLike<number>,
    value: number,
    rank: ArrayLike<number>,
    maxEvals: number,
  ): SwapResult | undefined {
    this.grow(n);
    this.evals = 0;
    this.moves = 0;
    const { set, setP, trial, bestSet, bestP, inSet } = this;
    inSet.fill(0, 0, n);
    this.gainAt.fill(-1, 0, n);
    let size = 0;
    for (let r = 0; r < n; r++) {
      const w = start[r] as number;
      if (w > 0 && size < s) {
        set[size] = r;
        setP[size++] = w;
        inSet[r] = 1;
      }
    }
    let cur = value;
    let since = 0;
    let p = 0;
    while (this.evals < maxEvals && since < n) {
      const j = rank[p] as number;
      p = p + 1 === n ? 0 : p + 1;
      since++;
      if (inSet[j] === 1) continue;
      let best = Number.NEGATIVE_INFINITY;
      let bestSize = 0;
      // The set with j added first: the add move when a slot is free; otherwise a bound on every swap of j
      // (each is a subset of it, and a routing over a subset is one over the superset), so that a j which
      // cannot raise the value costs one LP instead of s. Then the swaps of j for each member. The sets stay
      // sorted by position, so the LP sees its models in one canonical order whatever the moves before.
      const outs = size < s ? 0 : size;
      for (let o = -1; o < outs && this.evals < maxEvals; o++) {
        const drop = o < 0 ? -1 : (set[o] as number);
        let t = 0;
        let placed = false;
        for (let q = 0; q < size; q++) {
          const i = set[q] as number;
          if (i === drop) continue;
          if (!placed && j < i) {
            trial[t++] = j;
            placed = true;
          }
          trial[t++] = i;
        }
        if (!placed) trial[t++] = j;
        this.evals++;
        if (lp.solve(u, c, a, trial, t, b) !== "ok") {
          if (o < 0) break;
          continue;
        }
        const v = lp.route.value;
        if (o < 0) {
          this.gain[j] = v;
          this.gainAt[j] = this.moves;
        }
        if (o < 0 && size === s) {
          // The bound: no swap of j can gain (the same 1e-12 as a move).
          if (!(v > cur + 1e-12 * Math.max(1, Math.abs(cur)))) break;
          continue;
        }
        if (v > best) {
          best = v;
          bestSize = t;
          for (let q = 0; q < t; q++) {
            bestSet[q] = trial[q] as number;
            bestP[q] = lp.sp[q] as number;
          }
        }
      }
      if (!(best > cur + 1e-12 * Math.max(1, Math.abs(cur)))) continue;
      // The move: the new set, without the models its routing leaves empty.
      for (let q = 0; q < size; q++) inSet[set[q] as number] = 0;
      size = 0;
      for (let q = 0; q < bestSize; q++) {
        if ((bestP[q] as number) <= 0) continue;
        set[size] = bestSet[q] as number;
        setP[size++] = bestP[q] as number;
        inSet[bestSet[q] as number] = 1;
      }
      cur = best;
      since = 0;
      this.moves++;
    }
    if (this.moves === 0) return undefined;
    const weights = new Float64Array(n);
    for (let q = 0; q < size; q++) weights[set[q] as number] = setP[q] as number;
    return { value: cur, weights };
  }
}
