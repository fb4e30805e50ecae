/**
 * Top-K selection: the indices of the k largest scores, best first, ties to the lower index. Shared by the MNL
 * policies' assortments (@routekit/mnl) and the MNL environment's oracle (@routekit/environments), which cannot
 * import each other.
 */

/** Heap of {@link topKIndices}: scores and item indices (grown on demand; topKIndices never re-enters). */
let heapScore = new Float64Array(64);
let heapItem = new Int32Array(64);

/** Candidates of {@link topKIndices}'s threshold pass, and the sorted k best of them (grown on demand). */
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
 * `out` (room for min(k, n)); only entries with score > `floor` are kept (default -Infinity keeps all;
 * NaN never). Returns the count. Allocates nothing once its scratch buffers have grown to n (they are
 * module-level: not re-entrant, which a single-threaded caller never needs). Inputs are not checked.
 *
 * When n >= 3k and there is no floor, it first guesses a threshold T = mean + z sd of the scores, with z
 * the normal quantile that leaves about 1.5 k of n items above it, and collects the items with score > T
 * in one pass without branches. If there are between k and 4k of them, the k best are among them (at
 * least k items lie above T, so the k-th best does too), and inserting them into a sorted list of k gives
 * the answer; otherwise (a skewed or tied distribution, NaN or infinite scores) it falls back to a heap over
 * all items. Either way the result is exact; the threshold pass avoids most of the heap's unpredictable
 * branches (about 1.5x faster at n = 100, k = 15 on OFU-MNL+'s optimistic utilities).
 */
export function topKIndices(
  score: ArrayLike<number>,
  n: number,
  k: number,
  out: Int32Array,
  floor = -Infinity,
): number {
  // Not with a floor: the scores above one (@routekit/mnl's Dinkelbach, v_i (r_i - lambda) > 0) are too few
  // or too skewed for the guess, and the wasted passes cost more than the heap saves.
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
    if (topKIndicesAmong(score, k, out, cand, c) === k) return k;
  }
  return heapTopK(score, n, k, out, floor);
}

/**
 * The k best of the candidates cand[0 .. c) (indices into `score`, increasing), best first, ties to the
 * lower index, written into `out`, when k <= c <= 4k; returns k, or -1 (nothing written) for any other c.
 * When the candidates are exactly the items whose score is above some threshold T, this is the top-K of
 * all items: at least k items above T means the k-th best is above T too. {@link topKIndices}'s threshold path;
 * the MNL policies also collect the candidates while scoring (with the previous round's threshold).
 */
export function topKIndicesAmong(
  score: ArrayLike<number>,
  k: number,
  out: Int32Array,
  cand: Int32Array,
  c: number,
): number {
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

/** The threshold {@link topKIndices} guesses for n scores with this sum and sum of squares: mean + z sd. */
export function topKThreshold(sum: number, sumSquares: number, n: number, k: number): number {
  const mean = sum / n;
  const variance = sumSquares / n - mean * mean;
  return mean + upperQuantile(n, k) * Math.sqrt(variance > 0 ? variance : 0);
}

/**
 * {@link topKIndices} by a heap (any scores): one scan keeps the k best in a heap whose root is the worst kept
 * item (lowest score, then highest index); an item enters only when its score is strictly above the root's, so among equal
 * scores the earlier item stays. Popping the heap then writes the answer from the back. For n = 100,
 * k = 15 this does about half the moves of inserting every entering item into a sorted prefix.
 */
function heapTopK(score: ArrayLike<number>, n: number, kIn: number, out: Int32Array, floor = -Infinity): number {
  if (!(kIn > 0)) return 0;
  // At most n items can be kept: the heap is sized for those, not for k (@routekit/mnl's optimalAssortment with K = 2^53,
  // any integer >= 1, threw a RangeError allocating it). With k >= n the fill loop keeps every admitted item and
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
