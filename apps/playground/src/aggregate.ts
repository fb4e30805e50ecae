import { type ExperimentResult, meanStd, type RunResult, type Series } from "@routekit/core";

export const METRICS = ["regret", "o2b", "opr", "cost", "reward", "usPerRound", "queriesPerRound"] as const;
export type Metric = (typeof METRICS)[number];

export const METRIC_TITLES: Record<Metric, { title: string; axis: string }> = {
  regret: { title: "Cumulative regret", axis: "cumulative pseudo-regret vs the per-round oracle" },
  o2b: { title: "O2B (outscore the best)", axis: "mean reward minus best single model's" },
  opr: { title: "OPR (optimal-pick ratio)", axis: "fraction of rounds with an optimal pick" },
  cost: { title: "Cumulative cost", axis: "cumulative realised cost" },
  reward: { title: "Cumulative reward", axis: "cumulative realised reward" },
  usPerRound: { title: "Time per round", axis: "microseconds per round (select + update)" },
  queriesPerRound: { title: "Queries per request", axis: "boxes opened per request (running mean; cascades)" },
};

/** One plotted point: the mean over seeds and a band of +- one standard error. */
export interface BandPoint {
  readonly policy: string;
  readonly metric: Metric;
  readonly t: number;
  readonly mean: number;
  readonly se: number;
  readonly lo: number;
  readonly hi: number;
}

/** Mean +- standard error over seeds of every metric at every checkpoint, for every policy. */
export function aggregateSeries(result: ExperimentResult, metrics: readonly Metric[] = METRICS): BandPoint[] {
  const byPolicy = new Map<string, RunResult[]>();
  for (const r of result.runs) byPolicy.set(r.policy, [...(byPolicy.get(r.policy) ?? []), r]);
  const out: BandPoint[] = [];
  for (const [policy, runs] of byPolicy) {
    const first = runs[0] as RunResult;
    const n = Math.min(...runs.map((r) => r.series.t.length));
    for (const metric of metrics) {
      if (!runs.every((r) => Array.isArray(r.series[metric as keyof Series]))) continue; // e.g. queries outside cascades
      for (let i = 0; i < n; i++) {
        const { mean, se } = meanStd(runs.map((r) => (r.series[metric as keyof Series] as number[])[i] as number));
        out.push({ policy, metric, t: first.series.t[i] as number, mean, se, lo: mean - se, hi: mean + se });
      }
    }
  }
  return out;
}

/** Mean pick share of every arm per policy, over seeds. */
export function meanPickShare(result: ExperimentResult): { policy: string; arm: string; share: number }[] {
  const acc = new Map<string, Map<string, number>>();
  const count = new Map<string, number>();
  for (const r of result.runs) {
    const m = acc.get(r.policy) ?? new Map<string, number>();
    for (const [arm, s] of Object.entries(r.pickShare)) m.set(arm, (m.get(arm) ?? 0) + s);
    acc.set(r.policy, m);
    count.set(r.policy, (count.get(r.policy) ?? 0) + 1);
  }
  const out: { policy: string; arm: string; share: number }[] = [];
  for (const [policy, m] of acc) {
    const n = count.get(policy) as number;
    for (const [arm, s] of [...m].sort((a, b) => a[0].localeCompare(b[0]))) out.push({ policy, arm, share: s / n });
  }
  return out;
}

/** One point of a policy's pick share of one arm over rounds: mean and s.e. over seeds of the windowed share. */
export interface SharePoint {
  readonly policy: string;
  readonly arm: string;
  /** Checkpoint (round count); the share is over the rounds since the previous checkpoint. */
  readonly t: number;
  readonly mean: number;
  readonly se: number;
}

/**
 * Windowed pick share of every arm at every checkpoint (core's `series.pickShare`), mean over seeds per policy.
 * A seed in which an arm was never picked counts as zeros for it. Arms are sorted by name within a policy.
 */
export function pickShareSeries(result: ExperimentResult): SharePoint[] {
  const byPolicy = new Map<string, RunResult[]>();
  for (const r of result.runs) byPolicy.set(r.policy, [...(byPolicy.get(r.policy) ?? []), r]);
  const out: SharePoint[] = [];
  for (const [policy, runs] of byPolicy) {
    const first = runs[0] as RunResult;
    const n = Math.min(...runs.map((r) => r.series.t.length));
    const arms = [...new Set(runs.flatMap((r) => Object.keys(r.series.pickShare ?? {})))].sort((a, b) =>
      a.localeCompare(b, "en", { numeric: true }),
    );
    for (const arm of arms) {
      for (let i = 0; i < n; i++) {
        // Own keys only: a run that never picked "constructor" must not read Object.prototype.constructor.
        const { mean, se } = meanStd(
          runs.map((r) => {
            const rows = r.series.pickShare;
            return (rows && Object.hasOwn(rows, arm) ? rows[arm]?.[i] : undefined) ?? 0;
          }),
        );
        out.push({ policy, arm, t: first.series.t[i] as number, mean, se });
      }
    }
  }
  return out;
}
