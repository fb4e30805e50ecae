/**
 * `routekit train`: warm-starts a policy from a log of decision events (JSONL, one event per line, as a gateway
 * logs `{ ...policy.decisionRecord(decision), feedback }`) and writes its snapshot, which a service loads with
 * the policy class's `fromJSON`.
 */
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type DecisionEvent, isRouteKitError, type Snapshot } from "@routekit/core";
import { writeFileAtomicSync } from "@routekit/core/node";
import { CliFailure, UsageError } from "./errors.js";
import { type LogIssue, listIssues, namedArms, policyForLog, readEventLog } from "./event-log.js";
import { checkOutDir, ensureOutDir } from "./out-dir.js";
import type { FamilyRegistry, Params } from "./registry/types.js";
import { findPolicy, mergeParams } from "./spec.js";

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

export type TrainIssue = LogIssue;

export interface TrainResult {
  readonly policy: string;
  readonly kind: string;
  readonly snapshot: Snapshot;
  /** Lines read (non-blank). */
  readonly lines: number;
  /** Events the policy learned from. */
  readonly learned: number;
  /**
   * Valid arm events naming an arm the policy lacks (marked `retired`: removed before the record was made), which
   * `learn` accepts and ignores (core's documented rule): not counted in `learned`.
   */
  readonly notLearned: number;
  /** Later events repeating an earlier decision id (dropped: each decision is learned once). */
  readonly duplicates: number;
  /** Decision records without feedback (nothing to learn). */
  readonly withoutFeedback: number;
  /** Lines refused (only with skipInvalid; otherwise any refused line is an error). */
  readonly skipped: readonly TrainIssue[];
}

/** Reads and validates the log, builds the policy, learns every event once, and returns its snapshot. */
export function train(opts: TrainOptions): TrainResult {
  const entry = findPolicy(opts.registry, opts.policy);
  const params = mergeParams(`policy ${entry.name}`, entry.defaults, opts.params ?? {});
  const max = opts.maxListed ?? 10;
  const log = readEventLog(opts.events, entry.protocol, opts.skipInvalid === true, max, "learns from");
  const policy = policyForLog(entry, params, log.events, opts.arms, opts.seed ?? 0, opts.events);
  const learn = policy.learn.bind(policy) as (e: DecisionEvent) => void;
  const skipped = [...log.issues];
  const refused: TrainIssue[] = [];
  // A policy ignores an event for an arm it does not have (as feedback for a removed arm): with --arms missing a
  // logged arm, those events were counted as learned but changed nothing. Each is a refused line instead.
  const arms = (policy as { arms?: readonly string[] }).arms;
  const live = arms ? new Set(arms) : undefined;
  // A retired arm (arm events) or retired opened box (cascade events) was removed before the record was made: learn
  // ignores it whatever the policy's arms are, as it ignores other events of removed arms, so it is no refusal.
  const outside = (event: DecisionEvent): string | undefined => {
    if (!live) return undefined;
    return namedArms(event).find((a) => !live.has(a));
  };
  let learned = 0;
  let notLearned = 0;
  // Arm policies' learn returns nothing and ignores a retired arm's event (ArmPolicyBase.learn); arms outside the
  // policy's are refused above, so a retired one is the only arm event it accepts and learns nothing from. A cascade
  // event with retired boxes only still teaches some policies (COSMOS's reward model), so it counts as learned.
  const ignored = (event: DecisionEvent) => entry.protocol === "arm" && namedArms(event).length === 0;
  for (const { line, event } of log.events) {
    const unknown = outside(event);
    if (unknown !== undefined) {
      refused.push({
        line,
        message: `logged arm "${unknown}" is not one of the policy's arms (${[...(arms ?? [])].join(", ")}; --arms sets them)`,
      });
      continue;
    }
    try {
      learn(event);
      if (ignored(event)) notLearned++;
      else learned++;
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
    lines: log.lines,
    learned,
    notLearned,
    duplicates: log.duplicates,
    withoutFeedback: log.withoutFeedback,
    skipped,
  };
}

/** Writes a training result's snapshot as JSON text. */
/**
 * Checks, before any training, that the snapshot can be written to `out`: not a directory, and its directory one
 * that exists or can be created (as the experiment commands' `--out`).
 */
export function checkSnapshotPath(out: string): void {
  let isDir = false;
  try {
    isDir = statSync(out).isDirectory();
  } catch {
    // absent: written later
  }
  if (isDir) throw new CliFailure(`cannot write the snapshot to ${out}: it is a directory`);
  checkOutDir(dirname(resolve(out)));
}

/** Writes the snapshot, creating its directory when missing. */
export function writeSnapshot(result: TrainResult, out: string): void {
  ensureOutDir(dirname(resolve(out)));
  try {
    writeFileAtomicSync(out, `${JSON.stringify(result.snapshot)}\n`);
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
