import { describe, expect, test } from "vitest";
import { CoinBetting, DenseMirrorIterate, MirrorIterate, nuclearNorm } from "../src/index.js";
import { maxAbsDiff, seeded, unitVector } from "./helpers.js";

describe("MirrorIterate (subspace form) against the dense reference", () => {
  test.each([
    [6, 2, undefined, 0.6],
    [8, 1, undefined, 0.6],
    [8, 2, 3, 0.6],
    [24, 2, 3, 3],
    [20, 3, 6, 3],
  ] as const)(
    "d = %i, tau = %d, maxRank = %s, |rho| ~ %d: 500 steps with the ball active agree to 1e-10",
    (d, tau, maxRank, scale) => {
      const rng = seeded(10 + d + tau);
      const beta = tau / d;
      const fast = new MirrorIterate({ dim: d, beta, radius: tau, maxRank, reorthEvery: 97 });
      const dense = new DenseMirrorIterate({ dim: d, beta, radius: tau, maxRank });
      let active = 0;
      for (let t = 0; t < 500; t++) {
        const q = unitVector(rng, d);
        expect(Math.abs(fast.score(q) - dense.score(q))).toBeLessThan(1e-10);
        const rho = scale * rng.normal();
        fast.step(q, rho);
        dense.step(q, rho);
        if (dense.lastThreshold > 0) active++;
        expect(Math.abs(fast.lastThreshold - dense.lastThreshold)).toBeLessThan(1e-9);
        expect(fast.nuclearNorm()).toBeLessThanOrEqual(tau + 1e-9);
        if (t % 25 === 0) expect(maxAbsDiff(fast.toDense(), dense.W)).toBeLessThan(1e-10);
        if (maxRank !== undefined) expect(fast.rank).toBeLessThanOrEqual(maxRank);
      }
      expect(active).toBeGreaterThan(100);
      expect(fast.eig.orthogonalityError()).toBeLessThan(1e-12);
      // The factored form: the basis stays within its cap (compressions happened when d > 2 maxRank + 1).
      expect(fast.eig.basisSize).toBeLessThanOrEqual(Math.min(d, 2 * (maxRank ?? d) + 1));
      expect(Math.abs(nuclearNorm(dense.W, d) - fast.nuclearNorm())).toBeLessThan(1e-10);
    },
  );

  test("rho = 0 is a no-op; a positive step raises the score along q (sign convention)", () => {
    const rng = seeded(3);
    const it = new MirrorIterate({ dim: 5, beta: 0.4, radius: 2 });
    const q = unitVector(rng, 5);
    it.step(q, 0);
    expect(it.rank).toBe(0);
    expect(it.score(q)).toBe(0);
    it.step(q, 0.3);
    expect(it.score(q)).toBeGreaterThan(0);
    const before = it.score(q);
    it.step(q, 0.3);
    expect(it.score(q)).toBeGreaterThan(before);
  });

  test("a step that leaves Y as it was (rho = 0, or below MIN_UPDATE) keeps W bit for bit, reports threshold 0, and counts toward reorthEvery", () => {
    const rng = seeded(4);
    const d = 8;
    const it = new MirrorIterate({ dim: d, beta: 2 / d, radius: 2, reorthEvery: 40 });
    for (let t = 0; t < 37; t++) it.step(unitVector(rng, d), 3 * rng.normal());
    expect(it.lastThreshold).toBeGreaterThan(0); // the ball is active
    const W = it.toDense();
    const q = unitVector(rng, d);
    const score = it.score(q);
    it.step(q, 0);
    it.step(q, 1e-300);
    expect(it.lastThreshold).toBe(0);
    expect(Array.from(it.toDense())).toEqual(Array.from(W));
    expect(it.score(q)).toBe(score);
    expect(it.steps).toBe(39);
    // Step 40 re-orthonormalises even though it changes nothing else.
    for (let i = 0; i < it.eig.basisSize * d; i++)
      it.eig.basis[i] = (it.eig.basis[i] as number) * (1 + 1e-9 * rng.normal());
    expect(it.eig.orthogonalityError()).toBeGreaterThan(1e-11);
    it.step(q, 0);
    expect(it.eig.orthogonalityError()).toBeLessThan(1e-13);
    expect(it.nuclearNorm()).toBeLessThanOrEqual(2 + 1e-9);
  });
});

describe("coin betting (ONS)", () => {
  test("the first bet is 0 and wealth stays positive for any |g| <= 1 sequence", () => {
    const rng = seeded(7);
    let minWealth = Number.POSITIVE_INFINITY;
    let maxFraction = 0;
    for (let run = 0; run < 50; run++) {
      const c = new CoinBetting(1);
      expect(c.bet()).toBe(0);
      for (let t = 0; t < 2000; t++) {
        const z = c.bet();
        const g =
          run % 3 === 0 ? (rng.uniform() < 0.5 ? -1 : 1) : run % 3 === 1 ? Math.sign(z) || 1 : 2 * rng.uniform() - 1;
        c.update(g, z);
        minWealth = Math.min(minWealth, c.wealth);
        maxFraction = Math.max(maxFraction, Math.abs(c.fraction));
      }
    }
    expect(minWealth).toBeGreaterThan(0);
    expect(maxFraction).toBeLessThanOrEqual(0.5);
  });

  test("constant g = -1 makes the bet grow geometrically", () => {
    const c = new CoinBetting(1);
    const bets: number[] = [];
    for (let t = 0; t < 200; t++) {
      const z = c.bet();
      bets.push(z);
      c.update(-1, z);
    }
    expect(bets[100] as number).toBeGreaterThan(1e6);
    expect((bets[199] as number) / (bets[150] as number)).toBeGreaterThan(1e3);
  });

  test("i.i.d. g = +-1 with mean -0.2: regret vs every u in [-100, 100] is O(|u| sqrt(T log(|u| T)))", () => {
    const rng = seeded(8);
    const T = 20_000;
    const c = new CoinBetting(1);
    let loss = 0;
    let gsum = 0;
    for (let t = 0; t < T; t++) {
      const z = c.bet();
      const g = rng.uniform() < 0.4 ? 1 : -1;
      loss += g * z;
      gsum += g;
      c.update(g, z);
    }
    for (const u of [-100, -10, -1, 0, 1, 10, 100]) {
      const regret = loss - gsum * u;
      const bound = 1 + Math.abs(u) * Math.sqrt(T * Math.log(1 + Math.abs(u) * T)) * 3;
      expect(regret).toBeLessThanOrEqual(bound);
    }
  });
});

/** The code of the RouteKitError `f` throws (fails when it throws nothing or something else). */
function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect((e as Error).name).toBe("RouteKitError");
    return (e as { code: string }).code;
  }
  throw new Error("expected a RouteKitError, nothing was thrown");
}

describe("the exported iterates and the coin refuse bad input with a RouteKitError and change nothing", () => {
  const o = { dim: 3, beta: 0.5, radius: 2 };
  test.each([
    [{ dim: 0 }, "OUT_OF_RANGE"],
    [{ dim: 2.5 }, "OUT_OF_RANGE"],
    [{ dim: Number.NaN }, "NON_FINITE"],
    [{ dim: undefined }, "INVALID_ARGUMENT"],
    [{ beta: 0 }, "OUT_OF_RANGE"],
    [{ beta: -1 }, "OUT_OF_RANGE"],
    [{ beta: Number.POSITIVE_INFINITY }, "NON_FINITE"],
    [{ radius: 0 }, "OUT_OF_RANGE"],
    [{ radius: -2 }, "OUT_OF_RANGE"],
    [{ radius: Number.NaN }, "NON_FINITE"],
    [{ maxRank: 0 }, "OUT_OF_RANGE"],
    [{ maxRank: -3 }, "OUT_OF_RANGE"],
    [{ maxRank: 1.5 }, "OUT_OF_RANGE"],
    [{ maxRank: "2" }, "INVALID_ARGUMENT"],
  ] as const)("options %j: %s (MirrorIterate and DenseMirrorIterate)", (bad, code) => {
    expect(codeOf(() => new MirrorIterate({ ...o, ...bad } as never))).toBe(code);
    expect(codeOf(() => new DenseMirrorIterate({ ...o, ...bad } as never))).toBe(code);
  });

  test("MirrorIterate: reorthEvery an integer >= 0, geometry one of the two", () => {
    expect(codeOf(() => new MirrorIterate({ ...o, reorthEvery: -1 }))).toBe("OUT_OF_RANGE");
    expect(codeOf(() => new MirrorIterate({ ...o, reorthEvery: 0.5 }))).toBe("OUT_OF_RANGE");
    expect(codeOf(() => new MirrorIterate({ ...o, geometry: "foo" as never }))).toBe("INVALID_ARGUMENT");
    expect(new MirrorIterate({ ...o, reorthEvery: 0, geometry: "euclidean" }).reorthEvery).toBe(0);
    expect(new MirrorIterate({ ...o, maxRank: 1e9 }).maxRank).toBe(3);
  });

  test("step(q, rho) with q of the wrong length, non-finite entries or a non-finite rho, and score(q) of the wrong length or with NaN, +-Infinity or non-number entries (it returned NaN), throw; the iterate is unchanged", () => {
    const rng = seeded(5);
    for (const make of [() => new MirrorIterate(o), () => new DenseMirrorIterate(o)]) {
      const it = make();
      for (let t = 0; t < 5; t++) it.step(unitVector(rng, 3), 0.7);
      const q = unitVector(rng, 3);
      const before = [it.score(q), it.lastThreshold, ...(it instanceof MirrorIterate ? it.toDense() : it.W)];
      const bad: [() => void, string][] = [
        [() => it.step(Float64Array.of(1, 0), 0.5), "DIMENSION_MISMATCH"],
        [() => it.step(Float64Array.of(1, 0, 0, 0), 0.5), "DIMENSION_MISMATCH"],
        [() => it.step(Float64Array.of(Number.NaN, 0, 0), 0.5), "NON_FINITE"],
        [() => it.step([0.5, Number.POSITIVE_INFINITY, 0], 0.5), "NON_FINITE"],
        [() => it.step(q, Number.NaN), "NON_FINITE"],
        [() => it.step(q, Number.NEGATIVE_INFINITY), "NON_FINITE"],
        [() => it.step(q, "1" as never), "INVALID_ARGUMENT"],
      ];
      bad.push([() => it.score(Float64Array.of(1, 0)), "DIMENSION_MISMATCH"]);
      bad.push([() => it.score(Float64Array.of(1, 0, 0, 0)), "DIMENSION_MISMATCH"]);
      // score(q) is checked as select checks a query (NaN entries returned NaN), step(q) the same way.
      const queries: [unknown, string][] = [
        [Float64Array.of(Number.NaN, 0, 0), "NON_FINITE"],
        [Float64Array.of(0.5, Number.POSITIVE_INFINITY, 0), "NON_FINITE"],
        [Float32Array.of(0, 0, Number.NEGATIVE_INFINITY), "NON_FINITE"],
        [[0.5, Number.NaN, 0], "NON_FINITE"],
        [[0.5, "0.5", 0], "INVALID_ARGUMENT"],
        [[0.5, null, 0], "INVALID_ARGUMENT"],
        [Int8Array.of(1, 0, 0), "INVALID_ARGUMENT"],
        ["abc", "INVALID_ARGUMENT"],
        [undefined, "INVALID_ARGUMENT"],
        [[1, 0], "DIMENSION_MISMATCH"],
      ];
      for (const [x, code] of queries) {
        bad.push([() => it.score(x as never), code]);
        bad.push([() => it.step(x as never, 0.5), code]);
      }
      for (const [f, code] of bad) expect(codeOf(f), `${it.constructor.name} ${String(f)}`).toBe(code);
      const after = [it.score(q), it.lastThreshold, ...(it instanceof MirrorIterate ? it.toDense() : it.W)];
      expect(after).toEqual(before);
    }
  });

  test("score and step take a Float32Array or a number[] as the same values in a Float64Array, as every vector input", () => {
    const rng = seeded(7);
    for (const make of [() => new MirrorIterate(o), () => new DenseMirrorIterate(o)]) {
      const a = make();
      const b = make();
      for (let t = 0; t < 6; t++) {
        const q32 = Float32Array.from(unitVector(rng, 3));
        a.step(q32, t % 2 ? 0.7 : -0.4);
        b.step(Float64Array.from(q32), t % 2 ? 0.7 : -0.4);
      }
      const dense = (x: MirrorIterate | DenseMirrorIterate) => (x instanceof MirrorIterate ? x.toDense() : x.W);
      expect(dense(a)).toEqual(dense(b));
      const q = unitVector(rng, 3);
      expect(a.score([...q])).toBe(a.score(q));
      expect(a.score(Float32Array.from(q))).toBe(a.score(Float64Array.from(Float32Array.from(q))));
    }
  });

  test("MirrorIterate.load checks the eigenpairs as a snapshot's (it took NaN, wrong lengths, any rank) and changes nothing", () => {
    const rng = seeded(8);
    const src = new MirrorIterate(o);
    for (let t = 0; t < 6; t++) src.step(unitVector(rng, 3), 0.6);
    const e = src.eig;
    const good = {
      basis: e.basis.slice(0, e.basisSize * 3),
      basisSize: e.basisSize,
      coef: e.coefRows(),
      gamma: e.values.slice(0, e.rank),
      rank: e.rank,
      steps: src.steps,
    };
    expect(good.rank).toBeGreaterThan(0);
    const load = (it: MirrorIterate, p: typeof good) => it.load(p.basis, p.basisSize, p.coef, p.gamma, p.rank, p.steps);
    const it = new MirrorIterate(o);
    for (let t = 0; t < 4; t++) it.step(unitVector(rng, 3), -0.5);
    const q = unitVector(rng, 3);
    const before = [it.score(q), it.steps, it.rank, ...it.toDense()];
    const nanGamma = Float64Array.from(good.gamma);
    nanGamma[0] = Number.NaN;
    const nanBasis = Float64Array.from(good.basis);
    nanBasis[1] = Number.POSITIVE_INFINITY;
    const notOrthonormal = Float64Array.from(good.basis);
    notOrthonormal[0] = (notOrthonormal[0] as number) + 0.1;
    const cases: [Partial<typeof good>, string][] = [
      [{ gamma: nanGamma }, "NON_FINITE"],
      [{ basis: nanBasis }, "NON_FINITE"],
      [{ gamma: good.gamma.slice(1) }, "DIMENSION_MISMATCH"],
      [{ basis: good.basis.slice(1) }, "DIMENSION_MISMATCH"],
      [{ coef: good.coef.slice(1) }, "DIMENSION_MISMATCH"],
      [{ rank: 4 }, "OUT_OF_RANGE"],
      [{ rank: -1 }, "OUT_OF_RANGE"],
      [{ rank: 1.5 }, "OUT_OF_RANGE"],
      [{ basisSize: 99 }, "OUT_OF_RANGE"],
      [{ steps: -1 }, "OUT_OF_RANGE"],
      [{ steps: Number.NaN }, "NON_FINITE"],
      [{ gamma: "x" as never }, "INVALID_ARGUMENT"],
      [{ gamma: good.gamma.map((g) => g * 100) }, "OUT_OF_RANGE"], // outside the nuclear ball
      [{ basis: notOrthonormal }, "INVALID_ARGUMENT"],
    ];
    for (const [change, code] of cases)
      expect(
        codeOf(() => load(it, { ...good, ...change })),
        JSON.stringify(change),
      ).toBe(code);
    expect([it.score(q), it.steps, it.rank, ...it.toDense()]).toEqual(before);
    // Valid eigenpairs load: the copy scores as the source.
    load(it, good);
    expect(it.score(q)).toBe(src.score(q));
    expect(it.steps).toBe(src.steps);
    // Bit for bit, -0 included (a restored router must snapshot to the same bytes), from a number[] too.
    const axis = new MirrorIterate(o);
    axis.step([1, 0, 0], 0.5);
    const basis = Array.from(axis.eig.basis.subarray(0, axis.eig.basisSize * 3), (x) => (x === 0 ? -0 : x));
    expect(basis.some((x) => Object.is(x, -0))).toBe(true);
    const back = new MirrorIterate(o);
    back.load(
      basis,
      axis.eig.basisSize,
      axis.eig.coefRows(),
      axis.eig.values.slice(0, axis.eig.rank),
      axis.eig.rank,
      1,
    );
    expect(Array.from(back.eig.basis.subarray(0, basis.length))).toEqual(basis);
  });

  test("CoinBetting: initial wealth finite and > 0; update needs |g| <= 1 and |z| <= wealth / 2, else nothing changes", () => {
    expect(codeOf(() => new CoinBetting(0))).toBe("OUT_OF_RANGE");
    expect(codeOf(() => new CoinBetting(-1))).toBe("OUT_OF_RANGE");
    expect(codeOf(() => new CoinBetting(Number.NaN))).toBe("NON_FINITE");
    expect(new CoinBetting(Number.MIN_VALUE).wealth).toBe(Number.MIN_VALUE);
    const c = new CoinBetting(1);
    for (let t = 0; t < 10; t++) c.update(-1, c.bet());
    const state = () => [c.wealth, c.fraction, c.curvature];
    const before = state();
    expect(codeOf(() => c.update(1.5, c.bet()))).toBe("OUT_OF_RANGE");
    expect(codeOf(() => c.update(Number.NaN, c.bet()))).toBe("NON_FINITE");
    // A bet above half the wealth could drive the wealth negative (here: to -0.5 times it).
    expect(codeOf(() => c.update(1, 1.5 * c.wealth))).toBe("OUT_OF_RANGE");
    expect(codeOf(() => c.update(1, Number.POSITIVE_INFINITY))).toBe("NON_FINITE");
    expect(state()).toEqual(before);
    c.update(1, 0.5 * c.wealth); // the largest bet allowed
    expect(c.wealth).toBe((before[0] as number) / 2);
  });
});
