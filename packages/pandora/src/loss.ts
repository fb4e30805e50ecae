/**
 * The index-estimation loss of COSMOS (the paper's eqs. 7-10 and 22-23) and its solver.
 *
 * Per sample s (context features psi_s, reward mu_s of the revealed output, cost c_s) the loss in the
 * scalar z = rho . psi_s is l_s(z) = int_0^z [c_s - (mu_s - Lambda(u))^+] du. Its first-order condition
 * is the sample analogue of Weitzman's moment E[(mu - sigma)^+] = E[c]. Closed form: with
 * u* = Lambda^-1(mu_s) (+-Infinity at the ends) and F(v) = mu_s v - int_0^v Lambda,
 * l_s(z) = c_s z - [F(min(z, u*)) - F(min(0, u*))]. It is convex, C^1, piecewise C^2.
 */
import { checkNumber, MAX_RIDGE_DIM } from "@routekit/core";
import { choleskyFactor, choleskySolve } from "@routekit/linalg";
import type { IndexLink } from "./links.js";

/** l_s(z) for one sample. */
export function sampleLoss(link: IndexLink, mu: number, c: number, z: number): number {
  const u = link.inverse(mu);
  if (u === Number.NEGATIVE_INFINITY) return c * z;
  // F(v) = mu v - int_0^v Lambda; int_0^0 Lambda = 0, so F(0) = 0 needs no evaluation.
  const hi = z < u ? z : u;
  const fHi = mu * hi - link.integral(hi);
  const fLo = u > 0 ? 0 : mu * u - link.integral(u);
  return c * z - (fHi - fLo);
}

/** l_s'(z) = c - (mu - Lambda(z))^+. */
export function sampleLossDerivative(link: IndexLink, mu: number, c: number, z: number): number {
  const e = mu - link.value(z);
  return c - (e > 0 ? e : 0);
}

/** The projected-Newton solver's work buffers for one dimension m (reused across calls). */
export class IndexSolver {
  readonly m: number;
  private readonly g: Float64Array;
  private readonly H: Float64Array;
  private readonly p: Float64Array;
  private readonly trial: Float64Array;
  private readonly L: Float64Array;
  private readonly rhs: Float64Array;
  private ustar = new Float64Array(16);
  private flo = new Float64Array(16);
  private fAt = 0;
  /** Newton iterations used by the last solve. */
  lastIterations = 0;

  constructor(m: number) {
    checkNumber(m, "index dimension m", { integer: true, min: 1, max: MAX_RIDGE_DIM + 1 });
    this.m = m;
    this.g = new Float64Array(m);
    this.H = new Float64Array(m * m);
    this.p = new Float64Array(m);
    this.trial = new Float64Array(m);
    this.L = new Float64Array(m * m);
    this.rhs = new Float64Array(m);
  }

  /** sum_s l_s(psi_s . rho) over n samples (Psi row-major n x m). */
  objective(
    link: IndexLink,
    Psi: Float64Array,
    mu: Float64Array,
    c: Float64Array,
    n: number,
    rho: Float64Array,
  ): number {
    this.prepare(link, mu, n);
    return this.objectiveFast(link, Psi, mu, c, n, rho);
  }

  /**
   * Per-sample constants of the closed form, computed once per solve: u*_s = Lambda^-1(mu_s) and
   * F(min(0, u*_s)) (so each objective evaluation costs one antiderivative per sample).
   */
  private prepare(link: IndexLink, mu: Float64Array, n: number): void {
    if (this.ustar.length < n) {
      this.ustar = new Float64Array(Math.max(2 * this.ustar.length, n));
      this.flo = new Float64Array(this.ustar.length);
    }
    for (let s = 0; s < n; s++) {
      const m = mu[s] as number;
      const u = link.inverse(m);
      this.ustar[s] = u;
      this.flo[s] = u > 0 || u === Number.NEGATIVE_INFINITY ? 0 : m * u - link.integral(u);
    }
  }

  private objectiveFast(
    link: IndexLink,
    Psi: Float64Array,
    mu: Float64Array,
    c: Float64Array,
    n: number,
    rho: Float64Array,
  ): number {
    const m = this.m;
    const U = this.ustar;
    const FLO = this.flo;
    let f = 0;
    for (let s = 0; s < n; s++) {
      let z = 0;
      for (let k = 0; k < m; k++) z += (Psi[s * m + k] as number) * (rho[k] as number);
      const u = U[s] as number;
      const cz = (c[s] as number) * z;
      if (u === Number.NEGATIVE_INFINITY) {
        f += cz;
        continue;
      }
      const hi = z < u ? z : u;
      f += cz - ((mu[s] as number) * hi - link.integral(hi) - (FLO[s] as number));
    }
    return f;
  }

  /**
   * Gradient into this.g and generalized Hessian into this.H (lower triangle); with `withF` also the
   * objective (as objectiveFast computes it, bit for bit) into this.fAt, saving a pass over the samples.
   */
  private derivatives(
    link: IndexLink,
    Psi: Float64Array,
    mu: Float64Array,
    c: Float64Array,
    n: number,
    rho: Float64Array,
    withF: boolean,
  ): void {
    const m = this.m;
    const g = this.g;
    const H = this.H;
    const U = this.ustar;
    const FLO = this.flo;
    g.fill(0);
    H.fill(0);
    let f = 0;
    for (let s = 0; s < n; s++) {
      const o = s * m;
      let z = 0;
      for (let k = 0; k < m; k++) z += (Psi[o + k] as number) * (rho[k] as number);
      if (withF) {
        const u = U[s] as number;
        const cz = (c[s] as number) * z;
        if (u === Number.NEGATIVE_INFINITY) f += cz;
        else {
          const hi = z < u ? z : u;
          f += cz - ((mu[s] as number) * hi - link.integral(hi) - (FLO[s] as number));
        }
      }
      const lam = link.value(z);
      const e = (mu[s] as number) - lam;
      const gs = (c[s] as number) - (e > 0 ? e : 0);
      const w = e > 0 ? link.derivative(z) : 0;
      for (let i = 0; i < m; i++) {
        const pi = Psi[o + i] as number;
        g[i] = (g[i] as number) + gs * pi;
        if (w !== 0)
          for (let j = 0; j <= i; j++) H[i * m + j] = (H[i * m + j] as number) + w * pi * (Psi[o + j] as number);
      }
    }
    this.fAt = f;
  }

  /**
   * argmin over the ball ||rho|| <= radius of sum_s l_s(psi_s . rho), by damped Newton with projection
   * and Armijo backtracking, warm-started from `rho` (overwritten with the solution). A tiny damping
   * 1e-8 (1 + n) keeps the Newton system positive definite when no sample is active; a projected
   * gradient step is the fallback when backtracking fails. Returns the final objective.
   */
  solve(
    link: IndexLink,
    Psi: Float64Array,
    mu: Float64Array,
    c: Float64Array,
    n: number,
    radius: number,
    rho: Float64Array,
    maxIter = 50,
  ): number {
    const m = this.m;
    const { g, H, p, trial } = this;
    project(rho, m, radius);
    this.prepare(link, mu, n);
    this.lastIterations = 0;
    if (n === 0) return 0;
    let f = 0;
    const damp = 1e-8 * (1 + n);
    for (let it = 0; it < maxIter; it++) {
      this.lastIterations = it + 1;
      this.derivatives(link, Psi, mu, c, n, rho, it === 0);
      if (it === 0) f = this.fAt;
      for (let i = 0; i < m; i++) H[i * m + i] = (H[i * m + i] as number) + damp;
      this.newtonTarget(rho, radius);
      let step = 1;
      let fNew = f;
      let ok = false;
      for (;;) {
        let slope = 0;
        for (let i = 0; i < m; i++) {
          trial[i] = (rho[i] as number) + step * (p[i] as number);
          slope += (g[i] as number) * step * (p[i] as number);
        }
        fNew = this.objectiveFast(link, Psi, mu, c, n, trial);
        if (fNew <= f + 1e-4 * slope) {
          ok = true;
          break;
        }
        step /= 2;
        if (step < 1e-10) break;
      }
      if (!ok) {
        let trace = 0;
        for (let k = 0; k < n * m; k++) trace += (Psi[k] as number) * (Psi[k] as number);
        const lr = 1 / (link.lipschitz * Math.max(trace, 1e-300));
        for (let i = 0; i < m; i++) trial[i] = (rho[i] as number) - lr * (g[i] as number);
        project(trial, m, radius);
        fNew = this.objectiveFast(link, Psi, mu, c, n, trial);
        if (!(fNew <= f)) break;
      }
      let dist = 0;
      for (let i = 0; i < m; i++) {
        const d = (trial[i] as number) - (rho[i] as number);
        dist += d * d;
      }
      const done = Math.abs(f - fNew) <= 1e-12 * (1 + Math.abs(f)) || Math.sqrt(dist) <= 1e-10;
      rho.set(trial);
      f = fNew;
      if (done) break;
    }
    return f;
  }

  /**
   * The Newton direction p into this.p, restricted to the ball: the minimiser rho' of the quadratic
   * model g.(v - rho) + (v - rho)^T H (v - rho) / 2 over ||v|| <= radius, p = rho' - rho. Inside the ball
   * this is -H^-1 g; otherwise (H + lambda I) rho' = H rho - g with lambda > 0 found by bisection so that
   * ||rho'|| = radius (the trust-region subproblem centred at the origin).
   */
  private newtonTarget(rho: Float64Array, radius: number): void {
    const m = this.m;
    const { g, H, p, rhs } = this;
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < m; j++)
        s += (i >= j ? (H[i * m + j] as number) : (H[j * m + i] as number)) * (rho[j] as number);
      rhs[i] = s - (g[i] as number);
    }
    let norm = this.solveShifted(0);
    if (norm > radius) {
      let lo = 0;
      let hi = 1;
      while (this.solveShifted(hi) > radius && hi < 1e300) hi *= 4;
      for (let it = 0; it < 200 && hi - lo > 1e-14 * (1 + hi); it++) {
        const mid = 0.5 * (lo + hi);
        if (this.solveShifted(mid) > radius) lo = mid;
        else hi = mid;
      }
      norm = this.solveShifted(hi);
      if (norm > radius) for (let i = 0; i < m; i++) p[i] = ((p[i] as number) * radius) / norm;
    }
    for (let i = 0; i < m; i++) p[i] = (p[i] as number) - (rho[i] as number);
  }

  /**
   * Solves (H + lambda I) p = rhs into this.p (factor in this.L) and returns ||p||; +Infinity when the
   * factorisation fails. A method rather than a closure in `newtonTarget`, so that a Newton step creates no
   * function object (the builds keep names, which would also wrap such a closure in a `__name` call).
   */
  private solveShifted(lambda: number): number {
    const m = this.m;
    const { H, p, L, rhs } = this;
    for (let i = 0; i < m; i++)
      for (let j = 0; j <= i; j++) L[i * m + j] = (H[i * m + j] as number) + (i === j ? lambda : 0);
    if (!choleskyFactor(L, m, L)) return Number.POSITIVE_INFINITY;
    choleskySolve(L, m, rhs, p);
    let s = 0;
    for (let i = 0; i < m; i++) s += (p[i] as number) * (p[i] as number);
    return Math.sqrt(s);
  }

  /** The gradient at rho (a copy), for KKT checks. */
  gradient(
    link: IndexLink,
    Psi: Float64Array,
    mu: Float64Array,
    c: Float64Array,
    n: number,
    rho: Float64Array,
  ): Float64Array {
    this.prepare(link, mu, n);
    this.derivatives(link, Psi, mu, c, n, rho, false);
    return this.g.slice();
  }
}

/** Euclidean projection onto the ball of the given radius (Infinity: no-op). */
export function project(v: Float64Array, n: number, radius: number): void {
  if (radius === Number.POSITIVE_INFINITY) return;
  let s = 0;
  for (let i = 0; i < n; i++) s += (v[i] as number) * (v[i] as number);
  const r2 = radius * radius;
  let f = 0;
  if (s < Number.POSITIVE_INFINITY && r2 < Number.POSITIVE_INFINITY && r2 >= MIN_NORMAL) {
    if (s <= r2) return;
    f = radius / Math.sqrt(s);
  } else {
    // A squared norm or radius that overflows (norms from about 1.3e154) or a radius whose square underflows
    // (below about 1.5e-154): the overflowing sum made f = 0 and projected onto the origin, an overflowing radius
    // left any vector where it was. Compared in units of the largest entry instead.
    let big = 0;
    for (let i = 0; i < n; i++) big = Math.max(big, Math.abs(v[i] as number));
    if (big === 0) return;
    let t = 0;
    for (let i = 0; i < n; i++) t += ((v[i] as number) / big) ** 2;
    const norm = Math.sqrt(t); // |v| / big, in [1, sqrt(n)]
    if (norm <= radius / big) return;
    for (let i = 0; i < n; i++) v[i] = ((v[i] as number) / big / norm) * radius;
    return;
  }
  for (let i = 0; i < n; i++) v[i] = (v[i] as number) * f;
}

/** The smallest positive normal double. */
const MIN_NORMAL = 2.2250738585072014e-308;
