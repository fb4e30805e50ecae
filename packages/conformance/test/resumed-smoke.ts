/**
 * The resumed smoke of the robustness suite (resealed absurd values): a policy restored from a snapshot with an
 * absurd value first finishes the pending decisions or open episodes it restored, then runs fresh rounds whose
 * outputs are checked, and its own snapshot must then restore. One frame for every family, a resume and a fresh
 * part per family.
 */
import {
  type ArmPolicy,
  type AssortmentPolicy,
  type CascadePolicy,
  Rng,
  RouteKitError,
  type Snapshot,
} from "@routekit/core";
import { type ArmPolicySpec, ContractViolation, describeError, findNonFinite } from "@routekit/core/testing";
import { MNL_D } from "./policies.js";

/** A query of four items (a MNL_D-dimensional feature row each), at most two offered. */
export function query(rng: Rng) {
  const n = 4;
  return { features: rng.fillNormal(new Float64Array(n * MNL_D), 0, 0.4), numItems: n, maxSize: 2 };
}

/** Valid feedback for the entry's reward kind ("unit", "binary" or a range) and cost range, from u in [0, 1). */
export function validFeedback(spec: ArmPolicySpec, u: number): { reward: number; cost?: number } {
  const r = spec.rewards ?? "unit";
  const reward = r === "unit" ? u : r === "binary" ? (u < 0.5 ? 0 : 1) : r[0] + u * (r[1] - r[0]);
  return spec.costs ? { reward, cost: spec.costs[0] + (1 - u) * (spec.costs[1] - spec.costs[0]) } : { reward };
}

/** The [sequence number, payload] of every pending decision or open episode in a policy's snapshot. */
export function pendingEntries(p: { toJSON(): { state: unknown } }): [number, unknown][] {
  return (p.toJSON().state as { ledger: { entries: [number, unknown][] } }).ledger.entries;
}

/** The first NaN in a value a call returned (numbers, typed arrays, arrays and objects), as a path, or null. */
export function firstNaN(v: unknown, path: string): string | null {
  if (typeof v === "number") return Number.isNaN(v) ? path : null;
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const a = v as unknown as ArrayLike<number>;
    for (let i = 0; i < a.length; i++) if (Number.isNaN(Number(a[i]))) return `${path}[${i}]`;
    return null;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const hit = firstNaN(v[i], `${path}[${i}]`);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      const hit = firstNaN(x, `${path}.${k}`);
      if (hit !== null) return hit;
    }
  }
  return null;
}

/** A value's path with every index blanked (`state.arms[].state.a[]`): the field an entry belongs to. */
const fieldOf = (path: string): string => path.replace(/\[\d+\]/g, "[]");

/**
 * The smoke every family runs on a policy restored from a snapshot with an absurd value. `real` runs it on the
 * policy restored from the real snapshot (which must pass) and records the Float64 fields where that run leaves
 * +-Infinity (a box never opened, an arm never tried); `corrupted`, for checkCorruptions, runs it on a policy restored
 * from a corrupted snapshot. The smoke first finishes each restored pending decision or open episode (`resume`, with
 * valid feedback), then runs fresh rounds (`fresh`, which checks what the calls return), and finally requires the
 * policy's own snapshot to hold +-Infinity in no Float64 field other than those and to restore (a state it reached is
 * never refused). Every call made here is valid, so a RouteKitError from one is a break, not a refusal: refusing
 * belongs in fromJSON.
 */
export interface ResumedSmoke<P> {
  real(p: P): void;
  corrupted(p: P): void;
}

export function resumedSmoke<P extends { toJSON(): Snapshot }>(
  name: string,
  restore: (s: Snapshot) => unknown,
  resume: (p: P, seq: number, payload: unknown, rng: Rng) => void,
  fresh: (p: P, rng: Rng) => void,
  /** Fields (as {@link fieldOf} writes them) whose +-Infinity the policy's design allows whatever the real run shows. */
  designInfinite: readonly RegExp[] = [],
): ResumedSmoke<P> {
  let infinite: Set<string> | undefined;
  const valid = (what: string, fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      if (e instanceof ContractViolation) throw e;
      throw new ContractViolation(`${what}: a valid call threw ${describeError(e)}`);
    }
  };
  const run = (p: P): Snapshot => {
    const rng = Rng.fromSeed(`resumed-smoke:${name}`); // every run makes the same calls
    for (const [seq, payload] of pendingEntries(p)) {
      valid(`finishing restored pending decision ${seq}`, () => resume(p, seq, payload, rng));
    }
    valid("fresh rounds", () => fresh(p, rng));
    const snap = p.toJSON();
    try {
      restore(snap);
    } catch (e) {
      const why = e instanceof RouteKitError ? e.message : describeError(e);
      throw new ContractViolation(`after the smoke its own snapshot is refused: ${why}`);
    }
    return snap;
  };
  const allInfinite = (snap: Snapshot) =>
    findNonFinite(snap, { infinityInEncoded: true, limit: Number.MAX_SAFE_INTEGER }).filter((h) => h.encoded);
  return {
    real(p) {
      try {
        infinite = new Set(allInfinite(run(p)).map((h) => fieldOf(h.path)));
      } catch (e) {
        if (e instanceof ContractViolation) throw new ContractViolation(`${name}, real snapshot: ${e.message}`);
        throw e;
      }
    },
    corrupted(p) {
      if (infinite === undefined) throw new Error("resumedSmoke: call real() first");
      const allowed = infinite;
      const bad = allInfinite(run(p)).filter(
        (h) => !allowed.has(fieldOf(h.path)) && !designInfinite.some((re) => re.test(fieldOf(h.path))),
      );
      if (bad.length > 0) {
        const shown = bad.slice(0, 5).map((h) => `${h.path}=${h.value}`);
        throw new ContractViolation(`after the smoke its snapshot holds ${shown.join(", ")}`);
      }
    },
  };
}

/** A valid context for the entry ("unit": L2-normalised Gaussian; "box": entries uniform in [-1, 1]). */
export function armContext(spec: ArmPolicySpec, p: ArmPolicy, rng: Rng): Float64Array | undefined {
  if (!p.contextDim) return undefined;
  const x = new Float64Array(p.contextDim);
  if (spec.contexts === "box") {
    for (let i = 0; i < x.length; i++) x[i] = rng.uniformIn(-1, 1);
    return x;
  }
  rng.fillNormal(x, 0, 1);
  let n = 0;
  for (const v of x) n += v * v;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) * s;
  return x;
}

/**
 * The arm policies' resumed smoke: feedback for every restored pending decision, then six rounds whose decisions
 * must name a live arm, carry a propensity in [0, 1] when they carry one, and hold no NaN; the last stays pending.
 */
export function armResumedSmoke(spec: ArmPolicySpec): ResumedSmoke<ArmPolicy> {
  return resumedSmoke<ArmPolicy>(
    spec.name,
    (s) => spec.restore(s),
    (p, seq, _payload, rng) => p.update({ id: `d${seq}` }, validFeedback(spec, rng.uniform())),
    (p, rng) => {
      for (let t = 0; t < 6; t++) {
        const d = p.select(armContext(spec, p, rng));
        if (!p.arms.includes(d.arm)) {
          throw new ContractViolation(`select chose ${JSON.stringify(d.arm)}, not a live arm`);
        }
        if (d.propensity !== undefined && !(Number.isFinite(d.propensity) && d.propensity >= 0 && d.propensity <= 1)) {
          throw new ContractViolation(`select gave propensity ${d.propensity}`);
        }
        const nan = firstNaN(d, "decision");
        if (nan !== null) throw new ContractViolation(`select returned NaN at ${nan}`);
        if (t < 5) p.update(d, validFeedback(spec, rng.uniform()));
      }
    },
  );
}

/**
 * The assortment policies' resumed smoke: feedback for every restored pending decision (its first item chosen), then
 * six rounds; every decision must offer distinct item indices of the query, at most its maxSize (a NaN utility shows
 * as a short, repeated or out-of-range assortment). The last decision stays pending, so the state checked after the
 * smoke holds its offered rows.
 */
export function assortmentResumedSmoke(
  name: string,
  restore: (s: Snapshot) => unknown,
): ResumedSmoke<AssortmentPolicy> {
  return resumedSmoke<AssortmentPolicy>(
    name,
    restore,
    (q, seq, payload) => q.update({ id: `d${seq}` }, { choice: (payload as { items: number[] }).items[0] ?? null }),
    (q, rng) => {
      for (let t = 0; t < 6; t++) {
        const qu = query(rng);
        const d = q.select(qu);
        const ok =
          d.items.length >= 1 &&
          d.items.length <= qu.maxSize &&
          new Set(d.items).size === d.items.length &&
          d.items.every((i) => Number.isInteger(i) && i >= 0 && i < qu.numItems);
        if (!ok) throw new ContractViolation(`select offered [${d.items.join(", ")}] of ${qu.numItems} items`);
        const nan = firstNaN(d, "decision");
        if (nan !== null) throw new ContractViolation(`select returned NaN at ${nan}`);
        if (t < 5) q.update(d, { choice: d.items[t % 2] ?? null });
      }
    },
  );
}

/** Entries uniform in [-1, 1]: a cascade context or box output. */
const box = (rng: Rng, n: number) => Float64Array.from({ length: n }, () => rng.uniformIn(-1, 1));

/**
 * The cascade policies' resumed smoke: each restored open episode is queried to its stop, then chosen and learned
 * from; then whole episodes (begin, next/observe until stop, choose, feedback): every asked box must be live and not
 * asked before, the chosen box one of those observed. The last episode stays open.
 */
export function cascadeResumedSmoke(name: string, restore: (s: Snapshot) => unknown): ResumedSmoke<CascadePolicy> {
  return resumedSmoke<CascadePolicy>(
    name,
    restore,
    (p, seq, _payload, rng) => {
      const e = { id: `e${seq}` };
      for (let k = 0; k < p.arms.length + 1; k++) {
        const step = p.next(e);
        if (!("query" in step)) break;
        p.observe(e, step.query, box(rng, p.outputDim), 0.05 + 0.1 * rng.uniform());
      }
      p.choose(e);
      p.feedback(e, rng.uniform());
    },
    (p, rng) => {
      for (let t = 0; t < 5; t++) {
        const e = p.begin(box(rng, p.contextDim));
        const asked: string[] = [];
        for (let k = 0; k < p.arms.length + 1; k++) {
          const step = p.next(e);
          if (!("query" in step)) break;
          if (!p.arms.includes(step.query) || asked.includes(step.query))
            throw new ContractViolation(`next() asked for ${JSON.stringify(step.query)} after [${asked.join(", ")}]`);
          asked.push(step.query);
          p.observe(e, step.query, box(rng, p.outputDim), 0.05 + 0.1 * rng.uniform());
        }
        if (t === 4) break;
        const chosen = p.choose(e);
        if (!asked.includes(chosen))
          throw new ContractViolation(`choose() gave ${chosen}, not one of [${asked.join(", ")}]`);
        p.feedback(e, rng.uniform());
      }
    },
    // An episode's reward radius is +Infinity when valid options make it overflow (confidence 5e-324, theory
    // constants of 1e308): sigma~ is then 1, and such snapshots restore (pandora's edges.test.ts, "an infinite
    // radius"). A resealed config reaching it is a state a user can create, not a break.
    [/^state\.ledger\.entries\[\]\[\]\.beta\[\]$/],
  );
}
