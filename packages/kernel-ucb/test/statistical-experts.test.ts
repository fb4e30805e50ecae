/**
 * Regret and pick ratio on expert5big (five experts: .7 on their
 * category, .3 elsewhere, noise .1) and no harm on a dominant arm ([[.8,.8],[.3,.3]]), fresh prompts, d = 512, with
 * the thresholds of the independent reference runs. These checks name no seed count; they use the set-up of the
 * reference's calibration runs behind their numbers (T = 2000, 3 seeds) and assert the mean over those
 * seeds. Each test prints its per-seed numbers.
 */
import { describe, expect, it } from "vitest";
import {
  kernelucb,
  linucb,
  mean,
  meanAt,
  pak,
  rff,
  run,
  CALIBRATION_SEEDS as SEEDS3,
  showRuns,
} from "./statistical-helpers.js";

/** Each test takes seconds of CPU; the wall time on a shared 2-core machine can be many times that. */
const HEAVY = 900_000;

/** The T = 2000 run of the per-arm learners and LinUCB-shared; the T = 1000 test reads its checkpoint (see `meanAt`). */
let expertRun: ReturnType<typeof run> | undefined;
const experts = () => {
  expertRun ??= run("expert5big", { pak, rff, linucb }, SEEDS3, 2000);
  return expertRun;
};

describe("expert5big (T = 2000)", () => {
  it(
    "per-arm learners below 0.3x LinUCB-shared's regret; RFF-UCB within 1.6x of exact PAK-UCB, OPR within .08",
    () => {
      const res = experts();
      showRuns("expert5big", res, [1000, 2000]);
      const p = mean(res, "pak");
      const r = mean(res, "rff");
      const l = mean(res, "linucb");
      console.log("expert5big T = 2000 means (regret / OPR / O2B): pak", p, "rff", r, "linucb", l);
      // Measured (means of seeds 1-3): PAK 65.1 / OPR .918 / O2B .285, RFF 87.1 / .891, LinUCB 640.5
      // (reference, 3 seeds: PAK 73.7 / OPR .91, RFF 98.7 / .88, LinUCB 638).
      expect(p.regret).toBeLessThan(0.3 * l.regret);
      expect(r.regret).toBeLessThan(0.3 * l.regret);
      expect(p.o2b).toBeGreaterThan(0.1);
      expect(r.regret).toBeLessThan(1.6 * p.regret);
      expect(Math.abs(r.opr - p.opr)).toBeLessThan(0.08);
    },
    HEAVY,
  );

  it(
    "PAK-UCB and RFF-UCB below 0.3x KernelUCB-shared's regret (T = 1000, stricter than at T = 2000)",
    () => {
      // KernelUCB-shared at T = 1000 rather than 2000: O(t^2) per round, and a linear regret against the per-arm
      // learners' flattening one, so the ratio is larger (the test stricter) at T = 1000 (see statistical-swap).
      const res = run("expert5big", { kernelucb }, SEEDS3, 1000);
      showRuns("expert5big KernelUCB", res, [1000]);
      console.log(
        "expert5big T = 1000 mean regret: KernelUCB",
        mean(res, "kernelucb").regret,
        "PAK",
        meanAt(experts(), "pak", 1000).regret,
        "RFF",
        meanAt(experts(), "rff", 1000).regret,
      );
      // Measured (means of seeds 1-3): PAK 55.2, RFF 67.3, KernelUCB 286.1 (reference at T = 2000: KernelUCB 590, PAK
      // 73.7, RFF 98.7).
      expect(meanAt(experts(), "pak", 1000).regret).toBeLessThan(0.3 * mean(res, "kernelucb").regret);
      expect(meanAt(experts(), "rff", 1000).regret).toBeLessThan(0.3 * mean(res, "kernelucb").regret);
    },
    HEAVY,
  );
});

describe("no harm when one arm dominates", () => {
  it(
    "PAK-UCB's OPR > .9 and O2B > -.05 by T = 2000",
    () => {
      const res = run("dominant", { pak }, SEEDS3, 2000);
      showRuns("dominant", res, [2000]);
      const p = mean(res, "pak");
      console.log("dominant T = 2000 means (regret / OPR / O2B):", p);
      // Measured (seeds 1-3): OPR .988 / .989 / .990, O2B -.006 / -.006 / -.005 (reference: .991 / -.004; at d = 64 it
      // is .90 / -.052, see statistical-helpers.ts).
      expect(p.opr).toBeGreaterThan(0.9);
      expect(p.o2b).toBeGreaterThan(-0.05);
    },
    HEAVY,
  );
});
