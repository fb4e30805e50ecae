/**
 * Seeded statistical checks of OFU-MNL+ and its baselines (the independent Python rerun's checks), on the paper's
 * Section 6 set-up (N = 100 items, d = 5, features N(0, I) clipped to ±1/√d and redrawn every round, w* ~
 * U[-1/√d, 1/√d]^d, T = 3000) with the rerun's seed counts and thresholds. The runtime check is a benchmark
 * (`pnpm bench`), not a test.
 *
 * Runs are seeded per policy label and environment seed, independent of the other policies of an experiment, so
 * each configuration runs once (`runs` below is a memo) and the tests that need it read its checkpoints.
 */

import { readFileSync } from "node:fs";
import { type AssortmentPolicy, logLogSlope, Rng, type RunResult, runExperiment } from "@routekit/core";
import { ContextualMnlEnvironment } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, optimalAssortment, TsMnl, UcbMnl } from "../src/index.js";

const seeds = (n: number) => Array.from({ length: n }, (_, i) => i);
const T = 3000;
/** Each test takes seconds of CPU; the wall time on a shared 2-core machine can be many times that. */
const HEAVY = 900_000;

type Rewards = "uniform" | "nonuniform";
type Maker = (K: number, v0: number, rng: Rng) => AssortmentPolicy;
const makers: Record<string, Maker> = {
  "ofu-authors-uniform": (K, v0) => new OfuMnlPlus({ contextDim: 5, maxSize: K, v0, preset: "authors-uniform" }),
  "ofu-authors-nonuniform": (K, v0) => new OfuMnlPlus({ contextDim: 5, maxSize: K, v0, preset: "authors-nonuniform" }),
  "ofu-paper": (K, v0) => new OfuMnlPlus({ contextDim: 5, maxSize: K, v0, preset: "paper" }),
  "ofu-practical": (K, v0) => new OfuMnlPlus({ contextDim: 5, maxSize: K, v0, preset: "practical" }),
  // The reference code's constants: alpha frozen at t = 1, kappa without v0; alpha / 10 and the [0, 2] clip
  // under non-uniform revenues.
  "ucb-uniform": (K, v0) => new UcbMnl({ contextDim: 5, maxSize: K, v0 }),
  "ts-uniform": (K, v0, rng) => new TsMnl({ contextDim: 5, maxSize: K, v0, rng }),
  "ucb-nonuniform": (K, v0) => new UcbMnl({ contextDim: 5, maxSize: K, v0, preset: "authors-nonuniform" }),
  "ts-nonuniform": (K, v0, rng) => new TsMnl({ contextDim: 5, maxSize: K, v0, rng, preset: "authors-nonuniform" }),
};

const memo = new Map<string, RunResult[]>();
/** The runs of policy `label` on seeds 0..n-1 to T = 3000 (memoised: each configuration runs once per file). */
function runs(label: string, K: number, v0: number, rewards: Rewards, n: number): RunResult[] {
  const key = `${label}|${K}|${v0}|${rewards}|${n}`;
  let r = memo.get(key);
  if (!r) {
    const make = makers[label] as Maker;
    r = runExperiment({
      protocol: "assortment",
      environment: () =>
        new ContextualMnlEnvironment({
          numItems: 100,
          contextDim: 5,
          maxSize: K,
          v0,
          rewards,
          oracle: optimalAssortment,
        }),
      policies: [{ label, create: ({ rng }) => make(K, v0, rng) }],
      seeds: seeds(n),
      horizon: T,
      points: T / 100,
    }).runs;
    memo.set(key, r);
  }
  return r;
}

const at = (r: RunResult, t: number) => {
  const i = r.series.t.indexOf(t);
  if (i < 0) throw new Error(`no checkpoint at t = ${t}`);
  return r.series.regret[i] as number;
};
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const meanAt = (rs: RunResult[], t: number) => meanOf(rs.map((r) => at(r, t)));
const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
/** Final regret per seed of `rs`, for the logs. */
const perSeed = (rs: RunResult[]) => fmt(rs.map((r) => at(r, T)));
/** Mean |S_t| of a run (the runner records each round's pick as `size:<|S_t|>`). */
const meanSize = (r: RunResult) => Object.entries(r.pickShare).reduce((a, [k, v]) => a + Number(k.slice(5)) * v, 0);

describe("OFU-MNL+ statistical behaviour (seeded)", () => {
  it(
    "confidence set: ||w_t - w*||_{H_t} <= beta_t(0.05) at every t <= 4000 in every one of 20 seeds; " +
      "median ||w_T - w*|| at T = 4000 below that at T = 500",
    () => {
      // Confidence set: d = 5, N = 100, K = 5, theory-mode beta, delta = 0.05 (the `paper` preset), 20 seeds, T = 2000;
      // the estimation check reads the same runs at T = 500 and T = 4000 (every t up to 4000 is checked too).
      const early: number[] = [];
      const late: number[] = [];
      const worst: number[] = [];
      for (const seed of seeds(20)) {
        const env = new ContextualMnlEnvironment({ numItems: 100, contextDim: 5, maxSize: 5 });
        env.reset(Rng.fromSeed(seed).fork("environment"));
        const wStar = env.parameter;
        const p = new OfuMnlPlus({ contextDim: 5, maxSize: 5, preset: "paper" });
        let w = 0;
        for (let t = 0; t < 4000; t++) {
          const q = env.next(t);
          const d = p.select(q);
          p.update(d, { choice: env.choose(d.items) });
          w = Math.max(w, p.confidenceDistance(wStar) / (p.beta as number));
          if (t === 499 || t === 3999) {
            const dist = Math.hypot(...Array.from(p.weights, (x, k) => x - (wStar[k] as number)));
            (t === 499 ? early : late).push(dist);
          }
        }
        worst.push(w);
      }
      const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
      console.log("confidence: worst ||w_t - w*||_H / beta_t per seed", worst.map((x) => x.toFixed(3)).join(" "));
      console.log(
        "estimation: median ||w - w*|| at T = 500",
        median(early).toFixed(3),
        "at T = 4000",
        median(late).toFixed(3),
      );
      // Threshold: >= 95% of seeds; measured 100% (every seed: worst ratio 0.041-0.083, the exact beta of App. F.1 is
      // very loose), so the test asserts every seed. Median ||w - w*||: 0.528 at T = 500, 0.322 at T = 4000.
      for (const x of worst) expect(x).toBeLessThan(1);
      expect(median(late)).toBeLessThan(median(early));
    },
    HEAVY,
  );

  it(
    "sub-linear regret (authors-uniform, K = 5, 10 seeds, T = 3000): last third below first third, " +
      "log-log slope over T = 500, 1000, 2000, 3000 < 0.9",
    () => {
      const rs = runs("ofu-authors-uniform", 5, 1, "uniform", 10);
      const marks = [500, 1000, 2000, 3000];
      const curve = marks.map((t) => meanAt(rs, t));
      const slope = logLogSlope(marks, curve);
      const first = meanAt(rs, 1000);
      const last = meanAt(rs, 3000) - meanAt(rs, 2000);
      console.log("K = 5 mean regret at 500/1000/2000/3000", fmt(curve), "slope", slope.toFixed(3));
      console.log("K = 5 mean regret in the first / last third", fmt([first, last]));
      console.log("per seed first third", fmt(rs.map((r) => at(r, 1000))));
      console.log("per seed last third", fmt(rs.map((r) => at(r, 3000) - at(r, 2000))));
      // Thresholds: mean per-round regret in the last third below the first third; slope < 0.9 (about 0.8 expected).
      // Measured (seeds 0-9): mean regret 14.0 / 24.7 / 43.3 / 59.5, slope 0.810; thirds 24.7 and 16.2.
      expect(last).toBeLessThan(first);
      expect(slope).toBeLessThan(0.9);
      // As before (then over t in [300, 1500], < 0.95): the slope of the mean curve over every checkpoint from t = 300.
      const ts = rs[0]?.series.t.filter((t) => t >= 300) as number[];
      const curveSlope = logLogSlope(
        ts,
        ts.map((t) => meanAt(rs, t)),
      );
      console.log("K = 5 log-log slope of the mean curve over t in [300, 3000]", curveSlope.toFixed(3));
      expect(curveSlope).toBeLessThan(0.9);
      // Also every seed on its own (as before at T = 1500).
      for (const r of rs) expect(at(r, 3000) - at(r, 2000)).toBeLessThan(at(r, 1000));
    },
    HEAVY,
  );

  it(
    "uniform revenues, v0 = 1 (10 seeds, T = 3000): Reg(K = 5) > Reg(10) > Reg(15), each within 15% of " +
      "60 / 46 / 37; with v0 = K/5 regret does not fall with K",
    () => {
      const reg = (K: number, v0: number) => meanAt(runs("ofu-authors-uniform", K, v0, "uniform", 10), T);
      const r5 = reg(5, 1);
      const r10 = reg(10, 1);
      const r15 = reg(15, 1);
      // v0 = K/5 is v0 = 1 at K = 5, the same runs.
      const r10k = reg(10, 2);
      const r15k = reg(15, 3);
      console.log("K-trend v0 = 1:", fmt([r5, r10, r15]), "v0 = K/5:", fmt([r5, r10k, r15k]));
      for (const [K, v0] of [
        [5, 1],
        [10, 1],
        [15, 1],
        [10, 2],
        [15, 3],
      ] as const) {
        console.log(`K = ${K}, v0 = ${v0} per seed:`, perSeed(runs("ofu-authors-uniform", K, v0, "uniform", 10)));
      }
      expect(r5).toBeGreaterThan(r10);
      expect(r10).toBeGreaterThan(r15);
      // The README's results table quotes the v0 = K/5 row (OFU-MNL+ alone, seeds 0-9) to one decimal.
      const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
      const quotedRow =
        /\| uniform, v0 = K\/5, K = 5 \/ 10 \/ 15 \(OFU only, 10 seeds\) \| ([\d.]+) \/ ([\d.]+) \/ ([\d.]+) \|/.exec(
          readme,
        );
      expect(quotedRow?.slice(1, 4)).toEqual([r5, r10k, r15k].map((x) => x.toFixed(1)));
      // The Python rerun's code-mode expectation, "about 60 / 46 / 37 (± roughly 15%)". Measured (seeds 0-9): 59.5 / 45.7 /
      // 36.2; v0 = K/5: 59.5 / 80.2 / 90.5 (rerun: 60 / 80 / 93).
      for (const [r, ref] of [
        [r5, 60],
        [r10, 46],
        [r15, 37],
      ] as const) {
        expect(Math.abs(r / ref - 1)).toBeLessThan(0.15);
      }
      // v0 = K/5: no strict decrease (the rerun measured 60 / 80 / 93); it even grows to K = 15.
      expect(r5 > r10k && r10k > r15k).toBe(false);
      expect(r15k).toBeGreaterThan(r5);
    },
    HEAVY,
  );

  it(
    "uniform revenues, reference constants (5 seeds, T = 3000): OFU-MNL+ < UCB-MNL < TS-MNL for K = 5, 10, 15",
    () => {
      for (const K of [5, 10, 15]) {
        // OFU-MNL+'s first 5 seeds of its 10-seed runs: the same environment instances as the baselines'.
        const ofu = meanAt(runs("ofu-authors-uniform", K, 1, "uniform", 10).slice(0, 5), T);
        const ucb = meanAt(runs("ucb-uniform", K, 1, "uniform", 5), T);
        const ts = meanAt(runs("ts-uniform", K, 1, "uniform", 5), T);
        console.log(`K = ${K}: OFU / UCB / TS`, fmt([ofu, ucb, ts]));
        console.log(`K = ${K} per seed: UCB`, perSeed(runs("ucb-uniform", K, 1, "uniform", 5)));
        console.log(`K = ${K} per seed: TS`, perSeed(runs("ts-uniform", K, 1, "uniform", 5)));
        // Measured (seeds 0-4): K = 5 61.0 / 72.1 / 159.5, K = 10 46.9 / 51.3 / 83.4, K = 15 37.0 / 44.4 / 53.3.
        expect(ofu).toBeLessThan(ucb);
        expect(ucb).toBeLessThan(ts);
      }
    },
    HEAVY,
  );

  it(
    "non-uniform revenues (5 seeds, T = 3000): the paper preset collapses to |S| = 1; authors-nonuniform " +
      "offers large sets, beats UCB-MNL and TS-MNL at K = 5 and 15, and its regret does not fall from K = 5 to 15",
    () => {
      const reg: Record<string, number> = {};
      for (const K of [5, 15]) {
        const paper = runs("ofu-paper", K, 1, "nonuniform", 5);
        const ofu = runs("ofu-authors-nonuniform", K, 1, "nonuniform", 5);
        const ucb = meanAt(runs("ucb-nonuniform", K, 1, "nonuniform", 5), T);
        const ts = meanAt(runs("ts-nonuniform", K, 1, "nonuniform", 5), T);
        const sizePaper = meanOf(paper.map(meanSize));
        const sizeOfu = meanOf(ofu.map(meanSize));
        reg[K] = meanAt(ofu, T);
        console.log(
          `K = ${K}: mean |S| paper ${sizePaper.toFixed(2)} authors ${sizeOfu.toFixed(2)};`,
          "regret paper / authors / UCB / TS",
          fmt([meanAt(paper, T), reg[K] as number, ucb, ts]),
        );
        for (const label of ["ofu-paper", "ofu-authors-nonuniform", "ucb-nonuniform", "ts-nonuniform"]) {
          console.log(`non-uniform K = ${K} per seed: ${label}`, perSeed(runs(label, K, 1, "nonuniform", 5)));
        }
        // Measured (seeds 0-4): K = 5 |S| 1.00 / 5.00, regret 968.2 / 14.5 / 16.7 / 34.4; K = 15 |S| 1.00 / 9.35,
        // regret 1113.9 / 23.7 / 154.2 / 68.1.
        expect(sizePaper).toBeLessThan(1.2);
        expect(sizeOfu).toBeGreaterThan(3);
        expect(reg[K]).toBeLessThan(meanAt(paper, T) / 3);
        expect(reg[K]).toBeLessThan(ucb);
        expect(reg[K]).toBeLessThan(ts);
      }
      expect(reg[15]).toBeGreaterThanOrEqual(reg[5] as number);
    },
    HEAVY,
  );

  it(
    "logistic special case (K = 1, r = 1, v0 = 1) runs with sub-linear regret",
    () => {
      // The check names no preset, seed count or threshold; "sub-linear" is the K = 5 test's criterion (mean regret per
      // round in the last third below the first third). The default (`paper`) preset meets it, barely: with the
      // theoretical beta (~230 here) the K = 1 curve is still nearly linear at T = 3000. The practical preset is
      // asserted with the margin measured before (last third below 0.7x the first).
      const thirds = (rs: RunResult[]) => ({
        first: meanAt(rs, T / 3),
        last: meanAt(rs, T) - meanAt(rs, (2 * T) / 3),
      });
      const paper = thirds(runs("ofu-paper", 1, 1, "uniform", 4));
      const practical = thirds(runs("ofu-practical", 1, 1, "uniform", 4));
      console.log(
        "K = 1 regret first / last third: paper",
        fmt([paper.first, paper.last]),
        "practical",
        fmt([practical.first, practical.last]),
      );
      // Measured (seeds 0-3, means): paper 79.6 / 61.6 (0.77x); practical 51.9 / 25.5 (0.49x).
      expect(paper.last).toBeLessThan(paper.first);
      expect(practical.last).toBeLessThan(0.7 * practical.first);
    },
    HEAVY,
  );
});
