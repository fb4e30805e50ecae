import { ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it, vi } from "vitest";
import { LinearContextualBandit, StochasticBandit } from "../src/basic/index.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("StochasticBandit", () => {
  it("draws means per seed, pays Bernoulli rewards with those means, knows the oracle", () => {
    const env = new StochasticBandit({ k: 4 });
    expect(env.initialArms).toEqual(["arm0", "arm1", "arm2", "arm3"]);
    env.reset(Rng.fromSeed(1));
    const means = env.means;
    const again = new StochasticBandit({ k: 4 });
    again.reset(Rng.fromSeed(1));
    expect(again.means).toEqual(means);
    const other = new StochasticBandit({ k: 4 });
    other.reset(Rng.fromSeed(2));
    expect(other.means).not.toEqual(means);
    const best = Math.max(...means);
    expect(env.oracleReward()).toBe(best);
    expect(env.bestFixedArm()).toBe(`arm${means.indexOf(best)}`);
    expect(env.bestFixedReward()).toBe(best);
    expect(env.isOptimal(env.bestFixedArm())).toBe(true);
    expect(env.next(0).context).toBeUndefined();
    const n = 20000;
    for (let a = 0; a < 4; a++) {
      let s = 0;
      for (let t = 0; t < n; t++) {
        const r = env.pull(`arm${a}`).reward;
        expect(r === 0 || r === 1).toBe(true);
        s += r;
      }
      const m = means[a] as number;
      expect(Math.abs(s / n - m)).toBeLessThan(5 * Math.sqrt((m * (1 - m)) / n) + 1e-9);
      expect(env.expectedReward(`arm${a}`)).toBe(m);
    }
  });

  it("Gaussian rewards and costs", () => {
    const env = new StochasticBandit({ means: [0.2, -1], rewards: "gaussian", noiseSd: 2, costs: [0.5, 3] });
    env.reset(Rng.fromSeed(3));
    let s = 0;
    let s2 = 0;
    const n = 20000;
    for (let t = 0; t < n; t++) {
      const fb = env.pull("arm1");
      expect(fb.cost).toBe(3);
      s += fb.reward;
      s2 += fb.reward * fb.reward;
    }
    expect(Math.abs(s / n + 1)).toBeLessThan(5 * (2 / Math.sqrt(n)));
    expect(Math.abs(Math.sqrt(s2 / n - (s / n) ** 2) - 2)).toBeLessThan(0.1);
    expect(env.expectedCost("arm0")).toBe(0.5);
    expect(env.bestFixedArm()).toBe("arm0");
    expect(env.isOptimal("arm1")).toBe(false);
  });

  it("rejects bad options and unknown arms with typed errors", () => {
    expect(code(() => new StochasticBandit({ means: [0.5, 1.5] }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new StochasticBandit({ k: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new StochasticBandit({ k: 2, costs: [1] }))).toBe(ErrorCode.DimensionMismatch);
    expect(code(() => new StochasticBandit({ arms: ["a", "a"] }))).toBe(ErrorCode.DuplicateArm);
    expect(code(() => new StochasticBandit({ rewards: "poisson" as never }))).toBe(ErrorCode.InvalidArgument);
    const env = new StochasticBandit({ k: 2 });
    expect(code(() => env.pull("arm0"))).toBe(ErrorCode.InvalidState);
    env.reset(Rng.fromSeed(1));
    expect(code(() => env.pull("zz"))).toBe(ErrorCode.UnknownArm);
  });
});

describe("LinearContextualBandit", () => {
  it("draws unit contexts, linear expected rewards, and a context-dependent best arm", () => {
    const env = new LinearContextualBandit({ contextDim: 6, k: 4, noiseSd: 0.3 });
    env.reset(Rng.fromSeed(5));
    const wins = new Map<string, number>();
    for (let t = 0; t < 4000; t++) {
      const { context } = env.next(t);
      const x = context as Float64Array;
      let n2 = 0;
      for (const v of x) n2 += v * v;
      expect(Math.abs(n2 - 1)).toBeLessThan(1e-12);
      let best = Number.NEGATIVE_INFINITY;
      for (const a of env.initialArms) {
        const th = env.theta(a);
        let m = 0;
        for (let i = 0; i < 6; i++) m += (th[i] as number) * (x[i] as number);
        expect(env.expectedReward(a)).toBeCloseTo(m, 12);
        best = Math.max(best, m);
      }
      expect(env.oracleReward()).toBeCloseTo(best, 12);
      expect(env.isOptimal(env.bestArm())).toBe(true);
      wins.set(env.bestArm(), (wins.get(env.bestArm()) ?? 0) + 1);
    }
    // The best arm varies with the context: at least two arms are best on >= 10% of the rounds.
    expect([...wins.values()].filter((w) => w >= 400).length).toBeGreaterThanOrEqual(2);
    const shares = env.bestArmShares();
    for (const a of env.initialArms) expect(Math.abs((shares[a] ?? 0) - (wins.get(a) ?? 0) / 4000)).toBeLessThan(0.03);
  });

  it("the best fixed arm maximises the average expected reward over the context distribution", () => {
    const env = new LinearContextualBandit({ contextDim: 5, k: 6 });
    env.reset(Rng.fromSeed(9));
    const sums = new Map(env.initialArms.map((a) => [a, 0]));
    for (let t = 0; t < 30000; t++) {
      env.next(t);
      for (const a of env.initialArms) sums.set(a, (sums.get(a) as number) + env.expectedReward(a));
    }
    const ranked = [...sums].sort((p, q) => q[1] - p[1]);
    const [first, second] = ranked as [[string, number], [string, number]];
    // Unless the top two are within sampling noise, the Monte-Carlo pick is the empirical best.
    if ((first[1] - second[1]) / 30000 > 0.01) expect(env.bestFixedArm()).toBe(first[0]);
    else expect([first[0], second[0]]).toContain(env.bestFixedArm());
    env.next(30000);
    expect(env.bestFixedReward()).toBe(env.expectedReward(env.bestFixedArm()));
  });

  it("a reset with the stream key, settings and weights of an earlier one reuses its best-fixed estimate (README): same bits, no Monte-Carlo draws", () => {
    const bits = (a: Float64Array) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    const shareBits = (e: LinearContextualBandit) => bits(Float64Array.from(Object.values(e.bestArmShares())));
    const opts = { contextDim: 7, k: 4, mcSamples: 3000 };
    const normals = vi.spyOn(Rng.prototype, "normal");
    try {
      const first = new LinearContextualBandit(opts);
      first.reset(Rng.fromSeed(21));
      expect(normals.mock.calls.length).toBeGreaterThan(3000 * 7);
      normals.mockClear();
      const reused = new LinearContextualBandit(opts);
      reused.reset(Rng.fromSeed(21));
      // Only c and the four weight vectors: (1 + 4) x 7 draws.
      expect(normals.mock.calls.length).toBe(5 * 7);
      expect(reused.bestFixedArm()).toBe(first.bestFixedArm());
      expect(shareBits(reused)).toEqual(shareBits(first));
      for (let t = 0; t < 20; t++) {
        expect(bits(reused.next(t).context as Float64Array)).toEqual(bits(first.next(t).context as Float64Array));
        expect(reused.pull("arm1").reward).toBe(first.pull("arm1").reward);
      }
      // Given weights are compared, not keyed: other weights on the same seed are estimated again.
      const thetas = [
        [1, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0],
      ];
      normals.mockClear();
      new LinearContextualBandit({ ...opts, thetas }).reset(Rng.fromSeed(21));
      expect(normals.mock.calls.length).toBeGreaterThan(3000 * 7);
      // Another sample size is another key.
      normals.mockClear();
      new LinearContextualBandit({ ...opts, mcSamples: 3001 }).reset(Rng.fromSeed(21));
      expect(normals.mock.calls.length).toBeGreaterThan(3001 * 7);
    } finally {
      normals.mockRestore();
    }
  });

  it("contexts do not depend on the pulls (separate rng forks), and seeds reproduce", () => {
    const a = new LinearContextualBandit({ contextDim: 3, k: 2 });
    const b = new LinearContextualBandit({ contextDim: 3, k: 2 });
    a.reset(Rng.fromSeed(4));
    b.reset(Rng.fromSeed(4));
    for (let t = 0; t < 50; t++) {
      const xa = a.next(t).context as Float64Array;
      const xb = b.next(t).context as Float64Array;
      expect(Array.from(xb)).toEqual(Array.from(xa));
      a.pull("arm0");
      if (t % 3 === 0) {
        b.pull("arm1");
        b.pull("arm0");
      }
    }
  });

  it("adds arms at the given rounds", () => {
    const env = new LinearContextualBandit({
      contextDim: 3,
      thetas: [
        [1, 0, 0],
        [0, 1, 0],
      ],
      arrivals: [
        { round: 10, arm: "new", theta: [0, 0, 1] },
        { round: 20, arm: "newer" },
      ],
    });
    env.reset(Rng.fromSeed(1));
    for (let t = 0; t < 30; t++) {
      const r = env.next(t);
      if (t === 10) expect(r.arrivals).toEqual(["new"]);
      else if (t === 20) expect(r.arrivals).toEqual(["newer"]);
      else expect(r.arrivals).toBeUndefined();
      if (t < 10) expect(code(() => env.pull("new"))).toBe(ErrorCode.UnknownArm);
      if (t >= 10) {
        const x = r.context as Float64Array;
        expect(env.expectedReward("new")).toBeCloseTo(x[2] as number, 14);
      }
    }
    expect(Array.from(env.theta("arm1"))).toEqual([0, 1, 0]);
    expect(env.initialArms).toEqual(["arm0", "arm1"]);
  });

  it("takes thetas as Float64Array or Float32Array rows, the same bandit as plain arrays", () => {
    const plain = new LinearContextualBandit({
      contextDim: 2,
      thetas: [
        [1, 0.5],
        [0, 1],
      ],
    });
    const typed = new LinearContextualBandit({
      contextDim: 2,
      thetas: [Float64Array.of(1, 0.5), Float32Array.of(0, 1)],
    });
    const a = Rng.fromSeed(4);
    const b = Rng.fromSeed(4);
    plain.reset(a);
    typed.reset(b);
    for (let t = 0; t < 20; t++) {
      const x = plain.next(t);
      expect(typed.next(t)).toEqual(x);
      for (const arm of plain.initialArms) expect(typed.expectedReward(arm)).toBe(plain.expectedReward(arm));
    }
  });

  it("rejects bad options with typed errors", () => {
    expect(code(() => new LinearContextualBandit({ contextDim: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new LinearContextualBandit({ contextDim: 2, thetas: [[1, 2, 3]] }))).toBe(
      ErrorCode.DimensionMismatch,
    );
    // A theta that is no array of numbers is INVALID_ARGUMENT (it was DIMENSION_MISMATCH); other typed arrays too.
    expect(code(() => new LinearContextualBandit({ contextDim: 2, thetas: ["ab" as never] }))).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(code(() => new LinearContextualBandit({ contextDim: 2, thetas: [Int8Array.of(1, 2) as never] }))).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(code(() => new LinearContextualBandit({ spread: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new LinearContextualBandit({ arrivals: [{ round: 0, arm: "x" }] }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new LinearContextualBandit({ k: 2, arrivals: [{ round: 3, arm: "arm1" }] }))).toBe(
      ErrorCode.DuplicateArm,
    );
    expect(code(() => new LinearContextualBandit().next(0))).toBe(ErrorCode.InvalidState);
  });
});
