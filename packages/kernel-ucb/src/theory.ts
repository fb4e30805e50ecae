/**
 * The constants of Sup-RFF-UCB (the paper's Algorithm 6, Lemmas 10-11, Theorem 4).
 * They exist for reference: with the paper's thresholds the required feature count grows like t^4
 * (about 6.8e10 at t = 100 for d = 512, sigma = 5), so Sup-RFF-UCB caps it (see SupRffUcb).
 */
import { logRatio } from "./options.js";

/** zeta_eps for the RBF kernel on the unit sphere: min(1, (1 - e^{-4/sigma^2})^2 / 2 + eps/3). */
export function zetaRbfSphere(sigma: number, eps: number): number {
  const a = 1 - Math.exp(-4 / (sigma * sigma));
  return Math.min(1, (a * a) / 2 + eps / 3);
}

/** beta_d = ((d/2)^{-d/(d+2)} + (d/2)^{2/(d+2)}) 2^{(6d+2)/(d+2)} (Sutherland & Schneider 2015). */
export function betaD(d: number): number {
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
  return { eps: t ** -2, Delta: (alpha * t ** -2) / (n + alpha) };
}

/** B1 = n eps + alpha^-1 n Delta (n + alpha); = 2n / t^2 at the paper's thresholds. */
export function bias1(n: number, eps: number, Delta: number, alpha: number): number {
  return n * eps + (n * Delta * (n + alpha)) / alpha;
}

/** B2 = (alpha t)^-1/2 + t^{3/2} alpha^-1/2 (alpha^-1 Delta (n + alpha) + 2 eps); = 4 / sqrt(alpha t) at the thresholds. */
export function bias2(t: number, n: number, eps: number, Delta: number, alpha: number): number {
  return 1 / Math.sqrt(alpha * t) + (t ** 1.5 / Math.sqrt(alpha)) * ((Delta * (n + alpha)) / alpha + 2 * eps);
}
