/**
 * `routekit train`: warm-starts a policy from a log of decision events (JSONL, one event per line, as a gateway
 * logs `{ ...policy.decisionRecord(decision), feedback }`) and writes its snapshot, which a service loads with
 * the policy class's `fromJSON`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { checkEvent, type DecisionEvent, isRouteKitError, type Protocol, Rng, type Snapshot } from "@routekit/core";
import { CliFailure, UsageError } from "./errors.js";
import type { AnyEnvironment, AnyPolicy, FamilyRegistry, Params } from "./registry/types.js";
import { findPolicy, fromUserParams, mergeParams } from "./spec.js";

export interface TrainOptions {
  /** JSONL file of decision events. */
  readonly events: string;
  /** Registry name of the policy to train. */
  readonly policy: string;
  readonly params?: Params;
  /** Initial arms (arm and cascade protocols); default: the arms the events name, in order of first appearance. */
  readonly arms?: readonly string[];
  /** Seed of the trained policy's random stream (default 0). */
  readonly seed?: number;
  /** Learn from the valid events and report the others instead of refusing the file (default false). */
  readonly skipInvalid?: boolean;
  /** Most problems listed in an error message (default 10). */
  readonly maxListed?: number;
  readonly registry: FamilyRegistry;
}

export interface TrainIssue {
  readonly line: number;
  readonly message: string;
}

export interface TrainResult {
  readonly policy: string;
  readonly kind: string;
  readonly snapshot: Snapshot;
  /** Lines read (non-blank). */
  readonly lines: number;
  /** Events learned. */
  readonly learned: number;
  /** Later events repeating an earlier decision id (dropped: each decision is learned once). */
  readonly duplicates: number;
  /** Decision records without feedback (nothing to learn). */
  readonly withoutFeedback: number;
  /** Lines refused (only with skipInvalid; otherwise any refused line is an error). */
  readonly skipped: readonly TrainIssue[];
}

interface Parsed {
  readonly line: number;
  readonly event: DecisionEvent;
}

function listIssues(issues: readonly TrainIssue[], max: number): string {
  const shown = issues.slice(0, max).map((i) => `line ${i.line}: ${i.message}`);
  const more = issues.length > max ? `; and ${issues.length - max} more` : "";
  return `${shown.join("; ")}${more}`;
}

/** Arms named by the events, in order of first appearance. */
function armsOf(events: readonly Parsed[], protocol: Protocol): string[] {
  const seen = new Set<string>();
  for (const { event } of events) {
    const d = event.decision as { arm?: string; queried?: { arm: string }[] };
    if (protocol === "arm" && d.arm !== undefined) seen.add(d.arm);
    if (protocol === "cascade") for (const q of d.queried ?? []) seen.add(q.arm);
  }
  return [...seen];
}

/** Context length (arm, cascade) or item feature length (assortment) of the first event. */
function dimOf(events: readonly Parsed[], protocol: Protocol): number {
  const first = events[0]?.event.decision as
    | { context?: number[] | null; items?: number[]; features?: number[] }
    | undefined;
  if (!first) return 0;
  if (protocol === "assortment") return (first.features?.length ?? 0) / Math.max(1, first.items?.length ?? 1);
  return first.context?.length ?? 0;
}

/** Reads and validates the log, builds the policy, learns every event once, and returns its snapshot. */
export function train(opts: TrainOptions): TrainResult {
  const entry = findPolicy(opts.registry, opts.policy);
  const params = mergeParams(`policy ${entry.name}`, entry.defaults, opts.params ?? {});
  let text: string;
  try {
    text = readFileSync(opts.events, "utf8");
  } catch (e) {
    throw new CliFailure(`cannot read events file ${opts.events}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  const max = opts.maxListed ?? 10;
  const issues: TrainIssue[] = [];
  const events: Parsed[] = [];
  const ids = new Set<string>();
  let lines = 0;
  let duplicates = 0;
  let withoutFeedback = 0;
  const raw = text.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const s = (raw[i] as string).trim();
    if (s === "") continue;
    lines++;
    const line = i + 1;
    let v: unknown;
    try {
      v = JSON.parse(s);
    } catch (e) {
      issues.push({ line, message: `not JSON (${(e as Error).message})` });
      continue;
    }
    if (v !== null && typeof v === "object" && !Array.isArray(v) && !("feedback" in v)) {
      withoutFeedback++;
      continue;
    }
    try {
      const event = checkEvent(v, entry.protocol);
      if (ids.has(event.id)) {
        duplicates++;
        continue;
      }
      ids.add(event.id);
      events.push({ line, event });
    } catch (e) {
      if (!isRouteKitError(e)) throw e;
      issues.push({ line, message: e.message });
    }
  }
  if (issues.length > 0 && !opts.skipInvalid) {
    throw new CliFailure(
      `events file ${opts.events} has ${issues.length} invalid line${issues.length === 1 ? "" : "s"}: ${listIssues(issues, max)} (--skip-invalid learns from the others)`,
    );
  }
  if (events.length === 0) throw new CliFailure(`events file ${opts.events} has no event with feedback to learn from`);
  const arms = opts.arms && opts.arms.length > 0 ? [...opts.arms] : armsOf(events, entry.protocol);
  const seed = opts.seed ?? 0;
  const info = {
    protocol: entry.protocol,
    arms,
    dim: dimOf(events, entry.protocol),
    horizon: events.length,
    // No environment: a policy that needs one (e.g. an oracle) cannot be trained from a log.
    env: undefined as unknown as AnyEnvironment,
  };
  const policy = fromUserParams(`policy ${entry.name}`, params, () =>
    entry.create(params, { rng: Rng.fromSeed(seed), seed, info }),
  ) as AnyPolicy;
  const learn = policy.learn.bind(policy) as (e: DecisionEvent) => void;
  const skipped = [...issues];
  const refused: TrainIssue[] = [];
  let learned = 0;
  for (const { line, event } of events) {
    try {
      learn(event);
      learned++;
    } catch (e) {
      if (!isRouteKitError(e)) throw e;
      refused.push({ line, message: e.message });
    }
  }
  if (refused.length > 0 && !opts.skipInvalid) {
    throw new CliFailure(
      `${entry.name} refused ${refused.length} event${refused.length === 1 ? "" : "s"} of ${opts.events}: ${listIssues(refused, max)} (--skip-invalid learns from the others)`,
    );
  }
  skipped.push(...refused);
  skipped.sort((a, b) => a.line - b.line);
  return {
    policy: entry.name,
    kind: policy.kind,
    snapshot: policy.toJSON(),
    lines,
    learned,
    duplicates,
    withoutFeedback,
    skipped,
  };
}

/** Writes a training result's snapshot as JSON text. */
export function writeSnapshot(result: TrainResult, out: string): void {
  try {
    writeFileSync(out, `${JSON.stringify(result.snapshot)}\n`);
  } catch (e) {
    throw new CliFailure(`cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
}

/** `--arms a,b,c` as a list; an empty entry is bad usage. */
export function parseArms(s: string | undefined): string[] | undefined {
  if (s === undefined) return undefined;
  const arms = s.split(",").map((x) => x.trim());
  if (arms.some((a) => a === "")) throw new UsageError(`--arms has an empty name: "${s}"`);
  return arms;
}
