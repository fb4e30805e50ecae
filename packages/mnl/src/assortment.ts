/**
 * Static MNL assortment optimisation:
 *   max_{|S| <= K} R(S) = sum_{i in S} v_i r_i / (v0 + sum_{i in S} v_i).
 *
 * - uniform revenues: the top-min(K, N) items by utility ({@link topK});
 * - non-uniform revenues: the exact parametric Dinkelbach method ({@link dinkelbachAssortment});
 * - {@link bruteForceAssortment}: test oracle for small N;
 * - the Davis-Gallego-Topaloglu LP through HiGHS lives in `./lp.ts` (asynchronous, a cross-check).
 *
 * Ties are broken deterministically: higher score first, then lower index.
 */
import { assertInRange, assertInt, assertPositive, assertVector, ErrorCode, RouteKitError } from "@routekit/core";

/** Heap of {@link topK}: scores and item indices (grown on demand; topK never re-enters). */
let heapScore = new Float64Array(64);
let heapItem = new Int32Array(64);

/** Candidates of {@link topK}'s threshold pass, and the sorted k best of them (grown on demand). */
let candItem = new Int32Array(128);
let bestScore = new Float64Array(64);
let bestItem = new Int32Array(64);
/** The normal quantile z with P(Z > z) = min(1/2, 1.5 k / n), cached for the last (n, k). */
let zN = -1;
let zK = -1;
let zValue = 0;

function upperQuantile(n: number, k: number): number {
  if (n !== zN || k !== zK) {
    // Abramowitz & Stegun 26.2.23 (absolute error < 4.5e-4): only a guess, exactness does not depend on it.
    const t = Math.sqrt(-2 * Math.log(Math.min(0.5, (1.5 * k) / n)));
    zValue =
      t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    zN = n;
    zK = k;
  }
  return zValue;
}

/**
 * Indices of the k largest `score[i]` (i < n), best first, ties to the lower index, written into
 * `out`; only entries with score > `floor` are kept (default -Infinity keeps all; NaN never). Returns
 * the count.
 *
 * When n >= 3k and there is no floor, it first guesses a threshold T = mean + z sd of the scores, with z
 * the normal quantile that leaves about 1.5 k of n items above it, and collects the items with score > T
 * in one pass without branches. If there are between k and 4k of them, the k best are among them (at
 * least k items lie above T, so the k-th best does too), and inserting them into a sorted list of k gives
 * the answer; otherwise (a skewed or tied distribution, NaN or infinite scores) it falls back to a heap over
 * all items. Either way the result is exact; the threshold pass avoids most of the heap's unpredictable
 * branches (about 1.5x faster at n = 100, k = 15 on OFU-MNL+'s optimistic utilities).
 */
export function topK(score: ArrayLike<number>, n: number, k: number, out: Int32Array, floor = -Infinity): number {
  // Not with a floor: Dinkelbach's scores v_i (r_i - lambda) above 0 are too few or too skewed for the
  // guess, and the wasted passes cost more than the heap saves.
  if (k > 0 && n >= 3 * k && floor === Number.NEGATIVE_INFINITY) {
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < n; i++) {
      const v = score[i] as number;
      s1 += v;
      s2 += v * v;
    }
    const T = topKThreshold(s1, s2, n, k);
    if (candItem.length < n) candItem = new Int32Array(n);
    const cand = candItem;
    let c = 0;
    for (let i = 0; i < n; i++) {
      cand[c] = i;
      c += +((score[i] as number) > T);
    }
    if (topKAmong(score, k, out, cand, c) === k) return k;
  }
  return heapTopK(score, n, k, out, floor);
}

/**
 * The k best of the candidates cand[0 .. c) (indices into `score`, increasing), best first, ties to the
 * lower index, written into `out`, when k <= c <= 4k; returns k, or -1 (nothing written) for any other c.
 * When the candidates are exactly the items whose score is above some threshold T, this is the top-K of
 * all items: at least k items above T means the k-th best is above T too. {@link topK}'s threshold path;
 * the MNL policies also collect the candidates while scoring (with the previous round's threshold).
 */
export function topKAmong(score: ArrayLike<number>, k: number, out: Int32Array, cand: Int32Array, c: number): number {
  if (!(k > 0 && c >= k && c <= 4 * k)) return -1;
  if (bestScore.length < k) {
    bestScore = new Float64Array(k);
    bestItem = new Int32Array(k);
  }
  const bs = bestScore;
  const bi = bestItem;
  let m = 0;
  for (let q = 0; q < c; q++) {
    const i = cand[q] as number;
    const s = score[i] as number;
    let j: number;
    if (m < k) j = m++;
    else if (s > (bs[k - 1] as number)) j = k - 1;
    else continue;
    // Candidates arrive in index order: a newcomer stops behind an equal score (ties to the lower index).
    while (j > 0 && s > (bs[j - 1] as number)) {
      bs[j] = bs[j - 1] as number;
      bi[j] = bi[j - 1] as number;
      j--;
    }
    bs[j] = s;
    bi[j] = i;
  }
  for (let j = 0; j < k; j++) out[j] = bi[j] as number;
  return k;
}

/** The threshold {@link topK} guesses for n scores with this sum and sum of squares: mean + z sd. */
export function topKThreshold(sum: number, sumSquares: number, n: number, k: number): number {
  const mean = sum / n;
  const variance = sumSquares / n - mean * mean;
  return mean + upperQuantile(n, k) * Math.sqrt(variance > 0 ? variance : 0);
}

/**
 * {@link topK} by a heap (any scores): one scan keeps the k best in a heap whose root is the worst kept
 * item (lowest score, then highest index); an item enters only when its score is strictly above the root's, so among equal
 * scores the earlier item stays. Popping the heap then writes the answer from the back. For n = 100,
 * k = 15 this does about half the moves of inserting every entering item into a sorted prefix.
 */
function heapTopK(score: ArrayLike<number>, n: number, kIn: number, out: Int32Array, floor = -Infinity): number {
  if (!(kIn > 0)) return 0;
  // At most n items can be kept: the heap is sized for those, not for k (optimalAssortment's K = 2^53, any
  // integer >= 1, threw a RangeError allocating it). With k >= n the fill loop keeps every admitted item and
  // the scan never runs, for k = n as for any larger k, so the answer is the same.
  const k = kIn < n ? kIn : n;
  if (heapScore.length < k) {
    heapScore = new Float64Array(k);
    heapItem = new Int32Array(k);
  }
  const hs = heapScore;
  const hi = heapItem;
  let m = 0;
  let i = 0;
  // Fill: sift each admitted item up past every entry it is worse than (items arrive in index order, so
  // on a tie the newcomer is the worse one and moves up).
  for (; i < n && m < k; i++) {
    const s = score[i] as number;
    if (!(s > floor)) continue;
    let j = m++;
    while (j > 0) {
      const p = (j - 1) >> 1;
      const sp = hs[p] as number;
      if (sp < s) break;
      hs[j] = sp;
      hi[j] = hi[p] as number;
      j = p;
    }
    hs[j] = s;
    hi[j] = i;
  }
  // Scan: an item above the root replaces it and sifts down (later index = worse among ties).
  for (; i < n; i++) {
    const s = score[i] as number;
    if (!(s > (hs[0] as number))) continue;
    siftDown(hs, hi, k, s, i);
  }
  // Pop the worst into the back of out until the heap is empty.
  for (let size = m; size > 0; size--) {
    out[size - 1] = hi[0] as number;
    const last = size - 1;
    if (last > 0) siftDown(hs, hi, last, hs[last] as number, hi[last] as number);
  }
  return m;
}

/** Places (s, item) at the root of the heap of `size` entries and sifts it down to its place. */
function siftDown(hs: Float64Array, hi: Int32Array, size: number, s: number, item: number): void {
  let j = 0;
  for (;;) {
    let c = 2 * j + 1;
    if (c >= size) break;
    let sc = hs[c] as number;
    let ic = hi[c] as number;
    if (c + 1 < size) {
      const s2 = hs[c + 1] as number;
      const i2 = hi[c + 1] as number;
      if (s2 < sc || (s2 === sc && i2 > ic)) {
        c++;
        sc = s2;
        ic = i2;
      }
    }
    // Stop when the child is not worse than (s, item).
    if (!(sc < s || (sc === s && ic > item))) break;
    hs[j] = sc;
    hi[j] = ic;
    j = c;
  }
  hs[j] = s;
  hi[j] = item;
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
    const m = topK(score, n, K, cand, 0);
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
    size = topK(uu, n, K, out);
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
    // topK keeps only scores above its floor, -Infinity: the items with r_i > lambda.
    const m = topK(score, n, K, cand);
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
function copyChecked(x: ArrayLike<number>, n: number, what: string): Float64Array {
  assertVector(x, n, what);
  const c = new Float64Array(n);
  for (let i = 0; i < n; i++) c[i] = x[i] as number;
  assertVector(c, n, what);
  return c;
}
