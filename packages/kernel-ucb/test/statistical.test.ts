/**
 * Seeded statistical tests of spec §5.2. Embeddings use d = 64 instead of 512 to keep CI fast; the
 * geometry (cosines within and between categories) does not depend on d. Thresholds come from
 * RouteKit's own runs (numbers in each test), which explore more than the spec's NumPy reference:
 * see the README's "Deviations" section.
 */
import { LinUCBShared, OneArmOracle, RandomPolicy } from "@routekit/classic";
import { type ArmPolicy, logLogSlope, type Rng, runExperiment, seedStreams } from "@routekit/core";
import { type PresetOverrides, type PromptPoolPreset, promptPool, rkhsFunction } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { DotKernel, ExactKrr, KernelUcb, PakUcb, RffUcb } from "../src/index.js";
import { unitVectors } from "./helpers.js";

const DIM = 64;
type Maker = (arms: readonly string[], d: number, rng: Rng) => ArmPolicy;

function run(
  preset: PromptPoolPreset,
  makers: Record<string, Maker>,
  seeds: number[],
  horizon: number,
  o: PresetOverrides = {},
) {
  const env0 = promptPool(preset, { dim: DIM, ...o });
  return runExperiment({
    protocol: "arm",
    environment: () => promptPool(preset, { dim: DIM, ...o }),
    policies: Object.entries(makers).map(([label, m]) => ({
      label,
      create: ({ rng }: { rng: Rng }) => m(env0.initialArms, env0.contextDim, rng),
    })),
    seeds,
    horizon,
    points: 40,
  });
}
const mean = (res: ReturnType<typeof run>, label: string) => {
  const s = res.summary.find((x) => x.policy === label);
  if (!s) throw new Error(label);
  return { regret: s.regret.mean, opr: s.opr.mean, o2b: s.o2b.mean };
};
const pak: Maker = (arms, d, rng) => new PakUcb({ arms, contextDim: d, rng });
const rff: Maker = (arms, d, rng) => new RffUcb({ arms, contextDim: d, rng });
const codeEta = (G: number) => 2 * Math.log((2 * G) / 0.05); // the reference code's baselines (no sqrt)
const linucb: Maker = (arms, d, rng) =>
  new LinUCBShared({ arms, contextDim: d, rng, exploration: codeEta(arms.length) });

describe("S1: coverage of the confidence bound (realizable RKHS instance)", () => {
  it("|mu - s| <= (2 eta + sqrt(alpha)) sigma and mu + eta_paper sigma >= s in >= 95% of queries", () => {
    const d = 16;
    const delta = 0.05;
    const eta = Math.sqrt(2 * Math.log(2 / delta));
    const etaPaper = Math.sqrt(2 * Math.log(4 / delta));
    let two = 0;
    let one = 0;
    let total = 0;
    const kernel = new DotKernel({ type: "rbf", sigma: 1 });
    for (let seed = 0; seed < 50; seed++) {
      const { env: rng } = seedStreams(seed);
      const pool = unitVectors(rng, 250, d);
      const flat = new Float64Array(250 * d);
      pool.forEach((y, i) => {
        flat.set(y, i * d);
      });
      const f = rkhsFunction(flat, d, 250, 20, 1, 1, rng);
      const krr = new ExactKrr(d, kernel, 1, 256);
      for (let i = 0; i < 200; i++) {
        const y = pool[i] as Float64Array;
        const s = f(flat, i * d);
        const noise = seed % 2 === 0 ? rng.uniformIn(-(1 - Math.abs(s)), 1 - Math.abs(s)) : rng.normal(0, 0.1);
        krr.append(y, 1, s + noise, krr.row(y, 1), 1);
      }
      for (let i = 200; i < 250; i++) {
        const y = pool[i] as Float64Array;
        const b = krr.row(y, 1, new Float64Array(200));
        const mu = krr.mean(b);
        const sigma = Math.sqrt(krr.variance(b, 1));
        const s = f(flat, i * d);
        if (Math.abs(mu - s) <= (2 * eta + 1) * sigma) two++;
        if (mu + etaPaper * sigma >= s) one++;
        total++;
      }
    }
    // Measured: 100% and 100% (spec: 100%).
    expect(two / total).toBeGreaterThanOrEqual(0.95);
    expect(one / total).toBeGreaterThanOrEqual(0.95);
  });
});

describe("S3/S4/S5: prompt-dependent best arm (swap)", () => {
  it("PAK-UCB and RFF-UCB beat the one-arm oracle and LinUCB-shared; regret is sub-linear", () => {
    const res = run(
      "swap",
      {
        pak,
        rff,
        linucb,
        oracle: (arms, d) => new OneArmOracle({ arms, contextDim: d, arm: "a" }),
        random: (arms, d, rng) => new RandomPolicy({ arms, contextDim: d, rng }),
      },
      [1, 2],
      2000,
    );
    const p = mean(res, "pak");
    const r = mean(res, "rff");
    const l = mean(res, "linucb");
    const o = mean(res, "oracle");
    // Measured (3 seeds, d = 64): PAK 43.2 / OPR .973 / O2B .384; RFF 38.1 / .976 / .386; LinUCB 796; oracle 811.
    for (const x of [p, r]) {
      expect(x.opr).toBeGreaterThan(0.95);
      expect(x.o2b).toBeGreaterThan(0.3);
      expect(x.regret).toBeLessThan(60);
      expect(x.regret).toBeLessThan(0.3 * l.regret);
    }
    expect(o.regret).toBeGreaterThan(700);
    // S5: log-log slope of R(t) over t in [500, 2000] < 0.75 for both; about 1 for random.
    // Measured: PAK .64, RFF .59, random .97 (spec, t up to 4000: .32, .28, about 1).
    for (const label of ["pak", "rff", "random"]) {
      const runs = res.runs.filter((x) => x.policy === label);
      const slopes = runs.map((x) => {
        const idx = x.series.t.map((t, i) => (t >= 500 ? i : -1)).filter((i) => i >= 0);
        return logLogSlope(
          idx.map((i) => x.series.t[i] as number),
          idx.map((i) => x.series.regret[i] as number),
        );
      });
      const m = slopes.reduce((a, b) => a + b, 0) / slopes.length;
      if (label === "random") expect(m).toBeGreaterThan(0.9);
      else expect(m).toBeLessThan(0.75);
    }
  });

  it("S5 at T = 4000 (RFF-UCB): R(4000) / R(1000) < 2.5 and log-log slope < 0.75", () => {
    const res = run("swap", { rff }, [1, 2], 4000);
    const ratios: number[] = [];
    const slopes: number[] = [];
    for (const r of res.runs) {
      const at = (t: number) => r.series.regret[r.series.t.indexOf(t)] as number;
      ratios.push(at(4000) / at(1000));
      slopes.push(logLogSlope([500, 1000, 2000, 4000], [at(500), at(1000), at(2000), at(4000)]));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Measured: ratios 1.76 and 2.03, slopes .51 and .53 (spec, RFF sigma = 1: 1.59 and .28).
    expect(mean(ratios)).toBeLessThan(2.5);
    expect(mean(slopes)).toBeLessThan(0.75);
  });

  it("KernelUCB-shared is no match either (T = 1000)", () => {
    const res = run(
      "swap",
      {
        rff,
        kernelucb: (arms, d, rng) => new KernelUcb({ arms, contextDim: d, rng, exploration: codeEta(arms.length) }),
      },
      [1],
      1000,
    );
    // Measured: RFF 28.0, KernelUCB 320 (OPR .965 vs .60).
    expect(mean(res, "rff").regret).toBeLessThan(0.3 * mean(res, "kernelucb").regret);
  });
});

describe("S4/S6: expert5big (five experts)", () => {
  it("per-arm methods beat LinUCB-shared; RFF-UCB within 1.6x of exact PAK-UCB", () => {
    const res = run("expert5big", { pak, rff, linucb }, [1, 2], 2000);
    const p = mean(res, "pak");
    const r = mean(res, "rff");
    const l = mean(res, "linucb");
    // Measured (these 2 seeds): PAK 294 / OPR .633, RFF 267 / .666, LinUCB 638 (spec's NumPy: 73.7, 98.7, 638).
    expect(p.regret).toBeLessThan(0.55 * l.regret);
    expect(r.regret).toBeLessThan(0.55 * l.regret);
    expect(p.o2b).toBeGreaterThan(0.1);
    expect(r.regret).toBeLessThan(1.6 * p.regret);
    expect(Math.abs(r.opr - p.opr)).toBeLessThan(0.08);
  });
});

describe("S7: no harm when one arm dominates", () => {
  it("PAK-UCB mostly plays the dominant arm; O2B stays near 0", () => {
    const res = run("dominant", { pak }, [1], 1500);
    const p = mean(res, "pak");
    // Measured: OPR .864, O2B -.068 here (T = 2000, 3 seeds: .873 / -.064; spec: .991 / -.004); see README.
    expect(p.opr).toBeGreaterThan(0.8);
    expect(p.o2b).toBeGreaterThan(-0.1);
  });
});

describe("S8: adaptation to an arm added at run time", () => {
  it("the new arm takes most picks on the category where it is best", () => {
    const env = promptPool("nonstationary-arm", { dim: DIM, contrast: 20, arrivalRound: 1000 });
    const streams = seedStreams(3);
    env.reset(streams.env);
    const p = new RffUcb({ arms: env.initialArms, contextDim: DIM, rng: streams.policy("rff") });
    let newOnTrain = 0;
    let train = 0;
    for (let t = 0; t < 2000; t++) {
      const round = env.next(t);
      for (const a of round.arrivals ?? []) p.addArm(a);
      const d = p.select(round.context);
      p.update(d, env.pull(d.arm));
      if (t >= 1000 && env.currentCategory === 0) {
        train++;
        if (d.arm === "unidiffuser") newOnTrain++;
      }
    }
    // Measured: 1.00 of the "train" picks in the 1000 rounds after the arrival.
    expect(newOnTrain / train).toBeGreaterThan(0.6);
  });
});

describe("S10: scale sensitivity (documents spec P1)", () => {
  it("PAK-UCB-poly3 gamma = 5 explores almost uniformly on [0, 1] scores and exploits on the x100 scale", () => {
    const poly =
      (scale: number): Maker =>
      (arms, d, rng) =>
        new PakUcb({ arms, contextDim: d, rng, kernel: { type: "poly", gamma: 5 }, scoreTransform: { scale } });
    const res = run("swap", { unit: poly(1), x100: poly(100) }, [1], 1000, { tau: 0.4 });
    // Measured: OPR .603 and .998 (spec: .54 and .998).
    expect(mean(res, "unit").opr).toBeLessThan(0.7);
    expect(mean(res, "x100").opr).toBeGreaterThan(0.95);
  });
});
