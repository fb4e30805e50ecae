/**
 * Exact DeployOPT for pools too large to enumerate: branch-and-bound over s-subsets with LP bounds.
 *
 * A node fixes a prefix of chosen models; every completion is a subset of the prefix plus the models
 * still eligible, each with d_m <= alpha_m and at most s of them, so sum_m d_m / alpha_m <= s. Relaxing
 * that row with a multiplier mu >= 0 gives, for any mu, the upper bound
 *   mu s + RouteOPT(u_m - mu / alpha_m) over the prefix and the eligible models,
 * solved exactly by the routing LP. The node's bound is the smaller of mu = 0 (the plain relaxation) and
 * the mu that minimises the root's bound (a convex function of mu, found by golden-section search).
 *
 * Phase 1 finds the optimal value V: depth-first in order of the root relaxation's weights (then reward),
 * cutting subtrees whose bound is not above the incumbent. Phase 2 returns the first subset in the
 * caller's enumeration order whose value is within 1e-12 of V, cutting subtrees whose bound is below
 * that: the same subset the plain enumeration keeps (it keeps the first best, replacing only on a strict
 * improvement above 1e-12), barring values that differ by less than 1e-12 without being equal.
 *
 * Both phases also skip a subtree none of whose leaves can pass the routing LP (caps summing to 1, the
 * cheapest fill within budget): the LP bound relaxes the cardinality row, so it cannot see that a few
 * chosen models of small caps leave no room for the rest, and with no incumbent yet (or when no subset
 * meets the budget at all) the search would otherwise enumerate such subtrees leaf by leaf. The skipped
 * leaves would have been skipped anyway, so the incumbent, the threshold, every other bound and the
 * returned subset are unchanged (`shortOfMass`, `overBudget`).
 *
 * A node limit (`limit`, counted in `visits`, never in time, so that replicas stop at the same node) ends
 * the search early. A visit is any node of the search tree the search examines: a leaf (its routing LP), or a
 * prefix, whether a feasibility test cuts it or it gets an LP bound; counting only the bounded ones would
 * leave the tests' work (O(n log n) per prefix, n prefixes per bounded node) uncounted. The result is then
 * the incumbent (phase 1's best so far, or phase 1's optimum when phase 2 was cut short: optimal, but not
 * necessarily the first in enumeration order) and `stopped` is set.
 * Below the limit the search is the same, node for node.
 *
 * A `floor` turns the search into the improvement phase's exact search over a small pool (deploy.ts): only
 * subsets worth more than the floor count, and the first pass's optimum is returned as it is.
 */
import { FULL, SELECT_MAX, SUPPORT_EPS } from "./route-fill.js";
import { relaxedOrder, SubsetLp } from "./subset-lp.js";

/** Most entries of `SubsetSearch`'s table of largest caps per suffix (8 MB of doubles). */
const TOP_MAX = 1 << 20;

export interface SubsetResult {
  value: number;
  weights: Float64Array;
}

export class SubsetSearch {
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
  /** Models ranked into `cord` by the last `costPrefix`, whether two of them had equal costs, and whether `boundAt` must rank again. */
  private cordLen = 0;
  private costTies = false;
  private cordTied = true;
  /** The gathered LP's smallest and largest reward, smallest cap and largest |cost| (see `slack`). */
  private nuMin = 0;
  private nuMax = 0;
  private naMin = 1;
  private ncMax = 0;
  /** Whether the search's rewards and costs are finite and its caps positive (finite), so that `freeAt` may bound. */
  private plain = false;
  /** Dual prices (see RouteSolver.dualLambda) of the last LP solved at each step of `bound`'s doubling search (0: mu = 0). */
  private lam = new Float64Array(42).fill(Number.NaN);
  private tau = new Float64Array(42).fill(Number.NaN);
  private muScale = 1;
  /** Costs, caps and the reduced-cost fill order of the current budget test (see `overBudget`). */
  private lc = new Float64Array(0);
  private la = new Float64Array(0);
  private lk = new Float64Array(0);
  private lord = new Int32Array(0);
  /** `freeAt`'s ranking by LP index: reduced rewards, costs, caps, rewards su, probabilities; and its fill order. */
  private fk = new Float64Array(0);
  private fc = new Float64Array(0);
  private fa = new Float64Array(0);
  private fu = new Float64Array(0);
  private fp = new Float64Array(0);
  private ford = new Int32Array(0);
  /**
   * Per suffix perm[r..n) of the current phase (see `freeAt`): the largest reward and cap among the models
   * whose caps are at most the pool's median cap (hiU, hiA) and among the others (hiU2, hiA2); the smallest
   * reward and cap of all.
   */
  private hiU = new Float64Array(0);
  private hiA = new Float64Array(0);
  private hiU2 = new Float64Array(0);
  private hiA2 = new Float64Array(0);
  /** Per suffix perm[r..n): the first position of a model in the large-cap class, and in the other (n: none). */
  private nextBig = new Int32Array(0);
  private nextSmall = new Int32Array(0);
  private loU = new Float64Array(0);
  private loA = new Float64Array(0);
  /** The largest eligible caps per suffix of the current phase's order (see `topCaps`), `topW` per row. */
  private top = new Float64Array(0);
  private topW = 0;
  private incumbent = Number.NEGATIVE_INFINITY;
  private threshold = Number.POSITIVE_INFINITY;
  private found = false;
  private foundValue = Number.NaN;
  /** Nodes bounded in the last search (diagnostics for tests and benches). */
  nodes = 0;
  /**
   * Cut subtrees none of whose leaves can carry all traffic or meet the budget (on by default; the
   * result is the same either way, only the nodes visited differ: tests compare against the search
   * without them).
   */
  feasibilityCuts = true;
  /**
   * Bound the nodes of a search without a budget (b = +Infinity) by ranking the routing fill straight from
   * the pool (`freeAt`; on by default; the same bounds bit for bit as the routing LP's: tests compare
   * against the search without it).
   */
  directFill = true;
  /**
   * Compute each bound only as far as its cut decision needs (on by default): a bound stops its multiplier
   * search once no multiplier left can bring it to the cut (`keeps`), and an LP whose value the previous
   * LP's dual prices already bound below the cut is not solved (`boundAt`). The search cuts and keeps the
   * same nodes, so nodes, visits and the subset are the same; only the values of bounds that do not
   * decide anything differ (tests compare against the search without them).
   */
  boundShortcuts = true;
  /** Subtrees the last search cut because no completion meets the budget (see `overBudget`). */
  budgetCuts = 0;
  /** Nodes of the search tree examined in the last search: leaves, cut prefixes and bounded prefixes. */
  visits = 0;
  /** Whether the last search stopped at its node limit (its result is then an incumbent, or undefined). */
  stopped = false;
  /**
   * Whether the last search proved its value optimal: phase 1 ended, whether or not phase 2 was cut short
   * (the improvement phase at the node limit skips such a subset: no exchange can beat it).
   */
  proven = false;
  private limit = Number.POSITIVE_INFINITY;

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
    this.lc = new Float64Array(m);
    this.la = new Float64Array(m);
    this.lk = new Float64Array(m);
    this.lord = new Int32Array(m);
    this.fk = new Float64Array(m);
    this.fc = new Float64Array(m);
    this.fa = new Float64Array(m);
    this.fu = new Float64Array(m);
    this.fp = new Float64Array(m);
    this.ford = new Int32Array(m);
    this.hiU = new Float64Array(m + 1);
    this.hiA = new Float64Array(m + 1);
    this.hiU2 = new Float64Array(m + 1);
    this.hiA2 = new Float64Array(m + 1);
    this.nextBig = new Int32Array(m + 1);
    this.nextSmall = new Int32Array(m + 1);
    this.loU = new Float64Array(m + 1);
    this.loA = new Float64Array(m + 1);
  }

  /**
   * Best s-subset of models 0..n-1 (positions in the caller's enumeration order) under budget b; undefined
   * when no s-subset meets b. `relaxed` holds the relaxation's weights over the same positions. After
   * `limit` visits the search stops (`stopped`) and returns its incumbent, or undefined if it has none.
   * With a finite `floor` (the improvement phase at the node limit, deploy.ts) the search seeks only a subset
   * worth more than `floor`: phase 1 starts with `floor` as its incumbent, so it cuts every subtree that cannot
   * beat it, and phase 2 is skipped (any improving subset will do); undefined when none beats it. The default
   * leaves the search exactly as it was.
   */
  solve(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    relaxed: ArrayLike<number>,
    limit = Number.POSITIVE_INFINITY,
    floor = Number.NEGATIVE_INFINITY,
  ): SubsetResult | undefined {
    this.grow(n);
    this.nodes = 0;
    this.visits = 0;
    this.budgetCuts = 0;
    this.stopped = false;
    this.proven = false;
    this.limit = limit;
    let uMax = Number.NEGATIVE_INFINITY;
    let uMin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      uMax = Math.max(uMax, u[i] as number);
      uMin = Math.min(uMin, u[i] as number);
    }
    this.muScale = Math.max(uMax - uMin, 1e-6) / 8;
    let plain = true;
    for (let i = 0; i < n && plain; i++) {
      plain = Number.isFinite(u[i] as number) && Number.isFinite(c[i] as number) && (a[i] as number) > 0;
    }
    this.plain = plain;
    const byCost = Array.from({ length: n }, (_, i) => i).sort((x, y) => (c[x] as number) - (c[y] as number) || x - y);
    for (let i = 0; i < n; i++) this.byCost[i] = byCost[i] as number;
    // Phase 1: the optimal value, exploring promising models first.
    const perm = this.perm;
    const order = relaxedOrder(relaxed, u, n);
    for (let i = 0; i < n; i++) perm[i] = order[i] as number;
    this.incumbent = floor;
    this.threshold = Number.POSITIVE_INFINITY;
    this.found = false;
    this.topCaps(a, n, s);
    this.suffixBounds(u, a, n);
    this.descend(u, c, a, n, b, s, 0, 0, false);
    this.proven = !this.stopped;
    if (!this.found) return undefined;
    if (!this.stopped && floor === Number.NEGATIVE_INFINITY) {
      // Phase 2: the first subset in enumeration order that attains it.
      for (let i = 0; i < n; i++) perm[i] = i;
      this.threshold = this.incumbent - 1e-12;
      this.found = false;
      this.topCaps(a, n, s);
      this.suffixBounds(u, a, n);
      this.descend(u, c, a, n, b, s, 0, 0, true);
      if (!this.found) {
        if (!this.stopped) return undefined;
        // Phase 2 writes bestIdx only when it succeeds: it still holds phase 1's optimum.
        this.foundValue = this.incumbent;
      }
    }
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
      if (this.visits >= this.limit) {
        this.stopped = true;
        return true;
      }
      this.visits++;
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
      // A subtree none of whose leaves can carry all traffic or meet the budget changes nothing: its
      // leaves are all skipped.
      if (
        this.feasibilityCuts &&
        (this.shortOfMass(a, n, s, k, j) ||
          // Once there is an incumbent (or a threshold) the LP bound cuts these too, as its multiplier grows.
          (!first && !this.found && b < Number.POSITIVE_INFINITY && this.overBudget(c, a, n, b, s, k, j)))
      ) {
        this.budgetCuts++;
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
    const f = k + 1;
    const left = s - f;
    const m = f + n - j - 1;
    const ranked = m > SELECT_MAX;
    // Without a budget the routing LP is one fill by reward, which `freeAt` ranks straight from the pool
    // (stamp 0: nothing gathered).
    const direct = b === Number.POSITIVE_INFINITY && this.plain && this.directFill;
    const stamp = direct ? 0 : this.gather(u, c, a, n, j, f, ranked);
    let best = this.boundAt(0, u, c, a, n, b, j, m, f, left, ranked, stamp, cut, 0);
    if (best <= cut || this.slope >= -1e-12) return best;
    let lo = 0;
    let hi = this.muScale;
    let vLo = best;
    let gLo = this.slope;
    let vHi = best;
    for (let it = 0; it < 40; it++) {
      const v = this.boundAt(hi, u, c, a, n, b, j, m, f, left, ranked, stamp, cut, it + 1);
      if (v < best) best = v;
      if (best <= cut || this.slope >= -1e-12) {
        vHi = v;
        break;
      }
      lo = hi;
      vLo = v;
      gLo = this.slope;
      hi *= 2;
    }
    if (best <= cut || this.slope < -1e-12) return best;
    let gHi = this.slope;
    for (let it = 0; it < 12; it++) {
      if (this.boundShortcuts && this.keeps(lo, vLo, gLo, hi, vHi, gHi, cut + this.slack(b, hi))) return best;
      const mid = (lo + hi) / 2;
      const v = this.boundAt(mid, u, c, a, n, b, j, m, f, left, ranked, stamp, cut, -1);
      if (v < best) best = v;
      if (best <= cut) return best;
      if (Math.abs(this.slope) <= 1e-12) break;
      if (this.slope < 0) {
        lo = mid;
        vLo = v;
        gLo = this.slope;
      } else {
        hi = mid;
        vHi = v;
        gHi = this.slope;
      }
    }
    return best;
  }

  /**
   * How far below its optimum a routing LP of the current node at a multiplier up to `hi` may come out: 0 without a
   * budget (one fill, exact). With one, the Newton iteration stops within 1e-13 of the magnitudes of its fills'
   * values and of the multiplier x times their costs. The value as a function of the budget is concave from the
   * cheapest fill's cost c0 on, so x (a chord of it across b) is at most the range of the rewards over b - c0; the
   * rewards at multipliers up to hi lie within [uMin - hi / aMin, uMax]; the routings behind the lines `keeps`
   * draws may spend up to 1e-12 |b| more than b, worth at most x times that. 100 times those bounds; Infinity (no
   * shortcut) when the budget does not exceed c0.
   */
  private slack(b: number, hi: number): number {
    if (b === Number.POSITIVE_INFINITY) return 0;
    const room = b - this.lp.route.cheapCost;
    if (!(room > 0)) return Number.POSITIVE_INFINITY;
    const { nuMin, nuMax, naMin, ncMax } = this;
    const low = nuMin - hi / naMin;
    const big = Math.max(Math.abs(low), Math.abs(nuMax));
    const x = (nuMax - low) / room;
    return 1e-11 * (big + x * (ncMax + Math.abs(b)));
  }

  /**
   * Whether no multiplier in [lo, hi] can bring the bound down to `cut`: the bound at mu is at least the
   * value at mu of the Lagrangian of the routing found at lo (the line through vLo with slope gLo), and
   * of the one found at hi, so at least the smaller of their maximum over [lo, hi] (at an end or where
   * they cross). A margin of a relative 1e-9, far above the rounding of the values and slopes and the
   * routing LP's tolerance, keeps every value the bisection would still compute above the cut.
   */
  private keeps(lo: number, vLo: number, gLo: number, hi: number, vHi: number, gHi: number, cut: number): boolean {
    const margin = 1e-9 * (1 + Math.abs(cut) + Math.abs(vLo) + Math.abs(vHi));
    let low = Math.min(Math.max(vLo, vHi + gHi * (lo - hi)), Math.max(vLo + gLo * (hi - lo), vHi));
    if (gLo < gHi) {
      const x = (vHi - vLo - gHi * hi + gLo * lo) / (gLo - gHi);
      if (x > lo && x < hi) low = Math.min(low, Math.max(vLo + gLo * (x - lo), vHi + gHi * (x - hi)));
    }
    return low > cut + margin;
  }

  /**
   * Gathers `bound`'s LP over idx[0..f) and positions perm[j+1..n) into base, lp.sc, lp.sa (marking them
   * with a new stamp, their LP index in `slot`), and ranks their cost order when the LP is large enough to
   * use it (see `costPrefix`). Returns the stamp.
   */
  private gather(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    j: number,
    f: number,
    ranked: boolean,
  ): number {
    const { idx, perm, base, slot, mark } = this;
    const { sc, sa } = this.lp;
    const stamp = ++this.stamp;
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
    // The LP's reward range, smallest cap and largest |cost| (see `slack`).
    let uMin = Number.POSITIVE_INFINITY;
    let uMax = Number.NEGATIVE_INFINITY;
    let aMin = Number.POSITIVE_INFINITY;
    let cMax = 0;
    for (let q = 0; q < m; q++) {
      const v = base[q] as number;
      if (v < uMin) uMin = v;
      if (v > uMax) uMax = v;
      const av = sa[q] as number;
      if (av < aMin) aMin = av;
      const cv = Math.abs(sc[q] as number);
      if (cv > cMax) cMax = cv;
    }
    this.nuMin = uMin;
    this.nuMax = uMax;
    this.naMin = aMin;
    this.ncMax = cMax;
    this.cordTied = true;
    if (ranked) {
      this.costPrefix(c, n, stamp);
      // Without equal costs among the ranked models, the order does not depend on the rewards su, so
      // the one ranked here holds at every mu.
      this.cordTied = this.costTies;
    }
    return stamp;
  }

  /**
   * `bound`'s upper bound at multiplier mu over the m models it gathered (base, lp.sc, lp.sa; the first f
   * fixed), and its slope in mu into `slope`. mu prices the row sum_{free} d / alpha <= left (each free
   * model adds at most 1): any mu >= 0 bounds. A method rather than a closure in `bound`, so that a node
   * creates no function object (the builds keep names, which would also wrap such a closure in a `__name` call).
   */
  private boundAt(
    mu: number,
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    j: number,
    m: number,
    f: number,
    left: number,
    ranked: boolean,
    stamp: number,
    cut: number,
    step: number,
  ): number {
    if (stamp === 0) {
      const v = this.freeAt(mu, u, c, a, j, m, f, left);
      if (!Number.isNaN(v)) return v;
      // A reward su overflowed (a tiny cap): the solver's own path, over the gathered LP.
      stamp = this.gather(u, c, a, n, j, f, ranked);
    }
    const { base, cord } = this;
    const { su, sc, sa, sp, route } = this.lp;
    for (let q = 0; q < m; q++) su[q] = q < f ? (base[q] as number) : (base[q] as number) - mu / (sa[q] as number);
    if (step >= 0 && this.boundShortcuts && Number.isFinite(b)) {
      // The dual prices of the last LP solved at this step of the multiplier search (another node's)
      // bound this one's from above: when that bound already cuts, so does the LP's value, by far more
      // than its rounding and tolerance (a relative 1e-9), and the search cuts here as it would have.
      const lambda = this.lam[step] as number;
      const tau = this.tau[step] as number;
      if (lambda >= 0) {
        // The budget with the routing LP's tolerance (it accepts routings that spend up to b + 1e-12 |b|),
        // so that the bound holds for every routing it may return; the margin scales with the terms summed.
        const priced = lambda * (b + 1e-12 * Math.abs(b));
        let ub = priced + tau;
        for (let q = 0; q < m; q++) {
          const d = (su[q] as number) - lambda * (sc[q] as number) - tau;
          if (d > 0) ub += (sa[q] as number) * d;
        }
        ub += mu * left;
        const margin = 1e-9 * (1 + Math.abs(cut) + Math.abs(ub) + priced + Math.abs(tau) + mu * left);
        if (ub <= cut - margin) return ub;
      }
    }
    // The cost order: ranked once per node (`gather`) unless equal costs make it depend on mu.
    if (ranked && this.cordTied) this.costPrefix(c, n, stamp);
    if (route.solve(su, sc, sa, m, b, sp, ranked ? cord : undefined, ranked ? this.cordLen : 0) !== "ok")
      return Number.NEGATIVE_INFINITY;
    if (step >= 0) {
      this.lam[step] = route.dualLambda;
      this.tau[step] = route.dualTau;
    }
    let used = 0;
    for (let q = f; q < m; q++) used += (sp[q] as number) / (sa[q] as number);
    this.slope = left - used;
    return route.value + mu * left;
  }

  /**
   * `boundAt` without a budget (b = +Infinity), with the same result bit for bit and no gathering: the
   * routing LP over the node's m models (LP index q: idx[q] for q < f, then perm[j + 1 + q - f]) is then
   * the fill by reward su (the solver's `fillAt(0)`: by su, then cheaper, then LP index; ranked here as
   * `rankAt` ranks it, in one pass over the pool's positions) written out by `pour`, whose value sums
   * su q * p_q over the models that receive traffic in LP order (probabilities under SUPPORT_EPS
   * dropped), exactly as the solver's pass over all m models does (the others add zeros). The caps'
   * total is summed in LP order as the solver's mass test does. Used only when every reward and cost is
   * finite and every cap positive (`plain`); NaN (the caller gathers the LP and solves it) when a reduced
   * reward su overflows, where the solver's sums over all m models would see it.
   */
  private freeAt(
    mu: number,
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    j: number,
    m: number,
    f: number,
    left: number,
  ): number {
    const { idx, perm, fk, fc, fa, fu, ford } = this;
    let len = 0;
    let mass = 0;
    let total = 0;
    let kLast = 0;
    let cLast = 0;
    const shift = j + 1 - f;
    const { hiU, hiA, hiU2, hiA2, loU, loA, nextBig, nextSmall } = this;
    for (let q = 0; q < m; q++) {
      let i: number;
      if (q < f) i = idx[q] as number;
      else {
        let r = q + shift;
        // Once the ranked prefix carries all traffic and the caps pass the mass test (a sum of positive
        // caps only grows), a model left cannot rank ahead of its last when its cap class's bound on their
        // reduced rewards, hiU - mu / hiA (rounding is monotone), is below it, nor overflow (at least
        // loU - mu / loA): the pass skips to the next model of the other class, or stops (it would rank
        // none of those it skips).
        if (
          mass >= FULL &&
          total >= 1 - 1e-12 &&
          (mu === 0 || (loU[r] as number) - mu / (loA[r] as number) > Number.NEGATIVE_INFINITY)
        ) {
          const small = mu === 0 ? (hiU[r] as number) : (hiU[r] as number) - mu / (hiA[r] as number);
          const big = mu === 0 ? (hiU2[r] as number) : (hiU2[r] as number) - mu / (hiA2[r] as number);
          if (small < kLast) {
            if (big < kLast) break;
            r = nextBig[r] as number;
          } else if (big < kLast) r = nextSmall[r] as number;
          q = r - shift;
          if (q >= m) break;
        }
        i = perm[r] as number;
      }
      const ai = a[i] as number;
      total += ai;
      const ci = c[i] as number;
      const ui = q < f ? (u[i] as number) : (u[i] as number) - mu / ai;
      if (ui - ui !== 0) return Number.NaN;
      // The solver's reduced value at lambda = 0: su - 0 c, which equals su (as compared).
      const ki = ui;
      if (mass >= FULL && !(ki > kLast || (ki === kLast && ci < cLast))) continue;
      fk[q] = ki;
      fc[q] = ci;
      fa[q] = ai;
      fu[q] = ui;
      let p = len;
      while (p > 0) {
        const w = ford[p - 1] as number;
        const kw = fk[w] as number;
        if (ki > kw || (ki === kw && ci < (fc[w] as number))) {
          ford[p] = w;
          p--;
        } else break;
      }
      ford[p] = q;
      len++;
      mass += ai;
      while (len > 1 && mass - (fa[ford[len - 1] as number] as number) >= FULL) {
        len--;
        mass -= fa[ford[len] as number] as number;
      }
      const w = ford[len - 1] as number;
      kLast = fk[w] as number;
      cLast = fc[w] as number;
    }
    if (!(total >= 1 - 1e-12 && m > 0)) return Number.NEGATIVE_INFINITY;
    // The fill (the solver's `settle`, then `pour`): probabilities in rank order.
    const fp = this.fp;
    let rem = 1;
    let r = 0;
    for (; r < len && rem > 0; r++) {
      const q = ford[r] as number;
      const cap = fa[q] as number;
      const v = cap < rem ? cap : rem;
      rem -= v;
      fp[q] = v < SUPPORT_EPS ? 0 : v;
    }
    // The models used, in LP order (insertion: few of them).
    for (let t = 1; t < r; t++) {
      const q = ford[t] as number;
      let p = t;
      while (p > 0 && (ford[p - 1] as number) > q) {
        ford[p] = ford[p - 1] as number;
        p--;
      }
      ford[p] = q;
    }
    let value = 0;
    let used = 0;
    for (let t = 0; t < r; t++) {
      const q = ford[t] as number;
      const v = fp[q] as number;
      value += (fu[q] as number) * v;
      if (q >= f) used += v / (fa[q] as number);
    }
    this.slope = left - used;
    return value + mu * left;
  }

  /**
   * Whether no completion of idx[0..k] by s - k - 1 more of positions perm[j+1..n) has caps summing to
   * 1 - 1e-12 (the routing LP's mass test, so every leaf below is skipped): the chosen caps plus the
   * s - k - 1 largest eligible caps fall short of it by more than 1e-9 (far above the rounding of s sums).
   * The largest caps come from `topCaps` (built once per phase), added in the same order (descending) as
   * ranking them here would: the same sum, bit for bit.
   */
  private shortOfMass(a: Float64Array, n: number, s: number, k: number, j: number): boolean {
    const { idx, top, topW } = this;
    const left = s - k - 1;
    let sum = 0;
    for (let q = 0; q <= k; q++) sum += a[idx[q] as number] as number;
    if (topW >= left) {
      const have = Math.min(left, n - j - 1);
      const row = (j + 1) * topW;
      for (let q = 0; q < have; q++) sum += top[row + q] as number;
      return sum + 1e-9 < 1 - 1e-12;
    }
    const { perm, lk } = this;
    // lk[0..left): the largest eligible caps so far, descending.
    let got = 0;
    for (let r = j + 1; r < n; r++) {
      const v = a[perm[r] as number] as number;
      if (got === left && v <= (lk[left - 1] as number)) continue;
      let p = got < left ? got++ : left - 1;
      while (p > 0 && (lk[p - 1] as number) < v) {
        lk[p] = lk[p - 1] as number;
        p--;
      }
      lk[p] = v;
    }
    for (let q = 0; q < got; q++) sum += lk[q] as number;
    return sum + 1e-9 < 1 - 1e-12;
  }

  /** Fills `freeAt`'s bounds on the rewards and caps of each suffix of the phase's order, by cap class, and the next model of each class. */
  private suffixBounds(u: Float64Array, a: Float64Array, n: number): void {
    const { hiU, hiA, hiU2, hiA2, loU, loA, nextBig, nextSmall, perm } = this;
    if (n === 0) return;
    const split = Array.from(a.subarray(0, n)).sort((x, y) => x - y)[n >> 1] as number;
    hiU[n] = Number.NEGATIVE_INFINITY;
    hiA[n] = Number.NEGATIVE_INFINITY;
    hiU2[n] = Number.NEGATIVE_INFINITY;
    hiA2[n] = Number.NEGATIVE_INFINITY;
    loU[n] = Number.POSITIVE_INFINITY;
    loA[n] = Number.POSITIVE_INFINITY;
    nextBig[n] = n;
    nextSmall[n] = n;
    for (let r = n - 1; r >= 0; r--) {
      const i = perm[r] as number;
      const ui = u[i] as number;
      const ai = a[i] as number;
      const big = ai > split;
      hiU[r] = big ? (hiU[r + 1] as number) : Math.max(hiU[r + 1] as number, ui);
      hiA[r] = big ? (hiA[r + 1] as number) : Math.max(hiA[r + 1] as number, ai);
      hiU2[r] = big ? Math.max(hiU2[r + 1] as number, ui) : (hiU2[r + 1] as number);
      hiA2[r] = big ? Math.max(hiA2[r + 1] as number, ai) : (hiA2[r + 1] as number);
      loU[r] = Math.min(loU[r + 1] as number, ui);
      loA[r] = Math.min(loA[r + 1] as number, ai);
      nextBig[r] = big ? r : (nextBig[r + 1] as number);
      nextSmall[r] = big ? (nextSmall[r + 1] as number) : r;
    }
  }

  /**
   * Fills `top`: row r (r = 0..n) holds the min(w, n - r) largest caps of positions perm[r..n), descending,
   * w = s - 1 (the most `shortOfMass` adds). One pass from the end, each row the one after it with
   * perm[r]'s cap inserted: O(n w) per phase instead of O(n) per test. Skipped (topW = 0, the test ranks
   * the caps itself) when the table would exceed `TOP_MAX` entries.
   */
  private topCaps(a: Float64Array, n: number, s: number): void {
    const w = s - 1;
    if (w < 1 || (n + 1) * w > TOP_MAX) {
      this.topW = 0;
      return;
    }
    if (this.top.length < (n + 1) * w) this.top = new Float64Array((n + 1) * w);
    const { top, perm } = this;
    this.topW = w;
    let have = 0;
    for (let r = n - 1; r >= 0; r--) {
      const v = a[perm[r] as number] as number;
      const row = r * w;
      const next = row + w;
      // Row r: row r + 1's caps above v, then v, then the rest (trimmed to w).
      let q = 0;
      while (q < have && (top[next + q] as number) >= v) {
        top[row + q] = top[next + q] as number;
        q++;
      }
      if (q < w) {
        top[row + q] = v;
        for (let t = q; t < have && t + 1 < w; t++) top[row + t + 1] = top[next + t] as number;
      }
      if (have < w) have++;
    }
  }

  /**
   * Whether no completion of idx[0..k] by s - k - 1 more of positions perm[j+1..n) meets budget b, so
   * that every leaf below fails the routing LP's budget test (its cheapest fill costs more than
   * b + 1e-12 |b|) and the search skips it: cutting the subtree leaves the incumbent, the threshold and
   * every other bound exactly as they were, hence the nodes kept and the subset returned.
   *
   * A leaf's routing d (box 0 <= d <= alpha, sum d = 1) has at most `left` = s - k - 1 positive weights
   * among the free models, each at most its cap, so sum_free d / alpha <= left. For any lambda >= 0,
   *   c.d >= c.d + lambda (sum_free d / alpha - left) >= min over the box-simplex of
   *   (c + lambda [free] / alpha).d - lambda left =: g(lambda),
   * the fill of the cheapest reduced costs (weak duality). g is concave: lambda doubles while the fill
   * uses more than `left` free slots (its slope), then bisects. Each fill that uses at most `left`
   * free slots is a routing of the aggregated relaxation, so its cost bounds that relaxation's minimum
   * from above: at or under the budget, no lambda can cut and the test stops. The cut requires g to
   * exceed b + 1e-12 |b| by a relative 1e-9 of the magnitudes summed, far above the rounding of g and of
   * a leaf's fill (a few ulps per model).
   */
  private overBudget(c: Float64Array, a: Float64Array, n: number, b: number, s: number, k: number, j: number): boolean {
    const { idx, perm, lc, la } = this;
    const f = k + 1;
    let m = 0;
    let cMin = Number.POSITIVE_INFINITY;
    let cMax = Number.NEGATIVE_INFINITY;
    let aMax = 0;
    for (let q = 0; q < f; q++) {
      const i = idx[q] as number;
      lc[m] = c[i] as number;
      la[m++] = a[i] as number;
    }
    for (let r = j + 1; r < n; r++) {
      const i = perm[r] as number;
      const ci = c[i] as number;
      const ai = a[i] as number;
      lc[m] = ci;
      la[m++] = ai;
      if (ci < cMin) cMin = ci;
      if (ci > cMax) cMax = ci;
      if (ai > aMax) aMax = ai;
    }
    for (let q = 0; q < f; q++) {
      const ci = lc[q] as number;
      if (ci < cMin) cMin = ci;
      if (ci > cMax) cMax = ci;
    }
    const left = s - f;
    const limit = b + 1e-12 * Math.abs(b);
    // A completion within budget (the chosen models and the `left` cheapest eligible ones, filled by
    // cost) settles it at once: no cut. This is the common case and costs one walk of the cost order.
    if (this.cheapCompletion(c, a, n, k, j, left) <= limit) return false;
    let t = this.budgetTest(0, m, f, left, b, limit);
    if (t !== 0) return t > 0;
    if (this.fillUsed <= left) return false;
    let lo = 0;
    let hi = Math.max(cMax - cMin, 1e-12) * Math.max(aMax, 1e-12);
    let bracket = false;
    for (let it = 0; it < 40; it++) {
      t = this.budgetTest(hi, m, f, left, b, limit);
      if (t !== 0) return t > 0;
      if (this.fillUsed <= left) {
        bracket = true;
        break;
      }
      lo = hi;
      hi *= 2;
    }
    if (!bracket) return false;
    for (let it = 0; it < 20; it++) {
      const mid = (lo + hi) / 2;
      t = this.budgetTest(mid, m, f, left, b, limit);
      if (t !== 0) return t > 0;
      if (this.fillUsed > left) lo = mid;
      else hi = mid;
    }
    return false;
  }

  /**
   * `overBudget`'s test at multiplier lambda over the m models it gathered (the first f fixed): 1: cut;
   * -1: cannot cut; 0: undecided. A method rather than a closure in `overBudget`, so that a node creates no
   * function object (the builds keep names, which would also wrap such a closure in a `__name` call).
   */
  private budgetTest(lambda: number, m: number, f: number, left: number, b: number, limit: number): number {
    const r = this.reducedFill(m, f, lambda, left);
    if (r === Number.NEGATIVE_INFINITY) return -1;
    const g = r - lambda * left;
    const scale = Math.abs(this.fillAbs) + lambda * left + Math.abs(b);
    if (g > limit + 1e-9 * scale) return 1;
    if (this.fillUsed <= left && this.fillCost <= limit) return -1;
    return 0;
  }

  /**
   * Cost of filling the chosen models idx[0..k] and the `left` cheapest eligible models perm[j+1..n)
   * in cost order (each up to its cap): a routing of one completion, hence an upper bound on the
   * cheapest completion's cost; +Infinity when they cannot carry all traffic.
   */
  private cheapCompletion(c: Float64Array, a: Float64Array, n: number, k: number, j: number, left: number): number {
    const { idx, perm, byCost, mark } = this;
    const stamp = ++this.stamp;
    for (let q = 0; q <= k; q++) mark[idx[q] as number] = -stamp;
    for (let r = j + 1; r < n; r++) mark[perm[r] as number] = stamp;
    let rem = 1;
    let cost = 0;
    let free = left;
    for (let r = 0; r < n && rem > 0; r++) {
      const i = byCost[r] as number;
      const m = mark[i] as number;
      if (m === stamp) {
        if (free === 0) continue;
        free--;
      } else if (m !== -stamp) continue;
      const cap = a[i] as number;
      const t = cap < rem ? cap : rem;
      cost += (c[i] as number) * t;
      rem -= t;
    }
    return rem > 1e-12 ? Number.POSITIVE_INFINITY : cost;
  }

  private fillUsed = 0;
  private fillCost = 0;
  private fillAbs = 0;

  /**
   * The cheapest fill of the gathered models (costs lc, caps la; the first f fixed, the rest free) by
   * reduced cost c + lambda / alpha on the free ones; returns its reduced cost sum (without -lambda left)
   * and sets fillUsed (sum_free d / alpha), fillCost (c.d) and fillAbs (sum |reduced| d). -Infinity when
   * the caps cannot carry all traffic.
   */
  private reducedFill(m: number, f: number, lambda: number, left: number): number {
    const { lc, la, lk, lord } = this;
    for (let q = 0; q < m; q++) {
      lk[q] = q < f ? (lc[q] as number) : (lc[q] as number) + lambda / (la[q] as number);
      lord[q] = q;
    }
    const ord = lord.subarray(0, m).sort((x, y) => (lk[x] as number) - (lk[y] as number) || x - y);
    let rem = 1;
    let val = 0;
    let abs = 0;
    let cost = 0;
    let used = 0;
    for (let r = 0; r < m && rem > 0; r++) {
      const q = ord[r] as number;
      const cap = la[q] as number;
      const t = cap < rem ? cap : rem;
      const key = lk[q] as number;
      val += key * t;
      abs += Math.abs(key) * t;
      cost += (lc[q] as number) * t;
      if (q >= f) used += t / cap;
      rem -= t;
    }
    void left;
    if (rem > 1e-12) return Number.NEGATIVE_INFINITY;
    this.fillUsed = used;
    this.fillCost = cost;
    this.fillAbs = abs;
    return val;
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
    let ties = false;
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
        ties = true;
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
    this.cordLen = len;
    this.costTies = ties;
    return len;
  }
}
