import { describe, expect, test } from "vitest";
import { dot, linearKernel, polynomialKernel, RandomFourierFeatures, rbfKernel, sqDist } from "../src/index.js";
import { TestRng } from "./helpers.js";

function unit(rng: TestRng, d: number): Float64Array {
  const v = rng.vector(d);
  const n = Math.sqrt(dot(v, v));
  for (let i = 0; i < d; i++) v[i] = (v[i] as number) / n;
  return v;
}

describe("kernels", () => {
  const x = Float64Array.of(1, 2, 3, 4);
  const y = Float64Array.of(0, 2, -1, 0.5);
  test("known values", () => {
    expect(sqDist(x, y, 4)).toBe(1 + 0 + 16 + 12.25);
    expect(rbfKernel(2).eval(x, y, 4)).toBe(Math.exp(-29.25 / 8));
    expect(rbfKernel(2).diag(x, 4)).toBe(1);
    expect(rbfKernel(0.7).eval(x, x, 4)).toBe(1);
    expect(linearKernel().eval(x, y, 4)).toBe(0 + 4 - 3 + 2);
    expect(linearKernel().diag(x, 4)).toBe(30);
    expect(polynomialKernel(0.5, 1, 3).eval(x, y, 4)).toBe((0.5 * 3 + 1) ** 3);
    expect(polynomialKernel(2, 0, 2).diag(x, 4)).toBe(3600);
  });
  test("offsets read rows of a history matrix; the paper's poly3 on unit vectors gives (1 + gamma)^3", () => {
    const H = Float64Array.of(9, 9, 1, 2, 3, 4, 0, 2, -1, 0.5);
    expect(rbfKernel(1).eval(H, y, 4, 2, 0)).toBe(rbfKernel(1).eval(x, y, 4));
    const rng = new TestRng(1);
    const u = unit(rng, 16);
    expect(polynomialKernel(5).diag(u, 16)).toBeCloseTo(216, 10);
  });
  test("symmetry and positive semi-definite Gram matrices", () => {
    const rng = new TestRng(2);
    const d = 5;
    const n = 12;
    const pts = Array.from({ length: n }, () => unit(rng, d));
    for (const k of [rbfKernel(1), rbfKernel(5), polynomialKernel(5), linearKernel()]) {
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) expect(k.eval(pts[i]!, pts[j]!, d)).toBe(k.eval(pts[j]!, pts[i]!, d));
      // PSD: z^T K z >= -1e-10 ||z||^2 for random z
      for (let t = 0; t < 20; t++) {
        const z = rng.vector(n);
        let q = 0;
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) q += (z[i] as number) * k.eval(pts[i]!, pts[j]!, d) * (z[j] as number);
        expect(q).toBeGreaterThan(-1e-10 * dot(z, z));
      }
    }
  });
});

describe("random Fourier features", () => {
  test("shapes, determinism, paired form has phi.phi = 1", () => {
    const rng = new TestRng(3);
    const f = new RandomFourierFeatures(6, 50, 1.5, () => rng.normal());
    expect(f.W.length).toBe(300);
    expect(f.numFeatures).toBe(100);
    const again = new TestRng(3);
    const g = new RandomFourierFeatures(6, 50, 1.5, () => again.normal());
    expect(Array.from(g.W)).toEqual(Array.from(f.W));
    const phi = new Float64Array(100);
    for (let t = 0; t < 20; t++) {
      f.map(unit(rng, 6), phi);
      expect(Math.abs(dot(phi, phi) - 1)).toBeLessThan(1e-14);
    }
  });

  test("the frequencies have the N(0, sigma^-2) law", () => {
    const rng = new TestRng(4);
    const sigma = 0.5;
    const f = new RandomFourierFeatures(10, 2000, sigma, () => rng.normal());
    let m = 0;
    let v = 0;
    for (const w of f.W) m += w;
    m /= f.W.length;
    for (const w of f.W) v += (w - m) ** 2;
    v /= f.W.length - 1;
    // 20000 draws: sd of the mean 0.01, of the variance ~ 4 * sqrt(2/20000) = 0.04
    expect(Math.abs(m)).toBeLessThan(0.05);
    expect(Math.abs(v - 1 / sigma ** 2)).toBeLessThan(0.2);
  });

  test("phase form: deterministic phases in (0, 2 pi] from the normal source, ||phi||^2 ~ 1", () => {
    const r1 = new TestRng(5);
    const r2 = new TestRng(5);
    const a = new RandomFourierFeatures(4, 500, 1, () => r1.normal(), "phase");
    const b = new RandomFourierFeatures(4, 500, 1, () => r2.normal(), "phase");
    expect(Array.from(a.phase)).toEqual(Array.from(b.phase));
    expect(a.numFeatures).toBe(500);
    let mean = 0;
    for (const p of a.phase) {
      expect(p).toBeGreaterThan(0);
      expect(p).toBeLessThanOrEqual(2 * Math.PI);
      mean += p / 500;
    }
    expect(Math.abs(mean - Math.PI)).toBeLessThan(0.3); // sd of the mean 0.08
    const u = new TestRng(6);
    const c = new RandomFourierFeatures(
      4,
      500,
      1,
      () => u.normal(),
      "phase",
      () => 0.25,
    );
    expect(c.phase.every((p) => p === Math.PI / 2)).toBe(true);
  });

  test("the kernel approximation error shrinks like D^-1/2 (both forms, several seeds)", () => {
    const d = 8;
    const sigma = 1;
    const k = rbfKernel(sigma);
    const rng = new TestRng(7);
    const pts = Array.from({ length: 10 }, () => unit(rng, d));
    const err = (D: number, form: "paired" | "phase", seed: number) => {
      const r = new TestRng(seed);
      const f = new RandomFourierFeatures(d, D, sigma, () => r.normal(), form);
      const F = form === "paired" ? 2 * D : D;
      const phis = pts.map((p) => f.map(p, new Float64Array(F)));
      let e = 0;
      let cnt = 0;
      for (let i = 0; i < pts.length; i++)
        for (let j = i + 1; j < pts.length; j++) {
          e += (dot(phis[i]!, phis[j]!) - k.eval(pts[i]!, pts[j]!, d)) ** 2;
          cnt++;
        }
      return Math.sqrt(e / cnt);
    };
    for (const form of ["paired", "phase"] as const) {
      const mean = (D: number) => [11, 12, 13, 14].reduce((s, seed) => s + err(D, form, seed), 0) / 4;
      const e16 = mean(16);
      const e256 = mean(256);
      const e4096 = mean(4096);
      // D^-1/2 predicts a factor 4 per step; allow 2.5.
      expect(e256).toBeLessThan(e16 / 2.5);
      expect(e4096).toBeLessThan(e256 / 2.5);
      expect(e4096).toBeLessThan(0.02);
    }
  });
});

describe("RandomFourierFeatures.copy", () => {
  test("has the same map in buffers of its own, for both forms", () => {
    let k = 0;
    const normal = () => Math.sin(++k * 1.7);
    for (const form of ["paired", "phase"] as const) {
      const a = new RandomFourierFeatures(3, 5, 0.7, normal, form);
      const b = a.copy();
      const y = Float64Array.of(0.2, -0.5, 0.1);
      expect(Array.from(b.map(y, new Float64Array(a.numFeatures)))).toEqual(
        Array.from(a.map(y, new Float64Array(a.numFeatures))),
      );
      b.W.fill(0);
      b.phase.fill(0);
      expect(a.W.some((w) => w !== 0)).toBe(true);
    }
  });
});
