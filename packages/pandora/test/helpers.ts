import { type CascadePolicy, logLogSlope, type RunResult, runOne } from "@routekit/core";
import type { CascadeEnvironmentBase } from "@routekit/environments";
import { Cosmos } from "../src/index.js";

/** One seeded run of a cascade policy with checkpoints every `every` rounds. */
export function play(
  env: () => CascadeEnvironmentBase,
  create: () => CascadePolicy,
  horizon: number,
  seed: number,
  points = 8,
): RunResult {
  return runOne(
    { protocol: "cascade", environment: env, policies: [{ label: "p", create }], seeds: [seed], horizon, points },
    0,
    seed,
  );
}

/** Mean over runs of the regret series (runs share checkpoints). */
export function meanRegret(runs: readonly RunResult[]): number[] {
  const n = runs[0]?.series.t.length ?? 0;
  return Array.from(
    { length: n },
    (_, i) => runs.reduce((s, r) => s + (r.series.regret[i] as number), 0) / runs.length,
  );
}

export function slopeBetween(t: readonly number[], y: readonly number[], from: number, to: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  t.forEach((v, i) => {
    if (v >= from && v <= to) {
      xs.push(v);
      ys.push(y[i] as number);
    }
  });
  return logLogSlope(xs, ys);
}

export const ENV_A_ARMS = ["box1", "box2", "box3"];

/** COSMOS on Env-A's three boxes with the true (linear) reward parameter known: only the index is learned. */
export const known = (extra: Record<string, unknown> = {}) =>
  new Cosmos({
    arms: ENV_A_ARMS,
    contextDim: 2,
    outputDim: 4,
    indexLink: "linear",
    rewardParameter: [1, 0, 0, 0],
    ...extra,
  });
