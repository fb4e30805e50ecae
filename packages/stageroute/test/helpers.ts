import { type ArmPolicy, Rng } from "@routekit/core";
import { arenaSim2025, routerBenchSurrogate, type StagedCostBandit } from "@routekit/environments";
import { RatioGreedy, STAGE_PRESETS, StageRoute, type StageRouteOptions, stageValue } from "../src/index.js";

export interface RunStats {
  /** Pseudo-regret: sum over rounds of V(b, M_tau) - mu(chosen). */
  regret: number;
  /** Sum of the chosen models' mean rewards. */
  reward: number;
  /** Average realised cost per round. */
  avgCost: number;
  /** Cumulative pseudo-regret at the given checkpoints. */
  at: number[];
}

/** Plays a policy on an environment for T rounds (feedback right after each query). */
export function run(
  env: StagedCostBandit,
  make: (rng: Rng) => ArmPolicy,
  T: number,
  seed: number,
  checkpoints: readonly number[] = [],
): RunStats {
  const root = Rng.fromSeed(seed);
  env.reset(root.fork("environment"));
  const policy = make(root.fork("policy"));
  let regret = 0;
  let reward = 0;
  let cost = 0;
  const at: number[] = [];
  let c = 0;
  for (let t = 0; t < T; t++) {
    const round = env.next(t);
    for (const a of round.arrivals ?? []) policy.addArm(a);
    const d = policy.select();
    const fb = env.pull(d.arm);
    policy.update(d, fb);
    const mu = env.expectedReward(d.arm);
    reward += mu;
    regret += env.oracleReward() - mu;
    cost += fb.cost ?? 0;
    if (c < checkpoints.length && t + 1 === checkpoints[c]) {
      at.push(regret);
      c++;
    }
  }
  return { regret, reward, avgCost: cost / T, at };
}

export const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** One-sided paired t statistic of mean(a - b) < 0. */
export function pairedT(a: readonly number[], b: readonly number[]): number {
  const d = a.map((x, i) => x - (b[i] as number));
  const m = mean(d);
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (d.length - 1));
  return m / (sd / Math.sqrt(d.length));
}

type ArenaRuns = { sr: ReturnType<typeof run>[]; greedy: ReturnType<typeof run>[] };
const arenaMemo = new Map<string, ArenaRuns>();

/**
 * The paper's simulation: StageRoute and greedy with the arena2025-paper options. Seeded and deterministic, so
 * each configuration runs once per worker: the statistical and README tests read the same runs (treat as read-only).
 */
export function arenaRuns(
  L: number,
  M: number,
  seeds: readonly number[],
  extra: Partial<StageRouteOptions> = {},
): ArenaRuns {
  const key = JSON.stringify([L, M, seeds, extra]);
  let r = arenaMemo.get(key);
  if (!r) {
    r = arenaRunsUncached(L, M, seeds, extra);
    arenaMemo.set(key, r);
  }
  return r;
}

function arenaRunsUncached(L: number, M: number, seeds: readonly number[], extra: Partial<StageRouteOptions>) {
  const env = arenaSim2025({ oracle: stageValue, stageLength: L, maxDeployed: M });
  const options: StageRouteOptions = {
    ...STAGE_PRESETS["arena2025-paper"],
    arms: env.initialArms,
    maxDeployed: M,
    stageLength: L,
    maxShare: env.maxShares,
    ...extra,
  };
  const sr = seeds.map((s) => run(env, (rng) => new StageRoute({ ...options, rng }), 10_000, s));
  const greedy = seeds.map((s) => run(env, (rng) => new RatioGreedy({ ...options, rng }), 10_000, s));
  return { sr, greedy };
}

/**
 * The RouterBench surrogate of the paper's budget experiment (M_max = 6 unless given, L = 500, b = 0.0002) and its
 * options.
 */
export function routerBenchSetup(maxDeployed = 6): { env: StagedCostBandit; options: StageRouteOptions; T: number } {
  const env = routerBenchSurrogate({ oracle: stageValue, maxDeployed, stageLength: 500 });
  const options: StageRouteOptions = {
    arms: env.initialArms,
    budget: 0.0002,
    maxDeployed,
    stageLength: 500,
    maxShare: env.maxShares,
    minCost: 1e-5,
    maxCost: 0.05,
  };
  return { env, options, T: 36_497 };
}

const routerBenchMemo = new Map<string, RunStats[]>();

/**
 * StageRoute on the RouterBench surrogate (`routerBenchSetup`, with `extra` options and M_max = `maxDeployed`),
 * seeds 0..n-1, T = 36,497. Memoised like `arenaRuns`: the README and statistical tests read the same runs.
 */
export function routerBenchRuns(extra: Partial<StageRouteOptions>, n: number, maxDeployed = 6): RunStats[] {
  const key = JSON.stringify([extra, n, maxDeployed]);
  let r = routerBenchMemo.get(key);
  if (!r) {
    const { env, options, T } = routerBenchSetup(maxDeployed);
    r = Array.from({ length: n }, (_, s) => run(env, (rng) => new StageRoute({ ...options, ...extra, rng }), T, s));
    routerBenchMemo.set(key, r);
  }
  return r;
}
