/**
 * Property-based fuzzing of a {@link CascadePolicy}: many episodes open at once and driven in random
 * interleavings (begin, next, observe, choose, feedback, discard), bad input at every step (a box that
 * was not asked for, observe with nothing asked, choose before any observation, feedback before choose,
 * unknown and settled episodes, malformed contexts, output features, costs, rewards and events),
 * snapshots taken mid-episode and restored bit-exactly (and as a new replica through withReplicaParts,
 * which keeps the learned state), and the event contract: feedback equals
 * learn({ ...decisionRecord(episode), feedback }) plus closing the episode, bit for bit.
 */
import fc from "fast-check";
import type { CascadeEvent } from "../events.js";
import type { CascadePolicy, CascadeStep } from "../protocols.js";
import { Rng } from "../rng.js";
import { learnedState, type Snapshot, withReplicaParts } from "../snapshot.js";
import type { FuzzOptions, FuzzProfile } from "./arm.js";
import { checkState, expectOk, expectRejected, expectTolerated, fuzzScale, type StateHooks, Trace } from "./check.js";
import { show } from "./inspect.js";
import type { OptionRange } from "./misuse.js";

export interface CascadePolicySpec<P extends CascadePolicy = CascadePolicy> extends StateHooks<P> {
  readonly name: string;
  /** A fresh policy over `arms` (ids the harness chooses). */
  create(ctx: { readonly seed: number; readonly arms: readonly string[] }): P;
  restore(snapshot: Snapshot): P;
  /** Whether to add and remove boxes while episodes are open (default true). */
  readonly dynamicArms?: boolean;
  /** The class's constructor with raw options, for the option-range and misuse checks (misuse.ts). */
  readonly construct?: (options: unknown) => P;
  /** Options (arms and seed included) that build a valid policy; the checks vary one field at a time. */
  readonly baseOptions?: Readonly<Record<string, unknown>>;
  /** Documented options: numeric ranges (both ends work, just outside is OUT_OF_RANGE) and choices. */
  readonly optionRanges?: readonly OptionRange[];
}

type BadCall =
  | "observe-other-box"
  | "observe-nothing-asked"
  | "observe-short"
  | "observe-nan"
  | "cost-nan"
  | "cost-negative"
  | "choose-before-observe"
  | "feedback-before-choose"
  | "reward-nan"
  | "unknown-episode"
  | "settled-episode"
  | "context-short"
  | "context-nan"
  | "event-malformed";
type EdgeCall = "context-huge" | "features-huge" | "cost-huge" | "reward-huge" | "context-zero" | "array-input";

export type CascadeOp =
  | { readonly t: "begin" }
  | { readonly t: "next"; readonly pick: number }
  | { readonly t: "observe"; readonly pick: number }
  | { readonly t: "choose"; readonly pick: number }
  | { readonly t: "feedback"; readonly pick: number }
  | { readonly t: "discard"; readonly pick: number }
  | { readonly t: "event"; readonly pick: number }
  | { readonly t: "snapshot"; readonly pick: number }
  | { readonly t: "add-arm" }
  | { readonly t: "remove-arm"; readonly pick: number }
  | { readonly t: "bad"; readonly how: BadCall; readonly pick: number }
  | { readonly t: "edge"; readonly how: EdgeCall; readonly pick: number };

export function cascadeOpArbitrary(profile: FuzzProfile, dynamicArms: boolean): fc.Arbitrary<CascadeOp> {
  const pick = fc.nat({ max: 1000 });
  const rec = <T extends CascadeOp["t"]>(t: T, weight: number) => ({
    weight,
    arbitrary: fc.record({ t: fc.constant(t), pick }),
  });
  const valid = [
    { weight: 14, arbitrary: fc.constant({ t: "begin" as const }) },
    rec("next", 24),
    rec("observe", 24),
    rec("choose", 10),
    rec("feedback", 10),
    rec("discard", 2),
    rec("event", 4),
    rec("snapshot", 4),
    ...(dynamicArms ? [{ weight: 2, arbitrary: fc.constant({ t: "add-arm" as const }) }, rec("remove-arm", 2)] : []),
  ];
  const bad = {
    weight: 16,
    arbitrary: fc.record({
      t: fc.constant("bad" as const),
      pick,
      how: fc.constantFrom<BadCall>(
        "observe-other-box",
        "observe-nothing-asked",
        "observe-short",
        "observe-nan",
        "cost-nan",
        "cost-negative",
        "choose-before-observe",
        "feedback-before-choose",
        "reward-nan",
        "unknown-episode",
        "settled-episode",
        "context-short",
        "context-nan",
        "event-malformed",
      ),
    }),
  };
  const edge = {
    weight: 12,
    arbitrary: fc.record({
      t: fc.constant("edge" as const),
      pick,
      how: fc.constantFrom<EdgeCall>(
        "context-huge",
        "features-huge",
        "cost-huge",
        "reward-huge",
        "context-zero",
        "array-input",
      ),
    }),
  };
  return fc.oneof(...valid, profile === "protocol" ? bad : edge);
}

/** The harness's model of one open episode. */
interface Open {
  readonly id: string;
  readonly opened: string[];
  awaiting: string | null;
  stopped: boolean;
  chosen: string | null;
  /** Opened under edge input: later calls on it may be refused with a typed error. */
  readonly edge: boolean;
}

const UNKNOWN_REFS: readonly unknown[] = ["nope", "e999999999", "", "e-1", "e01", 42, null, { id: "zz" }];

function hashName(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Plays one generated run; throws ContractViolation at the first broken rule. */
export function runCascadeScenario<P extends CascadePolicy>(
  spec: CascadePolicySpec<P>,
  seed: number,
  ops: readonly CascadeOp[],
): void {
  const trace = new Trace();
  const rng = Rng.fromSeed(`harness:${seed}`);
  const arms = ["m0", "m1", "m2"].slice(0, 1 + (seed % 3));
  let nextArm = arms.length;
  trace.push(`create(seed=${seed}, arms=${show(arms)})`);
  let policy = expectOk(trace, "create", () => spec.create({ seed, arms }));
  const dx = policy.contextDim;
  const d = policy.outputDim;
  const open: Open[] = [];
  const settled: string[] = [];

  const vec = (n: number, scale = 1) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = scale * rng.uniformIn(-1, 1);
    return v;
  };
  const checkStep = (e: Open, s: CascadeStep, what: string): void => {
    if (s === null || typeof s !== "object") trace.fail(`${what} returned ${show(s)}`);
    if ("query" in s) {
      if (e.stopped) trace.fail(`${what} asked for "${s.query}" after it had stopped`);
      if (e.awaiting !== null && s.query !== e.awaiting)
        trace.fail(`${what} asked for "${s.query}" while "${e.awaiting}" was still unobserved`);
      if (e.awaiting === null && e.opened.includes(s.query)) trace.fail(`${what} asked for "${s.query}" a second time`);
      e.awaiting = s.query;
    } else {
      if (s.stop !== true) trace.fail(`${what} returned neither a query nor a stop: ${show(s)}`);
      if (e.opened.length === 0) trace.fail(`${what} stopped before any box was opened`);
      e.stopped = true;
      e.awaiting = null;
    }
  };
  const pickOpen = (pick: number, ok: (e: Open) => boolean): Open | undefined => {
    const c = open.filter(ok);
    return c.length === 0 ? undefined : c[pick % c.length];
  };
  const close = (e: Open): void => {
    open.splice(open.indexOf(e), 1);
    settled.push(e.id);
  };
  const beginOne = (ctx: Float64Array, edge: boolean, what: string): void => {
    trace.push(what);
    if (edge) {
      const r = expectTolerated(trace, policy, before, what, () => policy.begin(ctx));
      if (r.ok) open.push({ id: r.value, opened: [], awaiting: null, stopped: false, chosen: null, edge: true });
      return;
    }
    const id = expectOk(trace, what, () => policy.begin(ctx));
    if (typeof id !== "string" || id.length === 0) trace.fail(`${what} returned ${show(id)}, not an episode id`);
    if (open.some((e) => e.id === id) || settled.includes(id)) trace.fail(`${what} reused episode id ${id}`);
    open.push({ id, opened: [], awaiting: null, stopped: false, chosen: null, edge: false });
  };
  const observeOne = (e: Open, features: Float64Array, cost: number, what: string, edge: boolean): void => {
    const arm = e.awaiting as string;
    trace.push(what);
    const run = () => policy.observe(e.id, arm, features, cost);
    if (edge || e.edge) {
      if (!expectTolerated(trace, policy, before, what, run).ok) return;
    } else expectOk(trace, what, run);
    e.opened.push(arm);
    e.awaiting = null;
  };

  let before = checkState(policy, spec, trace);
  for (const op of ops) {
    switch (op.t) {
      case "begin":
        beginOne(vec(dx), false, "begin(fresh context)");
        break;
      case "next": {
        const e = pickOpen(op.pick, (x) => x.chosen === null);
        if (!e) {
          trace.push("next: (no open episode)");
          break;
        }
        const what = `next(${e.id})`;
        trace.push(what);
        const r = expectTolerated(trace, policy, before, what, () => policy.next(e.id));
        if (r.ok) checkStep(e, r.value, what);
        else if (r.code !== "INVALID_STATE" || e.opened.length > 0) trace.fail(`${what} threw ${r.code}`);
        break;
      }
      case "observe": {
        const e = pickOpen(op.pick, (x) => x.awaiting !== null);
        if (!e) {
          trace.push("observe: (no box asked for)");
          break;
        }
        observeOne(e, vec(d), 0.01 + 0.5 * rng.uniform(), `observe(${e.id}, "${e.awaiting}")`, false);
        break;
      }
      case "choose": {
        const e = pickOpen(op.pick, (x) => x.opened.length > 0);
        if (!e) {
          trace.push("choose: (no episode with an observation)");
          break;
        }
        const what = `choose(${e.id})`;
        trace.push(what);
        const arm = expectOk(trace, what, () => policy.choose(e.id));
        if (!e.opened.includes(arm)) trace.fail(`${what} chose "${arm}", not one of the opened ${show(e.opened)}`);
        if (e.chosen !== null && e.chosen !== arm) trace.fail(`${what} chose "${arm}", earlier "${e.chosen}"`);
        e.chosen = arm;
        e.awaiting = null;
        e.stopped = true;
        break;
      }
      case "feedback":
      case "event": {
        const e = pickOpen(op.pick, (x) => x.chosen !== null);
        if (!e) {
          trace.push(`${op.t}: (no chosen episode)`);
          break;
        }
        const reward = rng.uniform();
        if (op.t === "feedback") {
          const what = `feedback(${e.id}, ${reward})`;
          trace.push(what);
          expectOk(trace, what, () => policy.feedback(e.id, reward));
          close(e);
          break;
        }
        // learn(decisionRecord + feedback) + discard on a restored copy equals feedback on the original
        const what = `feedback(${e.id}) vs learn(decisionRecord(${e.id}) + feedback) + discard on a copy`;
        trace.push(what);
        const copy = expectOk(trace, "fromJSON(toJSON())", () => spec.restore(JSON.parse(before) as Snapshot));
        const record = expectOk(trace, "decisionRecord", () => policy.decisionRecord(e.id));
        const event = JSON.parse(JSON.stringify({ ...record, feedback: { reward } })) as CascadeEvent;
        expectOk(trace, "feedback", () => policy.feedback(e.id, reward));
        expectOk(trace, "learn on the copy", () => copy.learn(event));
        expectOk(trace, "discard on the copy", () => copy.discard(e.id));
        if (JSON.stringify(copy.toJSON()) !== JSON.stringify(policy.toJSON()))
          trace.fail(`${what}: the two snapshots differ`);
        close(e);
        break;
      }
      case "discard": {
        const e = pickOpen(op.pick, () => true);
        if (!e) {
          trace.push("discard: (no open episode)");
          break;
        }
        trace.push(`discard(${e.id})`);
        expectOk(trace, "discard", () => policy.discard(e.id));
        close(e);
        break;
      }
      case "snapshot": {
        trace.push("snapshot mid-episode: toJSON -> JSON text -> fromJSON; then the same calls on both");
        const restored = expectOk(trace, "fromJSON(toJSON())", () => spec.restore(JSON.parse(before) as Snapshot));
        if (JSON.stringify(restored.toJSON()) !== before)
          trace.fail("fromJSON(toJSON()).toJSON() differs from the original");
        if (restored.pendingDecisions !== policy.pendingDecisions) trace.fail("restored pendingDecisions differ");
        // A new replica from this snapshot (own rng, no pending episodes) has the same learned state.
        const replica = expectOk(trace, "fromJSON(withReplicaParts(toJSON()))", () =>
          spec.restore(withReplicaParts(JSON.parse(before) as Snapshot, Rng.fromSeed("replica"))),
        );
        if (replica.pendingDecisions !== 0) trace.fail("a replica started by withReplicaParts has pending episodes");
        if (
          JSON.stringify(learnedState(replica.toJSON())) !==
          JSON.stringify(learnedState(JSON.parse(before) as Snapshot))
        )
          trace.fail("withReplicaParts changed the learned state (a field outside rng and ledger is per-replica)");
        const e = pickOpen(op.pick, (x) => x.chosen === null && !x.edge);
        if (e) {
          const s1 = expectOk(trace, "next on original", () => policy.next(e.id));
          const s2 = expectOk(trace, "next on restored", () => restored.next(e.id));
          if (show(s1) !== show(s2)) trace.fail(`restored next() gave ${show(s2)}, the original ${show(s1)}`);
          checkStep(e, s1, `next(${e.id}) after restore`);
        }
        const ctx = vec(dx);
        const id1 = expectOk(trace, "begin on original", () => policy.begin(ctx));
        const id2 = expectOk(trace, "begin on restored", () => restored.begin(ctx.slice()));
        const n1 = expectOk(trace, "next on original", () => policy.next(id1));
        const n2 = expectOk(trace, "next on restored", () => restored.next(id2));
        if (id1 !== id2 || show(n1) !== show(n2))
          trace.fail(`restored policy began ${id2} ${show(n2)}, the original ${id1} ${show(n1)}`);
        if (JSON.stringify(restored.toJSON()) !== JSON.stringify(policy.toJSON()))
          trace.fail("snapshots differ after the same calls");
        const fresh: Open = { id: id1, opened: [], awaiting: null, stopped: false, chosen: null, edge: false };
        open.push(fresh);
        checkStep(fresh, n1, `next(${id1})`);
        policy = restored;
        break;
      }
      case "add-arm": {
        const id = `m${nextArm++}`;
        trace.push(`addArm("${id}")`);
        expectOk(trace, "addArm", () => policy.addArm(id));
        break;
      }
      case "remove-arm": {
        const live = policy.arms;
        if (live.length < 2) {
          trace.push("removeArm: (one arm left)");
          break;
        }
        const id = live[op.pick % live.length] as string;
        trace.push(`removeArm("${id}")`);
        expectOk(trace, "removeArm", () => policy.removeArm(id));
        break;
      }
      case "bad": {
        const rej = (what: string, codes: readonly string[], fn: () => unknown) => {
          trace.push(`${what} [${op.how}]`);
          expectRejected(trace, policy, before, what, codes, fn);
        };
        const asked = pickOpen(op.pick, (x) => x.awaiting !== null && !x.edge);
        switch (op.how) {
          case "observe-other-box": {
            if (!asked) break;
            const other = [...policy.arms, "no-such-box"].find((a) => a !== asked.awaiting) as string;
            rej(`observe(${asked.id}, "${other}")`, ["INVALID_ARGUMENT", "INVALID_STATE", "UNKNOWN_ARM"], () =>
              policy.observe(asked.id, other, vec(d), 0.1),
            );
            break;
          }
          case "observe-nothing-asked": {
            const e = pickOpen(op.pick, (x) => x.awaiting === null);
            if (e)
              rej(`observe(${e.id}, "${policy.arms[0]}")`, ["INVALID_STATE", "INVALID_ARGUMENT"], () =>
                policy.observe(e.id, policy.arms[0] as string, vec(d), 0.1),
              );
            break;
          }
          case "observe-short":
            if (asked)
              rej(`observe(${asked.id}) short features`, ["DIMENSION_MISMATCH"], () =>
                policy.observe(asked.id, asked.awaiting as string, vec(d + 1), 0.1),
              );
            break;
          case "observe-nan":
            if (asked) {
              const f = vec(d);
              f[rng.int(d)] = Number.NaN;
              rej(`observe(${asked.id}) NaN feature`, ["NON_FINITE"], () =>
                policy.observe(asked.id, asked.awaiting as string, f, 0.1),
              );
            }
            break;
          case "cost-nan":
            if (asked)
              rej(`observe(${asked.id}) cost NaN`, ["NON_FINITE"], () =>
                policy.observe(asked.id, asked.awaiting as string, vec(d), Number.NaN),
              );
            break;
          case "cost-negative":
            if (asked)
              rej(`observe(${asked.id}) cost -0.5`, ["OUT_OF_RANGE"], () =>
                policy.observe(asked.id, asked.awaiting as string, vec(d), -0.5),
              );
            break;
          case "choose-before-observe": {
            const e = pickOpen(op.pick, (x) => x.opened.length === 0);
            if (e) rej(`choose(${e.id})`, ["INVALID_STATE"], () => policy.choose(e.id));
            break;
          }
          case "feedback-before-choose": {
            const e = pickOpen(op.pick, (x) => x.chosen === null);
            if (e) rej(`feedback(${e.id}, 1)`, ["INVALID_STATE"], () => policy.feedback(e.id, 1));
            break;
          }
          case "reward-nan": {
            const e = pickOpen(op.pick, (x) => x.chosen !== null);
            if (e) rej(`feedback(${e.id}, NaN)`, ["NON_FINITE"], () => policy.feedback(e.id, Number.NaN));
            break;
          }
          case "unknown-episode": {
            const ref = UNKNOWN_REFS[op.pick % UNKNOWN_REFS.length] as string;
            const codes = ["UNKNOWN_DECISION", "INVALID_ARGUMENT"];
            const calls: [string, () => unknown][] = [
              ["next", () => policy.next(ref)],
              ["observe", () => policy.observe(ref, policy.arms[0] as string, vec(d), 0.1)],
              ["choose", () => policy.choose(ref)],
              ["feedback", () => policy.feedback(ref, 0.5)],
              ["discard", () => policy.discard(ref)],
              ["decisionRecord", () => policy.decisionRecord(ref)],
            ];
            const [name, fn] = calls[op.pick % calls.length] as [string, () => unknown];
            rej(`${name}(${show(ref)})`, codes, fn);
            break;
          }
          case "settled-episode": {
            if (settled.length === 0) break;
            const id = settled[op.pick % settled.length] as string;
            const codes = ["DECISION_ALREADY_USED", "DECISION_EXPIRED"];
            rej(`feedback(${id}) after it closed`, codes, () => policy.feedback(id, 0.5));
            rej(`next(${id}) after it closed`, codes, () => policy.next(id));
            break;
          }
          case "context-short":
            rej("begin(short context)", ["DIMENSION_MISMATCH"], () => policy.begin(vec(dx + 1)));
            break;
          case "context-nan": {
            if (dx === 0) break;
            const c = vec(dx);
            c[rng.int(dx)] = Number.POSITIVE_INFINITY;
            rej("begin(context with Infinity)", ["NON_FINITE"], () => policy.begin(c));
            break;
          }
          case "event-malformed": {
            const good = {
              v: 1,
              kind: policy.kind,
              protocol: "cascade",
              id: "x1",
              decision: {
                context: Array.from(vec(dx)),
                queried: [{ arm: policy.arms[0], features: Array.from(vec(d)), cost: 0.1 }],
                chosen: policy.arms[0],
              },
              feedback: { reward: 0.5 },
            };
            const variants: [string, unknown][] = [
              ["no feedback", { ...good, feedback: undefined }],
              ["chosen not queried", { ...good, decision: { ...good.decision, chosen: "zzz" } }],
              ["short context", { ...good, decision: { ...good.decision, context: [...good.decision.context, 1] } }],
              [
                "short features",
                { ...good, decision: { ...good.decision, queried: [{ ...good.decision.queried[0], features: [] }] } },
              ],
              [
                "negative cost",
                { ...good, decision: { ...good.decision, queried: [{ ...good.decision.queried[0], cost: -1 }] } },
              ],
              ["NaN reward", { ...good, feedback: { reward: Number.NaN } }],
              ["no queried", { ...good, decision: { ...good.decision, queried: [] } }],
              ["wrong protocol", { ...good, protocol: "arm" }],
            ];
            const [label, ev] = variants[op.pick % variants.length] as [string, unknown];
            rej(`learn(event: ${label})`, ["INVALID_EVENT"], () => policy.learn(ev as CascadeEvent));
            break;
          }
        }
        break;
      }
      case "edge": {
        if (op.how === "context-huge") beginOne(vec(dx, 1e300), true, "begin(context ~1e300) [edge]");
        else if (op.how === "context-zero") beginOne(new Float64Array(dx), true, "begin(zero context) [edge]");
        else if (op.how === "array-input")
          beginOne(Array.from(vec(dx)) as unknown as Float64Array, true, "begin(plain array) [edge]");
        else if (op.how === "reward-huge") {
          const e = pickOpen(op.pick, (x) => x.chosen !== null);
          if (!e) break;
          const what = `feedback(${e.id}, 1e300) [edge]`;
          trace.push(what);
          if (expectTolerated(trace, policy, before, what, () => policy.feedback(e.id, 1e300)).ok) close(e);
        } else {
          const e = pickOpen(op.pick, (x) => x.awaiting !== null);
          if (!e) break;
          const huge = op.how === "features-huge";
          observeOne(e, vec(d, huge ? 1e300 : 1), huge ? 0.1 : 1e300, `observe(${e.id}) [edge ${op.how}]`, true);
        }
        break;
      }
    }
    const after = checkState(policy, spec, trace);
    if (policy.pendingDecisions !== open.length)
      trace.fail(`pendingDecisions is ${policy.pendingDecisions}, expected ${open.length} open episodes`);
    before = after;
  }
}

/** Fuzzes a cascade policy (see {@link fuzzArmPolicy} for the options). */
export function fuzzCascadePolicy<P extends CascadePolicy>(
  spec: CascadePolicySpec<P>,
  options: FuzzOptions = {},
): void {
  const profile = options.profile ?? "protocol";
  const numRuns = (options.numRuns ?? 500) * fuzzScale();
  const maxSteps = options.maxSteps ?? 40;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      fc.array(cascadeOpArbitrary(profile, spec.dynamicArms ?? true), { minLength: 1, maxLength: maxSteps }),
      (seed, ops) => runCascadeScenario(spec, seed, ops),
    ),
    { numRuns, seed: options.seed ?? hashName(`${spec.name}/${profile}`), includeErrorInReport: true },
  );
}
