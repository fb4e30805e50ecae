import { join } from "node:path";
import type { PolicySummary, Progress } from "@routekit/core";
import type { ReplayTable } from "@routekit/environments";
import { METRICS, type Metric } from "./aggregate.js";
import { UsageError } from "./errors.js";
import { execute } from "./execute.js";
import { citation } from "./format.js";
import {
  type GroupMember,
  type GroupResult,
  groupTitle,
  panelLabel,
  selectScenarios,
  writeGroupOutputs,
} from "./group.js";
import { type RunOutput, type WrittenFiles, writeOutputs } from "./output.js";
import { checkReferences } from "./reference.js";
import { registry as defaultRegistry } from "./registry/index.js";
import { loadReplayTable } from "./registry/replay.js";
import type { FamilyRegistry, Params, ScenarioEntry } from "./registry/types.js";
import { findEnvironment, MAX_SEEDS, mergeParams, type RunSpec, resolveSpec } from "./spec.js";

/** Options shared by every command of the programmatic API. */
export interface CommonOptions {
  /** Number of seeds (0..n-1) or an explicit list. */
  readonly seeds?: number | readonly number[];
  readonly horizon?: number;
  /** Points kept per series (default 200). */
  readonly points?: number;
  /** Worker threads (default: the core count; 1 = in this thread). */
  readonly workers?: number;
  readonly onProgress?: (p: Progress) => void;
  readonly signal?: AbortSignal;
  /** Registry to resolve names in (default: everything registered). */
  readonly registry?: FamilyRegistry;
  /** When set, results, plots and the report are written into this directory. */
  readonly out?: string;
  /** Render plots and the HTML report when writing (default true). */
  readonly plots?: boolean;
  /**
   * Also render every plot as a PNG beside its SVG (default true). false writes the SVGs and the HTML report only
   * and skips the PNG rendering, about 0.5-0.6 s per scenario on a 2-core VM (the playground bench measures it).
   */
  readonly png?: boolean;
}

export interface CommandResult extends RunOutput {
  readonly files?: WrittenFiles;
}

function seedList(seeds: number | readonly number[] | undefined, fallback: number): number[] {
  if (seeds === undefined) return Array.from({ length: fallback }, (_, i) => i);
  if (typeof seeds === "number") {
    if (!Number.isInteger(seeds) || seeds < 1 || seeds > MAX_SEEDS) {
      throw new UsageError(`seeds must be an integer in [1, ${MAX_SEEDS}], got ${seeds}`);
    }
    return Array.from({ length: seeds }, (_, i) => i);
  }
  if (seeds.length > MAX_SEEDS) throw new UsageError(`at most ${MAX_SEEDS} seeds, got ${seeds.length}`);
  return [...seeds];
}

async function finish(out: RunOutput, opts: CommonOptions): Promise<CommandResult> {
  if (opts.out === undefined) return out;
  const files = await writeOutputs(out, opts.out, { plots: opts.plots !== false, png: opts.png !== false });
  return { ...out, files };
}

async function runSpec(spec: RunSpec, opts: CommonOptions) {
  return execute(spec, {
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.registry ? { registry: opts.registry } : {}),
  });
}

export function findScenario(reg: FamilyRegistry, name: string): ScenarioEntry {
  const s = reg.scenarios.find((x) => x.name === name);
  if (!s) {
    throw new UsageError(
      `unknown scenario "${name}" (known: ${reg.scenarios.map((x) => x.name).join(", ") || "none registered"})`,
    );
  }
  return s;
}

/** The spec a scenario describes, with optional overrides of seeds, horizon and points. */
export function scenarioSpec(s: ScenarioEntry, opts: CommonOptions = {}): RunSpec {
  return {
    environment: { name: s.environment.name, params: { ...(s.environment.params ?? {}) } },
    policies: s.policies.map((p) => ({ label: p.label, policy: p.policy, params: { ...(p.params ?? {}) } })),
    seeds: seedList(opts.seeds, s.seeds),
    horizon: opts.horizon ?? s.horizon,
    points: opts.points ?? 200,
  };
}

/**
 * The scenario's reference checks, made only at the scenario's own horizon (the reference's numbers are
 * about it); at another horizon, a note saying why there are none.
 */
function referenceFields(s: ScenarioEntry, horizon: number, summary: readonly PolicySummary[]) {
  if (!s.referenceValues?.length) return {};
  if (horizon !== s.horizon) {
    return { referenceSkipped: `no reference checks: horizon ${horizon}, the reference's numbers are at ${s.horizon}` };
  }
  return { referenceChecks: checkReferences(s.referenceValues, summary) };
}

/** `routekit run <scenario>`: a named reproduction of a paper experiment. */
export async function runScenario(name: string, opts: CommonOptions = {}): Promise<CommandResult> {
  const reg = opts.registry ?? defaultRegistry;
  const s = findScenario(reg, name);
  const spec = resolveSpec(reg, scenarioSpec(s, opts));
  const result = await runSpec(spec, opts);
  return finish(
    {
      title: `${s.name}: ${s.description}`,
      spec,
      result,
      metrics: [...(s.metrics ?? (["regret", "o2b", "opr"] as Metric[]))],
      ...(s.reference ? { reference: s.reference } : {}),
      ...referenceFields(s, spec.horizon, result.summary),
      ...(s.paper ? { notes: { paper: citation(s.paper) } } : {}),
    },
    opts,
  );
}

/**
 * `routekit run <group>` (or a glob such as `mnl-fig1-*`): runs every member scenario in registry order, each writing
 * its own outputs into `<out>/<scenario>/`, then writes the combined figure and report into `<out>/`.
 * A name that is a single scenario runs as a group of one.
 */
export async function runGroup(
  name: string,
  opts: CommonOptions & { readonly onMember?: (index: number, count: number, scenario: ScenarioEntry) => void } = {},
): Promise<GroupResult> {
  const reg = opts.registry ?? defaultRegistry;
  const sel = selectScenarios(reg, name);
  const members: GroupMember[] = [];
  for (const [i, s] of sel.scenarios.entries()) {
    opts.onMember?.(i, sel.scenarios.length, s);
    const result = await runScenario(s.name, {
      ...opts,
      out: opts.out === undefined ? undefined : join(opts.out, s.name),
    });
    members.push({ scenario: s, panel: panelLabel(s), result });
  }
  const group = {
    kind: sel.kind === "glob" ? ("glob" as const) : ("group" as const),
    name: sel.name,
    title: groupTitle(sel.name, sel.scenarios),
    members,
  };
  if (opts.out === undefined) return group;
  return {
    ...group,
    files: await writeGroupOutputs(group, opts.out, { plots: opts.plots !== false, png: opts.png !== false }),
  };
}

export interface CompareOptions extends CommonOptions {
  readonly environment: string;
  readonly environmentParams?: Params;
  readonly policies: readonly (string | { policy: string; label?: string; params?: Params })[];
  readonly metrics?: readonly Metric[];
}

/** Seeds `compare` runs when none are given (0..4). */
export const COMPARE_SEEDS = 5;
/** Rounds per run of `compare` when no horizon is given. */
export const COMPARE_HORIZON = 2000;

/** `routekit compare`: any registered policies on any environment of the same protocol. */
export async function compare(opts: CompareOptions): Promise<CommandResult> {
  const reg = opts.registry ?? defaultRegistry;
  const spec = resolveSpec(reg, {
    environment: { name: opts.environment, params: { ...(opts.environmentParams ?? {}) } },
    policies: opts.policies.map((p) => {
      const o = typeof p === "string" ? { policy: p } : p;
      return { label: o.label ?? o.policy, policy: o.policy, params: { ...(o.params ?? {}) } };
    }),
    seeds: seedList(opts.seeds, COMPARE_SEEDS),
    horizon: opts.horizon ?? COMPARE_HORIZON,
    points: opts.points ?? 200,
  });
  const result = await runSpec(spec, opts);
  const env = findEnvironment(reg, spec.environment.name);
  return finish(
    {
      title: `compare on ${env.name}`,
      spec,
      result,
      metrics: [...(opts.metrics ?? (["regret", "o2b", "opr"] as Metric[]))],
      ...(env.paper ? { notes: { "environment paper": citation(env.paper) } } : {}),
    },
    opts,
  );
}

/**
 * Policies `replay` runs when none are named: these, when registered. The first is the best single
 * model of the file (the one-arm oracle), the number every router has to beat.
 */
export const REPLAY_DEFAULT_POLICIES = ["one-arm-oracle", "random", "ucb1", "linucb-disjoint", "rff-ucb"] as const;
/** Policies a cascade replay (`protocol: "cascade"`) runs when none are named. */
export const REPLAY_CASCADE_DEFAULT_POLICIES: readonly { policy: string; label?: string; params?: Params }[] = [
  { policy: "cosmos", label: "COSMOS s=0.5" },
  { policy: "cosmos", label: "COSMOS s=0.1", params: { exploration: 0.1 } },
  { policy: "one-shot" },
  { policy: "query-all" },
  { policy: "threshold-cascade", label: "threshold 0.7" },
];
/** Label of the one-arm oracle in replay tables. */
export const REPLAY_BEST_SINGLE_LABEL = "best single model";

export interface ReplayOptions extends CommonOptions {
  /** JSONL or CSV file of logged outcomes. */
  readonly data: string;
  readonly policies?: readonly (string | { policy: string; label?: string; params?: Params })[];
  /** Replay environment parameters: format, context, models (comma-separated), dim, wordNgrams, charMin, charMax, order. */
  readonly environmentParams?: Params;
  /**
   * Passes over the file's prompts (horizon = passes x prompts; default 1). Rounds after the first
   * pass replay prompts the policies have already been rewarded on. Give this or `horizon`, not both.
   */
  readonly passes?: number;
  /**
   * "arm" (default): route each prompt to one model. "cascade": ask models one by one, seeing each answer's
   * score at the model's cost (times `environmentParams.costWeight`), and deploy the best answer seen; the
   * file needs a cost column and scores in [0, 1].
   */
  readonly protocol?: "arm" | "cascade";
}

/** What a cascade replay's report says about the file: models' mean score and weighted cost, the oracle. */
function cascadeReplayNotes(
  data: string,
  table: ReplayTable,
  horizon: number,
  costWeight: number,
): Record<string, string | number> {
  const M = table.models.length;
  const n = table.numPrompts;
  const score = new Float64Array(M);
  const cost = new Float64Array(M);
  for (let p = 0; p < n; p++) {
    for (let m = 0; m < M; m++) {
      score[m] = (score[m] as number) + (table.meanScore[p * M + m] as number) / n;
      cost[m] = (cost[m] as number) + (costWeight * (table.meanCost[p * M + m] as number)) / n;
    }
  }
  const net = (m: number) => (score[m] as number) - (cost[m] as number);
  let best = 0;
  for (let m = 1; m < M; m++) if (net(m) > net(best)) best = m;
  return {
    data,
    prompts: n,
    rows: table.rows,
    passes: `${(horizon / n).toFixed(2)} (${horizon} rounds)`,
    "cost weight": `${costWeight} reward units per unit of logged cost`,
    models: table.models
      .map(
        (m, i) => `${m} (mean score ${(score[i] as number).toFixed(4)}, mean cost ${(cost[i] as number).toFixed(4)})`,
      )
      .join(", "),
    "best single model net of cost": `${table.models[best]} (mean score - cost ${net(best).toFixed(4)}; what one-shot routing can reach without a per-prompt choice)`,
    regret:
      "against Weitzman's rule on each prompt's logged rows: the best a cascade can do knowing every prompt's outcomes (with one row per prompt and model: open only the model with the best score - cost)",
    context:
      table.contextSource === "text"
        ? `hashed word/char n-grams, dim ${table.dim} (${JSON.stringify(table.featurizer)})`
        : `embedding column, dim ${table.dim}`,
  };
}

/** `routekit replay`: policies on the user's own logged outcomes, against the best single model and the per-prompt oracle. */
export async function replay(opts: ReplayOptions): Promise<CommandResult> {
  const reg = opts.registry ?? defaultRegistry;
  const protocol = opts.protocol ?? "arm";
  if (protocol !== "arm" && protocol !== "cascade") {
    throw new UsageError(`--protocol must be "arm" or "cascade", got "${String(protocol)}"`);
  }
  const cascade = protocol === "cascade";
  const envEntry = findEnvironment(reg, cascade ? "replay-cascade" : "replay");
  const envParams = { ...(opts.environmentParams ?? {}), data: opts.data };
  const merged = mergeParams(`environment ${envEntry.name}`, envEntry.defaults, envParams);
  const { costWeight, ...tableParams } = merged;
  const table = loadReplayTable(tableParams);
  let policies = opts.policies;
  if (!policies || policies.length === 0) {
    const defaults: readonly { policy: string; label?: string; params?: Params }[] = cascade
      ? REPLAY_CASCADE_DEFAULT_POLICIES
      : REPLAY_DEFAULT_POLICIES.map((n) =>
          n === "one-arm-oracle" ? { policy: n, label: REPLAY_BEST_SINGLE_LABEL } : { policy: n },
        );
    const preferred = defaults.filter((d) => reg.policies.some((p) => p.name === d.policy && p.protocol === protocol));
    policies =
      preferred.length > 0 ? preferred : reg.policies.filter((p) => p.protocol === protocol).map((p) => p.name);
  }
  if (opts.passes !== undefined && opts.horizon !== undefined) {
    throw new UsageError("give --horizon or --passes, not both");
  }
  if (opts.passes !== undefined && !(Number.isSafeInteger(opts.passes) && opts.passes >= 1)) {
    throw new UsageError(`--passes must be an integer >= 1, got ${opts.passes}`);
  }
  const horizon = opts.horizon ?? (opts.passes ?? 1) * table.numPrompts;
  const res = await compare({
    ...opts,
    out: undefined,
    environment: envEntry.name,
    environmentParams: envParams,
    policies,
    horizon,
    seeds: opts.seeds ?? 5,
    metrics: cascade
      ? METRICS.filter((m) => m === "regret" || m === "reward" || m === "cost" || m === "queriesPerRound")
      : METRICS.filter((m) => m === "regret" || m === "o2b" || m === "opr" || (m === "cost" && table.hasCost)),
  });
  const means = new Float64Array(table.models.length);
  let oracle = 0;
  const M = table.models.length;
  for (let p = 0; p < table.numPrompts; p++) {
    let best = Number.NEGATIVE_INFINITY;
    for (let m = 0; m < M; m++) {
      const s = table.meanScore[p * M + m] as number;
      means[m] = (means[m] as number) + s / table.numPrompts;
      if (s > best) best = s;
    }
    oracle += best / table.numPrompts;
  }
  const bestSingle = means.reduce((b, m, i) => (m > (means[b] as number) ? i : b), 0);
  const notes: Record<string, string | number> = cascade
    ? cascadeReplayNotes(opts.data, table, horizon, Number(costWeight))
    : {
        data: opts.data,
        prompts: table.numPrompts,
        passes: `${(horizon / table.numPrompts).toFixed(2)} (${horizon} rounds); rounds after the first pass replay prompts already rewarded, so their scores measure recall of seen prompts, not routing of new ones (see the "1st-pass" columns)`,
        "best single model": `${table.models[bestSingle]} (mean score ${(means[bestSingle] as number).toFixed(4)})`,
        rows: table.rows,
        models: table.models.map((m, i) => `${m} (mean score ${(means[i] as number).toFixed(4)})`).join(", "),
        "per-prompt oracle mean score": Number(oracle.toFixed(6)),
        context:
          table.contextSource === "text"
            ? `hashed word/char n-grams, dim ${table.dim} (${JSON.stringify(table.featurizer)})`
            : `embedding column, dim ${table.dim}`,
      };
  const out: RunOutput = { ...res, title: `${cascade ? "cascade replay" : "replay"} of ${opts.data}`, notes };
  if (opts.out === undefined) return out;
  const files = await writeOutputs(out, opts.out, { plots: opts.plots !== false, png: opts.png !== false });
  return { ...out, files };
}
