/**
 * Standard normal density and distribution function to double precision (no Node built-ins, and
 * Math has no erf): a positive-term series of erf for |x| < 2.5 and a Lentz continued fraction of erfc
 * beyond.
 */

const SQRT_PI = Math.sqrt(Math.PI);
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/** erf(x) = 2/sqrt(pi) e^{-x^2} sum_n 2^n x^{2n+1} / (1*3*...*(2n+1)), all terms positive (|x| small). */
function erfSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (Math.abs(term) < 1e-17 * Math.abs(sum)) break;
  }
  return ((2 / SQRT_PI) * Math.exp(-x2) * sum) as number;
}

/** erfc(x) for x >= 2 by the continued fraction e^{-x^2}/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))). */
function erfcFraction(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let C = x;
  let D = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    D = x + a * D;
    if (D === 0) D = tiny;
    C = x + a / C;
    if (C === 0) C = tiny;
    D = 1 / D;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) return 1 - erfSeries(x);
  if (x > 27) return 0;
  return erfcFraction(x);
}

/** Standard normal density. */
export function normalPdf(x: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * x * x);
}

/** Standard normal CDF Phi(x). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Acklam's rational approximation of the normal quantile (relative error < 1.2e-9), refined below. */
const QA = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
];
const QB = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const QC = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const QD = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

function poly(c: readonly number[], x: number): number {
  let s = 0;
  for (const k of c) s = s * x + k;
  return s;
}

/**
 * Standard normal quantile Phi^{-1}(p) for p in (0, 1) (NaN outside): Acklam's approximation plus one Halley step
 * on {@link normalCdf}, so `normalCdf(normalQuantile(p))` is p to about 1e-12 relative (z = 1.95996398454005 for
 * p = 0.975).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return Number.NaN;
  let x: number;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = poly(QC, q) / (poly(QD, q) * q + 1);
  } else if (p > 1 - 0.02425) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -poly(QC, q) / (poly(QD, q) * q + 1);
  } else {
    const q = p - 0.5;
    const r = q * q;
    x = (poly(QA, r) * q) / (poly(QB, r) * r + 1);
  }
  // Halley's step: e = Phi(x) - p, u = e / phi(x).
  const e = normalCdf(x) - p;
  const u = e / normalPdf(x);
  return x - u / (1 + (x * u) / 2);
}
