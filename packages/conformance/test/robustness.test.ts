/**
 * Snapshot corruption and concurrent feedback, for every policy.
 * - Corrupted, truncated, re-typed or foreign snapshots throw RouteKitError (SNAPSHOT_* for the
 *   envelope); a mutated snapshot that still loads must give a policy that works without NaN.
 * - Many async request handlers (selects and late feedback interleaved through microtasks, timers
 *   and setImmediate; for cascades whole episodes with awaits between every call) end in the same state as the
 *   same calls applied in order.
 */
import { type ArmPolicy, type AssortmentPolicy, type CascadePolicy, Rng } from "@routekit/core";
import {
  absurdValueCorruptions,
  checkConcurrentArm,
  checkConcurrentAssortment,
  checkConcurrentCascade,
  checkCorruptions,
  checkRestoreFromForeignObjects,
  corruptSnapshot,
  longHorizon,
} from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { cascadePolicies } from "./cascade-policies.js";
import { armPolicies, mnlPolicies } from "./policies.js";
import { armResumedSmoke, assortmentResumedSmoke, cascadeResumedSmoke, query } from "./resumed-smoke.js";

const CORRUPTIONS = longHorizon(60, 600);

/** A spec of another class than specs[i] (the next one in the list whose kind differs). */
function otherKind<S extends { name: string }>(specs: readonly S[], i: number): S {
  const kind = (s: S) => s.name.split("-").slice(0, 2).join("-");
  for (let k = 1; k < specs.length; k++) {
    const s = specs[(i + k) % specs.length]!;
    if (kind(s).split("/")[1] !== kind(specs[i]!).split("/")[1]) return s;
  }
  throw new Error("need two policy classes");
}

/** A cost within the conformance entry's `costs` range when the policy learns costs (costs are required there). */
let armCost: readonly [number, number] | undefined;
const fbOf = (reward: number) =>
  armCost ? { reward, cost: armCost[0] + reward * (armCost[1] - armCost[0]) } : { reward };
function armHistory(p: ArmPolicy, seed: number): void {
  const rng = Rng.fromSeed(`history:${seed}`);
  const ctx = () => (p.contextDim ? rng.fillNormal(new Float64Array(p.contextDim), 0, 0.5) : undefined);
  const pend = [];
  for (let t = 0; t < 12; t++) pend.push(p.select(ctx()));
  for (let t = 0; t < 8; t++) p.update(pend[t] as { id: string }, fbOf(rng.uniform()));
}

describe.each(armPolicies.map((s, i) => [s.name, s, i] as const))("%s", (_n, spec, i) => {
  it("rejects corrupted, truncated and foreign snapshots, never half-loads", () => {
    armCost = spec.costs;
    const p = spec.create({ seed: 7, arms: ["arm-0", "arm-1", "arm-2"] });
    armHistory(p, 7);
    const other = otherKind(armPolicies, i)
      .create({ seed: 1, arms: ["arm-0"] })
      .toJSON();
    // The resumed smoke (pending decisions settled, outputs checked, a typed error on a valid call is a break).
    const smoke = armResumedSmoke(spec);
    smoke.real(spec.restore(p.toJSON()));
    const tally = checkCorruptions(
      spec.name,
      corruptSnapshot(p.toJSON(), other, Rng.fromSeed(`corrupt:${spec.name}`), CORRUPTIONS),
      (s) => spec.restore(s),
      smoke.corrupted,
    );
    expect(tally.rejected).toBeGreaterThanOrEqual(11);
  });
  it("resealed absurd values (-1e308 in every field) are refused or load into a policy that works", () => {
    armCost = spec.costs;
    const p = spec.create({ seed: 7, arms: ["arm-0", "arm-1", "arm-2"] });
    armHistory(p, 7);
    const before = JSON.stringify(p.toJSON());
    const snap = p.toJSON();
    const smoke = armResumedSmoke(spec);
    smoke.real(spec.restore(snap)); // the real snapshot passes the smoke
    const tally = checkCorruptions(spec.name, absurdValueCorruptions(snap), (s) => spec.restore(s), smoke.corrupted);
    expect(tally.rejected).toBeGreaterThan(0);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    expect(JSON.stringify(snap)).toBe(before);
  });
  it("restores from structuredClone, prototype-less and frozen copies, and never writes to its input", () => {
    armCost = spec.costs;
    const p = spec.create({ seed: 7, arms: ["arm-0", "arm-1", "arm-2"] });
    armHistory(p, 7);
    expect(checkRestoreFromForeignObjects(spec.name, p, (s) => spec.restore(s))).toBe(4);
  });
  it("concurrent handlers with late feedback = the same calls in order", async () => {
    const r = await checkConcurrentArm(spec, { handlers: 150 });
    expect(r.pending).toBeGreaterThan(0);
  });
});

/** Ten selects (several items offered) and seven updates: pending decisions stay in the snapshot. */
function assortmentHistory(p: AssortmentPolicy): void {
  const rng = Rng.fromSeed("mnl-history");
  const pend = [];
  for (let t = 0; t < 10; t++) pend.push(p.select(query(rng)));
  for (let t = 0; t < 7; t++) p.update(pend[t]!, { choice: pend[t]!.items[0] ?? null });
}

/** Six episodes, the last two left open (one mid-query), as the snapshot a server writes mid-traffic. */
function cascadeHistory(p: CascadePolicy, seed: string): void {
  const rng = Rng.fromSeed(seed);
  const box = (n: number) => Float64Array.from({ length: n }, () => rng.uniformIn(-1, 1));
  for (let t = 0; t < 6; t++) {
    const e = p.begin(box(p.contextDim));
    for (let k = 0; k < 3; k++) {
      const step = p.next(e);
      if (!("query" in step)) break;
      p.observe(e, step.query, box(p.outputDim), 0.05 + 0.1 * rng.uniform());
    }
    if (t < 4) {
      p.choose(e);
      p.feedback(e, rng.uniform());
    }
  }
}

describe.each(mnlPolicies.map((s, i) => [s.name, s, i] as const))("%s", (_n, spec, i) => {
  it("rejects corrupted, truncated and foreign snapshots, never half-loads", () => {
    const p = spec.create({ seed: 7 });
    const rng = Rng.fromSeed("mnl-history");
    const pend = [];
    for (let t = 0; t < 10; t++) pend.push(p.select(query(rng)));
    for (let t = 0; t < 7; t++) p.update(pend[t]!, { choice: pend[t]!.items[0] ?? null });
    const other = otherKind(mnlPolicies, i).create({ seed: 1 }).toJSON();
    const smoke = assortmentResumedSmoke(spec.name, (s) => spec.restore(s));
    smoke.real(spec.restore(p.toJSON()) as AssortmentPolicy);
    const tally = checkCorruptions(
      spec.name,
      corruptSnapshot(p.toJSON(), other, Rng.fromSeed(`corrupt:${spec.name}`), CORRUPTIONS),
      (s) => spec.restore(s) as AssortmentPolicy,
      smoke.corrupted,
    );
    expect(tally.rejected).toBeGreaterThanOrEqual(11);
  });
  it("resealed absurd values (-1e308 in every field) are refused or load into a policy that works", () => {
    const p = spec.create({ seed: 7 });
    assortmentHistory(p);
    const snap = p.toJSON();
    const before = JSON.stringify(snap);
    const smoke = assortmentResumedSmoke(spec.name, (s) => spec.restore(s));
    smoke.real(spec.restore(snap) as AssortmentPolicy); // the real snapshot passes the smoke
    const tally = checkCorruptions(
      spec.name,
      absurdValueCorruptions(snap),
      (s) => spec.restore(s) as AssortmentPolicy,
      smoke.corrupted,
    );
    expect(tally.rejected).toBeGreaterThan(0);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    expect(JSON.stringify(snap)).toBe(before);
  });
  it("restores from structuredClone, prototype-less and frozen copies, and never writes to its input", () => {
    const p = spec.create({ seed: 7 });
    const rng = Rng.fromSeed("mnl-history");
    const pend = [];
    for (let t = 0; t < 10; t++) pend.push(p.select(query(rng)));
    for (let t = 0; t < 7; t++) p.update(pend[t]!, { choice: pend[t]!.items[0] ?? null });
    expect(checkRestoreFromForeignObjects(spec.name, p, (s) => spec.restore(s))).toBe(4);
  });
  it("concurrent handlers with late feedback = the same calls in order", async () => {
    const r = await checkConcurrentAssortment(spec, { handlers: 150 });
    expect(r.pending).toBeGreaterThan(0);
  });
});

describe.each(cascadePolicies.map((s) => [s.name, s] as const))("%s", (_n, spec) => {
  it("resealed absurd values (-1e308 in every field) are refused or load into a policy that works", () => {
    const p = spec.create({ seed: 7, arms: ["a", "b", "c"] });
    cascadeHistory(p, "cascade-history");
    const snap = p.toJSON();
    const before = JSON.stringify(snap);
    const smoke = cascadeResumedSmoke(spec.name, (s) => spec.restore(s));
    smoke.real(spec.restore(snap)); // the real snapshot passes the smoke
    const tally = checkCorruptions(spec.name, absurdValueCorruptions(snap), (s) => spec.restore(s), smoke.corrupted);
    expect(tally.rejected).toBeGreaterThan(0);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    expect(JSON.stringify(snap)).toBe(before);
  });
  it("restores from structuredClone, prototype-less and frozen copies (episodes open), never writes to its input", () => {
    const p = spec.create({ seed: 7, arms: ["a", "b", "c"] });
    cascadeHistory(p, "cascade-history");
    expect(checkRestoreFromForeignObjects(spec.name, p, (s) => spec.restore(s))).toBe(4);
  });
  it("concurrent episodes with awaits between every call, boxes added and removed = the same calls in order", async () => {
    const r = await checkConcurrentCascade(spec, { handlers: 150 });
    expect(r.pending).toBeGreaterThan(0); // dropped feedback leaves chosen episodes open
  });
});
