/**
 * Bregman projection of a spectrum onto the nuclear-norm ball under the hypentropy (paper §5.1, Eq. 17
 * and 35-36), exported with input checks. By von Neumann's trace inequality the eigenvectors stay; the
 * eigenvalues solve min_{|lambda|_1 <= tau} sum_i D_phi(lambda_i || beta sinh(gamma_i)), whose solution in
 * mirror coordinates is a plain soft threshold: gamma_i <- sign(gamma_i) max(|gamma_i| - nu, 0), with nu the
 * smallest nu >= 0 such that beta sum_i max(sinh(|gamma_i| - nu), 0) <= tau (equality when nu > 0).
 *
 * Every function checks its input before reading or writing anything (core's rule): vectors are Float64Array,
 * Float32Array or number[] (INVALID_ARGUMENT otherwise; a vector updated in place must be a Float64Array) with at
 * least `n` entries (DIMENSION_MISMATCH), all finite (NON_FINITE); `n` an integer >= 0, `beta` > 0, `tau` >= 0 and
 * `nu` >= 0 finite numbers (OUT_OF_RANGE, NON_FINITE, INVALID_ARGUMENT); `scratch` a Float64Array of at least `n`
 * entries sharing no memory with the input. The iterates run the same kernels unchecked (threshold-core.ts).
 */
import {
  bisectThresholdUnchecked,
  hypentropyProjectUnchecked,
  hypentropyThresholdUnchecked,
  l1ThresholdUnchecked,
  softThresholdUnchecked,
} from "./threshold-core.js";
import { checkBeta, checkRadius, checkScratch, finiteResult, readInPlace, readPrefix } from "./toolkit-checks.js";

/**
 * The threshold nu for mirror eigenvalues gamma[0..n) (signed; zeros are ignored), exact on each segment of the
 * active set (closed form; bisection when some |gamma| exceeds 700). O(n log n). `scratch` (n entries) is
 * overwritten. Right after a projection the input can sit on the boundary, where rounding makes the last
 * segment's root slightly negative: the result is clamped at 0.
 */
export function hypentropyThreshold(
  gamma: ArrayLike<number>,
  n: number,
  beta: number,
  tau: number,
  scratch: Float64Array,
): number {
  const g = readPrefix(gamma, n, "gamma");
  const b = checkBeta(beta);
  const t = checkRadius(tau);
  return finiteResult(hypentropyThresholdUnchecked(g.values, g.n, b, t, checkScratch(scratch, g.n, gamma)), "nu");
}

/** The same threshold by bisection on the decreasing g(nu) = beta sum max(sinh(z_i - nu), 0) - tau over z[0..m). */
export function bisectThreshold(z: ArrayLike<number>, m: number, beta: number, tau: number): number {
  const v = readPrefix(z, m, "z", "m");
  const b = checkBeta(beta);
  const t = checkRadius(tau);
  return finiteResult(bisectThresholdUnchecked(v.values, v.n, b, t), "nu");
}

/**
 * The hypentropy projection of gamma[0..n) in place (a Float64Array): gamma_i <- sign(gamma_i) max(|gamma_i| - nu,
 * 0) with nu = {@link hypentropyThreshold}; returns nu. When the kept values are tiny next to |gamma| (a beta many
 * orders above the radius) they are computed from the differences to the largest |gamma|, so they keep their
 * digits; otherwise it is exactly softThreshold(gamma, n, hypentropyThreshold(...)). `scratch` needs n entries.
 */
export function hypentropyProject(
  gamma: Float64Array,
  n: number,
  beta: number,
  tau: number,
  scratch: Float64Array,
): number {
  const count = readInPlace(gamma, n, "gamma");
  const b = checkBeta(beta);
  const t = checkRadius(tau);
  return hypentropyProjectUnchecked(gamma, count, b, t, checkScratch(scratch, count, gamma));
}

/** gamma_i <- sign(gamma_i) max(|gamma_i| - nu, 0) for i < n, in place (gamma a Float64Array, nu >= 0). */
export function softThreshold(gamma: Float64Array, n: number, nu: number): void {
  const count = readInPlace(gamma, n, "gamma");
  softThresholdUnchecked(gamma, count, checkRadius(nu, "nu"));
}

/**
 * Threshold of the Euclidean projection onto the l1 ball of radius tau (Duchi, Shalev-Shwartz, Singer &
 * Chandra 2008): the theta >= 0 with sum max(|x_i| - theta, 0) = tau, or 0 when |x|_1 <= tau. `scratch`
 * (n entries) is overwritten.
 */
export function l1Threshold(x: ArrayLike<number>, n: number, tau: number, scratch: Float64Array): number {
  const v = readPrefix(x, n, "x");
  const t = checkRadius(tau);
  return finiteResult(l1ThresholdUnchecked(v.values, v.n, t, checkScratch(scratch, v.n, x)), "theta");
}
