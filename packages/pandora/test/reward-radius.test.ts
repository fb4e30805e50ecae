import { Rng } from "@routekit/core";
import { invertSPD, shermanMorrisonUpdate, solveSPD } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import {
  BoxState,
  RewardModel,
  rewardLink,
  scaledIndexRadius,
  scaledRewardRadius,
  theoryIndexRadius,
  theoryRewardRadius,
} from "../src/index.js";

describe("reward estimator", () => {
  it("identity link: the MLE equals ridge Phi^-1 sum r phi to 1e-10", () => {
    const rng = Rng.fromSeed(1);
    const d = 4;
    const m = new RewardModel(d, rewardLink("identity"), 1, Number.POSITIVE_INFINITY, null);
    const Phi = new Float64Array(d * d);
    const b = new Float64Array(d);
    for (let i = 0; i < d; i++) Phi[i * d + i] = 1;
    for (let k = 0; k < 500; k++) {
      const x = Float64Array.from({ length: d }, () => rng.uniformIn(-1, 1));
      const r = rng.uniform() < 0.5 + 0.3 * (x[0] as number) ? 1 : 0;
      m.add(x, r);
      for (let i = 0; i < d; i++) {
        b[i] = b[i]! + r * x[i]!;
        for (let j = 0; j < d; j++) Phi[i * d + j] = Phi[i * d + j]! + x[i]! * x[j]!;
      }
    }
    m.fit();
    const want = new Float64Array(d);
    solveSPD(Phi, d, b, want);
    for (let i = 0; i < d; i++) expect(Math.abs(m.theta[i]! - want[i]!)).toBeLessThan(1e-10);
  });
  it("logistic link: the MLE recovers theta* with error shrinking like 1/sqrt(t)", () => {
    const theta = [1.5, -1, 0.5];
    const errs: number[] = [];
    for (const n of [1000, 16000]) {
      const rng = Rng.fromSeed(2);
      const m = new RewardModel(3, rewardLink("logistic"), 1, Number.POSITIVE_INFINITY, null);
      for (let k = 0; k < n; k++) {
        const x = Float64Array.from({ length: 3 }, () => rng.normal(0, 1));
        const z = theta[0]! * x[0]! + theta[1]! * x[1]! + theta[2]! * x[2]!;
        m.add(x, rng.uniform() < 1 / (1 + Math.exp(-z)) ? 1 : 0);
      }
      m.fit();
      errs.push(Math.hypot(m.theta[0]! - 1.5, m.theta[1]! + 1, m.theta[2]! - 0.5));
    }
    expect(errs[0]).toBeLessThan(0.4);
    // 16x the data: error about 4x smaller (allow 2x slack either way)
    expect(errs[1]! / errs[0]!).toBeLessThan(0.5);
  });
  it("projection keeps ||theta|| <= alpha (Phi-norm projection for identity, radial for logistic)", () => {
    for (const link of ["identity", "logistic"] as const) {
      const rng = Rng.fromSeed(3);
      const m = new RewardModel(2, rewardLink(link), 0.1, 0.5, null);
      for (let k = 0; k < 300; k++) {
        const x = Float64Array.from({ length: 2 }, () => rng.uniformIn(-1, 1));
        m.add(x, x[0]! > 0 ? 1 : 0);
      }
      m.fit();
      expect(Math.hypot(...m.theta)).toBeLessThanOrEqual(0.5 + 1e-12);
    }
  });
  it("Sherman-Morrison inverse matches the direct inverse to 1e-9 after 10^4 updates", () => {
    const rng = Rng.fromSeed(4);
    const d = 4;
    const m = new RewardModel(d, rewardLink("identity"), 1, Number.POSITIVE_INFINITY, null);
    for (let k = 0; k < 10_000; k++)
      m.add(
        Float64Array.from({ length: d }, () => rng.uniformIn(-1, 1)),
        rng.uniform(),
      );
    const inv = new Float64Array(d * d);
    invertSPD(m.Phi, d, inv);
    for (let i = 0; i < d; i++)
      for (let j = i; j < d; j++) expect(Math.abs(m.PhiInv[i * d + j]! - inv[i * d + j]!)).toBeLessThan(1e-9);
    expect(shermanMorrisonUpdate).toBeTypeOf("function");
  });
});

describe("per-box index design", () => {
  it("V_a^-1 by Sherman-Morrison matches the direct inverse to 1e-9 after 10^4 samples; P_a sums phi phi^T", () => {
    const rng = Rng.fromSeed(5);
    const m = 3;
    const box = new BoxState(m, 2, true, 1);
    const V = new Float64Array(m * m);
    for (let i = 0; i < m; i++) V[i * m + i] = 1;
    let p01 = 0;
    for (let k = 0; k < 10_000; k++) {
      const psi = Float64Array.of(1, rng.uniformIn(-1, 1), rng.uniformIn(-1, 1));
      const phi = Float64Array.of(rng.uniform(), rng.uniform());
      box.add(psi, phi, 0.5, 0.01);
      p01 += phi[0]! * phi[1]!;
      for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) V[i * m + j] = V[i * m + j]! + psi[i]! * psi[j]!;
    }
    const inv = new Float64Array(m * m);
    invertSPD(V, m, inv);
    for (let i = 0; i < m; i++)
      for (let j = i; j < m; j++) expect(Math.abs(box.Vinv[i * m + j]! - inv[i * m + j]!)).toBeLessThan(1e-9);
    expect(box.P[1]).toBeCloseTo(p01, 8);
    expect(box.n).toBe(10_000);
  });
});

describe("radii", () => {
  const r = { m: 3, d: 4, A: 3, T: 4000, t: 1000, delta: 1 / 4000, eta1: 1, eta0: 1 };
  it("scaled radii: golden values", () => {
    const lead = Math.sqrt(3 * Math.log(4000) + Math.log(3 * 4000 * 4000));
    expect(scaledIndexRadius(r, 0.5, 0.5, true, 0)).toBeCloseTo(0.5 * lead, 12);
    expect(scaledIndexRadius(r, 0.5, 0.25, false, 2)).toBeCloseTo(
      0.5 * lead + 0.25 * Math.sqrt((4 * Math.log(1000) + Math.log(4000)) * 2),
      12,
    );
    expect(scaledRewardRadius(r, 0.5)).toBeCloseTo(0.5 * Math.sqrt(4 * Math.log(1001) + 2 * Math.log(8000)), 12);
    expect(scaledIndexRadius(r, 0, 0, false, 5)).toBe(0);
  });
  it("theory radii: kappa mu1 = 0.1 gives K ~ 1450 and B* ~ 1400 (the paper's constants are unusable in practice)", () => {
    const c = {
      kappa: 0.1,
      mu1: 1,
      iota: 3,
      psiBound: 1,
      diameter: 6,
      phiBound: 1,
      muLow: 1,
      lipschitzG: 1,
      gamma0: 1,
      alpha: 1,
    };
    // K = 1440 + 2 min(6, 6) + 6 = 1458; Q = ceil(log2(1 + 1000 * 36)) = 16;
    // Gamma* = 3 log(1 + 12 * 4000) + log(17) + log(6 * 3 * 4000 / (1/4000))
    const K = 1458;
    const gamma = 3 * Math.log(1 + 12 * 4000) + Math.log(17) + Math.log(6 * 3 * 4000 * 4000);
    const want = Math.sqrt((8 / 0.3) * K * gamma + 40 / 0.3 + 1 / 3 + 36);
    const Bstar = theoryIndexRadius(c, r, 1000, true, 0);
    expect(Bstar).toBeCloseTo(want, 9);
    expect(gamma).toBeGreaterThan(45);
    expect(gamma).toBeLessThan(60);
    expect(Bstar).toBeGreaterThan(1300);
    expect(Bstar).toBeLessThan(1500);
    // unknown reward: larger log term and the plug-in term
    const gammaU = 3 * Math.log(1 + 12 * 4000) + Math.log(34) + Math.log(6 * 3 * 4000 * 4000);
    const inner = Math.sqrt(4 * Math.log(1 + 1000) + 2 * Math.log(6 * 4000)) + 1;
    const Cbar = 4 * inner * inner;
    const wantU =
      Math.sqrt((4 / 0.1) * K * gammaU + 20 / 0.1 + 0.5 + 36) + ((2 * Math.SQRT2) / 0.1) * Math.sqrt(Cbar * 0.7);
    expect(theoryIndexRadius(c, r, 1000, false, 0.7)).toBeCloseTo(wantU, 8);
    // a degenerate curvature constant (mu1 underflowing to 0) gives an infinite radius, never NaN
    expect(theoryIndexRadius({ ...c, mu1: 0 }, r, 1000, false, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(theoryIndexRadius(c, r, 1000, false, 0)).toBeCloseTo(
      Math.sqrt((4 / 0.1) * K * gammaU + 20 / 0.1 + 0.5 + 36),
      9,
    );
    const beta = 2 * (Math.sqrt(4 * Math.log(1 + 1000) + 2 * Math.log(2 * 4000)) + 1);
    expect(theoryRewardRadius(c, r)).toBeCloseTo(beta, 12);
  });
});
