/**
 * The unchecked projection kernels behind the exported toolkit of threshold.ts (which validates its input and
 * then calls these). The iterates call these directly on every step with their own, already valid, spectra:
 * not exported from the package.
 *
 * Bregman projection of a spectrum onto the nuclear-norm ball under the hypentropy (paper §5.1, Eq. 17
 * and 35-36). By von Neumann's trace inequality the eigenvectors stay; the eigenvalues solve
 * min_{|lambda|_1 <= tau} sum_i D_phi(lambda_i || beta sinh(gamma_i)), whose solution in mirror
 * coordinates is a plain soft threshold: gamma_i <- sign(gamma_i) max(|gamma_i| - nu, 0), with nu the
 * smallest nu >= 0 such that beta sum_i max(sinh(|gamma_i| - nu), 0) <= tau (equality when nu > 0).
 */

/** Segments whose root lies within this relative distance below the next breakpoint are accepted. */
const BREAKPOINT_TOL = 1e-12;

/**
 * beta sinh(g), also where sinh(g) overflows (|g| above about 710.5, which a beta many orders below the radius
 * reaches: asinh(tau / beta) is up to about 1455): there beta sinh(g) = sign(g) e^(|g| - ln 2 + ln beta), a finite
 * double whenever the result is one. Where sinh(g) is finite this is exactly beta * Math.sinh(g).
 */
export function betaSinh(beta: number, g: number): number {
  const s = Math.sinh(g);
  if (Number.isFinite(s)) return beta * s;
  const v = Math.exp(Math.abs(g) - Math.LN2 + Math.log(beta));
  return g > 0 ? v : -v;
}

/**
 * asinh(w / beta), also where w / beta overflows (a beta many orders below w): there it is sign(w) (ln|w| - ln beta
 * + ln 2), exact to rounding (asinh(x) = ln 2x for x above 1e8). Where w / beta is finite this is exactly
 * Math.asinh(w / beta).
 */
export function asinhRatio(w: number, beta: number): number {
  const r = w / beta;
  if (Number.isFinite(r)) return Math.asinh(r);
  const v = Math.log(Math.abs(w)) - Math.log(beta) + Math.LN2;
  return w > 0 ? v : -v;
}

/**
 * The threshold nu for mirror eigenvalues gamma[0..n) (signed; zeros are ignored), exact on each
 * segment of the active set: (beta/2)(A e^-nu - B e^nu) = tau with A = sum exp(z), B = sum exp(-z) over
 * the active z = |gamma|, solved without cancellation as nu = ln A - ln(c + sqrt(c^2 + A B)), c = tau/beta.
 * O(n log n). When some |gamma| exceeds 700 (exp overflows; only with a tiny beta) it bisects instead.
 * `scratch` needs n entries. Right after a projection the input can sit on the boundary, where rounding
 * makes the last segment's root slightly negative: the result is clamped at 0.
 */
export function hypentropyThresholdUnchecked(
  gamma: ArrayLike<number>,
  n: number,
  beta: number,
  tau: number,
  scratch: Float64Array,
): number {
  let m = 0;
  let total = 0;
  let zmax = 0;
  for (let i = 0; i < n; i++) {
    const z = Math.abs(gamma[i] as number);
    if (z === 0) continue;
    scratch[m++] = z;
    total += Math.sinh(z);
    if (z > zmax) zmax = z;
  }
  if (beta * total <= tau) return 0;
  if (zmax > 700) return bisectThresholdUnchecked(scratch, m, beta, tau);
  sortDescending(scratch, m);
  const c = tau / beta;
  let A = 0;
  let B = 0;
  let nu = 0;
  for (let j = 0; j < m; j++) {
    const z = scratch[j] as number;
    A += Math.exp(z);
    B += Math.exp(-z);
    nu = Math.log(A) - Math.log(c + Math.sqrt(c * c + A * B));
    const next = j + 1 < m ? (scratch[j + 1] as number) : 0;
    if (nu >= next - BREAKPOINT_TOL * Math.max(1, next)) return Math.max(nu, 0);
  }
  return Math.max(nu, 0);
}

/** The same threshold by bisection on the decreasing g(nu) = beta sum max(sinh(z_i - nu), 0) - tau over z[0..m). */
export function bisectThresholdUnchecked(z: ArrayLike<number>, m: number, beta: number, tau: number): number {
  if (sinhExcess(z, m, beta, tau, 0) <= 0) return 0;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < m; i++) hi = Math.max(hi, Math.abs(z[i] as number));
  for (let it = 0; it < 200 && hi - lo > 1e-15 * Math.max(1, hi); it++) {
    // lo + hi overflows for mirror values near the largest double (the midpoint was Infinity): halve first there.
    const sum = lo + hi;
    const mid = sum < Number.POSITIVE_INFINITY ? 0.5 * sum : 0.5 * lo + 0.5 * hi;
    if (sinhExcess(z, m, beta, tau, mid) > 0) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * g(nu) = beta sum max(sinh(z_i - nu), 0) - tau over z[0..m). A module-level function rather than a closure in
 * `bisectThresholdUnchecked`, so that a projection creates no function object (the builds keep names, which
 * would also wrap such a closure in a `__name` call).
 */
function sinhExcess(z: ArrayLike<number>, m: number, beta: number, tau: number, nu: number): number {
  let s = 0;
  let vmax = 0;
  for (let i = 0; i < m; i++) {
    const v = (z[i] as number) - nu;
    if (v > 0) s += Math.sinh(v);
    if (v > vmax) vmax = v;
  }
  if (s < Number.POSITIVE_INFINITY) return beta * s - tau;
  // The sum overflowed (some z_i - nu above about 710): compare ln(beta s) with ln tau instead, s = e^vmax sum
  // e^(v_i - vmax) / 2 (the e^-v_i halves of the terms are below rounding next to e^vmax). Only the sign is used; a
  // beta many orders below tau makes it negative, where beta * Infinity read as positive and capped the kept values.
  let t = 0;
  for (let i = 0; i < m; i++) {
    const v = (z[i] as number) - nu;
    if (v > 0) t += Math.exp(v - vmax);
  }
  return vmax - Math.LN2 + Math.log(t) + Math.log(beta) - Math.log(tau);
}

/**
 * Kept values below this fraction of the largest |gamma| come from the cancellation-free form of
 * {@link hypentropyProjectUnchecked}: subtracting nu from |gamma| would keep fewer than about 10 of their digits.
 */
const CANCELLATION = 1e-6;

/**
 * The hypentropy projection in place: gamma_i <- sign(gamma_i) max(|gamma_i| - nu, 0) with nu =
 * {@link hypentropyThresholdUnchecked}; returns nu. When the kept values are tiny next to |gamma| (a beta many orders
 * above the radius: they are about asinh(tau / beta)), |gamma_i| - nu loses their digits to rounding (at
 * beta = 1e17 x radius every value rounded to 0 and the router never learned), so they are computed
 * from the differences to the largest |gamma| instead: with d_j = z_j - z_max over the active set,
 * delta = z_max - nu = asinh(c / sqrt(A B)) + log1p(2 S / A) / 2, A = sum e^d_j, S = sum sinh(-d_j),
 * B = A + 2 S, c = tau / beta, and gamma_i <- sign(gamma_i) max(delta + d_i, 0). Otherwise (every ordinary
 * setting) it is exactly softThreshold(gamma, n, hypentropyThreshold(...)). `scratch` needs n entries.
 */
export function hypentropyProjectUnchecked(
  gamma: Float64Array,
  n: number,
  beta: number,
  tau: number,
  scratch: Float64Array,
): number {
  const nu = hypentropyThresholdUnchecked(gamma, n, beta, tau, scratch);
  if (nu === 0) return 0;
  const zmax = maxAbs(gamma, n);
  const m = differencesToMax(gamma, n, nu, zmax, scratch);
  if (m < 0) return nu;
  const c = tau / beta;
  let A = 0;
  let S = 0;
  let delta = 0;
  for (let j = 0; j < m; j++) {
    const dj = scratch[j] as number;
    A += Math.exp(dj);
    S += Math.sinh(-dj);
    const root = Math.sqrt(A * (A + 2 * S));
    // c = tau / beta overflows for a beta many orders below tau (asinh(c / root) was Infinity): asinhRatio.
    delta =
      (c < Number.POSITIVE_INFINITY ? Math.asinh(c / root) : asinhRatio(tau / root, beta)) +
      0.5 * Math.log1p((2 * S) / A);
    if (j + 1 === m || delta + (scratch[j + 1] as number) <= 0) break;
  }
  return shrinkToMax(gamma, n, delta, zmax);
}

function maxAbs(x: Float64Array, n: number): number {
  let zmax = 0;
  for (let i = 0; i < n; i++) zmax = Math.max(zmax, Math.abs(x[i] as number));
  return zmax;
}

/**
 * The start both projections share: when subtracting the threshold t from |x_i| keeps their digits (every ordinary
 * setting), x is soft-thresholded by t in place and -1 returned; otherwise the differences |x_j| - zmax of the
 * nonzero entries go to `scratch`, largest first, and their count is returned.
 */
function differencesToMax(x: Float64Array, n: number, t: number, zmax: number, scratch: Float64Array): number {
  if (zmax - t >= CANCELLATION * zmax) {
    softThresholdUnchecked(x, n, t);
    return -1;
  }
  let m = 0;
  for (let i = 0; i < n; i++) {
    const z = Math.abs(x[i] as number);
    if (z !== 0) scratch[m++] = z - zmax;
  }
  sortDescending(scratch, m);
  return m;
}

/** x_i <- sign(x_i) max(delta + (|x_i| - zmax), 0), the cancellation-free soft threshold; returns zmax - delta. */
function shrinkToMax(x: Float64Array, n: number, delta: number, zmax: number): number {
  for (let i = 0; i < n; i++) {
    const g = x[i] as number;
    const z = g === 0 ? 0 : delta + (Math.abs(g) - zmax);
    x[i] = z > 0 ? (g > 0 ? z : -z) : 0;
  }
  return zmax - delta;
}

/** gamma_i <- sign(gamma_i) max(|gamma_i| - nu, 0) for i < n. */
export function softThresholdUnchecked(gamma: Float64Array, n: number, nu: number): void {
  if (nu === 0) return;
  for (let i = 0; i < n; i++) {
    const g = gamma[i] as number;
    const z = Math.abs(g) - nu;
    gamma[i] = z > 0 ? (g > 0 ? z : -z) : 0;
  }
}

function sortDescending(a: Float64Array, m: number): void {
  if (m > 48) {
    a.subarray(0, m).sort();
    a.subarray(0, m).reverse();
    return;
  }
  for (let i = 1; i < m; i++) {
    const v = a[i] as number;
    let j = i - 1;
    while (j >= 0 && (a[j] as number) < v) {
      a[j + 1] = a[j] as number;
      j--;
    }
    a[j + 1] = v;
  }
}

/**
 * Threshold of the Euclidean projection onto the l1 ball of radius tau (Duchi, Shalev-Shwartz, Singer &
 * Chandra 2008): the theta >= 0 with sum max(|x_i| - theta, 0) = tau, or 0 when |x|_1 <= tau.
 */
export function l1ThresholdUnchecked(x: ArrayLike<number>, n: number, tau: number, scratch: Float64Array): number {
  let m = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const z = Math.abs(x[i] as number);
    if (z === 0) continue;
    scratch[m++] = z;
    total += z;
  }
  if (total <= tau) return 0;
  sortDescending(scratch, m);
  let cum = 0;
  let theta = 0;
  for (let j = 0; j < m; j++) {
    cum += scratch[j] as number;
    const t = (cum - tau) / (j + 1);
    // The largest entry is always in the active set (x_0 - (x_0 - tau) = tau >= 0); its test rounds to false when
    // tau = 0 or x_0 > tau 2^53 (x_0 - tau == x_0), which returned 0 and left x outside the ball.
    if (j === 0 || (scratch[j] as number) > t) theta = t;
    else break;
  }
  return Math.max(theta, 0);
}

/**
 * The Euclidean projection onto the l1 ball in place: x_i <- sign(x_i) max(|x_i| - theta, 0) with theta =
 * {@link l1ThresholdUnchecked}; returns theta. When the kept values are tiny next to max |x| (a step many orders above
 * the radius), |x_i| - theta keeps few of their digits (none past tau 2^53: every value rounded to 0), so they are
 * computed from the differences to the largest |x|, as {@link hypentropyProjectUnchecked} does: with d_j = z_j - z_max
 * over the active set of size r, delta = z_max - theta = (tau - sum d_j) / r and x_i <- sign(x_i) max(delta + d_i, 0).
 * Otherwise (every ordinary setting) it is exactly softThreshold(x, n, l1Threshold(...)). `scratch` needs n entries.
 */
export function l1ProjectUnchecked(x: Float64Array, n: number, tau: number, scratch: Float64Array): number {
  const theta = l1ThresholdUnchecked(x, n, tau, scratch);
  if (theta === 0) return 0;
  const zmax = maxAbs(x, n);
  const m = differencesToMax(x, n, theta, zmax, scratch);
  if (m < 0) return theta;
  let sum = 0;
  let delta = 0;
  for (let j = 0; j < m; j++) {
    sum += scratch[j] as number;
    const dl = (tau - sum) / (j + 1);
    if (j === 0 || dl + (scratch[j] as number) > 0) delta = dl;
    else break;
  }
  return shrinkToMax(x, n, delta, zmax);
}
