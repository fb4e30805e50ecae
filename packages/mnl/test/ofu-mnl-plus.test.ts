import { Rng } from "@routekit/core";
import { allocF64, choleskyInverseUpper, invertSPD } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, ofuMnlBeta, ofuMnlHyperparameters, TsMnl, UcbMnl } from "../src/index.js";
import { checkedFactorUtilities, factorUtilities, optimisticUtilitiesGeneric } from "../src/model.js";
import { naiveMnl, randomQuery, sampleChoice, solveDense } from "./helpers.js";

const rowsOf = (f: Float64Array, items: readonly number[], d: number) =>
  items.map((i) => Array.from(f.subarray(i * d, (i + 1) * d)));

describe("OFU-MNL+ update (Algorithm 1, steps 6-9)", () => {
  it("OMD step solves H~(w' - w) + eta g = 0 (Lemma F.1 form) and H_2 = lambda I + G_1(w_2)", () => {
    const d = 3;
    const p = new OfuMnlPlus({ contextDim: d, maxSize: 3, preset: "paper", projection: "none" });
    const { stepSize: eta, ridge: lambda } = p.config;
    const rng = Rng.fromSeed(4);
    const q = randomQuery(rng, 8, d, 3);
    const dec = p.select(q);
    p.update(dec, { choice: dec.items[1]! });
    const X = rowsOf(q.features as Float64Array, dec.items, d);
    const { g, G } = naiveMnl(X, [0, 0, 0], 1, 1);
    const Ht = G.map((row, a) => row.map((v, b) => (a === b ? lambda : 0) + eta * v));
    const step = solveDense(Ht, g);
    const w2 = p.weights;
    for (let k = 0; k < d; k++) expect(w2[k]).toBeCloseTo(-eta * step[k]!, 13);
    // argmin l~(w) + (1/2eta)||w - w1||^2_{H1}: (G + H/eta) dw = -g gives the same point
    const lemma = solveDense(
      G.map((row, a) => row.map((v, b) => v + (a === b ? lambda / eta : 0))),
      g.map((v) => -v),
    );
    for (let k = 0; k < d; k++) expect(w2[k]).toBeCloseTo(lemma[k]!, 13);
    const G2 = naiveMnl(X, Array.from(w2), 1, 1).G;
    const H2 = p.gram();
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++) {
        expect(H2[a * d + b]).toBeCloseTo((a === b ? lambda : 0) + G2[a]![b]!, 10);
        expect(H2[a * d + b]).toBe(H2[b * d + a]);
      }
  });

  it("with an active projection equals the direct minimiser of <g,w> + ||w - w_t||^2_{H~}/(2 eta) over the ball", () => {
    const d = 3;
    // Tiny lambda and a big step make the unconstrained OMD point leave the unit ball.
    const p = new OfuMnlPlus({ contextDim: d, maxSize: 2, ridge: 0.05, stepSize: 4, betaMode: "constant", beta: 0 });
    const rng = Rng.fromSeed(8);
    const q = randomQuery(rng, 5, d, 2);
    const dec = p.select(q);
    p.update(dec, { choice: null });
    const X = rowsOf(q.features as Float64Array, dec.items, d);
    const { g, G } = naiveMnl(X, [0, 0, 0], 1, -1);
    const A = G.map((row, a) => row.map((v, b) => (a === b ? 0.05 : 0) + 4 * v));
    const unconstrained = solveDense(A, g).map((v) => -4 * v);
    expect(Math.hypot(...unconstrained)).toBeGreaterThan(1.5);
    // projected gradient descent on f(w) = <g,w> + (1/8) w^T A w (w_t = 0)
    let w = [0, 0, 0];
    const Lc = Math.max(...A.map((r) => r.reduce((s, v) => s + Math.abs(v), 0))) / 4;
    for (let it = 0; it < 200_000; it++) {
      const grad = w.map((_, a) => g[a]! + A[a]!.reduce((s, v, b) => s + v * w[b]!, 0) / 4);
      w = w.map((v, a) => v - grad[a]! / Lc);
      const n = Math.hypot(...w);
      if (n > 1) w = w.map((v) => v / n);
    }
    const got = p.weights;
    expect(Math.hypot(...got)).toBeCloseTo(1, 10);
    for (let k = 0; k < d; k++) expect(got[k]).toBeCloseTo(w[k]!, 6);
  });

  it("matches a hand-computed trace of the reference code's semantics (d = 2, N = 4, K = 2, T = 5)", () => {
    const d = 2;
    const K = 2;
    const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset: "authors-uniform" });
    const { eta, lambda } = ofuMnlHyperparameters(d, K);
    const beta = ofuMnlBeta(1, { d, K, eta, lambda, delta: 1 });
    expect(p.beta).toBe(beta);
    let w = [0, 0];
    let H = [
      [lambda, 0],
      [0, lambda],
    ];
    const rng = Rng.fromSeed(99);
    const wStar = [0.5, -0.3];
    for (let t = 0; t < 5; t++) {
      const q = randomQuery(rng, 4, d, K);
      const f = q.features as Float64Array;
      // reference: alpha_i = x.w + beta sqrt(x^T H^-1 x), top-K
      const alpha = [0, 1, 2, 3].map((i) => {
        const x = [f[2 * i]!, f[2 * i + 1]!];
        const hx = solveDense(H, x);
        return x[0]! * w[0]! + x[1]! * w[1]! + beta * Math.sqrt(x[0]! * hx[0]! + x[1]! * hx[1]!);
      });
      const expected = [0, 1, 2, 3].sort((a, b) => alpha[b]! - alpha[a]! || a - b).slice(0, K);
      const dec = p.select(q);
      expect(dec.items).toEqual(expected);
      const choice = sampleChoice(rng, q, d, wStar, dec.items);
      p.update(dec, { choice });
      const X = rowsOf(f, dec.items, d);
      const ci = choice === null ? -1 : dec.items.indexOf(choice);
      const { g, G } = naiveMnl(X, w, 1, ci);
      // M = H/(2 eta) + G/2 and w <- w - M^-1 g (no projection)
      const M = H.map((row, a) => row.map((v, b) => v / (2 * eta) + G[a]![b]! / 2));
      const s = solveDense(M, g);
      w = w.map((v, k) => v - s[k]!);
      const Gn = naiveMnl(X, w, 1, ci).G;
      H = H.map((row, a) => row.map((v, b) => v + Gn[a]![b]!));
      const got = p.weights;
      const Hg = p.gram();
      for (let k = 0; k < d; k++) expect(got[k]).toBeCloseTo(w[k]!, 12);
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) expect(Hg[a * d + b]).toBeCloseTo(H[a]![b]!, 9);
    }
  });
});

describe("OFU-MNL+ state handling", () => {
  it("an empty assortment (all revenues 0) leaves the estimate and H unchanged", () => {
    const p = new OfuMnlPlus({ contextDim: 3, maxSize: 2 });
    const rng = Rng.fromSeed(1);
    const q0 = randomQuery(rng, 6, 3, 2);
    const d0 = p.select(q0);
    p.update(d0, { choice: d0.items[0]! });
    const before = p.toJSON().state as Record<string, unknown>;
    const q = { ...randomQuery(rng, 6, 3, 2), revenues: new Float64Array(6) };
    const dec = p.select(q);
    expect(dec.items).toEqual([]);
    expect(() => p.update(dec, { choice: 0 })).toThrow(expect.objectContaining({ code: "INVALID_CHOICE" }));
    p.update(dec, { choice: null });
    const after = p.toJSON().state as Record<string, unknown>;
    expect(after.w).toBe(before.w);
    expect(after.L).toBe(before.L);
    expect(after.updates).toBe(before.updates);
  });

  it("past d = 8 too (H^-1 from the factor by the triangular inverse): restore, then continue, gives the same bits", () => {
    // H^-1 is not in the snapshot: the restored policy rebuilds it from L, so it must be a function of L alone.
    const d = 20;
    const rng = Rng.fromSeed(21);
    const wStar = Array.from({ length: d }, () => rng.uniformIn(-0.2, 0.2));
    const play = (p: OfuMnlPlus, r: Rng, n: number): number[][] => {
      const offered: number[][] = [];
      for (let t = 0; t < n; t++) {
        const q = randomQuery(r, 12, d, 3, t % 3 === 0);
        const dec = p.select(q);
        offered.push([...dec.items]);
        p.update(dec, { choice: sampleChoice(r, q, d, wStar, dec.items) });
      }
      return offered;
    };
    for (const preset of ["paper", "authors-uniform"] as const) {
      const a = new OfuMnlPlus({ contextDim: d, maxSize: 3, preset });
      play(a, rng, 25);
      const b = OfuMnlPlus.fromJSON(JSON.parse(JSON.stringify(a.toJSON())));
      const ra = Rng.fromSeed(60);
      const rb = Rng.fromSeed(60);
      expect(play(b, rb, 25)).toEqual(play(a, ra, 25));
      expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
    }
  });

  it("snapshot/restore continues bit-exactly, including a pending decision; state size is constant in t", () => {
    const rng = Rng.fromSeed(2);
    const wStar = [0.3, -0.2, 0.1, 0.4];
    const a = new OfuMnlPlus({ contextDim: 4, maxSize: 3, preset: "paper" });
    const play = (p: OfuMnlPlus, r: Rng, n: number, rev = false) => {
      for (let t = 0; t < n; t++) {
        const q = randomQuery(r, 20, 4, 3, rev && t % 2 === 0);
        const dec = p.select(q);
        p.update(dec, { choice: sampleChoice(r, q, 4, wStar, dec.items) });
      }
    };
    play(a, rng, 30, true);
    const size30 = JSON.stringify(a.toJSON()).length;
    const qPending = randomQuery(rng, 20, 4, 3);
    const pending = a.select(qPending);
    const snap = JSON.parse(JSON.stringify(a.toJSON()));
    const b = OfuMnlPlus.fromJSON(snap);
    expect(b.pendingDecisions).toBe(1);
    a.update(pending, { choice: pending.items[2]! });
    b.update(pending.id, { choice: pending.items[2]! });
    const ra = Rng.fromSeed(50);
    const rb = Rng.fromSeed(50);
    play(a, ra, 40, true);
    play(b, rb, 40, true);
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
    play(a, ra, 300);
    expect(Math.abs(JSON.stringify(a.toJSON()).length - size30)).toBeLessThan(64);
    expect(() => OfuMnlPlus.fromJSON({ ...snap, kind: "mnl/ucb-mnl" })).toThrow(
      expect.objectContaining({ code: "SNAPSHOT_KIND" }),
    );
  });

  it("rejects bad input with typed errors and leaves the snapshot identical", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 2 });
    const rng = Rng.fromSeed(3);
    const q = randomQuery(rng, 4, 2, 2);
    const dec = p.select(q);
    const before = JSON.stringify(p.toJSON());
    const bad: [() => unknown, string][] = [
      [() => p.select({ ...q, features: new Float64Array(7) }), "DIMENSION_MISMATCH"],
      [() => p.select({ ...q, features: Float64Array.of(1, 2, 3, Number.NaN, 0, 0, 0, 0) }), "NON_FINITE"],
      [() => p.select({ ...q, revenues: Float64Array.of(0.5, 1.5, 0, 0) }), "OUT_OF_RANGE"],
      [() => p.select({ ...q, revenues: Float64Array.of(0.5, -0.1, 0, 0) }), "OUT_OF_RANGE"],
      [() => p.select({ ...q, maxSize: 0 }), "EMPTY_ASSORTMENT"],
      [() => p.select({ ...q, maxSize: 3 }), "OUT_OF_RANGE"],
      [() => p.select({ ...q, numItems: 0, features: new Float64Array(0) }), "EMPTY_ASSORTMENT"],
      [() => p.update(dec, { choice: 99 }), "INVALID_CHOICE"],
      [() => p.update(dec, { choice: undefined as unknown as null }), "INVALID_CHOICE"],
      [() => p.update(dec, { choice: "0" as unknown as null }), "INVALID_CHOICE"],
      [() => p.update(dec, { choice: Object.create(null) as null }), "INVALID_CHOICE"],
      [
        () =>
          p.update(dec, {
            choice: {
              toString: () => {
                throw new Error("user code");
              },
            } as unknown as null,
          }),
        "INVALID_CHOICE",
      ],
      [() => p.update("d42", { choice: null }), "UNKNOWN_DECISION"],
      [() => p.update("x", { choice: null }), "UNKNOWN_DECISION"],
    ];
    for (const [f, code] of bad) {
      expect(f).toThrow(expect.objectContaining({ code }));
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
    p.update(dec, { choice: null });
    expect(() => p.update(dec, { choice: null })).toThrow(expect.objectContaining({ code: "DECISION_ALREADY_USED" }));
    expect(() => new OfuMnlPlus({ contextDim: 2, maxSize: 0 })).toThrow(
      expect.objectContaining({ code: "OUT_OF_RANGE" }),
    );
    expect(() => new OfuMnlPlus({ contextDim: 2, maxSize: 2, v0: -1 })).toThrow();
    expect(() => new OfuMnlPlus({ contextDim: 2, maxSize: 2, preset: "nope" as "paper" })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });

  it("plain-array features must hold numbers: a string, null or a prototype-less object is INVALID_ARGUMENT", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 2 });
    const before = JSON.stringify(p.toJSON());
    for (const bad of ["0.1", null, true, Object.create(null)]) {
      const features = [bad, 0.1, 0.2, 0.1, 0, 0.3] as unknown as number[];
      expect(() => p.select({ features: features as unknown as Float64Array, numItems: 3, maxSize: 2 })).toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENT", details: { index: 0 } }),
      );
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
  });

  it("reads each query field once: a getter cannot pass validation with one value and be used with another", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 2 });
    let reads = 0;
    const query = {
      features: new Float64Array(6).fill(0.1),
      maxSize: 2,
      get numItems() {
        reads++;
        return reads === 1 ? 3 : 300;
      },
    };
    const d = p.select(query);
    expect(reads).toBe(1);
    expect(d.items.every((i) => i < 3)).toBe(true);
    const throwing = Object.defineProperty({ features: new Float64Array(6), numItems: 3 }, "maxSize", {
      get() {
        throw new Error("user getter");
      },
    });
    const before = JSON.stringify(p.toJSON());
    expect(() => p.select(throwing as never)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });

  it("names the rejected choice without calling user code: a string is quoted, an object described by its type", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 2 });
    const dec = p.select(randomQuery(Rng.fromSeed(3), 4, 2, 2));
    expect(() => p.update(dec, { choice: "0" as unknown as null })).toThrow(/choice "0" is not one of the offered/);
    expect(() => p.update(dec, { choice: [0] as unknown as null })).toThrow(/choice an array is not/);
    expect(() => p.update(dec, { choice: 7 })).toThrow(/choice 7 is not one of the offered items \[/);
  });

  it("offers exactly min(K, N) items under uniform revenues, fewer allowed otherwise; plain arrays accepted", () => {
    const p = new OfuMnlPlus({ contextDim: 2, maxSize: 5, preset: "practical" });
    const rng = Rng.fromSeed(4);
    expect(p.select(randomQuery(rng, 3, 2, 5)).items.length).toBe(3);
    expect(p.select(randomQuery(rng, 9, 2, 4)).items.length).toBe(4);
    const q = randomQuery(rng, 9, 2, 4);
    const arr = p.select({ ...q, features: Array.from(q.features) as unknown as Float64Array });
    expect(arr.items).toEqual(p.select(q).items);
  });
});

describe("OFU-MNL+ past d = 8: utilities from the Cholesky factor (no H^-1)", () => {
  /** A random lower factor with a dominant diagonal (row-major d x d), in plain memory or linalg's. */
  const randomFactor = (rng: Rng, d: number, wasm: boolean): Float64Array => {
    const L = wasm ? allocF64(d * d) : new Float64Array(d * d);
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < i; j++) L[i * d + j] = rng.normal(0, 0.3);
      L[i * d + i] = 0.5 + rng.uniform() * 3;
    }
    return L;
  };

  it("factorUtilities is within 1e-12 of the quadratic form with a fresh H^-1, the same bits on both linalg backends and any batch", () => {
    const rng = Rng.fromSeed(31);
    for (const d of [9, 16, 33, 64]) {
      for (const n of [1, 3, 20, 37]) {
        const L = randomFactor(rng, d, true);
        const Lplain = new Float64Array(L);
        const Hinv = new Float64Array(d * d);
        choleskyInverseUpper(L, d, Hinv, new Float64Array(d));
        const f = Float64Array.from({ length: n * d }, () => rng.normal(0, 0.3));
        const w = Float64Array.from({ length: d }, () => rng.normal(0, 0.3));
        const mean = new Float64Array(n);
        optimisticUtilitiesGeneric(f, n, d, w, Hinv, 0, mean);
        for (const c of [0, 0.7, 250]) {
          const a = new Float64Array(n);
          const b = new Float64Array(n);
          const ref = new Float64Array(n);
          const e = new Float64Array(n);
          factorUtilities(f, n, d, w, L, c, a, allocF64(d * n)); // one batch, WebAssembly addRows
          factorUtilities(f, n, d, w, Lplain, c, b, new Float64Array(d * 3)); // batches of 3, TypeScript
          factorUtilities(f, n, d, w, L, c, e, allocF64(d * 7 + 5)); // batches of 7
          optimisticUtilitiesGeneric(f, n, d, w, Hinv, c, ref);
          expect(
            a.every((v, i) => Object.is(v, b[i]) && Object.is(v, e[i])),
            `d=${d} n=${n} c=${c}`,
          ).toBe(true);
          if (c === 0) expect(a.every((v, i) => Object.is(v, ref[i]))).toBe(true);
          for (let i = 0; i < n; i++) {
            // Relative to the sizes of the two terms: sum |x_k w_k| and the width c ||x||_{H^-1}.
            let meanAbs = 0;
            for (let k = 0; k < d; k++) meanAbs += Math.abs(f[i * d + k]! * w[k]!);
            const width = ref[i]! - mean[i]!;
            expect(Math.abs(a[i]! - ref[i]!)).toBeLessThan(1e-12 * (meanAbs + width));
          }
        }
      }
    }
  });

  it("checkedFactorUtilities: the first bad row, or the utilities and the top-K's threshold path", () => {
    const rng = Rng.fromSeed(32);
    const d = 12;
    const n = 13;
    for (const bad of [-1, 0, 5, 12]) {
      const L = randomFactor(rng, d, true);
      const f = Float64Array.from({ length: n * d }, () => rng.normal(0, 0.3));
      if (bad >= 0) f[bad * d + rng.int(d)] = rng.uniform() < 0.5 ? Number.NaN : -3e50;
      const w = Float64Array.from({ length: d }, () => rng.normal(0, 0.3));
      const util = new Float64Array(n);
      const cand = new Int32Array(n);
      const stats = new Float64Array(3);
      const T = rng.normal(0, 0.5);
      expect(checkedFactorUtilities(f, n, d, w, L, 1.5, util, 1e100, T, cand, stats, allocF64(d * 4))).toBe(bad);
      if (bad < 0) {
        const ref = new Float64Array(n);
        factorUtilities(f, n, d, w, L, 1.5, ref, allocF64(d * n));
        expect(util.every((v, i) => Object.is(v, ref[i]))).toBe(true);
        const above = [...ref.keys()].filter((i) => ref[i]! > T);
        expect(stats[2]).toBe(above.length);
        expect(Array.from(cand.subarray(0, above.length))).toEqual(above);
      }
    }
  });

  it("after 400 updates (d = 24) the utilities are within 1e-9 of a fresh H^-1 from the factor's H, for every query size", () => {
    const d = 24;
    const rng = Rng.fromSeed(33);
    const wStar = Array.from({ length: d }, () => rng.uniformIn(-0.2, 0.2));
    const p = new OfuMnlPlus({ contextDim: d, maxSize: 4, preset: "practical" });
    for (let t = 0; t < 400; t++) {
      const q = randomQuery(rng, 10 + (t % 30), d, 4, t % 5 === 0);
      const dec = p.select(q);
      p.update(dec, { choice: sampleChoice(rng, q, d, wStar, dec.items) });
    }
    const H = p.gram();
    const Hinv = new Float64Array(d * d);
    expect(invertSPD(H, d, Hinv)).toBe(true);
    const w = p.weights;
    for (const N of [1, 7, 50]) {
      const q = randomQuery(rng, N, d, 4);
      const dec = p.select(q);
      const got = (p as unknown as { util: Float64Array }).util;
      const ref = new Float64Array(N);
      optimisticUtilitiesGeneric(q.features as Float64Array, N, d, w, Hinv, p.beta, ref);
      const mean = new Float64Array(N);
      optimisticUtilitiesGeneric(q.features as Float64Array, N, d, w, Hinv, 0, mean);
      for (let i = 0; i < N; i++) {
        const width = ref[i]! - mean[i]!;
        expect(width).toBeGreaterThan(0);
        expect(Math.abs(got[i]! - ref[i]!)).toBeLessThan(1e-9 * (Math.abs(mean[i]!) + width));
      }
      p.discard(dec);
    }
  });
});

describe("an empty assortment's record", () => {
  it("is learned as its update is: nothing changes, also after a JSON round trip; a choice is INVALID_EVENT", () => {
    for (const make of [
      () => new OfuMnlPlus({ contextDim: 3, maxSize: 2 }),
      () => new UcbMnl({ contextDim: 3, maxSize: 2 }),
      () => new TsMnl({ contextDim: 3, maxSize: 2 }),
    ]) {
      const p = make();
      const rng = Rng.fromSeed(2);
      const q0 = randomQuery(rng, 6, 3, 2);
      const d0 = p.select(q0);
      p.update(d0, { choice: d0.items[0]! });
      const dec = p.select({ ...randomQuery(rng, 6, 3, 2), revenues: new Float64Array(6) });
      expect(dec.items).toEqual([]);
      const record = JSON.parse(JSON.stringify(p.decisionRecord(dec)));
      p.discard(dec);
      const before = JSON.stringify(p.toJSON());
      p.learn({ ...record, feedback: { choice: null } });
      expect(JSON.stringify(p.toJSON())).toBe(before);
      expect(() => p.learn({ ...record, feedback: { choice: 0 } })).toThrow(
        expect.objectContaining({ code: "INVALID_EVENT" }),
      );
      const other = make();
      const fresh = JSON.stringify(other.toJSON());
      other.learn({ ...record, feedback: { choice: null } });
      expect(JSON.stringify(other.toJSON())).toBe(fresh);
    }
  });
});
