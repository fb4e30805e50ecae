/**
 * The exact breakpoint search for the routing LP: the RouteSolver's fallback when its Newton iteration
 * does not settle, and the reference the tests compare it with. It searches the pairwise order-change
 * points of the reduced values u - lambda c for the optimal multiplier, evaluating fills only at
 * midpoints between points (never at a breakpoint, so floating-point ties cannot derail it):
 * O(n^2) points, searched by selection rather than sorted, after dropping models that can never
 * receive traffic.
 */
import { FillKernels, FULL, type RouteStatus } from "./route-fill.js";

/** Fewest models for which dropping dominated ones pays (below it the pass costs more than it saves). */
const DOMINANCE_MIN = 6;

/** The routing LP solved by the exact breakpoint search alone (the Newton solver's fallback). */
export class BreakpointSolver extends FillKernels {
  solve(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    out: Float64Array,
  ): RouteStatus {
    this.grow(n);
    if (!this.massOk(alpha, n, out)) return "infeasible-mass";
    return this.breakpointSearch(u, c, alpha, n, b, out);
  }

  /**
   * Solves the LP by the breakpoint search (the caps summing to at least 1): the cheapest fill when no routing meets the budget, the fill by reward alone when it does,
   * otherwise the mix of the two fills around the optimal multiplier.
   */
  protected breakpointSearch(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    out: Float64Array,
  ): RouteStatus {
    const eps = Number.isFinite(b) ? 1e-12 * Math.abs(b) : 0;
    this.sortByCost(u, c, n);
    const idx = this.idx;
    let oLo = this.oB;
    let costLo = this.settle(u, c, alpha, idx, n);
    let lenLo = this.len;
    let valLo = this.val;
    for (let r = 0; r < lenLo; r++) oLo[r] = idx[r] as number;
    if (costLo > b + eps) return this.pour(u, alpha, n, oLo, lenLo, costLo, out, "infeasible-budget");
    // Dominance. Model i ranks ahead of model j in every fill (by u - lambda c for each lambda >= 0,
    // then cheaper, then lower index; and the cheapest fill) exactly when u_i >= u_j and c_i <= c_j (with
    // i < j when both are equal): when i comes before j in the cost order and u_i >= u_j. Once the caps
    // of the models ranked ahead of j carry all traffic, j gets nothing in any fill, so it is dropped
    // with its order-change points: the fills, and so the result, are unchanged.
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
    // Budget slack: the greedy fill by reward alone (over the kept models: the same fill).
    let oHi = this.oA;
    let costHi = this.rankAt(0, u, c, alpha, kept, ns, oHi);
    let lenHi = this.len;
    let valHi = this.val;
    if (costHi <= b + eps) return this.pour(u, alpha, n, oHi, lenHi, costHi, out, "ok");
    // Order-change points lambda = (u_i - u_j) / (c_i - c_j) > 0 of the kept models.
    const lam = this.lamFor(ns);
    let m = 0;
    let top = 0;
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
      }
    }
    // Search state: lam[s..e) holds every point in (lo, hi]; the fill of the interval starting at lo
    // (oHi: cost costHi, value valHi) is over budget and that of the interval starting at hi (oLo) is
    // not. The fill at lambda = 0 ranks like any lambda in (0, first point), so it stands for lo = 0;
    // the cheapest fill is the fill past the largest point.
    let lo = 0;
    let hi = top;
    let s = 0;
    let e = m;
    let tmp = this.oC;
    // The answer is the smallest point v* whose interval (v*, next point) has a fill within budget.
    // Each step splits lam[s..e) at a value x, evaluates the fill of the interval around x (between the
    // last point <= x and the first point > x, both found in the same pass: the midpoints a search over
    // the sorted distinct points uses) and keeps the half that holds v*. x is where the Lagrangian lines
    // u.p - lambda c.p of the two bracketing fills cross, which is v* itself when only one point
    // separates them; when that does not split the range, the median of three points does, and so does
    // every step after a crossing step that kept more than three quarters of the range (so the range
    // shrinks geometrically: expected work is linear in the number of points).
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
    return this.mix(u, c, alpha, n, b, eps, oLo, lenLo, costLo, oHi, lenHi, costHi, out);
  }
}

function median3(a: number, b: number, c: number): number {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
}
