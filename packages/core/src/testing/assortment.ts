/**
 * Property-based fuzzing of an {@link AssortmentPolicy}: random queries (variable item counts,
 * capacities, revenues, duplicated items), late/out-of-order/duplicated/unknown feedback, snapshot
 * and restore, and malformed queries, checked against the protocol contract after every step.
 */
import fc from "fast-check";
import type { AssortmentDecision, AssortmentPolicy, AssortmentQuery } from "../protocols.js";
import { Rng } from "../rng.js";
import type { Snapshot } from "../snapshot.js";
import type { FuzzOptions, FuzzProfile } from "./arm.js";
import { checkState, expectOk, expectRejected, expectTolerated, fuzzScale, type StateHooks, Trace } from "./check.js";
import { show } from "./inspect.js";
import type { OptionRange } from "./misuse.js";

export interface AssortmentPolicySpec<P extends AssortmentPolicy = AssortmentPolicy> extends StateHooks<P> {
  readonly name: string;
  create(ctx: { readonly seed: number }): P;
  restore(snapshot: Snapshot): P;
  /** Largest item count of a valid query (default 10). */
  readonly maxItems?: number;
  /**
   * Largest maxSize of a valid query, for policies built for a capacity K (default: no limit).
   * Queries asking for more are edge input: answered within the query's maxSize, or rejected with a typed error.
   */
  readonly maxK?: number;
  /**
   * When true, a query without revenues (or with all revenues equal and positive) must be answered
   * with exactly min(maxSize, numItems) items (with equal revenues every added item raises the expected revenue,
   * so an optimal assortment is always full).
   */
  readonly fillsUnderUniformRevenue?: boolean;
  /** The class's constructor with raw options, for the option-range, misuse and maxPending checks (misuse.ts). */
  readonly construct?: (options: unknown) => P;
  /** Options that build a valid policy; the checks vary one field at a time. */
  readonly baseOptions?: Readonly<Record<string, unknown>>;
  /** Documented ranges of numeric options: both ends must work, just outside must be OUT_OF_RANGE. */
  readonly optionRanges?: readonly OptionRange[];
}

type RevenueKind = "none" | "ones" | "random" | "zeros" | "some-zero";
type BadQuery =
  | "no-items"
  | "max-0"
  | "max-frac"
  | "max-nan"
  | "features-short"
  | "features-nan"
  | "features-inf"
  | "revenue-len"
  | "revenue-neg"
  | "revenue-big"
  | "revenue-nan"
  | "items-frac"
  | "items-neg"
  | "not-a-query";
type BadChoice = "not-offered" | "negative" | "fraction" | "nan" | "string";
type EdgeQuery = "huge" | "tiny" | "zero" | "long-vectors" | "many-items" | "array-features" | "over-capacity";

export type AssortmentOp =
  | {
      readonly t: "select";
      readonly n: number;
      readonly k: number;
      readonly revenue: RevenueKind;
      readonly dupItems: boolean;
      readonly norm: number;
    }
  | { readonly t: "update"; readonly pick: number; readonly choice: number }
  | { readonly t: "snapshot" }
  | { readonly t: "bad-query"; readonly how: BadQuery }
  | { readonly t: "bad-choice"; readonly pick: number; readonly how: BadChoice }
  | { readonly t: "duplicate"; readonly pick: number }
  | { readonly t: "unknown-decision"; readonly how: number }
  | { readonly t: "edge-query"; readonly how: EdgeQuery };

const UNKNOWN_REFS: readonly unknown[] = ["nope", "d999999999", "", "d-1", "d01", 42, null, { id: "zz" }];

export function assortmentOpArbitrary(profile: FuzzProfile, maxItems: number): fc.Arbitrary<AssortmentOp> {
  const pick = fc.nat({ max: 1000 });
  const valid = [
    {
      weight: 30,
      arbitrary: fc.record({
        t: fc.constant("select" as const),
        n: fc.integer({ min: 1, max: maxItems }),
        k: fc.integer({ min: 1, max: maxItems + 2 }),
        revenue: fc.constantFrom<RevenueKind>("none", "ones", "random", "random", "zeros", "some-zero"),
        dupItems: fc.boolean(),
        norm: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
    },
    {
      weight: 26,
      arbitrary: fc.record({ t: fc.constant("update" as const), pick, choice: fc.integer({ min: -1, max: 1000 }) }),
    },
    { weight: 4, arbitrary: fc.constant({ t: "snapshot" as const }) },
  ];
  const invalid = [
    {
      weight: 8,
      arbitrary: fc.record({
        t: fc.constant("bad-query" as const),
        how: fc.constantFrom<BadQuery>(
          "no-items",
          "max-0",
          "max-frac",
          "max-nan",
          "features-short",
          "features-nan",
          "features-inf",
          "revenue-len",
          "revenue-neg",
          "revenue-big",
          "revenue-nan",
          "items-frac",
          "items-neg",
          "not-a-query",
        ),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant("bad-choice" as const),
        pick,
        how: fc.constantFrom<BadChoice>("not-offered", "negative", "fraction", "nan", "string"),
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
  ];
  const edge = [
    {
      weight: 12,
      arbitrary: fc.record({
        t: fc.constant("edge-query" as const),
        how: fc.constantFrom<EdgeQuery>(
          "huge",
          "tiny",
          "zero",
          "long-vectors",
          "many-items",
          "array-features",
          "over-capacity",
        ),
      }),
    },
  ];
  return fc.oneof(...(profile === "protocol" ? [...valid, ...invalid] : [...valid, ...edge]));
}

interface Pending {
  readonly decision: AssortmentDecision;
  readonly items: readonly number[];
  readonly numItems: number;
  /** Issued for edge input: its feedback may be refused with a typed error (state unchanged). */
  readonly edge: boolean;
}

function hashName(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Plays one generated run; throws ContractViolation at the first broken rule. */
export function runAssortmentScenario<P extends AssortmentPolicy>(
  spec: AssortmentPolicySpec<P>,
  seed: number,
  ops: readonly AssortmentOp[],
): void {
  const trace = new Trace();
  // A string seed: integer seeds below 2^32 share their first draw (see the conformance README).
  const rng = Rng.fromSeed(`harness:${seed}`);
  trace.push(`create(seed=${seed})`);
  let policy = expectOk(trace, "create", () => spec.create({ seed }));
  const d = policy.contextDim;
  const pending: Pending[] = [];
  const settled: AssortmentDecision[] = [];
  const issued = new Set<string>();

  const features = (n: number, norm: number, dup: boolean): Float64Array => {
    const f = new Float64Array(n * d);
    for (let i = 0; i < n; i++) {
      if (dup && i > 0 && rng.uniform() < 0.3) {
        f.copyWithin(i * d, (i - 1) * d, i * d);
        continue;
      }
      let s = 0;
      for (let j = 0; j < d; j++) {
        const v = rng.normal();
        f[i * d + j] = v;
        s += v * v;
      }
      const scale = s > 0 ? (norm * rng.uniform()) / Math.sqrt(s) : 0;
      for (let j = 0; j < d; j++) f[i * d + j] *= scale;
    }
    return f;
  };
  const revenues = (n: number, kind: RevenueKind): Float64Array | undefined => {
    if (kind === "none") return undefined;
    const r = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      r[i] = kind === "ones" ? 1 : kind === "zeros" ? 0 : kind === "some-zero" && i % 2 === 0 ? 0 : rng.uniform();
    }
    return r;
  };
  const validQuery = (): AssortmentQuery => {
    const n = 1 + rng.int(Math.min(spec.maxItems ?? 10, 6));
    const maxSize = Math.min(1 + rng.int(n), spec.maxK ?? n);
    return { features: features(n, 1, false), numItems: n, maxSize, revenues: revenues(n, "random") };
  };

  const checkDecision = (dec: AssortmentDecision, q: AssortmentQuery, what: string): void => {
    if (dec === null || typeof dec !== "object" || typeof dec.id !== "string" || dec.id.length === 0) {
      trace.fail(`${what} returned a decision without a string id: ${show(dec)}`);
    }
    if (issued.has(dec.id)) trace.fail(`${what} reused decision id ${dec.id}`);
    if (!Array.isArray(dec.items)) trace.fail(`${what} returned items that are not an array: ${show(dec.items)}`);
    if (dec.items.length > q.maxSize) trace.fail(`${what} offered ${dec.items.length} items, maxSize is ${q.maxSize}`);
    const seen = new Set<number>();
    for (const i of dec.items) {
      if (!Number.isInteger(i) || i < 0 || i >= q.numItems)
        trace.fail(`${what} offered item ${i}, not an index in [0, ${q.numItems})`);
      if (seen.has(i)) trace.fail(`${what} offered item ${i} twice`);
      seen.add(i);
    }
    if (spec.fillsUnderUniformRevenue) {
      const r = q.revenues;
      const uniform = r === undefined || (r[0] > 0 && r.every((x) => x === r[0]));
      const want = Math.min(q.maxSize, q.numItems);
      if (uniform && dec.items.length !== want)
        trace.fail(`${what} offered ${dec.items.length} items under uniform revenues, expected min(K, N) = ${want}`);
    }
  };
  const record = (dec: AssortmentDecision, q: AssortmentQuery, edge = false): void => {
    issued.add(dec.id);
    pending.push({ decision: dec, items: [...dec.items], numItems: q.numItems, edge });
  };
  const settle = (i: number): void => {
    const [p] = pending.splice(i, 1);
    settled.push((p as Pending).decision);
  };
  const fmt = (q: AssortmentQuery) =>
    `{numItems: ${q.numItems}, maxSize: ${q.maxSize}, features: ${show(q.features)}, revenues: ${show(q.revenues)}}`;

  let before = checkState(policy, spec, trace);
  for (const op of ops) {
    switch (op.t) {
      case "select": {
        const q: AssortmentQuery = {
          features: features(op.n, op.norm, op.dupItems),
          numItems: op.n,
          maxSize: Math.min(op.k, spec.maxK ?? op.k),
          revenues: revenues(op.n, op.revenue),
        };
        const what = `select(${fmt(q)})`;
        trace.push(what);
        const dec = expectOk(trace, what, () => policy.select(q));
        checkDecision(dec, q, what);
        record(dec, q);
        break;
      }
      case "update": {
        if (pending.length === 0) {
          trace.push("update: (nothing pending)");
          break;
        }
        const i = op.pick % pending.length;
        const p = pending[i] as Pending;
        const choice = op.choice < 0 || p.items.length === 0 ? null : (p.items[op.choice % p.items.length] as number);
        const what = `update(${p.decision.id} [items ${show(p.items)}], {choice: ${choice}})`;
        trace.push(what);
        if (p.edge) {
          if (expectTolerated(trace, policy, before, what, () => policy.update(p.decision, { choice })).ok) settle(i);
          break;
        }
        expectOk(trace, what, () => policy.update(p.decision, { choice }));
        settle(i);
        break;
      }
      case "snapshot": {
        trace.push("snapshot: toJSON -> JSON text -> fromJSON, then select on both");
        const restored = expectOk(trace, "fromJSON(toJSON())", () => spec.restore(JSON.parse(before) as Snapshot));
        if (JSON.stringify(restored.toJSON()) !== before)
          trace.fail("fromJSON(toJSON()).toJSON() differs from the original");
        if (restored.pendingDecisions !== policy.pendingDecisions) trace.fail("restored pendingDecisions differ");
        const q = validQuery();
        const d1 = expectOk(trace, "select on original", () => policy.select(q));
        const d2 = expectOk(trace, "select on restored", () =>
          restored.select({ ...q, features: q.features.slice(), revenues: q.revenues?.slice() }),
        );
        if (show(d1) !== show(d2)) trace.fail(`restored policy decided ${show(d2)}, the original ${show(d1)}`);
        checkDecision(d2, q, "select after restore");
        record(d2, q);
        policy = restored;
        break;
      }
      case "bad-query": {
        const q = validQuery() as { -readonly [K in keyof AssortmentQuery]: AssortmentQuery[K] };
        const n = q.numItems;
        let codes = ["INVALID_ARGUMENT", "OUT_OF_RANGE", "NON_FINITE"];
        let arg: unknown = q;
        switch (op.how) {
          case "no-items":
            q.numItems = 0;
            q.features = new Float64Array(0);
            q.revenues = undefined;
            codes = ["EMPTY_ASSORTMENT"];
            break;
          case "max-0":
            q.maxSize = 0;
            codes = ["EMPTY_ASSORTMENT"];
            break;
          case "max-frac":
            q.maxSize = 1.5;
            // EMPTY_ASSORTMENT is documented for maxSize < 1; the mnl package also uses it for any bad maxSize.
            codes = ["INVALID_ARGUMENT", "OUT_OF_RANGE", "EMPTY_ASSORTMENT"];
            break;
          case "max-nan":
            q.maxSize = Number.NaN;
            codes = ["INVALID_ARGUMENT", "NON_FINITE", "EMPTY_ASSORTMENT"];
            break;
          case "features-short":
            q.features = q.features.slice(0, n * d - 1);
            codes = ["DIMENSION_MISMATCH"];
            break;
          case "features-nan":
            q.features[rng.int(n * d)] = Number.NaN;
            codes = ["NON_FINITE"];
            break;
          case "features-inf":
            q.features[rng.int(n * d)] = -Infinity;
            codes = ["NON_FINITE"];
            break;
          case "revenue-len":
            q.revenues = new Float64Array(n + 1).fill(0.5);
            codes = ["DIMENSION_MISMATCH"];
            break;
          case "revenue-neg":
            (q.revenues as Float64Array)[rng.int(n)] = -0.25;
            codes = ["OUT_OF_RANGE"];
            break;
          case "revenue-big":
            (q.revenues as Float64Array)[rng.int(n)] = 1.5;
            codes = ["OUT_OF_RANGE"];
            break;
          case "revenue-nan":
            (q.revenues as Float64Array)[rng.int(n)] = Number.NaN;
            codes = ["NON_FINITE"];
            break;
          case "items-frac":
            q.numItems = n - 0.5;
            codes = ["INVALID_ARGUMENT", "DIMENSION_MISMATCH", "OUT_OF_RANGE"];
            break;
          case "items-neg":
            q.numItems = -1;
            codes = ["INVALID_ARGUMENT", "DIMENSION_MISMATCH", "OUT_OF_RANGE", "EMPTY_ASSORTMENT"];
            break;
          case "not-a-query":
            arg = null;
            codes = ["INVALID_ARGUMENT"];
            break;
        }
        const what = `select(${arg === null ? "null" : fmt(q)}) [${op.how}]`;
        trace.push(what);
        expectRejected(trace, policy, before, what, codes, () => policy.select(arg as AssortmentQuery));
        break;
      }
      case "bad-choice": {
        if (pending.length === 0) {
          trace.push("bad-choice: (nothing pending)");
          break;
        }
        const p = pending[op.pick % pending.length] as Pending;
        let choice: unknown;
        if (op.how === "not-offered") {
          const off = [];
          for (let i = 0; i < p.numItems + 2; i++) if (!p.items.includes(i)) off.push(i);
          choice = off[0];
        } else if (op.how === "negative") choice = -1;
        else if (op.how === "fraction") choice = (p.items[0] ?? 0) + 0.5;
        else if (op.how === "nan") choice = Number.NaN;
        else choice = String(p.items[0] ?? 0);
        const what = `update(${p.decision.id} [items ${show(p.items)}], {choice: ${show(choice)}}) [${op.how}]`;
        trace.push(what);
        expectRejected(trace, policy, before, what, ["INVALID_CHOICE", "INVALID_ARGUMENT"], () =>
          policy.update(p.decision, { choice: choice as number }),
        );
        break;
      }
      case "duplicate": {
        if (settled.length === 0) {
          trace.push("duplicate: (nothing settled)");
          break;
        }
        const dec = settled[op.pick % settled.length] as AssortmentDecision;
        const what = `update(${dec.id}) again [duplicate]`;
        trace.push(what);
        expectRejected(trace, policy, before, what, ["DECISION_ALREADY_USED", "DECISION_EXPIRED"], () =>
          policy.update(dec, { choice: null }),
        );
        break;
      }
      case "unknown-decision": {
        const ref = UNKNOWN_REFS[op.how];
        const what = `update(${show(ref)}, {choice: null}) [unknown decision]`;
        trace.push(what);
        expectRejected(trace, policy, before, what, ["UNKNOWN_DECISION", "INVALID_ARGUMENT"], () =>
          policy.update(ref as string, { choice: null }),
        );
        break;
      }
      case "edge-query": {
        const q = validQuery() as { -readonly [K in keyof AssortmentQuery]: AssortmentQuery[K] };
        const f = q.features;
        if (op.how === "huge") for (let i = 0; i < f.length; i++) f[i] *= 1e300;
        else if (op.how === "tiny") for (let i = 0; i < f.length; i++) f[i] *= 1e-300;
        else if (op.how === "zero") f.fill(0);
        else if (op.how === "long-vectors") for (let i = 0; i < f.length; i++) f[i] = rng.uniformIn(-50, 50);
        else if (op.how === "many-items") {
          q.numItems = 200;
          q.features = features(200, 1, true);
          q.maxSize = Math.min(1 + rng.int(200), spec.maxK ?? 200);
          q.revenues = revenues(200, "random");
        } else if (op.how === "over-capacity") q.maxSize = (spec.maxK ?? q.numItems) + 1 + rng.int(3);
        else q.features = Array.from(f) as unknown as Float64Array;
        const what = `select(${fmt(q)}) [edge ${op.how}]`;
        trace.push(what);
        const r = expectTolerated(trace, policy, before, what, () => policy.select(q));
        if (r.ok) {
          checkDecision(r.value, q, what);
          record(r.value, q, true);
        }
        break;
      }
    }
    const after = checkState(policy, spec, trace);
    if (policy.pendingDecisions !== pending.length) {
      trace.fail(`pendingDecisions is ${policy.pendingDecisions}, expected ${pending.length}`);
    }
    before = after;
  }
}

/** Fuzzes an assortment policy (see {@link fuzzArmPolicy} for the options). */
export function fuzzAssortmentPolicy<P extends AssortmentPolicy>(
  spec: AssortmentPolicySpec<P>,
  options: FuzzOptions = {},
): void {
  const profile = options.profile ?? "protocol";
  const numRuns = (options.numRuns ?? 1000) * fuzzScale();
  const maxSteps = options.maxSteps ?? 24;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      fc.array(assortmentOpArbitrary(profile, spec.maxItems ?? 10), { minLength: 1, maxLength: maxSteps }),
      (seed, ops) => runAssortmentScenario(spec, seed, ops),
    ),
    { numRuns, seed: options.seed ?? hashName(`${spec.name}/${profile}`), includeErrorInReport: true },
  );
}
