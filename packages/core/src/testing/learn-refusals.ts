/**
 * `learn` refuses exactly the feedback `update` refuses, always as INVALID_EVENT. A log consumer (a replica, `routekit
 * train`) sorts a refused event by one code, whatever is wrong with it; and an event that `update` would have accepted
 * must not be dropped by `learn`, or replicas fed by events drift from the leader fed by updates.
 */
import { ErrorCode, RouteKitError } from "../errors.js";
import type { ArmEvent } from "../events.js";
import type { ArmFeedback, ArmPolicy } from "../protocols.js";
import { Rng } from "../rng.js";
import type { Snapshot } from "../snapshot.js";
import type { ArmPolicySpec } from "./arm.js";
import { Trace } from "./check.js";
import { describeError, show } from "./inspect.js";
import { armFeedback, context } from "./properties.js";

/** Feedback at and beyond the edges of what arm families accept (rewards in [0, 1] or [-1, 1], costs >= 0). */
function edgeFeedback(spec: ArmPolicySpec): ArmFeedback[] {
  const cost = spec.costs ? (spec.costs[0] + spec.costs[1]) / 2 : undefined;
  const withCost = (reward: number): ArmFeedback => (cost === undefined ? { reward } : { reward, cost });
  const out: ArmFeedback[] = [2, -2, 1.5, -0.5, 1e308, -1e308, Number.NaN, Infinity, 0, 1, -1].map(withCost);
  out.push({ reward: 0.5, cost: -1 }, { reward: 0.5, cost: Number.NaN }, { reward: 0.5, cost: 1e308 }, { reward: 0.5 });
  return out;
}

function outcome(f: () => void): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof RouteKitError ? e.code : `untyped ${describeError(e)}`;
  }
}

/**
 * For feedback at the edges of every family's ranges: when `update` refuses it (any code), `learn` of the same
 * feedback in the decision's event is refused with INVALID_EVENT; when `update` accepts it, `learn` accepts it too.
 * Both leave the state unchanged when they refuse. Returns the number of feedback values checked.
 */
export function checkLearnRefusesLikeUpdateArm(spec: ArmPolicySpec): number {
  const trace = new Trace();
  trace.push(`${spec.name}: twins from seed 9; P learns by update, Q by learn of the same feedback`);
  // Twins, so an accepted value is learned once by each (1e308 twice in one sum would overflow by design).
  const P = spec.create({ seed: 9, arms: ["arm-0", "arm-1"] }) as ArmPolicy;
  const Q = spec.create({ seed: 9, arms: ["arm-0", "arm-1"] }) as ArmPolicy;
  const rng = Rng.fromSeed(`learn-refusals:${spec.name}`);
  const ctx = (): Float64Array | undefined => {
    if (P.contextDim === 0) return undefined;
    const x = rng.fillNormal(new Float64Array(P.contextDim), 0, 1);
    const n = Math.hypot(...x) || 1;
    return x.map((v) => v / n);
  };
  const feedbacks = edgeFeedback(spec);
  for (const fb of feedbacks) {
    const x = ctx();
    const dP = P.select(x);
    const dQ = Q.select(x?.slice());
    const event = JSON.parse(JSON.stringify(Q.decisionRecord(dQ))) as ArmEvent & { feedback: ArmFeedback };
    event.feedback = fb;
    const before = JSON.stringify(P.toJSON());
    const byUpdate = outcome(() => P.update(dP, fb));
    if (byUpdate !== null) {
      if (byUpdate.startsWith("untyped")) trace.fail(`update(decision, ${show(fb)}) threw ${byUpdate}`);
      if (JSON.stringify(P.toJSON()) !== before)
        trace.fail(`update(decision, ${show(fb)}) threw but changed the state`);
      P.discard(dP);
    }
    const mid = JSON.stringify(Q.toJSON());
    const byLearn = outcome(() => Q.learn(event));
    const afterLearn = JSON.stringify(Q.toJSON());
    Q.discard(dQ);
    trace.push(`feedback ${show(fb)}: update ${byUpdate ?? "accepted"}, learn ${byLearn ?? "accepted"}`);
    if (byUpdate === null && byLearn !== null)
      trace.fail(`update accepted ${show(fb)} but learn refused it: ${byLearn}`);
    if (byUpdate !== null && byLearn === null)
      trace.fail(`update refused ${show(fb)} (${byUpdate}) but learn accepted it`);
    if (byLearn !== null) {
      if (byLearn !== ErrorCode.InvalidEvent) {
        trace.fail(`learn refused ${show(fb)} with ${byLearn}, expected INVALID_EVENT (update said ${byUpdate})`);
      }
      if (afterLearn !== mid) trace.fail(`learn refused ${show(fb)} but changed the state`);
    }
  }
  return feedbacks.length;
}

/** What `learn(event)` throws, as code and message (null when it accepts the event). */
function learnRefusal(p: ArmPolicy, event: unknown): string | null {
  try {
    p.learn(event as ArmEvent);
    return null;
  } catch (e) {
    return e instanceof RouteKitError ? `${e.code}: ${e.message}` : `untyped ${describeError(e)}`;
  }
}

/** `event` naming `arm` as its chosen arm (the default renames `decision.arm` only). */
export type RenameEventArm = (event: ArmEvent, arm: string) => ArmEvent;

/**
 * `learn` validates an event's decision whatever arm it names. Each malformed event in `bad` (refused with
 * INVALID_EVENT when it names the live `arm`) must be refused with the same code and message when it names a retired
 * arm (`decision.retired: true`), an arm the policy never had, and `arm` after `removeArm(arm)`, leaving the policy's
 * snapshot as it was; the valid `record` naming such an arm is accepted and learns nothing. Removes `arm` from `p`.
 * `rename` renames the chosen arm wherever the family's events name it (e.g. also in `decision.state`); `labels[i]`,
 * when given, names `bad[i]` in failure messages.
 */
export function checkArmsLackedRefusedAlike(
  p: ArmPolicy,
  arm: string,
  record: ArmEvent,
  bad: readonly ArmEvent[],
  rename: RenameEventArm = (e, id) => ({ ...e, decision: { ...e.decision, arm: id } }),
  labels?: readonly string[],
): void {
  const trace = new Trace();
  const name = (i: number) => `bad event ${i}${labels?.[i] === undefined ? "" : ` (${labels[i]})`}`;
  const live = bad.map((e) => learnRefusal(p, e));
  live.forEach((r, i) => {
    if (r === null || !r.startsWith(`${ErrorCode.InvalidEvent}:`)) {
      trace.fail(`${name(i)} naming the live arm "${arm}" gave ${r ?? "no error"}, expected INVALID_EVENT`);
    }
  });
  let before = JSON.stringify(p.toJSON());
  const check = (what: string, variant: (e: ArmEvent) => ArmEvent) => {
    bad.forEach((e, i) => {
      const got = learnRefusal(p, variant(e));
      if (got !== live[i])
        trace.fail(`${name(i)} naming ${what} gave ${got ?? "no error"}, for the live arm ${live[i]}`);
      if (JSON.stringify(p.toJSON()) !== before) trace.fail(`${name(i)} naming ${what} changed the state`);
    });
    const valid = learnRefusal(p, variant(record));
    if (valid !== null) trace.fail(`the valid event naming ${what} was refused: ${valid}`);
    if (JSON.stringify(p.toJSON()) !== before) trace.fail(`the valid event naming ${what} changed the state`);
    trace.push(`${what}: ${bad.length} bad events refused as for the live arm; the valid one ignored`);
  };
  check("a retired arm", (e) => ({ ...e, decision: { ...e.decision, retired: true } }));
  check("an arm the policy never had", (e) => rename(e, "never-had"));
  p.removeArm(arm);
  before = JSON.stringify(p.toJSON());
  check(`the removed arm "${arm}"`, (e) => e);
}

/** `event` naming `arm` as its chosen arm in `decision.arm` and wherever `decision.state` holds the old id as a string. */
export function renameArmEverywhere(event: ArmEvent, arm: string): ArmEvent {
  const old = event.decision.arm;
  const swap = (v: unknown): unknown => {
    if (v === old) return arm;
    if (Array.isArray(v)) return v.map(swap);
    if (v !== null && typeof v === "object") {
      // Object.fromEntries defines own properties: a "__proto__" key stays a key.
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x)]));
    }
    return v;
  };
  const decision: Record<string, unknown> = { ...event.decision, arm };
  if (decision.state !== undefined) decision.state = swap(decision.state);
  return { ...event, decision } as unknown as ArmEvent;
}

/** One generic edit of a decision record: what was changed, and the edited event. */
interface Mutation {
  readonly label: string;
  readonly event: ArmEvent;
}

/** A key path inside `decision`. */
type Path = readonly (string | number)[];

/** Most `decision.state` paths mutated per record (the state itself, its fields, their first and last entries...). */
const MAX_STATE_PATHS = 24;
/** Deepest `decision.state` path mutated (`state.a[0].b` is depth 3). */
const MAX_STATE_DEPTH = 4;
const DELETE = Symbol("delete");

function pathText(path: Path): string {
  return `decision${path.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("")}`;
}

/** `decision.state` and, depth first, its fields and the first and last entry of its arrays, at most MAX_STATE_PATHS. */
function statePaths(value: unknown, path: Path, out: Path[]): void {
  if (out.length >= MAX_STATE_PATHS) return;
  out.push(path);
  if (path.length > MAX_STATE_DEPTH) return;
  if (Array.isArray(value)) {
    for (const i of new Set([0, value.length - 1])) if (i >= 0) statePaths(value[i], [...path, i], out);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) statePaths(v, [...path, k], out);
  }
}

/** A JSON copy of `record` with the value at `decision.<path>` replaced by `value` (or deleted). */
function edited(record: ArmEvent, path: Path, value: unknown): ArmEvent {
  const copy = JSON.parse(JSON.stringify(record)) as ArmEvent;
  let parent = copy.decision as unknown as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = path[path.length - 1] as string | number;
  if (value === DELETE) delete parent[key];
  else parent[key] = value;
  return copy;
}

function valueAt(record: ArmEvent, path: Path): unknown {
  let v: unknown = record.decision;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return v;
}

/**
 * Malformed variants of a valid record, derived without knowing the family: every `decision.state` path (see
 * {@link statePaths}) deleted (object fields only), set to null, a string, -1, 0.5, 2, 1e308 and [], and an array
 * one entry longer or shorter; `decision.propensity` missing, -0.1 and 1.5; the context one entry longer or shorter
 * and with a first entry of 1e200. (NaN and Infinity cannot be written in a JSON log.) Edits that leave the record
 * as it was are left out.
 */
function mutations(record: ArmEvent): Mutation[] {
  const out: Mutation[] = [];
  const same = JSON.stringify(record);
  const add = (path: Path, value: unknown, text: string) => {
    const event = edited(record, path, value);
    if (JSON.stringify(event) !== same) out.push({ label: `${pathText(path)} ${text}`, event });
  };
  const paths: Path[] = [];
  if (record.decision.state !== undefined) statePaths(record.decision.state, ["state"], paths);
  for (const path of paths) {
    const v = valueAt(record, path);
    if (typeof path[path.length - 1] === "string") add(path, DELETE, "deleted");
    for (const x of [null, "mutated", -1, 0.5, 2, 1e308, []]) add(path, x, `= ${JSON.stringify(x)}`);
    if (Array.isArray(v)) {
      const longer = [...v, v.length > 0 ? v[v.length - 1] : 0];
      add(path, longer, `one entry longer (${longer.length})`);
      if (v.length >= 2) add(path, v.slice(0, -1), `one entry shorter (${v.length - 1})`);
    }
  }
  add(["propensity"], DELETE, "deleted");
  for (const x of [-0.1, 1.5]) add(["propensity"], x, `= ${x}`);
  const ctx = record.decision.context;
  if (Array.isArray(ctx)) {
    add(["context"], [...ctx, 0], `one entry longer (${ctx.length + 1})`);
    if (ctx.length >= 1) add(["context"], ctx.slice(0, -1), `one entry shorter (${ctx.length - 1})`);
    if (ctx.length >= 1) add(["context", 0], 1e200, "= 1e200");
  } else {
    add(["context"], [1e200], "= [1e200] (the policy records none)");
  }
  return out;
}

/**
 * Malformed events are refused alike whatever arm they name, found generically. From real decision records of
 * `spec` (up to two pending decisions, on different removable arms, after ten learned rounds) it derives malformed
 * events by editing the record ({@link mutations}: every field of `decision.state`, the propensity, the context).
 * Each is learned by a copy of the policy on which the chosen arm is live: an edit it accepts is fine (not every
 * field is checked); one it refuses must be refused with INVALID_EVENT (never an untyped error or another code)
 * leaving the snapshot unchanged, and then with the same code and message for a retired arm, an arm the policy
 * never had and the arm after its removal ({@link checkArmsLackedRefusedAlike}, renaming the arm in
 * `decision.state` too). Deterministic (seeded by the spec's name). Returns the edits tried and those refused.
 */
export function checkMalformedEventsRefusedAlike<P extends ArmPolicy>(
  spec: ArmPolicySpec<P>,
  seed = 13,
): { readonly mutations: number; readonly refused: number } {
  const trace = new Trace();
  const arms = ["arm-0", "arm-1", "arm-2"];
  const removable = arms.filter((a) => !spec.pinnedArms?.includes(a));
  trace.push(`${spec.name}: seed ${seed}, arms ${show(arms)}, 10 rounds learned`);
  const P = spec.create({ seed, arms });
  const rng = Rng.fromSeed(`malformed-events:${spec.name}`);
  for (let t = 0; t < 10; t++) P.update(P.select(context(P, rng)), armFeedback(spec, rng));
  const records: ArmEvent[] = [];
  let first: ArmEvent | undefined;
  for (let t = 0; t < 16 && records.length < 2; t++) {
    const d = P.select(context(P, rng));
    const rec = JSON.parse(JSON.stringify({ ...P.decisionRecord(d), feedback: armFeedback(spec, rng) })) as ArmEvent;
    first ??= rec;
    if (removable.includes(d.arm) && !records.some((r) => r.decision.arm === d.arm)) records.push(rec);
  }
  // A policy that only ever picks a pinned arm (the one-arm oracle): its record, naming a removable arm instead.
  if (records.length === 0 && first !== undefined) records.push(renameArmEverywhere(first, removable[0] as string));
  const snap = JSON.parse(JSON.stringify(P.toJSON())) as Snapshot;
  let tried = 0;
  let refused = 0;
  for (const record of records) {
    const arm = record.decision.arm;
    trace.push(`record naming "${arm}": ${show(record)}`);
    const bad: ArmEvent[] = [];
    const labels: string[] = [];
    let probe: ArmPolicy = spec.restore(snap);
    for (const m of mutations(record)) {
      tried++;
      const before = JSON.stringify(probe.toJSON());
      const got = learnRefusal(probe, m.event);
      trace.push(`${m.label}: ${got ?? "accepted"}`);
      if (got === null) {
        probe = spec.restore(snap); // it learned the edited event: start the next edit from the record's state
        continue;
      }
      if (!got.startsWith(`${ErrorCode.InvalidEvent}:`))
        trace.fail(`learn of the record with ${m.label} (live arm "${arm}") gave ${got}, expected INVALID_EVENT`);
      if (JSON.stringify(probe.toJSON()) !== before)
        trace.fail(`learn of the record with ${m.label} was refused but changed the state`);
      bad.push(m.event);
      labels.push(m.label);
    }
    refused += bad.length;
    try {
      checkArmsLackedRefusedAlike(spec.restore(snap), arm, record, bad, renameArmEverywhere, labels);
    } catch (e) {
      // Its first line says what failed (naming the edit); the steps below are this check's.
      const why = e instanceof Error ? (e.message.split("\n")[0] as string) : describeError(e);
      trace.fail(`${spec.name}, record naming "${arm}": ${why}`);
    }
  }
  return { mutations: tried, refused };
}
