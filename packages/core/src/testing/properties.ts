/**
 * Deterministic protocol properties run for every policy:
 * - `update(d, fb)` equals `learn(JSON round trip of { ...decisionRecord(d), feedback: fb })` plus `discard(d)`,
 *   bit for bit, with late and out-of-order feedback, arm removal and re-adding of the same id;
 * - late feedback for a removed arm is accepted and ignored even after an arm of the same id is re-added;
 * - a cascade episode open across the removal and re-adding of a box's id treats its planned box as removed:
 *   the new box is never asked in it and learns nothing from it;
 * - hostile arm ids (`__proto__`, `constructor`, `toString`, very long, unicode) are ordinary ids;
 * - maxPending, small or large, survives a snapshot: the restored policy expires exactly what the original does
 *   (for cascades the pending items are open episodes: begun, not yet given feedback).
 */

import { RouteKitError } from "../errors.js";
import type { ArmEvent, CascadeEvent } from "../events.js";
import type {
  ArmDecision,
  ArmPolicy,
  AssortmentDecision,
  AssortmentPolicy,
  CascadePolicy,
  PolicyBase,
} from "../protocols.js";
import { Rng } from "../rng.js";
import type { Snapshot } from "../snapshot.js";
import type { ArmPolicySpec } from "./arm.js";
import type { AssortmentPolicySpec } from "./assortment.js";
import type { CascadePolicySpec } from "./cascade.js";
import { checkState, Trace } from "./check.js";
import { describeError, show } from "./inspect.js";

type ArmFb = { reward: number; cost?: number };

function rewardOf(spec: Pick<ArmPolicySpec, "rewards">, u: number): number {
  const r = spec.rewards ?? "unit";
  if (r === "unit") return u;
  if (r === "binary") return u < 0.5 ? 0 : 1;
  return r[0] + u * (r[1] - r[0]);
}

/** Valid feedback for `spec` (its reward range, and a cost in its cost range when it has one). */
export function armFeedback(spec: Pick<ArmPolicySpec, "rewards" | "costs">, rng: Rng): ArmFb {
  const u = rng.uniform();
  return spec.costs
    ? { reward: rewardOf(spec, u), cost: spec.costs[0] + rng.uniform() * (spec.costs[1] - spec.costs[0]) }
    : { reward: rewardOf(spec, u) };
}

/** A unit-norm Gaussian context of `p`'s length (undefined for a context-free policy). */
export function context(p: ArmPolicy, rng: Rng): Float64Array | undefined {
  if (p.contextDim === 0) return undefined;
  const x = rng.fillNormal(new Float64Array(p.contextDim), 0, 1);
  let n = 0;
  for (let i = 0; i < x.length; i++) n += (x[i] as number) ** 2;
  for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) / Math.sqrt(n || 1);
  return x;
}

const text = (p: PolicyBase) => JSON.stringify(p.toJSON());
const roundTrip = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function run<T>(trace: Trace, what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    trace.fail(`${what} threw ${describeError(e)}`);
  }
}

/**
 * Twin policies from one seed: P learns by update, Q by learn of each decision's JSON event plus discard. Their
 * snapshots must stay identical (bit for bit) through late/out-of-order feedback, a JSON restore of Q, and the
 * removal and re-adding of an arm with decisions pending on it.
 */
export function checkLearnEqualsUpdateArm(spec: ArmPolicySpec, rounds = 80, seed = 5): void {
  const trace: Trace = new Trace();
  const arms = ["arm-0", "arm-1", "arm-2"];
  trace.push(`${spec.name}: twins from seed ${seed}, arms ${show(arms)}`);
  const P = spec.create({ seed, arms });
  let Q = spec.create({ seed, arms });
  const rng = Rng.fromSeed(`learn-update:${spec.name}`);
  const pending: [ArmDecision, ArmDecision][] = [];
  const victim = arms.find((a) => !spec.pinnedArms?.includes(a) && a !== arms[0]) as string;
  for (let t = 0; t < rounds; t++) {
    if (t === Math.floor(rounds / 3)) {
      trace.push(`removeArm(${victim}) on both`);
      run(trace, "removeArm on P", () => P.removeArm(victim));
      run(trace, "removeArm on Q", () => Q.removeArm(victim));
    }
    if (t === Math.floor(rounds / 2)) {
      trace.push(`addArm(${victim}) on both (same id again)`);
      run(trace, "addArm on P", () => P.addArm(victim));
      run(trace, "addArm on Q", () => Q.addArm(victim));
    }
    if (t === Math.floor((2 * rounds) / 3)) {
      trace.push("Q = fromJSON(JSON of Q)");
      Q = run(trace, "restore Q", () => spec.restore(roundTrip(Q.toJSON()) as Snapshot));
    }
    const x = context(P, rng);
    const dP = run(trace, `P.select(${show(x)})`, () => P.select(x));
    const dQ = run(trace, "Q.select(same context)", () => Q.select(x?.slice()));
    trace.push(`t=${t}: select -> ${show(dP)}`);
    if (show(dP) !== show(dQ)) trace.fail(`twins diverged: P decided ${show(dP)}, Q (fed by learn) ${show(dQ)}`);
    pending.push([dP, dQ]);
    while (pending.length > 0 && (rng.uniform() < 0.55 || t === rounds - 1)) {
      const [[a, b]] = pending.splice(rng.int(pending.length), 1) as [[ArmDecision, ArmDecision]];
      const fb = armFeedback(spec, rng);
      const event = roundTrip({ ...run(trace, "Q.decisionRecord", () => Q.decisionRecord(b)), feedback: fb });
      trace.push(`update(${a.id}, ${show(fb)}) on P; learn(${show(event)}) + discard on Q`);
      run(trace, "P.update", () => P.update(a, fb));
      run(trace, "Q.learn", () => Q.learn(event));
      run(trace, "Q.discard", () => Q.discard(b));
      const tp = checkState(P, spec, trace);
      const tq = checkState(Q, spec, trace);
      if (tp !== tq) trace.fail(`update and learn disagree:\n      update: ${tp}\n      learn:  ${tq}`);
    }
  }
}

/** Same property for an assortment policy: random queries, choices or the outside option, late feedback. */
export function checkLearnEqualsUpdateAssortment(spec: AssortmentPolicySpec, rounds = 60, seed = 5): void {
  const trace: Trace = new Trace();
  trace.push(`${spec.name}: twins from seed ${seed}`);
  const P = spec.create({ seed });
  let Q = spec.create({ seed });
  const rng = Rng.fromSeed(`learn-update:${spec.name}`);
  const d = P.contextDim;
  const pending: [AssortmentDecision, AssortmentDecision][] = [];
  for (let t = 0; t < rounds; t++) {
    if (t === Math.floor(rounds / 2))
      Q = run(trace, "restore Q", () => spec.restore(roundTrip(Q.toJSON()) as Snapshot));
    const n = 2 + rng.int(Math.max(1, (spec.maxItems ?? 8) - 1));
    const withRevenue = rng.uniform() < 0.5;
    const q = {
      features: rng.fillNormal(new Float64Array(n * d), 0, 0.5),
      numItems: n,
      maxSize: Math.min(1 + rng.int(n), spec.maxK ?? n),
      ...(withRevenue ? { revenues: Float64Array.from({ length: n }, () => 0.2 + 0.8 * rng.uniform()) } : {}),
    };
    const copy = { ...q, features: q.features.slice(), ...(q.revenues ? { revenues: q.revenues.slice() } : {}) };
    const dP = run(trace, "P.select", () => P.select(q));
    const dQ = run(trace, "Q.select", () => Q.select(copy));
    trace.push(`t=${t}: select(n=${n}, K=${q.maxSize}) -> ${show(dP)}`);
    if (show(dP) !== show(dQ)) trace.fail(`twins diverged: P offered ${show(dP)}, Q (fed by learn) ${show(dQ)}`);
    pending.push([dP, dQ]);
    while (pending.length > 0 && (rng.uniform() < 0.55 || t === rounds - 1)) {
      const [[a, b]] = pending.splice(rng.int(pending.length), 1) as [[AssortmentDecision, AssortmentDecision]];
      const u = rng.uniform();
      const fb = { choice: a.items.length > 0 && u < 0.75 ? (a.items[rng.int(a.items.length)] as number) : null };
      const event = roundTrip({ ...run(trace, "Q.decisionRecord", () => Q.decisionRecord(b)), feedback: fb });
      trace.push(`update(${a.id}, ${show(fb)}) on P; learn + discard on Q`);
      run(trace, "P.update", () => P.update(a, fb));
      run(trace, "Q.learn", () => Q.learn(event));
      run(trace, "Q.discard", () => Q.discard(b));
      const tp = checkState(P, spec, trace);
      const tq = checkState(Q, spec, trace);
      if (tp !== tq) trace.fail(`update and learn disagree:\n      update: ${tp}\n      learn:  ${tq}`);
    }
  }
}

/**
 * Late feedback for a removed arm, arriving after an arm with the same id was re-added, is accepted and ignored:
 * the policy ends exactly as one that discarded that decision instead.
 */
export function checkReAddWithPending(spec: ArmPolicySpec, seed = 3): void {
  const trace: Trace = new Trace();
  const arms = ["arm-0", "arm-1", "arm-2"];
  const P = spec.create({ seed, arms });
  const rng = Rng.fromSeed(`re-add:${spec.name}`);
  const victims = arms.filter((a) => a !== arms[0] && !spec.pinnedArms?.includes(a));
  const decisions: ArmDecision[] = [];
  for (let t = 0; t < 60; t++) {
    const d = run(trace, "select", () => P.select(context(P, rng)));
    decisions.push(d);
    if (t % 3 === 2) {
      const [old] = decisions.splice(0, 1) as [ArmDecision];
      run(trace, "update", () => P.update(old, armFeedback(spec, rng)));
    }
  }
  const victim = victims.find((v) => decisions.some((d) => d.arm === v));
  if (victim === undefined) return;
  const stale = decisions.filter((d) => d.arm === victim);
  trace.push(`${spec.name}: ${stale.length} decisions pending on ${victim}; removeArm, addArm(${victim}) again`);
  run(trace, "removeArm", () => P.removeArm(victim));
  run(trace, "addArm (same id)", () => P.addArm(victim));
  // The re-added arm learns something of its own first, so "ignored" is not confused with "both empty".
  for (let t = 0; t < 20; t++) {
    const d = run(trace, "select", () => P.select(context(P, rng)));
    run(trace, "update", () => P.update(d, armFeedback(spec, rng)));
  }
  const Q = spec.restore(roundTrip(P.toJSON()) as Snapshot);
  // A third twin learns each late feedback from a decision record made now (after the removal): the record
  // says the arm was retired, so learn ignores it as update does.
  const R = spec.restore(roundTrip(P.toJSON()) as Snapshot);
  for (const d of stale) {
    const fb = armFeedback(spec, rng);
    const event = roundTrip({ ...run(trace, "decisionRecord", () => P.decisionRecord(d)), feedback: fb }) as ArmEvent;
    trace.push(`update(${d.id} [arm ${victim}, removed then re-added], ${show(fb)})`);
    run(trace, "late update for the removed arm", () => P.update(d, fb));
    run(trace, "discard on the twin", () => Q.discard(d));
    run(trace, "learn of the record on the third twin", () => R.learn(event));
    run(trace, "discard on the third twin", () => R.discard(d));
  }
  const tp = checkState(P, spec, trace);
  if (tp !== text(Q)) {
    trace.fail(
      `late feedback for the removed arm changed the re-added arm:\n      after update:  ${tp}\n      after discard: ${text(Q)}`,
    );
  }
  if (text(R) !== text(Q)) {
    trace.fail(
      `learn of a record made after the arm was removed changed the re-added arm:\n      after learn:   ${text(R)}\n      after discard: ${text(Q)}`,
    );
  }
}

/** Deterministic output features and cost of box `arm` in stale episode `k` (equal inputs for every twin). */
function cascadeOutput(p: CascadePolicy, name: string, k: number, arm: string): { f: Float64Array; cost: number } {
  const r = Rng.fromSeed(`re-add-cascade:${name}:${k}:${arm}`);
  const f = new Float64Array(p.outputDim);
  for (let i = 0; i < f.length; i++) f[i] = r.uniform();
  return { f, cost: Math.round(r.uniform() * 100) / 1000 };
}

/**
 * Drives an open episode of `p` through `steps` more calls of next/observe (or to its end with Infinity), then
 * chooses when `choose` is set; returns what the policy answered, one line per call.
 */
function driveEpisode(
  trace: Trace,
  p: CascadePolicy,
  name: string,
  k: number,
  ep: string,
  steps: number,
  choose: boolean,
): string[] {
  const out: string[] = [];
  for (let s = 0; s < steps; s++) {
    const step = run(trace, `next(${ep})`, () => p.next(ep));
    out.push(`next -> ${show(step)}`);
    if (!("query" in step)) break;
    const { f, cost } = cascadeOutput(p, name, k, step.query);
    run(trace, `observe(${ep}, ${show(step.query)})`, () => p.observe(ep, step.query, f, cost));
  }
  if (choose) out.push(`choose -> ${show(run(trace, `choose(${ep})`, () => p.choose(ep)))}`);
  return out;
}

/**
 * A cascade episode open while a box is removed and a box with the same id is added again treats the old box as
 * removed (the rule the arm protocol keeps for late feedback, `checkReAddWithPending`): the new box is never asked
 * in it, and its feedback teaches the new box nothing. P removes and re-adds the box with episodes open at every
 * stage (begun, box asked, box observed, chosen); its twin Q only removes it, plays the same episodes and adds the
 * box after they closed. Both must answer alike and end in the same state; a third twin R, restored from P after
 * the re-add, learns each episode from P's decision record plus the feedback and must end as P does too.
 */
export function checkReAddWithOpenEpisodes(spec: CascadePolicySpec, seed = 3): void {
  const trace: Trace = new Trace();
  const arms = ["arm-0", "arm-1", "arm-2"];
  const P = spec.create({ seed, arms });
  const rng = Rng.fromSeed(`re-add-cascade:${spec.name}`);
  const ctx = () => rng.fillNormal(new Float64Array(P.contextDim), 0, 0.5);
  // Warm-up: complete episodes, so every box has data of its own.
  for (let t = 0; t < 30; t++) {
    const ep = run(trace, "begin", () => P.begin(ctx()));
    driveEpisode(trace, P, `${spec.name}:warm`, t, ep, Number.POSITIVE_INFINITY, true);
    run(trace, "feedback", () => P.feedback(ep, rng.uniform() < 0.6 ? 1 : 0));
  }
  // Stale episodes at every stage: begun only, one box asked, one observed, two observed, chosen.
  const stages = [0, 1, 1, 2, 3, Number.POSITIVE_INFINITY];
  const stale: { ep: string; k: number }[] = [];
  const before: string[] = [];
  for (let r = 0; r < 2; r++) {
    for (const n of stages) {
      const k = stale.length;
      const ep = run(trace, "begin", () => P.begin(ctx()));
      stale.push({ ep, k });
      // Stage 1 leaves the asked box unobserved: the call is under way when the box is removed.
      if (n === 1 && r === 0) {
        const step = run(trace, `next(${ep})`, () => P.next(ep));
        before.push(show(step));
      } else if (n > 0) {
        before.push(...driveEpisode(trace, P, spec.name, k, ep, n, n === Number.POSITIVE_INFINITY));
      }
    }
  }
  // The victim: the first box asked in a stale episode (so the stale episodes plan it, and some opened it).
  const first = run(trace, "next", () => P.next((stale[1] as { ep: string }).ep));
  if (!("query" in first)) trace.fail(`next on an episode just begun said ${show(first)}`);
  const victim = first.query;
  const Q = spec.restore(roundTrip(P.toJSON()) as Snapshot);
  trace.push(`${spec.name}: ${stale.length} episodes open; removeArm(${victim}), addArm(${victim}) again`);
  run(trace, "removeArm", () => P.removeArm(victim));
  run(trace, "addArm (same id)", () => P.addArm(victim));
  run(trace, "removeArm on the twin", () => Q.removeArm(victim));
  const R = spec.restore(roundTrip(P.toJSON()) as Snapshot);
  for (const { ep, k } of stale) {
    const reward = rng.uniform() < 0.6 ? 1 : 0;
    const a = driveEpisode(trace, P, spec.name, k, ep, Number.POSITIVE_INFINITY, true);
    const b = driveEpisode(trace, Q, spec.name, k, ep, Number.POSITIVE_INFINITY, true);
    if (show(a) !== show(b)) {
      trace.fail(
        `episode ${ep}, open across removeArm/addArm(${victim}), went on differently from a twin that only removed the box:\n      re-added: ${a.join("; ")}\n      removed:  ${b.join("; ")}`,
      );
    }
    const event = roundTrip({
      ...run(trace, "decisionRecord", () => P.decisionRecord(ep)),
      feedback: { reward },
    }) as CascadeEvent;
    trace.push(`feedback(${ep}, ${reward}) [${a.join("; ")}]`);
    run(trace, "feedback", () => P.feedback(ep, reward));
    run(trace, "feedback on the twin", () => Q.feedback(ep, reward));
    run(trace, "learn of the record on the third twin", () => R.learn(event));
    run(trace, "discard on the third twin", () => R.discard(ep));
  }
  run(trace, "addArm on the twin, after the episodes closed", () => Q.addArm(victim));
  const tp = checkState(P, spec, trace);
  if (tp !== text(Q)) {
    trace.fail(
      `episodes begun before removeArm/addArm(${victim}) taught the new box:\n      re-added during the episodes: ${tp}\n      added after them:             ${text(Q)}`,
    );
  }
  if (text(R) !== tp) {
    trace.fail(
      `learn of the records made after the removal differs from feedback:\n      feedback: ${tp}\n      learn:    ${text(R)}`,
    );
  }
}

/** Ids that collide with Object.prototype, a 10,000-character id and unicode ids work as ordinary arm ids. */
export const HOSTILE_IDS: readonly string[] = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "x".repeat(10_000),
  "模型-🚀-ü\u0301",
  " spaced id ",
];

export function checkHostileIds(spec: ArmPolicySpec, seed = 4): void {
  const trace: Trace = new Trace();
  const [a, b, ...rest] = HOSTILE_IDS as [string, string, ...string[]];
  trace.push(`${spec.name}: create(arms=[${a}, ${b}])`);
  let P = run(trace, "create with hostile ids", () => spec.create({ seed, arms: [a, b] }));
  const rng = Rng.fromSeed(`hostile:${spec.name}`);
  const live = [a, b];
  const play = (n: number) => {
    for (let t = 0; t < n; t++) {
      const d = run(trace, "select", () => P.select(context(P, rng)));
      if (!live.includes(d.arm)) trace.fail(`select chose ${show(d.arm)}, not a live arm`);
      run(trace, `update (arm ${show(d.arm.slice(0, 20))})`, () => P.update(d, armFeedback(spec, rng)));
    }
  };
  play(10);
  for (const id of rest) {
    trace.push(`addArm(${show(id.slice(0, 20))})`);
    run(trace, "addArm", () => P.addArm(id));
    live.push(id);
    play(8);
    const snap = checkState(P, spec, trace);
    P = run(trace, "fromJSON", () => spec.restore(JSON.parse(snap) as Snapshot));
    if (text(P) !== snap) trace.fail("a snapshot with hostile ids does not restore bit for bit");
    if (show(P.arms) !== show(live)) trace.fail(`restored arms ${show(P.arms)}, expected ${show(live)}`);
    trace.push(`removeArm(${show(id.slice(0, 20))})`);
    run(trace, "removeArm", () => P.removeArm(id));
    live.pop();
  }
  if (Object.getPrototypeOf({}) !== Object.prototype || ({} as Record<string, unknown>).polluted !== undefined) {
    trace.fail("Object.prototype was modified");
  }
}

/**
 * A policy built with maxPending `maxPending` (small: decisions expire; large: nothing expires) restores with the
 * same limit: after a JSON round trip the original and the restored policy give the same result (ok or the same
 * error code) for the same calls, and end with the same snapshot.
 */
export function checkMaxPendingRestore<P extends PolicyBase>(
  name: string,
  make: (maxPending: number) => P,
  restore: (s: Snapshot) => P,
  step: (p: P, rng: Rng) => { select: () => unknown; update: (d: unknown) => void },
  sizes: readonly number[] = [1, 3, 150_000],
): void {
  for (const maxPending of sizes) {
    const trace: Trace = new Trace();
    trace.push(`${name}: maxPending ${maxPending}`);
    const A = run(trace, "create", () => make(maxPending));
    const rngA = Rng.fromSeed(`pending:${name}`);
    const issued: unknown[] = [];
    const first = Math.min(maxPending, 4) + 2;
    for (let i = 0; i < first; i++) issued.push(run(trace, "select", () => step(A, rngA).select()));
    const snap = roundTrip(A.toJSON());
    const B = run(trace, "fromJSON", () => restore(snap as Snapshot));
    if (text(B) !== JSON.stringify(snap)) trace.fail("restored snapshot differs (maxPending not kept?)");
    const rngB = Rng.fromSeed(`pending:${name}:cont`);
    const rngA2 = Rng.fromSeed(`pending:${name}:cont`);
    const more: [unknown, unknown][] = [];
    for (let i = 0; i < 3; i++) more.push([step(A, rngA2).select(), step(B, rngB).select()]);
    const outcome = (p: P, d: unknown, rng: Rng): string => {
      try {
        step(p, rng).update(d);
        return "ok";
      } catch (e) {
        if (!(e instanceof RouteKitError)) trace.fail(`update threw a non-typed error: ${describeError(e)}`);
        return e.code;
      }
    };
    const rA = Rng.fromSeed("fb");
    const rB = Rng.fromSeed("fb");
    const codes: string[] = [];
    for (const d of issued) {
      const a = outcome(A, d, rA);
      const b = outcome(B, d, rB);
      if (a !== b) trace.fail(`late feedback for ${show(d)}: original says ${a}, restored says ${b}`);
      codes.push(a);
    }
    for (const [da, db] of more) {
      const a = outcome(A, da, rA);
      const b = outcome(B, db, rB);
      if (a !== b) trace.fail(`feedback after restore: original says ${a}, restored says ${b}`);
    }
    const expired = codes.filter((c) => c === "DECISION_EXPIRED").length;
    const shouldExpire = Math.max(0, issued.length + 3 - maxPending);
    if (expired !== Math.min(shouldExpire, issued.length)) {
      trace.fail(
        `${expired} of ${issued.length} early decisions expired, expected ${Math.min(shouldExpire, issued.length)} (maxPending ${maxPending})`,
      );
    }
    if (text(A) !== text(B)) trace.fail("original and restored end in different states");
  }
}

/** checkMaxPendingRestore for an arm spec with a raw constructor. */
export function checkMaxPendingArm(
  spec: ArmPolicySpec & { construct?: (o: unknown) => ArmPolicy; baseOptions?: Readonly<Record<string, unknown>> },
): void {
  if (!spec.construct) return;
  const build = spec.construct;
  checkMaxPendingRestore(
    spec.name,
    (maxPending) => build({ ...spec.baseOptions, maxPending }),
    (s) => spec.restore(s),
    (p, rng) => ({
      select: () => p.select(context(p, rng)),
      update: (d) => p.update(d as ArmDecision, armFeedback(spec, rng)),
    }),
  );
}

/** checkMaxPendingRestore for an assortment spec with a raw constructor. */
export function checkMaxPendingAssortment(
  spec: AssortmentPolicySpec & {
    construct?: (o: unknown) => AssortmentPolicy;
    baseOptions?: Readonly<Record<string, unknown>>;
  },
): void {
  if (!spec.construct) return;
  const build = spec.construct;
  checkMaxPendingRestore(
    spec.name,
    (maxPending) => build({ ...spec.baseOptions, maxPending }),
    (s) => spec.restore(s),
    (p, rng) => ({
      select: () => {
        const n = 3;
        return p.select({
          features: rng.fillNormal(new Float64Array(n * p.contextDim), 0, 0.5),
          numItems: n,
          maxSize: 2,
        });
      },
      update: (d) => {
        const dd = d as AssortmentDecision;
        p.update(dd, { choice: dd.items[0] ?? null });
      },
    }),
  );
}

/**
 * checkMaxPendingRestore for a cascade spec with a raw constructor: "select" begins an episode, "update" plays
 * it to the end (next and observe until stop, choose, feedback), so an episode dropped for maxPending fails at
 * its first next() with DECISION_EXPIRED in the original and the restored policy alike.
 */
export function checkMaxPendingCascade(spec: CascadePolicySpec): void {
  if (!spec.construct) return;
  const build = spec.construct;
  const box = (rng: Rng, n: number) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) v[i] = rng.uniformIn(-1, 1);
    return v;
  };
  checkMaxPendingRestore(
    spec.name,
    (maxPending) => build({ ...spec.baseOptions, maxPending }),
    (s) => spec.restore(s),
    (p: CascadePolicy, rng) => ({
      select: () => p.begin(box(rng, p.contextDim)),
      update: (d) => {
        const e = d as string;
        for (let k = 0; k < p.arms.length; k++) {
          const step = p.next(e);
          if ("stop" in step) break;
          p.observe(e, step.query, box(rng, p.outputDim), 0.01 + 0.5 * rng.uniform());
        }
        p.choose(e);
        p.feedback(e, rng.uniform());
      },
    }),
  );
}

/** The Float32Array checks' end: both twins' checked snapshots are identical. */
function sameFinalState<P extends PolicyBase>(
  f64: P,
  f32: P,
  hooks: Parameters<typeof checkState<P>>[1],
  trace: Trace,
): void {
  const a = checkState(f64, hooks, trace);
  const b = checkState(f32, hooks, trace);
  if (a !== b) trace.fail(`Float64Array and Float32Array twins disagree:\n      f64: ${a}\n      f32: ${b}`);
}

/**
 * Float32Array input (what embedding models return) is widened exactly: a twin fed the same values as
 * Float64Arrays makes the same decisions and ends in the same snapshot, bit for bit. Contexts are scaled to norm
 * 0.99 before rounding to float32, so policies that require norm <= 1 take both twins' inputs. Returns the number
 * of rounds compared (0 for a context-free policy).
 */
export function checkFloat32ContextsArm(spec: ArmPolicySpec, rounds = 40, seed = 6): number {
  const trace: Trace = new Trace();
  const arms = ["arm-0", "arm-1", "arm-2"];
  const P = spec.create({ seed, arms });
  const Q = spec.create({ seed, arms });
  if (P.contextDim === 0) return 0;
  trace.push(`${spec.name}: twins from seed ${seed}; P gets Float64Array contexts, Q the same values as Float32Array`);
  const rng = Rng.fromSeed(`float32:${spec.name}`);
  for (let t = 0; t < rounds; t++) {
    const x32 = Float32Array.from(context(P, rng) as Float64Array, (v) => 0.99 * v);
    const x64 = Float64Array.from(x32);
    const dP = run(trace, `P.select(${show(x64)})`, () => P.select(x64));
    const dQ = run(trace, "Q.select(the same values as a Float32Array)", () => Q.select(x32));
    if (show(dP) !== show(dQ)) trace.fail(`t=${t}: Float64Array input decided ${show(dP)}, Float32Array ${show(dQ)}`);
    const fb = armFeedback(spec, rng);
    run(trace, "P.update", () => P.update(dP, fb));
    run(trace, "Q.update", () => Q.update(dQ, fb));
  }
  sameFinalState(P, Q, spec, trace);
  return rounds;
}

/** The same for an assortment policy's feature rows (the query's `features` as a Float32Array). */
export function checkFloat32FeaturesAssortment(spec: AssortmentPolicySpec, rounds = 30, seed = 6): number {
  const trace: Trace = new Trace();
  const P = spec.create({ seed });
  const Q = spec.create({ seed });
  const d = P.contextDim;
  trace.push(`${spec.name}: twins from seed ${seed}; P gets Float64Array features, Q the same values as Float32Array`);
  const rng = Rng.fromSeed(`float32:${spec.name}`);
  for (let t = 0; t < rounds; t++) {
    const n = 2 + rng.int(Math.max(1, (spec.maxItems ?? 8) - 1));
    const f32 = Float32Array.from(rng.fillNormal(new Float64Array(n * d), 0, 0.5));
    const maxSize = Math.min(1 + rng.int(n), spec.maxK ?? n);
    const dP = run(trace, "P.select", () => P.select({ features: Float64Array.from(f32), numItems: n, maxSize }));
    const dQ = run(trace, "Q.select(Float32Array features)", () =>
      Q.select({ features: f32 as unknown as Float64Array, numItems: n, maxSize }),
    );
    if (show(dP) !== show(dQ))
      trace.fail(`t=${t}: Float64Array features offered ${show(dP)}, Float32Array ${show(dQ)}`);
    const fb = { choice: dP.items.length > 0 && rng.uniform() < 0.75 ? (dP.items[0] as number) : null };
    run(trace, "P.update", () => P.update(dP, fb));
    run(trace, "Q.update", () => Q.update(dQ, fb));
  }
  sameFinalState(P, Q, spec, trace);
  return rounds;
}
