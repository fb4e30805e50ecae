// Frozen versions of the branch-and-bound (src/branch.ts) that tests compare the current search against, bit
// for bit: the search before its subtree cuts and, with rankByCost false, before its bounds ranked models from one
// cost sort per search.
import { SELECT_MAX } from "../src/route-fill.js";
import { SubsetLp } from "../src/subset-lp.js";

/**
 * The branch-and-bound as before it cut subtrees that cannot carry all traffic or meet the budget
 * (src/branch.ts at 4200e89), verbatim but for the class name, the imports and the rankByCost switch. The new search must
 * return the same deployment bit for bit and compute the same bounds, in the same order, at every node
 * outside the subtrees it cut.
 */
export interface SubsetResult {
  value: number;
  weights: Float64Array;
}

export class ReferenceSubsetSearch {
  /**
   * false: every bound's routing LP sorts its models by cost itself (route.solve without a cost order), which is
   * the search as before 0.1.1 (src/branch.ts at 72dc086): that version differs from this one only in passing
   * the cost order (and in the bookkeeping that builds it, which no result reads).
   */
  constructor(private readonly rankByCost = true) {}

  private readonly lp = new SubsetLp();
  private perm = new Int32Array(0);
  private idx = new Int32Array(0);
  private bestIdx = new Int32Array(0);
  private bestP = new Float64Array(0);
  private base = new Float64Array(0);
  /** Positions 0..n-1 by cost (ties by position), sorted once per search: every bound ranks its LP's models from it. */
  private byCost = new Int32Array(0);
  /** Each position's index in the current bound's LP (valid where `mark` equals `stamp`). */
  private slot = new Int32Array(0);
  private mark = new Float64Array(0);
  private stamp = 0;
  /** The current LP's cost order, up to where its cheapest fill places all traffic. */
  private cord = new Int32Array(0);
  private slope = 0;
  private muScale = 1;
  private incumbent = Number.NEGATIVE_INFINITY;
  private threshold = Number.POSITIVE_INFINITY;
  private found = false;
  private foundValue = Number.NaN;
  /** Nodes bounded in the last search (diagnostics for tests and benches). */
  nodes = 0;

  private grow(n: number): void {
    this.lp.grow(n);
    if (this.perm.length >= n) return;
    const m = Math.max(n, 16);
    this.base = new Float64Array(m);
    this.byCost = new Int32Array(m);
    this.slot = new Int32Array(m);
    this.mark = new Float64Array(m);
    this.cord = new Int32Array(m);
    this.perm = new Int32Array(m);
    this.idx = new Int32Array(m);
    this.bestIdx = new Int32Array(m);
    this.bestP = new Float64Array(m);
  }

  /**
   * Best s-subset of models 0..n-1 (positions in the caller's enumeration order) under budget b; undefined
   * when no s-subset meets b. `relaxed` holds the relaxation's weights over the same positions.
   */
  solve(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    relaxed: ArrayLike<number>,
  ): SubsetResult | undefined {
    this.grow(n);
    this.nodes = 0;
    let uMax = Number.NEGATIVE_INFINITY;
    let uMin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      uMax = Math.max(uMax, u[i] as number);
      uMin = Math.min(uMin, u[i] as number);
    }
    this.muScale = Math.max(uMax - uMin, 1e-6) / 8;
    const byCost = Array.from({ length: n }, (_, i) => i).sort((x, y) => (c[x] as number) - (c[y] as number) || x - y);
    for (let i = 0; i < n; i++) this.byCost[i] = byCost[i] as number;
    // Phase 1: the optimal value, exploring promising models first.
    const perm = this.perm;
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (x, y) => (relaxed[y] as number) - (relaxed[x] as number) || (u[y] as number) - (u[x] as number) || x - y,
    );
    for (let i = 0; i < n; i++) perm[i] = order[i] as number;
    this.incumbent = Number.NEGATIVE_INFINITY;
    this.threshold = Number.POSITIVE_INFINITY;
    this.found = false;
    this.descend(u, c, a, n, b, s, 0, 0, false);
    if (!this.found) return undefined;
    // Phase 2: the first subset in enumeration order that attains it.
    for (let i = 0; i < n; i++) perm[i] = i;
    this.threshold = this.incumbent - 1e-12;
    this.found = false;
    this.descend(u, c, a, n, b, s, 0, 0, true);
    if (!this.found) return undefined;
    const weights = new Float64Array(n);
    for (let j = 0; j < s; j++) weights[this.bestIdx[j] as number] = this.bestP[j] as number;
    return { value: this.foundValue, weights };
  }

  /** Depth-first over subsets (positions perm[start..n)); `first`: stop at the first leaf >= threshold. */
  private descend(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    k: number,
    start: number,
    first: boolean,
  ): boolean {
    const { lp, idx, perm } = this;
    const last = n - (s - k);
    for (let j = start; j <= last; j++) {
      idx[k] = perm[j] as number;
      if (k + 1 === s) {
        if (lp.solve(u, c, a, idx, s, b) !== "ok") continue;
        const v = lp.route.value;
        if (first ? v >= this.threshold : v > this.incumbent) {
          if (!first) this.incumbent = v;
          this.found = true;
          this.foundValue = v;
          for (let q = 0; q < s; q++) {
            this.bestIdx[q] = idx[q] as number;
            this.bestP[q] = lp.sp[q] as number;
          }
          if (first) return true;
        }
        continue;
      }
      // The 1e-13 absorbs the rounding of a bound that equals a completion's value.
      const cut = first ? this.threshold - 1e-13 - Number.MIN_VALUE : this.incumbent + 1e-13;
      const bound = this.bound(u, c, a, n, b, s, k, j, cut);
      if (first ? bound + 1e-13 < this.threshold : bound - 1e-13 <= this.incumbent) continue;
      if (this.descend(u, c, a, n, b, s, k + 1, j + 1, first)) return true;
    }
    return false;
  }

  /**
   * Upper bound on completions of idx[0..k] by s - k - 1 more of positions perm[j+1..n) (index j already
   * in idx[k]); -Infinity when none is feasible. Stops early once the bound cannot pass `cut`.
   */
  private bound(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    k: number,
    j: number,
    cut: number,
  ): number {
    this.nodes++;
    const { idx, perm, base, slot, mark, cord } = this;
    const { su, sc, sa, sp, route } = this.lp;
    const stamp = ++this.stamp;
    const f = k + 1;
    let m = 0;
    for (let q = 0; q < f; q++) {
      const i = idx[q] as number;
      mark[i] = stamp;
      slot[i] = m;
      base[m] = u[i] as number;
      sc[m] = c[i] as number;
      sa[m++] = a[i] as number;
    }
    for (let r = j + 1; r < n; r++) {
      const i = perm[r] as number;
      mark[i] = stamp;
      slot[i] = m;
      base[m] = u[i] as number;
      sc[m] = c[i] as number;
      sa[m++] = a[i] as number;
    }
    const left = s - f;
    const ranked = this.rankByCost && m > SELECT_MAX;
    // mu prices the row sum_{free} d / alpha <= left (each free model adds at most 1): any mu >= 0 bounds.
    const at = (mu: number): number => {
      for (let q = 0; q < m; q++) su[q] = q < f ? (base[q] as number) : (base[q] as number) - mu / (sa[q] as number);
      const len = ranked ? this.costPrefix(c, n, stamp) : 0;
      if (route.solve(su, sc, sa, m, b, sp, ranked ? cord : undefined, len) !== "ok") return Number.NEGATIVE_INFINITY;
      let used = 0;
      for (let q = f; q < m; q++) used += (sp[q] as number) / (sa[q] as number);
      this.slope = left - used;
      return route.value + mu * left;
    };
    let best = at(0);
    if (best <= cut || this.slope >= -1e-12) return best;
    let lo = 0;
    let hi = this.muScale;
    for (let it = 0; it < 40; it++) {
      const v = at(hi);
      if (v < best) best = v;
      if (best <= cut || this.slope >= -1e-12) break;
      lo = hi;
      hi *= 2;
    }
    if (best <= cut || this.slope < -1e-12) return best;
    for (let it = 0; it < 12; it++) {
      const mid = (lo + hi) / 2;
      const v = at(mid);
      if (v < best) best = v;
      if (best <= cut) return best;
      if (Math.abs(this.slope) <= 1e-12) break;
      if (this.slope < 0) lo = mid;
      else hi = mid;
    }
    return best;
  }

  /**
   * Ranks the current LP's models (positions marked with `stamp`, LP index `slot`) into `cord` by cost,
   * then higher reward `su`, then LP index (the order `sortByCost` gives), from the pool's one cost sort:
   * each run of equal costs is ranked by insertion. Stops after the run in which the cheapest fill
   * places all traffic (its remainder tracked exactly as `settle` does); returns how many are ranked.
   */
  private costPrefix(c: Float64Array, n: number, stamp: number): number {
    const { byCost, mark, slot, cord } = this;
    const { su, sa } = this.lp;
    let len = 0;
    let rem = 1;
    let r = 0;
    while (r < n && rem > 0) {
      const i = byCost[r++] as number;
      if (mark[i] !== stamp) continue;
      const cost = c[i] as number;
      const start = len;
      cord[len++] = slot[i] as number;
      for (; r < n; r++) {
        const k = byCost[r] as number;
        if ((c[k] as number) !== cost) break;
        if (mark[k] !== stamp) continue;
        const q = slot[k] as number;
        const uq = su[q] as number;
        let p = len++;
        while (p > start) {
          const w = cord[p - 1] as number;
          const uw = su[w] as number;
          if (uq > uw || (uq === uw && q < w)) {
            cord[p] = w;
            p--;
          } else break;
        }
        cord[p] = q;
      }
      for (let t = start; t < len && rem > 0; t++) {
        const av = sa[cord[t] as number] as number;
        rem -= av < rem ? av : rem;
      }
    }
    return len;
  }
}
