import { Rng } from "@routekit/core";
import { choleskyFactor, sigmoid } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import {
  addMnlHessianToCholesky,
  addMnlHessianUpper,
  mnlGradient,
  mnlLoss,
  mnlProbabilities,
  mnlRevenue,
  refactorMnlHessian,
} from "../src/model.js";

function randomX(rng: Rng, n: number, d: number, scale = 1): Float64Array {
  const X = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k < d; k++) {
      X[i * d + k] = rng.normal();
      s += X[i * d + k]! ** 2;
    }
    for (let k = 0; k < d; k++) X[i * d + k] = (scale * X[i * d + k]!) / Math.sqrt(s);
  }
  return X;
}

function fullFromUpper(A: Float64Array, d: number): Float64Array {
  const F = new Float64Array(d * d);
  for (let i = 0; i < d; i++) for (let j = i; j < d; j++) F[i * d + j] = F[j * d + i] = A[i * d + j]!;
  return F;
}

/** Whether the symmetric full matrix M + eps I is positive definite. */
function isPD(M: Float64Array, d: number, eps: number): boolean {
  const A = M.slice();
  for (let i = 0; i < d; i++) A[i * d + i]! += eps;
  return choleskyFactor(A, d, new Float64Array(d * d));
}

describe("MNL probabilities", () => {
  it("sum to 1 with the outside option at extreme utilities and any v0", () => {
    const d = 1;
    for (const v0 of [1e-3, 1, 3, 100]) {
      for (const zs of [
        [700, -700, 0],
        [700, 700, 699],
        [-700, -700, -700],
        [0.3, -0.2, 1.1],
      ]) {
        const X = Float64Array.from(zs);
        const p = new Float64Array(4);
        mnlProbabilities(X, 3, d, Float64Array.of(1), v0, new Float64Array(4), p);
        const s = p[0]! + p[1]! + p[2]! + p[3]!;
        expect(Math.abs(s - 1)).toBeLessThan(1e-12);
        for (const q of p) expect(Number.isFinite(q) && q >= 0).toBe(true);
      }
    }
  });

  it("are shift invariant: p(z + c, v0 e^c) = p(z, v0)", () => {
    const X = Float64Array.of(0.2, -1.3, 0.7);
    const p1 = new Float64Array(4);
    const p2 = new Float64Array(4);
    mnlProbabilities(X, 3, 1, Float64Array.of(1), 2, new Float64Array(4), p1);
    const c = 5.5;
    const Xs = X.map((v) => v + c);
    mnlProbabilities(Xs, 3, 1, Float64Array.of(1), 2 * Math.exp(c), new Float64Array(4), p2);
    for (let i = 0; i < 4; i++) expect(p2[i]).toBeCloseTo(p1[i]!, 13);
  });

  it("K = 1, v0 = 1 is the logistic model; the empty set gives p0 = 1", () => {
    for (const z of [-30, -2, 0, 0.7, 12]) {
      const p = new Float64Array(2);
      mnlProbabilities(Float64Array.of(z), 1, 1, Float64Array.of(1), 1, new Float64Array(2), p);
      expect(p[0]).toBeCloseTo(sigmoid(z), 14);
    }
    const p = new Float64Array(1);
    mnlProbabilities(new Float64Array(0), 0, 3, new Float64Array(3), 2.5, new Float64Array(1), p);
    expect(p[0]).toBe(1);
    expect(mnlRevenue([], undefined, [], 1)).toBe(0);
  });
});

describe("loss, gradient and Hessian", () => {
  const rng = Rng.fromSeed(7);
  const d = 4;
  const n = 5;
  const v0 = 1.7;
  const X = randomX(rng, n, d);
  const w = Float64Array.from({ length: d }, () => rng.normal(0, 0.7));
  const z = new Float64Array(n + 1);
  const p = new Float64Array(n + 1);

  for (const choice of [2, -1]) {
    it(`gradient X^T(p - y) matches central differences (choice ${choice})`, () => {
      mnlProbabilities(X, n, d, w, v0, z, p);
      const g = mnlGradient(X, n, d, p, choice, new Float64Array(d));
      const h = 1e-6;
      for (let k = 0; k < d; k++) {
        const wp = w.slice();
        const wm = w.slice();
        wp[k]! += h;
        wm[k]! -= h;
        const fd = (mnlLoss(X, n, d, wp, v0, choice, z) - mnlLoss(X, n, d, wm, v0, choice, z)) / (2 * h);
        expect(Math.abs(fd - g[k]!)).toBeLessThan(1e-6 * Math.max(1, Math.abs(g[k]!)));
      }
      if (choice < 0) expect(Math.hypot(...g)).toBeGreaterThan(1e-3);
      mnlProbabilities(X, n, d, w, v0, z, p);
      const pc = choice < 0 ? p[n]! : p[choice]!;
      expect(mnlLoss(X, n, d, w, v0, choice, z)).toBeCloseTo(-Math.log(pc), 12);
    });
  }

  it("Hessian: x̄ form = double sum = finite difference of the gradient; 0 <= G <= I; Cholesky form agrees", () => {
    mnlProbabilities(X, n, d, w, v0, z, p);
    const G = new Float64Array(d * d);
    addMnlHessianUpper(G, X, n, d, p, 1, new Float64Array(d), new Float64Array(d));
    const Gf = fullFromUpper(G, d);
    // double sum sum_i p_i x_i x_i^T - sum_ij p_i p_j x_i x_j^T
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++) {
        let s = 0;
        for (let i = 0; i < n; i++) {
          s += p[i]! * X[i * d + a]! * X[i * d + b]!;
          for (let j = 0; j < n; j++) s -= p[i]! * p[j]! * X[i * d + a]! * X[j * d + b]!;
        }
        expect(Gf[a * d + b]).toBeCloseTo(s, 13);
      }
    // finite difference of the gradient (y-independent)
    const h = 1e-6;
    for (let k = 0; k < d; k++) {
      const wp = w.slice();
      const wm = w.slice();
      wp[k]! += h;
      wm[k]! -= h;
      const pp = new Float64Array(n + 1);
      const pm = new Float64Array(n + 1);
      mnlProbabilities(X, n, d, wp, v0, z, pp);
      const gp = mnlGradient(X, n, d, pp, 1, new Float64Array(d));
      mnlProbabilities(X, n, d, wm, v0, z, pm);
      const gm = mnlGradient(X, n, d, pm, 1, new Float64Array(d));
      for (let a = 0; a < d; a++) expect(Math.abs((gp[a]! - gm[a]!) / (2 * h) - Gf[a * d + k]!)).toBeLessThan(1e-7);
    }
    // eigenvalues in [-1e-12, 1]: G + 1e-12 I is PD and I - G + 1e-12 I is PD
    expect(isPD(Gf, d, 1e-12)).toBe(true);
    const ImG = Gf.map((v, i) => (i % (d + 1) === 0 ? 1 - v : -v));
    expect(isPD(ImG, d, 1e-12)).toBe(true);
    // Cholesky rank-1 form: L L^T = 2 I + 0.5 G
    const L = new Float64Array(d * d);
    for (let i = 0; i < d; i++) L[i * d + i] = Math.SQRT2;
    addMnlHessianToCholesky(L, X, n, d, p, 0.5, new Float64Array(d), new Float64Array(d));
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++) {
        let s = 0;
        for (let k = 0; k < d; k++) s += L[a * d + k]! * L[b * d + k]!;
        expect(s).toBeCloseTo((a === b ? 2 : 0) + 0.5 * Gf[a * d + b]!, 13);
      }
    // Formed and factored again: the same matrix.
    const R = new Float64Array(d * d);
    const src = new Float64Array(d * d);
    for (let i = 0; i < d; i++) src[i * d + i] = Math.SQRT2;
    refactorMnlHessian(R, X, n, d, p, 0.5, new Float64Array(d), new Float64Array(d), src, new Float64Array(d * d));
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++) {
        let s = 0;
        for (let k = 0; k < d; k++) s += R[a * d + k]! * R[b * d + k]!;
        expect(s).toBeCloseTo((a === b ? 2 : 0) + 0.5 * Gf[a * d + b]!, 13);
      }
  });

  it("G is the covariance of x_c under c ~ p with x_0 = 0 (Monte Carlo)", () => {
    mnlProbabilities(X, n, d, w, v0, z, p);
    const G = fullFromUpper(
      (() => {
        const A = new Float64Array(d * d);
        addMnlHessianUpper(A, X, n, d, p, 1, new Float64Array(d), new Float64Array(d));
        return A;
      })(),
      d,
    );
    const mc = Rng.fromSeed(3);
    const draws = 200_000;
    const mean = new Float64Array(d);
    const second = new Float64Array(d * d);
    for (let t = 0; t < draws; t++) {
      const c = mc.categorical(p, n + 1);
      if (c === n) continue;
      for (let a = 0; a < d; a++) {
        mean[a]! += X[c * d + a]!;
        for (let b = 0; b < d; b++) second[a * d + b]! += X[c * d + a]! * X[c * d + b]!;
      }
    }
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++) {
        const cov = second[a * d + b]! / draws - (mean[a]! / draws) * (mean[b]! / draws);
        expect(Math.abs(cov - G[a * d + b]!)).toBeLessThan(0.01);
      }
  });
});

describe("refactorMnlHessian past the unrolled kernels (d > 8)", () => {
  // Small assortments next to d take the n + 1 rank-1 updates (2 (n + 1) < d), larger ones form and factor again:
  // both give the factor of src src^T + scale G.
  it.each([
    [24, 3, "rank-1 updates"],
    [12, 6, "formed and factored"],
  ])("d = %i, n = %i (%s): L L^T = src src^T + scale G to 1e-13", (d, n) => {
    const rng = Rng.fromSeed(d * 100 + n);
    const X = randomX(rng, n, d);
    const w = Float64Array.from({ length: d }, () => rng.normal());
    const p = new Float64Array(n + 1);
    mnlProbabilities(X, n, d, w, 1, new Float64Array(n + 1), p);
    const src = new Float64Array(d * d);
    for (let i = 0; i < d; i++) for (let j = 0; j <= i; j++) src[i * d + j] = i === j ? 1.5 : 0.1 * rng.normal();
    const G = new Float64Array(d * d);
    addMnlHessianUpper(G, X, n, d, p, 1, new Float64Array(d), new Float64Array(d));
    const Gf = fullFromUpper(G, d);
    const L = new Float64Array(d * d);
    refactorMnlHessian(L, X, n, d, p, 0.7, new Float64Array(d), new Float64Array(d), src, new Float64Array(d * d));
    for (let a = 0; a < d; a++) {
      expect(L[a * d + a]).toBeGreaterThan(0);
      for (let b = a + 1; b < d; b++) expect(L[a * d + b]).toBe(0);
      for (let b = 0; b < d; b++) {
        let s = 0;
        let want = 0;
        for (let k = 0; k < d; k++) {
          s += L[a * d + k]! * L[b * d + k]!;
          want += src[a * d + k]! * src[b * d + k]!;
        }
        expect(s).toBeCloseTo(want + 0.7 * Gf[a * d + b]!, 13);
      }
    }
  });
});
