/**
 * Property-based fuzzing of an {@link ArmPolicy}: random interleavings of select, update (in order,
 * late, out of order, duplicated, unknown ids), addArm/removeArm, snapshot/restore and invalid or
 * extreme input, checked against the protocol contract after every step (see check.ts).
 */
import fc from "fast-check";
import type { ArmDecision, ArmPolicy } from "../protocols.js";
import { Rng } from "../rng.js";
import type { Snapshot } from "../snapshot.js";
import { checkState, expectOk, expectRejected, expectTolerated, fuzzScale, type StateHooks, Trace } from "./check.js";
import { show } from "./inspect.js";
import type { OptionRange } from "./misuse.js";

/** How to build and restore one arm policy for the fuzzer. */
export interface ArmPolicySpec<P extends ArmPolicy = ArmPolicy> extends StateHooks<P> {
  readonly name: string;
  /** A fresh policy with exactly `arms` live (in that order), seeded by `seed`. */
  create(ctx: { readonly seed: number; readonly arms: readonly string[] }): P;
  /** The class's static `fromJSON`. */
  restore(snapshot: Snapshot): P;
  /** Valid contexts: "unit" (L2-normalised Gaussian, default) or "box" (entries uniform in [-1, 1]). */
  readonly contexts?: "unit" | "box";
  /** Valid rewards: "unit" (uniform in [0,1], default), "binary" (0 or 1), or a [lo, hi] range. */
  readonly rewards?: "unit" | "binary" | readonly [number, number];
  /** Costs sent with valid feedback as a [lo, hi] range; none by default. */
  readonly costs?: readonly [number, number];
  /**
   * True when the policy uses costs, so negative or non-finite costs must be rejected with a typed
   * error. Otherwise such costs are "edge" input: ignoring them is fine, corrupting state is not.
   */
  readonly validatesCost?: boolean;
  /** Most live arms the fuzzer creates (default 6). */
  readonly maxArms?: number;
  /** Arms the policy refuses to remove by design (e.g. the one-arm oracle's arm): removal must throw INVALID_STATE. */
  readonly pinnedArms?: readonly string[];
  /** The class's constructor with raw options, for the option-range, misuse and maxPending checks (misuse.ts). */
  readonly construct?: (options: unknown) => P;
  /** Options (arms and seed included) that build a valid policy; the checks vary one field at a time. */
  readonly baseOptions?: Readonly<Record<string, unknown>>;
  /** Documented ranges of numeric options: both ends must work, just outside must be OUT_OF_RANGE. */
  readonly optionRanges?: readonly OptionRange[];
}

export type FuzzProfile = "protocol" | "extreme";

export interface FuzzOptions {
  /** Generated runs (default 1000, x10 with ROUTEKIT_FUZZ=large). */
  readonly numRuns?: number;
  /** Longest run in steps (default 24). */
  readonly maxSteps?: number;
  /** fast-check seed (default: a hash of the policy name, so CI is reproducible). */
  readonly seed?: number;
  /**
   * "protocol" (default): valid, late, duplicated, unknown and invalid calls.
   * "extreme": valid calls mixed with huge/tiny/zero magnitudes, which must work or be rejected with a typed error.
   */
  readonly profile?: FuzzProfile;
}

type BadSelect = "short" | "long" | "nan" | "inf" | "-inf" | "missing" | "not-a-vector";
type BadFeedback = "nan" | "inf" | "-inf" | "missing" | "string";
type BadCost = "neg-cost" | "nan-cost" | "inf-cost";
type EdgeSelect = "zero" | "huge" | "tiny" | "subnormal" | "mixed" | "array" | "1e150";
type EdgeFeedback = "huge" | "-huge" | "tiny" | "big-cost" | "out-of-range";

export type ArmOp =
  | { readonly t: "select"; readonly ctx: "fresh" | "repeat" }
  | { readonly t: "update"; readonly pick: number; readonly u: number }
  | { readonly t: "add"; readonly reuse: boolean; readonly pick: number }
  | { readonly t: "remove"; readonly pick: number }
  | { readonly t: "snapshot" }
  | { readonly t: "bad-select"; readonly how: BadSelect; readonly at: number }
  | { readonly t: "bad-feedback"; readonly pick: number; readonly how: BadFeedback }
  | { readonly t: "bad-cost"; readonly pick: number; readonly how: BadCost }
  | { readonly t: "duplicate"; readonly pick: number }
  | { readonly t: "unknown-decision"; readonly how: number }
  | { readonly t: "bad-add"; readonly how: "dup" | "empty" | "number" }
  | { readonly t: "bad-remove"; readonly how: "unknown" | "last" }
  | { readonly t: "edge-select"; readonly how: EdgeSelect }
  | { readonly t: "edge-feedback"; readonly pick: number; readonly how: EdgeFeedback };

const UNKNOWN_REFS: readonly unknown[] = [
  "nope",
  "d999999999",
  "",
  "d-1",
  "d01",
  "decision:404",
  "99999999",
  42,
  null,
  {},
  { id: "zz" },
];

export function armOpArbitrary(profile: FuzzProfile): fc.Arbitrary<ArmOp> {
  const pick = fc.nat({ max: 1000 });
  const valid = [
    {
      weight: 30,
      arbitrary: fc.record({ t: fc.constant("select" as const), ctx: fc.constantFrom("fresh", "repeat") }),
    },
    {
      weight: 26,
      arbitrary: fc.record({ t: fc.constant("update" as const), pick, u: fc.double({ min: 0, max: 1, noNaN: true }) }),
    },
    { weight: 5, arbitrary: fc.record({ t: fc.constant("add" as const), reuse: fc.boolean(), pick }) },
    { weight: 5, arbitrary: fc.record({ t: fc.constant("remove" as const), pick }) },
    { weight: 4, arbitrary: fc.constant({ t: "snapshot" as const }) },
  ];
  const invalid = [
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant("bad-select" as const),
        how: fc.constantFrom<BadSelect>("short", "long", "nan", "inf", "-inf", "missing", "not-a-vector"),
        at: fc.nat({ max: 1000 }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant("bad-feedback" as const),
        pick,
        how: fc.constantFrom<BadFeedback>("nan", "inf", "-inf", "missing", "string"),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant("bad-cost" as const),
        pick,
        how: fc.constantFrom<BadCost>("neg-cost", "nan-cost", "inf-cost"),
      }),
    },
    { weight: 3, arbitrary: fc.record({ t: fc.constant("duplicate" as const), pick }) },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant("unknown-decision" as const),
        how: fc.nat({ max: UNKNOWN_REFS.length - 1 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ t: fc.constant("bad-add" as const), how: fc.constantFrom("dup", "empty", "number") }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ t: fc.constant("bad-remove" as const), how: fc.constantFrom("unknown", "last") }),
    },
  ];
  const edge = [
    {
      weight: 8,
      arbitrary: fc.record({
        t: fc.constant("edge-select" as const),
        how: fc.constantFrom<EdgeSelect>("zero", "huge", "tiny", "subnormal", "mixed", "array", "1e150"),
      }),
    },
    {
      weight: 8,
      arbitrary: fc.record({
        t: fc.constant("edge-feedback" as const),
        pick,
        how: fc.constantFrom<EdgeFeedback>("huge", "-huge", "tiny", "big-cost", "out-of-range"),
      }),
    },
  ];
  return fc.oneof(...(profile === "protocol" ? [...valid, ...invalid] : [...valid, ...edge]));
}

function hashName(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

interface Pending {
  readonly decision: ArmDecision;
  readonly arm: string;
  /** Issued for edge input: its feedback may be refused with a typed error (state unchanged). */
  readonly edge: boolean;
}

/** Plays one generated run; throws ContractViolation at the first broken rule. */
export function runArmScenario<P extends ArmPolicy>(
  spec: ArmPolicySpec<P>,
  seed: number,
  initialArms: number,
  ops: readonly ArmOp[],
): void {
  const trace = new Trace();
  // A string seed: integer seeds below 2^32 share their first draw (see the conformance README).
  const rng = Rng.fromSeed(`harness:${seed}`);
  let nextArm = 0;
  const live: string[] = [];
  for (let i = 0; i < initialArms; i++) live.push(`arm-${nextArm++}`);
  const removed: string[] = [];
  const pending: Pending[] = [];
  const settled: ArmDecision[] = [];
  const issued = new Set<string>();
  const maxArms = spec.maxArms ?? 6;
  trace.push(`create(seed=${seed}, arms=${show(live)})`);
  let policy = expectOk(trace, "create", () => spec.create({ seed, arms: [...live] }));
  const dim = policy.contextDim;
  let lastCtx: Float64Array | undefined;

  const freshContext = (): Float64Array | undefined => {
    if (dim === 0) return undefined;
    const x = new Float64Array(dim);
    if (spec.contexts === "box") {
      for (let i = 0; i < dim; i++) x[i] = rng.uniformIn(-1, 1);
    } else {
      let n = 0;
      for (let i = 0; i < dim; i++) {
        x[i] = rng.normal();
        n += x[i] * x[i];
      }
      const s = n > 0 ? 1 / Math.sqrt(n) : 0;
      for (let i = 0; i < dim; i++) x[i] *= s;
    }
    return x;
  };
  const reward = (u: number): number => {
    const r = spec.rewards ?? "unit";
    if (r === "unit") return u;
    if (r === "binary") return u < 0.5 ? 0 : 1;
    return r[0] + u * (r[1] - r[0]);
  };
  const feedbackOf = (u: number): { reward: number; cost?: number } =>
    spec.costs
      ? { reward: reward(u), cost: spec.costs[0] + (1 - u) * (spec.costs[1] - spec.costs[0]) }
      : { reward: reward(u) };

  const checkDecision = (d: ArmDecision, what: string, liveNow: readonly string[]): void => {
    if (d === null || typeof d !== "object" || typeof d.id !== "string" || d.id.length === 0) {
      trace.fail(`${what} returned a decision without a string id: ${show(d)}`);
    }
    if (issued.has(d.id)) trace.fail(`${what} reused decision id ${d.id}`);
    if (!liveNow.includes(d.arm)) trace.fail(`${what} chose "${d.arm}", which is not a live arm (${show(liveNow)})`);
    if (d.propensity !== undefined && !(Number.isFinite(d.propensity) && d.propensity >= 0 && d.propensity <= 1)) {
      trace.fail(`${what} returned propensity ${d.propensity}, expected a finite number in [0, 1]`);
    }
  };
  const record = (d: ArmDecision, edge = false): void => {
    issued.add(d.id);
    pending.push({ decision: d, arm: d.arm, edge });
  };
  const settle = (i: number): void => {
    const [p] = pending.splice(i, 1);
    settled.push((p as Pending).decision);
  };

  let before = checkState(policy, spec, trace);
  for (let step = 0; step < ops.length; step++) {
    const op = ops[step] as ArmOp;
    switch (op.t) {
      case "select": {
        const ctx = op.ctx === "repeat" && lastCtx ? lastCtx.slice() : freshContext();
        const what = `select(${show(ctx)})`;
        trace.push(what);
        if (live.length === 0) break;
        const d = expectOk(trace, what, () => policy.select(ctx));
        checkDecision(d, what, live);
        record(d);
        lastCtx = ctx;
        break;
      }
      case "update": {
        if (pending.length === 0) {
          trace.push("update: (nothing pending)");
          break;
        }
        const i = op.pick % pending.length;
        const p = pending[i] as Pending;
        const fb = feedbackOf(op.u);
        const what = `update(${p.decision.id} [arm ${p.arm}${live.includes(p.arm) ? "" : ", removed"}], ${show(fb)})`;
        trace.push(what);
        if (p.edge) {
          if (expectTolerated(trace, policy, before, what, () => policy.update(p.decision, fb)).ok) settle(i);
          break;
        }
        expectOk(trace, what, () => policy.update(p.decision, fb));
        settle(i);
        break;
      }
      case "add": {
        const id = op.reuse && removed.length > 0 ? (removed[op.pick % removed.length] as string) : `arm-${nextArm}`;
        const what = `addArm(${show(id)})`;
        trace.push(what);
        if (live.length >= maxArms) break;
        expectOk(trace, what, () => policy.addArm(id));
        if (id === `arm-${nextArm}`) nextArm++;
        else removed.splice(removed.indexOf(id), 1);
        live.push(id);
        break;
      }
      case "remove": {
        const id = live[op.pick % live.length] as string;
        const what = `removeArm(${show(id)})`;
        trace.push(what);
        if (live.length <= 1) break;
        if (spec.pinnedArms?.includes(id)) {
          expectRejected(trace, policy, before, what, ["INVALID_STATE"], () => policy.removeArm(id));
          break;
        }
        expectOk(trace, what, () => policy.removeArm(id));
        live.splice(live.indexOf(id), 1);
        removed.push(id);
        break;
      }
      case "snapshot": {
        trace.push("snapshot: toJSON -> JSON text -> fromJSON, then select on both");
        const restored = expectOk(trace, "fromJSON(toJSON())", () => spec.restore(JSON.parse(before) as Snapshot));
        const again = JSON.stringify(restored.toJSON());
        if (again !== before) trace.fail("fromJSON(toJSON()).toJSON() differs from the original snapshot");
        if (restored.pendingDecisions !== policy.pendingDecisions) trace.fail("restored pendingDecisions differ");
        if (show(restored.arms) !== show(policy.arms)) trace.fail("restored arms differ");
        const ctx = freshContext();
        const d1 = expectOk(trace, "select on original", () => policy.select(ctx));
        const d2 = expectOk(trace, "select on restored", () => restored.select(ctx?.slice()));
        if (show(d1) !== show(d2)) trace.fail(`restored policy decided ${show(d2)}, the original ${show(d1)}`);
        checkDecision(d2, "select after restore", live);
        record(d2);
        policy = restored;
        break;
      }
      case "bad-select": {
        if (dim === 0) {
          trace.push(`bad-select(${op.how}): skipped, context-free policy`);
          break;
        }
        let ctx: unknown;
        let codes: string[] = ["NON_FINITE"];
        const x = freshContext() as Float64Array;
        const at = op.at % dim;
        if (op.how === "short" || op.how === "long") {
          ctx = op.how === "short" ? x.slice(0, dim - 1) : Float64Array.from([...x, 0.5]);
          codes = ["DIMENSION_MISMATCH"];
        } else if (op.how === "missing") {
          ctx = undefined;
          codes = ["INVALID_ARGUMENT", "DIMENSION_MISMATCH"];
        } else if (op.how === "not-a-vector") {
          ctx = "0.1,0.2";
          codes = ["INVALID_ARGUMENT", "DIMENSION_MISMATCH"];
        } else {
          x[at] = op.how === "nan" ? Number.NaN : op.how === "inf" ? Infinity : -Infinity;
          ctx = x;
        }
        const what = `select(${show(ctx)}) [${op.how}]`;
        trace.push(what);
        if (live.length === 0) break;
        expectRejected(trace, policy, before, what, codes, () => policy.select(ctx as Float64Array));
        break;
      }
      case "bad-feedback":
      case "bad-cost": {
        if (pending.length === 0) {
          trace.push(`${op.t}: (nothing pending)`);
          break;
        }
        const p = pending[op.pick % pending.length] as Pending;
        const fb: Record<string, unknown> = { ...feedbackOf(0.5) };
        if (op.how === "nan") fb.reward = Number.NaN;
        else if (op.how === "inf") fb.reward = Infinity;
        else if (op.how === "-inf") fb.reward = -Infinity;
        else if (op.how === "missing") delete fb.reward;
        else if (op.how === "string") fb.reward = "1";
        else if (op.how === "neg-cost") fb.cost = -1;
        else if (op.how === "nan-cost") fb.cost = Number.NaN;
        else fb.cost = Infinity;
        const what = `update(${p.decision.id}, ${show(fb)}) [${op.how}]`;
        trace.push(what);
        const call = () => policy.update(p.decision, fb as unknown as { reward: number });
        if (op.t === "bad-feedback" || spec.validatesCost) {
          expectRejected(trace, policy, before, what, ["NON_FINITE", "INVALID_ARGUMENT", "OUT_OF_RANGE"], call);
        } else {
          const r = expectTolerated(trace, policy, before, what, call);
          if (r.ok) settle(pending.indexOf(p));
        }
        break;
      }
      case "duplicate": {
        if (settled.length === 0) {
          trace.push("duplicate: (nothing settled)");
          break;
        }
        const d = settled[op.pick % settled.length] as ArmDecision;
        const what = `update(${d.id}) again [duplicate]`;
        trace.push(what);
        expectRejected(trace, policy, before, what, ["DECISION_ALREADY_USED", "DECISION_EXPIRED"], () =>
          policy.update(d, feedbackOf(0.5)),
        );
        break;
      }
      case "unknown-decision": {
        const ref = UNKNOWN_REFS[op.how];
        const what = `update(${show(ref)}) [unknown decision]`;
        trace.push(what);
        expectRejected(trace, policy, before, what, ["UNKNOWN_DECISION", "INVALID_ARGUMENT"], () =>
          policy.update(ref as string, feedbackOf(0.5)),
        );
        break;
      }
      case "bad-add": {
        const id: unknown = op.how === "dup" ? live[0] : op.how === "empty" ? "" : 7;
        const what = `addArm(${show(id)}) [${op.how}]`;
        trace.push(what);
        if (id === undefined) break;
        expectRejected(trace, policy, before, what, op.how === "dup" ? ["DUPLICATE_ARM"] : ["INVALID_ARGUMENT"], () =>
          policy.addArm(id as string),
        );
        break;
      }
      case "bad-remove": {
        if (op.how === "last" && live.length !== 1) {
          trace.push("removeArm(last): skipped, more than one arm");
          break;
        }
        const id = op.how === "last" ? (live[0] as string) : "no-such-arm";
        const what = `removeArm(${show(id)}) [${op.how}]`;
        trace.push(what);
        const lastCodes = spec.pinnedArms?.includes(id) ? ["LAST_ARM", "INVALID_STATE"] : ["LAST_ARM"];
        expectRejected(trace, policy, before, what, op.how === "last" ? lastCodes : ["UNKNOWN_ARM"], () =>
          policy.removeArm(id),
        );
        break;
      }
      case "edge-select": {
        if (dim === 0) {
          trace.push(`edge-select(${op.how}): skipped, context-free policy`);
          break;
        }
        const x = freshContext() as Float64Array;
        let ctx: Float64Array | number[] = x;
        if (op.how === "zero") x.fill(0);
        else if (op.how === "huge") for (let i = 0; i < dim; i++) x[i] *= 1e300;
        else if (op.how === "1e150") for (let i = 0; i < dim; i++) x[i] *= 1e150;
        else if (op.how === "tiny") for (let i = 0; i < dim; i++) x[i] *= 1e-300;
        else if (op.how === "subnormal") for (let i = 0; i < dim; i++) x[i] = (i % 2 ? -1 : 1) * 5e-324;
        else if (op.how === "mixed") for (let i = 0; i < dim; i++) x[i] *= i % 2 ? 1e300 : 1e-300;
        else ctx = Array.from(x);
        const what = `select(${show(ctx)}) [edge ${op.how}]`;
        trace.push(what);
        if (live.length === 0) break;
        const r = expectTolerated(trace, policy, before, what, () => policy.select(ctx as Float64Array));
        if (r.ok) {
          checkDecision(r.value, what, live);
          record(r.value, true);
        }
        break;
      }
      case "edge-feedback": {
        if (pending.length === 0) {
          trace.push("edge-feedback: (nothing pending)");
          break;
        }
        const p = pending[op.pick % pending.length] as Pending;
        const fb: { reward: number; cost?: number } = { ...feedbackOf(0.5) };
        if (op.how === "huge") fb.reward = 1e300;
        else if (op.how === "-huge") fb.reward = -1e300;
        else if (op.how === "tiny") fb.reward = 1e-300;
        else if (op.how === "big-cost") fb.cost = 1e300;
        else fb.reward = 7.5;
        const what = `update(${p.decision.id}, ${show(fb)}) [edge ${op.how}]`;
        trace.push(what);
        const r = expectTolerated(trace, policy, before, what, () => policy.update(p.decision, fb));
        if (r.ok) settle(pending.indexOf(p));
        break;
      }
    }
    const after = checkState(policy, spec, trace);
    if (show(policy.arms) !== show(live)) trace.fail(`policy.arms is ${show(policy.arms)}, expected ${show(live)}`);
    if (policy.pendingDecisions !== pending.length) {
      trace.fail(`pendingDecisions is ${policy.pendingDecisions}, expected ${pending.length}`);
    }
    before = after;
  }
}

/**
 * Fuzzes an arm policy with fast-check and throws (with a shrunk, printable counterexample) if any
 * generated run breaks the contract. Seeded: the same spec name gives the same runs.
 */
export function fuzzArmPolicy<P extends ArmPolicy>(spec: ArmPolicySpec<P>, options: FuzzOptions = {}): void {
  const profile = options.profile ?? "protocol";
  const numRuns = (options.numRuns ?? 1000) * fuzzScale();
  const maxSteps = options.maxSteps ?? 24;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(armOpArbitrary(profile), { minLength: 1, maxLength: maxSteps }),
      (seed, arms, ops) => runArmScenario(spec, seed, arms, ops),
    ),
    { numRuns, seed: options.seed ?? hashName(`${spec.name}/${profile}`), includeErrorInReport: true },
  );
}
