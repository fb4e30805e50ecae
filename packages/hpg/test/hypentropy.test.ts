import { describe, expect, test } from "vitest";
import {
  hypentropy,
  hypentropyBregman,
  hypentropyConjugate,
  inverseMirrorMap,
  matrixHypentropy,
  matrixInverseMirrorMap,
  matrixMirrorMap,
  mirrorMap,
} from "../src/index.js";
import { maxAbsDiff, randomSymmetric, seeded } from "./helpers.js";

describe("scalar hypentropy", () => {
  const betas = [1e-3, 0.125, 1, 7];
  test("asinh(x/beta) and beta sinh(y) are mutual inverses (grid incl. 0 and +-1e3 beta)", () => {
    for (const beta of betas) {
      for (const x of [0, 1e-12, -3e-7, 0.3, -1, 2.5, 1e3 * beta, -1e3 * beta]) {
        const back = inverseMirrorMap(mirrorMap(x, beta), beta);
        expect(Math.abs(back - x)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(x)));
      }
      for (const y of [0, 0.5, -3, 20]) expect(mirrorMap(inverseMirrorMap(y, beta), beta)).toBeCloseTo(y, 12);
    }
  });
  test("phi' matches a central finite difference of phi", () => {
    for (const beta of betas)
      for (const x of [-2, -0.01, 0, 0.3, 4]) {
        const h = 1e-6 * Math.max(beta, Math.abs(x));
        const fd = (hypentropy(x + h, beta) - hypentropy(x - h, beta)) / (2 * h);
        expect(Math.abs(fd - mirrorMap(x, beta))).toBeLessThan(1e-5 * Math.max(1, Math.abs(fd)));
      }
  });
  test("Bregman divergence >= 0 with equality only at x = y; phi(x) + phi*(phi'(x)) = x phi'(x)", () => {
    const rng = seeded(1);
    for (let i = 0; i < 2000; i++) {
      const beta = betas[i % betas.length] as number;
      const x = 3 * rng.normal();
      const y = 3 * rng.normal();
      expect(hypentropyBregman(x, y, beta)).toBeGreaterThan(0);
      expect(Math.abs(hypentropyBregman(x, x, beta))).toBeLessThan(1e-12 * Math.max(1, Math.abs(x) * 10));
      const g = mirrorMap(x, beta);
      expect(hypentropy(x, beta) + hypentropyConjugate(g, beta)).toBeCloseTo(x * g, 9);
    }
    expect(hypentropy(0, 0.5)).toBe(-0.5);
  });
});

describe("matrix hypentropy", () => {
  test("<grad Phi(X), H> matches the directional derivative of Phi; the inverse map undoes the map", () => {
    const rng = seeded(2);
    for (const d of [2, 3, 6]) {
      const beta = 0.3;
      const X = randomSymmetric(rng, d);
      const H = randomSymmetric(rng, d);
      const G = matrixMirrorMap(X, d, beta);
      let inner = 0;
      for (let i = 0; i < d * d; i++) inner += (G[i] as number) * (H[i] as number);
      const h = 1e-6;
      const plus = X.map((v, i) => v + h * (H[i] as number));
      const minus = X.map((v, i) => v - h * (H[i] as number));
      const fd = (matrixHypentropy(plus, d, beta) - matrixHypentropy(minus, d, beta)) / (2 * h);
      expect(Math.abs(fd - inner)).toBeLessThan(1e-6 * Math.max(1, Math.abs(inner)));
      expect(maxAbsDiff(matrixInverseMirrorMap(G, d, beta), X)).toBeLessThan(1e-11);
    }
  });
});
