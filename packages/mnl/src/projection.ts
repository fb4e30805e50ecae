/**
 * Exact projection onto the Euclidean unit ball in the A-norm (the paper's step 8):
 * u = argmin_{||u||_2 <= 1} (u - w')^T A (u - w') for symmetric positive definite A.
 *
 * KKT: u(mu) = (A + mu I)^-1 A w' with mu >= 0 and ||u(mu)|| = 1 when ||w'|| > 1. linalg has no
 * eigensolver, so the secular equation phi(mu) = 1 / ||u(mu)|| - 1 = 0 is solved with one Cholesky
 * factorisation of A + mu I per iterate (Moré-Sorensen): phi is increasing and concave, so Newton
 * from mu = 0 converges monotonically; a bisection bracket [0, tr(A) (||w'|| - 1)] guards it.
 */
import { choleskyFactor, choleskySolve, dot } from "@routekit/linalg";

/** Scratch buffers for {@link projectUnitBall} (so the hot path allocates nothing). */
export class ProjectionWorkspace {
  readonly M: Float64Array;
  readonly L: Float64Array;
  readonly b: Float64Array;
  readonly u: Float64Array;
  readonly q: Float64Array;
  readonly best: Float64Array;
  /** Iterations used by the last call (0 when w' was already inside the ball). */
  iterations = 0;
  constructor(readonly d: number) {
    this.M = new Float64Array(d * d);
    this.L = new Float64Array(d * d);
    this.b = new Float64Array(d);
    this.u = new Float64Array(d);
    this.q = new Float64Array(d);
    this.best = new Float64Array(d);
  }
}

/**
 * Writes the projection of `wp` into `out` (may alias `wp`) and returns the multiplier mu
 * (0 when ||wp|| <= 1). `A` is the full symmetric d x d matrix (row-major).
 */
export function projectUnitBall(
  wp: Float64Array,
  A: Float64Array,
  d: number,
  out: Float64Array,
  ws: ProjectionWorkspace = new ProjectionWorkspace(d),
): number {
  const nrm = Math.sqrt(dot(wp, wp, d));
  ws.iterations = 0;
  if (nrm <= 1) {
    if (out !== wp) for (let k = 0; k < d; k++) out[k] = wp[k] as number;
    return 0;
  }
  const { M, L, b, u, q, best } = ws;
  let trace = 0;
  for (let i = 0; i < d; i++) {
    trace += A[i * d + i] as number;
    let s = 0;
    for (let j = 0; j < d; j++) s += (A[i * d + j] as number) * (wp[j] as number);
    b[i] = s;
  }
  let lo = 0;
  let hi = trace * (nrm - 1);
  let mu = 0;
  // The last evaluated u inside the ball (phi >= 0): a feasible answer if the iteration ends early.
  let haveBest = false;
  for (let it = 0; it < 200; it++) {
    ws.iterations = it + 1;
    for (let i = 0; i < d * d; i++) M[i] = A[i] as number;
    for (let i = 0; i < d; i++) M[i * d + i] = (M[i * d + i] as number) + mu;
    // A is formed from its Cholesky factor, so with features of norm ~1e15 and more its rounding
    // (1e-16 of entries ~1e30) can exceed its smallest eigenvalue (the ridge): A + mu I is then not
    // numerically positive definite for small mu. Such a mu is treated as "below the root".
    const ok = choleskyFactor(M, d, L);
    let phi = Number.NaN;
    let un2 = 0;
    if (ok) {
      choleskySolve(L, d, b, u);
      un2 = dot(u, u, d);
      phi = 1 / Math.sqrt(un2) - 1;
    }
    if (!Number.isFinite(phi)) {
      lo = mu;
      const next = hi > lo ? 0.5 * (lo + hi) : 2 * lo + 1;
      if (next === mu || hi - lo <= 1e-15 * Math.max(1, hi)) break;
      mu = next;
      continue;
    }
    if (phi < 0) lo = mu;
    else {
      hi = mu;
      best.set(u);
      haveBest = true;
    }
    if (Math.abs(phi) <= 1e-15 || hi - lo <= 1e-15 * Math.max(1, hi)) break;
    // phi'(mu) = u^T (A + mu I)^-1 u / ||u||^3.
    choleskySolve(L, d, u, q);
    const dphi = dot(u, q, d) / (un2 * Math.sqrt(un2));
    let next = mu - phi / dphi;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next === mu) break;
    mu = next;
  }
  const src = haveBest ? best : u;
  const un = Math.sqrt(dot(src, src, d));
  if (!(un > 0) || !Number.isFinite(un)) {
    // No usable evaluation: the Euclidean projection, w' / ||w'||, is feasible.
    for (let k = 0; k < d; k++) out[k] = (wp[k] as number) / nrm;
    return mu;
  }
  // At the root ||u|| = 1 up to rounding; never return a point outside the ball.
  const s = un > 1 ? 1 / un : 1;
  for (let k = 0; k < d; k++) out[k] = s * (src[k] as number);
  return mu;
}
