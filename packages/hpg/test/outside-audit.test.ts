/**
 * Defects found by an outside adversarial test of the package (each test failed before its fix).
 */
import { describe, expect, test } from "vitest";
import {
  bisectThreshold,
  DenseMirrorIterate,
  Hpg,
  hypentropyThreshold,
  l1Threshold,
  MirrorIterate,
} from "../src/index.js";

describe("l1Threshold at the ends of its range", () => {
  test("tau = 0 (a valid radius) thresholds everything: theta = max |x| (it returned 0, leaving x outside the ball)", () => {
    expect(l1Threshold(Float64Array.of(3, -2, 1), 3, 0, new Float64Array(3))).toBe(3);
  });

  test("entries beyond tau 2^53 give theta with sum max(|x| - theta, 0) <= tau (it returned 0)", () => {
    const x = Float64Array.of(1e20, 1e20);
    const theta = l1Threshold(x, 2, 1, new Float64Array(2));
    expect(theta).toBeGreaterThan(9.9e19);
    expect(2 * Math.max(1e20 - theta, 0)).toBeLessThanOrEqual(1);
    expect(l1Threshold(Float64Array.of(1e308, 1e308, -1e308), 3, 1, new Float64Array(3))).toBe(1e308);
  });
});

describe("the bisected hypentropy threshold near the largest double", () => {
  test("mirror values near 1e308 give a finite nu (the midpoint lo + hi overflowed: NUMERICAL)", () => {
    for (const z of [[1e308], [1e308, 1e308], [9e307, 9e307], [Number.MAX_VALUE, -Number.MAX_VALUE]]) {
      const nu = bisectThreshold(z, z.length, 1, 1);
      expect(nu).toBeLessThanOrEqual(Math.max(...z.map(Math.abs)));
      expect(nu).toBeGreaterThan(0.99 * Math.max(...z.map(Math.abs)));
      expect(hypentropyThreshold(z, z.length, 1, 1, new Float64Array(z.length))).toBe(nu);
    }
  });
});

describe("the Euclidean iterate after a step many orders above its radius", () => {
  test("keeps the kept eigenvalue's digits: W = -tau u u^T along the step (|x| - theta lost them, up to 12% at 1e15)", () => {
    for (const w of [1e7, 1e10, 1e13, 2e15, 1e17]) {
      const it = new MirrorIterate({ dim: 3, beta: 1, radius: 2, geometry: "euclidean" });
      it.step(Float64Array.of(0, 0.6, 0.8), 0.5);
      it.step(Float64Array.of(1, 0, 0), -w);
      expect(Math.abs(it.score(Float64Array.of(1, 0, 0)) + 2)).toBeLessThan(1e-12);
      expect(it.nuclearNorm()).toBeLessThanOrEqual(2 * (1 + 1e-12));
    }
  });
});

describe("a beta many orders below the radius (asinh(tau / beta) above 710, where sinh overflows)", () => {
  test("the iterates reach the ball: W = tau u u^T after a large step (it stopped at beta sinh(710), 9e-16, or went Infinity)", () => {
    for (const [beta, radius] of [
      [Number.MIN_VALUE, 1],
      [1e-310, 2],
      [Number.MIN_VALUE, Number.MAX_VALUE],
    ] as const) {
      // (At radius = the largest double a step of 1e3 stays inside the ball: beta sinh(1e3) is 5e110.)
      for (const w of radius > 1e300 ? [1e10, 1e300] : [1e3, 1e10, 1e300]) {
        for (const it of [
          new MirrorIterate({ dim: 2, beta, radius }),
          new DenseMirrorIterate({ dim: 2, beta, radius }),
        ]) {
          it.step(Float64Array.of(1, 0), w);
          const s = it.score(Float64Array.of(1, 0));
          expect(Math.abs(s / radius - 1)).toBeLessThan(1e-9);
          expect(it.score(Float64Array.of(0, 1))).toBe(0);
        }
      }
    }
  });

  test("Hpg at beta = the smallest double, radius and stepSize the largest: selects, learns and restores", () => {
    const router = new Hpg({
      arms: ["a", "b"],
      contextDim: 2,
      beta: Number.MIN_VALUE,
      radius: Number.MAX_VALUE,
      stepSize: Number.MAX_VALUE,
      seed: 1,
    });
    const q = Float64Array.of(0.6, 0.8);
    for (let t = 0; t < 20; t++) {
      const d = router.select(t % 2 ? q : Float64Array.of(1e-300, 0));
      router.update(d, { reward: d.arm === "a" ? 1 : -1 });
    }
    const p = router.probabilities(q);
    expect(p[0]).toBe(1);
    const json = JSON.stringify(router.toJSON());
    expect(JSON.stringify(Hpg.fromJSON(JSON.parse(json)).toJSON())).toBe(json);
    // A step past asinh(radius / beta) = 745.8 at the same beta: the learned weight is not capped at 9e-16.
    const small = new Hpg({
      arms: ["a", "b"],
      contextDim: 2,
      beta: Number.MIN_VALUE,
      radius: 2,
      stepSize: 4000,
      seed: 1,
    });
    const d = small.select(q);
    small.update(d, { reward: 1 });
    const pr = small.probabilities(q);
    expect(Math.abs(Math.log(pr[0] as number) - Math.log(pr[1] as number))).toBeGreaterThan(1);
  });
});
