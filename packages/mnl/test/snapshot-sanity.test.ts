/**
 * Resealed absurd values in MNL snapshots are SNAPSHOT_CORRUPT naming the field, the value and the rule, and leave the
 * policy and the input as they were; real snapshots of long seeded runs (pending decisions, revenues, features near
 * the norm bound, contextDim past the unrolled kernels) all restore bit for bit.
 */
import { type AssortmentDecision, decodeF64, encodeF64, Rng, type Snapshot } from "@routekit/core";
import { type SnapshotEdit, tamperedRestoreOutcome, tamperedSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { type MnlPolicyBase, OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";
import { randomQuery, sampleChoice } from "./helpers.js";

/** Sets entry k of the base64 Float64 field o[key]. */
function setEntry(o: Record<string, unknown>, key: string, k: number, v: number): void {
  const a = decodeF64(o[key] as string, key);
  a[k] = v;
  o[key] = encodeF64(a);
}

type Restore = (s: Snapshot) => MnlPolicyBase;

/**
 * `rounds` rounds of select and (late, shuffled) feedback from a fixed MNL model, with revenues every third round and
 * every 16th query scaled to squared norm near the bound (1e98); snapshots at every 25th round restore bit for bit.
 * Returns the policy with pending decisions.
 */
function run(p: MnlPolicyBase, restore: Restore, seed: number, rounds: number, d: number): number {
  const rng = Rng.fromSeed(`mnl-sanity:${seed}`);
  const w = Float64Array.from({ length: d }, () => rng.normal());
  const pending: { q: ReturnType<typeof randomQuery> & { big?: boolean }; dec: AssortmentDecision }[] = [];
  let checked = 0;
  for (let t = 0; t < rounds; t++) {
    const q: ReturnType<typeof randomQuery> & { big?: boolean } = randomQuery(
      rng,
      6,
      d,
      Math.min(3, p.maxSize),
      t % 3 === 0,
    );
    if (t % 16 === 5) {
      q.big = true;
      const f = q.features as Float64Array;
      for (let i = 0; i < f.length; i++) f[i] = (f[i] as number) * 1e49;
    }
    pending.push({ q, dec: p.select(q) });
    while (pending.length > 4 || (pending.length > 0 && rng.uniform() < 0.3)) {
      const k = rng.int(pending.length);
      const { q: qk, dec } = pending.splice(k, 1)[0] as (typeof pending)[number];
      if (t % 11 === 0) p.discard(dec);
      else if (qk.big) p.update(dec, { choice: dec.items[0] ?? null });
      else p.update(dec, { choice: sampleChoice(rng, qk, d, w, dec.items, p.v0) });
    }
    if (t % 25 === 24) {
      const text = JSON.stringify(p.toJSON());
      expect(JSON.stringify(restore(JSON.parse(text)).toJSON())).toBe(text);
      checked++;
    }
  }
  expect(p.pendingDecisions).toBeGreaterThan(0);
  return checked;
}

const SEEDS = [1, 2, 3];
const CASES: [string, (seed: number) => MnlPolicyBase, Restore, number, number][] = [
  ["OFU-MNL+ paper", () => new OfuMnlPlus({ contextDim: 3, maxSize: 3 }), OfuMnlPlus.fromJSON, 3, 400],
  [
    "OFU-MNL+ authors-nonuniform",
    () => new OfuMnlPlus({ contextDim: 3, maxSize: 3, preset: "authors-nonuniform" }),
    OfuMnlPlus.fromJSON,
    3,
    400,
  ],
  [
    "OFU-MNL+ practical, d = 10 (factor utilities)",
    () => new OfuMnlPlus({ contextDim: 10, maxSize: 3, preset: "practical" }),
    OfuMnlPlus.fromJSON,
    10,
    200,
  ],
  ["UCB-MNL", () => new UcbMnl({ contextDim: 3, maxSize: 3 }), UcbMnl.fromJSON, 3, 200],
  [
    "TS-MNL theory, 2 samples",
    (seed) => new TsMnl({ contextDim: 4, maxSize: 3, seed, preset: "theory", samples: 2 }),
    TsMnl.fromJSON,
    4,
    200,
  ],
];

describe("real snapshots of long seeded runs restore (the checks refuse no reachable state)", () => {
  it.each(CASES)("%s", (_name, make, restore, d, rounds) => {
    let checked = 0;
    for (const seed of SEEDS) checked += run(make(seed), restore, seed, rounds, d);
    expect(checked).toBeGreaterThanOrEqual(3 * 8);
  });
});

/** A policy after 40 rounds with pending decisions, its snapshot and that snapshot's text. */
function trained<P extends MnlPolicyBase>(p: P, restore: Restore): { p: P; snap: Snapshot; text: string } {
  run(p, restore, 9, 40, p.contextDim);
  const snap = p.toJSON();
  return { p, snap, text: JSON.stringify(snap) };
}

/** Refused with `pattern`, the policy and the input unchanged (the refused input is also restored into nothing). */
function expectRefused(
  t: { p: MnlPolicyBase; snap: Snapshot; text: string },
  restore: Restore,
  edit: SnapshotEdit,
  pattern: RegExp,
): void {
  expect(tamperedRestoreOutcome(t.p, t.snap, restore, edit)).toMatch(pattern);
  expect(JSON.stringify(t.p.toJSON())).toBe(t.text);
}

describe("OFU-MNL+: semantic checks at restore name the field, the value and the rule", () => {
  const t = trained(new OfuMnlPlus({ contextDim: 3, maxSize: 3 }), OfuMnlPlus.fromJSON);
  it("a Cholesky factor with a non-positive diagonal entry", () => {
    expectRefused(
      t,
      OfuMnlPlus.fromJSON,
      (st) => setEntry(st, "L", 4, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field L diagonal entry 1 is -1e\+308; a Cholesky factor has a positive diagonal$/,
    );
  });
  it("a factor entry above the diagonal", () => {
    expectRefused(
      t,
      OfuMnlPlus.fromJSON,
      (st) => setEntry(st, "L", 2, 0.5),
      /^SNAPSHOT_CORRUPT: snapshot field L\[0, 2\] is 0.5; a lower-triangular Cholesky factor is 0 above its diagonal$/,
    );
  });
  it("a pending decision's feature row above the norm bound", () => {
    expectRefused(
      t,
      OfuMnlPlus.fromJSON,
      (st) => setEntry(st.ledger.entries[0][1], "x", 0, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field pending.x row 0 \(squared norm\) is Infinity; a feature row has squared norm <= 1e\+100/,
    );
  });
});

describe.each([
  ["UCB-MNL", new UcbMnl({ contextDim: 3, maxSize: 3 }), UcbMnl.fromJSON],
  ["TS-MNL", new TsMnl({ contextDim: 3, maxSize: 3, seed: 4 }), TsMnl.fromJSON],
] as const)("%s: semantic checks at restore name the field, the value and the rule", (_n, policy, restore) => {
  const t = trained(policy as MnlPolicyBase, restore as Restore);
  it("a Cholesky factor of V with a non-positive diagonal entry", () => {
    expectRefused(
      t,
      restore as Restore,
      (st) => setEntry(st, "LV", 8, 0),
      /^SNAPSHOT_CORRUPT: snapshot field LV diagonal entry 2 is 0; a Cholesky factor has a positive diagonal$/,
    );
  });
  it("a cached Hessian entry below the diagonal", () => {
    expectRefused(
      t,
      restore as Restore,
      (st) => setEntry(st.mle, "H", 3, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field mle.H\[1, 0\] is -1e\+308; the cached Hessian keeps its upper triangle only/,
    );
  });
  it("a history row above the norm bound", () => {
    expectRefused(
      t,
      restore as Restore,
      (st) => setEntry(st.history, "x", 4, 2e50),
      /^SNAPSHOT_CORRUPT: snapshot field history.x row 1 \(squared norm\) is 4.*e\+100; a feature row has squared norm <= 1e\+100/,
    );
  });
});

describe("UCB-MNL and TS-MNL: a resealed theta = -1e308 loads and recovers (the refit restarts from 0)", () => {
  const CASES_THETA: [string, () => UcbMnl | TsMnl, Restore][] = [
    ["UCB-MNL", () => new UcbMnl({ contextDim: 3, maxSize: 3 }), UcbMnl.fromJSON],
    ["TS-MNL", () => new TsMnl({ contextDim: 3, maxSize: 3, seed: 1 }), TsMnl.fromJSON],
  ];
  it.each(CASES_THETA)("%s", (_name, make, restore) => {
    const rng = Rng.fromSeed("theta-restart");
    const w = Float64Array.from({ length: 3 }, () => rng.normal());
    const play = (q: MnlPolicyBase, r: Rng, n: number) => {
      for (let t = 0; t < n; t++) {
        const qu = randomQuery(r, 6, 3, 3);
        const dec = q.select(qu);
        q.update(dec, { choice: sampleChoice(r, qu, 3, w, dec.items, q.v0) });
      }
    };
    const p = make();
    play(p, rng, 60);
    const theta = (q: MnlPolicyBase) => decodeF64((q.toJSON().state as { theta: string }).theta, "theta");
    const bad = restore(tamperedSnapshot(p.toJSON(), (st) => setEntry(st, "theta", 0, -1e308)));
    const twin = restore(p.toJSON());
    const r1 = Rng.fromSeed("after");
    const r2 = Rng.fromSeed("after");
    play(bad, r1, 1);
    play(twin, r2, 1);
    // Before the restart every later refit backtracked to a step of 2^-30: theta stayed at -1e308 for good.
    for (const v of theta(bad)) expect(Math.abs(v)).toBeLessThan(10);
    play(bad, r1, 20);
    play(twin, r2, 20);
    const a = theta(bad);
    const b = theta(twin);
    for (let k = 0; k < 3; k++) expect(Math.abs((a[k] as number) - (b[k] as number))).toBeLessThan(0.5);
  });
});
