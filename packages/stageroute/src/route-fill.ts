/**
 * Greedy fills of the routing LP over box-and-simplex: for a multiplier lambda >= 0 on the budget row,
 * max (u - lambda c).p s.t. sum p = 1, 0 <= p <= alpha is solved by filling models up to their caps in
 * order of the reduced value u - lambda c. The kernels below (cost order, fills, mixing two fills,
 * writing a fill out) are shared by the Newton solver and its exact breakpoint-search fallback. Every
 * buffer is preallocated: no allocation per call.
 */

/** Outcome of a routing LP: solved, only the budget row unsatisfiable (cheapest fill returned), or caps sum below 1. */
export type RouteStatus = "ok" | "infeasible-budget" | "infeasible-mass";

/** Support threshold: probabilities below this are treated as 0 for support and sampling. */
export const SUPPORT_EPS = 1e-12;

/**
 * A ranked prefix whose caps sum to at least this carries all traffic whatever the rounding of the
 * running remainder (errors are about 1e-16 per model), so models past it never receive traffic.
 */
export const FULL = 1 + 1e-9;

/**
 * Whether `k` caps whose sum, added in some order, is `mass` carry all traffic: mass >= 1 - 1e-12 up to the rounding
 * of the order. Deployment tests the largest caps added largest first (topCapSum), the routing LP and the snapshot
 * check the deployed set in its own order; k nonnegative caps added in two orders differ by at most
 * 2 (k - 1) 2^-53 mass, below k eps mass, so a set one order accepts passes here in every order. Without that slack,
 * caps such as { 0.7, 0.1, 0.2 - 1e-12 } (0.7 + 0.2 - 1e-12 + 0.1 reaches 1 - 1e-12, 0.7 + 0.1 + 0.2 - 1e-12 falls an
 * ulp short) were deployed, then refused by every routing LP (select threw a TypeError) and by fromJSON.
 */
export function carriesAllTraffic(mass: number, k: number): boolean {
  return k > 0 && mass >= 1 - 1e-12 - k * Number.EPSILON * mass;
}

/**
 * Most models for which fills pick by selection (n comparisons per model used); beyond it they rank by
 * insertion into a trimmed prefix, which wins when small caps spread traffic over many models.
 */
export const SELECT_MAX = 12;

/** Solver capacity up to which the fallback's order-change-point buffer is preallocated by `grow`. */
const LAM_EAGER_MAX = 64;

/** Models per insertion-sorted run of the cost order (up to it, one insertion sort). */
const SORT_RUN = 16;

/** Buffers and fill kernels of the routing LP solvers, reusable across calls with up to `capacity` models. */
export abstract class FillKernels {
  /** Objective `u . p` of the last solve (cheapest fill's value when infeasible-budget, NaN when infeasible-mass). */
  value = Number.NaN;
  /** Cost `c . p` of the last returned routing. */
  cost = Number.NaN;
  protected cap = 0;
  protected keys = new Float64Array(0);
  /** Models in cost order (then higher reward, then index), and in index order. */
  protected idx = new Int32Array(0);
  /** Merge buffer of the cost order. */
  private merged = new Int32Array(0);
  protected ident = new Int32Array(0);
  protected kept = new Int32Array(0);
  /** Pairwise order-change points (exact fallback only; see `lamFor`). */
  protected lam = new Float64Array(0);
  /** Ranked prefixes of fills: the models that receive traffic, in fill order. */
  protected oA = new Int32Array(0);
  protected oB = new Int32Array(0);
  protected oC = new Int32Array(0);
  /** Models used by the last fill, and its value u.p. */
  protected len = 0;
  protected val = 0;

  constructor(capacity = 16) {
    this.grow(capacity);
  }

  /** Makes room for `n` models (allocates only when n exceeds the current capacity). */
  grow(n: number): void {
    if (n <= this.cap) return;
    const c = Math.max(n, this.cap * 2, 4);
    this.cap = c;
    this.keys = new Float64Array(c);
    this.idx = new Int32Array(c);
    this.merged = new Int32Array(c);
    this.ident = Int32Array.from({ length: c }, (_, i) => i);
    this.kept = new Int32Array(c);
    // The exact fallback's order-change points take O(c^2) memory: preallocated for small solvers (the
    // per-query routing LP), allocated on first use beyond (DeployOPT's LPs over the whole pool).
    if (c <= LAM_EAGER_MAX) this.lam = new Float64Array((c * (c - 1)) / 2 + 1);
    this.oA = new Int32Array(c);
    this.oB = new Int32Array(c);
    this.oC = new Int32Array(c);
  }

  /** The order-change-point buffer with room for the pairs of `m` models (allocates only when it grows). */
  protected lamFor(m: number): Float64Array {
    const need = (m * (m - 1)) / 2 + 1;
    if (this.lam.length < need) this.lam = new Float64Array(need);
    return this.lam;
  }

  /**
   * Solves the LP for the first `n` entries of `u` (rewards), `c` (costs), `alpha` (caps) and budget
   * `b`, writing the routing into `out[0..n)` (zeros when infeasible-mass). Inputs must be finite.
   */
  abstract solve(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    out: Float64Array,
  ): RouteStatus;

  /** False (with the infeasible-mass result written) when the caps of the `n` models sum below 1. */
  protected massOk(alpha: ArrayLike<number>, n: number, out: Float64Array): boolean {
    let mass = 0;
    for (let i = 0; i < n; i++) mass += alpha[i] as number;
    if (carriesAllTraffic(mass, n)) return true;
    for (let i = 0; i < n; i++) out[i] = 0;
    this.value = Number.NaN;
    this.cost = Number.NaN;
    return false;
  }

  /**
   * Sorts the models into `idx` by cost, then higher reward, then index: insertion sort of runs of
   * `SORT_RUN` models (all of them when n is small), then stable bottom-up merges, O(n log n). Both are
   * stable, so the order is the same as one insertion sort's (which was O(n^2) on large pools).
   */
  protected sortByCost(u: ArrayLike<number>, c: ArrayLike<number>, n: number): void {
    const idx = this.idx;
    for (let lo = 0; lo < n; lo += SORT_RUN) {
      const hi = Math.min(lo + SORT_RUN, n);
      for (let i = lo; i < hi; i++) {
        const ci = c[i] as number;
        const ui = u[i] as number;
        let j = i;
        while (j > lo) {
          const w = idx[j - 1] as number;
          const cw = c[w] as number;
          if (ci < cw || (ci === cw && ui > (u[w] as number))) {
            idx[j] = w;
            j--;
          } else break;
        }
        idx[j] = i;
      }
    }
    if (n <= SORT_RUN) return;
    let src = idx;
    let dst = this.merged;
    for (let w = SORT_RUN; w < n; w *= 2) {
      for (let lo = 0; lo < n; lo += 2 * w) {
        const mid = Math.min(lo + w, n);
        const hi = Math.min(lo + 2 * w, n);
        let a = lo;
        let b = mid;
        let o = lo;
        while (a < mid && b < hi) {
          const x = src[a] as number;
          const y = src[b] as number;
          const cx = c[x] as number;
          const cy = c[y] as number;
          // The right run's model goes first only when strictly before: ties keep index order.
          if (cy < cx || (cy === cx && (u[y] as number) > (u[x] as number))) {
            dst[o++] = y;
            b++;
          } else {
            dst[o++] = x;
            a++;
          }
        }
        while (a < mid) dst[o++] = src[a++] as number;
        while (b < hi) dst[o++] = src[b++] as number;
      }
      const t = src;
      src = dst;
      dst = t;
    }
    if (src !== idx) idx.set(src.subarray(0, n));
  }

  /**
   * The cheapest fill: models by cost, then higher reward, then index (the fill as lambda grows without
   * bound), picked by selection as in `fillAt` (beyond `SELECT_MAX` models, the prefix of the cost
   * order: sorted here, or `costOrder[0..costLen)` when given); sets `len` and `val`, returns the cost.
   */
  protected cheapestFill(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    ord: Int32Array,
    costOrder?: Int32Array,
    costLen = 0,
  ): number {
    if (n > SELECT_MAX) {
      // A caller's prefix of the cost order saves the sort (see RouteSolver.solve).
      const order = costOrder ?? this.idx;
      if (costOrder === undefined) this.sortByCost(u, c, n);
      const cost = this.settle(u, c, alpha, order, costOrder === undefined ? n : costLen);
      for (let r = 0; r < this.len; r++) ord[r] = order[r] as number;
      return cost;
    }
    const keys = this.keys;
    let best = -1;
    let cb = Number.POSITIVE_INFINITY;
    let ub = 0;
    for (let i = 0; i < n; i++) {
      const k = c[i] as number;
      const ui = u[i] as number;
      keys[i] = k;
      if (k < cb || (k === cb && ui > ub)) {
        best = i;
        cb = k;
        ub = ui;
      }
    }
    let rem = 1;
    let cost = 0;
    let value = 0;
    let len = 0;
    while (best >= 0) {
      keys[best] = Number.NaN; // picked: NaN never compares less or equal
      ord[len++] = best;
      const a = alpha[best] as number;
      const v = a < rem ? a : rem;
      rem -= v;
      cost += v * cb;
      value += v * ub;
      if (!(rem > 0)) break;
      best = -1;
      cb = Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const k = keys[i] as number;
        if (k < cb || (k === cb && (u[i] as number) > ub)) {
          best = i;
          cb = k;
          ub = u[i] as number;
        }
      }
    }
    this.len = len;
    this.val = value;
    return cost;
  }

  /**
   * Mixes a fill within budget (lo) and one over it (hi) to spend exactly b:
   * out = theta pLo + (1 - theta) pHi, clamped to the caps and renormalised.
   */
  protected mix(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    eps: number,
    oLo: Int32Array,
    lenLo: number,
    costLo: number,
    oHi: Int32Array,
    lenHi: number,
    costHi: number,
    out: Float64Array,
  ): RouteStatus {
    if (costHi - costLo <= eps) return this.pour(u, alpha, n, oLo, lenLo, costLo, out, "ok");
    let theta = (costHi - b) / (costHi - costLo);
    theta = theta < 0 ? 0 : theta > 1 ? 1 : theta;
    const eta = 1 - theta;
    for (let i = 0; i < n; i++) out[i] = 0;
    let rem = 1;
    for (let r = 0; r < lenLo; r++) {
      const i = oLo[r] as number;
      const a = alpha[i] as number;
      const v = a < rem ? a : rem;
      rem -= v;
      out[i] = theta * v;
    }
    rem = 1;
    for (let r = 0; r < lenHi; r++) {
      const i = oHi[r] as number;
      const a = alpha[i] as number;
      const v = a < rem ? a : rem;
      rem -= v;
      out[i] = (out[i] as number) + eta * v;
    }
    let sum = 0;
    for (let i = 0; i < n; i++) {
      let v = out[i] as number;
      const a = alpha[i] as number;
      v = v < 0 ? 0 : v > a ? a : v;
      out[i] = v;
      sum += v;
    }
    let cost = 0;
    let value = 0;
    for (let i = 0; i < n; i++) {
      let v = (out[i] as number) / sum;
      cost += v * (c[i] as number);
      if (v < SUPPORT_EPS) v = 0;
      out[i] = v;
      value += (u[i] as number) * v;
    }
    this.value = value;
    this.cost = cost;
    return "ok";
  }

  /** Writes the fill of the ranked prefix `ord[0..len)` into `out` and records its value and cost. */
  protected pour(
    u: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    ord: Int32Array,
    len: number,
    cost: number,
    out: Float64Array,
    status: RouteStatus,
  ): RouteStatus {
    for (let i = 0; i < n; i++) out[i] = 0;
    let rem = 1;
    for (let r = 0; r < len; r++) {
      const i = ord[r] as number;
      const a = alpha[i] as number;
      const v = a < rem ? a : rem;
      rem -= v;
      out[i] = v;
    }
    let value = 0;
    for (let i = 0; i < n; i++) {
      if ((out[i] as number) < SUPPORT_EPS) out[i] = 0;
      value += (u[i] as number) * (out[i] as number);
    }
    this.value = value;
    this.cost = cost;
    return status;
  }

  /**
   * Greedy fill of the models `list[0..ns)` (in index or cost order) by reduced value u - lambda c (then cheaper, then index):
   * ranks the models that receive traffic into `ord`, sets `len` and `val` and returns the fill's cost. One pass
   * keeps the models ranked so far trimmed to the shortest prefix whose caps carry all traffic (plus a
   * margin far above rounding, so nothing past it could receive any): a model is ranked only if it
   * beats the last of that prefix, so a fill costs about one comparison per model.
   */
  protected rankAt(
    lambda: number,
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    list: Int32Array,
    ns: number,
    ord: Int32Array,
  ): number {
    const keys = this.keys;
    let len = 0;
    let mass = 0;
    // Once the prefix carries all traffic, its last model (reduced value kLast, cost cLast) is the bar.
    let kLast = 0;
    let cLast = 0;
    for (let r = 0; r < ns; r++) {
      const i = list[r] as number;
      const ci = c[i] as number;
      const ki = (u[i] as number) - lambda * ci;
      if (mass >= FULL && !(ki > kLast || (ki === kLast && ci < cLast))) continue;
      keys[i] = ki;
      let j = len;
      while (j > 0) {
        const w = ord[j - 1] as number;
        const kw = keys[w] as number;
        if (ki > kw || (ki === kw && ci < (c[w] as number))) {
          ord[j] = w;
          j--;
        } else break;
      }
      ord[j] = i;
      len++;
      mass += alpha[i] as number;
      while (len > 1 && mass - (alpha[ord[len - 1] as number] as number) >= FULL) {
        len--;
        mass -= alpha[ord[len] as number] as number;
      }
      const w = ord[len - 1] as number;
      kLast = keys[w] as number;
      cLast = c[w] as number;
    }
    return this.settle(u, c, alpha, ord, len);
  }

  /**
   * Greedy fill of all `n` models by reduced value u - lambda c (then cheaper, then index): ranks the
   * models used into `ord`, sets `len` and `val`, returns the fill's cost. Up to `SELECT_MAX` models by
   * selection (the best remaining model is picked and filled up to its cap until all traffic is placed:
   * n comparisons per pick, few picks when caps are large, no insertion), beyond it by `rankAt`.
   */
  protected fillAt(
    lambda: number,
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    ord: Int32Array,
  ): number {
    if (n > SELECT_MAX) return this.rankAt(lambda, u, c, alpha, this.ident, n, ord);
    const keys = this.keys;
    let best = -1;
    let kb = Number.NEGATIVE_INFINITY;
    let cb = 0;
    for (let i = 0; i < n; i++) {
      const ci = c[i] as number;
      const k = (u[i] as number) - lambda * ci;
      keys[i] = k;
      if (k > kb || (k === kb && ci < cb)) {
        best = i;
        kb = k;
        cb = ci;
      }
    }
    let rem = 1;
    let cost = 0;
    let value = 0;
    let len = 0;
    while (best >= 0) {
      keys[best] = Number.NaN; // picked: NaN never compares greater or equal
      ord[len++] = best;
      const a = alpha[best] as number;
      const v = a < rem ? a : rem;
      rem -= v;
      cost += v * cb;
      value += v * (u[best] as number);
      if (!(rem > 0)) break;
      best = -1;
      kb = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const k = keys[i] as number;
        if (k > kb || (k === kb && (c[i] as number) < cb)) {
          best = i;
          kb = k;
          cb = c[i] as number;
        }
      }
    }
    this.len = len;
    this.val = value;
    return cost;
  }

  /**
   * An upper bound on max (u - lambda c).p over box-and-simplex, by LP duality: for every tau,
   * max <= tau + sum_i alpha_i (u_i - lambda c_i - tau)^+ (tau prices the row sum p = 1, the positive
   * parts the caps). It equals the maximum when tau is the reduced value of the last model an optimal
   * fill uses; one pass, no ranking.
   */
  protected dualBound(
    lambda: number,
    tau: number,
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
  ): number {
    let bound = tau;
    for (let i = 0; i < n; i++) {
      const d = (u[i] as number) - lambda * (c[i] as number) - tau;
      if (d > 0) bound += (alpha[i] as number) * d;
    }
    return bound;
  }

  /** Fills the ranked prefix up to each cap until all traffic is placed; sets `len` (models used) and `val`, returns the cost. */
  protected settle(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    ord: Int32Array,
    len: number,
  ): number {
    let rem = 1;
    let cost = 0;
    let value = 0;
    let r = 0;
    for (; r < len && rem > 0; r++) {
      const i = ord[r] as number;
      const a = alpha[i] as number;
      const v = a < rem ? a : rem;
      rem -= v;
      cost += v * (c[i] as number);
      value += v * (u[i] as number);
    }
    this.len = r;
    this.val = value;
    return cost;
  }
}
