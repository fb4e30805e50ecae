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
 */
import { ErrorCode, RouteKitError } from "@routekit/core";
import { SubsetSearch } from "./branch.js";
import { SUPPORT_EPS } from "./route-lp.js";
import { gather, SubsetLp } from "./subset-lp.js";

export type DeployStatus = "ok" | "budget-relaxed";
export type DeployMethod = "relaxation" | "enumeration" | "branch-and-bound";

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
}

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
  private pu = new Float64Array(16);
  private pc = new Float64Array(16);
  private pa = new Float64Array(16);
  private pw = new Float64Array(16);

  constructor(readonly enumLimit = 50_000) {}

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
    const s = Math.min(slots, n);
    if (n === 0 || topCapSum(alpha, n, s) < 1 - 1e-12) {
      throw new RouteKitError(
        ErrorCode.InfeasibleBudget,
        `no ${s} of the ${n} available models have capacity caps (maxShare) summing to 1: traffic cannot be routed`,
        { models: n, slots: s },
      );
    }
    this.grow(n);
    // 1. The relaxation, in arrival order (the tie-break order applies to the enumeration only).
    const relaxed = this.relaxation(u, c, alpha, n, b, s);
    if (relaxed !== undefined) return relaxed;
    const { pu, pc, pa } = this;
    gather(u, c, alpha, order, n, pu, pc, pa);
    let status: DeployStatus = "ok";
    let budget = b;
    let best = this.best(pu, pc, pa, n, b, s);
    if (best === undefined) {
      // No s-subset meets b: find the smallest reachable cost (maximise -c without a budget row).
      const neg = this.lp.sp;
      for (let r = 0; r < n; r++) neg[r] = -(pc[r] as number);
      const cheapest = this.best(neg.slice(0, n), pc, pa, n, Number.POSITIVE_INFINITY, s);
      const bMin = -(cheapest?.value ?? 0);
      // A hair above the minimum, so the cheapest set's own rounding cannot make it infeasible.
      budget = Math.max(b, bMin + 1e-12 * Math.abs(bMin));
      status = "budget-relaxed";
      best = this.best(pu, pc, pa, n, budget, s);
      if (best === undefined) {
        throw new RouteKitError(ErrorCode.Numerical, "DeployOPT: the relaxed budget is still infeasible");
      }
    }
    const weights = new Float64Array(n);
    const support: number[] = [];
    for (let r = 0; r < n; r++) {
      const v = best.weights[r] as number;
      if (v > SUPPORT_EPS) weights[order[r] as number] = v;
    }
    for (let i = 0; i < n; i++) if ((weights[i] as number) > 0) support.push(i);
    return { status, method: best.method, value: best.value, budget, weights, support };
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
    // 3. Branch-and-bound over the same subsets (w holds the relaxation's weights).
    const found = this.search.solve(u, c, a, n, b, s, w);
    return found === undefined ? undefined : { ...found, method: "branch-and-bound" };
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
