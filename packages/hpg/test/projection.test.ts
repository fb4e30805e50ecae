import { symmetricEigen } from "@routekit/linalg";
import { describe, expect, test } from "vitest";
import {
  bisectThreshold,
  Hpg,
  hypentropyBregman,
  hypentropyProject,
  hypentropyThreshold,
  matrixBregman,
  softThreshold,
} from "../src/index.js";
import { seeded, unitVector } from "./helpers.js";

/** Projected primal eigenvalues for mirror eigenvalues gamma. */
function project(gamma: number[], beta: number, tau: number): { nu: number; lambda: number[] } {
  const g = Float64Array.from(gamma);
  const nu = hypentropyThreshold(g, g.length, beta, tau, new Float64Array(g.length));
  softThreshold(g, g.length, nu);
  return { nu, lambda: Array.from(g, (v) => beta * Math.sinh(v)) };
}

/** Euclidean projection onto the l1 ball of radius tau (Duchi et al. 2008), sort-based. */
function projectL1(x: number[], tau: number): number[] {
  const a = x.map(Math.abs);
  if (a.reduce((s, v) => s + v, 0) <= tau) return x.slice();
  const u = a.slice().sort((p, q) => q - p);
  let cum = 0;
  let theta = 0;
  for (let j = 0; j < u.length; j++) {
    cum += u[j] as number;
    const t = (cum - tau) / (j + 1);
    if ((u[j] as number) > t) theta = t;
  }
  return x.map((v) => Math.sign(v) * Math.max(Math.abs(v) - theta, 0));
}

/**
 * A generic constrained solver, independent of the soft-threshold derivation: projected gradient on
 * min sum_i D_phi(x_i || y_i) over the l1 ball (Euclidean projection), step beta (the objective's
 * curvature is at most 1/beta), run to convergence.
 */
function genericSolve(lambdaTilde: number[], beta: number, tau: number): number[] {
  let x = projectL1(lambdaTilde, tau);
  for (let it = 0; it < 20_000; it++) {
    const grad = x.map((v, i) => Math.asinh(v / beta) - Math.asinh((lambdaTilde[i] as number) / beta));
    const next = projectL1(
      x.map((v, i) => v - beta * (grad[i] as number)),
      tau,
    );
    let diff = 0;
    for (let i = 0; i < x.length; i++) diff = Math.max(diff, Math.abs((next[i] as number) - (x[i] as number)));
    x = next;
    if (diff < 1e-15) break;
  }
  return x;
}

describe("hypentropy projection onto the nuclear ball", () => {
  test("inside the ball: threshold 0 and the spectrum unchanged", () => {
    const { nu, lambda } = project([0.1, -0.2, 0.05], 0.5, 2);
    expect(nu).toBe(0);
    expect(lambda[1]).toBeCloseTo(0.5 * Math.sinh(-0.2), 15);
  });

  test("outside: |lambda|_1 = tau, signs and order preserved, agrees with bisection and a generic solver", () => {
    const rng = seeded(4);
    for (let trial = 0; trial < 60; trial++) {
      const n = 2 + (trial % 5);
      const tau = 0.5 + 3 * rng.uniform();
      const beta = tau / (2 + rng.int(30));
      const gamma = Array.from({ length: n }, () => 4 * rng.normal());
      const bs = beta * gamma.reduce((s, g) => s + Math.sinh(Math.abs(g)), 0);
      const { nu, lambda } = project(gamma, beta, tau);
      if (bs <= tau) {
        expect(nu).toBe(0);
        continue;
      }
      expect(Math.abs(lambda.reduce((s, v) => s + Math.abs(v), 0) - tau)).toBeLessThan(1e-10 * Math.max(1, tau));
      for (let i = 0; i < n; i++) {
        if (lambda[i] !== 0) expect(Math.sign(lambda[i] as number)).toBe(Math.sign(gamma[i] as number));
        for (let j = 0; j < n; j++)
          if ((gamma[i] as number) > (gamma[j] as number))
            expect(lambda[i]).toBeGreaterThanOrEqual(lambda[j] as number);
      }
      const z = Float64Array.from(gamma, Math.abs);
      expect(Math.abs(bisectThreshold(z, n, beta, tau) - nu)).toBeLessThan(1e-12 * Math.max(1, nu));
      const lt = gamma.map((g) => beta * Math.sinh(g));
      const ref = genericSolve(lt, beta, tau);
      for (let i = 0; i < n; i++) expect(Math.abs((ref[i] as number) - (lambda[i] as number))).toBeLessThan(1e-7);
      // The closed form's objective is no worse than the generic solver's.
      const obj = (x: number[]) => x.reduce((s, v, i) => s + hypentropyBregman(v, lt[i] as number, beta), 0);
      expect(obj(lambda)).toBeLessThanOrEqual(obj(ref) + 1e-12);
      // Permutation invariance.
      const perm = gamma.map((_, i) => i).reverse();
      const permuted = project(
        perm.map((i) => gamma[i] as number),
        beta,
        tau,
      );
      expect(Math.abs(permuted.nu - nu)).toBeLessThan(1e-14 * Math.max(1, nu));
    }
  });

  test("soft-threshold identity: asinh(lambda_new / beta) = sign(gamma) max(|gamma| - nu, 0)", () => {
    const gamma = [3, -2.5, 0.4, -0.1];
    const beta = 0.25;
    const { nu, lambda } = project(gamma, beta, 1);
    expect(nu).toBeGreaterThan(0);
    gamma.forEach((g, i) => {
      expect(Math.asinh((lambda[i] as number) / beta)).toBeCloseTo(Math.sign(g) * Math.max(Math.abs(g) - nu, 0), 12);
    });
  });

  test("boundary: re-projecting a projected spectrum (rounding just above tau) returns a threshold ~0, never fails", () => {
    const rng = seeded(5);
    for (let trial = 0; trial < 500; trial++) {
      const n = 1 + rng.int(16);
      const beta = 2 / 16;
      const tau = 2;
      const g = Float64Array.from({ length: n }, () => 3 * rng.normal());
      const scratch = new Float64Array(n);
      softThreshold(g, n, hypentropyThreshold(g, n, beta, tau, scratch));
      const nu2 = hypentropyThreshold(g, n, beta, tau, scratch);
      expect(Number.isFinite(nu2)).toBe(true);
      expect(nu2).toBeGreaterThanOrEqual(0);
      expect(nu2).toBeLessThan(1e-12);
    }
  });

  test("huge mirror eigenvalues (|gamma| > 700) fall back to bisection with the same answer", () => {
    const beta = 1e-300;
    const gamma = Float64Array.from([720, -710, 1]);
    const nu = hypentropyThreshold(gamma, 3, beta, 1, new Float64Array(3));
    expect(Number.isFinite(nu)).toBe(true);
    softThreshold(gamma, 3, nu);
    const l1 = Array.from(gamma).reduce((s, v) => s + beta * Math.sinh(Math.abs(v)), 0);
    expect(Math.abs(l1 - 1)).toBeLessThan(1e-9);
  });

  test("matrix level: the projected W has smaller D_Phi(. || W~) than 1000 random feasible matrices", () => {
    const rng = seeded(6);
    const d = 4;
    const beta = 0.25;
    const tau = 1;
    const Wt = new Float64Array(d * d);
    for (let r = 0; r < 3; r++) {
      const u = unitVector(rng, d);
      const l = 2 * rng.normal();
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) Wt[a * d + b] += l * (u[a] as number) * (u[b] as number);
    }
    const { values, vectors } = symmetricEigen(Wt, d);
    const gamma = Float64Array.from(values, (l) => Math.asinh(l / beta));
    softThreshold(gamma, d, hypentropyThreshold(gamma, d, beta, tau, new Float64Array(d)));
    const P = new Float64Array(d * d);
    for (let k = 0; k < d; k++) {
      const l = beta * Math.sinh(gamma[k] as number);
      for (let a = 0; a < d; a++)
        for (let b = 0; b < d; b++) P[a * d + b] += l * (vectors[a * d + k] as number) * (vectors[b * d + k] as number);
    }
    const best = matrixBregman(P, Wt, d, beta);
    for (let i = 0; i < 1000; i++) {
      const X = new Float64Array(d * d);
      const ls = Array.from({ length: d }, () => rng.normal());
      const scale = (tau * rng.uniform()) / ls.reduce((s, v) => s + Math.abs(v), 0);
      for (let k = 0; k < d; k++) {
        const u = unitVector(rng, d); // random (not orthogonal) rank-one terms: |X|_* <= sum |l_k| <= tau
        for (let a = 0; a < d; a++)
          for (let b = 0; b < d; b++) X[a * d + b] += scale * (ls[k] as number) * (u[a] as number) * (u[b] as number);
      }
      expect(matrixBregman(X, Wt, d, beta)).toBeGreaterThanOrEqual(best);
    }
  });
});

describe("hypentropy projection at a beta far above the radius (no cancellation)", () => {
  test("ordinary settings: hypentropyProject is exactly softThreshold(hypentropyThreshold) (500 random spectra)", () => {
    const rng = seeded(11);
    for (let t = 0; t < 500; t++) {
      const n = 1 + rng.int(12);
      const gamma = Float64Array.from({ length: n }, () => (rng.uniform() - 0.5) * 6);
      const beta = 10 ** (rng.uniform() * 6 - 3);
      const tau = 10 ** (rng.uniform() * 2 - 1);
      const a = Float64Array.from(gamma);
      const b = Float64Array.from(gamma);
      const nu = hypentropyThreshold(a, n, beta, tau, new Float64Array(n));
      softThreshold(a, n, nu);
      expect(hypentropyProject(b, n, beta, tau, new Float64Array(n))).toBe(nu);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
  });

  test("beta / tau from 1e12 to 1e308: |lambda|_1 = tau to 1e-12 and the kept values as in closed form", () => {
    // Three values of which two stay active: lambda = beta sinh(delta + d_i) must sum to tau (a subtraction
    // |gamma| - nu kept no digit of them at beta = 1e17: every value became 0).
    for (const beta of [2e12, 2e17, 2e40, 2e300, 1.7e308]) {
      const tau = 2;
      const g = Float64Array.of(1.5, -1.5 + 1e-300, 0.25);
      const nu = hypentropyProject(g, 3, beta, tau, new Float64Array(3));
      const lambda = Array.from(g, (v) => beta * Math.sinh(v));
      expect(Math.abs(lambda[0] as number) + Math.abs(lambda[1] as number) + Math.abs(lambda[2] as number)).toBeCloseTo(
        tau,
        12,
      );
      expect(lambda[0]).toBeCloseTo(1, 12); // the two tied values share tau
      expect(lambda[1]).toBeCloseTo(-1, 12);
      expect(lambda[2]).toBe(0);
      expect(nu).toBeLessThanOrEqual(1.5);
      expect(nu).toBeGreaterThan(1.5 - 1e-12);
    }
  });

  test("an Hpg router with beta = 1e17 x radius learns as at beta = 1e10 (it stayed uniform before)", () => {
    const run = (beta: number) => {
      const router = new Hpg({
        arms: ["general", "code"],
        contextDim: 4,
        latentRank: 1,
        horizon: 2000,
        normalizeContext: true,
        seed: 1,
        beta,
      });
      const rng = seeded(1);
      let won = 0;
      const picks: string[] = [];
      for (let t = 0; t < 2000; t++) {
        const query = Float64Array.from({ length: 4 }, () => rng.normal());
        const decision = router.select(query);
        picks.push(decision.arm);
        const best = Math.abs(query[0] as number) > 0.6 * Math.hypot(...query) ? "code" : "general";
        const reward = decision.arm === best ? 1 : 0;
        won += reward;
        router.update(decision, { reward });
      }
      return { won, picks: picks.join(), p: Array.from(router.probabilities(Float64Array.of(1, 0, 0, 0))) };
    };
    const ref = run(2e10);
    for (const beta of [2e17, 2e300]) {
      const r = run(beta);
      expect(r.picks).toBe(ref.picks); // the same decisions, round by round
      expect(r.won).toBe(ref.won);
      expect(r.p[1]).toBeCloseTo(ref.p[1] as number, 6);
    }
    expect(ref.p[1]).toBeGreaterThan(0.8); // it learned: "code" on its own direction
  });
});
