/**
 * `routekit evaluate`: what would another policy have earned on the traffic a live router logged? Off-policy
 * evaluation of a JSONL log of arm decision events (read as `routekit train` reads it) with `@routekit/core`'s
 * estimators: the replay evaluator of Li et al. (2011) for a learning policy, or IPS / SNIPS / doubly robust for a
 * policy held fixed (a fresh one, or a trained snapshot).
 */
import { readFileSync } from "node:fs";
import {
  type ArmEvent,
  type ArmPolicy,
  estimateOffPolicy,
  isRouteKitError,
  type LogOptions,
  meanStd,
  type OffPolicyResult,
  replayEvaluate,
} from "@routekit/core";
import { withoutByteOrderMark } from "./config.js";
import { CliFailure, UsageError } from "./errors.js";
import { type LoggedLine, type LogIssue, listIssues, policyForLog, readEventLog } from "./event-log.js";
import { table } from "./format.js";
import type { FamilyRegistry, Params, PolicyEntry } from "./registry/types.js";
import { findPolicy, mergeParams } from "./spec.js";

export const EVALUATE_ESTIMATORS = ["replay", "ips", "snips", "dr"] as const;
export type EvaluateEstimator = (typeof EVALUATE_ESTIMATORS)[number];

export interface EvaluateOptions {
  /** JSONL file of arm decision events with feedback. */
  readonly events: string;
  /** Registry name of the policy to evaluate. */
  readonly policy: string;
  /** Parameters of a fresh policy (not with `snapshot`). */
  readonly params?: Params;
  /** The logging policy's arms, also a fresh policy's arms (default: the arms the events name). */
  readonly arms?: readonly string[];
  /** Seed of a fresh policy's random stream (default 0; not with `snapshot`). */
  readonly seed?: number;
  /** A snapshot of the policy (e.g. written by `routekit train`), restored with its class's fromJSON. */
  readonly snapshot?: string;
  /** fromJSON's second argument for `snapshot` ({@link restoreOptionsFor}); none by default. */
  readonly restoreOptions?: unknown;
  /** "replay" (default), "ips", "snips" or "dr". */
  readonly estimator?: EvaluateEstimator;
  readonly clip?: number;
  readonly level?: number;
  readonly fallbackPropensity?: number;
  /** Evaluate on the valid lines and report the others instead of refusing the file (default false). */
  readonly skipInvalid?: boolean;
  readonly maxListed?: number;
  readonly registry: FamilyRegistry;
}

export interface EvaluateResult extends OffPolicyResult {
  readonly policy: string;
  readonly kind: string;
  /** Whether the policy started from a snapshot. */
  readonly snapshot: boolean;
  /** Replay: events where the policy picked the logged arm (it learned from those). */
  readonly matched?: number;
  /** The logging policy's own mean reward per request on the log, with its standard error. */
  readonly logged: { readonly mean: number; readonly se: number };
  /** Non-blank lines read. */
  readonly lines: number;
  readonly duplicates: number;
  readonly withoutFeedback: number;
  readonly skipped: readonly LogIssue[];
}

/**
 * The logging policy's arms by default: every arm the events name, in order of first appearance, a retired one too
 * (it was played; core's estimators default to the same). `routekit train` leaves retired ones out.
 */
function loggedArms(events: readonly LoggedLine[]): string[] {
  return [...new Set(events.map((l) => (l.event as ArmEvent).decision.arm))];
}

/**
 * What the policy's `fromJSON` needs besides the snapshot in the file `snapshotPath` (its entry's
 * `restoreOptions`, e.g. a solver loaded asynchronously); undefined when it needs nothing, or when the file cannot
 * be read or parsed (restoring it then reports that).
 */
export async function restoreOptionsFor(reg: FamilyRegistry, name: string, snapshotPath: string): Promise<unknown> {
  const entry = findPolicy(reg, name);
  if (entry.restoreOptions === undefined) return undefined;
  let json: unknown;
  try {
    json = readSnapshotFile(snapshotPath);
  } catch {
    return undefined;
  }
  return entry.restoreOptions(json);
}

/**
 * The policy to evaluate: fresh from the registry (its context length the log's most common one, its arms
 * `--arms` or those of the events evaluated on, `kept`), or restored from a snapshot with its class's fromJSON.
 */
function buildPolicy(
  opts: EvaluateOptions,
  events: readonly LoggedLine[],
  kept: readonly LoggedLine[] = events,
): ArmPolicy {
  const arms = opts.arms && opts.arms.length > 0 ? opts.arms : loggedArms(kept);
  const entry = findPolicy(opts.registry, opts.policy);
  if (entry.protocol !== "arm") {
    throw new UsageError(
      `evaluate scores arm-selection policies; "${entry.name}" plays the ${entry.protocol} protocol`,
    );
  }
  if (opts.snapshot === undefined) {
    const params = mergeParams(`policy ${entry.name}`, entry.defaults, opts.params ?? {});
    return policyForLog(entry, params, events, arms, opts.seed ?? 0, opts.events) as ArmPolicy;
  }
  if (opts.params && Object.keys(opts.params).length > 0) {
    throw new UsageError("--param does not apply with --snapshot (the snapshot holds the policy's parameters)");
  }
  if (opts.seed !== undefined)
    throw new UsageError("--seed does not apply with --snapshot (the snapshot holds the RNG)");
  let json: unknown;
  try {
    json = readSnapshotFile(opts.snapshot);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliFailure(`cannot read snapshot ${opts.snapshot}: ${code ?? (e as Error).message}`);
  }
  // Every policy class has a static fromJSON: the entry's own, or that of a fresh instance built from its defaults.
  const fromJSON = entry.fromJSON?.bind(entry) ?? classFromJSON(entry, events, arms, opts.events);
  try {
    return (opts.restoreOptions === undefined ? fromJSON(json) : fromJSON(json, opts.restoreOptions)) as ArmPolicy;
  } catch (e) {
    if (!isRouteKitError(e)) throw e;
    // A snapshot of another class, or a damaged one, is refused as SNAPSHOT_*; anything else (e.g. a solver the
    // snapshot names and the command line cannot supply) is about restoring it, not about what the file is.
    if (e.code.startsWith("SNAPSHOT_"))
      throw new CliFailure(`snapshot ${opts.snapshot} is not a ${entry.name} snapshot: ${e.message}`);
    throw new CliFailure(`cannot restore snapshot ${opts.snapshot} as ${entry.name}: ${e.message}`);
  }
}

/** A snapshot file's JSON; a leading byte order mark (Windows editors write UTF-8 with one) is not part of it. */
function readSnapshotFile(path: string): unknown {
  return JSON.parse(withoutByteOrderMark(readFileSync(path, "utf8")));
}

/** The static fromJSON of the class a fresh instance of `entry` (built from its defaults) belongs to. */
function classFromJSON(
  entry: PolicyEntry,
  events: readonly LoggedLine[],
  arms: readonly string[],
  path: string,
): (s: unknown, options?: unknown) => unknown {
  const fresh = policyForLog(entry, entry.defaults, events, arms, 0, path);
  const cls = fresh.constructor as { fromJSON?: (s: unknown, options?: unknown) => unknown };
  if (typeof cls.fromJSON !== "function") throw new UsageError(`policy "${entry.name}" cannot restore a snapshot`);
  return cls.fromJSON.bind(cls);
}

/** Cross-fitted per-arm mean logged reward: event i is predicted from the events of the other parity. */
function armMeanModel(events: readonly ArmEvent[]): (arm: string, _x: unknown, i: number) => number {
  const folds = [new Map<string, { n: number; sum: number }>(), new Map<string, { n: number; sum: number }>()];
  const all = [
    { n: 0, sum: 0 },
    { n: 0, sum: 0 },
  ];
  events.forEach((e, i) => {
    const f = folds[i % 2] as Map<string, { n: number; sum: number }>;
    const s = f.get(e.decision.arm) ?? { n: 0, sum: 0 };
    const r = e.feedback?.reward as number;
    s.n++;
    s.sum += r;
    f.set(e.decision.arm, s);
    (all[i % 2] as { n: number; sum: number }).n++;
    (all[i % 2] as { n: number; sum: number }).sum += r;
  });
  return (arm, _x, i) => {
    const other = 1 - (i % 2);
    const s = folds[other]?.get(arm) ?? (all[other] as { n: number; sum: number });
    // With a single event there is no other fold: predict 0 (DR is then IPS).
    return s.n > 0 ? s.sum / s.n : 0;
  };
}

/** Context length of an arm event: null for a record without a context. */
function contextLength(e: ArmEvent): number | null {
  const c = e.decision.context as unknown;
  return Array.isArray(c) ? c.length : null;
}

/**
 * The events core's estimators would refuse for what the line holds, each with core's reason (checked in core's
 * order: context length, arm outside `--arms`, missing propensity), and the others. The context length is the
 * policy's when it reads contexts, else (a policy held fixed) the first kept event's, as core checks it.
 */
function screen(
  events: readonly LoggedLine[],
  policy: ArmPolicy,
  opts: EvaluateOptions,
  estimator: EvaluateEstimator,
): { kept: LoggedLine[]; refused: LogIssue[] } {
  const kept: LoggedLine[] = [];
  const refused: LogIssue[] = [];
  const given = opts.arms && opts.arms.length > 0 ? new Set(opts.arms) : undefined;
  const got = (len: number | null) => (len === null ? "null" : `${len} numbers`);
  let first: number | null | undefined;
  for (const l of events) {
    const e = l.event as ArmEvent;
    const len = contextLength(e);
    let why: string | undefined;
    if (policy.contextDim > 0 && len !== policy.contextDim) {
      why = `event decision.context must be ${policy.contextDim} numbers (the policy's contextDim), got ${got(len)}`;
    } else if (policy.contextDim === 0 && estimator !== "replay" && first !== undefined && len !== first) {
      why = `event decision.context must be ${first === null ? "null" : `${first} numbers`} (as the first event's), got ${got(len)}`;
    } else if (given && !given.has(e.decision.arm)) {
      why = `logged arm ${JSON.stringify(e.decision.arm)} is not one of the arms option`;
    } else if (e.decision.propensity === undefined && opts.fallbackPropensity === undefined) {
      why =
        "event decision.propensity is missing: off-policy estimates need the logging probability of the logged arm (log a randomized policy's decisions, or give --fallback-propensity)";
    }
    if (why !== undefined) {
      refused.push({ line: l.line, message: why });
      continue;
    }
    if (first === undefined) first = len;
    kept.push(l);
  }
  return { kept, refused };
}

/** Evaluates a policy on a log of arm decision events. */
export function evaluate(opts: EvaluateOptions): EvaluateResult {
  const entry = findPolicy(opts.registry, opts.policy);
  const max = opts.maxListed ?? 10;
  const skip = opts.skipInvalid === true;
  const log = readEventLog(opts.events, entry.protocol, skip, max, "evaluates on");
  const estimator = opts.estimator ?? "replay";
  let policy = buildPolicy(opts, log.events);
  // With --skip-invalid, the events the estimators would refuse for what their line holds are skipped as the
  // invalid lines are (train skips the events its policy refuses the same way); without it, core refuses the first.
  let kept: LoggedLine[] = [...log.events];
  const refused: LogIssue[] = [];
  if (skip) {
    const s = screen(log.events, policy, opts, estimator);
    kept = s.kept;
    refused.push(...s.refused);
    // An arm only skipped events name is no arm of a fresh policy (the log kept says nothing about it).
    if (kept.length > 0 && refused.length > 0) policy = buildPolicy(opts, log.events, kept);
  }
  const common: LogOptions = {
    ...(opts.arms && opts.arms.length > 0 ? { arms: opts.arms } : {}),
    ...(opts.clip !== undefined ? { clip: opts.clip } : {}),
    ...(opts.level !== undefined ? { level: opts.level } : {}),
    ...(opts.fallbackPropensity !== undefined ? { fallbackPropensity: opts.fallbackPropensity } : {}),
  };
  const run = (lines: readonly LoggedLine[]): OffPolicyResult & { matched?: number } => {
    const events = lines.map((l) => l.event as ArmEvent);
    if (estimator === "replay") return replayEvaluate(events, policy, common);
    // The policy held fixed: it selects on each event's context and the decision is discarded (nothing is learned).
    // Its probability of the logged arm is estimated by 1[pick = logged arm] (exact for a deterministic policy).
    const given = opts.arms !== undefined && opts.arms.length > 0;
    const known = new Set(given ? opts.arms : loggedArms(lines));
    const outside = policy.arms.filter((a) => !known.has(a));
    if (outside.length > 0) {
      throw new CliFailure(
        given
          ? `${entry.name} has arms outside --arms (${outside.join(", ")}): no estimate covers their picks (a snapshot's policy keeps the arms it was saved with)`
          : `${entry.name} has arms the log never names (${outside.join(", ")}): no estimate covers their picks (--arms sets the policy's arms)`,
      );
    }
    const picks: string[] = [];
    const target = (arm: string, x: Float64Array | undefined, i: number) => {
      if (picks.length === i) {
        const d = policy.select(policy.contextDim > 0 ? x : undefined);
        policy.discard(d);
        picks.push(d.arm);
      }
      return picks[i] === arm ? 1 : 0;
    };
    return estimateOffPolicy(events, {
      ...common,
      target,
      estimator,
      ...(estimator === "dr" ? { rewardModel: armMeanModel(events) } : {}),
    });
  };
  const noneLeft = () =>
    new CliFailure(
      `${entry.name} refused every event of ${opts.events}: ${listIssues(refused, max)} (nothing to evaluate on)`,
    );
  if (kept.length === 0) throw noneLeft();
  let res: OffPolicyResult & { matched?: number };
  for (;;) {
    try {
      res = run(kept);
      break;
    } catch (e) {
      // Core names the event by its index; the user knows it by its line.
      const index = isRouteKitError(e) ? e.details?.index : undefined;
      if (!isRouteKitError(e) || typeof index !== "number") throw e;
      const line = kept[index]?.line as number;
      const message = e.message.replace(/^events\[\d+\]: /, "");
      if (!skip)
        throw new CliFailure(`${opts.events} line ${line}: ${message} (--skip-invalid evaluates on the others)`);
      // Refused on the way (e.g. an update the policy refuses): skipped, and the policy, which the run touched,
      // evaluated again from its start on the others.
      refused.push({ line, message });
      kept = kept.filter((_, j) => j !== index);
      if (kept.length === 0) throw noneLeft();
      policy = buildPolicy(opts, log.events, kept);
    }
  }
  const logged = meanStd(kept.map((l) => (l.event as ArmEvent).feedback?.reward as number));
  return {
    ...res,
    policy: entry.name,
    kind: policy.kind,
    snapshot: opts.snapshot !== undefined,
    logged: { mean: logged.mean, se: logged.se },
    lines: log.lines,
    duplicates: log.duplicates,
    withoutFeedback: log.withoutFeedback,
    skipped: [...log.issues, ...refused].sort((x, y) => x.line - y.line),
  };
}

const ESTIMATOR_TEXT: Record<EvaluateEstimator, string> = {
  replay: "replay (Li, Chu, Langford & Wang 2011; learns from the matched events)",
  ips: "IPS (policy held fixed)",
  snips: "self-normalised IPS (policy held fixed)",
  dr: "doubly robust, cross-fitted per-arm mean reward model (policy held fixed)",
};

/** The readable report: a header line and a table with the policy's estimate and the logging policy's mean. */
export function formatEvaluation(r: EvaluateResult, file: string): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toPrecision(4) : "-");
  const level = `${Math.round(r.level * 1000) / 10}% interval`;
  const header = ["policy", "estimate", "s.e.", level, "events", "matched", "ESS", "max weight", "clipped"];
  const rows = [
    [
      `${r.policy}${r.snapshot ? " (snapshot)" : ""}`,
      f(r.estimate),
      f(r.se),
      `[${f(r.lower)}, ${f(r.upper)}]`,
      String(r.n),
      r.matched === undefined ? "-" : String(r.matched),
      r.effectiveSampleSize.toFixed(1),
      f(r.maxWeight),
      String(r.clipped),
    ],
    ["logging policy (logged mean)", f(r.logged.mean), f(r.logged.se), "", String(r.n), "", "", "", ""],
  ];
  const notes = [
    `${r.policy} (${r.kind}) on ${r.n} events of ${file}: ${ESTIMATOR_TEXT[r.estimator as EvaluateEstimator]}`,
    "",
    table(header, rows)
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n"),
  ];
  const counts = [
    r.duplicates > 0 ? `${r.duplicates} duplicate decision ids dropped` : "",
    r.withoutFeedback > 0 ? `${r.withoutFeedback} records without feedback skipped` : "",
    r.skipped.length > 0 ? `${r.skipped.length} invalid lines skipped` : "",
    r.missingPropensity > 0 ? `${r.missingPropensity} events without propensity (--fallback-propensity used)` : "",
  ].filter((s) => s !== "");
  if (counts.length > 0) notes.push("", counts.join("; "));
  return notes.join("\n");
}
