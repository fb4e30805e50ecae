/**
 * Outside audit (wt/audit-kernel): inputs the earlier tests did not try. Each test failed before its fix.
 */
import { ErrorCode, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  betaD,
  bias1,
  bias2,
  DotKernel,
  drawFeatures,
  ExactKrr,
  effectiveParameters,
  PakUcb,
  paperBias2,
  paperFeatureCount,
  paperFrequencySchedule,
  RffUcb,
  RidgeArm,
  resolveExploration,
  SupRffUcb,
  toLinalgKernel,
  zetaRbfSphere,
} from "../src/index.js";
import { codeOf, family } from "./family.js";

describe("SupRffUcb.fromJSON(snapshot, schedules): the second argument holds schedules only", () => {
  const learned = (schedules: Record<string, unknown> = {}) => {
    const p = new SupRffUcb({ arms: ["a", "b"], contextDim: 2, horizon: 16, seed: 1, maxFrequencies: 4, ...schedules });
    for (let t = 0; t < 6; t++) {
      const d = p.select(Float64Array.of(Math.sin(t), Math.cos(t)));
      p.update(d, { reward: 0.5 });
    }
    return p.toJSON();
  };

  it("an option other than a schedule cannot override the snapshot's (sigma, ridge, arms were taken as given)", () => {
    const snap = learned();
    for (const extra of [{ sigma: 5 }, { ridge: 3 }, { arms: ["z"] }, { horizon: 3 }, { frequncies: () => 4 }]) {
      expect(codeOf(() => SupRffUcb.fromJSON(snap, extra as never))).toBe(ErrorCode.InvalidArgument);
    }
    // The snapshot itself restores exactly, with or without an empty schedules object.
    expect(JSON.stringify(SupRffUcb.fromJSON(snap).toJSON())).toBe(JSON.stringify(snap));
    expect(JSON.stringify(SupRffUcb.fromJSON(snap, {}).toJSON())).toBe(JSON.stringify(snap));
  });

  it("a bad schedules argument is INVALID_ARGUMENT (it was SNAPSHOT_CORRUPT, or silently ignored), the snapshot being fine", () => {
    const snap = learned();
    const custom = learned({ bias1: () => 0 });
    for (const bad of [null, 5, "x", []]) {
      expect(codeOf(() => SupRffUcb.fromJSON(snap, bad as never))).toBe(ErrorCode.InvalidArgument);
    }
    expect(codeOf(() => SupRffUcb.fromJSON(snap, { frequencies: 5 } as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => SupRffUcb.fromJSON(custom, { bias1: "x" } as never))).toBe(ErrorCode.InvalidArgument);
    // Passing the custom schedule again restores exactly.
    expect(JSON.stringify(SupRffUcb.fromJSON(custom, { bias1: () => 0 }).toJSON())).toBe(JSON.stringify(custom));
  });
});

describe("kernel: null is INVALID_ARGUMENT like every other null option (it was taken for the default)", () => {
  for (const m of family.filter((f) => !f.name.includes("rff"))) {
    it(m.name, () => {
      expect(codeOf(() => m.make({ arms: ["a"], kernel: null }))).toBe(ErrorCode.InvalidArgument);
      // undefined still means the default.
      expect(codeOf(() => m.make({ arms: ["a"], kernel: undefined }))).toBeUndefined();
    });
  }
});

describe("resolveExploration (exported) checks its arguments like the options", () => {
  it("an unknown preset, a confidence outside (0, 1), theory without a horizon: typed errors, no NaN", () => {
    // Before: "bogus" was computed as "anytime", confidence 3 gave NaN, 0 gave Infinity, theory used T = 1.
    expect(codeOf(() => resolveExploration("bogus" as never, 0.05, 2, 1, undefined))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => resolveExploration("paper", 3, 2, 1, undefined))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => resolveExploration("paper", 0, 2, 1, undefined))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => resolveExploration("paper", Number.NaN, 2, 1, undefined))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => resolveExploration("theory", 0.05, 2, 1, undefined))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => resolveExploration(-1, 0.05, 2, 1, undefined))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => resolveExploration("anytime", 0.05, 2, Number.NaN, undefined))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => resolveExploration("paper", 0.05, -5, 1, undefined))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => resolveExploration("theory", 0.05, 2, 1, 0))).toBe(ErrorCode.OutOfRange);
  });

  it("valid arguments give the presets' values, and the policies' currentExploration() agrees", () => {
    expect(resolveExploration("paper", 0.05, 2, 1, undefined)).toBe(Math.sqrt(2 * Math.log(4 / 0.05)));
    expect(resolveExploration("theory", 0.05, 2, 1, 100)).toBe(Math.sqrt(2 * Math.log(400 / 0.05)));
    expect(resolveExploration("anytime", 0.05, 2, 7, undefined)).toBe(Math.sqrt(2 * Math.log(28 / 0.05)));
    expect(resolveExploration(0.5, 0.05, 0, 1, undefined)).toBe(0.5);
    const p = new PakUcb({ arms: ["a", "b", "c"], contextDim: 2, exploration: "anytime", confidence: 0.1 });
    expect(p.currentExploration()).toBe(resolveExploration("anytime", 0.1, 3, 1, undefined));
  });
});

describe("drawFeatures and effectiveParameters (exported) check the configuration", () => {
  const ok = { contextDim: 3, sigma: 1, frequencies: 4, variant: "paper", ridge: 1 } as const;

  it("a bandwidth of 0, a contextDim of 0, a frequency count of 0 or a bad rng are typed errors (they gave NaN / Infinity)", () => {
    const rng = Rng.fromSeed(1);
    expect(codeOf(() => drawFeatures({ ...ok, sigma: 0 }, rng))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => drawFeatures({ ...ok, contextDim: 0 }, rng))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => drawFeatures({ ...ok, frequencies: 0 }, rng))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => drawFeatures({ ...ok, variant: "repo" as never }, rng))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => drawFeatures(null as never, rng))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => drawFeatures(ok, {} as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => effectiveParameters({ ...ok, variant: "repo2D", frequencies: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => effectiveParameters({ ...ok, ridge: 0 }))).toBe(ErrorCode.OutOfRange);
  });

  it("a valid configuration draws what it drew before (finite, the same bits for the same stream)", () => {
    const a = drawFeatures(ok, Rng.fromSeed(1));
    const b = drawFeatures(ok, Rng.fromSeed(1));
    expect(Array.from(a.W)).toEqual(Array.from(b.W));
    expect(a.W.every(Number.isFinite)).toBe(true);
    expect(effectiveParameters({ ...ok, variant: "repo2D", sigma: 2 * Math.PI, frequencies: 4 })).toEqual({
      sigma: 1,
      ridge: 0.25,
    });
  });
});

describe("RffUcb.featurize(context, out) checks out", () => {
  it("a short, missing or non-Float64Array out is a typed error (a short one got a truncated phi silently)", () => {
    const p = new RffUcb({ arms: ["a"], contextDim: 3, frequencies: 4, seed: 1 });
    const before = JSON.stringify(p.toJSON());
    expect(codeOf(() => p.featurize([1, 2, 3], new Float64Array(7)))).toBe(ErrorCode.DimensionMismatch);
    expect(codeOf(() => p.featurize([1, 2, 3], undefined as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => p.featurize([1, 2, 3], [] as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => p.featurize([1, 2, 3], new Float32Array(8) as never))).toBe(ErrorCode.InvalidArgument);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    const phi = p.featurize([1, 2, 3], new Float64Array(p.numFeatures));
    expect(phi.reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 14);
  });
});

describe("normalizeContext: false with a kernel no context can satisfy", () => {
  // poly (gamma y.y' + c)^degree has k(0, 0) = c^degree: 1e32 here, far above 1e4 ridge, so every context was refused
  // by select (OUT_OF_RANGE) after the constructor had accepted the kernel.
  const kernel = { type: "poly", gamma: 1, c: 1e4, degree: 8 };
  for (const m of family.filter((f) => !f.name.includes("rff"))) {
    it(`${m.name}: refused by the constructor (OUT_OF_RANGE); a kernel within the bound at y = 0 is still accepted`, () => {
      expect(codeOf(() => m.make({ arms: ["a"], normalizeContext: false, kernel }))).toBe(ErrorCode.OutOfRange);
      const p = m.make({
        arms: ["a", "b"],
        normalizeContext: false,
        kernel: { type: "poly", gamma: 1, c: 2, degree: 3 },
      });
      const d = p.select(Float64Array.of(0.1, 0, 0));
      p.update(d, { reward: 1 });
    });
  }
});

describe("the exported building blocks ExactKrr and RidgeArm check their constructor arguments", () => {
  const k = new DotKernel({ type: "rbf", sigma: 1 });
  it("a ridge of 0, a dimension of 0 or a kernel that is not a DotKernel are typed errors (they gave NaN later)", () => {
    expect(codeOf(() => new RidgeArm(4, 0))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new RidgeArm(4, Number.NaN))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => new RidgeArm(0, 1))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new RidgeArm(-1, 1))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new ExactKrr(3, k, 0))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new ExactKrr(3, k, -1))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new ExactKrr(0, k, 1))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new ExactKrr(3, k, 1, 0))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new ExactKrr(3, { type: "rbf", sigma: 1 } as never, 1))).toBe(ErrorCode.InvalidArgument);
  });

  it("valid arguments work as before", () => {
    const r = new RidgeArm(2, 0.5);
    expect(r.variance(Float64Array.of(1, 0))).toBe(2);
    const e = new ExactKrr(2, k, 0.5);
    expect(e.cap).toBe(16);
    expect(e.variance(e.row(Float64Array.of(1, 0), 1), 1)).toBe(2);
  });
});

describe("toLinalgKernel (exported) reads its spec like the kernel option", () => {
  it("an unknown type or a bad parameter is a typed error (an unknown type was the linear kernel, sigma 0 gave NaN)", () => {
    expect(codeOf(() => toLinalgKernel({ type: "rbff" } as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => toLinalgKernel({ type: "rbf", sigma: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => toLinalgKernel({ type: "poly", gamma: 1, degree: 2.5 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => toLinalgKernel(null as never))).toBe(ErrorCode.InvalidArgument);
  });

  it("valid specs give the kernels they gave (defaults c = 1, degree = 3)", () => {
    const x = Float64Array.of(0.6, 0.8);
    const y = Float64Array.of(1, 0);
    expect(toLinalgKernel({ type: "poly", gamma: 2 }).eval(x, y, 2)).toBe((2 * 0.6 + 1) ** 3);
    expect(toLinalgKernel({ type: "rbf", sigma: 1 }).eval(x, x, 2)).toBe(1);
    expect(toLinalgKernel({ type: "linear" }).eval(x, y, 2)).toBe(0.6);
  });
});

describe("the Sup-RFF reference formulas (exported) check their arguments", () => {
  const x = { d: 2, sigma: 1, eps: 0.1, Delta: 0.1, delta: 0.05, n: 1, alpha: 1 };
  it("a d of 0, an eps of 0, a confidence of 2, a round of 0 or a missing field are typed errors (NaN / Infinity before)", () => {
    expect(codeOf(() => betaD(0))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => betaD(-2))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => zetaRbfSphere(0, 0.1))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => zetaRbfSphere(1, Number.NaN))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => paperFeatureCount({ ...x, d: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => paperFeatureCount({ ...x, eps: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => paperFeatureCount({ ...x, delta: 2 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => paperFeatureCount({} as never))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => bias1(1, 0.1, 0.1, 0))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => bias2(0, 1, 0.1, 0.1, 1))).toBe(ErrorCode.OutOfRange);
    const input = { t: 0, n: 1, d: 2, sigma: 1, ridge: 1, confidence: 0.05 };
    expect(codeOf(() => paperFrequencySchedule(input))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => paperBias2({ ...input, t: -1 }))).toBe(ErrorCode.OutOfRange);
  });

  it("valid arguments give the values they gave (B1 = 2n/t^2 and B2 = 4/sqrt(alpha t) at the paper's thresholds)", () => {
    expect(betaD(2)).toBe((1 + 1) * 2 ** (14 / 4));
    const input = { t: 10, n: 3, d: 2, sigma: 1, ridge: 2, confidence: 0.05 };
    expect(paperBias2(input)).toBeCloseTo(4 / Math.sqrt(2 * 10), 12);
    expect(Number.isFinite(paperFrequencySchedule(input))).toBe(true);
  });
});

describe("SupRffUcb: a schedule that calls back into the policy", () => {
  it("is refused (INVALID_STATE) and changes nothing; the outer decision was filed under the inner one's context", () => {
    let reenter: (() => void) | undefined;
    const make = () =>
      new SupRffUcb({
        arms: ["a", "b"],
        contextDim: 2,
        horizon: 64,
        seed: 1,
        maxFrequencies: 4,
        exploration: 0.01,
        bias1: () => {
          reenter?.();
          return 0;
        },
      });
    const p = make();
    const twin = make();
    for (const q of [p, twin]) {
      for (let t = 0; t < 10; t++) {
        const d = q.select(Float64Array.of(Math.sin(t), Math.cos(t)));
        q.update(d, { reward: 0.5 });
      }
    }
    const before = JSON.stringify(p.toJSON());
    for (const call of [
      () => p.select(Float64Array.of(0, 1)),
      () => p.addArm("c"),
      () => p.removeArm("a"),
      () => p.learn({} as never),
    ]) {
      reenter = call;
      expect(codeOf(() => p.select(Float64Array.of(1, 0)))).toBe(ErrorCode.InvalidState);
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
    reenter = undefined;
    const d = p.select(Float64Array.of(1, 0));
    expect(p.decisionRecord(d).decision.context).toEqual([1, 0]);
    expect(d).toEqual(twin.select(Float64Array.of(1, 0)));
  });
});

describe("SupRffUcb.frequenciesAt and a frequencies schedule", () => {
  const make = (frequencies: (x: { n: number }) => number) =>
    new SupRffUcb({ arms: ["a", "b"], contextDim: 2, horizon: 64, seed: 1, maxFrequencies: 8, frequencies });

  it("a schedule that calls frequenciesAt is INVALID_STATE (it recursed until a RangeError), from select and from the user", () => {
    let p: SupRffUcb | undefined;
    const q = make((x) => (p === undefined ? x.n : p.frequenciesAt(10, x.n)));
    for (let t = 0; t < 4; t++) q.update(q.select(Float64Array.of(Math.sin(t), Math.cos(t))), { reward: 0.5 });
    p = q;
    const before = JSON.stringify(q.toJSON());
    expect(codeOf(() => q.select(Float64Array.of(1, 0)))).toBe(ErrorCode.InvalidState);
    expect(codeOf(() => q.frequenciesAt(10, 3))).toBe(ErrorCode.InvalidState);
    expect(JSON.stringify(q.toJSON())).toBe(before);
  });

  it("a schedule run by the user's frequenciesAt may not select; an ordinary schedule gives its value", () => {
    let inner: (() => void) | undefined;
    const p = make((x) => {
      inner?.();
      return 2 * x.n;
    });
    const before = JSON.stringify(p.toJSON());
    inner = () => p.select(Float64Array.of(0, 1));
    expect(codeOf(() => p.frequenciesAt(10, 3))).toBe(ErrorCode.InvalidState);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    inner = undefined;
    expect(p.frequenciesAt(10, 3)).toBe(6);
    expect(p.frequenciesAt(10, 100)).toBe(8); // capped at maxFrequencies
    p.update(p.select(Float64Array.of(1, 0)), { reward: 0.5 }); // the guard was cleared
  });
});

describe("PakUcb: an onWarning that calls back into the policy", () => {
  it("is refused (INVALID_STATE) and the update changes nothing; a nested select made the point in progress learn its context", () => {
    let reenter: (() => void) | undefined;
    const make = () => {
      const q = new PakUcb({ arms: ["a"], contextDim: 2, seed: 1, initialCapacity: 16, onWarning: () => reenter?.() });
      q.regression("a").largeCapacity = 20; // the 17th point grows the room to 24: the warning fires there
      return q;
    };
    const p = make();
    const twin = make();
    const ctx = (t: number) => Float64Array.of(Math.sin(t), Math.cos(t));
    for (const q of [p, twin]) {
      for (let t = 0; t < 16; t++) {
        const d = q.select(ctx(t));
        q.update(d, { reward: 0.5 });
      }
    }
    const d = p.select(ctx(16));
    const before = JSON.stringify(p.toJSON());
    reenter = () => p.select(Float64Array.of(5, -5));
    expect(codeOf(() => p.update(d, { reward: 0.5 }))).toBe(ErrorCode.InvalidState);
    expect(JSON.stringify(p.toJSON())).toBe(before);

    // The warning is not repeated: the same feedback now goes in, and the arm holds what the twin holds.
    p.update(d, { reward: 0.5 });
    const dt = twin.select(ctx(16));
    twin.update(dt, { reward: 0.5 });
    expect(Array.from(p.regression("a").X.subarray(0, 34))).toEqual(Array.from(twin.regression("a").X.subarray(0, 34)));
  });

  it("a snapshot from inside the warning (the update half done) is refused too, and the update changes nothing", () => {
    let snapshots = 0;
    let self: PakUcb | undefined;
    const p = new PakUcb({
      arms: ["a"],
      contextDim: 2,
      seed: 1,
      initialCapacity: 16,
      onWarning: () => {
        self?.toJSON();
        snapshots++;
      },
    });
    p.regression("a").largeCapacity = 20;
    const ctx = (t: number) => Float64Array.of(Math.sin(t), Math.cos(t));
    for (let t = 0; t < 16; t++) p.update(p.select(ctx(t)), { reward: 0.5 });
    const d = p.select(ctx(16));
    const before = JSON.stringify(p.toJSON());
    self = p;
    expect(codeOf(() => p.update(d, { reward: 0.5 }))).toBe(ErrorCode.InvalidState);
    expect(snapshots).toBe(0);
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });
});
