/**
 * Regression tests for the defects an outside adversarial test found (each failed before the fix).
 */
import { type ArmPolicy, ErrorCode, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { DotKernel, ExactKrr, KernelUcb, MAX_FREQUENCIES, PakUcb, RffUcb, SupRffUcb } from "../src/index.js";
import { codeOf, family } from "./family.js";

const sinCos = (t: number) => Float64Array.of(Math.sin(t), Math.cos(t), Math.sin(2 * t));

function finitePredictions(p: ArmPolicy, x: Float64Array): boolean {
  const pr = (p as PakUcb).predict(x);
  return pr.every((q) => Number.isFinite(q.mean) && Number.isFinite(q.ucb));
}

describe("exact regressions stay finite and accurate over the documented ranges", () => {
  it("the inputs that went NaN are now refused up front (ridge 1e-9, poly on unnormalised norm-1e3 contexts)", () => {
    expect(codeOf(() => new PakUcb({ arms: ["a"], contextDim: 3, ridge: 1e-9 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new KernelUcb({ arms: ["a"], contextDim: 3, ridge: 1e-9 }))).toBe(ErrorCode.OutOfRange);
    const p = new PakUcb({
      arms: ["a", "b"],
      contextDim: 3,
      kernel: { type: "poly", gamma: 1 },
      normalizeContext: false,
    });
    const before = JSON.stringify(p.toJSON());
    expect(codeOf(() => p.select(Float64Array.of(1e3, 0, 0)))).toBe(ErrorCode.OutOfRange);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    // A kernel whose values on unit contexts are too large for the ridge is refused at construction.
    expect(
      codeOf(() => new PakUcb({ arms: ["a"], contextDim: 3, kernel: { type: "poly", gamma: 9, degree: 5 } })),
    ).toBe(ErrorCode.OutOfRange);
  });

  const edge: [string, number, () => ArmPolicy][] = [
    ["PakUcb rbf at the smallest ridge", 2e-6, () => new PakUcb({ arms: ["a", "b", "c"], contextDim: 3, ridge: 1e-4 })],
    [
      "PakUcb poly at k / ridge = 1e4",
      2e-6,
      () => new PakUcb({ arms: ["a", "b", "c"], contextDim: 3, kernel: { type: "poly", gamma: 9, degree: 4 } }),
    ],
    [
      "PakUcb linear at the smallest ridge",
      2e-6,
      () => new PakUcb({ arms: ["a", "b", "c"], contextDim: 3, ridge: 1e-4, kernel: { type: "linear" } }),
    ],
    [
      "PakUcb poly, unnormalised contexts of norm 3",
      1e-7,
      () =>
        new PakUcb({
          arms: ["a", "b", "c"],
          contextDim: 3,
          kernel: { type: "poly", gamma: 1 },
          normalizeContext: false,
        }),
    ],
    [
      "KernelUcb rbf at the smallest ridge",
      2e-6,
      () => new KernelUcb({ arms: ["a", "b", "c"], contextDim: 3, ridge: 1e-4, kernel: { type: "rbf", sigma: 1 } }),
    ],
  ];
  it.each(edge)("%s: 450 rounds of sin/cos prompts, finite throughout, drift below %s", (_n, tol, make) => {
    const p = make();
    const scale = (p as PakUcb).normalizeContext ? 1 : 3;
    for (let t = 0; t < 450; t++) {
      const x = sinCos(t).map((v) => v * scale);
      p.update(p.select(x), { reward: 0.5 + 0.5 * Math.sin(t) });
      if (t % 50 === 49 && p instanceof PakUcb) expect(finitePredictions(p, sinCos(t + 0.5))).toBe(true);
    }
    const regs = p instanceof KernelUcb ? [p.regression()] : (p as PakUcb).arms.map((a) => (p as PakUcb).regression(a));
    for (const r of regs) {
      const d = r.drift();
      expect(d.inverse).toBeLessThan(tol);
      expect(d.weights).toBeLessThan(tol);
    }
    const back = (p instanceof KernelUcb ? KernelUcb : PakUcb).fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
    expect(JSON.stringify(back.toJSON())).toBe(JSON.stringify(p.toJSON()));
  });

  it("an inverse that drifted past its exact bound is rebuilt from the points (Cholesky), back to a direct inverse", () => {
    const r = new ExactKrr(3, new DotKernel({ type: "rbf", sigma: 1 }), 1e-3);
    const add = (t: number) => {
      const y = sinCos(t);
      let n2 = 0;
      for (const v of y) n2 += v * v;
      r.append(y, n2, Math.sin(t), r.row(y, n2), 1);
    };
    for (let t = 0; t < 60; t++) add(t);
    expect(r.refreshes).toBe(0);
    // Simulate accumulated rounding: push one diagonal entry beyond 1 / ridge, as drift does.
    r.Q[0] = 2 / r.ridge;
    expect(r.drift().inverse).toBeGreaterThan(0.1);
    add(60);
    expect(r.refreshes).toBe(1);
    expect(r.drift().inverse).toBeLessThan(1e-9);
    expect(r.drift().weights).toBeLessThan(1e-9);
  });
});

describe.each(family)("$name: protocol defects", (m) => {
  it("maxPending is kept in snapshots", () => {
    const p = m.make({ arms: ["a", "b"], maxPending: 3, seed: 1 });
    const first = p.select(sinCos(1));
    const back = m.restore(JSON.parse(JSON.stringify(p.toJSON())));
    for (let t = 2; t < 5; t++) back.select(sinCos(t));
    expect(codeOf(() => back.update(first, { reward: 1 }))).toBe(ErrorCode.DecisionExpired);
    expect((back.toJSON().state as { maxPending: number }).maxPending).toBe(3);
  });

  it("late feedback of a removed arm never reaches a re-added arm with the same id", () => {
    const p = m.make({ arms: ["a", "b"], seed: 2 });
    let d = p.select(sinCos(0));
    for (let t = 1; d.arm !== "a" && t < 200; t++) {
      p.update(d, { reward: 0.5 });
      d = p.select(sinCos(t));
    }
    expect(d.arm).toBe("a");
    p.removeArm("a");
    p.addArm("a");
    const fresh = JSON.stringify(p.toJSON().state && (p.toJSON().state as { arms: unknown[] }).arms);
    p.update(d, { reward: 1 });
    expect(JSON.stringify((p.toJSON().state as { arms: unknown[] }).arms)).toBe(fresh);
    if (p instanceof KernelUcb) expect(p.size).toBe(0);
  });

  it("constructor misuse throws typed errors", () => {
    const cases: [Record<string, unknown> | null | undefined, string][] = [
      [{ arms: "gpt-4o" }, ErrorCode.InvalidArgument],
      [{ arms: ["a"], rng: {} }, ErrorCode.InvalidArgument],
      [{ arms: undefined }, ErrorCode.InvalidArgument],
      [{ arms: ["a"], normalizeContext: 0 }, ErrorCode.InvalidArgument],
      [{ arms: ["a"], normalizeContext: "false" }, ErrorCode.InvalidArgument],
      [{ arms: ["a"], maxPending: 0 }, ErrorCode.OutOfRange],
      [{ arms: ["a"], ridge: -1 }, ErrorCode.OutOfRange],
      [{ arms: ["a"], ridge: Number.NaN }, ErrorCode.NonFinite],
      [{ arms: ["a"], exploration: -1 }, ErrorCode.OutOfRange],
      [{ arms: ["a"], exploration: "greedy" }, ErrorCode.InvalidArgument],
      [{ arms: ["a"], confidence: 1 }, ErrorCode.OutOfRange],
      [{ arms: ["a"], scoreTransform: { scale: 0 } }, ErrorCode.OutOfRange],
      [{ arms: ["a"], contextDim: 0 }, ErrorCode.OutOfRange],
      [{ arms: ["a"], contextDim: "3" }, ErrorCode.InvalidArgument],
    ];
    for (const [o, code] of cases)
      expect(
        codeOf(() => m.make(o as never)),
        JSON.stringify(o),
      ).toBe(code);
    const Ctor = m.make({ arms: ["a"] }).constructor as new (o: unknown) => unknown;
    expect(codeOf(() => new Ctor(undefined))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => new Ctor(null))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => new Ctor({}))).toBe(ErrorCode.InvalidArgument);
  });

  it("feedback cost NaN, -1 and '1' is refused like classic, state unchanged", () => {
    const p = m.make({ arms: ["a", "b"], seed: 3 });
    const d = p.select(sinCos(0));
    const before = JSON.stringify(p.toJSON());
    expect(codeOf(() => p.update(d, { reward: 1, cost: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => p.update(d, { reward: 1, cost: -1 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => p.update(d, { reward: 1, cost: "1" as never }))).toBe(ErrorCode.InvalidArgument);
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });

  it("normalised contexts of any finite magnitude (1e300, subnormal) are learned and restore", () => {
    const p = m.make({ arms: ["a", "b"], seed: 6 });
    for (const scale of [1e300, 1e-300, 5e-324, 1e150, 1]) {
      p.update(p.select(Float64Array.of(scale, -scale, scale / 2)), { reward: 0.5 });
    }
    // fromJSON validates every Float64 value as finite, so a restore proves the state is.
    const text = JSON.stringify(p.toJSON());
    expect(JSON.stringify(m.restore(JSON.parse(text)).toJSON())).toBe(text);
  });

  it("a getter-backed context is read once: nothing non-finite reaches the state", () => {
    const p = m.make({ arms: ["a", "b"], seed: 4 });
    let reads = 0;
    const ctx = [0.2, 0.3, 0.4];
    Object.defineProperty(ctx, 0, { get: () => (reads++ === 0 ? 0.5 : Number.NaN) });
    const d = p.select(ctx as unknown as Float64Array);
    p.update(d, { reward: 0.7 });
    expect(reads).toBe(1);
    const back = m.restore(JSON.parse(JSON.stringify(p.toJSON())));
    expect(JSON.stringify(back.toJSON())).toBe(JSON.stringify(p.toJSON()));
  });

  it("fromJSON never fills defaults and reports any bad field as SNAPSHOT_CORRUPT", () => {
    const p = m.make({ arms: ["a", "b"], seed: 5 });
    for (let t = 0; t < 6; t++) p.update(p.select(sinCos(t)), { reward: 0.4 });
    p.select(sinCos(9));
    const snap = JSON.parse(JSON.stringify(p.toJSON()));
    const state = snap.state as Record<string, unknown>;
    const edits: [string, unknown][] = [
      ["ridge", -1],
      ["ridge", "1"],
      ["exploration", "greedy"],
      ["confidence", 2],
      ["normalizeContext", 0],
      ["maxPending", 0],
      ["scoreTransform", { scale: 1, offset: 0 }],
    ];
    for (const key of Object.keys(state)) edits.push([key, undefined]);
    for (const [key, value] of edits) {
      const bad = JSON.parse(JSON.stringify(snap));
      if (value === undefined) delete bad.state[key];
      else bad.state[key] = value;
      const code = codeOf(() => m.restore(bad));
      expect([ErrorCode.SnapshotCorrupt, ErrorCode.SnapshotVersion], `${key} = ${JSON.stringify(value)}`).toContain(
        code,
      );
      if (!(key === "rng" && m.name.includes("rff"))) expect(code, key).toBe(ErrorCode.SnapshotCorrupt);
    }
  });
});

describe("Sup-RFF-UCB schedules", () => {
  it("a bias schedule returning NaN (or a negative value) is a typed error and changes nothing", () => {
    for (const [bias1, code] of [
      [() => Number.NaN, ErrorCode.NonFinite],
      [() => -1, ErrorCode.OutOfRange],
    ] as const) {
      const p = new SupRffUcb({ arms: ["a", "b"], contextDim: 3, horizon: 64, maxFrequencies: 4, bias1, seed: 1 });
      p.update(p.select(sinCos(0)), { reward: 0.5 });
      const before = JSON.stringify(p.toJSON());
      expect(codeOf(() => p.select(sinCos(5)))).toBe(code);
      expect(JSON.stringify(p.toJSON())).toBe(before);
      expect(p.pendingDecisions).toBe(0);
    }
  });
});

describe("RFF-UCB snapshots at the largest feature count", () => {
  it(`frequencies = ${MAX_FREQUENCIES} with 3 arms serialises and restores; more is OUT_OF_RANGE`, () => {
    expect(codeOf(() => new RffUcb({ arms: ["a"], contextDim: 2, frequencies: MAX_FREQUENCIES + 1 }))).toBe(
      ErrorCode.OutOfRange,
    );
    const p = new RffUcb({ arms: ["a", "b", "c"], contextDim: 2, frequencies: MAX_FREQUENCIES, seed: 3 });
    const rng = Rng.fromSeed(1);
    for (let t = 0; t < 3; t++) p.update(p.select(Float64Array.of(rng.normal(), rng.normal())), { reward: 0.5 });
    const text = JSON.stringify(p.toJSON());
    const back = RffUcb.fromJSON(JSON.parse(text));
    expect(back.features.W).toEqual(p.features.W);
    const x = Float64Array.of(0.3, -0.2);
    expect(back.predict(x)).toEqual(p.predict(x));
  });
});

describe("RFF-UCB's features are a copy", () => {
  it("writing to policy.features changes neither the decisions nor the snapshot (the snapshot stays restorable)", () => {
    const p = new RffUcb({ arms: ["a", "b"], contextDim: 2, frequencies: 8, seed: 3 });
    const before = JSON.stringify(p.toJSON());
    const f = p.features;
    f.W.fill(99);
    f.phase.fill(1);
    expect(p.features.W).not.toEqual(f.W);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    const x = Float64Array.of(0.3, -0.2);
    const q = RffUcb.fromJSON(JSON.parse(before));
    expect(p.predict(x)).toEqual(q.predict(x));
    const out = new Float64Array(16);
    expect(Array.from(f.map(x, out))).not.toEqual(Array.from(p.featurize(x, new Float64Array(16))));
  });
});
