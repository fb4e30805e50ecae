/**
 * RouteOPT (paper eq. 7): the routing LP over the deployed models,
 *
 *   max_p  sum_i u_i p_i   s.t.  sum_i c_i p_i <= b,  sum_i p_i = 1,  0 <= p_i <= alpha_i,
 *
 * solved exactly by Lagrangian duality on the budget row: for a fixed multiplier
 * lambda the problem over box-and-simplex is solved by a greedy fill in order of the reduced value
 * u_i - lambda c_i; the optimal lambda is the order-change point where the greedy fill's cost crosses
 * b, and mixing the fills on both sides of it to spend exactly b satisfies complementary slackness.
 * Fills are evaluated at interval midpoints, never at breakpoints, so floating-point ties cannot
 * derail the search. The order-change points are pairwise (O(n^2)); they are searched by selection,
 * not sorted, and models that can never receive traffic are dropped first.
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
  private idx = new Int32Array(0);
  private kept = new Int32Array(0);
  private lam = new Float64Array(0);
  /** Ranked prefixes of fills: the models that receive traffic, in fill order. */
  private oA = new Int32Array(0);
  private oB = new Int32Array(0);
  private oC = new Int32Array(0);
  private oD = new Int32Array(0);
  /** Models used by the last fill, and its value u.p. */
  private len = 0;
  private val = 0;
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
    this.idx = new Int32Array(c);
    this.kept = new Int32Array(c);
    this.lam = new Float64Array((c * (c - 1)) / 2 + 1);
    this.oA = new Int32Array(c);
    this.oB = new Int32Array(c);
    this.oC = new Int32Array(c);
    this.oD = new Int32Array(c);
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
    // 1. Models by cost, then higher reward, then index (insertion sort: n is small). Its prefix is the
    // cheapest fill; every fill below visits models in this order, which breaks its own ties (equal
    // reduced value and cost, hence equal reward) by index.
    const idx = this.idx;
    let mass = 0;
    for (let i = 0; i < n; i++) {
      mass += alpha[i] as number;
      const ci = c[i] as number;
      const ui = u[i] as number;
      let j = i;
      while (j > 0) {
        const w = idx[j - 1] as number;
        const cw = c[w] as number;
        if (ci < cw || (ci === cw && ui > (u[w] as number))) {
          idx[j] = w;
          j--;
        } else break;
      }
      idx[j] = i;
    }
    if (!(mass >= 1 - 1e-12) || n === 0) {
      for (let i = 0; i < n; i++) out[i] = 0;
      this.value = Number.NaN;
      this.cost = Number.NaN;
      return "infeasible-mass";
    }
    let oLo = this.oB;
    let costLo = this.settle(u, c, alpha, idx, n);
    let lenLo = this.len;
    let valLo = this.val;
    for (let r = 0; r < lenLo; r++) oLo[r] = idx[r] as number;
    if (costLo > b + eps) return this.pour(u, alpha, n, oLo, lenLo, costLo, out, "infeasible-budget");
    // 2. Dominance. Model i ranks ahead of model j in every fill (by u - lambda c for each lambda >= 0,
    // then cheaper, then lower index; and the cheapest fill) exactly when u_i >= u_j and c_i <= c_j (with
    // i < j when both are equal): when i comes before j in the cost order and u_i >= u_j. Once the caps
    // of the models ranked ahead of j carry all traffic, j gets nothing in any fill, so it is dropped
    // with its order-change points: the fills, and so the result, are unchanged, and typically a third
    // of the models and half the points go.
    // (A model better than every cheaper one, or behind cheaper ones whose caps sum below 1, stays.)
    // With few models the pass costs more than it saves: all are kept.
    const kept = n > DOMINANCE_MIN ? this.kept : idx;
    let ns = n > DOMINANCE_MIN ? 0 : n;
    let best = Number.NEGATIVE_INFINITY;
    let before = 0;
    for (let q = ns; q < n; q++) {
      const j = idx[q] as number;
      const uj = u[j] as number;
      const bq = before;
      before += alpha[j] as number;
      if (uj > best || bq < FULL) {
        if (uj > best) best = uj;
        kept[ns++] = j;
        continue;
      }
      let ahead = 0;
      for (let r = 0; r < q; r++) {
        const i = idx[r] as number;
        if ((u[i] as number) >= uj) {
          ahead += alpha[i] as number;
          if (ahead >= FULL) break;
        }
      }
      if (ahead < FULL) kept[ns++] = j;
    }
    // 3. Budget slack: the greedy fill by reward alone (over the kept models: the same fill).
    let oHi = this.oA;
    let costHi = this.rankAt(0, u, c, alpha, kept, ns, oHi);
    let lenHi = this.len;
    let valHi = this.val;
    if (costHi <= b + eps) return this.pour(u, alpha, n, oHi, lenHi, costHi, out, "ok");
    // 4. Order-change points lambda = (u_i - u_j) / (c_i - c_j) > 0 of the kept models. Warm start: when
    // exactly one distinct point lies strictly between the previous solve's two multipliers (and none on
    // them), those multipliers sit in the two intervals around lambda* again if their fills straddle b,
    // and the cold search would pick the very same fills.
    const lam = this.lam;
    const wa = this.warmLo;
    const wb = this.warmHi;
    let m = 0;
    let top = 0;
    let inMin = Number.POSITIVE_INFINITY;
    let inMax = Number.NEGATIVE_INFINITY;
    let onEdge = false;
    let below = 0;
    let above = Number.POSITIVE_INFINITY;
    for (let r = 0; r < ns; r++) {
      const i = kept[r] as number;
      const ui = u[i] as number;
      const ci = c[i] as number;
      for (let q = r + 1; q < ns; q++) {
        const j = kept[q] as number;
        const v = (ui - (u[j] as number)) / (ci - (c[j] as number));
        if (!(v > 0 && v < Number.POSITIVE_INFINITY)) continue;
        lam[m++] = v;
        if (v > top) top = v;
        if (v === wa || v === wb) onEdge = true;
        else if (v > wa && v < wb) {
          if (v < inMin) inMin = v;
          if (v > inMax) inMax = v;
        } else if (v < wa) {
          if (v > below) below = v;
        } else if (v < above) above = v;
      }
    }
    // Search state: lam[s..e) holds every point in (lo, hi]; the fill of the interval starting at lo
    // (oHi: cost costHi, value valHi) is over budget and that of the interval starting at hi (oLo) is
    // not; next is the point after hi. The fill at lambda = 0 ranks like any lambda in (0, first point),
    // so it stands for lo = 0; the cheapest fill is the fill past the largest point.
    let lo = 0;
    let hi = top;
    let next = Number.POSITIVE_INFINITY;
    let s = 0;
    let e = m;
    let tmp = this.oC;
    if (wa < wb && !onEdge && inMin === inMax) {
      // Evaluate at the midpoints of the two intervals around the one point, exactly as the cold search
      // would (never near a breakpoint, where rounding could swap two nearly tied models).
      const midHi = (below + inMin) / 2;
      const midLo = above < Number.POSITIVE_INFINITY ? (inMin + above) / 2 : 2 * inMin + 1;
      const wHi = this.oC;
      const cHi = this.rankAt(midHi, u, c, alpha, kept, ns, wHi);
      const lHi = this.len;
      if (cHi > b + eps) {
        const wLo = this.oD;
        const cLo = this.rankAt(midLo, u, c, alpha, kept, ns, wLo);
        if (cLo <= b + eps) {
          this.warmLo = midHi;
          this.warmHi = midLo;
          return this.mix(u, c, alpha, n, b, eps, wLo, this.len, cLo, wHi, lHi, cHi, out);
        }
        // Both over budget: lambda* lies past inMin.
        lo = inMin;
        tmp = oHi;
        oHi = wLo;
        lenHi = this.len;
        costHi = cLo;
        valHi = this.val;
      } else if (below > 0) {
        // Within budget from below on: lambda* is at or before below.
        hi = below;
        next = inMin;
        tmp = oLo;
        oLo = wHi;
        lenLo = lHi;
        costLo = cHi;
        valLo = this.val;
      }
      e = 0;
      for (let i = 0; i < m; i++) {
        const x = lam[i] as number;
        if (x > lo && x <= hi) lam[e++] = x;
      }
    }
    // Cold search without sorting the points: the answer is the smallest point v* whose interval
    // (v*, next point) has a fill within budget. Each step splits lam[s..e) at a value x, evaluates the
    // fill of the interval around x (between the last point <= x and the first point > x, both found
    // in the same pass: the midpoints a search over the sorted distinct points uses) and keeps the half
    // that holds v*. x is where the Lagrangian lines u.p - lambda c.p of the two bracketing fills cross,
    // which is v* itself when only one point separates them; when that does not split the range, the
    // median of three points does, and so does every step after a crossing step that kept more than
    // three quarters of the range (so the range shrinks geometrically: expected work is linear in the
    // number of points).
    let cross = true;
    while (e > s) {
      const size = e - s;
      let x: number = cross ? (valHi - valLo) / (costHi - costLo) : Number.NaN;
      const crossed: boolean = x > lo && x < hi;
      if (!crossed) {
        x = median3(lam[s] as number, lam[(s + e) >>> 1] as number, lam[e - 1] as number);
        if (x === hi) {
          for (let i = s; i < e; i++) {
            const y = lam[i] as number;
            if (y < hi) {
              x = y;
              break;
            }
          }
          if (x === hi) break; // only hi is left: v* = hi
        }
      }
      // Partition: points <= x to the front of [s, e); v is the largest of them, succ the smallest of the rest.
      let q = s;
      let v = lo;
      let succ = Number.POSITIVE_INFINITY;
      for (let i = s; i < e; i++) {
        const y = lam[i] as number;
        if (y <= x) {
          lam[i] = lam[q] as number;
          lam[q++] = y;
          if (y > v) v = y;
        } else if (y < succ) succ = y;
      }
      if (q === s) {
        // No point in (lo, x]: the interval around x starts at lo, known to be over budget.
        cross = false;
        continue;
      }
      const cost = this.rankAt((v + succ) / 2, u, c, alpha, kept, ns, tmp);
      const t = tmp;
      if (cost <= b + eps) {
        hi = v;
        next = succ;
        e = q;
        tmp = oLo;
        oLo = t;
        lenLo = this.len;
        costLo = cost;
        valLo = this.val;
      } else {
        lo = v;
        s = q;
        tmp = oHi;
        oHi = t;
        lenHi = this.len;
        costHi = cost;
        valHi = this.val;
      }
      cross = !crossed || (e - s) * 4 <= size * 3;
    }
    // The midpoints of the two intervals around lambda* (no points at all: both 1).
    this.warmLo = m === 0 ? 1 : (lo + hi) / 2;
    this.warmHi = m === 0 ? 1 : next < Number.POSITIVE_INFINITY ? (hi + next) / 2 : 2 * hi + 1;
    return this.mix(u, c, alpha, n, b, eps, oLo, lenLo, costLo, oHi, lenHi, costHi, out);
  }

  /**
   * Mixes the fills on both sides of lambda* to spend exactly b (complementary slackness):
   * out = theta pLo + (1 - theta) pHi, clamped to the caps and renormalised.
   */
  private mix(
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
  private pour(
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
   * Greedy fill of the models `list[0..ns)` (in cost order) by reduced value u - lambda c (then cheaper, then index):
   * ranks the models that receive traffic into `ord`, sets `len` and returns the fill's cost. One pass
   * keeps the models ranked so far trimmed to the shortest prefix whose caps carry all traffic (plus a
   * margin far above rounding, so nothing past it could receive any): a model is ranked only if it
   * beats the last of that prefix, so a fill costs about one comparison per model.
   */
  private rankAt(
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
    for (let r = 0; r < ns; r++) {
      const i = list[r] as number;
      const ci = c[i] as number;
      const ki = (u[i] as number) - lambda * ci;
      keys[i] = ki;
      let j = len;
      if (mass >= FULL) {
        const w = ord[j - 1] as number;
        const kw = keys[w] as number;
        if (!(ki > kw || (ki === kw && ci < (c[w] as number)))) continue;
      }
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
    }
    return this.settle(u, c, alpha, ord, len);
  }

  /** Fills the ranked prefix up to each cap until all traffic is placed; sets `len` to the models used, returns the cost. */
  private settle(
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

/**
 * A ranked prefix whose caps sum to at least this carries all traffic whatever the rounding of the
 * running remainder (errors are about 1e-16 per model), so models past it never receive traffic.
 */
const FULL = 1 + 1e-9;

/** Fewest models for which dropping dominated ones pays (below it the pass costs more than it saves). */
const DOMINANCE_MIN = 6;

function median3(a: number, b: number, c: number): number {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
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
