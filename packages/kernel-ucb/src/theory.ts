/**
 * The constants of Sup-RFF-UCB (the paper's Algorithm 6, Lemmas 10-11, Theorem 4).
 * They exist for reference: with the paper's thresholds the required feature count grows like t^4
 * (about 6.8e10 at t = 100 for d = 512, sigma = 5), so Sup-RFF-UCB caps it (see SupRffUcb).
 */
import { checkNumber } from "@routekit/core";
import { logRatio } from "./options.js";

// The reference formulas are exported: their arguments are checked like options (a d of 0, an eps of 0 or a
// missing field gave NaN or Infinity), at the cost of a few comparisons per call.
const POSITIVE = { min: 0, openMin: true } as const;
const NON_NEGATIVE = { min: 0 } as const;
const DIMENSION = { integer: true, min: 1 } as const;
const PROBABILITY = { min: 0, max: 1, openMin: true, openMax: true } as const;

/** zeta_eps for the RBF kernel on the unit sphere: min(1, (1 - e^{-4/sigma^2})^2 / 2 + eps/3). */
export function zetaRbfSphere(sigma: number, eps: number): number {
  checkNumber(sigma, "zetaRbfSphere sigma", POSITIVE);
  checkNumber(eps, "zetaRbfSphere eps", NON_NEGATIVE);
  const a = 1 - Math.exp(-4 / (sigma * sigma));
  return Math.min(1, (a * a) / 2 + eps / 3);
}

/** beta_d = ((d/2)^{-d/(d+2)} + (d/2)^{2/(d+2)}) 2^{(6d+2)/(d+2)} (Sutherland & Schneider 2015). */
export function betaD(d: number): number {
  checkNumber(d, "betaD d", DIMENSION);
  const h = d / 2;
  return (h ** (-d / (d + 2)) + h ** (2 / (d + 2))) * 2 ** ((6 * d + 2) / (d + 2));
}

export interface FeatureCountInput {
  /** Input dimension d. */
  readonly d: number;
  /** RBF bandwidth sigma (sigma_p = sqrt(d) / sigma). */
  readonly sigma: number;
  /** Uniform kernel-approximation error epsilon. */
  readonly eps: number;
  /** Spectral approximation Delta (Lemma 10). */
  readonly Delta: number;
  readonly delta: number;
  /** Points n in the regression. */
  readonly n: number;
  readonly alpha: number;
  /** Diameter of the input set (2 on the sphere; eq. 14/20 omit it, Lemma 11 has it). */
  readonly diam?: number;
}

/**
 * The paper's lower bound on the number of frequencies D (Algorithm 6):
 * max{ 4(d+2) zeta / eps^2 ceil((2/(1+2/d)) ln(sigma_p diam / eps) + ln(beta_d / delta)),
 *      (8n/(3 alpha)) Delta^-2 ln(32 iota / delta) } with iota <= n standing in for tr((K+aI)^-1 K).
 */
export function paperFeatureCount(x: FeatureCountInput): number {
  const { d, sigma, eps, Delta, delta, n, alpha } = x;
  const diam = x.diam ?? 2;
  checkNumber(d, "paperFeatureCount d", DIMENSION);
  checkNumber(sigma, "paperFeatureCount sigma", POSITIVE);
  checkNumber(eps, "paperFeatureCount eps", POSITIVE);
  checkNumber(Delta, "paperFeatureCount Delta", POSITIVE);
  checkNumber(delta, "paperFeatureCount delta", PROBABILITY);
  checkNumber(n, "paperFeatureCount n", NON_NEGATIVE);
  checkNumber(alpha, "paperFeatureCount alpha", POSITIVE);
  checkNumber(diam, "paperFeatureCount diam", POSITIVE);
  const sigmaP = Math.sqrt(d) / sigma;
  const zeta = zetaRbfSphere(sigma, eps);
  const uniform =
    ((4 * (d + 2) * zeta) / (eps * eps)) *
    Math.ceil((2 / (1 + 2 / d)) * Math.log((sigmaP * diam) / eps) + logRatio(betaD(d), delta));
  const iota = Math.max(1, n);
  const spectral = n > 0 ? ((8 * n) / (3 * alpha)) * Delta ** -2 * logRatio(32 * iota, delta) : 0;
  return Math.max(uniform, spectral);
}

/** The paper's thresholds at equality: eps = t^-2, Delta = alpha t^-2 (n + alpha)^-1. */
export function paperThresholds(t: number, n: number, alpha: number): { eps: number; Delta: number } {
  checkNumber(t, "paperThresholds t", POSITIVE);
  checkNumber(n, "paperThresholds n", NON_NEGATIVE);
  checkNumber(alpha, "paperThresholds alpha", POSITIVE);
  return { eps: t ** -2, Delta: (alpha * t ** -2) / (n + alpha) };
}

/** B1 = n eps + alpha^-1 n Delta (n + alpha); = 2n / t^2 at the paper's thresholds. */
export function bias1(n: number, eps: number, Delta: number, alpha: number): number {
  checkNumber(n, "bias1 n", NON_NEGATIVE);
  checkNumber(eps, "bias1 eps", NON_NEGATIVE);
  checkNumber(Delta, "bias1 Delta", NON_NEGATIVE);
  checkNumber(alpha, "bias1 alpha", POSITIVE);
  return n * eps + (n * Delta * (n + alpha)) / alpha;
}

/** B2 = (alpha t)^-1/2 + t^{3/2} alpha^-1/2 (alpha^-1 Delta (n + alpha) + 2 eps); = 4 / sqrt(alpha t) at the thresholds. */
export function bias2(t: number, n: number, eps: number, Delta: number, alpha: number): number {
  checkNumber(t, "bias2 t", POSITIVE);
  checkNumber(n, "bias2 n", NON_NEGATIVE);
  checkNumber(eps, "bias2 eps", NON_NEGATIVE);
  checkNumber(Delta, "bias2 Delta", NON_NEGATIVE);
  checkNumber(alpha, "bias2 alpha", POSITIVE);
  return 1 / Math.sqrt(alpha * t) + (t ** 1.5 / Math.sqrt(alpha)) * ((Delta * (n + alpha)) / alpha + 2 * eps);
}
