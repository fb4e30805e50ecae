/**
 * Confidence bounds of StageRoute (Li & Li, "Keeping Up with the Models", eqs. 4-5):
 *
 *   f_rad(v, n) = sqrt(gamma v / n) + gamma / n
 *   UCB(m) = clamp(mean_r + 2 f_rad(mean_r, N + 1), 0, 1)       reward upper bound
 *   LCB(m) = clamp(mean_c - 2 f_rad(mean_c, N + 1), c1, c2)     cost lower bound
 *
 * An unplayed arm uses the priors (reward 1, cost c1 by default), so it looks maximally optimistic:
 * UCB = 1 and LCB = c1. Costs here are already in cost units (divided by `costUnit`).
 */

/** `sqrt(gamma v / n) + gamma / n` for v >= 0, n >= 1 (v below 0 counts as 0). */
export function fRad(v: number, n: number, gamma: number): number {
  return Math.sqrt((gamma * (v > 0 ? v : 0)) / n) + gamma / n;
}

/** Mean of a sum over n plays: the plain mean `sum / n`, or the shrunk `sum / (n + 1)` of the paper's App. B. */
export type Estimator = "mean" | "shrunk";

/** Reward UCB of an arm with `n` plays and reward sum `sum`. */
export function rewardUcb(sum: number, n: number, gamma: number, estimator: Estimator, prior: number): number {
  if (n === 0) {
    const v = prior + 2 * fRad(prior, 1, gamma);
    return v > 1 ? 1 : v < 0 ? 0 : v;
  }
  const mean = estimator === "mean" ? sum / n : sum / (n + 1);
  const v = mean + 2 * fRad(mean, n + 1, gamma);
  return v > 1 ? 1 : v < 0 ? 0 : v;
}

/** Cost LCB of an arm with `n` plays and cost sum `sum`, clamped to [c1, c2]. */
export function costLcb(
  sum: number,
  n: number,
  gamma: number,
  estimator: Estimator,
  prior: number,
  c1: number,
  c2: number,
): number {
  const mean = n === 0 ? prior : estimator === "mean" ? sum / n : sum / (n + 1);
  const v = mean - 2 * fRad(mean, n + 1, gamma);
  return v < c1 ? c1 : v > c2 ? c2 : v;
}
