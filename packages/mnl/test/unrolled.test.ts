import { Rng } from "@routekit/core";
import { choleskyInverseUpper, choleskySolve, softmax } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import { firstOversizedRow, oversizedRowIndex } from "../src/base.js";
import { ChoiceHistory, dataPass, gradientPass, hessianPass, MleWorkspace } from "../src/mle.js";
import {
  addMnlHessianToCholesky,
  addMnlHessianToCholeskyGeneric,
  checkedOptimisticUtilities,
  invertCholeskyUpper,
  mnlGradient,
  mnlProbabilities,
  mnlProbabilitiesAndGradient,
  mnlUtilities,
  optimisticUtilities,
  optimisticUtilitiesGeneric,
  refactorMnlHessian,
  refactorMnlHessianGeneric,
  solveCholesky,
} from "../src/model.js";
import { copyRowsKernel, MAX_UNROLLED_D, PASS_SCRATCH_ROWS, shiftedExps } from "../src/unrolled.generated.js";

/** Features with some exact zeros and negative zeros, so the sign of zero is exercised too. */
function features(rng: Rng, len: number, scale: number): Float64Array {
  return Float64Array.from({ length: len }, () => {
    const u = rng.uniform();
    return u < 0.05 ? -0 : u < 0.1 ? 0 : rng.normal(0, scale);
  });
}

const sameBits = (a: Float64Array, b: Float64Array) => a.every((v, i) => Object.is(v, b[i]));

describe("unrolled kernels give the generic loops' bits", () => {
  it("optimistic utilities, every unrolled d and one above", () => {
    const rng = Rng.fromSeed(5);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (const scale of [0.3, 1e-3, 1e40]) {
        const n = 37;
        const f = features(rng, n * d, scale);
        const w = features(rng, d, 1);
        const M = Float64Array.from({ length: d * d }, (_, i) =>
          i % d === Math.floor(i / d) ? 1 + rng.uniform() : rng.normal(0, 0.3),
        );
        for (const c of [0, 0.7, 250]) {
          const a = new Float64Array(n);
          const b = new Float64Array(n);
          optimisticUtilities(f, n, d, w, M, c, a);
          optimisticUtilitiesGeneric(f, n, d, w, M, c, b);
          expect(sameBits(a, b), `d=${d} scale=${scale} c=${c}`).toBe(true);
        }
      }
    }
  });

  it("the data gradient pass on ragged rounds with outside choices", () => {
    const rng = Rng.fromSeed(6);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      const K = 6;
      const h = new ChoiceHistory(d);
      for (let s = 0; s < 150; s++) {
        const n = 1 + rng.int(K);
        h.stage(features(rng, n * d, 0.8), n, rng.int(n + 1) - 1);
        h.commit();
      }
      const ws = new MleWorkspace(d, K);
      for (const v0 of [1, 0.3]) {
        const theta = features(rng, d, 2);
        const a = features(rng, d, 1);
        const b = a.slice();
        gradientPass(h, 3, h.rounds, v0, theta, ws, a);
        dataPass(h, 3, h.rounds, v0, theta, ws, b, new Float64Array(d * d), 1);
        expect(sameBits(a, b), `d=${d} v0=${v0}`).toBe(true);
      }
    }
  });

  it("the data gradient and Hessian pass on ragged rounds with outside choices", () => {
    const rng = Rng.fromSeed(7);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      const K = 6;
      const h = new ChoiceHistory(d);
      for (let s = 0; s < 150; s++) {
        const n = 1 + rng.int(K);
        h.stage(features(rng, n * d, 0.8), n, rng.int(n + 1) - 1);
        h.commit();
      }
      const ws = new MleWorkspace(d, K);
      for (const v0 of [1, 0.3]) {
        const theta = features(rng, d, 2);
        const ga = features(rng, d, 1);
        const gb = ga.slice();
        // Upper triangle nonzero (accumulated onto), lower triangle zero (never written).
        const Ha = Float64Array.from({ length: d * d }, (_, i) => (i % d >= Math.floor(i / d) ? rng.normal() : 0));
        const Hb = Ha.slice();
        hessianPass(h, 3, h.rounds, v0, theta, ws, ga, Ha);
        dataPass(h, 3, h.rounds, v0, theta, ws, gb, Hb, 2);
        expect(sameBits(ga, gb), `g d=${d} v0=${v0}`).toBe(true);
        expect(sameBits(Ha, Hb), `H d=${d} v0=${v0}`).toBe(true);
      }
    }
  });
});

/** The double `ulps` steps away from x (same sign, |x| larger for ulps > 0), x finite and nonzero. */
function ulpStep(x: number, ulps: number): number {
  const b = new BigInt64Array(Float64Array.of(x).buffer);
  b[0] = (b[0] as bigint) + BigInt(ulps);
  return new Float64Array(b.buffer)[0] as number;
}

/**
 * Arguments where the inlined exp changes branch or scaling: 0 and -0, |v| around 2^-28 (below it
 * Math.exp returns 1 + v), around 0.5 ln2 and fdlibm's reduction threshold just above it, around
 * 1.5 ln2, around (j + 1/2) ln2 (where k steps), around -707 (the fast path's end), in the
 * subnormal range, past underflow, and positive or NaN (left to Math.exp).
 */
function expEdgeValues(): number[] {
  const centres = [
    -(2 ** -28),
    -(2 ** -30),
    -0.3465735902799726,
    -0.3465735912322998,
    -1.0397207708399179,
    -1.0397186279296875,
    -707,
    -708.4,
    -720,
    -745.1332191019411,
  ];
  for (let j = 1; j < 1022; j += 37) centres.push(-(j + 0.5) * Math.LN2);
  const out = [0, -0, 1e-300, 0.5, 3, 800, Number.NaN, Number.NEGATIVE_INFINITY, -800, -1e300];
  for (const c of centres) for (let u = -3; u <= 3; u++) out.push(ulpStep(c, u));
  return out;
}

describe("the passes' inlined exp", () => {
  it("gives Math.exp's bits: random arguments, and every edge in each position of an unrolled triple", () => {
    const rng = Rng.fromSeed(10);
    const rand = Float64Array.from({ length: 200_000 }, (_, i) =>
      i % 4 === 0 ? -50 * rng.uniform() : i % 4 === 1 ? -3 * rng.uniform() : -745 * rng.uniform() * rng.uniform(),
    );
    const edges = expEdgeValues();
    const cases: Float64Array[] = [rand];
    // Each edge at each offset of a run of 1-7 arguments, the others ordinary.
    for (const e of edges)
      for (let n = 1; n <= 7; n++)
        for (let at = 0; at < n; at++) {
          const z = Float64Array.from({ length: n }, () => -2 * rng.uniform());
          z[at] = e;
          cases.push(z);
        }
    for (const z of cases) {
      for (const m of [0, -0.75]) {
        const a = z.slice();
        shiftedExps(a, a.length, m);
        const b = z.map((v) => Math.exp(v - m));
        expect(sameBits(a, b), `z=${Array.from(z.slice(0, 7))} m=${m}`).toBe(true);
      }
    }
  });

  it("the passes give the generic loop's bits at exp edges and on rounds above the scratch size", () => {
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      const rng = Rng.fromSeed(11 + d);
      const edges = expEdgeValues().filter((v) => Number.isFinite(v) && v <= 0);
      const K = PASS_SCRATCH_ROWS + 9;
      const h = new ChoiceHistory(d);
      // Rows (v, 0, ..., 0) with theta = (1, ...): utilities v exactly; rounds of 1 to K rows.
      for (let s = 0; s < 60; s++) {
        const n = s % 5 === 4 ? K - rng.int(3) : 1 + rng.int(9);
        const X = new Float64Array(n * d);
        for (let i = 0; i < n; i++) X[i * d] = i === 0 ? 0 : (edges[rng.int(edges.length)] as number);
        h.stage(X, n, rng.int(n + 1) - 1);
        h.commit();
      }
      const theta = Float64Array.from({ length: d }, (_, k) => (k === 0 ? 1 : rng.normal()));
      for (const maxSize of [K, PASS_SCRATCH_ROWS + 200]) {
        const ws = new MleWorkspace(d, maxSize);
        const ga = new Float64Array(d);
        const gb = new Float64Array(d);
        gradientPass(h, 0, h.rounds, 1, theta, ws, ga);
        dataPass(h, 0, h.rounds, 1, theta, ws, gb, new Float64Array(d * d), 1);
        expect(sameBits(ga, gb), `gradient d=${d}`).toBe(true);
        const Ha = new Float64Array(d * d);
        const Hb = new Float64Array(d * d);
        ga.fill(0);
        gb.fill(0);
        hessianPass(h, 0, h.rounds, 1, theta, ws, ga, Ha);
        dataPass(h, 0, h.rounds, 1, theta, ws, gb, Hb, 2);
        expect(sameBits(ga, gb) && sameBits(Ha, Hb), `Hessian d=${d}`).toBe(true);
      }
    }
  });
});

describe("unrolled Hessian-to-Cholesky kernel", () => {
  it("gives the generic rank-1 updates' bits, including zero probabilities and an unchosen outside option", () => {
    const rng = Rng.fromSeed(7);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (const scale of [1, 2.5]) {
        const n = 1 + rng.int(9);
        const X = features(rng, n * d, 0.7);
        const p = Float64Array.from({ length: n + 1 }, () => (rng.uniform() < 0.15 ? 0 : rng.uniform()));
        const L0 = new Float64Array(d * d);
        for (let i = 0; i < d; i++) {
          L0[i * d + i] = 1 + rng.uniform();
          for (let j = 0; j < i; j++) L0[i * d + j] = rng.normal(0, 0.5);
        }
        const a = L0.slice();
        const b = L0.slice();
        const xa = new Float64Array(d);
        const xb = new Float64Array(d);
        addMnlHessianToCholesky(a, X, n, d, p, scale, xa, new Float64Array(d));
        addMnlHessianToCholeskyGeneric(b, X, n, d, p, scale, xb, new Float64Array(d));
        expect(sameBits(a, b), `d=${d} scale=${scale}`).toBe(true);
        expect(sameBits(xa, xb), `xbar d=${d}`).toBe(true);
        // From a separate source factor: the same bits in the output, the source untouched.
        const src = L0.slice();
        const c = new Float64Array(d * d);
        addMnlHessianToCholesky(c, X, n, d, p, scale, new Float64Array(d), new Float64Array(d), src);
        expect(sameBits(c, b), `src d=${d} scale=${scale}`).toBe(true);
        expect(sameBits(src, L0), `src unchanged d=${d}`).toBe(true);
      }
    }
  });
});

describe("unrolled Hessian refactor kernel", () => {
  it("gives the generic loops' bits, and falls back to the rank-1 updates on a non-positive pivot", () => {
    const rng = Rng.fromSeed(8);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (const [scale, diag] of [
        [1, 1],
        [2.5, 1e3],
        [0, 1e-200],
      ] as const) {
        const n = 1 + rng.int(9);
        const X = features(rng, n * d, 0.7);
        const p = Float64Array.from({ length: n + 1 }, () => (rng.uniform() < 0.15 ? 0 : rng.uniform()));
        const src = new Float64Array(d * d);
        for (let i = 0; i < d; i++) {
          src[i * d + i] = diag * (1 + rng.uniform());
          for (let j = 0; j < i; j++) src[i * d + j] = diag * rng.normal(0, 0.5);
        }
        const a = new Float64Array(d * d);
        const b = new Float64Array(d * d);
        const xa = new Float64Array(d);
        const xb = new Float64Array(d);
        const ok = refactorMnlHessianGeneric(
          b,
          X,
          n,
          d,
          p,
          scale,
          xb,
          new Float64Array(d),
          src,
          new Float64Array(d * d),
        );
        refactorMnlHessian(a, X, n, d, p, scale, xa, new Float64Array(d), src, new Float64Array(d * d));
        expect(sameBits(xa, xb), `xbar d=${d}`).toBe(true);
        // A tiny factor with nothing added (its squares underflow to 0) must take the rank-1 fallback.
        expect(ok, `ok d=${d} diag=${diag}`).toBe(diag !== 1e-200);
        if (!ok) {
          b.set(src);
          addMnlHessianToCholeskyGeneric(b, X, n, d, p, scale, xb, new Float64Array(d));
        }
        expect(sameBits(a, b), `d=${d} scale=${scale} diag=${diag}`).toBe(true);
      }
    }
  });
});

describe("unrolled row copy", () => {
  it("copies the chosen rows in order with -0 stored as 0, as the generic loop", () => {
    const rng = Rng.fromSeed(9);
    for (let d = 1; d <= MAX_UNROLLED_D; d++) {
      const n = 20;
      const f = features(rng, n * d, 1);
      const items = Int32Array.from([7, 0, 19, 3, 3 + rng.int(10)]);
      const X = new Float64Array(items.length * d).fill(Number.NaN);
      copyRowsKernel(d)?.(f, items, items.length, X);
      const expected = Float64Array.from(
        { length: items.length * d },
        (_, i) => f[items[Math.floor(i / d)]! * d + (i % d)]! + 0,
      );
      expect(sameBits(X, expected), `d=${d}`).toBe(true);
      expect(X.some((v) => Object.is(v, -0))).toBe(false);
    }
    expect(copyRowsKernel(MAX_UNROLLED_D + 1)).toBeUndefined();
  });
});

describe("unrolled Cholesky solve and inverse", () => {
  it("give linalg's bits for every unrolled d and one above", () => {
    const rng = Rng.fromSeed(8);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (let rep = 0; rep < 5; rep++) {
        const L = new Float64Array(d * d);
        for (let i = 0; i < d; i++) {
          L[i * d + i] = 0.5 + 3 * rng.uniform();
          for (let j = 0; j < i; j++) L[i * d + j] = rng.uniform() < 0.1 ? -0 : rng.normal(0, 2);
        }
        const b = features(rng, d, 1);
        const a1 = new Float64Array(d);
        const a2 = new Float64Array(d);
        solveCholesky(L, d, b, a1);
        choleskySolve(L, d, b, a2);
        expect(sameBits(a1, a2), `solve d=${d}`).toBe(true);
        const inPlace = b.slice();
        solveCholesky(L, d, inPlace, inPlace);
        expect(sameBits(inPlace, a2), `in-place solve d=${d}`).toBe(true);
        const i1 = new Float64Array(d * d);
        const i2 = new Float64Array(d * d);
        invertCholeskyUpper(L, d, i1, new Float64Array(d));
        choleskyInverseUpper(L, d, i2, new Float64Array(d));
        expect(sameBits(i1, i2), `inverse d=${d}`).toBe(true);
      }
    }
  });
});

describe("unrolled feature-norm check", () => {
  it("finds the first row above the norm bound (or NaN) as the generic loop does", () => {
    const rng = Rng.fromSeed(9);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (const bad of [-1, 0, 7, 19]) {
        const X = features(rng, 20 * d, 1);
        if (bad >= 0) X[bad * d + rng.int(d)] = rng.uniform() < 0.5 ? Number.NaN : 2e50;
        expect(oversizedRowIndex(X, 20, d), `d=${d} bad=${bad}`).toBe(bad);
        expect(firstOversizedRow(X, 20, d).index).toBe(bad);
      }
    }
  });
});

describe("MNL utilities through the unrolled kernel", () => {
  it("match the per-row loop bit for bit", () => {
    const rng = Rng.fromSeed(10);
    for (let d = 1; d <= MAX_UNROLLED_D; d++) {
      const n = 11;
      const X = features(rng, n * d, 1);
      const w = features(rng, d, 1);
      const z = new Float64Array(n + 1);
      mnlUtilities(X, n, d, w, 0.5, z);
      const ref = new Float64Array(n + 1);
      // the same rows at an offset (xo > 0) take the generic loop
      const padded = new Float64Array(d + n * d);
      padded.set(X, d);
      mnlUtilities(padded, n, d, w, 0.5, ref, d);
      expect(sameBits(z, ref), `d=${d}`).toBe(true);
    }
  });
});

describe("utilities fused with the norm check", () => {
  it("return the generic loops' bits, or the first bad row as the norm check finds it", () => {
    const rng = Rng.fromSeed(12);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (const bad of [-1, 0, 5, 12]) {
        const n = 13;
        const f = features(rng, n * d, 0.5);
        if (bad >= 0) f[bad * d + rng.int(d)] = rng.uniform() < 0.5 ? Number.NaN : -3e50;
        const w = features(rng, d, 1);
        const M = Float64Array.from({ length: d * d }, () => rng.normal(0, 0.3));
        for (let i = 0; i < d; i++) M[i * d + i] = 2;
        for (const c of [0, 1.5]) {
          const a = new Float64Array(n);
          const b = new Float64Array(n);
          const T = rng.normal(0, 0.5);
          const cand = new Int32Array(n);
          const stats = new Float64Array(3);
          expect(checkedOptimisticUtilities(f, n, d, w, M, c, a, 1e100, T, cand, stats), `d=${d} bad=${bad}`).toBe(bad);
          expect(oversizedRowIndex(f, n, d)).toBe(bad);
          if (bad < 0) {
            optimisticUtilitiesGeneric(f, n, d, w, M, c, b);
            expect(sameBits(a, b), `d=${d} c=${c}`).toBe(true);
            // The top-K's threshold path: the items above T in order, and the sums of the utilities.
            const above = [...b.keys()].filter((i) => b[i]! > T);
            expect(stats[2]).toBe(above.length);
            expect(Array.from(cand.subarray(0, above.length))).toEqual(above);
            let s1 = 0;
            let s2 = 0;
            for (const u of b) {
              s1 += u;
              s2 += u * u;
            }
            expect([stats[0], stats[1]]).toEqual([s1, s2]);
          }
        }
      }
    }
  });
});

describe("fused MNL probabilities and gradient", () => {
  it("give mnlProbabilities + mnlGradient's bits, including NaN and infinite utilities", () => {
    const rng = Rng.fromSeed(13);
    for (let d = 1; d <= MAX_UNROLLED_D + 1; d++) {
      for (const edge of ["none", "nan", "inf", "-inf"]) {
        const n = 1 + rng.int(9);
        const X = features(rng, n * d, 0.8);
        const w = features(rng, d, 1);
        if (edge === "nan") X[rng.int(n * d)] = Number.NaN;
        if (edge === "inf") w[0] = Number.POSITIVE_INFINITY;
        if (edge === "-inf") w[0] = Number.NEGATIVE_INFINITY;
        for (const choice of [-1, 0, n - 1]) {
          const [z1, p1, g1] = [new Float64Array(n + 1), new Float64Array(n + 1), new Float64Array(d)];
          const [z2, p2, g2] = [new Float64Array(n + 1), new Float64Array(n + 1), new Float64Array(d)];
          mnlProbabilitiesAndGradient(X, n, d, w, 0.7, choice, z1, p1, g1);
          // The reference: utilities (per-row loop, tested above) then linalg's softmax, then the gradient.
          mnlUtilities(X, n, d, w, 0.7, z2);
          softmax(z2, p2, n + 1);
          mnlGradient(X, n, d, p2, choice, g2);
          const tag = `d=${d} edge=${edge} choice=${choice}`;
          expect(sameBits(z1, z2), tag).toBe(true);
          expect(sameBits(p1, p2), tag).toBe(true);
          expect(sameBits(g1, g2), tag).toBe(true);
          // The probabilities alone (their own kernel for d <= 8).
          const [z3, p3] = [new Float64Array(n + 1), new Float64Array(n + 1)];
          mnlProbabilities(X, n, d, w, 0.7, z3, p3);
          expect(sameBits(z3, z2), tag).toBe(true);
          expect(sameBits(p3, p2), tag).toBe(true);
        }
      }
    }
  });
});
