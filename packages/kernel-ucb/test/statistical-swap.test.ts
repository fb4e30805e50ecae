/**
 * Prompt-dependent best arm, regret against the shared baselines and
 * sub-linear regret on the swap environment (means [[.9,.1],[.1,.9]], noise .1), fresh prompts, d = 512, on the
 * independent reference's 5 seeds, asserting its statistic (the mean over seeds) against its thresholds. Each test
 * prints what it measured per seed; the comments quote those numbers beside the independent reference's.
 */

import { logLogSlope } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  kernelucb,
  linucb,
  meanAt,
  meanOf,
  oracle,
  random,
  regretSlope,
  run,
  SEEDS,
  showRuns,
  swapLong,
} from "./statistical-helpers.js";

/** Each test takes seconds of CPU; the wall time on a shared 2-core machine can be many times that. */
const HEAVY = 900_000;

describe("a prompt-dependent best arm (swap, T = 2000, 5 seeds)", () => {
  it(
    "PAK-UCB and RFF-UCB: mean OPR > .95, mean O2B > .3, mean regret < 60 and below 0.3x LinUCB-shared's",
    () => {
      const res = run("swap", { linucb, oracle: oracle("a"), random }, SEEDS, 2000);
      showRuns("swap baselines", res, [2000]);
      const p = meanAt(swapLong(), "pak", 2000);
      const r = meanAt(swapLong(), "rff", 2000);
      const l = meanAt(res, "linucb", 2000);
      console.log("swap T = 2000 means (regret / OPR / O2B): pak", p, "rff", r, "linucb", l);
      // Measured (seeds 1-5): PAK regret 8.0-8.8, mean 8.3 / OPR .995 / O2B .403; RFF 9.6-12.0, mean 10.9 / .993 /
      // .402; LinUCB mean 792.6; oracle mean 814.4; random slope about 1
      // (reference, 3 seeds: PAK 7.7 / OPR .995 / O2B .397, RFF 9.9 / .994, LinUCB 788, oracle 801).
      for (const x of [p, r]) {
        expect(x.opr).toBeGreaterThan(0.95);
        expect(x.o2b).toBeGreaterThan(0.3);
        expect(x.regret).toBeLessThan(60);
        expect(x.regret).toBeLessThan(0.3 * l.regret);
      }
      // The one-arm oracle's regret is about 800 (reference: 801).
      expect(meanAt(res, "oracle", 2000).regret).toBeGreaterThan(700);
      // The random baseline's regret grows linearly (log-log slope about 1).
      expect(regretSlope(res, "random", 500)).toBeGreaterThan(0.9);
    },
    HEAVY,
  );

  it(
    "mean regret below 0.3x KernelUCB-shared's (T = 1000, a stricter ratio than at T = 2000)",
    () => {
      // KernelUCB-shared is O(t^2) per round: T = 2000 costs 5.8 s per seed against 0.3 s at T = 1000. Its regret
      // grows linearly while the per-arm learners' is flat, so the ratio is larger (the test stricter) at T = 1000:
      // measured on seeds 1-5, KernelUCB 296-306 (mean 300.8) at T = 1000 and 667-682 (mean 675.4) at T = 2000;
      // PAK / KernelUCB 0.024 at T = 1000 against 0.012 at T = 2000.
      const res = run("swap", { kernelucb }, SEEDS, 1000);
      showRuns("swap KernelUCB", res, [1000]);
      const k = meanAt(res, "kernelucb", 1000).regret;
      console.log(
        "swap T = 1000 mean regret: KernelUCB",
        k,
        "PAK",
        meanAt(swapLong(), "pak", 1000).regret,
        "RFF",
        meanAt(swapLong(), "rff", 1000).regret,
      );
      // Measured: PAK 7.4, RFF 9.1, KernelUCB 300.8 (reference at T = 2000: KernelUCB 719, PAK 7.7, RFF 9.9).
      expect(meanAt(swapLong(), "pak", 1000).regret).toBeLessThan(0.3 * k);
      expect(meanAt(swapLong(), "rff", 1000).regret).toBeLessThan(0.3 * k);
    },
    HEAVY,
  );
});

describe("sub-linear regret (swap, R(T) at T = 500, 1000, 2000, 4000, 5 seeds)", () => {
  it(
    "PAK-UCB and RFF-UCB: R(4000) / R(1000) < 2.5 and log-log slope < 0.75, of the mean regret and per seed",
    () => {
      const res = swapLong();
      showRuns("swap to T = 4000", res, [500, 1000, 2000, 4000]);
      const marks = [500, 1000, 2000, 4000];
      for (const label of ["pak", "rff"]) {
        // The reference's statistic: R(T) is the mean regret over the 5 seeds.
        const R = marks.map((t) => meanAt(res, label, t).regret);
        const ratio = (R[3] as number) / (R[1] as number);
        const slope = logLogSlope(marks, R);
        console.log(
          `sub-linear ${label}: mean R`,
          R.map((x) => x.toFixed(2)).join(" "),
          "ratio",
          ratio.toFixed(3),
          "slope",
          slope.toFixed(3),
        );
        // Measured: PAK 6.6 / 7.4 / 8.3 / 11.4, ratio 1.54, slope .26; RFF 7.7 / 9.3 / 10.9 / 14.9, ratio 1.60, slope .31
        // (reference: PAK 5.6 / 6.7 / 7.7 / 11.2, ratio 1.68, slope .32; RFF ratio 1.59, slope .28).
        expect(ratio).toBeLessThan(2.5);
        expect(slope).toBeLessThan(0.75);
        // As before, also the mean over seeds of the per-seed ratio and of the per-seed slope over every checkpoint
        // from t = 500 on.
        const ratios = res.runs
          .filter((x) => x.policy === label)
          .map(
            (r) =>
              (r.series.regret[r.series.t.indexOf(4000)] as number) /
              (r.series.regret[r.series.t.indexOf(1000)] as number),
          );
        expect(meanOf(ratios)).toBeLessThan(2.5);
        expect(regretSlope(res, label, 500)).toBeLessThan(0.75);
      }
    },
    HEAVY,
  );
});
