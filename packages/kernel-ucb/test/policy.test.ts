import { type ArmPolicy, argmaxRandomTie, ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { KernelUcb, PakUcb, RffUcb } from "../src/index.js";
import { family } from "./family.js";
import { seeded, unitVectors } from "./helpers.js";

type Make = (arms: string[], d: number, seed: number, extra?: Record<string, unknown>) => ArmPolicy;
const makers: Record<string, Make> = {
  "pak-ucb": (arms, d, seed, extra) => new PakUcb({ arms, contextDim: d, seed, ...extra }),
  "rff-ucb": (arms, d, seed, extra) => new RffUcb({ arms, contextDim: d, seed, frequencies: 20, ...extra }),
  "kernel-ucb": (arms, d, seed, extra) => new KernelUcb({ arms, contextDim: d, seed, ...extra }),
};
const restore = (p: ArmPolicy): ArmPolicy => {
  const s = JSON.parse(JSON.stringify(p.toJSON()));
  if (p instanceof PakUcb) return PakUcb.fromJSON(s);
  if (p instanceof RffUcb) return RffUcb.fromJSON(s);
  return KernelUcb.fromJSON(s);
};

function chiSquare(counts: number[]): number {
  const n = counts.reduce((a, b) => a + b, 0);
  const e = n / counts.length;
  return counts.reduce((a, c) => a + (c - e) ** 2 / e, 0);
}

describe("argmax with random ties", () => {
  it("uniform over tied maxima: chi-square over 10k draws", () => {
    const rng = Rng.fromSeed(1);
    const s = new Float64Array([0.5, 0.9, 0.9, 0.1, 0.9]);
    const counts = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) {
      const k = argmaxRandomTie(s, 5, rng);
      expect([1, 2, 4]).toContain(k);
      counts[k === 1 ? 0 : k === 2 ? 1 : 2]++;
    }
    expect(chiSquare(counts)).toBeLessThan(13.8); // df = 2, p = 0.001
    expect(argmaxRandomTie(new Float64Array([1, Infinity, 3]), 3, rng)).toBe(1);
  });

  it("identical arms are picked uniformly by RFF-UCB (eta = 0, zero rewards): 10k rounds", () => {
    const p = new RffUcb({ arms: ["a", "b", "c"], contextDim: 4, frequencies: 5, exploration: 0, seed: 2 });
    const y = new Float64Array([1, 0, 0, 0]);
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 10_000; i++) {
      const d = p.select(y);
      counts[d.arm] = (counts[d.arm] ?? 0) + 1;
      p.update(d, { reward: 0 });
    }
    expect(chiSquare(Object.values(counts))).toBeLessThan(13.8);
  });
});

for (const [name, make] of Object.entries(makers)) {
  describe(`${name}: protocol rules`, () => {
    const d = 6;
    const ctx = unitVectors(seeded(9), 400, d);

    if (name !== "kernel-ucb") {
      it("plays every arm once in the first G rounds, no NaN with eta = 0 (5.1.11)", () => {
        const p = make(["a", "b", "c", "d"], d, 1, { exploration: 0 });
        const seen = new Set<string>();
        for (let t = 0; t < 4; t++) {
          const dec = p.select(ctx[t]);
          expect(seen.has(dec.arm)).toBe(false);
          seen.add(dec.arm);
          p.update(dec, { reward: 0.3 });
        }
        const pr = (p as PakUcb).predict(ctx[5] as Float64Array);
        for (const x of pr) expect(Number.isFinite(x.ucb)).toBe(true);
        for (let t = 4; t < 30; t++) p.update(p.select(ctx[t]), { reward: 0.5 });
      });

      it("plays the argmax of the ucb predict reports, mean + exploration * sigma", () => {
        // Three arms whose scores depend on the prompt differently, so means stay close and the exploration term
        // decides many rounds. A selection index with sigma^2 in place of sigma (RFF-UCB's float path) passed every
        // statistical test, being harmless on their instances (swap regret at T = 4000 11.7 vs 14.9); here it
        // picks a non-argmax arm at round 3 (PAK-UCB with sigma^2: round 9).
        const p = make(["a", "b", "c"], d, 4) as PakUcb;
        let compared = 0;
        for (let t = 0; t < 150; t++) {
          const y = ctx[t] as Float64Array;
          const pr = p.predict(y);
          const dec = p.select(y);
          if (pr.every((x) => Number.isFinite(x.ucb))) {
            const best = Math.max(...pr.map((x) => x.ucb));
            const chosen = pr.find((x) => x.arm === dec.arm)?.ucb as number;
            // RFF-UCB scores in float32 (within 1e-6 of the float64 sigma, README); ties are rare in floats.
            expect(chosen, `round ${t}`).toBeGreaterThanOrEqual(best - 1e-5 * Math.max(1, Math.abs(best)));
            compared++;
          }
          const k = ["a", "b", "c"].indexOf(dec.arm);
          p.update(dec, { reward: 0.5 + 0.3 * Math.sin(3 * (y[k] as number) + k) });
        }
        expect(compared).toBeGreaterThan(100);
      });

      it("an arm added at run time is played next (5.1.13)", () => {
        const p = make(["a", "b"], d, 2);
        for (let t = 0; t < 30; t++) p.update(p.select(ctx[t]), { reward: 0.9 });
        p.addArm("new");
        expect(p.select(ctx[31]).arm).toBe("new");
      });
    }

    it("restores bit-exactly, pending decisions included, and continues identically", () => {
      const a = make(["a", "b", "c"], d, 3);
      const rng = Rng.fromSeed(4);
      const pending = [];
      for (let t = 0; t < 40; t++) {
        const dec = a.select(ctx[t]);
        if (t % 7 === 3) pending.push(dec);
        else a.update(dec, { reward: rng.uniform() });
      }
      const b = restore(a);
      expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
      for (const dec of pending) {
        a.update(dec, { reward: 0.25 });
        b.update(dec.id, { reward: 0.25 });
      }
      for (let t = 40; t < 90; t++) {
        const da = a.select(ctx[t]);
        const db = b.select(ctx[t]);
        expect(db).toEqual(da);
        const r = rng.uniform();
        a.update(da, { reward: r });
        b.update(db, { reward: r });
      }
      expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
    });

    it("out-of-order feedback equals the same feedback applied with fresh state (stale caches recomputed)", () => {
      const a = make(["a", "b"], d, 5);
      const b = make(["a", "b"], d, 5);
      for (let t = 0; t < 10; t++) {
        a.update(a.select(ctx[t]), { reward: 0.1 * (t % 3) });
        b.update(b.select(ctx[t]), { reward: 0.1 * (t % 3) });
      }
      const a1 = a.select(ctx[20]);
      const a2 = a.select(ctx[21]);
      const b1 = b.select(ctx[20]);
      const b2 = b.select(ctx[21]);
      a.update(a2, { reward: 0.4 });
      a.update(a1, { reward: 0.8 });
      // b: round-trip through a snapshot between the two updates, so every cache is cold.
      const b0 = restore(b);
      b0.update(b2.id, { reward: 0.4 });
      const b3 = restore(b0);
      b3.update(b1.id, { reward: 0.8 });
      const sa = a.toJSON() as unknown as { state: { arms: unknown } };
      const sb = b3.toJSON() as unknown as { state: { arms: unknown } };
      expect(JSON.stringify(sb.state.arms ?? (sb.state as Record<string, unknown>).regression)).toBe(
        JSON.stringify(sa.state.arms ?? (sa.state as Record<string, unknown>).regression),
      );
    });

    it("bad input throws typed errors and leaves the snapshot unchanged", () => {
      const p = make(["a", "b"], d, 6);
      for (let t = 0; t < 5; t++) p.update(p.select(ctx[t]), { reward: 0.5 });
      const dec = p.select(ctx[6]);
      const before = JSON.stringify(p.toJSON());
      const expectCode = (f: () => unknown, code: string) => {
        let err: unknown;
        try {
          f();
        } catch (e) {
          err = e;
        }
        expect(isRouteKitError(err)).toBe(true);
        expect((err as { code: string }).code).toBe(code);
        expect(JSON.stringify(p.toJSON())).toBe(before);
      };
      expectCode(() => p.select(new Float64Array(d + 1)), ErrorCode.DimensionMismatch);
      expectCode(() => p.select(new Float64Array(d).fill(Number.NaN)), ErrorCode.NonFinite);
      expectCode(() => p.select(undefined), ErrorCode.InvalidArgument);
      expectCode(() => p.update(dec, { reward: Number.NaN }), ErrorCode.NonFinite);
      expectCode(() => p.update(dec, { reward: Infinity }), ErrorCode.NonFinite);
      expectCode(() => p.update("d999", { reward: 1 }), ErrorCode.UnknownDecision);
      expectCode(() => p.update("nope", { reward: 1 }), ErrorCode.UnknownDecision);
      expectCode(() => p.addArm("a"), ErrorCode.DuplicateArm);
      expectCode(() => p.removeArm("zz"), ErrorCode.UnknownArm);
      p.update(dec, { reward: 0.5 });
      const after = JSON.stringify(p.toJSON());
      let code: string | undefined;
      try {
        p.update(dec, { reward: 0.5 });
      } catch (e) {
        code = (e as { code: string }).code;
      }
      expect(code).toBe(ErrorCode.DecisionAlreadyUsed);
      expect(JSON.stringify(p.toJSON())).toBe(after);
    });

    it("feedback for a removed arm is accepted and ignored", () => {
      const p = make(["a", "b"], d, 7);
      const dec = p.select(ctx[0]);
      p.removeArm(dec.arm);
      const before = JSON.stringify((p.toJSON().state as Record<string, unknown>).arms);
      p.update(dec, { reward: 1 });
      expect(p.pendingDecisions).toBe(0);
      expect(JSON.stringify((p.toJSON().state as Record<string, unknown>).arms)).toBe(before);
      expect(() => p.removeArm(p.arms[0] as string)).toThrow(/last arm/);
    });
  });
}

describe("option validation", () => {
  it("rejects bad options with typed errors", () => {
    const bad: [() => unknown, string][] = [
      [() => new PakUcb({ arms: ["a"], contextDim: 0 }), ErrorCode.OutOfRange],
      [() => new PakUcb({ arms: ["a"], contextDim: 3, ridge: 0 }), ErrorCode.OutOfRange],
      [() => new PakUcb({ arms: ["a"], contextDim: 3, exploration: "theory" }), ErrorCode.InvalidArgument],
      [() => new PakUcb({ arms: ["a"], contextDim: 3, exploration: -1 }), ErrorCode.OutOfRange],
      [() => new PakUcb({ arms: ["a"], contextDim: 3, kernel: { type: "rbf", sigma: -1 } }), ErrorCode.OutOfRange],
      [() => new PakUcb({ arms: ["a", "a"], contextDim: 3 }), ErrorCode.DuplicateArm],
      [() => new RffUcb({ arms: ["a"], contextDim: 3, frequencies: 0 }), ErrorCode.OutOfRange],
      [() => new RffUcb({ arms: ["a"], contextDim: 3, rffVariant: "x" as never }), ErrorCode.InvalidArgument],
      [() => new PakUcb({ arms: [], contextDim: 3 }).select(new Float64Array(3)), ErrorCode.NoArms],
      [() => PakUcb.fromJSON(new RffUcb({ arms: ["a"], contextDim: 3 }).toJSON()), ErrorCode.SnapshotKind],
    ];
    for (const [f, code] of bad) {
      let c: string | undefined;
      try {
        f();
      } catch (e) {
        c = (e as { code: string }).code;
      }
      expect(c).toBe(code);
    }
  });

  it("eta presets: paper sqrt(2 ln(2G/delta)), theory with T, anytime with t", () => {
    const p = new PakUcb({ arms: ["a", "b"], contextDim: 3 });
    expect(p.currentExploration()).toBeCloseTo(2.96, 2);
    const q = new PakUcb({ arms: ["a", "b", "c", "d", "e"], contextDim: 3, exploration: "theory", horizon: 5000 });
    expect(q.currentExploration()).toBeCloseTo(5.257, 3);
    const r = new PakUcb({ arms: ["a", "b"], contextDim: 3, exploration: "anytime" });
    expect(r.currentExploration()).toBeCloseTo(2.96, 2);
    r.update(r.select(new Float64Array([1, 0, 0])), { reward: 1 });
    expect(r.currentExploration()).toBeCloseTo(Math.sqrt(2 * Math.log(8 / 0.05)), 12);
  });

  it("score transform: learning 100x scores with scale 0.01 equals learning the [0,1] scores", () => {
    const ctx = unitVectors(seeded(11), 60, 5);
    const a = new PakUcb({ arms: ["a", "b"], contextDim: 5, seed: 1 });
    const b = new PakUcb({ arms: ["a", "b"], contextDim: 5, seed: 1, scoreTransform: { scale: 0.01 } });
    const rng = Rng.fromSeed(3);
    for (const y of ctx) {
      const da = a.select(y);
      const db = b.select(y);
      expect(db.arm).toBe(da.arm);
      const r = Math.round(rng.uniform() * 100);
      a.update(da, { reward: r / 100 });
      b.update(db, { reward: r });
    }
    const pa = a.predict(ctx[0] as Float64Array);
    const pb = b.predict(ctx[0] as Float64Array);
    expect((pb[0]?.mean as number) / 100).toBeCloseTo(pa[0]?.mean as number, 12);
  });
});

describe("cost model: op counts, not wall time", () => {
  it("RFF-UCB ops per round are constant in t; exact PAK-UCB ops grow with n", () => {
    const ctx = unitVectors(seeded(12), 400, 8);
    const cr = { ops: 0 };
    const ce = { ops: 0 };
    const rff = new RffUcb({ arms: ["a", "b"], contextDim: 8, frequencies: 16, counter: cr, seed: 1 });
    const pak = new PakUcb({ arms: ["a", "b"], contextDim: 8, counter: ce, seed: 1 });
    const perRound = (p: ArmPolicy, c: { ops: number }, t0: number, t1: number) => {
      const s = c.ops;
      for (let t = t0; t < t1; t++) p.update(p.select(ctx[t]), { reward: 0.5 });
      return (c.ops - s) / (t1 - t0);
    };
    perRound(rff, cr, 0, 10);
    const r1 = perRound(rff, cr, 10, 60);
    perRound(rff, cr, 60, 300);
    const r2 = perRound(rff, cr, 300, 350);
    expect(r2).toBe(r1);
    perRound(pak, ce, 0, 10);
    const e1 = perRound(pak, ce, 10, 60);
    perRound(pak, ce, 60, 300);
    const e2 = perRound(pak, ce, 300, 350);
    expect(e2).toBeGreaterThan(3 * e1);
  });
});

describe("extreme magnitudes and corrupted snapshots", () => {
  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: huge/tiny contexts are normalised safely; huge rewards and unnormalised huge contexts are rejected`, () => {
      const p = make(["a", "b"], 4, 1);
      for (const scale of [1e300, 1e-300, 5e-324, 1e150]) {
        const d = p.select(Float64Array.of(scale, -scale, scale / 2, 0));
        p.update(d, { reward: 0.5 });
      }
      if (p instanceof PakUcb || p instanceof RffUcb) {
        for (const x of p.predict(Float64Array.of(1, 2, 3, 4))) expect(Number.isFinite(x.ucb)).toBe(true);
      }
      const d = p.select(Float64Array.of(1, 0, 0, 0));
      const snap = JSON.stringify(p.toJSON());
      let code: string | undefined;
      try {
        p.update(d, { reward: 1e300 });
      } catch (e) {
        code = (e as { code: string }).code;
      }
      expect(code).toBe(ErrorCode.OutOfRange);
      expect(JSON.stringify(p.toJSON())).toBe(snap);
      const raw = make(["a", "b"], 4, 2, { normalizeContext: false });
      expect(() => raw.select(Float64Array.of(1e150, 0, 0, 0))).toThrow(/squared norm/);
    });

    it(`${name}: corrupted pending decisions and arm entries are rejected with SNAPSHOT_CORRUPT`, () => {
      const p = make(["a", "b"], 4, 3);
      for (let t = 0; t < 6; t++) p.update(p.select(Float64Array.of(1, t, 0, 1)), { reward: 0.2 });
      p.select(Float64Array.of(0, 1, 0, 0));
      const s = p.toJSON() as unknown as {
        state: { ledger: { entries: [number, Record<string, unknown>][] }; arms: unknown[] };
      };
      const bad1 = JSON.parse(JSON.stringify(s));
      bad1.state.ledger.entries[0][1].uid = -1;
      const bad2 = JSON.parse(JSON.stringify(s));
      bad2.state.arms[0] = null;
      const bad3 = JSON.parse(JSON.stringify(s));
      bad3.state.ledger.entries[0][1].x = "AAAAAAAAAAA=";
      for (const bad of [bad1, bad2, bad3]) {
        let code: string | undefined;
        try {
          if (p instanceof PakUcb) PakUcb.fromJSON(bad);
          else if (p instanceof RffUcb) RffUcb.fromJSON(bad);
          else KernelUcb.fromJSON(bad);
        } catch (e) {
          code = (e as { code: string }).code;
        }
        expect(code).toBe(ErrorCode.SnapshotCorrupt);
      }
    });
  }
});

describe("the counter option (audit-kmnl)", () => {
  describe.each(family)("$name", (m) => {
    it("a counter whose ops is not a writable number is INVALID_ARGUMENT at construction (NaN: NON_FINITE)", () => {
      // Before: { ops: "x" } was accepted (ops became "x2112..." by concatenation) and a frozen counter made
      // select throw an untyped TypeError. A NaN ops follows the core rule (NON_FINITE, test/outside-audit-3.test.ts).
      for (const counter of [
        { ops: "x" },
        {},
        Object.freeze({ ops: 0 }),
        Object.defineProperty({}, "ops", { get: () => 0 }),
        null,
        5,
      ]) {
        let err: unknown;
        try {
          m.make({ arms: ["a", "b"], counter });
        } catch (e) {
          err = e;
        }
        expect(isRouteKitError(err, ErrorCode.InvalidArgument), `${JSON.stringify(counter)}: ${String(err)}`).toBe(
          true,
        );
      }
    });

    it("a counter counts (the Sup- variants' stage regressions too) and changes no decision", () => {
      // Before: SupPakUcb and SupRffUcb accepted the option and never counted.
      const c = { ops: 0 };
      const counted = m.make({ arms: ["a", "b"], counter: c, seed: 4 });
      const plain = m.make({ arms: ["a", "b"], seed: 4 });
      const ctx = unitVectors(seeded(5), 40, 3);
      for (const y of ctx) {
        const d = counted.select(y);
        expect(plain.select(y)).toEqual(d);
        counted.update(d, { reward: 0.5 });
        plain.update(d, { reward: 0.5 });
      }
      expect(c.ops).toBeGreaterThan(0);
      expect(JSON.stringify(counted.toJSON())).toBe(JSON.stringify(plain.toJSON()));
    });
  });
});
