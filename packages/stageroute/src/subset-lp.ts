/**
 * The routing LP over a chosen subset of the pool, shared by the subset enumeration (deploy.ts) and the
 * branch-and-bound (branch.ts): the subset's bounds are gathered into reusable buffers and solved there.
 */
import { RouteSolver, type RouteStatus } from "./route-lp.js";

export class SubsetLp {
  readonly route = new RouteSolver(16);
  /** Rewards, costs and caps of the gathered models, and the routing over them. */
  su = new Float64Array(16);
  sc = new Float64Array(16);
  sa = new Float64Array(16);
  sp = new Float64Array(16);

  /** Makes room for `n` models (allocates only when n exceeds the current size, doubling). */
  grow(n: number): void {
    if (this.su.length >= n) return;
    const m = Math.max(n, this.su.length * 2);
    this.su = new Float64Array(m);
    this.sc = new Float64Array(m);
    this.sa = new Float64Array(m);
    this.sp = new Float64Array(m);
  }

  /**
   * Solves the routing LP over the models `idx[0..s)` of (u, c, a) with budget b; the routing lands in
   * `sp[0..s)` (in idx order) and the objective in `route.value`.
   */
  solve(
    u: ArrayLike<number>,
    c: ArrayLike<number>,
    a: ArrayLike<number>,
    idx: Int32Array,
    s: number,
    b: number,
  ): RouteStatus {
    gather(u, c, a, idx, s, this.su, this.sc, this.sa);
    return this.route.solve(this.su, this.sc, this.sa, s, b, this.sp);
  }
}

/** Copies the rewards, costs and caps of the models `idx[0..s)` into `su`, `sc`, `sa` (in idx order). */
export function gather(
  u: ArrayLike<number>,
  c: ArrayLike<number>,
  a: ArrayLike<number>,
  idx: ArrayLike<number>,
  s: number,
  su: Float64Array,
  sc: Float64Array,
  sa: Float64Array,
): void {
  for (let q = 0; q < s; q++) {
    const i = idx[q] as number;
    su[q] = u[i] as number;
    sc[q] = c[i] as number;
    sa[q] = a[i] as number;
  }
}

/**
 * Positions 0..n-1 by the relaxation's weight `relaxed` (descending; all equal when it is undefined), then
 * reward u (descending), then position: the order the branch-and-bound explores first, the fallback picks
 * from and the improvement phase tries models in (deploy.ts, branch.ts).
 */
export function relaxedOrder(relaxed: ArrayLike<number> | undefined, u: ArrayLike<number>, n: number): number[] {
  return Array.from({ length: n }, (_, i) => i).sort(
    (x, y) =>
      (relaxed === undefined ? 0 : (relaxed[y] as number) - (relaxed[x] as number)) ||
      (u[y] as number) - (u[x] as number) ||
      x - y,
  );
}
