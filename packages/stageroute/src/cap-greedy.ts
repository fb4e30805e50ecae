/**
 * Picking models in a given order under the caps: the ratio greedy's rule (greedy.ts) and DeployOPT's
 * fallback when its search stops at the node limit (deploy.ts) share it.
 */
/** The feasibility tolerance of the greedy: a set carries all traffic when its caps sum to at least this. */
const FULL = 1 - 1e-12;

/**
 * The greedy's picks, in pick order: up to `s` models taken in the order `byUtil` (pool indices, best
 * first), each the first remaining one whose cap, with the `s - picked - 1` largest caps of the other
 * remaining models, still lets the caps reach 1 (`FULL`); when none does, the first remaining one.
 *
 * The test of a candidate with cap v is `mass + v + others >= FULL`, `others` the sum (from 0, largest
 * first) of the k = s - picked - 1 largest other remaining caps, computed exactly as a fresh sort of the
 * other caps would: others depends only on v. With T the L = min(k + 1, remaining) largest remaining caps
 * (descending), a v below T[k - 1] leaves the top k in place (others = T[0] + ... + T[k - 1], one prefix
 * sum per pick), and any other v takes one T[j] = v out of T (others = the sum of T without T[j], in
 * order). The latter is within a few rounding errors of mass + sum(T) - v for every such v, so it is
 * summed exactly (once per distinct value per pick) only when mass + sum(T) lies within that error of
 * FULL. A pick thus costs O(L) plus O(1) per candidate tried (O(s n) over a deployment, after the two
 * O(n log n) sorts), where re-sorting the remaining caps for every candidate cost O(n^2 log n) per pick.
 */
export function greedyByRatio(byUtil: ArrayLike<number>, caps: ArrayLike<number>, s: number): number[] {
  const n = byUtil.length;
  const chosen: number[] = [];
  if (s >= n) {
    // Every model is picked (the order does not matter: the caller sorts the picks).
    for (let r = 0; r < n; r++) chosen.push(byUtil[r] as number);
    return chosen;
  }
  // Pool indices by cap, largest first (only the values matter: equal caps are interchangeable).
  const byCap = Int32Array.from({ length: n }, (_, i) => i).sort((x, y) => (caps[y] as number) - (caps[x] as number));
  const taken = new Uint8Array(n);
  // The remaining models in byUtil order, as a linked list over positions (n = end).
  const next = Int32Array.from({ length: n + 1 }, (_, r) => r + 1);
  const prev = Int32Array.from({ length: n + 1 }, (_, r) => r - 1);
  let head = 0;
  const top = new Float64Array(s + 1);
  const pre = new Float64Array(s + 2);
  const memo = new Float64Array(s + 1);
  let mass = 0;
  let m = n;
  while (chosen.length < s && m > 0) {
    const k = s - chosen.length - 1;
    const len = Math.min(k + 1, m);
    for (let r = 0, q = 0; q < len; r++) {
      const i = byCap[r] as number;
      if (taken[i] === 0) top[q++] = caps[i] as number;
    }
    pre[0] = 0;
    for (let q = 0; q < len; q++) pre[q + 1] = (pre[q] as number) + (top[q] as number);
    memo.fill(Number.NaN, 0, len);
    // Candidates with v >= bar take their own cap out of T; with len <= k, every candidate does.
    const bar = len === k + 1 ? (k > 0 ? (top[k - 1] as number) : Number.POSITIVE_INFINITY) : 0;
    const keepSum = pre[k < len ? k : len] as number;
    const whole = mass + (pre[len] as number);
    const margin = (len + 1) * 2 ** -51 * whole;
    const wholeFits = whole - margin >= FULL;
    const wholeFails = whole + margin < FULL;
    let pick = -1;
    for (let r = head; r < n; r = next[r] as number) {
      const i = byUtil[r] as number;
      const v = caps[i] as number;
      let fits: boolean;
      if (v < bar) fits = mass + v + keepSum >= FULL;
      else if (wholeFits) fits = true;
      else if (wholeFails) fits = false;
      else {
        // First position of v in T (descending): the others are T without it, summed in order.
        let lo = 0;
        let hi = len - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if ((top[mid] as number) > v) lo = mid + 1;
          else hi = mid;
        }
        let others = memo[lo] as number;
        if (Number.isNaN(others)) {
          others = pre[lo] as number;
          for (let q = lo + 1; q < len; q++) others += top[q] as number;
          memo[lo] = others;
        }
        fits = mass + v + others >= FULL;
      }
      if (fits) {
        pick = r;
        break;
      }
    }
    if (pick < 0) pick = head;
    const i = byUtil[pick] as number;
    // Unlink the pick.
    const a = prev[pick] as number;
    const b = next[pick] as number;
    if (a >= 0) next[a] = b;
    else head = b;
    prev[b] = a;
    taken[i] = 1;
    m--;
    chosen.push(i);
    mass += caps[i] as number;
  }
  return chosen;
}
