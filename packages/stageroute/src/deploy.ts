/**
 * DeployOPT (paper eq. 3): which at most s models to deploy for a stage,
 *
 *   max_d  sum_m u_m d_m   s.t.  sum_m l_m d_m <= b,  sum_m d_m = 1,  0 <= d_m <= alpha_m,  |supp(d)| <= s,
 *
 * an LP with a cardinality constraint (a small MIP). Solved exactly:
 * 1. the LP relaxation (no cardinality row); when its support has at most s models it is optimal
 *    (always so when s >= floor(1 / alpha_min) + 2: a vertex has at most 2 fractional coordinates);
 *    (solved in arrival order: ties between models are resolved by index here);
 * 2. otherwise every s-subset's routing LP when there are at most `enumLimit` subsets, keeping the
 *    first best in enumeration order (the caller's `order`, e.g. a seeded shuffle; replaced only on
 *    a strict improvement above 1e-12);
 * 3. otherwise an exact branch-and-bound over the s-subsets with LP bounds (see branch.ts), returning
 *    the subset the enumeration would keep.
 * When no s-subset meets the budget, the budget is relaxed to the smallest cost an s-subset can reach
 * ("budget-relaxed"). When no s models have caps summing to 1, it throws INFEASIBLE_BUDGET.
 *
 * Two opt-ins replace step 3. An external solver (`ExternalDeploySolver`, e.g. HiGHS) answers each search
 * the branch-and-bound would run; the routing over its subset is the package's own routing LP. If it
 * throws or returns a subset that LP rejects, the branch-and-bound runs instead (`solverError` says why).
 * A node limit stops the branch-and-bound after it examined that many nodes over the whole boundary
 * ("node-limit"): the result is the best subset found so far, else a feasible subset picked under the caps
 * in the relaxation's order or in cost order (method "fallback"), its budget relaxed to its own cheapest
 * routing when it cannot meet b; either improved by a bounded, deterministic improvement phase (`improve`:
 * exchanges of one model and exact searches over a few models, at most as much work again as the limit),
 * which lowers a relaxed budget first (the smallest reachable cost), then raises the reward under it.
 */
import { describe, ErrorCode, RouteKitError } from "@routekit/core";
import { SubsetSearch } from "./branch.js";
import { greedyByRatio } from "./cap-greedy.js";
import type { ExternalDeploySolver } from "./external.js";
import { SUPPORT_EPS } from "./route-lp.js";
import { gather, relaxedOrder, SubsetLp } from "./subset-lp.js";
import { SwapSearch } from "./swap-search.js";

/**
 * "ok"; "budget-relaxed": no subset met the budget under the bounds; "node-limit": the branch-and-bound
 * stopped at `searchNodeLimit` (the subset may not be optimal; its budget may be relaxed too).
 */
export type DeployStatus = "ok" | "budget-relaxed" | "node-limit";
/**
 * "external": the external solver's subset; "fallback": picked under the caps after the node limit stopped the
 * search with no subset. With status "node-limit", "branch-and-bound" and "fallback" name where the subset
 * started: the improvement phase may have exchanged some of its models since.
 */
export type DeployMethod = "relaxation" | "enumeration" | "branch-and-bound" | "external" | "fallback";

export interface DeployResult {
  readonly status: DeployStatus;
  /** How the optimum was found. */
  readonly method: DeployMethod;
  /** Optimal objective u . d*. */
  readonly value: number;
  /** The budget used: b, or the smallest reachable cost when budget-relaxed. */
  readonly budget: number;
  /** d* (length n, in the caller's indexing); its support is the deployed set before padding. */
  readonly weights: Float64Array;
  /** Indices with d*_m > 1e-12, ascending. */
  readonly support: number[];
  /** Why the external solver's answer was not used (the built-in search ran instead), when it was not. */
  readonly solverError?: string;
}

type Found = { value: number; weights: Float64Array; method: DeployMethod };

/** Number of s-subsets of n, or `limit + 1` when it exceeds `limit`. */
export function binomialCapped(n: number, s: number, limit: number): number {
  if (s < 0 || s > n) return 0;
  const k = Math.min(s, n - s);
  let r = 1;
  for (let i = 1; i <= k; i++) {
    r = (r * (n - k + i)) / i;
    if (r > limit) return limit + 1;
  }
  return Math.round(r);
}

/** Sum of the s largest caps: whether some s models can carry all traffic. */
export function topCapSum(alpha: ArrayLike<number>, n: number, s: number): number {
  const a = Array.from({ length: n }, (_, i) => alpha[i] as number).sort((x, y) => y - x);
  let sum = 0;
  for (let i = 0; i < Math.min(s, n); i++) sum += a[i] as number;
  return sum;
}

/** Exact DeployOPT solver; reusable, buffers grow with the pool. */
export class DeploySolver {
  /** Routing LPs over the whole pool and over subsets. */
  private readonly lp = new SubsetLp();
  private readonly route = this.lp.route;
  private readonly search = new SubsetSearch();
  private readonly swaps = new SwapSearch();
  /** The improvement phase's exact search over a few models (see `widen`). */
  private readonly narrow = new SubsetSearch();
  private pu = new Float64Array(16);
  private pc = new Float64Array(16);
  private pa = new Float64Array(16);
  private pw = new Float64Array(16);
  /** Nodes the branch-and-bound may still bound at this boundary. */
  private left = Number.POSITIVE_INFINITY;
  /** Work units the improvement phase may still spend at this boundary (see `improve`). */
  private evalsLeft = 0;
  private limited = false;
  private solverError: string | undefined;
  /** Nodes bounded by the branch-and-bound over the last `solve` (all its searches; diagnostics). */
  nodes = 0;
  /** Search-tree nodes examined over the last `solve` (leaves, cut and bounded prefixes): what `nodeLimit` counts. */
  visits = 0;
  /**
   * Work units spent over the last `solve` by the improvement phase that runs once the node limit is hit
   * (routing LPs of its exchanges and nodes of its small exact searches; at most `nodeLimit` per boundary, see
   * `improve`; diagnostics, not counted in `visits`). 0 when the limit was not hit.
   */
  improveEvals = 0;
  /** Improvements that phase made over the last `solve` (exchanges, and sets found by its small searches). */
  improveMoves = 0;

  /**
   * @param enumLimit enumerate the subsets when there are at most this many
   * @param nodeLimit most search-tree nodes the branch-and-bound examines per `solve` (Infinity: no limit)
   * @param external solves what the branch-and-bound would (see {@link ExternalDeploySolver})
   */
  constructor(
    readonly enumLimit = 50_000,
    readonly nodeLimit = Number.POSITIVE_INFINITY,
    readonly external?: ExternalDeploySolver,
  ) {}

  /**
   * Solves DeployOPT over `n` models (`u` reward bounds, `c` cost bounds, `alpha` caps), budget `b`,
   * s = min(slots, n). `order` (a permutation of 0..n-1) sets the enumeration order, i.e. which of
   * several optimal sets is returned.
   */
  solve(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    slots: number,
    order: ArrayLike<number>,
  ): DeployResult {
    // The class is exported: a fractional slots (or n) made the subset enumeration loop forever, and an n beyond
    // the lists read undefined entries. The policies always pass integers within their lists.
    if (!Number.isInteger(slots) || slots < 1)
      throw new RouteKitError(ErrorCode.OutOfRange, `slots must be an integer >= 1, got ${String(slots)}`);
    if (!Number.isInteger(n) || n < 0 || n > u.length || n > c.length || n > alpha.length || n > order.length)
      throw new RouteKitError(ErrorCode.OutOfRange, `n must be an integer in [0, the lists' length], got ${String(n)}`);
    const s = Math.min(slots, n);
    if (n === 0 || topCapSum(alpha, n, s) < 1 - 1e-12) {
      throw new RouteKitError(
        ErrorCode.InfeasibleBudget,
        `no ${s} of the ${n} available models have capacity caps (maxShare) summing to 1: traffic cannot be routed`,
        { models: n, slots: s },
      );
    }
    this.grow(n);
    this.left = this.nodeLimit;
    this.limited = false;
    this.solverError = undefined;
    this.nodes = 0;
    this.visits = 0;
    this.evalsLeft = this.nodeLimit;
    this.improveEvals = 0;
    this.improveMoves = 0;
    // 1. The relaxation, in arrival order (the tie-break order applies to the enumeration only).
    const relaxed = this.relaxation(u, c, alpha, n, b, s);
    if (relaxed !== undefined) return relaxed;
    const { pu, pc, pa } = this;
    gather(u, c, alpha, order, n, pu, pc, pa);
    let status: DeployStatus = "ok";
    let budget = b;
    let best = this.best(pu, pc, pa, n, b, s);
    if (best === undefined && this.limited) {
      // Stopped before any subset was found: whether one meets b is unknown.
      ({ found: best, budget } = this.fallback(pu, pc, pa, n, b, s));
    } else if (best === undefined) {
      // No s-subset meets b: find the smallest reachable cost (maximise -c without a budget row).
      const neg = this.lp.sp;
      for (let r = 0; r < n; r++) neg[r] = -(pc[r] as number);
      // At the node limit, its improvement takes at most half of that phase's work (see `improve`).
      const cheapest = this.best(neg.slice(0, n), pc, pa, n, Number.POSITIVE_INFINITY, s, 0.5);
      if (cheapest === undefined) {
        ({ found: best, budget } = this.fallback(pu, pc, pa, n, b, s));
      } else {
        const bMin = -cheapest.value;
        // A hair above the minimum, so the cheapest set's own rounding cannot make it infeasible.
        budget = Math.max(b, bMin + 1e-12 * Math.abs(bMin));
        status = "budget-relaxed";
        best = this.best(pu, pc, pa, n, budget, s);
        // With the nodes spent, the cheapest set found meets the relaxed budget by construction.
        if (best === undefined && this.limited) {
          best = this.routeMembers(pu, pc, pa, n, budget, cheapest.weights, "fallback");
          if (best !== undefined) best = this.improve(pu, pc, pa, n, budget, s, best);
        }
        if (best === undefined) {
          throw new RouteKitError(ErrorCode.Numerical, "DeployOPT: the relaxed budget is still infeasible");
        }
      }
    }
    if (this.limited) status = "node-limit";
    if (best === undefined) throw new RouteKitError(ErrorCode.Numerical, "DeployOPT: no feasible subset");
    const weights = new Float64Array(n);
    const support: number[] = [];
    for (let r = 0; r < n; r++) {
      const v = best.weights[r] as number;
      if (v > SUPPORT_EPS) weights[order[r] as number] = v;
    }
    for (let i = 0; i < n; i++) if ((weights[i] as number) > 0) support.push(i);
    const res: DeployResult = { status, method: best.method, value: best.value, budget, weights, support };
    return this.solverError === undefined ? res : { ...res, solverError: this.solverError };
  }

  /**
   * A feasible subset when the node limit stopped the search with none: the caps-feasible picks (see
   * greedyByRatio) in the order of the relaxation's weights (then reward), else in cost order; the first
   * whose routing meets b, else the cost-order picks with the budget relaxed to their cheapest routing.
   */
  private fallback(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
  ): { found: Found; budget: number } {
    const w = this.pw;
    const relaxedOk = this.lp.route.solve(u, c, a, n, b, w) === "ok";
    const byWeight = relaxedOrder(relaxedOk ? w : undefined, u, n);
    const byCost = Array.from({ length: n }, (_, i) => i).sort((x, y) => (c[x] as number) - (c[y] as number) || x - y);
    const mark = new Float64Array(n);
    for (const picks of [byWeight, byCost]) {
      mark.fill(0);
      for (const i of greedyByRatio(picks, a, s)) mark[i] = 1;
      const found = this.routeMembers(u, c, a, n, b, mark, "fallback");
      if (found !== undefined) return { found: this.improve(u, c, a, n, b, s, found), budget: b };
    }
    // The cost-order picks (in `mark`) cannot meet b: relax it to the cheapest routing of those picks,
    // lowered first by the improvement phase on the cost (reward -c, no budget row), so that the budget is
    // relaxed no further than needed; if that reaches b, b is kept.
    const neg = new Float64Array(n);
    for (let r = 0; r < n; r++) neg[r] = -(c[r] as number);
    let cheapest = this.routeMembers(neg, c, a, n, Number.POSITIVE_INFINITY, mark, "fallback");
    if (cheapest === undefined) throw new RouteKitError(ErrorCode.Numerical, "DeployOPT: no feasible fallback subset");
    const movesBefore = this.improveMoves;
    // Half of the phase's work at most, so that the reward keeps the other half.
    cheapest = this.improve(neg, c, a, n, Number.POSITIVE_INFINITY, s, cheapest, 0.5);
    const bMin = -cheapest.value;
    const budget = Math.max(b, bMin + 1e-12 * Math.abs(bMin));
    // The improved set's members (mark, when the phase made no move: the picks, as before).
    const members = this.improveMoves > movesBefore ? cheapest.weights : mark;
    const found = this.routeMembers(u, c, a, n, budget, members, "fallback");
    if (found === undefined) throw new RouteKitError(ErrorCode.Numerical, "DeployOPT: no feasible fallback subset");
    return { found: this.improve(u, c, a, n, budget, s, found), budget };
  }

  /**
   * The improvement phase, run on the subset a search stopped at the node limit left (its incumbent, or the
   * fallback picks): a subset of at most s models meeting b, worth at least `found`. It alternates
   *  - exchanges of one model at a time (SwapSearch: models tried in the order of the relaxation's weights
   *    under b), each candidate routed by the package's routing LP, up to a local optimum; and
   *  - the exact search (`widen`) over the current set and the k outside models whose addition raises its
   *    value most, for a set worth more (k = s, doubled each time it finds none, up to the whole pool: then
   *    the current set is optimal);
   * until neither improves or its work bound is spent. Every candidate is a subset whose routing LP passes,
   * as a leaf of the search is, so the result is as feasible as the incumbent it replaces.
   *
   * Work bound: per boundary at most `nodeLimit` units, shared by all its runs (`evalsLeft`, counted in
   * `improveEvals`), a unit being one routing LP over at most s + 1 models in the exchanges or one node of
   * the exact search over the small pool (the same unit as `visits`, over fewer models): a limited boundary
   * does at most twice its limit's work. `share` (0..1] caps one run at that fraction of what is left (the
   * smallest reachable cost takes half, the reward under it the rest). Deterministic: counts, not time.
   * It runs only once the limit is hit: below it every deployment is the exact search's, bit for bit.
   */
  private improve(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    found: Found,
    share = 1,
  ): Found {
    if (this.evalsLeft <= 0) return found;
    const w = this.pw;
    const rank = relaxedOrder(this.route.solve(u, c, a, n, b, w) === "ok" ? w : undefined, u, n);
    const swaps = this.swaps;
    const stop = this.evalsLeft - Math.ceil(share * this.evalsLeft);
    let cur = found;
    let k = s;
    let exchange = true;
    while (this.evalsLeft > stop) {
      if (exchange) {
        const better = swaps.improve(this.lp, u, c, a, n, b, s, cur.weights, cur.value, rank, this.evalsLeft - stop);
        this.evalsLeft -= swaps.evals;
        this.improveEvals += swaps.evals;
        this.improveMoves += swaps.moves;
        if (better !== undefined) cur = { ...better, method: found.method };
        if (this.evalsLeft <= stop) break;
      }
      const wider = this.widen(u, c, a, n, b, s, cur, rank, k, stop);
      if (wider !== undefined) {
        cur = wider;
        exchange = true;
        continue;
      }
      // Nothing better among k candidates: twice as many (the whole pool at last: then cur is optimal).
      if (this.narrow.stopped || k >= n - s) break;
      k *= 2;
      exchange = false;
    }
    return cur;
  }

  /**
   * A subset worth more than `cur`, by the exact search over a small pool: cur's models and the s models
   * outside it whose addition to it raises the value most. Exchanges of one model at a time stop where a
   * better subset differs in several models at once (on rate-limited pools: a dear strong model and two
   * cheap weak ones for three mid-priced ones, a knapsack-like trade); the search over the small pool finds
   * such trades. Its nodes count in the phase's bound. Undefined when it finds none (or runs out).
   */
  private widen(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    cur: Found,
    rank: readonly number[],
    k: number,
    stop: number,
  ): Found | undefined {
    const pool: number[] = [];
    for (let r = 0; r < n; r++) if ((cur.weights[r] as number) > 0) pool.push(r);
    pool.push(...this.swaps.candidates(k, rank, n));
    pool.sort((x, y) => x - y);
    const m = pool.length;
    if (m <= s) return undefined;
    const ru = new Float64Array(m);
    const rc = new Float64Array(m);
    const ra = new Float64Array(m);
    const rw = new Float64Array(m);
    gather(u, c, a, pool, m, ru, rc, ra);
    if (this.route.solve(ru, rc, ra, m, b, rw) !== "ok") return undefined;
    const floor = cur.value + 1e-12 * Math.max(1, Math.abs(cur.value));
    const narrow = this.narrow;
    const res = narrow.solve(ru, rc, ra, m, b, s, rw, this.evalsLeft - stop, floor);
    this.evalsLeft -= narrow.visits;
    this.improveEvals += narrow.visits;
    if (res === undefined) return undefined;
    this.improveMoves++;
    const weights = new Float64Array(n);
    for (let q = 0; q < m; q++) weights[pool[q] as number] = res.weights[q] as number;
    return { value: res.value, weights, method: cur.method };
  }

  /** The routing LP over the positions r with `members[r] > 0`; undefined when it is infeasible. */
  private routeMembers(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    members: ArrayLike<number>,
    method: DeployMethod,
  ): Found | undefined {
    const idx: number[] = [];
    for (let r = 0; r < n; r++) if ((members[r] as number) > 0) idx.push(r);
    return this.subset(u, c, a, n, b, idx, method);
  }

  /** The routing LP over the positions `idx` (ascending); undefined when it is infeasible. */
  private subset(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    idx: readonly number[],
    method: DeployMethod,
  ): Found | undefined {
    const ix = Int32Array.from(idx);
    if (this.lp.solve(u, c, a, ix, ix.length, b) !== "ok") return undefined;
    const weights = new Float64Array(n);
    for (let j = 0; j < ix.length; j++) weights[ix[j] as number] = this.lp.sp[j] as number;
    return { value: this.route.value, weights, method };
  }

  /** The LP relaxation's optimum when it meets the budget with at most s models, else undefined. */
  private relaxation(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    s: number,
  ): DeployResult | undefined {
    const w = this.pw;
    if (this.route.solve(u, c, alpha, n, b, w) !== "ok") return undefined;
    const support: number[] = [];
    for (let i = 0; i < n; i++) if ((w[i] as number) > SUPPORT_EPS) support.push(i);
    if (support.length > s) return undefined;
    const weights = new Float64Array(n);
    for (const i of support) weights[i] = w[i] as number;
    return { status: "ok", method: "relaxation", value: this.route.value, budget: b, weights, support };
  }

  /** Best routing over s-subsets of the (permuted) pool under budget b; undefined when none meets b. */
  private best(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    share = 1,
  ): { value: number; weights: Float64Array; method: DeployMethod } | undefined {
    const route = this.route;
    const w = this.pw;
    // 1. Relaxation.
    const st = route.solve(u, c, a, n, b, w);
    if (st === "infeasible-budget") return undefined;
    let supp = 0;
    for (let i = 0; i < n; i++) if ((w[i] as number) > SUPPORT_EPS) supp++;
    if (st === "ok" && supp <= s) return { value: route.value, weights: w.slice(0, n), method: "relaxation" };
    // 2. Enumeration of s-subsets (positions ascending in the permuted order).
    if (binomialCapped(n, s, this.enumLimit) <= this.enumLimit) return this.enumerate(u, c, a, n, b, s);
    // 3. The external solver, else branch-and-bound over the same subsets (w holds the relaxation's weights).
    if (this.external !== undefined && this.solverError === undefined) {
      const answer = this.ask(this.external, u, c, a, n, b, s);
      if (typeof answer !== "string") return answer ?? undefined;
      this.solverError = answer;
    }
    const found = this.search.solve(u, c, a, n, b, s, w, this.left);
    this.nodes += this.search.nodes;
    this.visits += this.search.visits;
    this.left -= this.search.visits;
    if (found === undefined) {
      if (this.search.stopped) this.limited = true;
      return undefined;
    }
    const bnb: Found = { ...found, method: "branch-and-bound" };
    if (!this.search.stopped) return bnb;
    this.limited = true;
    // Stopped: improve the incumbent, unless phase 1 already proved it optimal.
    return this.search.proven ? bnb : this.improve(u, c, a, n, b, s, bnb, share);
  }

  /**
   * The external solver's subset, routed by the package's LP: null when it finds none feasible, a message
   * when it throws or answers something that LP rejects (not indices, too many, not meeting b or the caps).
   */
  private ask(
    solver: ExternalDeploySolver,
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
  ): Found | null | string {
    let answer: unknown;
    try {
      answer = solver.solve({
        n,
        reward: u.slice(0, n),
        cost: c.slice(0, n),
        cap: a.slice(0, n),
        budget: b,
        slots: s,
      });
    } catch (e) {
      return `deploySolver "${solver.name}" threw: ${thrown(e)}`;
    }
    if (answer === null) {
      // Without a budget row any s models whose caps reach 1 are feasible, and solve() checked that some are.
      if (b === Number.POSITIVE_INFINITY)
        return `deploySolver "${solver.name}" found no subset of a problem without a budget row`;
      return null;
    }
    // Read the answer once, into a plain array: its length or entries may be getters (or a Proxy) that throw,
    // which is the solver failing, not the update that asked it.
    let picks: unknown[];
    try {
      if (!Array.isArray(answer) || answer.length > s) {
        return `deploySolver "${solver.name}" must return null or at most ${s} model indices`;
      }
      const list: readonly unknown[] = answer;
      picks = Array.from({ length: list.length }, (_, k) => list[k]);
    } catch (e) {
      return `deploySolver "${solver.name}" returned an answer that threw when read: ${thrown(e)}`;
    }
    const seen = new Uint8Array(n);
    for (const i of picks) {
      if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i >= n || seen[i] === 1) {
        return `deploySolver "${solver.name}" returned ${describe(i)}: not a distinct model index in [0, ${n})`;
      }
      seen[i] = 1;
    }
    // Sorted positions: the routing LP, hence the weights, do not depend on the solver's listing order.
    const found = this.routeMembers(u, c, a, n, b, seen, "external");
    if (found === undefined) {
      return `deploySolver "${solver.name}" returned a subset whose routing LP is infeasible (caps below 1 or over the budget)`;
    }
    return found;
  }

  private enumerate(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
  ): { value: number; weights: Float64Array; method: DeployMethod } | undefined {
    const idx = new Int32Array(s);
    for (let i = 0; i < s; i++) idx[i] = i;
    const { lp, route } = this;
    let bestVal = Number.NEGATIVE_INFINITY;
    let bestIdx: Int32Array | undefined;
    const bestP = new Float64Array(s);
    for (;;) {
      if (lp.solve(u, c, a, idx, s, b) === "ok" && route.value > bestVal + 1e-12) {
        bestVal = route.value;
        bestIdx = idx.slice();
        for (let j = 0; j < s; j++) bestP[j] = lp.sp[j] as number;
      }
      // Next combination.
      let j = s - 1;
      while (j >= 0 && (idx[j] as number) === n - s + j) j--;
      if (j < 0) break;
      idx[j] = (idx[j] as number) + 1;
      for (let k = j + 1; k < s; k++) idx[k] = (idx[k - 1] as number) + 1;
    }
    if (bestIdx === undefined) return undefined;
    const weights = new Float64Array(n);
    for (let j = 0; j < s; j++) weights[bestIdx[j] as number] = bestP[j] as number;
    return { value: bestVal, weights, method: "enumeration" };
  }

  private grow(n: number): void {
    this.lp.grow(n);
    if (this.pu.length >= n) return;
    const m = Math.max(n, this.pu.length * 2);
    this.pu = new Float64Array(m);
    this.pc = new Float64Array(m);
    this.pa = new Float64Array(m);
    this.pw = new Float64Array(m);
  }
}

/** What a deploySolver threw, for `lastSolverFailure`: never a throw itself (no user toString is called). */
function thrown(e: unknown): string {
  try {
    if (e instanceof Error) return String(e.message);
    return typeof e === "object" && e !== null ? describe(e) : String(e);
  } catch {
    return describe(e);
  }
}
