/**
 * `learn` refuses exactly the feedback `update` refuses, always as INVALID_EVENT. A log consumer (a replica, `routekit
 * train`) sorts a refused event by one code, whatever is wrong with it; and an event that `update` would have accepted
 * must not be dropped by `learn`, or replicas fed by events drift from the leader fed by updates.
 */
import { ErrorCode, RouteKitError } from "../errors.js";
import type { ArmEvent } from "../events.js";
import type { ArmFeedback, ArmPolicy } from "../protocols.js";
import { Rng } from "../rng.js";
import type { ArmPolicySpec } from "./arm.js";
import { Trace } from "./check.js";
import { describeError, show } from "./inspect.js";

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
 * `rename` renames the chosen arm wherever the family's events name it (e.g. also in `decision.state`).
 */
export function checkArmsLackedRefusedAlike(
  p: ArmPolicy,
  arm: string,
  record: ArmEvent,
  bad: readonly ArmEvent[],
  rename: RenameEventArm = (e, id) => ({ ...e, decision: { ...e.decision, arm: id } }),
): void {
  const trace = new Trace();
  const live = bad.map((e) => learnRefusal(p, e));
  live.forEach((r, i) => {
    if (r === null || !r.startsWith(`${ErrorCode.InvalidEvent}:`)) {
      trace.fail(`bad event ${i} naming the live arm "${arm}" gave ${r ?? "no error"}, expected INVALID_EVENT`);
    }
  });
  let before = JSON.stringify(p.toJSON());
  const check = (what: string, variant: (e: ArmEvent) => ArmEvent) => {
    bad.forEach((e, i) => {
      const got = learnRefusal(p, variant(e));
      if (got !== live[i])
        trace.fail(`bad event ${i} naming ${what} gave ${got ?? "no error"}, for the live arm ${live[i]}`);
      if (JSON.stringify(p.toJSON()) !== before) trace.fail(`bad event ${i} naming ${what} changed the state`);
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
