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
import { plural } from "./format.js";
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

/** Why `"feedback": null` is refused, and what is expected instead. */
export const NULL_FEEDBACK =
  '"feedback" is null: give the feedback as an object (e.g. {"reward": 0.8}), or leave the field out of a decision ' +
  "record still waiting for its feedback (such records are skipped and counted as without feedback)";

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
      // The event format has no null feedback (core's checkDecisionRecord wants the field absent): core's message
      // ("a decision record without feedback cannot be learned") reads as if such records were refused here.
      if (v !== null && typeof v === "object" && (v as { feedback?: unknown }).feedback === null) {
        issues.push({ line, message: NULL_FEEDBACK });
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
 * The length most of the log's vectors have (`lengthOf` gives an event's, or none), ties refused. The first event's
 * length was taken before: a log whose first line was the odd one out had every other line refused. Counting the
 * whole log (it is in memory already) gives the same length wherever the odd lines are; a tie cannot be decided, so
 * it fails the file (exit 1) naming both lengths with their counts and first lines. No length at all: 0.
 */
function commonLength(
  events: readonly LoggedLine[],
  lengthOf: (event: DecisionEvent) => readonly number[],
  what: string,
  path: string,
): number {
  const counts = new Map<number, { n: number; line: number }>();
  for (const { line, event } of events) {
    for (const len of lengthOf(event)) {
      const c = counts.get(len);
      if (c) c.n++;
      else counts.set(len, { n: 1, line });
    }
  }
  const ranked = [...counts].sort((a, b) => b[1].n - a[1].n || a[1].line - b[1].line);
  const [top, next] = ranked;
  if (!top) return 0;
  if (next && next[1].n === top[1].n) {
    const say = ([len, c]: [number, { n: number; line: number }]) =>
      `${len} numbers (${plural(c.n, "event")}, first on line ${c.line})`;
    throw new CliFailure(
      `events file ${path} has as many ${what} of ${say(top)} as of ${say(next)}: cannot tell which length is the policy's (fix or remove the odd lines)`,
    );
  }
  return top[0];
}

type Decision = {
  context?: number[] | null;
  items?: number[];
  features?: number[];
  queried?: { features?: number[] }[];
};

/**
 * Context length (arm, cascade) or item feature length (assortment) of the log: the most common one (see
 * {@link commonLength}). A record without a context (`context: null`, as a context-free policy logs beside
 * contextual ones) has none: a contextual policy refuses that line by its number, as any other of another length,
 * wherever it is in the file (it was built for no context when the line came first: bad usage, no line named).
 * An empty assortment has no feature rows, so no length either.
 */
function dimOf(events: readonly LoggedLine[], protocol: Protocol, path: string): number {
  if (protocol === "assortment") {
    return commonLength(
      events,
      (e) => {
        const d = e.decision as Decision;
        const n = d.items?.length ?? 0;
        return n > 0 ? [(d.features?.length ?? 0) / n] : [];
      },
      "feature rows",
      path,
    );
  }
  return commonLength(
    events,
    (e) => {
      const context = (e.decision as Decision).context;
      return Array.isArray(context) ? [context.length] : [];
    },
    "contexts",
    path,
  );
}

/** Output feature length of the opened boxes (cascade logs): the most common one. */
function outputDimOf(events: readonly LoggedLine[], path: string): number {
  return commonLength(
    events,
    (e) => ((e.decision as Decision).queried ?? []).map((q) => q.features?.length ?? 0),
    "opened boxes' features",
    path,
  );
}

/**
 * A fresh policy of a registry entry for a log: its arms are `arms` (default: the arms the events name, in order of
 * first appearance), its context length the log's most common one ({@link commonLength}). A parameter the policy
 * refuses is bad usage.
 */
export function policyForLog(
  entry: PolicyEntry,
  params: Params,
  events: readonly LoggedLine[],
  arms: readonly string[] | undefined,
  seed: number,
  path: string,
): AnyPolicy {
  const info = {
    protocol: entry.protocol,
    arms: arms && arms.length > 0 ? [...arms] : armsOf(events, entry.protocol),
    dim: dimOf(events, entry.protocol, path),
    ...(entry.protocol === "cascade" ? { outputDim: outputDimOf(events, path) } : {}),
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
