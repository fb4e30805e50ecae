/**
 * Outside audit (session 7): inputs the earlier tests did not try. Each test failed before its fix.
 */
import { ErrorCode } from "@routekit/core";
import { mirror32Length } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import { KernelUcb, PakUcb, RffUcb, SupPakUcb } from "../src/index.js";
import { codeOf, family } from "./family.js";

describe("visits() keeps every arm, whatever its id", () => {
  for (const make of [
    (arms: string[]) => new PakUcb({ arms, contextDim: 2, seed: 1 }),
    (arms: string[]) => new RffUcb({ arms, contextDim: 2, seed: 1, frequencies: 4 }),
  ]) {
    it(`${make([]).kind}: arms "__proto__" and "constructor" are counted like any other`, () => {
      const p = make(["__proto__", "constructor", "a"]);
      for (let t = 0; t < 6; t++) {
        const d = p.select(Float64Array.of(Math.sin(t), Math.cos(t)));
        p.update(d, { reward: 0.5 });
      }
      const v = p.visits();
      expect(Object.keys(v)).toEqual(["__proto__", "constructor", "a"]);
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
      expect(Object.values(v).reduce((s, n) => s + n, 0)).toBe(6);
      expect(JSON.parse(JSON.stringify(v))).toEqual(v);
    });
  }
});

describe("horizon: every accepted value restores from its own snapshot", () => {
  for (const m of family) {
    it(`${m.name}: an unsafe integer (2^53) is OUT_OF_RANGE, 2^53 - 1 round-trips`, () => {
      expect(codeOf(() => m.make({ arms: ["a"], horizon: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
      expect(codeOf(() => m.make({ arms: ["a"], horizon: 2 ** 53 + 2 }))).toBe(ErrorCode.OutOfRange);
      if (m.name.startsWith("sup")) return; // Sup-* stage counts follow the horizon; 2^53 - 1 is covered below.
      const p = m.make({ arms: ["a", "b"], horizon: Number.MAX_SAFE_INTEGER, exploration: "theory" });
      const d = p.select(Float64Array.of(1, 0, 0));
      p.update(d, { reward: 1 });
      const snap = JSON.stringify(p.toJSON());
      expect(JSON.stringify(m.restore(JSON.parse(snap)).toJSON())).toBe(snap);
    });
  }
});

describe("README options that had no test", () => {
  it("initialCapacity: default 16 (PakUcb) and 64 (KernelUcb), integer in [1, 4096]; capacity grows past it", () => {
    expect(new PakUcb({ arms: ["a"], contextDim: 2 }).initialCapacity).toBe(16);
    expect(new KernelUcb({ arms: ["a"], contextDim: 2 }).initialCapacity).toBe(64);
    for (const make of [
      (c: number) => new PakUcb({ arms: ["a"], contextDim: 2, initialCapacity: c }),
      (c: number) => new KernelUcb({ arms: ["a"], contextDim: 2, initialCapacity: c }),
    ]) {
      expect(codeOf(() => make(0))).toBe(ErrorCode.OutOfRange);
      expect(codeOf(() => make(4097))).toBe(ErrorCode.OutOfRange);
      expect(codeOf(() => make(1.5))).toBe(ErrorCode.OutOfRange);
      expect(codeOf(() => make(Number.NaN))).toBe(ErrorCode.NonFinite);
      const p = make(1);
      for (let t = 0; t < 5; t++) p.update(p.select(Float64Array.of(Math.sin(t), Math.cos(t))), { reward: 0.5 });
      const snap = JSON.stringify(p.toJSON());
      expect(JSON.stringify((p.constructor as typeof PakUcb).fromJSON(JSON.parse(snap)).toJSON())).toBe(snap);
    }
  });

  it('exploreChoice: "largest-width" (default) and "random" are accepted and restored; anything else is INVALID_ARGUMENT', () => {
    const make = (o: Record<string, unknown>) =>
      new SupPakUcb({ arms: ["a", "b"], contextDim: 2, horizon: 32, seed: 1, ...o } as never);
    expect(make({}).exploreChoice).toBe("largest-width");
    expect(codeOf(() => make({ exploreChoice: "any" }))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => make({ exploreChoice: null }))).toBe(ErrorCode.InvalidArgument);
    const p = make({ exploreChoice: "random" });
    for (let t = 0; t < 20; t++) p.update(p.select(Float64Array.of(Math.sin(t), Math.cos(t))), { reward: 0.5 });
    const q = SupPakUcb.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
    expect(q.exploreChoice).toBe("random");
    expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
  });

  it('rffVariant "cosBias" is accepted, learns without NaN and restores bit-exactly', () => {
    const p = new RffUcb({ arms: ["a", "b"], contextDim: 3, frequencies: 16, rffVariant: "cosBias", seed: 2 });
    for (let t = 0; t < 60; t++) {
      const d = p.select(Float64Array.of(Math.sin(t), Math.cos(t), 0.3));
      p.update(d, { reward: d.arm === "a" ? 0.9 : 0.1 });
    }
    for (const q of p.predict(Float64Array.of(0, 1, 0.3))) expect(Number.isFinite(q.mean) && q.sigma >= 0).toBe(true);
    const snap = JSON.stringify(p.toJSON());
    expect(JSON.stringify(RffUcb.fromJSON(JSON.parse(snap)).toJSON())).toBe(snap);
    expect(codeOf(() => new RffUcb({ arms: ["a"], contextDim: 3, rffVariant: "cos" as never }))).toBe(
      ErrorCode.InvalidArgument,
    );
  });

  it("scoreTransform.priorMean: the regressions shrink towards it instead of 0 (an unvisited arm and an unseen region predict it)", () => {
    for (const make of [
      () => new PakUcb({ arms: ["a", "b"], contextDim: 3, seed: 1, scoreTransform: { priorMean: 0.6 } }),
      () =>
        new RffUcb({ arms: ["a", "b"], contextDim: 3, seed: 1, frequencies: 64, scoreTransform: { priorMean: 0.6 } }),
    ]) {
      const p = make();
      expect(p.predict(Float64Array.of(1, 0, 0)).map((q) => q.mean)).toEqual([0.6, 0.6]);
      // Rewards equal to the prior mean are learned as 0: the means stay at the prior everywhere.
      for (let t = 0; t < 30; t++) p.update(p.select(Float64Array.of(1, 0.1 * Math.sin(t), 0)), { reward: 0.6 });
      for (const q of p.predict(Float64Array.of(0, 0, 1))) expect(q.mean).toBeCloseTo(0.6, 12);
      // Without priorMean, the same stream predicts far below 0.6 where no prompt was seen.
      const plain = new PakUcb({ arms: ["a", "b"], contextDim: 3, seed: 1 });
      for (let t = 0; t < 30; t++)
        plain.update(plain.select(Float64Array.of(1, 0.1 * Math.sin(t), 0)), { reward: 0.6 });
      for (const q of plain.predict(Float64Array.of(0, 0, 1))) expect(q.mean).toBeLessThan(0.4);
    }
  });
});

describe("scoreTransform.scale: every accepted scale keeps predictions finite", () => {
  it("a scale below 1e-12 is OUT_OF_RANGE (at 5e-324 a visited arm's predicted sigma and ucb were Infinity)", () => {
    for (const scale of [5e-324, 1e-300, 9.99e-13]) {
      expect(codeOf(() => new PakUcb({ arms: ["a"], contextDim: 2, scoreTransform: { scale } }))).toBe(
        ErrorCode.OutOfRange,
      );
    }
    for (const make of [
      () => new PakUcb({ arms: ["a", "b"], contextDim: 2, seed: 1, scoreTransform: { scale: 1e-12 } }),
      () => new RffUcb({ arms: ["a", "b"], contextDim: 2, seed: 1, frequencies: 8, scoreTransform: { scale: 1e-12 } }),
    ]) {
      const p = make();
      for (let t = 0; t < 20; t++) p.update(p.select(Float64Array.of(Math.sin(t), Math.cos(t))), { reward: 1e11 });
      for (const q of p.predict(Float64Array.of(1, 0))) {
        expect(q.n).toBeGreaterThan(0);
        expect(Number.isFinite(q.mean) && Number.isFinite(q.sigma) && Number.isFinite(q.ucb)).toBe(true);
      }
      const snap = JSON.stringify(p.toJSON());
      expect(JSON.stringify((p.constructor as typeof PakUcb).fromJSON(JSON.parse(snap)).toJSON())).toBe(snap);
    }
  });
});

describe("README memory figure of RFF-UCB", () => {
  it("5 models at D = 200: each arm's 400 x 400 Float64 inverse and its Float32 mirror make 8.0 MB", () => {
    const p = new RffUcb({ arms: ["a", "b", "c", "d", "e"], contextDim: 4, seed: 1 });
    p.update(p.select(Float64Array.of(1, 0, 0, 0)), { reward: 1 }); // the first selection creates the mirrors
    const F = 400;
    let bytes = 0;
    for (const arm of p.arms) {
      const r = p.regression(arm);
      expect(r.Ainv.length).toBe(F * F);
      bytes += r.Ainv.byteLength + mirror32Length(F) * 4;
    }
    expect(bytes / 1e6).toBeCloseTo(8.0, 1);
  });
});
