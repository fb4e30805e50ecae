/**
 * OFU-MNL+ hyper-parameters and the exact confidence radius beta_t(delta) (from the
 * proof of Lemma 1, App. F.1 of the paper; the main text only states beta_t = O(sqrt(d) log t log K)).
 */
import { assertInRange, assertInt } from "@routekit/core";

export interface OfuMnlHyper {
  /** Step size eta = ln(K + 1) / 2 + 2. */
  readonly eta: number;
  /** Ridge lambda = 84 sqrt(2) d eta (H_1 = lambda I). */
  readonly lambda: number;
}

/** The paper's default eta and lambda for dimension d and maximum assortment size K (Lemma 1 / Thm 2). */
export function ofuMnlHyperparameters(d: number, K: number): OfuMnlHyper {
  assertInt(d, "dim", 1);
  assertInt(K, "maxSize", 1);
  const eta = 0.5 * Math.log(K + 1) + 2;
  return { eta, lambda: 84 * Math.SQRT2 * d * eta };
}

export interface BetaParams {
  readonly d: number;
  readonly K: number;
  readonly eta: number;
  readonly lambda: number;
  /** Confidence level delta in (0, 1]. */
  readonly delta: number;
}

/**
 * beta_{s+1}(delta) for s >= 1, and beta_1 = 2 sqrt(lambda) for s = 0:
 *
 *   L_s = ln(2 sqrt(1 + 2s) / delta)
 *   beta_{s+1}^2 = 2 eta [ (3 ln(1 + (K+1) s) + 3) ((17/16) lambda + 2 sqrt(lambda) L_s + 16 L_s^2)
 *                          + 2 + sqrt(6) c d ln(1 + (s+1)/(2 lambda)) ] + 4 lambda,   c = 7 eta / 6
 *
 * Increasing in s, decreasing in delta. Golden values (d = 5, delta = 1, s = 1): 327.1 (K = 5), 430.2 (K = 15).
 */
export function ofuMnlBeta(s: number, p: BetaParams): number {
  if (!(s >= 0) || !Number.isFinite(s)) assertInRange(s, "s", 0, Number.MAX_VALUE);
  assertInRange(p.delta, "delta", 0, 1, { min: true });
  if (s === 0) return 2 * Math.sqrt(p.lambda);
  const { d, K, eta, lambda } = p;
  const c = (7 * eta) / 6;
  // ln(a / delta), finite even when a / delta overflows (delta down to the smallest double; same bits otherwise).
  const a = 2 * Math.sqrt(1 + 2 * s);
  const q = a / p.delta;
  const L = Number.isFinite(q) ? Math.log(q) : Math.log(a) - Math.log(p.delta);
  const inner =
    (3 * Math.log(1 + (K + 1) * s) + 3) * ((17 / 16) * lambda + 2 * Math.sqrt(lambda) * L + 16 * L * L) +
    2 +
    Math.sqrt(6) * c * d * Math.log(1 + (s + 1) / (2 * lambda));
  return Math.sqrt(2 * eta * inner + 4 * lambda);
}
