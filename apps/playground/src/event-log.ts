/**
 * Logs of decision events (JSONL, one `{ ...policy.decisionRecord(decision), feedback }` per line), as `routekit
 * train` and `routekit evaluate` read them: every line validated, duplicates and records without feedback counted,
 * and a registry policy built for the log's arms and context length.
 */
import {
  checkDecisionRecord,
  checkEvent,
  type DecisionEvent,
  isRouteKitError,
  type Protocol,
  Rng,
} from "@routekit/core";
import { readLines } from "@routekit/core/node";
import { duplicateKeyMessage, findDuplicateJsonKey } from "@routekit/environments";
import { CliFailure, UsageError } from "./errors.js";
import type { AnyEnvironment, AnyPolicy, Params, PolicyEntry } from "./registry/types.js";
import { fromUserParams } from "./spec.js";

/** A refused line of an events file. */
export interface LogIssue {
  readonly line: number;
  readonly message: string;
}

/** A valid event with feedback and its line number. */
export interface LoggedLine {
  readonly line: number;
  readonly event: DecisionEvent;
}

export interface EventLog {
  /** Lines read (non-blank). */
  readonly lines: number;
  /** Valid events with feedback, each decision id once, in file order. */
  readonly events: readonly LoggedLine[];
  /** Later events repeating an earlier decision id (dropped: each decision counts once). */
  readonly duplicates: number;
  /** Decision records without feedback (skipped). */
  readonly withoutFeedback: number;
  /** Invalid lines (only with skipInvalid; otherwise any invalid line is an error). */
  readonly issues: readonly LogIssue[];
}

/** "line 2: ...; line 5: ...; and 3 more". */
export function listIssues(issues: readonly LogIssue[], max: number): string {
  const shown = issues.slice(0, max).map((i) => `line ${i.line}: ${i.message}`);
  const more = issues.length > max ? `; and ${issues.length - max} more` : "";
  return `${shown.join("; ")}${more}`;
}

/**
 * Reads and validates an events file for `protocol`. Lines that are not JSON or not valid events fail the whole file
 * (CliFailure naming them) unless `skipInvalid`; `verb` says what the command does with the rest ("learns from").
 */
export function readEventLog(
  path: string,
  protocol: Protocol,
  skipInvalid: boolean,
  max: number,
  verb: string,
): EventLog {
  const issues: LogIssue[] = [];
  const events: LoggedLine[] = [];
  const ids = new Set<string>();
  let lines = 0;
  let duplicates = 0;
  let withoutFeedback = 0;
  // A line at a time: a gateway's log outgrows the longest string V8 holds (about 512 MB), which reading it
  // whole needed.
  const raw = readLines(path);
  for (let line = 1; ; line++) {
    let next: IteratorResult<string>;
    try {
      next = raw.next();
    } catch (e) {
      throw new CliFailure(`cannot read events file ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    }
    if (next.done) break;
    const s = next.value.trim();
    if (s === "") continue;
    // gzip's magic bytes 1f 8b (0x8b alone is no UTF-8 character: U+FFFD), as the replay data reader names them:
    // the file's bytes would be listed as lines that are not JSON.
    if (lines === 0 && s.charCodeAt(0) === 0x1f && (s.charCodeAt(1) === 0xfffd || s.charCodeAt(1) === 0x8b)) {
      throw new CliFailure(`events file ${path} is gzip-compressed: decompress it first (gunzip)`);
    }
    lines++;
    let v: unknown;
    try {
      v = JSON.parse(s);
    } catch (e) {
      issues.push({ line, message: `not JSON (${(e as Error).message})` });
      continue;
    }
    // JSON.parse keeps the last of two equal keys without a word (`"reward":1,"reward":0` learned 0), where
    // `compare --config` refuses them: a line naming a key twice is invalid.
    const dup = findDuplicateJsonKey(s, v);
    if (dup !== undefined) {
      issues.push({ line, message: duplicateKeyMessage(dup) });
      continue;
    }
    try {
      if (v !== null && typeof v === "object" && !Array.isArray(v) && !("feedback" in v)) {
        // A decision record still waiting for its feedback is skipped; an object that is no decision record
        // (`{}`, another protocol's record, a typo'd field) is an invalid line like any other.
        checkDecisionRecord(v, protocol);
        withoutFeedback++;
        continue;
      }
      const event = checkEvent(v, protocol);
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
  if (issues.length > 0 && !skipInvalid) {
    throw new CliFailure(
      `events file ${path} has ${issues.length} invalid line${issues.length === 1 ? "" : "s"}: ${listIssues(issues, max)} (--skip-invalid ${verb} the others)`,
    );
  }
  if (events.length === 0) throw new CliFailure(`events file ${path} has no event with feedback`);
  return { lines, events, duplicates, withoutFeedback, issues };
}

/**
 * The arms an event's learning can touch: an arm event's arm, a cascade event's opened boxes; none that is marked
 * `retired` (removed before the record was made: `learn` ignores it, even if an arm with its id was added again).
 */
export function namedArms(event: DecisionEvent): string[] {
  const d = event.decision as {
    arm?: string;
    retired?: boolean;
    queried?: readonly { arm: string; retired?: boolean }[];
  };
  if (d.arm !== undefined) return d.retired === true ? [] : [d.arm];
  return (d.queried ?? []).filter((q) => q.retired !== true).map((q) => q.arm);
}

/** Arms named by the events (retired ones aside, see {@link namedArms}), in order of first appearance. */
export function armsOf(events: readonly LoggedLine[], protocol: Protocol): string[] {
  const seen = new Set<string>();
  for (const { event } of events) if (protocol !== "assortment") for (const a of namedArms(event)) seen.add(a);
  return [...seen];
}

/**
 * Context length (arm, cascade) of the first event that has a context, or item feature length (assortment) of the
 * first event. A record without a context (`context: null`, as a context-free policy logs beside contextual ones)
 * does not set it: a contextual policy refuses that line by its number, as any other of another length, wherever it
 * is in the file (it was built for no context when the line came first: bad usage, no line named).
 */
function dimOf(events: readonly LoggedLine[], protocol: Protocol): number {
  type Decision = { context?: number[] | null; items?: number[]; features?: number[] };
  if (protocol === "assortment") {
    const first = events[0]?.event.decision as Decision | undefined;
    if (!first) return 0;
    return (first.features?.length ?? 0) / Math.max(1, first.items?.length ?? 1);
  }
  for (const { event } of events) {
    const context = (event.decision as Decision).context;
    if (Array.isArray(context)) return context.length;
  }
  return 0;
}

/** Output feature length of the first event's first opened box (cascade logs). */
function outputDimOf(events: readonly LoggedLine[]): number {
  const first = events[0]?.event.decision as { queried?: { features?: number[] }[] } | undefined;
  return first?.queried?.[0]?.features?.length ?? 0;
}

/**
 * A fresh policy of a registry entry for a log: its arms are `arms` (default: the arms the events name, in order of
 * first appearance), its context length that of the first event with a context. A parameter the policy refuses is
 * bad usage.
 */
export function policyForLog(
  entry: PolicyEntry,
  params: Params,
  events: readonly LoggedLine[],
  arms: readonly string[] | undefined,
  seed: number,
): AnyPolicy {
  const info = {
    protocol: entry.protocol,
    arms: arms && arms.length > 0 ? [...arms] : armsOf(events, entry.protocol),
    dim: dimOf(events, entry.protocol),
    ...(entry.protocol === "cascade" ? { outputDim: outputDimOf(events) } : {}),
    horizon: events.length,
    // No environment: a policy that reads one (e.g. the one-arm oracle asks it for the best arm) cannot be built
    // for a log, which is bad usage, not a crash.
    env: new Proxy({} as AnyEnvironment, {
      get: () => {
        throw new UsageError(`policy ${entry.name} reads a simulated environment: it cannot be built for a log`);
      },
    }),
  };
  return fromUserParams(`policy ${entry.name}`, params, () =>
    entry.create(params, { rng: Rng.fromSeed(seed), seed, info }),
  ) as AnyPolicy;
}
