import { describe, expect, test } from "vitest";
import { jacobiEigen, LowRankSymmetricEigen, symmetricEigen } from "../src/index.js";
import { TestRng } from "./helpers.js";

function sortedSpectrum(A: Float64Array, n: number): number[] {
  return Array.from(symmetricEigen(A, n).values).sort((a, b) => a - b);
}

describe("jacobiEigen", () => {
  test("reconstructs random symmetric matrices, orthogonal V, eigenvalues match ml-matrix", () => {
    const rng = new TestRng(3);
    for (const n of [1, 2, 5, 17, 33]) {
      const A = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = i; j < n; j++) {
          const v = rng.normal();
          A[i * n + j] = v;
          A[j * n + i] = v;
        }
      const ref = sortedSpectrum(A, n);
      const work = A.slice();
      const V = new Float64Array(n * n);
      const vals = new Float64Array(n);
      jacobiEigen(work, n, V, vals);
      const got = Array.from(vals).sort((a, b) => a - b);
      for (let i = 0; i < n; i++) expect(Math.abs((got[i] as number) - (ref[i] as number))).toBeLessThan(1e-12 * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          let s = 0;
          let r = 0;
          for (let k = 0; k < n; k++) {
            s += (V[k * n + i] as number) * (V[k * n + j] as number);
            r += (V[i * n + k] as number) * (vals[k] as number) * (V[j * n + k] as number);
          }
          expect(Math.abs(s - (i === j ? 1 : 0))).toBeLessThan(1e-13 * n);
          expect(Math.abs(r - (A[i * n + j] as number))).toBeLessThan(1e-12 * n);
        }
    }
  });
});

describe("LowRankSymmetricEigen", () => {
  function denseStep(Y: Float64Array, d: number, x: Float64Array, rho: number): void {
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++) Y[a * d + b] = (Y[a * d + b] as number) + rho * (x[a] as number) * (x[b] as number);
  }

  test("matches the dense sum over 400 random updates of both signs through full rank, orthonormal rows", () => {
    const rng = new TestRng(11);
    const d = 7;
    const lr = new LowRankSymmetricEigen(d, d, 2);
    const Y = new Float64Array(d * d);
    const dense = new Float64Array(d * d);
    const x = new Float64Array(d);
    for (let t = 0; t < 400; t++) {
      rng.fill(x);
      const rho = rng.normal();
      lr.rankOneUpdate(x, rho);
      denseStep(Y, d, x, rho);
      if (t % 50 === 0 || t === 399) {
        lr.toDense(dense);
        let err = 0;
        for (let i = 0; i < d * d; i++) err = Math.max(err, Math.abs((dense[i] as number) - (Y[i] as number)));
        expect(err).toBeLessThan(1e-10);
        expect(lr.orthogonalityError()).toBeLessThan(1e-10);
      }
    }
    expect(lr.rank).toBe(d);
  });

  test("x already in the span keeps the rank; rho = 0 is a no-op; rho < 0 works", () => {
    const d = 5;
    const lr = new LowRankSymmetricEigen(d);
    const e0 = new Float64Array([1, 0, 0, 0, 0]);
    lr.rankOneUpdate(e0, 2);
    expect(lr.rank).toBe(1);
    lr.rankOneUpdate(new Float64Array([3, 0, 0, 0, 0]), -0.5);
    expect(lr.rank).toBe(1);
    expect(lr.values[0]).toBeCloseTo(2 - 4.5, 14);
    const before = lr.vectors();
    expect(lr.rankOneUpdate(new Float64Array([1, 1, 1, 1, 1]), 0)).toBe(false);
    expect(lr.rank).toBe(1);
    expect(Array.from(lr.vectors())).toEqual(Array.from(before));
    expect(lr.rankOneUpdate(new Float64Array([1, 1, 1, 1, 1]), 1e-300)).toBe(false); // |rho| |x|^2 < MIN_UPDATE
    expect(Array.from(lr.vectors())).toEqual(Array.from(before));
    expect(lr.rankOneUpdate(new Float64Array([1, 1, 1, 1, 1]), 0.5)).toBe(true);
    expect(lr.rank).toBe(2);
  });

  test("orthonormality holds after 10^4 random updates at full rank (d = 6)", () => {
    const rng = new TestRng(5);
    const d = 6;
    const lr = new LowRankSymmetricEigen(d);
    const x = new Float64Array(d);
    for (let t = 0; t < 10_000; t++) {
      rng.fill(x);
      lr.rankOneUpdate(x, 0.1 * rng.normal());
    }
    expect(lr.rank).toBe(d);
    expect(lr.orthogonalityError()).toBeLessThan(1e-10);
  });

  test("a capped basis (maxBasis < dim) compresses: every update still adds exactly rho x x^T", () => {
    const rng = new TestRng(13);
    const d = 40;
    const lr = new LowRankSymmetricEigen(d, 7, 2);
    const before = new Float64Array(d * d);
    const after = new Float64Array(d * d);
    const x = new Float64Array(d);
    let compressions = 0;
    for (let t = 0; t < 300; t++) {
      // Keep the rank at most 3 (drop the smallest pair, as a rank cap does), so fresh directions keep
      // arriving while the basis fills up and has to be compressed.
      while (lr.rank > 3) {
        let j = 0;
        for (let i = 1; i < lr.rank; i++)
          if (Math.abs(lr.values[i] as number) < Math.abs(lr.values[j] as number)) j = i;
        lr.remove(j);
      }
      lr.toDense(before);
      rng.fill(x);
      const rho = rng.normal();
      const size = lr.basisSize;
      lr.rankOneUpdate(x, rho);
      if (lr.basisSize <= size) compressions++;
      expect(lr.basisSize).toBeLessThanOrEqual(7);
      denseStep(before, d, x, rho);
      lr.toDense(after);
      let err = 0;
      for (let i = 0; i < d * d; i++) err = Math.max(err, Math.abs((after[i] as number) - (before[i] as number)));
      expect(err).toBeLessThan(1e-10 * (1 + Math.abs(rho)));
    }
    expect(compressions).toBeGreaterThan(50);
    expect(lr.orthogonalityError()).toBeLessThan(1e-10);
  });

  test("at rank maxBasis < dim, the part of an update outside the eigenvectors' span is dropped (README)", () => {
    // maxBasis 2, dim 3: diag(1, 2) fills it; adding 3 e3 e3^T cannot grow the rank, and e3's component is lost.
    const lr = new LowRankSymmetricEigen(3, 2);
    lr.rankOneUpdate(Float64Array.of(1, 0, 0), 1);
    lr.rankOneUpdate(Float64Array.of(0, 1, 0), 2);
    lr.rankOneUpdate(Float64Array.of(0, 0, 1), 3);
    expect(lr.rank).toBe(2);
    const dense = new Float64Array(9);
    lr.toDense(dense);
    expect(Array.from(dense).map((v) => Math.round(v * 1e12) / 1e12)).toEqual([1, 0, 0, 0, 2, 0, 0, 0, 0]);
    // One more row of basis (maxBasis = dim) keeps it exactly.
    const full = new LowRankSymmetricEigen(3, 3);
    for (const [x, rho] of [
      [[1, 0, 0], 1],
      [[0, 1, 0], 2],
      [[0, 0, 1], 3],
    ] as const)
      full.rankOneUpdate(x, rho);
    full.toDense(dense);
    expect(Array.from(dense).map((v) => Math.round(v * 1e12) / 1e12)).toEqual([1, 0, 0, 0, 2, 0, 0, 0, 3]);
  });

  test("reorthonormalize keeps X and restores orthonormal rows after a perturbation", () => {
    const rng = new TestRng(9);
    const d = 9;
    const lr = new LowRankSymmetricEigen(d);
    const x = new Float64Array(d);
    for (let t = 0; t < 4; t++) lr.rankOneUpdate(rng.fill(x), rng.normal());
    const before = lr.toDense(new Float64Array(d * d));
    for (let i = 0; i < lr.basisSize * d; i++) lr.basis[i] = (lr.basis[i] as number) * (1 + 1e-7 * rng.normal());
    lr.reorthonormalize();
    expect(lr.orthogonalityError()).toBeLessThan(1e-14 * 100);
    const after = lr.toDense(new Float64Array(d * d));
    for (let i = 0; i < d * d; i++) expect(Math.abs((after[i] as number) - (before[i] as number))).toBeLessThan(1e-5);
  });
});

describe("diagonalPlusRankOneEigen", () => {
  test("matches Jacobi on random, degenerate and deflating problems of both signs", async () => {
    const { diagonalPlusRankOneEigen, secularWorkspace } = await import("../src/index.js");
    const rng = new TestRng(21);
    const ws = secularWorkspace(40);
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + rng.int(30);
      const delta = new Float64Array(n);
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        delta[i] = trial % 3 === 0 ? rng.int(4) : rng.normal(); // duplicates every third trial
        v[i] = trial % 4 === 0 && i % 3 === 0 ? 0 : rng.normal(); // zero components every fourth
      }
      if (trial % 5 === 0) delta.fill(0); // all equal
      const rho = (rng.uniform() < 0.5 ? -1 : 1) * Math.exp(2 * rng.normal());
      const K = new Float64Array(n * n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) K[i * n + j] = rho * (v[i] as number) * (v[j] as number);
        K[i * n + i] = (K[i * n + i] as number) + (delta[i] as number);
      }
      const Q = new Float64Array(n * n);
      const vals = new Float64Array(n);
      diagonalPlusRankOneEigen(delta, v, rho, n, Q, vals, ws);
      const scale = Math.max(1, ...Array.from(vals, Math.abs));
      let orth = 0;
      let recon = 0;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          let s = 0;
          let rec = 0;
          for (let k = 0; k < n; k++) {
            s += (Q[k * n + i] as number) * (Q[k * n + j] as number);
            rec += (Q[i * n + k] as number) * (vals[k] as number) * (Q[j * n + k] as number);
          }
          orth = Math.max(orth, Math.abs(s - (i === j ? 1 : 0)));
          recon = Math.max(recon, Math.abs(rec - (K[i * n + j] as number)) / (scale * n));
        }
      expect(orth).toBeLessThan(1e-12);
      expect(recon).toBeLessThan(1e-12);
    }
  });

  test("roots take a few steps each (no fall-back to bisection at convergence)", async () => {
    const { diagonalPlusRankOneEigen, secularWorkspace } = await import("../src/index.js");
    const rng = new TestRng(5);
    const ws = secularWorkspace(20);
    const n = 17;
    const Q = new Float64Array(n * n);
    const vals = new Float64Array(n);
    let steps = 0;
    for (let trial = 0; trial < 200; trial++) {
      const delta = new Float64Array(n);
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        delta[i] = i < n - 1 ? 0.5 * rng.normal() : 0;
        v[i] = rng.normal();
      }
      diagonalPlusRankOneEigen(delta, v, 0.1 * rng.normal(), n, Q, vals, ws);
      steps += ws.iterations;
    }
    // Bisection to full precision would take about 50 steps a root; the rational steps converge in ~5.
    expect(steps / (200 * n)).toBeLessThan(7);
  });

  test("under 5 evaluations per root, counting the one that picks the origin (dlaed4's initial guess)", async () => {
    const { diagonalPlusRankOneEigen, secularWorkspace } = await import("../src/index.js");
    // HPG's problems: a full-rank spectrum (d = 16) plus rho q q^T, roots mostly close to their poles.
    const rng = new TestRng(8);
    const n = 16;
    const ws = secularWorkspace(n);
    const Q = new Float64Array(n * n);
    const vals = new Float64Array(n);
    const delta = new Float64Array(n);
    const v = new Float64Array(n);
    let evaluations = 0;
    for (let trial = 0; trial < 300; trial++) {
      for (let i = 0; i < n; i++) {
        delta[i] = 0.3 * rng.normal();
        v[i] = (i < 4 ? 1 : 0.05) * rng.normal();
      }
      diagonalPlusRankOneEigen(delta, v, 0.05 * rng.normal(), n, Q, vals, ws);
      evaluations += ws.iterations;
    }
    // Measured 4.5; 5.8 when the first step was taken from the midpoint (and the midpoint evaluated twice).
    expect(evaluations / (300 * n)).toBeLessThan(5);
  });

  test('layout "rows" writes the transpose of layout "columns", bit for bit (with deflation and rotations)', async () => {
    const { diagonalPlusRankOneEigen, secularWorkspace } = await import("../src/index.js");
    const rng = new TestRng(31);
    const ws = secularWorkspace(24);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + rng.int(24);
      const delta = new Float64Array(n);
      const v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        delta[i] = trial % 3 === 0 ? rng.int(4) : rng.normal();
        v[i] = trial % 4 === 0 && i % 3 === 0 ? 0 : rng.normal();
      }
      const rho = (rng.uniform() < 0.5 ? -1 : 1) * Math.exp(rng.normal());
      const Qc = new Float64Array(n * n);
      const Qr = new Float64Array(n * n);
      const vc = new Float64Array(n);
      const vr = new Float64Array(n);
      diagonalPlusRankOneEigen(delta, v, rho, n, Qc, vc, ws);
      diagonalPlusRankOneEigen(delta, v, rho, n, Qr, vr, ws, "rows");
      expect(Array.from(vr)).toEqual(Array.from(vc));
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(Qr[j * n + i]).toBe(Qc[i * n + j]);
    }
  });

  test("extreme scales (delta and rho |v|^2 near 1e-300 and 1e300, subnormal gaps) give finite, orthonormal, accurate pairs", async () => {
    const { diagonalPlusRankOneEigen, secularWorkspace } = await import("../src/index.js");
    const rng = new TestRng(77);
    const ws = secularWorkspace(20);
    for (const scale of [1e-300, 1e-200, 1e200, 1e300]) {
      for (let trial = 0; trial < 40; trial++) {
        const n = 2 + rng.int(18);
        const delta = new Float64Array(n);
        const v = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          delta[i] = scale * rng.normal();
          v[i] = rng.normal();
        }
        // Relative gaps of 1e-12 between some poles: at 1e-300 the gaps themselves are subnormal.
        if (trial % 2 === 0) for (let i = 1; i < n; i += 3) delta[i] = (delta[i - 1] as number) * (1 + 1e-12);
        const rho = (rng.uniform() < 0.5 ? -1 : 1) * scale * Math.exp(rng.normal());
        const Q = new Float64Array(n * n);
        const vals = new Float64Array(n);
        diagonalPlusRankOneEigen(delta, v, rho, n, Q, vals, ws);
        let orth = 0;
        let recon = 0;
        const top = Math.max(...Array.from(vals, Math.abs));
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) {
            let s = 0;
            let rec = 0;
            for (let k = 0; k < n; k++) {
              s += (Q[k * n + i] as number) * (Q[k * n + j] as number);
              rec += (Q[i * n + k] as number) * ((vals[k] as number) / top) * (Q[j * n + k] as number);
            }
            const K = (rho / top) * (v[i] as number) * (v[j] as number) + (i === j ? (delta[i] as number) / top : 0);
            orth = Math.max(orth, Math.abs(s - (i === j ? 1 : 0)));
            recon = Math.max(recon, Math.abs(rec - K) / n);
          }
        expect(orth, `scale ${scale}, trial ${trial}`).toBeLessThan(1e-12);
        expect(recon, `scale ${scale}, trial ${trial}`).toBeLessThan(1e-12);
        for (const x of vals) expect(Number.isFinite(x)).toBe(true);
      }
    }
  });
});
