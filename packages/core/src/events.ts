/**
 * Decision events: a decision and its feedback written down as plain, versioned JSON that carries
 * everything a policy's update needs. With them a service logs its traffic and warm-starts a new
 * policy from the log (`policy.learn(event)` for each), and gateway replicas share one ordered stream
 * of events so every replica learns from every replica's feedback.
 *
 * The contract every policy keeps: `update(decision, feedback)` changes the policy's learned state
 * exactly as `learn({ ...policy.decisionRecord(decision), feedback })` does, bit for bit (update also
 * settles the pending decision; learn never touches pending decisions).
 */
import { ErrorCode, RouteKitError } from "./errors.js";
import type { ArmFeedback, AssortmentFeedback, Protocol } from "./protocols.js";
import type { Json } from "./snapshot.js";
import { describe, errorText } from "./validate.js";

/** Version of the event schema (the `v` field). */
export const EVENT_VERSION = 1;

/** What an arm-selection policy saw and decided. */
export interface ArmEventDecision {
  readonly arm: string;
  /** The request's context as the policy received it; null for context-free policies. */
  readonly context: number[] | null;
  /** Probability with which the arm was picked, when the policy's distribution is explicit. */
  readonly propensity?: number;
  /** Decision-time state the update needs and the rest of the event does not carry. */
  readonly state?: Json;
  /**
   * True when the chosen arm had been removed by the time the record was made. `learn` then ignores the
   * event, as `update` ignores feedback for a removed arm even after an arm with the same id was added again
   * (a record logged before the removal cannot know it, and is applied to whichever arm has the id).
   */
  readonly retired?: boolean;
}

/** What an assortment policy saw and decided. */
export interface AssortmentEventDecision {
  /** Offered item indices (as in the query). */
  readonly items: number[];
  /** Row-major feature rows of the offered items, in `items` order (items.length x contextDim). */
  readonly features: number[];
  /** Revenues of the offered items, in `items` order, when the query had them. */
  readonly revenues?: number[];
  readonly state?: Json;
}

/** One box a cascade opened: its output features and the cost paid. */
export interface CascadeQueried {
  readonly arm: string;
  readonly features: number[];
  readonly cost: number;
  /**
   * True when the box had been removed by the time the record was made. `learn` then learns nothing about that
   * box from the episode (as `feedback` does), even after a box with the same id was added again.
   */
  readonly retired?: boolean;
}

/** What a cascade policy saw and decided in one episode. */
export interface CascadeEventDecision {
  readonly context: number[];
  /** Boxes opened, in order. */
  readonly queried: CascadeQueried[];
  /** The deployed box (one of `queried`). */
  readonly chosen: string;
  readonly state?: Json;
}

export interface CascadeEventFeedback {
  /** Reward of the deployed output. */
  readonly reward: number;
}

interface ProtocolTypes {
  arm: { decision: ArmEventDecision; feedback: ArmFeedback };
  assortment: { decision: AssortmentEventDecision; feedback: AssortmentFeedback };
  cascade: { decision: CascadeEventDecision; feedback: CascadeEventFeedback };
}

/**
 * A decision event. Without `feedback` it is a decision record (what `decisionRecord` returns, to
 * log at decision time); with it, what `learn` applies.
 */
export interface DecisionEvent<P extends Protocol = Protocol> {
  readonly v: typeof EVENT_VERSION;
  /** Kind of the policy that decided (e.g. "kernel-ucb/rff-ucb"). */
  readonly kind: string;
  readonly protocol: P;
  /** The decision id issued by the deciding policy. */
  readonly id: string;
  readonly decision: ProtocolTypes[P]["decision"];
  readonly feedback?: ProtocolTypes[P]["feedback"];
}

export type ArmEvent = DecisionEvent<"arm">;
export type AssortmentEvent = DecisionEvent<"assortment">;
export type CascadeEvent = DecisionEvent<"cascade">;

/** A decision event with its feedback, as {@link checkEvent} returns it. */
export type LearnableEvent<P extends Protocol> = DecisionEvent<P> & {
  readonly feedback: ProtocolTypes[P]["feedback"];
};

/** Context values as event JSON: a plain array, -0 written as 0 so a JSON round trip is exact. */
export function vectorToJson(x: ArrayLike<number>, length = x.length): number[] {
  const out = new Array<number>(length);
  for (let i = 0; i < length; i++) out[i] = (x[i] as number) + 0;
  return out;
}

/** Refuses a field (`what`; "" for the event itself) that is not `expected`; `got`, when passed (undefined too), is named. */
function bad(what: string, expected: string, ...got: [unknown?]): never {
  throw new RouteKitError(
    ErrorCode.InvalidEvent,
    `event${what === "" ? "" : ` ${what}`} must be ${expected}${got.length === 0 ? "" : `, got ${describe(got[0])}`}`,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A finite-number array of the given length (any length when undefined) as a Float64Array. */
export function eventVector(v: unknown, what: string, length?: number): Float64Array {
  if (!Array.isArray(v)) bad(what, "an array of finite numbers", v);
  if (length !== undefined && v.length !== length) bad(what, `an array of ${length} numbers (got ${v.length})`);
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as unknown;
    if (typeof x !== "number" || !Number.isFinite(x)) bad(`${what}[${i}]`, "a finite number", x);
    out[i] = x;
  }
  return out;
}

function checkId(v: unknown, what: string): string {
  if (typeof v !== "string" || v.length === 0) bad(what, "a non-empty string", v);
  return v;
}

function checkFinite(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) bad(what, "a finite number", v);
  return v;
}

/** Deepest nesting of arrays and objects an event may have (events are shallow JSON; this stops a cycle). */
const MAX_EVENT_DEPTH = 32;

/**
 * A plain copy of a JSON-like value: arrays and objects are copied (each own enumerable property or
 * element read once, so a getter runs once), anything else (numbers, strings, typed arrays, ...) is
 * returned as it is, for validation to judge.
 */
function copyJson(v: unknown, depth: number): unknown {
  if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) return v;
  if (depth > MAX_EVENT_DEPTH) bad("", `JSON nested at most ${MAX_EVENT_DEPTH} levels deep`);
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = copyJson(v[i], depth + 1);
    return out;
  }
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const k of Object.keys(out)) out[k] = copyJson(out[k], depth + 1);
  return out;
}

/**
 * Checks an event's envelope and feedback shape for `protocol` and returns it typed. Throws
 * INVALID_EVENT naming the first bad field. Policies check the decision against their own
 * configuration (context length, live arms) themselves.
 *
 * What it returns is a plain copy of the event, each field and element read once: the values it
 * checked are the values the caller uses, even when the caller's event has getters or is a proxy.
 */
export function checkEvent<P extends Protocol>(event: unknown, protocol: P): LearnableEvent<P> {
  try {
    return checkEventFields(copyJson(event, 0), protocol);
  } catch (e) {
    if (e instanceof RouteKitError) throw e;
    // A getter or proxy of the caller's event threw while it was read: the event is unreadable, not a crash.
    throw new RouteKitError(ErrorCode.InvalidEvent, `reading the event threw: ${errorText(e)}`);
  }
}

function checkEventFields<P extends Protocol>(event: unknown, protocol: P, withFeedback = true): LearnableEvent<P> {
  if (!isObject(event)) {
    bad("", `an object { v, kind, protocol, id, decision${withFeedback ? ", feedback" : ""} }`, event);
  }
  if (event.v !== EVENT_VERSION) bad("v", `${EVENT_VERSION} (this build reads event schema version 1)`, event.v);
  checkId(event.kind, "kind");
  if (event.protocol !== protocol) bad("protocol", JSON.stringify(protocol), event.protocol);
  checkId(event.id, "id");
  const d = event.decision;
  if (!isObject(d)) bad("decision", "an object", d);
  const f = event.feedback;
  if (withFeedback && !isObject(f)) {
    bad("feedback", "an object (a decision record without feedback cannot be learned)", f);
  }
  if (!withFeedback && f !== undefined) bad("feedback", "absent in a decision record", f);
  if (protocol === "arm") {
    checkId(d.arm, "decision.arm");
    if (d.context !== null) eventVector(d.context, "decision.context");
    if (d.propensity !== undefined) {
      const p = checkFinite(d.propensity, "decision.propensity");
      if (!(p > 0 && p <= 1)) bad("decision.propensity", "in (0, 1]", p);
    }
    if (d.retired !== undefined && typeof d.retired !== "boolean") bad("decision.retired", "a boolean", d.retired);
    if (isObject(f)) {
      checkFinite(f.reward, "feedback.reward");
      if (f.cost !== undefined && !(checkFinite(f.cost, "feedback.cost") >= 0)) bad("feedback.cost", ">= 0", f.cost);
    }
  } else if (protocol === "assortment") {
    const items = d.items;
    if (!Array.isArray(items)) bad("decision.items", "an array of item indices", items);
    const seen = new Set<number>();
    for (let i = 0; i < items.length; i++) {
      const it = items[i] as unknown;
      if (!Number.isSafeInteger(it) || (it as number) < 0 || seen.has(it as number)) {
        bad(`decision.items[${i}]`, "a distinct integer >= 0", it);
      }
      seen.add(it as number);
    }
    const x = eventVector(d.features, "decision.features");
    // An empty assortment (a policy may offer nothing, e.g. when every revenue is 0) is a record too, with no rows
    // and no choice: `update` accepts it and learns nothing, and so does `learn`.
    if (items.length === 0 ? x.length !== 0 : x.length % items.length !== 0 || x.length === 0) {
      bad("decision.features", `items.length (${items.length}) rows of equal length`);
    }
    if (d.revenues !== undefined) {
      const r = eventVector(d.revenues, "decision.revenues", items.length);
      for (let i = 0; i < r.length; i++) if (!((r[i] as number) >= 0)) bad(`decision.revenues[${i}]`, ">= 0");
    }
    const c = isObject(f) ? f.choice : null;
    if (c !== null && !(Number.isSafeInteger(c) && seen.has(c as number))) {
      bad("feedback.choice", "null or one of decision.items", c);
    }
  } else {
    eventVector(d.context, "decision.context");
    const q = d.queried;
    if (!Array.isArray(q) || q.length === 0) bad("decision.queried", "a non-empty array of opened boxes", q);
    const arms = new Set<string>();
    for (let i = 0; i < q.length; i++) {
      const b = q[i] as unknown;
      if (!isObject(b)) bad(`decision.queried[${i}]`, "an object { arm, features, cost }", b);
      const arm = checkId(b.arm, `decision.queried[${i}].arm`);
      if (arms.has(arm)) bad(`decision.queried[${i}].arm`, "a box not opened before in the episode", arm);
      arms.add(arm);
      eventVector(b.features, `decision.queried[${i}].features`);
      const cost = checkFinite(b.cost, `decision.queried[${i}].cost`);
      if (!(cost >= 0)) bad(`decision.queried[${i}].cost`, ">= 0", cost);
      if (b.retired !== undefined && typeof b.retired !== "boolean")
        bad(`decision.queried[${i}].retired`, "a boolean", b.retired);
    }
    if (!arms.has(checkId(d.chosen, "decision.chosen"))) bad("decision.chosen", "one of the queried boxes", d.chosen);
    if (isObject(f)) checkFinite(f.reward, "feedback.reward");
  }
  return event as unknown as LearnableEvent<P>;
}

/** Throws INVALID_EVENT: the event lacks decision-time state this policy needs. */
export function missingEventState(kind: string, what: string): never {
  throw new RouteKitError(
    ErrorCode.InvalidEvent,
    `a ${kind} policy needs decision.state.${what} in the event (events logged by another kind of policy lack it)`,
  );
}

/**
 * Checks a decision record (what `decisionRecord` returns: an event without `feedback`) for `protocol`, by the
 * rules of {@link checkEvent} for everything but the feedback, which must be absent. Throws INVALID_EVENT naming
 * the first bad field, so a log reader can tell a record still waiting for its feedback from a line that is no
 * decision record at all.
 */
export function checkDecisionRecord<P extends Protocol>(record: unknown, protocol: P): DecisionEvent<P> {
  try {
    return checkEventFields(copyJson(record, 0), protocol, false);
  } catch (e) {
    if (e instanceof RouteKitError) throw e;
    throw new RouteKitError(ErrorCode.InvalidEvent, `reading the decision record threw: ${errorText(e)}`);
  }
}

/**
 * What a `learn` rethrows when its learning step threw `e`: a refusal with NUMERICAL or OUT_OF_RANGE (an update
 * whose step would overflow, a value the model cannot hold: the codes `update` uses) becomes INVALID_EVENT, the one
 * code of every refused event; anything else is `e` itself. An event logged by another policy can carry such values
 * although it is well formed (a LinUCB learning a context of 1e300 threw NUMERICAL). Used as
 * `catch (e) { throw asInvalidEvent(e); }` (no closure on the per-event path); the step must change nothing when it
 * throws, as updates don't.
 */
export function asInvalidEvent(e: unknown): unknown {
  if (e instanceof RouteKitError && (e.code === ErrorCode.Numerical || e.code === ErrorCode.OutOfRange)) {
    return new RouteKitError(ErrorCode.InvalidEvent, `event cannot be learned: ${e.message}`);
  }
  return e;
}
