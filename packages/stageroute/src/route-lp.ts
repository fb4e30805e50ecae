/**
 * RouteOPT (paper eq. 7): the routing LP over the deployed models,
 *
 *   max_p  sum_i u_i p_i   s.t.  sum_i c_i p_i <= b,  sum_i p_i = 1,  0 <= p_i <= alpha_i,
 *
 * solved exactly in O(n^2 log n) by Lagrangian duality on the budget row: for a fixed multiplier
 * lambda the problem over box-and-simplex is solved by a greedy fill in order of the reduced value
 * u_i - lambda c_i; the optimal lambda is the order-change point where the greedy fill's cost crosses
 * b, and mixing the fills on both sides of it to spend exactly b satisfies complementary slackness.
 * Fills are evaluated at interval midpoints, never at breakpoints, so floating-point ties cannot
 * derail the search.
 *
 * When no routing meets the budget (the deployed models' cost bounds rose mid-stage) the solver
 * returns the cheapest fill that respects the caps ("infeasible-budget"); capacity caps are hard
 * rate limits and are never exceeded. Everything runs in preallocated buffers: no allocation.
 */

/** Outcome of a routing LP: solved, only the budget row unsatisfiable (cheapest fill returned), or caps sum below 1. */
export type RouteStatus = "ok" | "infeasible-budget" | "infeasible-mass";

/** Support threshold: probabilities below this are treated as 0 for support and sampling. */
export const SUPPORT_EPS = 1e-12;

/** Exact solver of the routing LP, reusable across calls with up to `capacity` models. */
export class RouteSolver {
  /** Objective `u . p` of the last solve (cheapest fill's value when infeasible-budget, NaN when infeasible-mass). */
  value = Number.NaN;
  /** Cost `c . p` of the last returned routing. */
  cost = Number.NaN;
  private cap = 0;
  private keys = new Float64Array(0);
  private lam = new Float64Array(0);
  private pA = new Float64Array(0);
  private pB = new Float64Array(0);
  private pC = new Float64Array(0);
  /** Multipliers of the last solve's two fills (warm start); -1 when none. */
  private warmLo = -1;
  private warmHi = -1;

  constructor(capacity = 16) {
    this.grow(capacity);
  }

  /** Makes room for `n` models (allocates only when n exceeds the current capacity). */
  grow(n: number): void {
    if (n <= this.cap) return;
    const c = Math.max(n, this.cap * 2, 4);
    this.cap = c;
    this.keys = new Float64Array(c);
    this.lam = new Float64Array((c * (c - 1)) / 2 + 1);
    this.pA = new Float64Array(c);
    this.pB = new Float64Array(c);
    this.pC = new Float64Array(c);
  }

  /**
   * Solves the LP for the first `n` entries of `u` (rewards), `c` (costs), `alpha` (caps) and budget
   * `b`, writing the routing into `out[0..n)` (zeros when infeasible-mass). Inputs must be finite.
   */
  solve(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    out: Float64Array,
  ): RouteStatus {
    this.grow(n);
    const eps = Number.isFinite(b) ? 1e-12 * Math.max(1, Math.abs(b)) : 0;
    let mass = 0;
    for (let i = 0; i < n; i++) mass += alpha[i] as number;
    if (!(mass >= 1 - 1e-12) || n === 0) {
      for (let i = 0; i < n; i++) out[i] = 0;
      this.value = Number.NaN;
      this.cost = Number.NaN;
      return "infeasible-mass";
    }
    // 2. Cheapest fill: by cost, then higher reward, then index.
    const costMin = this.fillCheapest(u, c, alpha, n, out);
    if (costMin > b + eps) return this.finish(u, out, n, costMin, "infeasible-budget");
    // 3. Budget slack: the greedy fill by reward alone.
    const pHi = this.pA;
    let costHi = this.fillAt(0, u, c, alpha, n, pHi);
    if (costHi <= b + eps) {
      for (let i = 0; i < n; i++) out[i] = pHi[i] as number;
      return this.finish(u, out, n, costHi, "ok");
    }
    // 4. Order-change points lambda > 0. Warm start: when exactly one distinct point lies strictly between
    // the previous solve's two multipliers (and none on them), those multipliers sit in the two intervals
    // around lambda* again if their fills straddle b, and the cold search would pick the very same fills.
    const lam = this.lam;
    const wa = this.warmLo;
    const wb = this.warmHi;
    let m = 0;
    let inMin = Number.POSITIVE_INFINITY;
    let inMax = Number.NEGATIVE_INFINITY;
    let onEdge = false;
    let below = 0;
    let above = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const ui = u[i] as number;
      const ci = c[i] as number;
      for (let j = i + 1; j < n; j++) {
        const dc = ci - (c[j] as number);
        if (dc === 0) continue;
        const v = (ui - (u[j] as number)) / dc;
        if (v > 0 && v < Number.POSITIVE_INFINITY) {
          lam[m++] = v;
          if (v === wa || v === wb) onEdge = true;
          else if (v > wa && v < wb) {
            if (v < inMin) inMin = v;
            if (v > inMax) inMax = v;
          } else if (v < wa) {
            if (v > below) below = v;
          } else if (v < above) above = v;
        }
      }
    }
    if (wa < wb && !onEdge && inMin === inMax) {
      // Evaluate at the midpoints of the two intervals around the one point, exactly as the cold search
      // would (never near a breakpoint, where rounding could swap two nearly tied models).
      const midHi = (below + inMin) / 2;
      const midLo = above < Number.POSITIVE_INFINITY ? (inMin + above) / 2 : 2 * inMin + 1;
      const wHi = this.pC;
      const cHi = this.fillAt(midHi, u, c, alpha, n, wHi);
      if (cHi > b + eps) {
        const wLo = this.pB;
        const cLo = this.fillAt(midLo, u, c, alpha, n, wLo);
        if (cLo <= b + eps) {
          this.warmLo = midHi;
          this.warmHi = midLo;
          return this.mix(u, c, alpha, n, b, eps, wLo, cLo, wHi, cHi, out);
        }
      }
    }
    sortRange(lam, m);
    let k = 0;
    for (let i = 0; i < m; i++)
      if (k === 0 || (lam[i] as number) !== (lam[k - 1] as number)) lam[k++] = lam[i] as number;
    // pts = [0, lam_0, ..., lam_{k-1}] (P = k + 1 points); mid_j between pts_j and pts_{j+1}, mid_k past the last.
    // Smallest j in [1, k] whose fill costs <= b (j = 0 is the lambda = 0 fill, which is over budget).
    // Fills are kept as they are computed: the last one over budget is at j* - 1, the under one at j*.
    let pHiBuf = pHi; // fill at j = 0 (lambda = 0)
    let pLoBuf = this.pB; // fill at j = k: the cheapest fill
    for (let i = 0; i < n; i++) pLoBuf[i] = out[i] as number;
    let costLo = costMin;
    let tmp = this.pC;
    let lo = 1;
    let hi = k;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const cost = this.fillAt(midpoint(lam, k, mid), u, c, alpha, n, tmp);
      const t = tmp;
      if (cost <= b + eps) {
        hi = mid;
        tmp = pLoBuf;
        pLoBuf = t;
        costLo = cost;
      } else {
        lo = mid + 1;
        tmp = pHiBuf;
        pHiBuf = t;
        costHi = cost;
      }
    }
    this.warmLo = midpoint(lam, k, lo - 1);
    this.warmHi = midpoint(lam, k, lo);
    return this.mix(u, c, alpha, n, b, eps, pLoBuf, costLo, pHiBuf, costHi, out);
  }

  /** Mixes the fills on both sides of lambda* to spend exactly b (complementary slackness). */
  private mix(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    eps: number,
    pLo: Float64Array,
    costLo: number,
    pHi: Float64Array,
    costHi: number,
    out: Float64Array,
  ): RouteStatus {
    if (costHi - costLo <= eps) {
      for (let i = 0; i < n; i++) out[i] = pLo[i] as number;
      return this.finish(u, out, n, costLo, "ok");
    }
    let theta = (costHi - b) / (costHi - costLo);
    theta = theta < 0 ? 0 : theta > 1 ? 1 : theta;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      let v = theta * (pLo[i] as number) + (1 - theta) * (pHi[i] as number);
      const a = alpha[i] as number;
      v = v < 0 ? 0 : v > a ? a : v;
      out[i] = v;
      sum += v;
    }
    let cost = 0;
    for (let i = 0; i < n; i++) {
      const v = (out[i] as number) / sum;
      out[i] = v;
      cost += v * (c[i] as number);
    }
    return this.finish(u, out, n, cost, "ok");
  }

  private finish(u: ArrayLike<number>, p: Float64Array, n: number, cost: number, status: RouteStatus): RouteStatus {
    let value = 0;
    for (let i = 0; i < n; i++) {
      if ((p[i] as number) < SUPPORT_EPS) p[i] = 0;
      value += (u[i] as number) * (p[i] as number);
    }
    this.value = value;
    this.cost = cost;
    return status;
  }

  /**
   * Greedy fill in order of reduced value u - lambda c (then cheaper, then index); returns its cost.
   * Picks the next best model by a scan instead of sorting: a fill stops after about 1 / alpha models.
   */
  private fillAt(
    lambda: number,
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    p: Float64Array,
  ): number {
    const keys = this.keys;
    for (let i = 0; i < n; i++) {
      keys[i] = (u[i] as number) - lambda * (c[i] as number);
      p[i] = -1;
    }
    let rem = 1;
    let cost = 0;
    for (let r = 0; r < n && rem > 0; r++) {
      let best = -1;
      let bk = 0;
      let bc = 0;
      for (let i = 0; i < n; i++) {
        if ((p[i] as number) >= 0) continue;
        const ki = keys[i] as number;
        const ci = c[i] as number;
        if (best < 0 || ki > bk || (ki === bk && ci < bc)) {
          best = i;
          bk = ki;
          bc = ci;
        }
      }
      const a = alpha[best] as number;
      const v = a < rem ? a : rem;
      p[best] = v;
      rem -= v;
      cost += v * bc;
    }
    for (let i = 0; i < n; i++) if ((p[i] as number) < 0) p[i] = 0;
    return cost;
  }

  /** The cheapest fill (cost ascending, then reward descending, then index); returns its cost. */
  private fillCheapest(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    p: Float64Array,
  ): number {
    for (let i = 0; i < n; i++) p[i] = -1;
    let rem = 1;
    let cost = 0;
    for (let r = 0; r < n && rem > 0; r++) {
      let best = -1;
      let bc = 0;
      let bu = 0;
      for (let i = 0; i < n; i++) {
        if ((p[i] as number) >= 0) continue;
        const ci = c[i] as number;
        const ui = u[i] as number;
        if (best < 0 || ci < bc || (ci === bc && ui > bu)) {
          best = i;
          bc = ci;
          bu = ui;
        }
      }
      const a = alpha[best] as number;
      const v = a < rem ? a : rem;
      p[best] = v;
      rem -= v;
      cost += v * bc;
    }
    for (let i = 0; i < n; i++) if ((p[i] as number) < 0) p[i] = 0;
    return cost;
  }
}

function midpoint(lam: Float64Array, k: number, j: number): number {
  // pts_0 = 0, pts_i = lam[i - 1]; mid_j = (pts_j + pts_{j+1}) / 2 for j < k, mid_k = 2 pts_k + 1.
  if (j >= k) return 2 * (k === 0 ? 0 : (lam[k - 1] as number)) + 1;
  const a = j === 0 ? 0 : (lam[j - 1] as number);
  return (a + (lam[j] as number)) / 2;
}

const GAPS = [701, 301, 132, 57, 23, 10, 4, 1];

/** Sorts a[0..m) ascending in place without allocating (Shell sort with Ciura's gaps; insertion sort below 16). */
export function sortRange(a: Float64Array, m: number): void {
  for (let g = 0; g < GAPS.length; g++) {
    const gap = GAPS[g] as number;
    if (gap >= m || (gap > 1 && m < 16)) continue;
    for (let i = gap; i < m; i++) {
      const x = a[i] as number;
      let j = i - gap;
      while (j >= 0 && (a[j] as number) > x) {
        a[j + gap] = a[j] as number;
        j -= gap;
      }
      a[j + gap] = x;
    }
  }
}

/**
 * Index of the arm drawn from routing `p[0..n)` with one uniform `x` in [0, 1): the first index whose
 * cumulative probability exceeds x, skipping zero entries (the last positive entry absorbs rounding).
 */
export function sampleIndex(p: ArrayLike<number>, n: number, x: number): number {
  let acc = 0;
  let last = -1;
  for (let i = 0; i < n; i++) {
    const v = p[i] as number;
    if (v <= 0) continue;
    last = i;
    acc += v;
    if (x < acc) return i;
  }
  return last;
}
