/**
 * Shared set-up of the seeded statistical tests (statistical*.test.ts): runs policies on a prompt
 * environment in the `fresh` mode (a new prompt every round), which is the mode the independent
 * reference runs behind the thresholds used.
 */
import { LinUCBShared, OneArmOracle, RandomPolicy } from "@routekit/classic";
import { type ArmPolicy, logLogSlope, type Rng, runExperiment } from "@routekit/core";
import { type PresetOverrides, type PromptPoolPreset, promptPool } from "@routekit/environments";
import { KernelUcb, PakUcb, RffUcb } from "../src/index.js";

/**
 * The reference runs' embedding dimension. The thresholds depend on it: with fewer dimensions than
 * rounds, the per-prompt part of an RBF(1) kernel becomes learnable, so the arm with more data gets a
 * much smaller confidence width than the others and they keep being tried (at d = 64, swap regret is
 * about 3x, and PAK-UCB's OPR on the dominant-arm case .90 instead of .99).
 */
export const PAPER_DIM = 512;
/** The reference's seed count for the swap checks (prompt-dependent best arm, sub-linear regret: 5 seeds). */
export const SEEDS = [1, 2, 3, 4, 5];
/**
 * The seed count of the reference's calibration runs (T = 2000, 3 seeds), for the checks that name none: expert5big,
 * the dominant arm, the new arm and Sup-PAK-UCB.
 */
export const CALIBRATION_SEEDS = [1, 2, 3];
export type Maker = (arms: readonly string[], d: number, rng: Rng) => ArmPolicy;

export function run(
  preset: PromptPoolPreset,
  makers: Record<string, Maker>,
  seeds: number[],
  horizon: number,
  o: PresetOverrides = {},
) {
  const opts: PresetOverrides = { contextDim: PAPER_DIM, sampling: "fresh", ...o };
  const env0 = promptPool(preset, opts);
  return runExperiment({
    protocol: "arm",
    environment: () => promptPool(preset, opts),
    policies: Object.entries(makers).map(([label, m]) => ({
      label,
      create: ({ rng }: { rng: Rng }) => m(env0.initialArms, env0.contextDim, rng),
    })),
    seeds,
    horizon,
    points: 40,
  });
}

export const mean = (res: ReturnType<typeof run>, label: string) => {
  const s = res.summary.find((x) => x.policy === label);
  if (!s) throw new Error(label);
  return { regret: s.regret.mean, opr: s.opr.mean, o2b: s.o2b.mean };
};

/**
 * The means over seeds of `label`'s regret, OPR and O2B at checkpoint `t` of a longer run. Runs are seeded per
 * policy label and environment, independent of the horizon and of the other policies, so this equals `mean` of a
 * run with horizon `t` (the same numbers, bit for bit): one long run serves the tests at shorter horizons.
 */
export const meanAt = (res: ReturnType<typeof run>, label: string, t: number) => {
  const rs = res.runs.filter((x) => x.policy === label);
  if (rs.length === 0) throw new Error(label);
  const pick = (r: (typeof rs)[number], k: "regret" | "opr" | "o2b") => {
    const i = r.series.t.indexOf(t);
    if (i < 0) throw new Error(`no checkpoint at t = ${t}`);
    return r.series[k][i] as number;
  };
  return {
    regret: meanOf(rs.map((r) => pick(r, "regret"))),
    opr: meanOf(rs.map((r) => pick(r, "opr"))),
    o2b: meanOf(rs.map((r) => pick(r, "o2b"))),
  };
};

/** Prints each run of `res` at checkpoints `ts`: regret / OPR / O2B per seed (the numbers the tests quote). */
export function showRuns(tag: string, res: ReturnType<typeof run>, ts: number[]): void {
  for (const r of res.runs) {
    const vals = ts.map((t) => {
      const i = r.series.t.indexOf(t);
      const f = (k: "regret" | "opr" | "o2b", n: number) => (r.series[k][i] as number).toFixed(n);
      return `t=${t} ${f("regret", 1)} / ${f("opr", 3)} / ${f("o2b", 3)}`;
    });
    console.log(`${tag} ${r.policy} seed ${r.seed}: ${vals.join(", ")}`);
  }
}

export const meanOf = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;

/** Mean log-log slope of the regret curves of `label` over checkpoints t >= from. */
export function regretSlope(res: ReturnType<typeof run>, label: string, from: number): number {
  return meanOf(
    res.runs
      .filter((x) => x.policy === label)
      .map((x) => {
        const idx = x.series.t.map((t, i) => (t >= from ? i : -1)).filter((i) => i >= 0);
        return logLogSlope(
          idx.map((i) => x.series.t[i] as number),
          idx.map((i) => x.series.regret[i] as number),
        );
      }),
  );
}

export const pak: Maker = (arms, d, rng) => new PakUcb({ arms, contextDim: d, rng });
export const rff: Maker = (arms, d, rng) => new RffUcb({ arms, contextDim: d, rng });
/** The reference code's exploration for its shared-weight baselines: 2 ln(2G/delta), no square root. */
export const codeEta = (G: number) => 2 * Math.log((2 * G) / 0.05);
export const linucb: Maker = (arms, d, rng) =>
  new LinUCBShared({ arms, contextDim: d, rng, exploration: codeEta(arms.length) });
export const kernelucb: Maker = (arms, d, rng) =>
  new KernelUcb({ arms, contextDim: d, rng, exploration: codeEta(arms.length) });
export const oracle =
  (arm: string): Maker =>
  (arms, d) =>
    new OneArmOracle({ arms, contextDim: d, arm });
export const random: Maker = (arms, d, rng) => new RandomPolicy({ arms, contextDim: d, rng });

/**
 * PAK-UCB and RFF-UCB on swap to T = 4000 on {@link SEEDS}, run once per worker: the T = 2000, T = 1000 and
 * sub-linear-regret tests read its checkpoints (the same numbers as runs stopped there, see `meanAt`), so the costly exact learner
 * (about 17 s of CPU per seed to T = 4000) is not re-run.
 */
let swapLongRun: ReturnType<typeof run> | undefined;
export const swapLong = () => {
  swapLongRun ??= run("swap", { pak, rff }, SEEDS, 4000);
  return swapLongRun;
};
