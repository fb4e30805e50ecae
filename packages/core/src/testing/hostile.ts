/**
 * Hostile JavaScript values at every public entry point: an object without a prototype, an object whose toString
 * and valueOf throw, a symbol, a bigint, a function. They reach a policy from untyped callers (a JSON body parsed
 * with a reviver, a proxy of a config object, a bug upstream). Each call must either be accepted or throw a
 * RouteKitError, and a call that throws leaves the snapshot exactly as it was. Arguments that can never be valid
 * in these positions (an id, a reward, a context entry, a choice) must be refused. The usual way to fail this is an
 * error message built with `${value}` or String(value), which runs the caller's code or throws a TypeError of its
 * own while the typed error is being made.
 */
import { RouteKitError } from "../errors.js";
import type { ArmPolicy, AssortmentPolicy, CascadePolicy, PolicyBase } from "../protocols.js";
import { Rng } from "../rng.js";
import type { ArmPolicySpec } from "./arm.js";
import type { AssortmentPolicySpec } from "./assortment.js";
import type { CascadePolicySpec } from "./cascade.js";
import { Trace } from "./check.js";
import { describeError } from "./inspect.js";

/** The hostile values, each with a name for failure messages (a fresh set per call: none is shared). */
export function hostileValues(): [string, unknown][] {
  const thrower = {
    toString(): string {
      throw new Error("hostile toString ran");
    },
    valueOf(): number {
      throw new Error("hostile valueOf ran");
    },
  };
  return [
    ["an object without a prototype", Object.create(null)],
    ["an object whose toString and valueOf throw", thrower],
    ["a symbol", Symbol("hostile")],
    ["a bigint", 10n],
    ["a function", () => 1],
  ];
}

/** Calls `f`: a throw must be a RouteKitError that left the snapshot unchanged; `mustThrow` refuses acceptance. */
function attempt(trace: Trace, p: PolicyBase, what: string, f: () => unknown, mustThrow: boolean): number {
  const before = JSON.stringify(p.toJSON());
  trace.push(what);
  try {
    f();
  } catch (e) {
    if (!(e instanceof RouteKitError)) trace.fail(`${what} threw a non-typed error: ${describeError(e)}`);
    if (JSON.stringify(p.toJSON()) !== before) trace.fail(`${what} threw ${e.code} but changed the state`);
    return 1;
  }
  if (mustThrow) trace.fail(`${what} was accepted`);
  return 1;
}

function unitVector(rng: Rng, n: number): number[] {
  const x = Array.from({ length: n }, () => rng.normal());
  const norm = Math.hypot(...x) || 1;
  return x.map((v) => v / norm);
}

/** An object whose `key` getter throws, other fields copied from `base`. */
function throwingField(base: Record<string, unknown>, key: string): Record<string, unknown> {
  const o: Record<string, unknown> = { ...base };
  Object.defineProperty(o, key, {
    enumerable: true,
    get(): never {
      throw new Error(`hostile getter ${key}`);
    },
  });
  return o;
}

/** An array (a proxy) whose element reads throw. */
function throwingArray(valid: readonly number[]): number[] {
  return new Proxy([...valid], {
    get(target, key, recv) {
      if (typeof key === "string" && /^\d+$/.test(key)) throw new Error("hostile element getter");
      return Reflect.get(target, key, recv);
    },
  });
}

/** An array (a proxy: it passes Array.isArray) whose length getter throws. */
function throwingLength(valid: readonly number[]): number[] {
  return new Proxy([...valid], {
    get(target, key, recv) {
      if (key === "length") throw new Error("hostile length getter");
      return Reflect.get(target, key, recv);
    },
  });
}

/**
 * A decision reference whose id is `id` on the first read and an id never issued afterwards: a policy
 * must apply the feedback to, and settle, the decision it read first (the same one), in one read.
 */
function flippingRef(id: string): { readonly id: string } {
  let reads = 0;
  return {
    get id(): string {
      reads++;
      return reads === 1 ? id : "d999999999";
    },
  };
}

/** Feedback through a reference whose id changes between reads: applied once, to the decision read first. */
function checkFlippingRef(trace: Trace, p: PolicyBase, id: string, feedback: unknown): number {
  const what = "update(decision whose id getter changes between reads)";
  trace.push(what);
  const pending = p.pendingDecisions;
  try {
    (p as unknown as { update(d: unknown, f: unknown): void }).update(flippingRef(id), feedback);
  } catch (e) {
    trace.fail(`${what} threw ${describeError(e)}`);
  }
  if (p.pendingDecisions !== pending - 1)
    trace.fail(`${what} left the decision pending (feedback applied, not settled)`);
  return 1;
}

/**
 * `event` behind proxies that count the reads of every field and element (each object and array of it, nested).
 * `reads` maps each path ("decision.context[0]", "feedback.reward", ...) to its number of reads.
 */
function countingEvent(event: unknown, reads: Map<string, number>): unknown {
  const wrap = (v: unknown, path: string): unknown => {
    if (v === null || typeof v !== "object") return v;
    const isArr = Array.isArray(v);
    const copy = (isArr ? [...(v as unknown[])] : { ...(v as Record<string, unknown>) }) as Record<string, unknown>;
    for (const k of Object.keys(copy)) copy[k] = wrap(copy[k], isArr ? `${path}[${k}]` : path ? `${path}.${k}` : k);
    return new Proxy(copy, {
      get(target, key, recv) {
        if (typeof key === "string" && Object.hasOwn(target, key) && !(isArr && key === "length")) {
          const at = isArr ? `${path}[${key}]` : path ? `${path}.${key}` : key;
          reads.set(at, (reads.get(at) ?? 0) + 1);
        }
        return Reflect.get(target, key, recv);
      },
    });
  };
  return wrap(event, "");
}

/**
 * learn(event) of a valid event must read each of its fields and elements once: the values it validates are the
 * values it learns, even when the caller's event is a proxy or has getters (it was read twice: a getter could pass
 * validation with one arm and be learned as another).
 */
function checkLearnReadsOnce(trace: Trace, p: PolicyBase, event: unknown): number {
  const what = "learn(event whose fields count their reads)";
  trace.push(what);
  const reads = new Map<string, number>();
  try {
    (p as unknown as { learn(e: unknown): void }).learn(countingEvent(event, reads));
  } catch (e) {
    trace.fail(`${what} threw ${describeError(e)} on a valid event`);
  }
  const twice = [...reads].filter(([, n]) => n > 1).map(([k, n]) => `${k} (${n} times)`);
  if (twice.length > 0) trace.fail(`${what} read ${twice.slice(0, 4).join(", ")}`);
  return 1;
}

/** A record through a reference whose id changes between reads: it names the decision read first. */
function checkFlippingRecord(trace: Trace, p: PolicyBase, id: string): number {
  const what = "decisionRecord(decision whose id getter changes between reads)";
  trace.push(what);
  let rec: { id?: unknown } | undefined;
  try {
    rec = (p as unknown as { decisionRecord(d: unknown): { id?: unknown } }).decisionRecord(flippingRef(id));
  } catch (e) {
    trace.fail(`${what} threw ${describeError(e)}`);
  }
  if (rec?.id !== id) trace.fail(`${what} names ${JSON.stringify(rec?.id)}, not the decision it resolved ("${id}")`);
  return 1;
}

/** With one hostile value in slot 0 of an otherwise valid vector. */
const poisoned = (valid: readonly number[], v: unknown): unknown[] => [v, ...valid.slice(1)];

/** Hostile values in an arm policy's ids, contexts, feedback and events. Returns the number of calls checked. */
export function checkHostileArm(spec: ArmPolicySpec): number {
  const trace = new Trace();
  trace.push(`${spec.name}: hostile values`);
  const p = spec.create({ seed: 5, arms: ["arm-0", "arm-1"] }) as ArmPolicy;
  const rng = Rng.fromSeed(`hostile:${spec.name}`);
  const ctx = (): Float64Array | undefined =>
    p.contextDim > 0 ? Float64Array.from(unitVector(rng, p.contextDim)) : undefined;
  const fb = (): { reward: number; cost?: number } =>
    spec.costs
      ? { reward: 0.5, cost: (spec.costs[0] + spec.costs[1]) / 2 }
      : { reward: spec.rewards === "binary" ? 1 : 0.5 };
  const P = p as unknown as Record<string, (...a: unknown[]) => unknown>;
  let n = 0;
  for (const [name, v] of hostileValues()) {
    n += attempt(trace, p, `addArm(${name})`, () => P.addArm?.call(p, v), true);
    n += attempt(trace, p, `removeArm(${name})`, () => P.removeArm?.call(p, v), true);
    if (p.contextDim > 0) {
      n += attempt(trace, p, `select(${name})`, () => P.select?.call(p, v), true);
      const x = unitVector(rng, p.contextDim);
      n += attempt(trace, p, `select(context with ${name} in it)`, () => P.select?.call(p, poisoned(x, v)), true);
    }
    n += attempt(trace, p, `update(${name}, feedback)`, () => P.update?.call(p, v, fb()), true);
    // Decisions are made before each attempt: the attempt's snapshot comparison covers the update alone.
    const d1 = p.select(ctx());
    n += attempt(trace, p, `update(decision, ${name})`, () => P.update?.call(p, d1, v), true);
    const d2 = p.select(ctx());
    n += attempt(trace, p, `update(decision, { reward: ${name} })`, () => P.update?.call(p, d2, { reward: v }), true);
    if (spec.costs) {
      const d3 = p.select(ctx());
      const fb3 = { reward: 0.5, cost: v };
      n += attempt(trace, p, `update(decision, { reward, cost: ${name} })`, () => P.update?.call(p, d3, fb3), true);
    }
    n += attempt(trace, p, `discard(${name})`, () => P.discard?.call(p, v), true);
    n += attempt(trace, p, `decisionRecord(${name})`, () => P.decisionRecord?.call(p, v), true);
    n += attempt(trace, p, `learn(${name})`, () => P.learn?.call(p, v), true);
    const record = p.decisionRecord(p.select(ctx()));
    n += attempt(
      trace,
      p,
      `learn(event with feedback { reward: ${name} })`,
      () => P.learn?.call(p, { ...record, feedback: { reward: v } }),
      true,
    );
    n += attempt(
      trace,
      p,
      `learn(event with arm ${name})`,
      () => P.learn?.call(p, { ...record, decision: { ...record.decision, arm: v }, feedback: fb() }),
      true,
    );
  }
  // Getters that throw: an unreadable input is a typed error too, with the state unchanged.
  const d4 = p.select(ctx());
  n += attempt(
    trace,
    p,
    "update(decision, feedback whose reward getter throws)",
    () => P.update?.call(p, d4, throwingField({}, "reward")),
    true,
  );
  if (p.contextDim > 0) {
    const x = unitVector(rng, p.contextDim);
    n += attempt(
      trace,
      p,
      "select(context whose element getters throw)",
      () => P.select?.call(p, throwingArray(x)),
      true,
    );
  }
  const d5 = p.select(ctx());
  n += attempt(
    trace,
    p,
    "update(decision whose id getter throws)",
    () => P.update?.call(p, throwingField({}, "id"), fb()),
    true,
  );
  n += checkFlippingRecord(trace, p, p.select(ctx()).id);
  n += checkFlippingRef(trace, p, d5.id, fb());
  if (p.contextDim > 0) {
    const x = unitVector(rng, p.contextDim);
    n += attempt(
      trace,
      p,
      "select(context whose length getter throws)",
      () => P.select?.call(p, throwingLength(x)),
      true,
    );
  }
  const rec = p.decisionRecord(p.select(ctx())) as unknown as Record<string, unknown>;
  n += attempt(
    trace,
    p,
    "learn(event whose feedback getter throws)",
    () => P.learn?.call(p, throwingField(rec, "feedback")),
    true,
  );
  n += attempt(
    trace,
    p,
    "learn(event whose decision getter throws)",
    () => P.learn?.call(p, throwingField({ ...rec, feedback: fb() }, "decision")),
    true,
  );
  n += checkLearnReadsOnce(trace, p, { ...p.decisionRecord(p.select(ctx())), feedback: fb() });
  return n;
}

/** Hostile values in an assortment policy's queries, choices and events. Returns the number of calls checked. */
export function checkHostileAssortment(spec: AssortmentPolicySpec): number {
  const trace = new Trace();
  trace.push(`${spec.name}: hostile values`);
  const p = spec.create({ seed: 5 }) as AssortmentPolicy;
  const P = p as unknown as Record<string, (...a: unknown[]) => unknown>;
  const rng = Rng.fromSeed(`hostile:${spec.name}`);
  const items = 3;
  const features = (): number[] => Array.from({ length: items * p.contextDim }, () => 0.2 * rng.uniformIn(-1, 1));
  const query = () => ({ features: Float64Array.from(features()), numItems: items, maxSize: 2 });
  let n = 0;
  for (const [name, v] of hostileValues()) {
    n += attempt(trace, p, `select(${name})`, () => P.select?.call(p, v), true);
    n += attempt(
      trace,
      p,
      `select({ features with ${name} in it })`,
      () => P.select?.call(p, { ...query(), features: poisoned(features(), v) }),
      true,
    );
    n += attempt(trace, p, `select({ numItems: ${name} })`, () => P.select?.call(p, { ...query(), numItems: v }), true);
    n += attempt(trace, p, `select({ maxSize: ${name} })`, () => P.select?.call(p, { ...query(), maxSize: v }), true);
    n += attempt(
      trace,
      p,
      `select({ revenues with ${name} in it })`,
      () => P.select?.call(p, { ...query(), revenues: [v, 0.5, 0.5] }),
      true,
    );
    n += attempt(trace, p, `update(${name}, { choice: null })`, () => P.update?.call(p, v, { choice: null }), true);
    const d1 = p.select(query());
    n += attempt(trace, p, `update(decision, ${name})`, () => P.update?.call(p, d1, v), true);
    const d2 = p.select(query());
    n += attempt(trace, p, `update(decision, { choice: ${name} })`, () => P.update?.call(p, d2, { choice: v }), true);
    n += attempt(trace, p, `discard(${name})`, () => P.discard?.call(p, v), true);
    n += attempt(trace, p, `learn(${name})`, () => P.learn?.call(p, v), true);
    const record = p.decisionRecord(p.select(query()));
    n += attempt(
      trace,
      p,
      `learn(event with choice ${name})`,
      () => P.learn?.call(p, { ...record, feedback: { choice: v } }),
      true,
    );
  }
  const d3 = p.select(query());
  n += attempt(
    trace,
    p,
    "update(decision, feedback whose choice getter throws)",
    () => P.update?.call(p, d3, throwingField({}, "choice")),
    true,
  );
  for (const key of ["features", "numItems", "maxSize", "revenues"]) {
    n += attempt(
      trace,
      p,
      `select(query whose ${key} getter throws)`,
      () => P.select?.call(p, throwingField(query(), key)),
      true,
    );
  }
  n += attempt(
    trace,
    p,
    "select(features whose element getters throw)",
    () => P.select?.call(p, { ...query(), features: throwingArray(features()) }),
    true,
  );
  const d4 = p.select(query());
  n += attempt(
    trace,
    p,
    "update(decision whose id getter throws)",
    () => P.update?.call(p, throwingField({}, "id"), { choice: null }),
    true,
  );
  n += checkFlippingRecord(trace, p, p.select(query()).id);
  n += checkFlippingRef(trace, p, d4.id, { choice: null });
  n += attempt(
    trace,
    p,
    "select(features whose length getter throws)",
    () => P.select?.call(p, { ...query(), features: throwingLength(features()) }),
    true,
  );
  n += attempt(
    trace,
    p,
    "select(revenues whose element getters throw)",
    () => P.select?.call(p, { ...query(), revenues: throwingArray([0.5, 0.5, 0.5]) }),
    true,
  );
  const d5 = p.select(query());
  const rec5 = p.decisionRecord(d5);
  p.discard(d5);
  n += checkLearnReadsOnce(trace, p, { ...rec5, feedback: { choice: rec5.decision.items[0] } });
  return n;
}

/** Hostile values at every step of a cascade episode and in its events. Returns the number of calls checked. */
export function checkHostileCascade(spec: CascadePolicySpec): number {
  const trace = new Trace();
  trace.push(`${spec.name}: hostile values`);
  const p = spec.create({ seed: 5, arms: ["a", "b", "c"] }) as CascadePolicy;
  const P = p as unknown as Record<string, (...a: unknown[]) => unknown>;
  const rng = Rng.fromSeed(`hostile:${spec.name}`);
  const box = (k: number): number[] => Array.from({ length: k }, () => rng.uniformIn(-1, 1));
  /** An episode with its outstanding query, or null when the policy stops at once (it never does before one query). */
  const open = (): { e: string; arm: string } => {
    const e = p.begin(Float64Array.from(box(p.contextDim)));
    const step = p.next(e);
    if (!("query" in step)) return trace.fail("next() stopped before the first query");
    return { e, arm: step.query };
  };
  let n = 0;
  for (const [name, v] of hostileValues()) {
    n += attempt(trace, p, `addArm(${name})`, () => P.addArm?.call(p, v), true);
    n += attempt(trace, p, `removeArm(${name})`, () => P.removeArm?.call(p, v), true);
    n += attempt(trace, p, `begin(${name})`, () => P.begin?.call(p, v), true);
    n += attempt(
      trace,
      p,
      `begin(context with ${name} in it)`,
      () => P.begin?.call(p, poisoned(box(p.contextDim), v)),
      true,
    );
    n += attempt(trace, p, `next(${name})`, () => P.next?.call(p, v), true);
    const o = open();
    const feats = Float64Array.from(box(p.outputDim));
    n += attempt(trace, p, `observe(${name}, ...)`, () => P.observe?.call(p, v, o.arm, feats, 0.1), true);
    n += attempt(trace, p, `observe(episode, ${name}, ...)`, () => P.observe?.call(p, o.e, v, feats, 0.1), true);
    n += attempt(
      trace,
      p,
      `observe(features with ${name} in them)`,
      () => P.observe?.call(p, o.e, o.arm, poisoned(box(p.outputDim), v), 0.1),
      true,
    );
    n += attempt(trace, p, `observe(cost ${name})`, () => P.observe?.call(p, o.e, o.arm, feats, v), true);
    n += attempt(trace, p, `choose(${name})`, () => P.choose?.call(p, v), true);
    p.observe(o.e, o.arm, feats, 0.1);
    p.choose(o.e);
    n += attempt(trace, p, `feedback(${name}, 0.5)`, () => P.feedback?.call(p, v, 0.5), true);
    n += attempt(trace, p, `feedback(episode, ${name})`, () => P.feedback?.call(p, o.e, v), true);
    n += attempt(trace, p, `decisionRecord(${name})`, () => P.decisionRecord?.call(p, v), true);
    n += attempt(trace, p, `discard(${name})`, () => P.discard?.call(p, v), true);
    n += attempt(trace, p, `learn(${name})`, () => P.learn?.call(p, v), true);
    const record = p.decisionRecord(o.e);
    n += attempt(
      trace,
      p,
      `learn(event with reward ${name})`,
      () => P.learn?.call(p, { ...record, feedback: { reward: v } }),
      true,
    );
    p.feedback(o.e, 0.5);
  }
  const o2 = open();
  n += attempt(
    trace,
    p,
    "begin(context whose element getters throw)",
    () => P.begin?.call(p, throwingArray(box(p.contextDim))),
    true,
  );
  n += attempt(
    trace,
    p,
    "observe(features whose element getters throw)",
    () => P.observe?.call(p, o2.e, o2.arm, throwingArray(box(p.outputDim)), 0.1),
    true,
  );
  p.observe(o2.e, o2.arm, Float64Array.from(box(p.outputDim)), 0.1);
  p.choose(o2.e);
  n += checkFlippingRecord(trace, p, o2.e);
  const rec2 = p.decisionRecord(o2.e);
  p.feedback(o2.e, 0.5);
  n += checkLearnReadsOnce(trace, p, { ...rec2, feedback: { reward: 0.5 } });
  return n;
}
