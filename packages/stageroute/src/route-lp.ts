/**
 * RouteOPT (paper eq. 7): the routing LP over the deployed models,
 *
 *   max_p  sum_i u_i p_i   s.t.  sum_i c_i p_i <= b,  sum_i p_i = 1,  0 <= p_i <= alpha_i,
 *
 * solved exactly by Lagrangian duality on the budget row. For a multiplier lambda >= 0 the problem
 * over box-and-simplex is solved by a greedy fill in order of the reduced value u - lambda c, and the
 * dual function g(lambda) = lambda b + max_p (u - lambda c).p is convex and piecewise linear: each fill
 * p contributes the line u.p - lambda c.p (plus lambda b). Starting from the fill by reward alone (over
 * budget) and the cheapest fill (within budget), a Newton (Dinkelbach) iteration evaluates the fill
 * where the lines of the two bracketing fills cross; when no fill lies above that crossing, the
 * crossing is the optimal multiplier, both fills maximise the Lagrangian there, and mixing them to
 * spend exactly b satisfies complementary slackness. Otherwise the new fill replaces the bracketing
 * fill on its side of the budget. Typically one to three fills settle it.
 *
 * When no routing meets the budget (the deployed models' cost bounds rose mid-stage) the solver
 * returns the cheapest fill that respects the caps ("infeasible-budget"); capacity caps are hard
 * rate limits and are never exceeded. Everything runs in preallocated buffers: no allocation.
 */
import { BreakpointSolver } from "./route-breakpoints.js";
import type { RouteStatus } from "./route-fill.js";

export { type RouteStatus, SUPPORT_EPS } from "./route-fill.js";

/**
 * Relative tolerance of the Newton stopping test, far above the rounding of a fill's value and cost
 * (about 1e-16 per model) and far below any gap that matters: stopping when the best fill lies at most
 * `tol` above the crossing leaves the objective within `tol` of the optimum (see `solve`).
 */
const NEWTON_TOL = 1e-13;

/** Exact solver of the routing LP, reusable across calls with up to `capacity` models. */
export class RouteSolver extends BreakpointSolver {
  /** Solves that fell back to the exact breakpoint search because the Newton iteration did not settle. */
  fallbacks = 0;
  /**
   * Dual prices of the last "ok" solve when it settled without the fallback (else NaN): the budget row's
   * multiplier and the simplex row's (the reduced value of the last model filled). Any lambda >= 0 and
   * tau bound the LP from above, lambda b + tau + sum_i alpha_i (u_i - lambda c_i - tau)^+ (weak duality):
   * a caller solving many similar LPs (branch.ts) prices the next with them before solving it.
   */
  dualLambda = Number.NaN;
  dualTau = Number.NaN;
  /** Cost of the last solve's cheapest fill (the smallest cost any routing of its models reaches); NaN before one. */
  cheapCost = Number.NaN;

  /**
   * `costOrder[0..costLen)`, when given, is a prefix of the models' cost order (by cost, then higher
   * reward `u`, then index, exactly as `sortByCost` ranks them) that reaches the first model at which
   * the cheapest fill places all traffic (or holds all n models): the cheapest fill then skips its sort.
   * A caller that solves many LPs over subsets of one pool ranks them from one sort of the pool.
   */
  override solve(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    alpha: ArrayLike<number>,
    n: number,
    b: number,
    out: Float64Array,
    costOrder?: Int32Array,
    costLen = 0,
  ): RouteStatus {
    this.grow(n);
    this.dualLambda = Number.NaN;
    if (!this.massOk(alpha, n, out)) return "infeasible-mass";
    const eps = Number.isFinite(b) ? 1e-12 * Math.abs(b) : 0;
    if (b === Number.POSITIVE_INFINITY) {
      // No budget: no fill is over it, so the fill by reward alone below is the answer and the cheapest
      // fill (ranked only to test the budget and to bracket the Newton iteration) would go unused. A
      // fill whose cost is NaN (non-finite inputs) falls through to the full sequence, which repeats it.
      const cost = this.fillAt(0, u, c, alpha, n, this.oA);
      if (cost <= b) return this.pour(u, alpha, n, this.oA, this.len, cost, out, "ok");
    }
    // The cheapest fill: when it is over budget, no routing meets the budget.
    let oLo = this.oB;
    let costLo = this.cheapestFill(u, c, alpha, n, oLo, costOrder, costLen);
    this.cheapCost = costLo;
    let lenLo = this.len;
    let valLo = this.val;
    if (costLo > b + eps) return this.pour(u, alpha, n, oLo, lenLo, costLo, out, "infeasible-budget");
    // Budget slack: the fill by reward alone (lambda = 0; ties to the cheaper model) meets the budget.
    let oHi = this.oA;
    let costHi = this.fillAt(0, u, c, alpha, n, oHi);
    let lenHi = this.len;
    let valHi = this.val;
    if (costHi <= b + eps) {
      this.dualLambda = 0;
      this.dualTau = u[oHi[lenHi - 1] as number] as number;
      return this.pour(u, alpha, n, oHi, lenHi, costHi, out, "ok");
    }
    // Newton on the dual. The bracketing fills pHi (over budget) and pLo (within) each maximise the
    // Lagrangian for some multiplier (pHi for a smaller one); their lines cross at x. The fill p at x
    // (ties at exactly x broken by the cheaper model, then the index) maximises the Lagrangian there.
    // If it lies at most tol above the crossing, g(x) <= x b + crossing + tol, while the mix of pLo and
    // pHi that spends exactly b is worth x b + crossing: it is optimal up to tol (exactly, in exact
    // arithmetic: both fills then maximise the Lagrangian at x = lambda*). At a breakpoint several fills
    // tie for the maximum and p may be any of them; all have the same Lagrangian value at x, so the test
    // does not depend on which one comes out. Otherwise p lies strictly above the chord, hence strictly
    // between the two fills in cost, and replaces the one on its side of the budget: the cost bracket
    // shrinks to a new point of the upper hull of (cost, value) over all fills, of which there are
    // finitely many, so the iteration ends. Rounding can make fills on one line (a tie) look a hair
    // above the chord of the others; the test takes the smaller excess over either line, so a fill
    // equal to a bracketing one always stops it, and a step cap hands any other stall to the exact
    // breakpoint search.
    let tmp = this.oC;
    const steps = this.stepCap(n);
    let x = 0;
    for (let step = 0; ; step++) {
      x = (valHi - valLo) / (costHi - costLo);
      const ax = Math.abs(x);
      const scale = Math.abs(valHi) + Math.abs(valLo) + ax * (Math.abs(costHi) + Math.abs(costLo));
      if (step > 0) {
        // The same test without ranking a fill: an upper bound on the fill's Lagrangian value at x
        // (by duality, priced at the reduced value of pLo's last model, which is exact when pLo is
        // optimal at x) that does not exceed either line by more than tol settles it. The first
        // crossing, of the two extreme fills, rarely settles, so it goes straight to the fill.
        const m = oLo[lenLo - 1] as number;
        const tau = (u[m] as number) - x * (c[m] as number);
        const over = this.dualBound(x, tau, u, c, alpha, n) - Math.min(valHi - x * costHi, valLo - x * costLo);
        if (over <= NEWTON_TOL * (scale + Math.abs(tau))) break;
      }
      const cost = this.fillAt(x, u, c, alpha, n, tmp);
      const val = this.val;
      const overHi = val - valHi - x * (cost - costHi);
      const overLo = val - valLo - x * (cost - costLo);
      const tol = NEWTON_TOL * (scale + Math.abs(val) + ax * Math.abs(cost));
      if (!(overHi > tol && overLo > tol)) break;
      if (step === steps) {
        this.fallbacks++;
        return this.breakpointSearch(u, c, alpha, n, b, out);
      }
      const t = tmp;
      if (cost > b + eps) {
        tmp = oHi;
        oHi = t;
        lenHi = this.len;
        costHi = cost;
        valHi = val;
      } else {
        tmp = oLo;
        oLo = t;
        lenLo = this.len;
        costLo = cost;
        valLo = val;
      }
    }
    const last = oLo[lenLo - 1] as number;
    this.dualLambda = x;
    this.dualTau = (u[last] as number) - x * (c[last] as number);
    return this.mix(u, c, alpha, n, b, eps, oLo, lenLo, costLo, oHi, lenHi, costHi, out);
  }

  /** Most fills the Newton iteration ranks before it falls back (far above the one to three it takes). */
  protected stepCap(n: number): number {
    return n * n + 4;
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
