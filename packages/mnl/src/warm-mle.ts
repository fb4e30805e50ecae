/**
 * Warm-started MLE refit for UCB-MNL and TS-MNL: each round adds one round to the history and moves
 * the estimate from the previous optimum. The data gradient at the current estimate is kept between
 * rounds, so the new round's terms cost O(K d^2) and a round whose estimate barely moves needs no pass
 * over the history at all; otherwise a Newton step with a cached Hessian (a chord step) and one
 * gradient-only pass (O(t K d), about a third of a pass with the Hessian at d = 5) to test convergence.
 * The Hessian is recomputed exactly over the whole history when the estimate is far from the optimum,
 * when a chord step did not converge, and when the history has doubled since the last refresh, so
 * its staleness stays bounded at an amortised O(1) extra passes per round. The per-round cost stays
 * linear in t (the gradient test reads every past round), with a far smaller constant than full
 * Newton iterations.
 *
 * Convergence test: the Newton decrement g^T H~^-1 g / 2 <= tol (1e-8) with the cached H~, which is
 * positive definite and close to the true Hessian. At that decrement the estimate is within about
 * sqrt(2e-8) = 1.4e-4 of the exact MLE in the Hessian norm, in which the exploration radius alpha is
 * at least 1: far below the statistical error, and one chord step from the previous optimum usually
 * reaches it.
 */
import { choleskyFactor, dot, symmetrizeUpper } from "@routekit/linalg";
import { type ChoiceHistory, dataPass, gradientPass, hessianPass, type MleWorkspace } from "./mle.js";
import { solveCholesky } from "./model.js";

/** Newton-decrement tolerance of the warm-started refit (see above). */
export const WARM_MLE_TOLERANCE = 1e-8;

/** What the refit keeps between rounds (part of a snapshot). */
export interface WarmMleState {
  /** Data gradient over the rounds learned so far, at the current estimate. */
  readonly g: Float64Array;
  /** Upper triangle of the cached data Hessian (each round's term at the estimate of its last refresh). */
  readonly H: Float64Array;
  /** History length at the last exact Hessian refresh. */
  refreshedAt: number;
}

function refresh(
  h: ChoiceHistory,
  count: number,
  v0: number,
  theta: Float64Array,
  st: WarmMleState,
  ws: MleWorkspace,
): void {
  st.g.fill(0);
  st.H.fill(0);
  hessianPass(h, 0, count, v0, theta, ws, st.g, st.H);
  st.refreshedAt = count;
}

/**
 * Refits theta (in place) over the first `count` rounds, where `st` covers the first count - 1 rounds
 * at theta. Updates `st` for the returned estimate. Returns the passes over the history used
 * (0 when the new round leaves the estimate converged).
 */
export function warmFitMnlMle(
  h: ChoiceHistory,
  count: number,
  v0: number,
  lambda: number,
  theta: Float64Array,
  st: WarmMleState,
  ws: MleWorkspace,
  maxIter: number,
  tol = WARM_MLE_TOLERANCE,
): number {
  const d = h.d;
  const { g, H, LH, step, trial } = ws;
  let passes = 0;
  if (count > 2 * st.refreshedAt + 8) {
    refresh(h, count, v0, theta, st, ws);
    passes++;
  } else {
    hessianPass(h, count - 1, count, v0, theta, ws, st.g, st.H);
  }
  let exact = st.refreshedAt === count;
  let restarted = false;
  for (let it = 0; it < maxIter; it++) {
    for (let k = 0; k < d; k++) g[k] = (st.g[k] as number) + lambda * (theta[k] as number);
    for (let i = 0; i < d * d; i++) H[i] = st.H[i] as number;
    for (let k = 0; k < d; k++) H[k * d + k] = (H[k * d + k] as number) + lambda;
    symmetrizeUpper(H, d);
    if (!choleskyFactor(H, d, LH)) {
      if (exact) break;
      refresh(h, count, v0, theta, st, ws);
      passes++;
      exact = true;
      it--;
      continue;
    }
    solveCholesky(LH, d, g, step);
    const dec = dot(g, step, d);
    if (!(dec / 2 > tol)) break;
    if (!exact && (dec > 0.1 || it > 0)) {
      // Far from the optimum, or a chord step did not converge: use the exact Hessian.
      refresh(h, count, v0, theta, st, ws);
      passes++;
      exact = true;
      it--;
      continue;
    }
    let t = 1;
    if (dec > 0.1) {
      // Damped Newton with Armijo backtracking on the regularised NLL.
      let f = dataPass(h, 0, count, v0, theta, ws, g, H, 0);
      for (let k = 0; k < d; k++) f += 0.5 * lambda * (theta[k] as number) * (theta[k] as number);
      passes++;
      if (!Number.isFinite(f) && !restarted) {
        // No real estimate has an infinite objective (it is at most the objective at 0, a sum of logs over finite
        // features); only a snapshot edited to an absurd theta (|theta|^2 overflowing) does, and from there every
        // Armijo test fails (f - ... is Infinity or NaN): 30 halvings, a step of 2^-30, on every round for good.
        // Restart once from 0, where a fresh policy's estimate starts, with exact derivatives there. Real runs never
        // reach this branch, so their estimates are unchanged bit for bit.
        theta.fill(0);
        refresh(h, count, v0, theta, st, ws);
        passes++;
        exact = true;
        restarted = true;
        it--;
        continue;
      }
      for (let bt = 0; bt < 30; bt++) {
        for (let k = 0; k < d; k++) trial[k] = (theta[k] as number) - t * (step[k] as number);
        let ft = dataPass(h, 0, count, v0, trial, ws, g, H, 0);
        for (let k = 0; k < d; k++) ft += 0.5 * lambda * (trial[k] as number) * (trial[k] as number);
        passes++;
        if (ft <= f - 1e-4 * t * dec) break;
        t *= 0.5;
      }
    }
    for (let k = 0; k < d; k++) theta[k] = (theta[k] as number) - t * (step[k] as number);
    // The gradient at the new estimate: the convergence test of the next iteration, and the cache.
    st.g.fill(0);
    gradientPass(h, 0, count, v0, theta, ws, st.g);
    passes++;
    exact = false;
  }
  ws.iterations = passes;
  return passes;
}
