import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  clippedUniformExcess,
  clippedUniformIndex,
  envA,
  envB,
  envBIndexParameters,
  glmExcess,
  glmIndex,
  llmCascadePreset,
  UniformCascadeEnvironment,
} from "../src/index.js";

function averages(env: ReturnType<typeof envA> | ReturnType<typeof envB>, n: number, seed = 1) {
  env.reset(Rng.fromSeed(seed));
  let oracle = 0;
  let oneShot = 0;
  let all = 0;
  let queries = 0;
  let smin = Number.POSITIVE_INFINITY;
  let smax = Number.NEGATIVE_INFINITY;
  const costs = new Float64Array(env.initialArms.length);
  for (let t = 0; t < n; t++) {
    env.next(t);
    oracle += env.oracleUtility();
    oneShot += env.oneShotUtility();
    all += env.queryAllUtility();
    queries += env.oracleQueries();
    const tr = env.truth();
    for (let a = 0; a < tr.indices.length; a++) {
      smin = Math.min(smin, tr.indices[a]!);
      smax = Math.max(smax, tr.indices[a]!);
      costs[a] = costs[a]! + tr.meanCosts[a]! / n;
    }
  }
  return { oracle: oracle / n, oneShot: oneShot / n, all: all / n, queries: queries / n, smin, smax, costs };
}

describe("Env-A (uniform quality, linear index)", () => {
  it("reproduces the reference values: oracle 0.688 (1.86 queries), one-shot 0.645, query-all 0.627", () => {
    const r = averages(envA(), 100_000);
    // Monte Carlo standard errors are below 0.001; clipping box 3's quality at 1 lowers the oracle by ~0.0005.
    expect(Math.abs(r.oracle - 0.688)).toBeLessThan(0.003);
    expect(Math.abs(r.oneShot - 0.645)).toBeLessThan(0.003);
    expect(Math.abs(r.all - 0.627)).toBeLessThan(0.003);
    expect(Math.abs(r.queries - 1.86)).toBeLessThan(0.02);
    expect(r.smin).toBeGreaterThan(0.489);
    expect(r.smax).toBeLessThan(0.875);
  });
  it("the true index solves Weitzman's equation and is linear where no clip binds", () => {
    const env = envA();
    const rho = env.indexParameters();
    env.reset(Rng.fromSeed(2));
    for (let t = 0; t < 200; t++) {
      env.next(t);
      const tr = env.truth();
      for (let a = 0; a < 3; a++) {
        const b = env.boxes[a]!;
        const lo = b.floor.reduce((s, v, k) => s + v * tr.indexFeatures[k]!, 0);
        expect(clippedUniformExcess(lo, lo + b.width, tr.indices[a]!)).toBeCloseTo(b.meanCost, 12);
        const lin = rho[a]!.reduce((s, v, k) => s + v * tr.indexFeatures[k]!, 0);
        if (lo + b.width <= 1) expect(tr.indices[a]).toBeCloseTo(lin, 12);
        else expect(tr.indices[a]).toBeLessThan(lin);
      }
    }
    expect(clippedUniformIndex(0, 1, 0.02)).toBeCloseTo(0.8, 12);
  });
  it("is reproducible per seed and validates options", () => {
    const a = averages(envA(), 500, 9);
    const b = averages(envA(), 500, 9);
    expect(a).toEqual(b);
    expect(() => new UniformCascadeEnvironment({ boxes: [] })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
    // A box that is not an object, or has no floor array, is a typed error (it was a TypeError).
    for (const boxes of [[null], [{}], [{ floor: [0, 0], width: 0.5, meanCost: 0.1 }, 7]]) {
      expect(() => new UniformCascadeEnvironment({ boxes } as never)).toThrow(
        expect.objectContaining({ name: "RouteKitError" }),
      );
    }
    // Options that are not an object are INVALID_ARGUMENT (they were TypeErrors).
    for (const make of [() => envA(null as never), () => envB(null as never), () => llmCascadePreset(7 as never)])
      expect(make).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => envA().next(0)).toThrow(expect.objectContaining({ code: "INVALID_STATE" }));
    const env = envA();
    env.reset(Rng.fromSeed(1));
    env.next(0);
    expect(() => env.query("nope")).toThrow(expect.objectContaining({ code: "UNKNOWN_ARM" }));
  });
});

describe("Env-B (logistic reward, tanh index, reverse-engineered costs)", () => {
  it("excess quadrature matches a fine trapezoid rule and the index solves its equation", () => {
    const sd = 0.5 * Math.hypot(1.5, -1, 0.5);
    for (const [mean, s] of [
      [0.3, 0.6],
      [-0.5, 0.2],
      [1, 0.9],
      [0, -0.1],
    ] as const) {
      let q = 0;
      const h = 1e-4;
      for (let u = -12; u < 12; u += h) {
        const z = mean + sd * u;
        q += Math.max(1 / (1 + Math.exp(-z)) - s, 0) * Math.exp(-0.5 * u * u) * h;
      }
      q /= Math.sqrt(2 * Math.PI);
      expect(Math.abs(glmExcess(mean, s) - q)).toBeLessThan(1e-7);
    }
    const s = glmIndex(0.3, 0.04);
    expect(glmExcess(0.3, s)).toBeCloseTo(0.04, 12);
  });
  it("fitted rho gives mean costs near the targets 0.01 / 0.04 / 0.12 and sigma* = tanh(rho . psi)", () => {
    const rho = envBIndexParameters();
    expect(rho).toHaveLength(3);
    const r = averages(envB(), 4000);
    expect(r.costs[0]).toBeGreaterThan(0.005);
    expect(r.costs[0]).toBeLessThan(0.02);
    expect(r.costs[1]).toBeGreaterThan(0.025);
    expect(r.costs[1]).toBeLessThan(0.06);
    expect(r.costs[2]).toBeGreaterThan(0.09);
    expect(r.costs[2]).toBeLessThan(0.15);
    expect(r.oracle).toBeGreaterThan(r.oneShot);
    expect(r.oneShot).toBeGreaterThan(r.all - 0.01);
    const env = envB();
    env.reset(Rng.fromSeed(4));
    env.next(0);
    const tr = env.truth();
    for (let a = 0; a < 3; a++) {
      const z = rho[a]!.reduce((s, v, k) => s + v * tr.indexFeatures[k]!, 0);
      expect(tr.indices[a]).toBeCloseTo(Math.tanh(z), 14);
    }
  });
});

describe("LLM cascade preset", () => {
  it("names its models and leaves a real gap between the cascade oracle and one-shot routing", () => {
    const env = llmCascadePreset();
    expect(env.initialArms).toEqual(["mini", "standard", "frontier"]);
    const r = averages(env, 50_000);
    expect(r.oracle - r.oneShot).toBeGreaterThan(0.03);
    expect(r.oracle - r.all).toBeGreaterThan(0.03);
  });

  it("reproduces the pandora README's values: oracle 0.693 (1.99 calls), best single model 0.655, call-all 0.648", () => {
    const r = averages(llmCascadePreset(), 100_000);
    expect(Math.abs(1000 * r.oracle - 693)).toBeLessThan(3); // 0.693 +- 0.003
    expect(Math.abs(r.queries - 1.99)).toBeLessThan(0.02);
    expect(Math.abs(r.oneShot - 0.655)).toBeLessThan(0.003);
    expect(Math.abs(r.all - 0.648)).toBeLessThan(0.003);
  });
});
