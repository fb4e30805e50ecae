/**
 * Weitzman's Pandora's box toolkit (the oracle of the paper, Section 3, Proposition 3.1).
 *
 * The reservation index sigma of a box with reward mu (random) and mean cost c solves
 * E[(mu - sigma)^+] = c. The oracle opens boxes in decreasing index order and stops as soon as the
 * best opened reward is >= the next index; it deploys the best opened reward. Its value is
 * E[max_a min(mu_a, sigma_a)] (the paper's eq. 3).
 */
import { ErrorCode, RouteKitError } from "./errors.js";
import { normalCdf, normalPdf } from "./normal.js";
import type { VectorInput } from "./protocols.js";
import { assertFinite, copyNumbers, describe, errorText, isFloatArray, readLength } from "./validate.js";

/**
 * A list of numbers given to the toolkit, as every RouteKit vector input: a Float64Array, a Float32Array (widened
 * exactly) or a number[]; anything else (another typed array, an array-like object, null) is INVALID_ARGUMENT, and
 * so is an entry that is not a number. Copied with each entry read once (a getter cannot pass the checks with one
 * value and be used with another); finiteness is the caller's check.
 */
function readList(src: unknown, what: string): Float64Array {
  if (!isFloatArray(src) && !Array.isArray(src))
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} must be a Float64Array, Float32Array or number[], got ${describe(src)}`,
    );
  const n = readLength(src, what);
  const out = new Float64Array(n);
  if (isFloatArray(src)) out.set(src);
  else copyNumbers(src, out, n, what);
  return out;
}

function checkCost(c: number): void {
  assertFinite(c, "cost");
  if (!(c > 0)) throw new RouteKitError(ErrorCode.OutOfRange, `cost must be > 0, got ${c}`);
}

/**
 * A closed-form index, finite: valid arguments whose index lies beyond the largest double (a reward near
 * -1.8e308 with a cost near 1.8e308, a normal sd near 1e308) throw NUMERICAL instead of returning +-Infinity.
 */
function finiteIndex(sigma: number, what: string): number {
  if (!Number.isFinite(sigma))
    throw new RouteKitError(
      ErrorCode.Numerical,
      `${what}: the index is ${sigma}, beyond the largest double for these arguments (rescale the rewards and cost)`,
    );
  return sigma;
}

/** Index of a deterministic reward v with cost c: v - c. */
export function indexDeterministic(value: number, cost: number): number {
  assertFinite(value, "value");
  checkCost(cost);
  return finiteIndex(value - cost, "indexDeterministic");
}

/** Index of a Bernoulli(p) reward on {0, 1}: 1 - c/p when c <= p, else p - c. */
export function indexBernoulli(p: number, cost: number): number {
  assertFinite(p, "p");
  if (p < 0 || p > 1) throw new RouteKitError(ErrorCode.OutOfRange, `p must be in [0, 1], got ${p}`);
  checkCost(cost);
  return finiteIndex(cost <= p ? 1 - cost / p : p - cost, "indexBernoulli");
}

/** Index of a U[lo, hi] reward: hi - sqrt(2 w c) when c <= w/2 (w = hi - lo), else lo + w/2 - c. */
export function indexUniform(lo: number, hi: number, cost: number): number {
  assertFinite(lo, "lo");
  assertFinite(hi, "hi");
  if (!(hi >= lo)) throw new RouteKitError(ErrorCode.OutOfRange, `need lo <= hi, got [${lo}, ${hi}]`);
  checkCost(cost);
  const w = hi - lo;
  if (Number.isFinite(w)) {
    if (!(cost <= w / 2)) return finiteIndex(lo + w / 2 - cost, "indexUniform");
    // sqrt(2 w c) <= w: finite, but the product 2 w c overflows for a wide box and a large cost (0 to 1e308 at
    // cost 1e307) and underflows for a narrow one (0 to 1e-300 at 1e-310); then the roots are taken apart.
    const p = 2 * w * cost;
    const root =
      p < Number.POSITIVE_INFINITY && p >= MIN_NORMAL ? Math.sqrt(p) : Math.SQRT2 * Math.sqrt(w) * Math.sqrt(cost);
    return finiteIndex(hi - root, "indexUniform");
  }
  // The width overflows (bounds near +-1.8e308): the same formulas in half-widths, sqrt(2 w c) = 2 sqrt(h c).
  const half = hi / 2 - lo / 2;
  if (!(cost <= half)) return finiteIndex(lo + half - cost, "indexUniform");
  // 2 sqrt(h c) itself can overflow though hi - 2 sqrt(h c) >= lo is finite (at c = h the index is lo exactly):
  // then it is subtracted in two halves.
  const r = Math.sqrt(half) * Math.sqrt(cost);
  return finiteIndex(2 * r < Number.POSITIVE_INFINITY ? hi - 2 * r : hi - r - r, "indexUniform");
}

/** The smallest positive normal double: below it a product has lost bits to underflow. */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * Index of a N(mean, sd^2) reward: s (pdf(k) + k Phi(k)) = c with k = (mean - sigma) / s. The left side
 * is increasing in k (its derivative is Phi(k)), solved by safeguarded Newton.
 */
export function indexNormal(mean: number, sd: number, cost: number): number {
  assertFinite(mean, "mean");
  assertFinite(sd, "sd");
  if (!(sd >= 0)) throw new RouteKitError(ErrorCode.OutOfRange, `sd must be >= 0, got ${sd}`);
  checkCost(cost);
  if (sd === 0) return finiteIndex(mean - cost, "indexNormal");
  const target = cost / sd;
  // For k >= 40, pdf(k) + k Phi(k) = k to double precision, so the root is k = c / s and sigma = mean - c
  // (computed directly: c / s may overflow).
  if (!(target < 40)) return finiteIndex(mean - cost, "indexNormal");
  const h = (k: number) => normalPdf(k) + k * normalCdf(k) - target;
  // h(k) -> -target as k -> -inf, h(k) ~ k - target as k -> +inf.
  let lo = -1;
  while (h(lo) > 0) lo *= 2;
  let hi = Math.max(1, target + 1);
  while (h(hi) < 0) hi *= 2;
  let k = 0.5 * (lo + hi);
  let settled = false;
  for (let it = 0; it < 200; it++) {
    const v = h(k);
    if (v === 0) {
      settled = true;
      break;
    }
    if (v > 0) hi = k;
    else lo = k;
    const d = normalCdf(k);
    let nk = d > 0 ? k - v / d : Number.NaN;
    if (!(nk > lo && nk < hi)) nk = 0.5 * (lo + hi);
    if (Math.abs(nk - k) <= 1e-15 * (1 + Math.abs(k)) || hi - lo <= 1e-15 * (1 + Math.abs(k))) {
      k = nk;
      settled = true;
      break;
    }
    k = nk;
  }
  if (!settled) {
    // A cost far below sd (c / s under about 1e-140) puts the root far out on the left tail, where each Newton
    // step moves k by about 1 / |k|: the 200 steps ran out on the way (c / s = 1e-200 stopped at k = -25.3, not
    // -30.1) and the index came out sd * 5 too low. The bracket is still valid: bisection finishes the job.
    while (hi - lo > 1e-15 * (1 + Math.abs(lo))) {
      const mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      if (h(mid) > 0) hi = mid;
      else lo = mid;
    }
    k = 0.5 * (lo + hi);
  }
  const shift = sd * k;
  if (Number.isFinite(shift)) return finiteIndex(mean - shift, "indexNormal");
  // sd k overflows (sd near 1e307, k near -40 for a tiny cost) while mean - sd k may not (a mean near -1.7e308):
  // in halves, exact for such magnitudes.
  return finiteIndex(2 * (mean / 2 - (sd / 2) * k), "indexNormal");
}

/**
 * Index of a discrete reward distribution (values with probabilities summing to 1): exact, since
 * E[(mu - sigma)^+] is piecewise linear in sigma. `values` and `probs` are Float64Array, Float32Array or number[]
 * (INVALID_ARGUMENT otherwise).
 */
export function indexDiscrete(values: VectorInput, probs: VectorInput, cost: number): number {
  const v = readList(values, "values");
  const p = readList(probs, "probs");
  const n = v.length;
  if (n === 0 || p.length !== n)
    throw new RouteKitError(ErrorCode.DimensionMismatch, "values and probs must be non-empty and of equal length");
  let total = 0;
  for (let i = 0; i < n; i++) {
    assertFinite(v[i] as number, `values[${i}]`);
    assertFinite(p[i] as number, `probs[${i}]`);
    if ((p[i] as number) < 0) throw new RouteKitError(ErrorCode.OutOfRange, `probs[${i}] must be >= 0`);
    total += p[i] as number;
  }
  if (Math.abs(total - 1) > 1e-9) throw new RouteKitError(ErrorCode.OutOfRange, `probs sum to ${total}, expected 1`);
  checkCost(cost);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (v[b] as number) - (v[a] as number));
  // Walk down the sorted values: on [v_{k+1}, v_k], E(mu - s)^+ = sum_{j<=k} p_j (v_j - s).
  let pSum = 0;
  let pvSum = 0;
  for (let j = 0; j < n; j++) {
    const i = order[j] as number;
    pSum += p[i] as number;
    pvSum += (p[i] as number) * (v[i] as number);
    if (pSum <= 0) continue;
    const s = (pvSum - cost) / pSum;
    const next = j + 1 < n ? (v[order[j + 1] as number] as number) : Number.NEGATIVE_INFINITY;
    if (s >= next) return finiteIndex(s, "indexDiscrete");
  }
  return finiteIndex((pvSum - cost) / pSum, "indexDiscrete");
}

/**
 * Index from any excess function e(sigma) = E[(mu - sigma)^+] (continuous, non-increasing, strictly
 * decreasing where P(mu > sigma) > 0): the root of e(sigma) = c by bracketing and bisection to `tol`.
 * The bracket starts at [-1 - 1e-9, 1] (rewards in [0, 1] and costs in (0, 1) put the root there) and
 * widens when needed.
 */
export function reservationIndex(excess: (sigma: number) => number, cost: number, tol = 1e-12): number {
  if (typeof excess !== "function")
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `excess must be a function sigma => E[(mu - sigma)^+], got ${describe(excess)}`,
    );
  checkCost(cost);
  assertFinite(tol, "tol");
  if (!(tol >= 0)) throw new RouteKitError(ErrorCode.OutOfRange, `tol must be >= 0, got ${tol}`);
  // Each value is checked: a string would be compared by coercion, and a NaN would steer the bisection silently.
  const e = (sigma: number): number => {
    let v: unknown;
    try {
      v = excess(sigma);
    } catch (err) {
      // The caller's function failed (its own Error escaped): typed, as a throwing off-policy target is.
      if (err instanceof RouteKitError) throw err;
      throw new RouteKitError(ErrorCode.InvalidArgument, `excess(${sigma}) threw: ${errorText(err)}`, { sigma });
    }
    if (typeof v !== "number")
      throw new RouteKitError(ErrorCode.InvalidArgument, `excess(${sigma}) must return a number, got ${describe(v)}`);
    if (Number.isNaN(v)) throw new RouteKitError(ErrorCode.NonFinite, `excess(${sigma}) returned NaN`);
    return v;
  };
  let lo = -1 - 1e-9;
  let hi = 1;
  for (let i = 0; i < 200 && !(e(lo) >= cost); i++) lo = lo * 2 - 1;
  for (let i = 0; i < 200 && !(e(hi) <= cost); i++) hi = hi * 2 + 1;
  if (!(e(lo) >= cost) || !(e(hi) <= cost))
    throw new RouteKitError(ErrorCode.Numerical, "could not bracket the reservation index");
  while (hi - lo > tol) {
    const mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (e(mid) > cost) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/**
 * Box positions sorted by decreasing index, ties to the lower position (deterministic). Indices may be +-Infinity.
 * `indices` is a Float64Array, Float32Array or number[] (INVALID_ARGUMENT otherwise; NaN is NON_FINITE).
 */
export function weitzmanOrder(indices: VectorInput): number[] {
  return orderOf(readIndices(indices));
}

function readIndices(indices: unknown): Float64Array {
  const v = readList(indices, "indices");
  for (let i = 0; i < v.length; i++)
    if (Number.isNaN(v[i]))
      throw new RouteKitError(ErrorCode.NonFinite, `indices[${i}] must be a number (+-Infinity allowed), got NaN`);
  return v;
}

function orderOf(indices: Float64Array): number[] {
  const order = Array.from({ length: indices.length }, (_, i) => i);
  order.sort((a, b) => (indices[b] as number) - (indices[a] as number) || a - b);
  return order;
}

export interface WeitzmanPlay {
  /** Opened boxes, in opening order. */
  readonly queried: number[];
  /** The deployed box (first maximiser of the opened rewards). */
  readonly chosen: number;
  /** Deployed reward minus the costs paid. */
  readonly utility: number;
}

/**
 * Plays the index policy on one realisation: rewards[a] and costs[a] are what box a would reveal.
 * Opens in decreasing index order, stops when the best opened reward is >= the next index (ties stop).
 * Each argument is a Float64Array, Float32Array or number[] with one entry per box (INVALID_ARGUMENT,
 * DIMENSION_MISMATCH); rewards and costs finite (NON_FINITE), costs >= 0 as in the cascade protocol (OUT_OF_RANGE).
 */
export function weitzmanPlay(indices: VectorInput, rewards: VectorInput, costs: VectorInput): WeitzmanPlay {
  const idx = readIndices(indices);
  const r = readList(rewards, "rewards");
  const c = readList(costs, "costs");
  const n = idx.length;
  if (n === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "no boxes to open");
  if (r.length !== n || c.length !== n)
    throw new RouteKitError(
      ErrorCode.DimensionMismatch,
      `indices, rewards and costs must have one entry per box (${n}), got ${r.length} rewards and ${c.length} costs`,
    );
  for (let a = 0; a < n; a++) {
    assertFinite(r[a] as number, `rewards[${a}]`);
    assertFinite(c[a] as number, `costs[${a}]`);
    if ((c[a] as number) < 0)
      throw new RouteKitError(ErrorCode.OutOfRange, `costs[${a}] must be >= 0, got ${c[a] as number}`);
  }
  const order = orderOf(idx);
  const queried: number[] = [];
  let best = Number.NEGATIVE_INFINITY;
  let chosen = -1;
  let paid = 0;
  for (let k = 0; k < n; k++) {
    const a = order[k] as number;
    queried.push(a);
    paid += c[a] as number;
    if ((r[a] as number) > best) {
      best = r[a] as number;
      chosen = a;
    }
    const nextIndex = k + 1 < n ? (idx[order[k + 1] as number] as number) : Number.NEGATIVE_INFINITY;
    if (best >= nextIndex) break;
  }
  return { queried, chosen, utility: best - paid };
}

/** A box with a finite reward distribution: values, probabilities (Float64Array, Float32Array or number[]), and mean cost. */
export interface DiscreteBox {
  readonly values: VectorInput;
  readonly probs: VectorInput;
  readonly cost: number;
}

/** The oracle value E[max_a min(mu_a, sigma_a)] (eq. 3) for independent discrete boxes, exactly. */
export function weitzmanValue(boxes: readonly DiscreteBox[]): number {
  if (!Array.isArray(boxes)) throw new RouteKitError(ErrorCode.InvalidArgument, "no boxes");
  // Each box's fields read once, as indexDiscrete checks them.
  const values: Float64Array[] = [];
  const probs: Float64Array[] = [];
  const sig: number[] = [];
  // A getter or proxy of the caller's that throws is INVALID_ARGUMENT naming what was read (its Error escaped).
  const read = (o: object, key: string | number, what: string): unknown => {
    try {
      return (o as Record<string | number, unknown>)[key];
    } catch (err) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `reading ${what} threw: ${errorText(err)}`);
    }
  };
  const n = readLength(boxes, "boxes");
  if (n === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "no boxes");
  for (let a = 0; a < n; a++) {
    const b = read(boxes, a, `boxes[${a}]`);
    if (b === null || typeof b !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, `boxes[${a}] must be an object { values, probs, cost }`);
    const v = readList(read(b, "values", `boxes[${a}].values`), `boxes[${a}].values`);
    const p = readList(read(b, "probs", `boxes[${a}].probs`), `boxes[${a}].probs`);
    sig.push(indexDiscrete(v, p, read(b, "cost", `boxes[${a}].cost`) as number));
    values.push(v);
    probs.push(p);
  }
  // Y_a = min(mu_a, sigma_a); E[max Y] = sum over the support points of max of P(max Y >= y) steps.
  const pts = new Set<number>();
  values.forEach((v, a) => {
    for (const x of v) pts.add(Math.min(x, sig[a] as number));
  });
  const ys = [...pts].sort((x, y) => x - y);
  const cdf = (y: number) => {
    let p = 1;
    values.forEach((v, a) => {
      const pa = probs[a] as Float64Array;
      let q = 0;
      for (let i = 0; i < v.length; i++) if (Math.min(v[i] as number, sig[a] as number) <= y) q += pa[i] as number;
      p *= q;
    });
    return p;
  };
  let value = 0;
  let prev = 0;
  for (const y of ys) {
    const c = cdf(y);
    value += y * (c - prev);
    prev = c;
  }
  return value;
}
