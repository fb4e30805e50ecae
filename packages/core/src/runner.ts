import { QueryRecorder } from "./cascade-metrics.js";
import { ErrorCode, RouteKitError } from "./errors.js";
import { MetricsRecorder, meanStd, type RunResult } from "./metrics.js";
import { optionKeys, rejectUnknownOptions } from "./option-keys.js";
import { readOptions } from "./options.js";
import { reportProgress } from "./progress.js";
import type {
  ArmEnvironment,
  ArmPolicy,
  AssortmentEnvironment,
  AssortmentPolicy,
  CascadeEnvironment,
  CascadePolicy,
  PolicyFactory,
  Protocol,
} from "./protocols.js";
import { Rng } from "./rng.js";
import { describe, errorText } from "./validate.js";

type EnvOf<P extends Protocol> = P extends "arm"
  ? ArmEnvironment
  : P extends "assortment"
    ? AssortmentEnvironment
    : CascadeEnvironment;
type PolicyOf<P extends Protocol> = P extends "arm"
  ? ArmPolicy
  : P extends "assortment"
    ? AssortmentPolicy
    : CascadePolicy;

/** Longest time between two progress reports of a run (checked every 64 rounds). */
const PROGRESS_MS = 500;

/**
 * Progress of an experiment, reported after each chunk of horizon/100 rounds and at least every half second (checked
 * every 64 rounds).
 */
export interface Progress {
  /** Rounds played so far, over all policies and seeds. */
  readonly done: number;
  readonly total: number;
  readonly policy: string;
  readonly seed: number;
  /** Runs finished so far (policy x seed). */
  readonly runsDone: number;
  readonly runsTotal: number;
}

/**
 * The checks runExperiment and the worker pool make before any round: a known protocol, an environment factory,
 * at least one policy (distinct non-empty labels, each with a create function), at least one seed (finite numbers,
 * none twice: its runs would be identical and count twice in the means), an integer horizon >= 1 and an integer
 * `points` >= 1. Every fault is INVALID_ARGUMENT.
 */
export function checkExperiment(exp: Experiment<Protocol>): void {
  try {
    checkExperimentFields(exp);
  } catch (e) {
    if (e instanceof RouteKitError) throw e;
    // A getter or proxy of the caller's that throws: typed, like every other bad input (it escaped as its own Error).
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading the experiment threw: ${errorText(e)}`);
  }
}

function checkExperimentFields(exp: Experiment<Protocol>): void {
  const bad = (what: string): never => {
    throw new RouteKitError(ErrorCode.InvalidArgument, what);
  };
  if (exp === null || typeof exp !== "object") bad(`an experiment must be an object, got ${describe(exp)}`);
  if (exp.protocol !== "arm" && exp.protocol !== "assortment" && exp.protocol !== "cascade")
    bad(`protocol must be "arm", "assortment" or "cascade", got ${describe(exp.protocol)}`);
  if (typeof exp.environment !== "function")
    bad(`environment must be a function that builds one, got ${describe(exp.environment)}`);
  if (typeof exp.horizon !== "number" || !(exp.horizon >= 1) || !Number.isSafeInteger(exp.horizon))
    bad(`horizon must be an integer >= 1, got ${describe(exp.horizon)}`);
  if (!Array.isArray(exp.seeds)) bad(`seeds must be an array of numbers, got ${describe(exp.seeds)}`);
  if (exp.seeds.length === 0) bad("an experiment needs at least one seed");
  const seen = new Set<number>();
  for (const seed of exp.seeds) {
    if (typeof seed !== "number" || !Number.isFinite(seed)) bad(`seed must be finite, got ${describe(seed)}`);
    if (seen.has(seed)) bad(`seed ${seed} is listed twice (its runs would be identical and count twice in the means)`);
    seen.add(seed);
  }
  if (!Array.isArray(exp.policies) || exp.policies.length === 0) bad("an experiment needs at least one policy");
  const labels = new Set<string>();
  for (const p of exp.policies) {
    if (p === null || typeof p !== "object" || typeof p.create !== "function")
      bad(`each policy must be { label, create(ctx) }, got ${describe(p)}`);
    if (typeof p.label !== "string" || p.label === "")
      bad(`a policy label must be a non-empty string, got ${describe(p.label)}`);
    if (labels.has(p.label)) bad(`policy label "${p.label}" is used twice (their results would be merged)`);
    labels.add(p.label);
  }
  if (
    exp.points !== undefined &&
    (typeof exp.points !== "number" || !(exp.points >= 1) || !Number.isSafeInteger(exp.points))
  )
    bad(`points must be an integer >= 1, got ${describe(exp.points)}`);
}

/** What to run: policies x seeds x horizon rounds on one environment. */
export interface Experiment<P extends Protocol = Protocol> {
  readonly protocol: P;
  /** A fresh environment; the runner calls `reset(rng)` with a stream derived from the seed. */
  readonly environment: () => EnvOf<P>;
  readonly policies: readonly { readonly label: string; readonly create: PolicyFactory<PolicyOf<P>, EnvOf<P>> }[];
  readonly seeds: readonly number[];
  readonly horizon: number;
  /**
   * Name reported in results. When omitted it is read from the first environment built, so a costly
   * environment (e.g. a replay table) is never constructed just for its name.
   */
  readonly environmentName?: string;
  /** Points kept per series (default 200). */
  readonly points?: number;
}

export interface RunOptions {
  readonly onProgress?: (p: Progress) => void;
  readonly signal?: AbortSignal;
}

/** The keys of {@link RunOptions}. */
export const RUN_OPTION_KEYS = optionKeys<RunOptions>()(["onProgress", "signal"]);

export interface PolicySummary {
  readonly policy: string;
  readonly seeds: number;
  readonly regret: { mean: number; std: number; se: number };
  readonly o2b: { mean: number; std: number; se: number };
  readonly opr: { mean: number; std: number; se: number };
  /** Realised O2B and OPR (NaN when the environment does not define them; see FinalMetrics). */
  readonly o2bRealised: { mean: number; std: number; se: number };
  readonly oprRealised: { mean: number; std: number; se: number };
  readonly costPerRound: { mean: number; std: number; se: number };
  readonly rewardPerRound: { mean: number; std: number; se: number };
  /** Share of repeated-prompt rounds and the first-pass figures (NaN when the environment does not say). */
  readonly repeatShare: { mean: number; std: number; se: number };
  readonly firstPassRewardPerRound: { mean: number; std: number; se: number };
  readonly firstPassO2b: { mean: number; std: number; se: number };
  readonly firstPassOpr: { mean: number; std: number; se: number };
  readonly usPerRound: { mean: number; std: number; se: number };
  /** Cascades: boxes opened per request. */
  readonly queriesPerRound?: { mean: number; std: number; se: number };
}

export interface ExperimentResult {
  readonly protocol: Protocol;
  readonly environment: string;
  readonly horizon: number;
  readonly runs: RunResult[];
  readonly summary: PolicySummary[];
}

/** The per-seed streams: the environment and each policy get their own fork. */
export function seedStreams(seed: number): { env: Rng; policy: (label: string) => Rng } {
  const root = Rng.fromSeed(seed);
  return { env: root.fork("environment"), policy: (label) => root.fork(`policy:${label}`) };
}

/** Plays one policy on one seed and returns its metrics. */
export function runOne<P extends Protocol>(
  exp: Experiment<P>,
  policyIndex: number,
  seed: number,
  onChunk?: (roundsDone: number) => void,
  signal?: AbortSignal,
): RunResult {
  const spec = exp.policies[policyIndex];
  if (!spec) throw new RouteKitError(ErrorCode.InvalidArgument, `no policy at index ${policyIndex}`);
  const streams = seedStreams(seed);
  const env = exp.environment();
  env.reset(streams.env);
  const policy = spec.create({ rng: streams.policy(spec.label), seed, env });
  if (policy === null || typeof policy !== "object" || (policy as { protocol?: unknown }).protocol !== exp.protocol) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `policy "${spec.label}" was created as ${describe(policy)}${policy !== null && typeof policy === "object" ? ` of protocol ${describe((policy as { protocol?: unknown }).protocol)}` : ""}, expected a policy of protocol "${exp.protocol}"`,
    );
  }
  const rec = new MetricsRecorder(exp.horizon, exp.points ?? 200);
  const chunk = Math.max(1, Math.floor(exp.horizon / 100));
  const t0 = performance.now();
  const queries = exp.protocol === "cascade" ? new QueryRecorder(exp.horizon, exp.points ?? 200) : undefined;
  const step = stepper(exp.protocol, env, policy, queries, spec.label);
  // Besides every chunk, a report (and an abort check) at least every PROGRESS_MS: on a long horizon a chunk can
  // take minutes. The clock is read every 64 rounds only.
  let reported = t0;
  for (let t = 0; t < exp.horizon; t++) {
    step(t, rec);
    const done = t + 1;
    if (
      done % chunk === 0 ||
      done === exp.horizon ||
      ((done & 63) === 0 && performance.now() - reported >= PROGRESS_MS)
    ) {
      reported = performance.now();
      onChunk?.(done);
      if (signal?.aborted) throw new RouteKitError(ErrorCode.InvalidState, "experiment aborted");
    }
  }
  const wallMs = performance.now() - t0;
  const base = {
    policy: spec.label,
    seed,
    horizon: exp.horizon,
    series: rec.series,
    final: rec.final(),
    pickShare: rec.pickShare(),
    wallMs,
    environment: env.name,
  };
  if (!queries) return base;
  return {
    ...base,
    series: { ...base.series, queriesPerRound: queries.queriesPerRound, queryShare: queries.queryShare },
    final: { ...base.final, queriesPerRound: queries.meanQueries() },
    queryShare: queries.shares(),
  };
}

function stepper(
  protocol: Protocol,
  env: unknown,
  policy: unknown,
  queries: QueryRecorder | undefined,
  label: string,
): (t: number, rec: MetricsRecorder) => void {
  if (protocol === "arm") return armStep(env as ArmEnvironment, policy as ArmPolicy, label);
  if (protocol === "assortment") return assortmentStep(env as AssortmentEnvironment, policy as AssortmentPolicy, label);
  return cascadeStep(env as CascadeEnvironment, policy as CascadePolicy, queries as QueryRecorder, label);
}

/**
 * A round whose regret is not a finite number: the environment could not value the pick (an arm it does not know,
 * whose expected value came back undefined or NaN, or an expected value that is NaN or infinite). It used to be
 * recorded as NaN regret, which poisoned every later checkpoint and the summary; it is INVALID_STATE naming the
 * policy, the round (1-based) and the pick. The steps test `regret - regret !== 0` (true exactly for NaN and
 * +-Infinity) inline, one comparison per round, and build this message only then.
 */
function badRegret(regret: number, label: string, t: number, pick: unknown, what: string): never {
  const named =
    what === "arm"
      ? `arm ${describe(pick)}`
      : what === "box"
        ? `box ${describe(pick)}`
        : `items [${Array.isArray(pick) ? pick.join(", ") : describe(pick)}]`;
  throw new RouteKitError(
    ErrorCode.InvalidState,
    `policy "${label}" picked ${named} at round ${t + 1} and the environment valued it at a regret of ${String(regret)} ` +
      "(an arm it does not know, or a NaN / infinite expected value); the run stopped",
    { policy: label, round: t + 1, arm: pick },
  );
}

function armStep(env: ArmEnvironment, policy: ArmPolicy, label: string) {
  return (t: number, rec: MetricsRecorder): void => {
    const round = env.next(t);
    if (round.arrivals) for (const a of round.arrivals) policy.addArm(a);
    if (round.departures) for (const a of round.departures) policy.removeArm(a);
    const s = performance.now();
    const d = policy.select(round.context);
    const ms1 = performance.now() - s;
    const fb = env.pull(d.arm);
    const s2 = performance.now();
    policy.update(d, fb);
    const ms = ms1 + performance.now() - s2;
    const mean = env.expectedReward(d.arm);
    const regret = env.oracleReward() - mean;
    if (regret - regret !== 0) badRegret(regret, label, t, d.arm, "arm");
    rec.record({
      regret,
      o2b: mean - env.bestFixedReward(),
      optimal: env.isOptimal(d.arm),
      ...(env.bestFixedRealised ? { o2bRealised: fb.reward - env.bestFixedRealised() } : {}),
      ...(env.isOptimalRealised ? { optimalRealised: env.isOptimalRealised(d.arm) } : {}),
      ...(env.seenBefore ? { repeat: env.seenBefore() } : {}),
      reward: fb.reward,
      cost: fb.cost ?? 0,
      pick: d.arm,
      ms,
    });
  };
}

function assortmentStep(env: AssortmentEnvironment, policy: AssortmentPolicy, label: string) {
  return (t: number, rec: MetricsRecorder): void => {
    const q = env.next(t);
    const s = performance.now();
    const d = policy.select(q);
    const ms1 = performance.now() - s;
    const choice = env.choose(d.items);
    const s2 = performance.now();
    policy.update(d, { choice });
    const ms = ms1 + performance.now() - s2;
    const got = env.expectedRevenue(d.items);
    const best = env.oracleRevenue();
    const regret = best - got;
    if (regret - regret !== 0) badRegret(regret, label, t, d.items, "items");
    rec.record({
      regret,
      o2b: 0,
      optimal: best - got <= 1e-12,
      reward: choice === null ? 0 : (q.revenues?.[choice] ?? 1),
      cost: 0,
      pick: `size:${d.items.length}`,
      ms,
    });
  };
}

/**
 * One request of a cascade: begin, then next/observe until the policy stops (at most one query per
 * box; a policy that asks for a box twice or never stops is a bug the driver reports), choose, feedback.
 * Regret is the environment's oracle utility minus the policy's (deployed reward's expected value minus
 * the costs paid); the recorder's pick is the deployed box, its cost the total paid; the query recorder
 * gets the opened boxes.
 */
function cascadeStep(env: CascadeEnvironment, policy: CascadePolicy, queries: QueryRecorder, label: string) {
  const opened: string[] = [];
  return (t: number, rec: MetricsRecorder): void => {
    const { context } = env.next(t);
    let ms = 0;
    let s = performance.now();
    const ep = policy.begin(context);
    let paid = 0;
    opened.length = 0;
    for (;;) {
      const stepResult = policy.next(ep);
      ms += performance.now() - s;
      if (!("query" in stepResult)) break;
      const arm = stepResult.query;
      if (opened.includes(arm)) {
        throw new RouteKitError(ErrorCode.InvalidState, `cascade policy asked for box "${arm}" twice in one request`);
      }
      opened.push(arm);
      const out = env.query(arm);
      paid += out.cost;
      s = performance.now();
      policy.observe(ep, arm, out.features, out.cost);
    }
    if (opened.length === 0) throw new RouteKitError(ErrorCode.InvalidState, "cascade policy stopped before any query");
    s = performance.now();
    const arm = policy.choose(ep);
    ms += performance.now() - s;
    const r = env.reward(arm);
    s = performance.now();
    policy.feedback(ep, r);
    ms += performance.now() - s;
    const utility = env.expectedReward(arm) - paid;
    const best = env.oracleUtility();
    const regret = best - utility;
    if (regret - regret !== 0) badRegret(regret, label, t, arm, "box");
    rec.record({
      regret,
      o2b: 0,
      optimal: best - utility <= 1e-12,
      reward: r,
      cost: paid,
      pick: arm,
      ms,
    });
    queries.record(opened);
  };
}

/** Summaries of the final metrics per policy, over seeds. */
export function summarize(runs: readonly RunResult[]): PolicySummary[] {
  const byPolicy = new Map<string, RunResult[]>();
  for (const r of runs) {
    const list = byPolicy.get(r.policy) ?? [];
    list.push(r);
    byPolicy.set(r.policy, list);
  }
  return [...byPolicy].map(([policy, rs]) => ({
    policy,
    seeds: rs.length,
    regret: meanStd(rs.map((r) => r.final.regret)),
    o2b: meanStd(rs.map((r) => r.final.o2b)),
    opr: meanStd(rs.map((r) => r.final.opr)),
    o2bRealised: meanStd(rs.map((r) => r.final.o2bRealised)),
    oprRealised: meanStd(rs.map((r) => r.final.oprRealised)),
    costPerRound: meanStd(rs.map((r) => r.final.costPerRound)),
    rewardPerRound: meanStd(rs.map((r) => r.final.rewardPerRound)),
    repeatShare: meanStd(rs.map((r) => r.final.repeatShare)),
    firstPassRewardPerRound: meanStd(rs.map((r) => r.final.firstPassRewardPerRound)),
    firstPassO2b: meanStd(rs.map((r) => r.final.firstPassO2b)),
    firstPassOpr: meanStd(rs.map((r) => r.final.firstPassOpr)),
    usPerRound: meanStd(rs.map((r) => r.final.usPerRound)),
    ...(rs[0]?.final.queriesPerRound === undefined
      ? {}
      : { queriesPerRound: meanStd(rs.map((r) => r.final.queriesPerRound ?? Number.NaN)) }),
  }));
}

/**
 * Plays every policy on every seed in this thread. Runs are independent and deterministic:
 * the same experiment gives the same series (but for wall times) whatever the order.
 */
export function runExperiment<P extends Protocol>(exp: Experiment<P>, options: RunOptions = {}): ExperimentResult {
  rejectUnknownOptions(options, RUN_OPTION_KEYS, "runExperiment");
  const o = readOptions(options, "runExperiment");
  const onProgress = o.onProgress as RunOptions["onProgress"];
  const signal = o.signal as RunOptions["signal"];
  checkExperiment(exp);
  const runsTotal = exp.policies.length * exp.seeds.length;
  const total = runsTotal * exp.horizon;
  const runs: RunResult[] = [];
  let base = 0;
  for (let p = 0; p < exp.policies.length; p++) {
    for (const seed of exp.seeds) {
      const label = exp.policies[p]?.label ?? "";
      const runsDone = runs.length;
      runs.push(
        runOne(
          exp,
          p,
          seed,
          (d) => reportProgress(onProgress, { done: base + d, total, policy: label, seed, runsDone, runsTotal }),
          signal,
        ),
      );
      base += exp.horizon;
    }
  }
  return {
    protocol: exp.protocol,
    environment: exp.environmentName ?? runs[0]?.environment ?? exp.environment().name,
    horizon: exp.horizon,
    runs,
    summary: summarize(runs),
  };
}
