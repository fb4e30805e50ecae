/**
 * README, "Kernel scale and ridge (exact regressions)": the drift of an exact regression's kept inverse from a
 * direct Cholesky inverse, on a 3-dimensional sin/cos prompt stream (one arm, 200 points: a nearly singular kernel
 * matrix) at k(y, y) / ridge = 1e3, 1e4 (RBF at ridge 1e-4, poly gamma = 9 degree 4 at ridge 1, linear at ridge
 * 1e-4) and 1e6 (below the accepted ridge: an ExactKrr built directly), and its growth with the points of an arm
 * on one prompt repeated with 1e-9 perturbations (RBF). Seeded by construction (no randomness); prints each drift.
 */
import { describe, expect, it } from "vitest";
import { DotKernel, ExactKrr, PakUcb, type PakUcbOptions } from "../src/index.js";

const sinCos = (t: number) => Float64Array.of(Math.sin(t), Math.cos(t), Math.sin(2 * t));

function sinCosDrift(options: Partial<PakUcbOptions>, n = 200): number {
  const p = new PakUcb({ arms: ["a"], contextDim: 3, ...options });
  for (let t = 0; t < n; t++) p.update(p.select(sinCos(t)), { reward: 0.5 + 0.5 * Math.sin(t) });
  return p.regression("a").drift().inverse;
}

function repeatedPromptDrift(ridge: number, n: number): { inverse: number; weights: number } {
  const p = new PakUcb({ arms: ["a"], contextDim: 3, ridge });
  for (let t = 0; t < n; t++) {
    const x = Float64Array.of(0.6 + 1e-9 * Math.sin(t), 0.8 + 1e-9 * Math.cos(t), 1e-9 * Math.sin(3 * t));
    p.update(p.select(x), { reward: 0.5 });
  }
  return p.regression("a").drift();
}

describe("README: drift of the kept inverse against k(y, y) / ridge", () => {
  it("sin/cos stream, 200 points: about 3e-9 at 1e3, at most 1.5e-6 at 1e4 (three kernels), above 1e-3 at 1e6", () => {
    const at1e3 = sinCosDrift({ ridge: 1e-3 });
    const at1e4 = [
      sinCosDrift({ ridge: 1e-4 }),
      sinCosDrift({ kernel: { type: "poly", gamma: 9, degree: 4 } }),
      sinCosDrift({ ridge: 1e-4, kernel: { type: "linear" } }),
    ];
    // Ratio 1e6 is refused by the policies (ridge >= 1e-4): the same stream on an ExactKrr at ridge 1e-6.
    const r = new ExactKrr(3, new DotKernel({ type: "rbf", sigma: 1 }), 1e-6);
    for (let t = 0; t < 200; t++) {
      const y = sinCos(t);
      const norm = Math.hypot(...y);
      for (let j = 0; j < 3; j++) y[j] = (y[j] as number) / norm;
      r.append(y, 1, Math.sin(t), r.row(y, 1), 1);
    }
    const at1e6 = r.drift().inverse;
    console.log(
      `drift at 1e3 ${at1e3.toExponential(2)}; at 1e4 ${at1e4.map((d) => d.toExponential(2))}; at 1e6 ${at1e6.toExponential(2)}`,
    );
    // Measured: 3.2e-9; 3.3e-7, 2.2e-7, 2.9e-7; 3.3e-3.
    expect(at1e3).toBeLessThan(1e-8);
    for (const d of at1e4) expect(d).toBeLessThanOrEqual(1.5e-6);
    expect(at1e6).toBeGreaterThan(1e-3);
  });

  it("one prompt repeated with 1e-9 perturbations: the drift grows with the points, finite throughout", () => {
    const small = [200, 400, 800].map((n) => repeatedPromptDrift(1e-4, n));
    const larger = [200, 400, 800].map((n) => repeatedPromptDrift(1e-3, n));
    const show = (ds: { inverse: number }[]) => ds.map((d) => d.inverse.toExponential(2)).join(", ");
    console.log(`repeated prompt, 200 / 400 / 800 points: ridge 1e-4 ${show(small)}; ridge 1e-3 ${show(larger)}`);
    console.log(`weights drift at ridge 1e-4: ${small.map((d) => d.weights.toExponential(2)).join(", ")}`);
    // Measured: ridge 1e-4 8.3e-7, 3.5e-6, 4.9e-6 (weights 1.1e-4, 4.1e-4, 1.9e-3); ridge 1e-3 1.2e-8, 2.0e-8, 5.2e-8.
    for (const ds of [small, larger]) {
      for (const d of ds) expect(Number.isFinite(d.inverse) && Number.isFinite(d.weights)).toBe(true);
      expect((ds[2] as { inverse: number }).inverse).toBeGreaterThan((ds[0] as { inverse: number }).inverse);
    }
    expect((small[2] as { inverse: number }).inverse).toBeGreaterThan(2e-6); // past the 450-round figure of "Guarantees"
    expect((small[2] as { inverse: number }).inverse).toBeLessThan(5e-5);
    expect((larger[2] as { inverse: number }).inverse).toBeLessThan(5e-7);
  });
});
