import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { IndexSolver, indexLink, sampleLoss, sampleLossDerivative } from "../src/index.js";

const LINKS = [indexLink("tanh"), indexLink("logistic"), indexLink("linear", 0.9)];

/** Composite Gauss-Legendre (5 nodes) of f on [a, b] with n panels. */
function gl(f: (u: number) => number, a: number, b: number, n = 400): number {
  const x = [0, -0.5384693101056831, 0.5384693101056831, -0.906179845938664, 0.906179845938664];
  const w = [0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891, 0.2369268850561891];
  let s = 0;
  const h = (b - a) / n;
  for (let i = 0; i < n; i++) {
    const m = a + (i + 0.5) * h;
    for (let k = 0; k < 5; k++) s += (w[k] as number) * f(m + (x[k] as number) * (h / 2));
  }
  return (s * h) / 2;
}

describe("index loss", () => {
  it("closed form matches quadrature of the moment to 1e-10 for every link (kink split)", () => {
    for (const link of LINKS) {
      for (const [mu, c] of [
        [0.7, 0.1],
        [0.3, 0.02],
        [1, 0.05],
        [0, 0.2],
        [0.95, 0.3],
      ] as const) {
        const u = link.inverse(mu);
        for (let z = -3; z <= 3; z += 0.25) {
          const integrand = (v: number) => c - Math.max(mu - link.value(v), 0);
          const lo = Math.min(0, z);
          const hi = Math.max(0, z);
          let q: number;
          if (Number.isFinite(u) && u > lo && u < hi) q = gl(integrand, lo, u) + gl(integrand, u, hi);
          else q = gl(integrand, lo, hi);
          if (z < 0) q = -q;
          expect(Math.abs(sampleLoss(link, mu, c, z) - q)).toBeLessThan(1e-10);
        }
      }
    }
  });
  it("derivative matches finite differences and is non-decreasing (convexity)", () => {
    for (const link of LINKS) {
      for (const [mu, c] of [
        [0.7, 0.1],
        [0.2, 0.05],
        [1, 0.1],
      ] as const) {
        let prev = Number.NEGATIVE_INFINITY;
        for (let z = -3; z <= 3; z += 0.1) {
          const h = 1e-6;
          const fd = (sampleLoss(link, mu, c, z + h) - sampleLoss(link, mu, c, z - h)) / (2 * h);
          const d = sampleLossDerivative(link, mu, c, z);
          // C^1 with a jump of l'' at the kink Lambda(z) = mu: there central differences err by O(h).
          const nearKink = Math.abs(z - link.inverse(mu)) < 1e-3;
          expect(Math.abs(fd - d)).toBeLessThan(nearKink ? 1e-6 : 1e-7);
          expect(d).toBeGreaterThanOrEqual(prev - 1e-15);
          prev = d;
        }
      }
    }
  });
  it("single-sample minimiser is Lambda^-1(mu - c) (mu = 0.7, c = 0.1 -> 0.6 on the linear link; mu = 1 works)", () => {
    const link = indexLink("linear", 0.9);
    const solver = new IndexSolver(1);
    for (const [mu, c, want] of [
      [0.7, 0.1, 0.6],
      [1, 0.05, link.inverse(0.95)],
      [0.5, 0.2, 0.3],
    ] as const) {
      const rho = new Float64Array([0]);
      solver.solve(link, new Float64Array([1]), new Float64Array([mu]), new Float64Array([c]), 1, 5, rho);
      expect(rho[0]).toBeCloseTo(want, 8);
    }
  });
  it("the summed objective's gradient in rho matches central finite differences (every link)", () => {
    const rng = Rng.fromSeed(8);
    const m = 3;
    const n = 60;
    const Psi = new Float64Array(n * m);
    const mu = new Float64Array(n);
    const c = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      Psi[s * m] = 1;
      Psi[s * m + 1] = rng.uniformIn(-1, 1);
      Psi[s * m + 2] = rng.uniformIn(-1, 1);
      mu[s] = s % 10 === 0 ? 1 : rng.uniform();
      c[s] = 0.01 + 0.1 * rng.uniform();
    }
    const solver = new IndexSolver(m);
    for (const link of LINKS)
      for (let trial = 0; trial < 5; trial++) {
        const rho = new Float64Array([rng.uniformIn(-1, 1), rng.uniformIn(-1, 1), rng.uniformIn(-1, 1)]);
        const g = solver.gradient(link, Psi, mu, c, n, rho);
        for (let k = 0; k < m; k++) {
          const h = 1e-6;
          const up = rho.slice();
          const down = rho.slice();
          up[k] = (up[k] as number) + h;
          down[k] = (down[k] as number) - h;
          const fd =
            (solver.objective(link, Psi, mu, c, n, up) - solver.objective(link, Psi, mu, c, n, down)) / (2 * h);
          // C^1 with kinks: central differences err by O(h) per sample whose kink lies within h.
          expect(Math.abs(fd - (g[k] as number))).toBeLessThan(1e-6 * n);
        }
      }
  });
  it("solveIndex returns a KKT point: interior gradient ~ 0, boundary gradient anti-parallel to rho", () => {
    const rng = Rng.fromSeed(3);
    const m = 3;
    const n = 500;
    const link = indexLink("tanh");
    const Psi = new Float64Array(n * m);
    const mu = new Float64Array(n);
    const c = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      Psi[s * m] = 1;
      Psi[s * m + 1] = rng.uniformIn(-1, 1);
      Psi[s * m + 2] = rng.uniformIn(-1, 1);
      mu[s] = rng.uniform();
      c[s] = 0.01 + 0.1 * rng.uniform();
    }
    const solver = new IndexSolver(m);
    const rho = new Float64Array(m);
    solver.solve(link, Psi, mu, c, n, 3, rho);
    const g = solver.gradient(link, Psi, mu, c, n, rho);
    const gn = Math.hypot(...g);
    expect(Math.hypot(...rho)).toBeLessThan(3);
    expect(gn).toBeLessThan(1e-8 * n);
    // a tight ball forces a boundary solution
    const rb = new Float64Array(m);
    solver.solve(link, Psi, mu, c, n, 0.05, rb);
    const gb = solver.gradient(link, Psi, mu, c, n, rb);
    expect(Math.hypot(...rb)).toBeCloseTo(0.05, 10);
    const cos = (gb[0]! * rb[0]! + gb[1]! * rb[1]! + gb[2]! * rb[2]!) / (Math.hypot(...gb) * Math.hypot(...rb));
    expect(cos).toBeLessThan(-1 + 1e-6);
    // and no feasible point does better
    const f0 = solver.objective(link, Psi, mu, c, n, rb);
    for (let k = 0; k < 200; k++) {
      const v = new Float64Array([rng.normal(), rng.normal(), rng.normal()]);
      const s = 0.05 / Math.hypot(...v);
      for (let i = 0; i < 3; i++) v[i] = v[i]! * s * rng.uniform();
      expect(solver.objective(link, Psi, mu, c, n, v)).toBeGreaterThanOrEqual(f0 - 1e-12);
    }
  });
  it("at the true rho the sample moment psi * m(rho) averages to ~0 (|.| < 3/sqrt(n)) and the estimate is consistent", () => {
    // Env-A box 2: omega1 ~ U[l(x), l(x) + w], c = cbar (0.5 + U), sigma* = l + w - sqrt(2 w cbar), linear link
    const link = indexLink("linear", 0.9);
    const L = [0.3, 0, 0.15];
    const w = 0.55;
    const cbar = 0.04;
    const rhoTrue = [L[0]! + w - Math.sqrt(2 * w * cbar), L[1]!, L[2]!];
    const rng = Rng.fromSeed(11);
    const errs: number[] = [];
    for (const n of [1000, 4000]) {
      const Psi = new Float64Array(n * 3);
      const mu = new Float64Array(n);
      const c = new Float64Array(n);
      const mom = [0, 0, 0];
      for (let s = 0; s < n; s++) {
        const x1 = rng.uniformIn(-1, 1);
        const x2 = rng.uniformIn(-1, 1);
        Psi.set([1, x1, x2], s * 3);
        const l = L[0]! + L[1]! * x1 + L[2]! * x2;
        mu[s] = l + w * rng.uniform();
        c[s] = cbar * (0.5 + rng.uniform());
        const sig = rhoTrue[0]! + rhoTrue[1]! * x1 + rhoTrue[2]! * x2;
        const mres = c[s]! - Math.max(mu[s]! - sig, 0);
        mom[0] += mres;
        mom[1] += mres * x1;
        mom[2] += mres * x2;
      }
      for (const v of mom) expect(Math.abs(v / n)).toBeLessThan(3 / Math.sqrt(n));
      const rho = new Float64Array(3);
      new IndexSolver(3).solve(link, Psi, mu, c, n, 3, rho);
      errs.push(Math.hypot(rho[0]! - rhoTrue[0]!, rho[1]! - rhoTrue[1]!, rho[2]! - rhoTrue[2]!));
    }
    expect(errs[0]! * Math.sqrt(1000)).toBeLessThan(5);
    expect(errs[1]! * Math.sqrt(4000)).toBeLessThan(5);
  });
});
