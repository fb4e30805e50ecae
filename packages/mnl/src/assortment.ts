/**
 * Static MNL assortment optimisation:
 *   max_{|S| <= K} R(S) = sum_{i in S} v_i r_i / (v0 + sum_{i in S} v_i).
 *
 * - uniform revenues: the top-min(K, N) items by utility (`topKIndices` of @routekit/linalg);
 * - non-uniform revenues: the exact parametric Dinkelbach method ({@link dinkelbachAssortment});
 * - {@link bruteForceAssortment}: test oracle for small N;
 * - the Davis-Gallego-Topaloglu LP through HiGHS lives in `./lp.ts` (asynchronous, a cross-check).
 *
 * Ties are broken deterministically: higher score first, then lower index.
 */
import { assertInRange, assertInt, assertPositive, assertVector, ErrorCode, RouteKitError } from "@routekit/core";
import { topKIndices } from "@routekit/linalg";

/**
 * The top-K by utility that `select()` runs under uniform revenues: `topKIndices` of @routekit/linalg (see there),
 * under the name this package has always exported it by (a wrapper, not a re-export: an export is named as its function).
 */
export function topK(score: ArrayLike<number>, n: number, k: number, out: Int32Array, floor = -Infinity): number {
  return topKIndices(score, n, k, out, floor);
}

/** R(S) for attractions v (any positive scale, consistent with v0). */
export function assortmentRevenue(
  v: ArrayLike<number>,
  r: ArrayLike<number>,
  items: ArrayLike<number>,
  count: number,
  v0: number,
): number {
  let num = 0;
  let den = v0;
  for (let j = 0; j < count; j++) {
    const i = items[j] as number;
    num += (v[i] as number) * (r[i] as number);
    den += v[i] as number;
  }
  return count === 0 ? 0 : num / den;
}

/** Reusable buffers for {@link dinkelbachAssortment}. */
export class DinkelbachWorkspace {
  score: Float64Array;
  cand: Int32Array;
  /** Iterations used by the last call. */
  iterations = 0;
  constructor(capacity: number) {
    this.score = new Float64Array(capacity);
    this.cand = new Int32Array(capacity);
  }
  ensure(n: number): void {
    if (this.score.length < n) {
      this.score = new Float64Array(n);
      this.cand = new Int32Array(n);
    }
  }
}

/**
 * Exact capacitated MNL assortment by Dinkelbach's parametric method:
 * lambda <- 0; repeat { C <- top-K of v_i (r_i - lambda) > 0; F = sum_C v_i(r_i - lambda) - v0 lambda;
 * stop when F <= eps (sum_C v_i(r_i - lambda) + v0 lambda), a tolerance relative to F's terms (so any joint scale
 * of v and v0 gives the same S); S <- C; lambda <- R(S) }. F is convex, piecewise linear and strictly
 * decreasing with its root at R*, and lambda increases strictly, so it terminates at an optimal S
 * (empty only when every r_i = 0). Writes S (by decreasing v_i(r_i - R*)) to `out`; returns |S|.
 * `v` must be positive and finite; scale v and v0 together (e.g. v_i = e^{u_i - max u}) to avoid overflow.
 */
export function dinkelbachAssortment(
  v: ArrayLike<number>,
  r: ArrayLike<number>,
  n: number,
  K: number,
  v0: number,
  out: Int32Array,
  ws: DinkelbachWorkspace = new DinkelbachWorkspace(n),
): number {
  ws.ensure(n);
  const { score, cand } = ws;
  let lambda = 0;
  let size = 0;
  const eps = 1e-12;
  for (let it = 1; it <= n + 2; it++) {
    ws.iterations = it;
    for (let i = 0; i < n; i++) score[i] = (v[i] as number) * ((r[i] as number) - lambda);
    const m = topKIndices(score, n, K, cand, 0);
    let gain = 0;
    for (let j = 0; j < m; j++) gain += score[cand[j] as number] as number;
    const cost = v0 * lambda;
    const F = gain - cost;
    // Relative to the terms of F, not absolute: F is homogeneous in (v, v0), and callers scale v by the largest
    // attraction, so with an item far above the rest an absolute 1e-12 stopped short of R* (revenue 0.3 for 0.5 at
    // utilities [28, -28, 0]) or at the empty set (a zero-revenue item 30 above the others).
    if (F <= eps * (gain + cost) || m === 0) break;
    const next = assortmentRevenue(v, r, cand, m, v0);
    for (let j = 0; j < m; j++) out[j] = cand[j] as number;
    size = m;
    if (!(next > lambda)) break;
    lambda = next;
  }
  return size;
}

/** Exhaustive search over all subsets of size <= K (test oracle; N <= 20). Ties keep the first found. */
export function bruteForceAssortment(
  v: ArrayLike<number>,
  r: ArrayLike<number>,
  n: number,
  K: number,
  v0: number,
): { items: number[]; revenue: number } {
  if (n > 20) throw new RouteKitError(ErrorCode.InvalidArgument, `brute force needs n <= 20, got ${n}`);
  let best: number[] = [];
  let bestR = 0;
  const items: number[] = [];
  for (let mask = 1; mask < 1 << n; mask++) {
    items.length = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) items.push(i);
    if (items.length > K) continue;
    const R = assortmentRevenue(v, r, items, items.length, v0);
    if (R > bestR + 1e-15) {
      bestR = R;
      best = items.slice();
    }
  }
  return { items: best, revenue: bestR };
}

/**
 * The revenue-maximising assortment for utilities `u` (attractions e^{u}), revenues `r`
 * (uniform when undefined), capacity K and outside attraction v0. Allocating convenience API for
 * environments, oracles and tests; policies use the workspace-based functions above. Checks its input
 * (the workspace functions do not): n an integer >= 0, `u` (and `r`) n finite numbers, r_i in [0, 1],
 * K an integer >= 1, v0 finite and > 0; RouteKitError otherwise. The arrays are copied once, then checked.
 */
export function optimalAssortment(
  u: ArrayLike<number>,
  r: ArrayLike<number> | undefined,
  n: number,
  K: number,
  v0: number,
): number[] {
  assertInt(n, "n", 0);
  assertInt(K, "K", 1);
  assertPositive(v0, "v0");
  const uu = copyChecked(u, n, "utilities");
  const rr = r === undefined ? undefined : copyChecked(r, n, "revenues");
  if (rr) for (let i = 0; i < n; i++) assertInRange(rr[i] as number, `revenues[${i}]`, 0, 1);
  const out = new Int32Array(Math.max(1, Math.min(n, K)));
  let size: number;
  if (rr === undefined) {
    size = topKIndices(uu, n, K, out);
  } else {
    let m = -Infinity;
    for (let i = 0; i < n; i++) if ((uu[i] as number) > m) m = uu[i] as number;
    const v = new Float64Array(n);
    let lost = false;
    for (let i = 0; i < n; i++) {
      v[i] = Math.exp((uu[i] as number) - m);
      // An item that could earn revenue whose attraction underflowed (a utility gap past ~708) was lost.
      if ((v[i] as number) < MIN_NORMAL && (rr[i] as number) > 0) lost = true;
    }
    size = lost ? wideGapAssortment(uu, rr, n, K, v0, out) : dinkelbachAssortment(v, rr, n, K, v0 * Math.exp(-m), out);
  }
  return Array.from(out.subarray(0, size));
}

/** The smallest normal double: below it e^x keeps fewer than 53 bits, at 0 nothing. */
const MIN_NORMAL = 2.2250738585072014e-308;

/**
 * {@link optimalAssortment} when scaling by the largest utility underflowed the attraction of an item with revenue
 * > 0 (a utility gap past ~708: [800, 0, 0] with revenues [0, 1, 1] answered [], revenue 0, for {1, 2}, 2/3). The
 * same Dinkelbach iteration as {@link dinkelbachAssortment}, in log space: the scores v_i (r_i - lambda) > 0 are
 * ranked by u_i + log(r_i - lambda), F's two sides are compared scaled by their largest term, and R(S) is scaled by
 * the largest of log v0 and the utilities in S, so no attraction that matters underflows. Only taken when something
 * underflowed, so every other input keeps its bit-for-bit answer.
 */
function wideGapAssortment(
  u: Float64Array,
  r: Float64Array,
  n: number,
  K: number,
  v0: number,
  out: Int32Array,
): number {
  const lv0 = Math.log(v0);
  const score = new Float64Array(n);
  const cand = new Int32Array(n);
  let lambda = 0;
  let size = 0;
  const eps = 1e-12;
  for (let it = 1; it <= n + 2; it++) {
    for (let i = 0; i < n; i++) {
      const d = (r[i] as number) - lambda;
      score[i] = d > 0 ? (u[i] as number) + Math.log(d) : Number.NEGATIVE_INFINITY;
    }
    // topKIndices keeps only scores above its floor, -Infinity: the items with r_i > lambda.
    const m = topKIndices(score, n, K, cand);
    if (m === 0) break;
    const logCost = lambda > 0 ? lv0 + Math.log(lambda) : Number.NEGATIVE_INFINITY;
    let c = logCost;
    for (let j = 0; j < m; j++) c = Math.max(c, score[cand[j] as number] as number);
    let gain = 0;
    for (let j = 0; j < m; j++) gain += Math.exp((score[cand[j] as number] as number) - c);
    const cost = Math.exp(logCost - c);
    if (gain - cost <= eps * (gain + cost)) break;
    let top = lv0;
    for (let j = 0; j < m; j++) top = Math.max(top, u[cand[j] as number] as number);
    let num = 0;
    let den = Math.exp(lv0 - top);
    for (let j = 0; j < m; j++) {
      const i = cand[j] as number;
      const w = Math.exp((u[i] as number) - top);
      num += w * (r[i] as number);
      den += w;
    }
    const next = num / den;
    for (let j = 0; j < m; j++) out[j] = cand[j] as number;
    size = m;
    if (!(next > lambda)) break;
    lambda = next;
  }
  return size;
}

/** A Float64Array copy of `x` (n numbers, each read once), checked finite. */
export function copyChecked(x: ArrayLike<number>, n: number, what: string): Float64Array {
  assertVector(x, n, what);
  const c = new Float64Array(n);
  for (let i = 0; i < n; i++) c[i] = x[i] as number;
  assertVector(c, n, what);
  return c;
}
