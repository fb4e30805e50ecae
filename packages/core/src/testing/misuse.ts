/**
 * Construction-time and JavaScript-level checks every policy must pass:
 * - every numeric option at both ends of its documented range works (builds, plays, restores, no NaN) and just
 *   outside it is refused with OUT_OF_RANGE (NaN/Infinity with NON_FINITE, a string with INVALID_ARGUMENT);
 * - misuse from plain JavaScript (missing or null options, wrong types, `arms: "gpt-4o"`, `rng: {}`) is refused
 *   with a typed error, never a TypeError or a silently odd policy;
 * - getter-backed arrays that change between reads (a context, the arms list) cannot inject NaN or break state.
 */
import { RouteKitError } from "../errors.js";
import type { ArmPolicy, AssortmentPolicy, CascadePolicy, PolicyBase } from "../protocols.js";
import { Rng } from "../rng.js";
import type { Snapshot } from "../snapshot.js";
import { ContractViolation, checkState, Trace } from "./check.js";
import { hostileValues } from "./hostile.js";
import { describeError, show } from "./inspect.js";

/**
 * A documented option, declared by a policy's conformance spec: a numeric range, or (with `values`) a choice among a
 * few strings or booleans.
 */
export type OptionRange = NumericOptionRange | OptionChoices;

/**
 * An option that takes one of a few values: an enum of strings or a boolean. Every value must build a working policy
 * whose snapshot round-trips; a value of the wrong type or outside the list is INVALID_ARGUMENT.
 */
export interface OptionChoices {
  readonly name: string;
  readonly values: readonly (string | boolean)[];
}

/** A documented numeric option range. */
export interface NumericOptionRange {
  readonly values?: undefined;
  readonly name: string;
  readonly min?: number;
  readonly max?: number;
  /** True when `min` itself is excluded (e.g. a ridge > 0). */
  readonly openMin?: boolean;
  readonly openMax?: boolean;
  readonly integer?: boolean;
  /**
   * The option also takes a plain object (a per-arm map such as stageroute's `maxShare`): an empty object without
   * a prototype is then a valid, empty map and is not expected to be refused.
   */
  readonly alsoObject?: boolean;
}

/** What the construction checks need from a spec (both protocols). */
export interface ConstructSpec<P extends PolicyBase> {
  readonly name: string;
  restore(snapshot: Snapshot): P;
  /** The class's constructor called with raw options (for option-range and misuse checks). */
  readonly construct?: (options: unknown) => P;
  /** Options that build a valid policy (arms and seed included for arm policies); checks vary one field at a time. */
  readonly baseOptions?: Readonly<Record<string, unknown>>;
  readonly optionRanges?: readonly OptionRange[];
  /** Cost range of the feedback, for policies that require a cost (arm specs declare it). */
  readonly costs?: readonly [number, number];
  /** Valid contexts of an arm policy (as in its arm spec): "unit" (default) or "box". */
  readonly contexts?: "unit" | "box";
}

/** What the smoke run feeds a policy: a cost when the policy needs one, queries no larger than its maxSize. */
export interface SmokeFeed {
  readonly costs?: readonly [number, number] | undefined;
  /** Arm contexts: unit-norm Gaussian directions ("unit", default) or entries uniform in [-1, 1] ("box"). */
  readonly contexts?: "unit" | "box" | undefined;
  readonly maxSize?: number | undefined;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
/** The next double above (`dir` 1) or below (`dir` -1) `x`. */
export function nextDouble(x: number, dir: 1 | -1): number {
  if (x === 0) return dir * 5e-324;
  f64[0] = x;
  u64[0] = (u64[0] as bigint) + (x > 0 === dir > 0 ? 1n : -1n);
  return f64[0] as number;
}

function constructed<P extends PolicyBase>(spec: ConstructSpec<P>, what: string, options: unknown): P {
  const build = spec.construct as (o: unknown) => P;
  try {
    return build(options);
  } catch (e) {
    throw new ContractViolation(`${spec.name}: ${what} is valid but the constructor threw ${describeError(e)}`);
  }
}

/**
 * A range open above, at the largest double. The constructor may refuse it (OUT_OF_RANGE or INVALID_ARGUMENT: the
 * packages document combination rules, e.g. a confidence radius that would not be finite), but a policy it builds
 * must work: OFU-MNL+ built with stepMultiplier 1e308 threw NUMERICAL at every update. 1 when a policy was built.
 */
function smokeAtLargestDouble<P extends PolicyBase>(spec: ConstructSpec<P>, name: string): number {
  const build = spec.construct as (o: unknown) => P;
  try {
    build({ ...(spec.baseOptions ?? {}), [name]: Number.MAX_VALUE });
  } catch (e) {
    if (e instanceof RouteKitError && (e.code === "OUT_OF_RANGE" || e.code === "INVALID_ARGUMENT")) return 0;
    throw new ContractViolation(
      `${spec.name}: option ${name}: ${Number.MAX_VALUE} (inside its documented range) made the constructor throw ${describeError(e)}`,
    );
  }
  smokeWithOption(spec, name, Number.MAX_VALUE, "inside its documented range, and the constructor accepted it");
  return 1;
}

function refused<P extends PolicyBase>(
  spec: ConstructSpec<P>,
  what: string,
  options: unknown,
  codes: readonly string[],
): string {
  const build = spec.construct as (o: unknown) => P;
  let made: P;
  try {
    made = build(options);
  } catch (e) {
    if (!(e instanceof RouteKitError)) {
      throw new ContractViolation(`${spec.name}: ${what} threw a non-typed error: ${describeError(e)}`);
    }
    if (codes.length > 0 && !codes.includes(e.code)) {
      throw new ContractViolation(`${spec.name}: ${what} threw ${e.code}, expected ${codes.join("|")} (${e.message})`);
    }
    return e.code;
  }
  throw new ContractViolation(
    `${spec.name}: ${what} was accepted (expected ${codes.join("|") || "a typed error"}); snapshot ${show(made.toJSON())}`,
  );
}

function smokeContext(rng: Rng, n: number, kind: "unit" | "box"): Float64Array {
  const x = new Float64Array(n);
  if (kind === "box") {
    for (let i = 0; i < n; i++) x[i] = 2 * rng.uniform() - 1;
    return x;
  }
  rng.fillNormal(x, 0, 1);
  let norm = 0;
  for (let i = 0; i < n; i++) norm += (x[i] as number) ** 2;
  norm = Math.sqrt(norm);
  // A zero draw (probability 0 in exact arithmetic) stays the zero context, which every policy accepts.
  for (let i = 0; i < n && norm > 0; i++) x[i] = (x[i] as number) / norm;
  return x;
}

/** One whole cascade episode: a context in the box, answers' features in [-1, 1], costs in [0.01, 0.51]. */
function smokeEpisode(p: CascadePolicy, rng: Rng): void {
  const box = (n: number) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = rng.uniformIn(-1, 1);
    return v;
  };
  const e = p.begin(box(p.contextDim));
  for (let k = 0; k < p.arms.length; k++) {
    const step = p.next(e);
    if ("stop" in step) break;
    p.observe(e, step.query, box(p.outputDim), 0.01 + 0.5 * rng.uniform());
  }
  p.choose(e);
  p.feedback(e, rng.uniform());
}

/** A short valid run: select and update, then a JSON snapshot round trip; state checked throughout. */
export function smokeRun(
  policy: PolicyBase,
  restore: (s: Snapshot) => PolicyBase,
  label: string,
  rounds = 24,
  feed: SmokeFeed = {},
): void {
  const trace: Trace = new Trace();
  trace.push(label);
  const rng = Rng.fromSeed(`smoke:${label}`);
  for (let t = 0; t < rounds; t++) {
    if (policy.protocol === "arm") {
      const p = policy as ArmPolicy;
      const x = p.contextDim > 0 ? smokeContext(rng, p.contextDim, feed.contexts ?? "unit") : undefined;
      const d = p.select(x);
      const reward = rng.uniform() < 0.5 ? 0 : 1;
      const c = feed.costs;
      p.update(d, c ? { reward, cost: c[0] + rng.uniform() * (c[1] - c[0]) } : { reward });
    } else if (policy.protocol === "assortment") {
      const p = policy as AssortmentPolicy;
      const n = 2 + rng.int(4);
      const q = {
        features: rng.fillNormal(new Float64Array(n * p.contextDim), 0, 0.4),
        numItems: n,
        maxSize: Math.min(1 + rng.int(2), feed.maxSize ?? 2),
      };
      const d = p.select(q);
      p.update(d, { choice: d.items.length > 0 && rng.uniform() < 0.7 ? (d.items[0] as number) : null });
    } else if (policy.protocol === "cascade") {
      smokeEpisode(policy as CascadePolicy, rng);
    }
  }
  const before = checkState(policy, {}, trace);
  const again = restore(JSON.parse(before) as Snapshot);
  if (JSON.stringify(again.toJSON()) !== before) trace.fail("fromJSON(toJSON()).toJSON() differs from the snapshot");
}

/**
 * Every declared option at both ends of its range builds a working policy (a short run, a snapshot round trip, no
 * NaN); just outside is OUT_OF_RANGE; NaN and Infinity are NON_FINITE; a string is INVALID_ARGUMENT.
 */
export function checkOptionRanges<P extends PolicyBase>(spec: ConstructSpec<P>): number {
  if (!spec.construct || !spec.optionRanges) return 0;
  const base = spec.baseOptions ?? {};
  let checked = 0;
  for (const r of spec.optionRanges) {
    if (r.values !== undefined) {
      checked += checkOptionChoices(spec, r);
      continue;
    }
    const inside: number[] = [];
    const outside: number[] = [];
    if (r.min !== undefined) {
      inside.push(r.openMin ? nextDouble(r.min, 1) : r.min);
      outside.push(r.openMin ? r.min : r.integer ? r.min - 1 : nextDouble(r.min, -1));
    }
    if (r.max !== undefined) {
      inside.push(r.openMax ? nextDouble(r.max, -1) : r.max);
      outside.push(r.openMax ? r.max : r.integer ? r.max + 1 : nextDouble(r.max, 1));
    }
    if (r.max === undefined && !r.integer) checked += smokeAtLargestDouble(spec, r.name);
    if (r.integer && r.min !== undefined) outside.push(r.min + 0.5);
    for (const v of inside) {
      smokeWithOption(spec, r.name, v, "inside its documented range");
      checked++;
    }
    for (const v of outside) {
      refused(spec, `option ${r.name}: ${v} (outside its documented range)`, { ...base, [r.name]: v }, [
        "OUT_OF_RANGE",
      ]);
      checked++;
    }
    for (const v of [Number.NaN, Infinity, -Infinity]) {
      refused(spec, `option ${r.name}: ${v}`, { ...base, [r.name]: v }, ["NON_FINITE"]);
    }
    refused(spec, `option ${r.name}: "1" (a string)`, { ...base, [r.name]: "1" }, ["INVALID_ARGUMENT"]);
    checked += 4;
    for (const [what, v] of hostileValues()) {
      if (r.alsoObject && typeof v === "object" && v !== null && Object.getPrototypeOf(v) === null) continue;
      refused(spec, `option ${r.name}: ${what}`, { ...base, [r.name]: v }, ["INVALID_ARGUMENT"]);
      checked++;
    }
  }
  return checked;
}

/** A policy built with `name: value` on top of the spec's base options plays a short valid run and round-trips. */
function smokeWithOption<P extends PolicyBase>(
  spec: ConstructSpec<P>,
  name: string,
  value: unknown,
  why: string,
): void {
  const what = `option ${name}: ${JSON.stringify(value)}`;
  const options: Record<string, unknown> = { ...(spec.baseOptions ?? {}), [name]: value };
  const p = constructed(spec, what, options);
  const maxSize = typeof options.maxSize === "number" ? options.maxSize : undefined;
  try {
    smokeRun(p, (s) => spec.restore(s), `${spec.name} ${what}`, 24, {
      costs: spec.costs,
      maxSize,
      contexts: spec.contexts,
    });
  } catch (e) {
    if (e instanceof ContractViolation) throw new ContractViolation(`${spec.name}: ${e.message}`);
    throw new ContractViolation(`${spec.name}: with ${what} (${why}) a short valid run threw ${describeError(e)}`);
  }
}

/**
 * Every documented value of a choice option builds a working policy; a value of another type, a near miss (another
 * case, a padded string) and a value outside the list are INVALID_ARGUMENT.
 */
function checkOptionChoices<P extends PolicyBase>(spec: ConstructSpec<P>, r: OptionChoices): number {
  const base = spec.baseOptions ?? {};
  if (r.values.length === 0) throw new ContractViolation(`${spec.name}: option ${r.name} declares no values`);
  let checked = 0;
  for (const v of r.values) {
    smokeWithOption(spec, r.name, v, "a documented value");
    checked++;
  }
  const bad: unknown[] = [null, 0, 1, [], {}];
  for (const v of r.values) {
    if (typeof v === "boolean") bad.push(String(v));
    else bad.push(v.toUpperCase() === v ? v.toLowerCase() : v.toUpperCase(), ` ${v}`, [v]);
  }
  if (r.values.some((v) => typeof v === "string")) bad.push("no-such-value", true);
  else bad.push("yes");
  for (const [, v] of hostileValues()) bad.push(v);
  for (const v of bad) {
    if (r.values.includes(v as string | boolean)) continue;
    refused(spec, `option ${r.name}: ${show(v)} (not one of its documented values)`, { ...base, [r.name]: v }, [
      "INVALID_ARGUMENT",
    ]);
    checked++;
  }
  return checked;
}

/** An array whose element reads return `first` values on the first read and `later` values afterwards. */
export function flakyArray<T>(first: readonly T[], later: readonly T[]): T[] {
  const reads = new Map<number, number>();
  return new Proxy([...first], {
    get(target, key, recv) {
      if (typeof key === "string" && /^\d+$/.test(key)) {
        const i = Number(key);
        const n = reads.get(i) ?? 0;
        reads.set(i, n + 1);
        return n === 0 ? first[i] : later[i];
      }
      return Reflect.get(target, key, recv);
    },
  });
}

/**
 * Plain-JavaScript misuse of the constructor: missing/null options, wrong types, a string for `arms`, `rng: {}`,
 * a bad maxPending. Each must throw a RouteKitError with the code the error rule gives.
 */
export function checkMisuse<P extends PolicyBase>(spec: ConstructSpec<P>): number {
  if (!spec.construct) return 0;
  const base = spec.baseOptions ?? {};
  const cases: [string, unknown, string[]][] = [
    ["no options", undefined, ["INVALID_ARGUMENT"]],
    ["null options", null, ["INVALID_ARGUMENT"]],
    ["options = 42", 42, ["INVALID_ARGUMENT"]],
    ["rng: {}", { ...base, rng: {} }, ["INVALID_ARGUMENT"]],
    ["maxPending: 0", { ...base, maxPending: 0 }, ["OUT_OF_RANGE"]],
    ["maxPending: 2.5", { ...base, maxPending: 2.5 }, ["OUT_OF_RANGE"]],
    ["maxPending: NaN", { ...base, maxPending: Number.NaN }, ["NON_FINITE"]],
    ['maxPending: "10"', { ...base, maxPending: "10" }, ["INVALID_ARGUMENT"]],
  ];
  if ("arms" in base) {
    const { arms: _a, ...noArms } = base;
    cases.push(
      ["arms missing", noArms, ["INVALID_ARGUMENT"]],
      ["arms: null", { ...base, arms: null }, ["INVALID_ARGUMENT"]],
      ['arms: "gpt-4o" (a string, not a list)', { ...base, arms: "gpt-4o" }, ["INVALID_ARGUMENT"]],
      ["arms: [1, 2]", { ...base, arms: [1, 2] }, ["INVALID_ARGUMENT"]],
      ['arms: ["", "b"]', { ...base, arms: ["", "b"] }, ["INVALID_ARGUMENT"]],
      ['arms: ["a", "a"]', { ...base, arms: ["a", "a"] }, ["DUPLICATE_ARM", "INVALID_ARGUMENT"]],
    );
    for (const [what, v] of hostileValues()) {
      cases.push([`arms: [${what}]`, { ...base, arms: [v, "b"] }, ["INVALID_ARGUMENT"]]);
      cases.push([`arms: ${what}`, { ...base, arms: v }, ["INVALID_ARGUMENT"]]);
    }
  }
  if (typeof base.contextDim === "number") {
    cases.push(
      ['contextDim: "3"', { ...base, contextDim: String(base.contextDim) }, ["INVALID_ARGUMENT"]],
      ["contextDim: 0.5", { ...base, contextDim: 0.5 }, ["OUT_OF_RANGE"]],
      ["contextDim: -1", { ...base, contextDim: -1 }, ["OUT_OF_RANGE"]],
      ["contextDim: 1e9", { ...base, contextDim: 1e9 }, ["OUT_OF_RANGE"]],
    );
    for (const [what, v] of hostileValues())
      cases.push([`contextDim: ${what}`, { ...base, contextDim: v }, ["INVALID_ARGUMENT"]]);
  }
  for (const [what, v] of hostileValues()) {
    cases.push([`maxPending: ${what}`, { ...base, maxPending: v }, ["INVALID_ARGUMENT"]]);
    cases.push([`seed: ${what}`, { ...base, seed: v }, ["INVALID_ARGUMENT"]]);
    cases.push([`options = ${what}`, v, ["INVALID_ARGUMENT"]]);
  }
  for (const [what, options, codes] of cases) refused(spec, what, options, codes);
  // Getter-backed arms that read differently the second time: the policy reads once, or refuses.
  if (Array.isArray(base.arms) && base.arms.length >= 2) {
    const arms = base.arms as string[];
    const flaky = flakyArray(arms, arms.map((_, i) => (i === 0 ? 7 : `changed-${i}`)) as unknown as string[]);
    let p: P | undefined;
    try {
      p = (spec.construct as (o: unknown) => P)({ ...base, arms: flaky });
    } catch (e) {
      if (!(e instanceof RouteKitError)) {
        throw new ContractViolation(`${spec.name}: getter-backed arms threw a non-typed error: ${describeError(e)}`);
      }
    }
    if (p) {
      const live = (p as unknown as ArmPolicy).arms;
      if (!live.every((a) => typeof a === "string" && a.length > 0)) {
        throw new ContractViolation(`${spec.name}: getter-backed arms left non-string arm ids ${show(live)}`);
      }
      smokeRun(p, (s) => spec.restore(s), `${spec.name} getter-backed arms`, 24, {
        costs: spec.costs,
        contexts: spec.contexts,
      });
    }
  }
  return cases.length;
}

/**
 * A getter-backed context whose entries read finite once and NaN afterwards: select must copy once and validate
 * the copy (or refuse with a typed error); the pending decision, its event and the learned state stay finite.
 */
export function checkGetterContext(policy: ArmPolicy, name: string): void {
  const d = policy.contextDim;
  if (d === 0) return;
  const trace: Trace = new Trace();
  trace.push(`${name}: select(getter-backed context: finite on first read, NaN after)`);
  const good = Array.from({ length: d }, (_, i) => 0.1 * (i + 1));
  const ctx = flakyArray(
    good,
    good.map(() => Number.NaN),
  );
  let decision: ReturnType<ArmPolicy["select"]> | undefined;
  try {
    decision = policy.select(ctx as unknown as Float64Array);
  } catch (e) {
    if (!(e instanceof RouteKitError)) trace.fail(`select threw a non-typed error: ${describeError(e)}`);
    checkState(policy, {}, trace);
    return;
  }
  const record = policy.decisionRecord(decision);
  const c = record.decision.context;
  if (!c || c.length !== d || !c.every((x) => Number.isFinite(x))) {
    trace.fail(`the pending decision kept a context that is not the validated copy: ${show(c)}`);
  }
  policy.update(decision, { reward: 0.5 });
  checkState(policy, {}, trace);
}
