import { describe, expect, it } from "vitest";
import { betaD, bias1, bias2, paperFeatureCount, paperThresholds, zetaRbfSphere } from "../src/index.js";

describe("Sup-RFF constants", () => {
  it("B1 = 2n/t^2 and B2 = 4/sqrt(alpha t) at the thresholds", () => {
    for (const [t, n, a] of [
      [100, 30, 1],
      [2000, 700, 0.5],
    ] as const) {
      const { eps, Delta } = paperThresholds(t, n, a);
      expect(bias1(n, eps, Delta, a)).toBeCloseTo((2 * n) / t ** 2, 14);
      expect(bias2(t, n, eps, Delta, a)).toBeCloseTo(4 / Math.sqrt(a * t), 12);
    }
  });

  it("zeta(RBF, sigma = 5) = 0.01093 + eps/3; beta_512 about 64.77; D(t = 100) about 6.8e10", () => {
    expect(zetaRbfSphere(5, 0)).toBeCloseTo(0.01093, 5);
    expect(zetaRbfSphere(5, 3e-4) - zetaRbfSphere(5, 0)).toBeCloseTo(1e-4, 12);
    expect(betaD(512)).toBeCloseTo(64.77, 2);
    const { eps, Delta } = paperThresholds(100, 0, 1);
    const D = paperFeatureCount({ d: 512, sigma: 5, eps, Delta, delta: 0.05, n: 0, alpha: 1 });
    // Measured 6.763e10 with diam = 2 (an independent NumPy computation: about 6.8e10, zeta about 0.01096).
    expect(D / 6.8e10).toBeGreaterThan(0.97);
    expect(D / 6.8e10).toBeLessThan(1.03);
    expect(zetaRbfSphere(5, 1e-4)).toBeCloseTo(0.01096, 5);
  });
});
