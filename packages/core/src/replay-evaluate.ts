/** The replay evaluator for learning policies (see off-policy.ts for the fixed-target estimators). */
import { ErrorCode, RouteKitError } from "./errors.js";
import type { ArmEvent } from "./events.js";
import { REPLAY_OPTION_KEYS, type ReplayOptions, type ReplayResult } from "./off-policy.js";
import { atEvent, finish, type LoggedEvent, readCommon, readLog, weightedMean } from "./off-policy-log.js";
import { rejectUnknownOptions } from "./option-keys.js";
import { readOptions } from "./options.js";
import type { ArmPolicy } from "./protocols.js";
import { describe } from "./validate.js";

/**
 * The replay evaluator of Li, Chu, Langford & Wang (WSDM 2011, Algorithm 1) for a learning policy, with importance
 * weights for non-uniform logging. The events are streamed in order: on each, `policy.select(context)`; if the policy
 * picks the logged arm the event is *matched* and the policy learns the logged feedback with `update`, otherwise the
 * decision is discarded (`discard`). Every decision is settled, so no pending decision is left behind.
 *
 * The estimate is the weighted mean reward of the matched events, sum w_i r_i / sum w_i with w_i = min(1 / mu_i,
 * clip) (mu_i the logged propensity), and its standard error the delta-method one of that ratio. With uniform
 * logging every weight is equal and this is exactly Algorithm 1's average reward over the matched events: the
 * matched events are distributed as T rounds of the policy run online, T the match count (about n / K). With
 * non-uniform logging (e.g. an epsilon-greedy logger) the 1/mu weights make each matched event count as the
 * uniform-logging case would (the self-normalised weighted variant; consistent, not unbiased for small T), while
 * the policy still learns each matched event once, unweighted.
 *
 * The policy learns from the matched events: pass a fresh policy (or a copy) to evaluate it from scratch. Errors
 * are those of {@link estimateOffPolicy} for the log, plus INVALID_EVENT for a context whose length is not the
 * policy's `contextDim`, UNKNOWN_ARM when the policy has an arm the logging policy never plays, and INVALID_ARGUMENT
 * for something that is not an arm policy, all thrown before the policy is touched. An update the policy refuses
 * (e.g. a reward outside its range) is rethrown with the event's index after its decision is discarded. NUMERICAL
 * when no event matched, or when the estimate overflows (weights near 1e300 from tiny propensities: set `clip`),
 * both after the replay (the policy has then learned the matched events).
 */
export function replayEvaluate(
  events: readonly ArmEvent[],
  policy: ArmPolicy,
  options: ReplayOptions = {},
): ReplayResult {
  rejectUnknownOptions(options, REPLAY_OPTION_KEYS, "replayEvaluate", true);
  const common = readCommon(readOptions(options, "replayEvaluate", true));
  const p = policy as Partial<ArmPolicy> | null;
  if (
    p === null ||
    typeof p !== "object" ||
    p.protocol !== "arm" ||
    typeof p.select !== "function" ||
    typeof p.update !== "function" ||
    typeof p.discard !== "function" ||
    !Array.isArray(p.arms) ||
    typeof p.contextDim !== "number"
  ) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `policy must be an arm policy, got ${describe(policy)}`);
  }
  const log = readLog(events, common, policy.contextDim);
  for (const a of [...policy.arms]) {
    if (!log.armSet.has(a)) {
      throw new RouteKitError(
        ErrorCode.UnknownArm,
        `the policy's arm ${describe(a)} is not one the logging policy plays (logged arms: ${log.arms.map((x) => describe(x)).join(", ")}): replay cannot score its picks`,
        { arm: a },
      );
    }
  }
  const w: number[] = [];
  const r: number[] = [];
  let clipped = 0;
  for (let i = 0; i < log.events.length; i++) {
    const ev = log.events[i] as LoggedEvent;
    let d: ReturnType<ArmPolicy["select"]>;
    try {
      d = policy.select(ev.context); // a context the policy refuses (e.g. HPG's norm bound) is about this event
    } catch (e) {
      atEvent(i, e);
    }
    if (d.arm !== ev.arm) {
      policy.discard(d);
      continue;
    }
    try {
      policy.update(d, ev.feedback);
    } catch (e) {
      try {
        policy.discard(d); // the refused update left it pending
      } catch {
        // the policy settled it anyway
      }
      atEvent(i, e);
    }
    const raw = 1 / ev.propensity;
    if (raw > common.clip) clipped++;
    w.push(Math.min(raw, common.clip));
    r.push(ev.feedback.reward);
  }
  const s = weightedMean(w, r);
  if (s === undefined) {
    throw new RouteKitError(
      ErrorCode.Numerical,
      `replay is undefined: the policy picked the logged arm on none of the ${log.events.length} events`,
    );
  }
  const result = finish("replay", s.mean, s.se, w, log.events.length, common, log, clipped);
  return { ...result, estimator: "replay", matched: w.length };
}
