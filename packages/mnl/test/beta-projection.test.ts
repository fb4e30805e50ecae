import { isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { ofuMnlBeta, ofuMnlHyperparameters } from "../src/index.js";
import { ProjectionWorkspace, projectUnitBall } from "../src/projection.js";

describe("beta_t(delta) golden values (the exact radius from the proof of Lemma 1, App. F.1)", () => {
  const table: [number, number, number, number, number, number][] = [
    // K, eta, lambda, beta(s=1), beta(s=3000), bonus beta/sqrt(lambda)
    [1, 2.3466, 1393.8, 229.8, 561.2, 6.16],
    [5, 2.8959, 1720.1, 327.1, 710.5, 7.89],
    [10, 3.1989, 1900.1, 389.3, 796.9, 8.93],
    [15, 3.3863, 2011.4, 430.2, 851.7, 9.59],
  ];
  for (const [K, eta, lambda, b1, b3000, bonus] of table) {
    it(`d = 5, K = ${K}`, () => {
      const h = ofuMnlHyperparameters(5, K);
      expect(h.eta).toBeCloseTo(eta, 3);
      expect(Math.abs(h.lambda - lambda)).toBeLessThan(0.06);
      const p = { d: 5, K, eta: h.eta, lambda: h.lambda, delta: 1 };
      expect(Math.abs(ofuMnlBeta(1, p) - b1)).toBeLessThan(0.06);
      expect(Math.abs(ofuMnlBeta(3000, p) - b3000)).toBeLessThan(0.06);
      expect(ofuMnlBeta(1, p) / Math.sqrt(h.lambda)).toBeCloseTo(bonus, 2);
      expect(ofuMnlBeta(0, p)).toBe(2 * Math.sqrt(h.lambda));
    });
  }
  it("delta = 0.05 raises beta(s=1) to 364.9 (K = 5) and 475.9 (K = 15)", () => {
    for (const [K, v] of [
      [5, 364.9],
      [15, 475.9],
    ] as const) {
      const h = ofuMnlHyperparameters(5, K);
      expect(Math.abs(ofuMnlBeta(1, { d: 5, K, ...h, delta: 0.05 }) - v)).toBeLessThan(0.06);
    }
  });
  it("is increasing in s and decreasing in delta; rejects bad delta", () => {
    const h = ofuMnlHyperparameters(5, 5);
    let prev = 0;
    for (const s of [0, 1, 2, 5, 10, 100, 1000, 1e5]) {
      const b = ofuMnlBeta(s, { d: 5, K: 5, ...h, delta: 0.1 });
      expect(b).toBeGreaterThan(prev);
      prev = b;
    }
    expect(ofuMnlBeta(10, { d: 5, K: 5, ...h, delta: 0.01 })).toBeGreaterThan(
      ofuMnlBeta(10, { d: 5, K: 5, ...h, delta: 0.5 }),
    );
    expect(() => ofuMnlBeta(1, { d: 5, K: 5, ...h, delta: 0 })).toThrow();
    try {
      ofuMnlBeta(1, { d: 5, K: 5, ...h, delta: 2 });
    } catch (e) {
      expect(isRouteKitError(e, "OUT_OF_RANGE")).toBe(true);
    }
  });
});

function randomSpd(rng: Rng, d: number, cond = 50): Float64Array {
  const B = new Float64Array(d * d);
  for (let i = 0; i < d * d; i++) B[i] = rng.normal();
  const A = new Float64Array(d * d);
  for (let i = 0; i < d; i++)
    for (let j = 0; j < d; j++) {
      let s = i === j ? 1 / cond : 0;
      for (let k = 0; k < d; k++) s += B[i * d + k]! * B[j * d + k]!;
      A[i * d + j] = s;
    }
  return A;
}

const norm = (v: ArrayLike<number>) => Math.hypot(...Array.from(v));
function qform(A: Float64Array, d: number, u: ArrayLike<number>, w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) s += (u[i]! - w[i]!) * A[i * d + j]! * (u[j]! - w[j]!);
  return s;
}

describe("projection onto the unit ball in the A-norm (exact solver)", () => {
  it("is the identity inside the ball and w'/||w'|| for A = I", () => {
    const A = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
    const inside = Float64Array.of(0.3, -0.4, 0.5);
    const out = new Float64Array(3);
    expect(projectUnitBall(inside, A, 3, out)).toBe(0);
    expect(Array.from(out)).toEqual(Array.from(inside));
    const w = Float64Array.of(3, -4, 12);
    projectUnitBall(w, A, 3, out);
    for (let k = 0; k < 3; k++) expect(out[k]).toBeCloseTo(w[k]! / 13, 12);
  });

  it("satisfies KKT (A(u - w') + mu u = 0, mu >= 0, ||u|| <= 1 + 1e-12) and is scale invariant", () => {
    const rng = Rng.fromSeed(11);
    const ws = new ProjectionWorkspace(5);
    for (let trial = 0; trial < 300; trial++) {
      const d = 5;
      const A = randomSpd(rng, d, 1 + 1000 * rng.uniform());
      const w = Float64Array.from({ length: d }, () => rng.normal(0, 3));
      const u = new Float64Array(d);
      const mu = projectUnitBall(w, A, d, u, ws);
      expect(norm(u)).toBeLessThanOrEqual(1 + 1e-12);
      if (norm(w) <= 1) continue;
      expect(mu).toBeGreaterThanOrEqual(0);
      let scale = 0;
      for (let i = 0; i < d * d; i++) scale = Math.max(scale, Math.abs(A[i]!));
      for (let i = 0; i < d; i++) {
        let r = mu * u[i]!;
        for (let j = 0; j < d; j++) r += A[i * d + j]! * (u[j]! - w[j]!);
        expect(Math.abs(r)).toBeLessThan(1e-8 * scale * (1 + norm(w)));
      }
      const u2 = new Float64Array(d);
      projectUnitBall(
        w,
        A.map((v) => 37 * v),
        d,
        u2,
        ws,
      );
      for (let i = 0; i < d; i++) expect(u2[i]).toBeCloseTo(u[i]!, 8);
    }
  });

  it("matches a brute-force search over the circle (d = 2)", () => {
    const rng = Rng.fromSeed(5);
    for (let trial = 0; trial < 50; trial++) {
      const A = randomSpd(rng, 2, 100);
      const w = Float64Array.of(rng.normal(0, 3), rng.normal(0, 3));
      if (norm(w) <= 1.01) continue;
      const u = new Float64Array(2);
      projectUnitBall(w, A, 2, u);
      // the minimiser lies on the sphere when ||w|| > 1 (the objective is convex with its minimum outside)
      let best = Infinity;
      for (let k = 0; k < 200_000; k++) {
        const th = (2 * Math.PI * k) / 200_000;
        best = Math.min(best, qform(A, 2, [Math.cos(th), Math.sin(th)], w));
      }
      const got = qform(A, 2, u, w);
      expect(got).toBeLessThanOrEqual(best + 1e-6 * (1 + best));
      expect(got).toBeGreaterThanOrEqual(best - 1e-6 * (1 + best));
    }
  });
});
