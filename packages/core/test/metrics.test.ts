import { describe, expect, it } from "vitest";
import { checkpoints, logLogSlope, MetricsRecorder, meanStd, Rng } from "../src/index.js";

describe("checkpoints", () => {
  it("spreads points evenly and always ends at the horizon", () => {
    expect(checkpoints(10, 4)).toEqual([3, 5, 8, 10]);
    expect(checkpoints(3, 10)).toEqual([1, 2, 3]);
    expect(checkpoints(7, 1)).toEqual([7]);
    expect(checkpoints(7, 0)).toEqual([7]);
    const c = checkpoints(100_000, 200);
    expect(c.length).toBe(200);
    expect(c[0]).toBe(500);
    expect(c[199]).toBe(100_000);
    for (let i = 1; i < c.length; i++) expect(c[i] as number).toBeGreaterThan(c[i - 1] as number);
  });
});

describe("MetricsRecorder", () => {
  // A fixed 4-round sequence, every number worked out by hand below.
  const rounds = [
    { regret: 0.5, o2b: -0.2, optimal: false, reward: 1, cost: 0.1, pick: "a", ms: 2 },
    { regret: 0, o2b: 0.3, optimal: true, reward: 0, cost: 0.2, pick: "b", ms: 4 },
    { regret: 0.25, o2b: 0.1, optimal: false, reward: 1, cost: 0, pick: "a", ms: 1 },
    { regret: 0, o2b: 0.2, optimal: true, reward: 1, cost: 0.3, pick: "a", ms: 1 },
  ];

  it("samples cumulative regret, running O2B and OPR, reward, cost and time at checkpoints", () => {
    const rec = new MetricsRecorder(4, 2);
    for (const r of rounds) rec.record(r);
    const s = rec.series;
    expect(s.t).toEqual([2, 4]);
    expect(s.regret).toEqual([0.5, 0.75]);
    // O2B is a running mean: (-0.2 + 0.3) / 2 and (-0.2 + 0.3 + 0.1 + 0.2) / 4.
    expect(s.o2b[0]).toBeCloseTo(0.05, 15);
    expect(s.o2b[1]).toBeCloseTo(0.1, 15);
    expect(s.opr).toEqual([0.5, 0.5]);
    expect(s.reward).toEqual([1, 3]);
    expect(s.cost[0]).toBeCloseTo(0.3, 15);
    expect(s.cost[1]).toBeCloseTo(0.6, 15);
    // Wall time per round since the previous checkpoint, in microseconds: (2+4)/2 ms and (1+1)/2 ms.
    expect(s.usPerRound).toEqual([3000, 1000]);
    expect(rec.roundsRecorded).toBe(4);

    const f = rec.final();
    expect(f.regret).toBe(0.75);
    expect(f.o2b).toBeCloseTo(0.1, 15);
    expect(f.opr).toBe(0.5);
    expect(f.reward).toBe(3);
    expect(f.cost).toBeCloseTo(0.6, 15);
    expect(f.costPerRound).toBeCloseTo(0.15, 15);
    expect(f.usPerRound).toBe(2000);
    expect(rec.pickShare()).toEqual({ a: 0.75, b: 0.25 });
  });

  it("realised O2B and OPR are running means beside the expected ones, NaN when never given", () => {
    const rec = new MetricsRecorder(4, 2);
    const real = [
      { o2bRealised: 0.4, optimalRealised: true },
      { o2bRealised: -0.1, optimalRealised: false },
      { o2bRealised: 0, optimalRealised: false },
      { o2bRealised: 0.5, optimalRealised: true },
    ];
    rounds.forEach((r, i) => {
      rec.record({ ...r, ...real[i] });
    });
    expect(rec.series.o2bRealised[0]).toBeCloseTo(0.15, 15);
    expect(rec.series.o2bRealised[1]).toBeCloseTo(0.2, 15);
    expect(rec.series.oprRealised).toEqual([0.5, 0.5]);
    expect(rec.final().o2bRealised).toBeCloseTo(0.2, 15);
    expect(rec.final().oprRealised).toBe(0.5);
    // The expected metrics are untouched by the realised ones.
    expect(rec.final().o2b).toBeCloseTo(0.1, 15);
    const none = new MetricsRecorder(4, 2);
    for (const r of rounds) none.record(r);
    expect(none.final().o2bRealised).toBeNaN();
    expect(none.final().oprRealised).toBeNaN();
    expect(none.series.oprRealised.every(Number.isNaN)).toBe(true);
  });

  it("first-pass figures cover only rounds whose prompt was unseen; the repeat share counts the others", () => {
    const rec = new MetricsRecorder(4, 2);
    const repeat = [false, true, false, true];
    rounds.forEach((r, i) => {
      rec.record({ ...r, repeat: repeat[i] as boolean });
    });
    const f = rec.final();
    expect(f.rewardPerRound).toBe(0.75);
    expect(f.repeatShare).toBe(0.5);
    // Unseen rounds are the first and the third: rewards 1 and 1, O2B -0.2 and 0.1, neither optimal.
    expect(f.firstPassRewardPerRound).toBe(1);
    expect(f.firstPassO2b).toBeCloseTo(-0.05, 15);
    expect(f.firstPassOpr).toBe(0);
    const plain = new MetricsRecorder(4, 2);
    for (const r of rounds) plain.record(r);
    expect(plain.final().repeatShare).toBeNaN();
    expect(plain.final().firstPassOpr).toBeNaN();
  });

  it("keeps one point per checkpoint whatever the horizon (constant memory)", () => {
    const rec = new MetricsRecorder(10_000, 50);
    for (let t = 0; t < 10_000; t++) rec.record({ regret: 1, o2b: 0, optimal: false, reward: 0, cost: 0, ms: 0 });
    expect(rec.series.t.length).toBe(50);
    expect(rec.series.regret[49]).toBe(10_000);
    expect(rec.pickShare()).toEqual({});
  });

  it("final() of an empty recorder is zeros, not NaN (the realised metrics are NaN: never defined)", () => {
    const f = new MetricsRecorder(5).final();
    expect(f).toEqual({
      regret: 0,
      o2b: 0,
      opr: 0,
      o2bRealised: Number.NaN,
      oprRealised: Number.NaN,
      reward: 0,
      cost: 0,
      costPerRound: 0,
      rewardPerRound: 0,
      repeatShare: Number.NaN,
      firstPassRewardPerRound: Number.NaN,
      firstPassO2b: Number.NaN,
      firstPassOpr: Number.NaN,
      usPerRound: 0,
    });
  });
});

describe("meanStd", () => {
  it("gives mean, sample standard deviation and standard error", () => {
    const m = meanStd([1, 2, 3, 4]);
    expect(m.mean).toBe(2.5);
    expect(m.std).toBeCloseTo(Math.sqrt(5 / 3), 14);
    expect(m.se).toBeCloseTo(Math.sqrt(5 / 3) / 2, 14);
    expect(meanStd([7])).toEqual({ mean: 7, std: 0, se: 0 });
    const e = meanStd([]);
    expect(Number.isNaN(e.mean) && Number.isNaN(e.std) && Number.isNaN(e.se)).toBe(true);
    expect(Number.isNaN(meanStd([1, Number.NaN]).mean)).toBe(true); // the README: a NaN entry makes it NaN
  });
  it("a single NaN or infinite entry gives a NaN std and se, as two do (it gave 0: a one-seed summary's ',0,0')", () => {
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const one = meanStd([x]);
      expect([Number.isNaN(one.std), Number.isNaN(one.se)], String(x)).toEqual([true, true]);
      const two = meanStd([x, x]);
      expect([Number.isNaN(two.std), Number.isNaN(two.se)], String(x)).toEqual([true, true]);
    }
    expect(meanStd([1e308])).toEqual({ mean: 1e308, std: 0, se: 0 });
  });
});

describe("logLogSlope", () => {
  const xs = Array.from({ length: 50 }, (_, i) => 100 * (i + 1));

  it("recovers the exponent of exact power laws", () => {
    for (const [c, p] of [
      [3, 0.5],
      [1, 1],
      [0.2, 2 / 3],
      [5, 0],
    ] as const) {
      expect(
        logLogSlope(
          xs,
          xs.map((x) => c * x ** p),
        ),
      ).toBeCloseTo(p, 12);
    }
  });

  it("recovers it under multiplicative noise, over several seeds", () => {
    for (const seed of [1, 2, 3]) {
      const r = Rng.fromSeed(seed);
      const ys = xs.map((x) => 2 * x ** 0.5 * Math.exp(r.normal(0, 0.05)));
      expect(Math.abs(logLogSlope(xs, ys) - 0.5)).toBeLessThan(0.05);
    }
  });

  it("skips non-positive points and needs two", () => {
    expect(logLogSlope([1, 2, 4, 8], [0, -1, 16, 64])).toBeCloseTo(2, 12);
    expect(Number.isNaN(logLogSlope([1, 2], [1, 0]))).toBe(true);
    expect(Number.isNaN(logLogSlope([], []))).toBe(true);
    expect(logLogSlope([1, 2, 3, 4], [1, 4, Number.NaN, 16])).toBeCloseTo(2, 12); // NaN points skipped
  });
});

describe("MetricsRecorder pick shares over rounds", () => {
  it("records the windowed share of each arm at every checkpoint, zero-filled before its first pick", () => {
    const rec = new MetricsRecorder(6, 3); // checkpoints at t = 2, 4, 6
    const picks = ["a", "a", "a", "b", "b", "b"];
    for (const pick of picks) rec.record({ regret: 0, o2b: 0, optimal: true, reward: 0, cost: 0, pick, ms: 0 });
    expect(rec.series.t).toEqual([2, 4, 6]);
    expect(rec.series.pickShare).toEqual({ a: [1, 0.5, 0], b: [0, 0.5, 1] });
  });
});

describe("MetricsRecorder with hostile arm ids", () => {
  it("records pick shares for __proto__, constructor and toString like any other id", () => {
    const ids = ["__proto__", "constructor", "toString", "hasOwnProperty"];
    const m = new MetricsRecorder(40, 4);
    for (let t = 0; t < 40; t++) {
      m.record({ regret: 0, o2b: 0, optimal: true, reward: 1, cost: 0, pick: ids[t % ids.length] as string, ms: 0 });
    }
    const share = m.pickShare();
    expect(Object.keys(share).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(Object.getOwnPropertyDescriptor(share, id)?.value).toBe(0.25);
    const rows = m.series.pickShare ?? {};
    expect(Object.keys(rows).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(Object.getOwnPropertyDescriptor(rows, id)?.value as number[]).toHaveLength(4);
    expect(JSON.parse(JSON.stringify(rows)).constructor).toHaveLength(4);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
