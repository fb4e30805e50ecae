import { Rng } from "@routekit/core";
import { topKIndices } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import {
  assortmentRevenue,
  bruteForceAssortment,
  crossCheckAssortmentLP,
  DinkelbachWorkspace,
  dinkelbachAssortment,
  optimalAssortment,
  solveAssortmentLP,
  topK,
} from "../src/index.js";

function instance(rng: Rng) {
  const n = 1 + rng.int(10);
  const K = 1 + rng.int(n);
  const v0 = [0.5, 1, 3][rng.int(3)]!;
  const v = Float64Array.from({ length: n }, () => Math.exp(rng.uniformIn(-2, 2)));
  const r = Float64Array.from({ length: n }, () => rng.uniform());
  return { n, K, v0, v, r };
}

describe("top-K (uniform revenues)", () => {
  it("is linalg's topKIndices under its old name (README)", () => {
    const score = Float64Array.of(0.3, 2, -1, 2, 0.5, 7, 0.1, 0.2, 0.4, 1);
    const a = new Int32Array(10);
    const b = new Int32Array(10);
    for (const [k, floor] of [
      [3, -Infinity],
      [4, 0.35],
      [12, -Infinity],
    ] as const) {
      const m = topK(score, 10, k, a, floor);
      expect(m).toBe(topKIndices(score, 10, k, b, floor));
      expect(a).toEqual(b);
    }
  });

  it("equals brute force and breaks ties by index", () => {
    const rng = Rng.fromSeed(1);
    const out = new Int32Array(12);
    for (let t = 0; t < 500; t++) {
      const { n, K, v0, v } = instance(rng);
      const ones = new Float64Array(n).fill(1);
      const m = topK(v, n, K, out);
      expect(m).toBe(Math.min(n, K));
      const got = assortmentRevenue(v, ones, out, m, v0);
      expect(got).toBeCloseTo(bruteForceAssortment(v, ones, n, K, v0).revenue, 12);
    }
    const tied = Float64Array.of(1, 3, 3, 2, 3);
    expect(Array.from(out.subarray(0, topK(tied, 5, 2, out)))).toEqual([1, 2]);
    expect(Array.from(out.subarray(0, topK(tied, 5, 4, out)))).toEqual([1, 2, 4, 3]);
    expect(topK(tied, 5, 3, out, 2.5)).toBe(3);
  });
});

describe("Dinkelbach (exact, non-uniform revenues)", () => {
  it("equals brute force on 3000 random instances (N <= 10, v0 in {0.5, 1, 3}) in few iterations", () => {
    const rng = Rng.fromSeed(2026);
    const out = new Int32Array(10);
    const ws = new DinkelbachWorkspace(10);
    let maxIt = 0;
    for (let t = 0; t < 3000; t++) {
      const { n, K, v0, v, r } = instance(rng);
      const m = dinkelbachAssortment(v, r, n, K, v0, out, ws);
      maxIt = Math.max(maxIt, ws.iterations);
      const bf = bruteForceAssortment(v, r, n, K, v0);
      const R = assortmentRevenue(v, r, out, m, v0);
      expect(Math.abs(R - bf.revenue)).toBeLessThan(1e-12);
      expect(m).toBeLessThanOrEqual(K);
      // invariant (i): r_i >= R(S*) for every i in S*
      for (let j = 0; j < m; j++) expect(r[out[j]!]!).toBeGreaterThanOrEqual(R - 1e-12);
      // joint scaling of v and v0 leaves S* and R* unchanged
      const m2 = dinkelbachAssortment(
        v.map((x) => x * 1e3),
        r,
        n,
        K,
        v0 * 1e3,
        new Int32Array(10),
      );
      expect(m2).toBe(m);
    }
    expect(maxIt).toBeLessThanOrEqual(7);
  });

  it("K >= N gives the revenue-ordered set; all-zero revenues give the empty set", () => {
    const rng = Rng.fromSeed(9);
    for (let t = 0; t < 200; t++) {
      const n = 1 + rng.int(8);
      const v = Float64Array.from({ length: n }, () => Math.exp(rng.uniformIn(-2, 2)));
      const r = Float64Array.from({ length: n }, () => rng.uniform());
      const S = optimalAssortment(Array.from(v, Math.log), r, n, n, 1);
      const R = assortmentRevenue(v, r, S, S.length, 1);
      const expected = [...Array(n).keys()].filter((i) => r[i]! >= R - 1e-12).sort((a, b) => a - b);
      expect([...S].sort((a, b) => a - b)).toEqual(expected);
    }
    expect(optimalAssortment([0.1, 0.2], [0, 0], 2, 2, 1)).toEqual([]);
    // huge utilities (beta ~ 900) do not overflow. {2} earns e^10 / (1 + e^10) = 0.99995 against {1}'s 0.9: the
    // answer [1] was item 2's attraction e^(10 - 900) underflowing to 0.
    const S = optimalAssortment([900, 899, 10], [0.2, 0.9, 1], 3, 2, 1);
    expect(S).toEqual([2]);
  });

  it("optimalAssortment refuses bad input with typed errors (it answered NaN, Infinity, v0 = -1 or K = 1.5 silently)", () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code?: string }).code ?? `untyped: ${String(e)}`;
      }
      return "no error";
    };
    // Before: [1, 2], [], [1, 0], [1], [0], [1, 0], [1] and [] respectively, without an error.
    expect(code(() => optimalAssortment([Number.NaN, 0.5, 0.1], undefined, 3, 2, 1))).toBe("NON_FINITE");
    expect(code(() => optimalAssortment([Number.POSITIVE_INFINITY, 0], [0.2, 0.3], 2, 1, 1))).toBe("NON_FINITE");
    expect(code(() => optimalAssortment([0.1, 0.5], [0.2, 0.3], 2, 2, -1))).toBe("OUT_OF_RANGE");
    expect(code(() => optimalAssortment([0.1, 0.5], undefined, 2, 1.5, 1))).toBe("OUT_OF_RANGE");
    expect(code(() => optimalAssortment([0.1, 0.5], [2, 0.3], 2, 1, 1))).toBe("OUT_OF_RANGE");
    expect(code(() => optimalAssortment([0.1, 0.5], undefined, 3, 2, 1))).toBe("DIMENSION_MISMATCH");
    expect(code(() => optimalAssortment([0.1, 0.5], [0.2], 2, 2, 1))).toBe("DIMENSION_MISMATCH");
    expect(code(() => optimalAssortment([0.1, 0.5], undefined, 2, 0, 1))).toBe("OUT_OF_RANGE");
    // Valid edge cases still answer: no items, K above n, a single item, Float32Array input.
    expect(optimalAssortment([], undefined, 0, 3, 1)).toEqual([]);
    expect(optimalAssortment([0.1, 0.5], undefined, 2, 5, 1)).toEqual([1, 0]);
    expect(optimalAssortment(Float32Array.of(-3), Float32Array.of(1), 1, 1, 1e-9)).toEqual([0]);
  });

  it("any integer K >= 1 answers as K = n when K > n (K = 2^53 threw a RangeError sizing the heap by K)", () => {
    const u = [0.1, 0.5, -0.2, 0.3];
    const r = [0.5, 0.9, 1, 0.2];
    for (const K of [2 ** 20, 2 ** 31, 2 ** 53 - 1]) {
      expect(optimalAssortment(u, undefined, 4, K, 1)).toEqual(optimalAssortment(u, undefined, 4, 4, 1));
      expect(optimalAssortment(u, r, 4, K, 1)).toEqual(optimalAssortment(u, r, 4, 4, 1));
      const out = new Int32Array(4);
      expect(topK(u, 4, K, out)).toBe(4);
      expect(Array.from(out)).toEqual([1, 3, 0, 2]);
    }
  });
});

describe("Davis-Gallego-Topaloglu LP through HiGHS", () => {
  it("LP optimum = brute force R*, and its vertex support is an optimal feasible assortment", async () => {
    const rng = Rng.fromSeed(77);
    for (let t = 0; t < 150; t++) {
      const { n, K, v0, v, r } = instance(rng);
      const lp = await solveAssortmentLP(v, r, K, v0);
      const bf = bruteForceAssortment(v, r, n, K, v0);
      expect(lp.objective).toBeCloseTo(bf.revenue, 7);
      expect(lp.items.length).toBeLessThanOrEqual(K);
      expect(lp.revenue).toBeCloseTo(bf.revenue, 7);
    }
  });
  it("agrees with Dinkelbach on larger instances (N <= 40)", async () => {
    const rep = await crossCheckAssortmentLP({ instances: 60, maxItems: 40, seed: 3 });
    expect(rep.mismatches).toBe(0);
    expect(rep.maxRevenueGap).toBeLessThan(1e-7);
  });
  it("handles ties (6 identical items, K = 2) with a vertex of size <= 2", async () => {
    const v = new Float64Array(6).fill(0.8);
    const r = new Float64Array(6).fill(0.6);
    const lp = await solveAssortmentLP(v, r, 2, 1);
    expect(lp.items.length).toBe(2);
    expect(lp.revenue).toBeCloseTo((2 * 0.8 * 0.6) / (1 + 1.6), 9);
  });
  it("rejects bad input with typed errors", async () => {
    await expect(solveAssortmentLP([1, 2], [0.5, 1.5], 1, 1)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await expect(solveAssortmentLP([1, 2], [0.5], 1, 1)).rejects.toMatchObject({ code: "DIMENSION_MISMATCH" });
    await expect(solveAssortmentLP([1, 2], [0.5, 0.5], 0, 1)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
  });
  it("coefficients HiGHS would drop or refuse (outside [1e-9, 1e15)) are OUT_OF_RANGE, not a wrong optimum or a plain Error", async () => {
    // Each value is valid alone (v > 0, v0 > 0). HiGHS threw "Unable to read LP model" (an untyped Error) from
    // v_i = 1e15 on, and dropped v_i = 2e-10 from the mass row: objective 2 (a revenue above 1) for the second.
    await expect(solveAssortmentLP([1e15, 2], [0.5, 1], 1, 1)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await expect(solveAssortmentLP([1, 2e-10], [0.5, 1], 1, 1e-10)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await expect(solveAssortmentLP([1e-300, 1e300], [1, 1], 1, 1)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await expect(solveAssortmentLP([1, 2], [0.5, 1], 2, 1e-15)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    await expect(solveAssortmentLP([1, 2], [0.5, 1], 1, 1e10)).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    // Inside the range the optimum is right at both ends: item 1 alone (2/3) beats item 0 (about 1/2).
    const lo = await solveAssortmentLP([1e14, 2], [0.5, 1], 1, 1);
    const hi = await solveAssortmentLP([1e-9, 2e-9], [0.5, 1], 1, 1e-9);
    expect(lo.items).toEqual([1]);
    expect(hi.items).toEqual([1]);
    expect(hi.objective).toBeCloseTo(2 / 3, 9);
  });
});

describe("optimalAssortment across utility gaps past exp's range", () => {
  /** R(S) for utilities u and outside utility log v0, scaled inside the set so nothing underflows. */
  function revenueOf(u: readonly number[], r: readonly number[], S: readonly number[], lv0: number): number {
    if (S.length === 0) return 0;
    let c = lv0;
    for (const i of S) c = Math.max(c, u[i] as number);
    let num = 0;
    let den = Math.exp(lv0 - c);
    for (const i of S) {
      const w = Math.exp((u[i] as number) - c);
      num += w * (r[i] as number);
      den += w;
    }
    return num / den;
  }

  function best(u: readonly number[], r: readonly number[], K: number, lv0: number): number {
    let b = 0;
    const n = u.length;
    for (let mask = 1; mask < 1 << n; mask++) {
      const S: number[] = [];
      for (let i = 0; i < n; i++) if (mask & (1 << i)) S.push(i);
      if (S.length <= K) b = Math.max(b, revenueOf(u, r, S, lv0));
    }
    return b;
  }

  it("finds the optimum when the other items' attractions underflow against an item that cannot enter it", () => {
    // e^(0 - 800) underflowed to 0: [] (revenue 0) for {1, 2} (2/3), and {0} (0.001) for {1} (0.5).
    expect(optimalAssortment([800, 0, 0], [0, 1, 1], 3, 2, 1)).toEqual([1, 2]);
    expect(optimalAssortment([800, 0], [0.001, 1], 2, 2, 1)).toEqual([1]);
    expect(optimalAssortment([-5, 1000, 3], [0.9, 0.2, 0.8], 3, 3, 2)).toEqual([2, 0]);
  });

  it("matches brute force (revenues in log space) on random instances with gaps of thousands", () => {
    const rng = Rng.fromSeed("mnl-wide-gaps");
    for (let t = 0; t < 400; t++) {
      const n = 1 + rng.int(7);
      const u = Array.from({ length: n }, () =>
        rng.uniform() < 0.5 ? rng.uniformIn(-3, 3) : rng.uniformIn(-2000, 2000),
      );
      const r = Array.from({ length: n }, () => (rng.uniform() < 0.2 ? 0 : rng.uniform()));
      const K = 1 + rng.int(n);
      const v0 = rng.uniform() < 0.5 ? 1 : Math.exp(rng.uniformIn(-5, 5));
      const S = optimalAssortment(u, r, n, K, v0);
      expect(S.length).toBeLessThanOrEqual(K);
      const want = best(u, r, K, Math.log(v0));
      expect(revenueOf(u, r, S, Math.log(v0)), JSON.stringify({ u, r, K, v0, S })).toBeGreaterThanOrEqual(
        want * (1 - 1e-12),
      );
    }
  });
});
