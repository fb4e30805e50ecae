/**
 * Resealed absurd values in cascade snapshots are SNAPSHOT_CORRUPT naming the field, the value and the rule, and leave
 * the policy and the input as they were; real snapshots of long seeded runs (open episodes in every state, boxes
 * removed and added again, contexts and outputs near the norm bound, costs up to the top of their range) all restore
 * bit for bit.
 */
import { type CascadePolicy, decodeF64, encodeF64, Rng, RouteKitError, type Snapshot } from "@routekit/core";
import { type SnapshotEdit, tamperedRestoreOutcome } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade, WeitzmanOracle } from "../src/index.js";

/** Sets entry k of the base64 Float64 field o[key]. */
function setEntry(o: Record<string, unknown>, key: string | number, k: number, v: number): void {
  const a = decodeF64(o[key] as string, String(key));
  a[k] = v;
  o[key] = encodeF64(a);
}

type Restore = (s: Snapshot) => CascadePolicy;
const ARMS = ["a", "b", "c"];
const dims = { contextDim: 2, outputDim: 3 };

/**
 * `episodes` episodes, up to three open at once and advanced in random order (so snapshots hold episodes awaiting an
 * output, stopped, chosen), a box removed and added again every 37 episodes (when `dynamic`), every 13th context and
 * output scaled to squared norm near the bound (1e98), costs in [0, 1e6] with a few at the top. Snapshots every 10th
 * episode restore bit for bit. Returns how many were checked.
 */
function run(p: CascadePolicy, restore: Restore, seed: number, episodes: number, dynamic: boolean): number {
  const rng = Rng.fromSeed(`cascade-sanity:${seed}`);
  const vec = (n: number, big: boolean) =>
    Float64Array.from({ length: n }, () => rng.uniformIn(-1, 1) * (big ? 5e48 : 1));
  const open: string[] = [];
  let checked = 0;
  const advance = (e: string): boolean => {
    const step = p.next(e);
    if ("query" in step) {
      const cost = rng.uniform() < 0.02 ? 1e6 : rng.uniform() < 0.1 ? 0 : 0.2 * rng.uniform();
      p.observe(e, step.query, vec(p.outputDim, rng.int(13) === 0), cost);
      return false;
    }
    try {
      p.choose(e);
    } catch (err) {
      if (err instanceof RouteKitError && err.code === "INVALID_STATE") {
        p.discard(e);
        return true;
      }
      throw err;
    }
    if (rng.uniform() < 0.1) p.discard(e);
    else p.feedback(e, rng.uniformIn(-0.5, 1.5));
    return true;
  };
  for (let t = 0; t < episodes; t++) {
    open.push(p.begin(vec(p.contextDim, t % 13 === 6)));
    while (open.length > 3 || (open.length > 0 && rng.uniform() < 0.6)) {
      const k = rng.int(open.length);
      try {
        if (advance(open[k] as string)) open.splice(k, 1);
      } catch (err) {
        // Every box this episode planned was removed: it can only be discarded.
        if (!(err instanceof RouteKitError && err.code === "INVALID_STATE")) throw err;
        p.discard(open[k] as string);
        open.splice(k, 1);
      }
    }
    if (dynamic && t % 37 === 20) {
      const id = ARMS[rng.int(ARMS.length)] as string;
      p.removeArm(id);
      if (t % 74 === 20) {
        const s = JSON.stringify(p.toJSON());
        expect(JSON.stringify(restore(JSON.parse(s)).toJSON())).toBe(s);
      }
      p.addArm(id);
    }
    if (t % 10 === 9) {
      const text = JSON.stringify(p.toJSON());
      expect(JSON.stringify(restore(JSON.parse(text)).toJSON())).toBe(text);
      checked++;
    }
  }
  return checked;
}

const SEEDS = [1, 2, 3];
const CASES: [string, (seed: number) => CascadePolicy, Restore, number, boolean][] = [
  [
    "COSMOS known reward",
    (seed) => new Cosmos({ arms: ARMS, seed, ...dims, rewardParameter: [1, 0, 0], indexLink: "linear" }),
    Cosmos.fromJSON,
    300,
    true,
  ],
  [
    "COSMOS learned, intercept",
    (seed) => new Cosmos({ arms: ARMS, seed, ...dims, rewardIntercept: true }),
    Cosmos.fromJSON,
    300,
    true,
  ],
  [
    "COSMOS logistic, geometric refits",
    (seed) => new Cosmos({ arms: ARMS, seed, ...dims, rewardLink: "logistic", refit: "geometric", rewardBound: 5 }),
    Cosmos.fromJSON,
    200,
    true,
  ],
  [
    "COSMOS theory radii",
    (seed) =>
      new Cosmos({
        arms: ARMS,
        seed,
        ...dims,
        rewardBound: 3,
        radiusMode: "theory",
        theory: { kappa: 0.05 },
        horizon: 1000,
      }),
    Cosmos.fromJSON,
    200,
    true,
  ],
  ["QueryAll", (seed) => new QueryAll({ arms: ARMS, seed, ...dims, exploration: 0.5 }), QueryAll.fromJSON, 300, true],
  [
    "ThresholdCascade",
    (seed) => new ThresholdCascade({ arms: ARMS, seed, ...dims, threshold: 0.4 }),
    ThresholdCascade.fromJSON,
    300,
    true,
  ],
  ["OneShot", (seed) => new OneShot({ arms: ARMS, seed, ...dims }), OneShot.fromJSON, 400, true],
  [
    "WeitzmanOracle",
    (seed) =>
      new WeitzmanOracle({
        arms: ARMS,
        seed,
        ...dims,
        rewardParameter: [1, 0, 0],
        indexParameters: Object.fromEntries(ARMS.map((a, i) => [a, [0.5 - 0.1 * i, 0.1, 0]])),
      }),
    WeitzmanOracle.fromJSON,
    200,
    false,
  ],
];

describe("real snapshots of long seeded runs restore (the checks refuse no reachable state)", () => {
  it.each(CASES)("%s", (_name, make, restore, episodes, dynamic) => {
    let checked = 0;
    for (const seed of SEEDS) checked += run(make(seed), restore, seed, episodes, dynamic);
    expect(checked).toBeGreaterThanOrEqual(3 * 20);
  });
});

/** A policy after 30 episodes with episodes open, its snapshot and that snapshot's text. */
function trained<P extends CascadePolicy>(p: P, restore: Restore): { p: P; snap: Snapshot; text: string } {
  run(p, restore, 9, 30, false);
  for (let k = 0; k < 2; k++) {
    const e = p.begin(Float64Array.of(0.1, 0.2));
    const step = p.next(e);
    if ("query" in step) p.observe(e, step.query, Float64Array.of(0.3, 0.1, 0.2), 0.1);
  }
  const snap = p.toJSON();
  return { p, snap, text: JSON.stringify(snap) };
}

/** Refused with `pattern`; the policy and the input unchanged. */
function expectRefused(
  t: { p: CascadePolicy; snap: Snapshot; text: string },
  restore: Restore,
  edit: SnapshotEdit,
  pattern: RegExp,
): void {
  expect(tamperedRestoreOutcome(t.p, t.snap, restore, edit)).toMatch(pattern);
  expect(JSON.stringify(t.p.toJSON())).toBe(t.text);
}

/** The payload of the last open episode in a snapshot state. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON
const lastEpisode = (st: Record<string, any>) => st.ledger.entries[st.ledger.entries.length - 1][1];

describe("COSMOS: semantic checks at restore name the field, the value and the rule", () => {
  const t = trained(new Cosmos({ arms: ARMS, seed: 1, ...dims, rewardIntercept: true }), Cosmos.fromJSON);
  it("an open episode's context above the norm bound (it made V infinite once learned from)", () => {
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(lastEpisode(st), "context", 0, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field episode.context \(squared norm\) is Infinity; a context or output has squared norm <= 1e\+100/,
    );
  });
  it("an open episode's output features above the norm bound (NaN in the index data once learned from)", () => {
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(lastEpisode(st).features, 0, 1, 2e50),
      /^SNAPSHOT_CORRUPT: snapshot field episode.features\[0\] \(squared norm\) is 4.*e\+100; a context or output/,
    );
  });
  it("an open episode's cost outside [0, 1e6]", () => {
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(lastEpisode(st), "costs", 0, 2e6),
      /^SNAPSHOT_CORRUPT: snapshot field episode.costs\[0\] is 2000000; a cost is in \[0, 1000000\]$/,
    );
  });
  it("a box's sample cost below 0", () => {
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(st.boxes[1], "cost", 0, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field boxes\[1\].cost\[0\] is -1e\+308; a cost is in \[0, 1000000\]$/,
    );
  });
  it("V's diagonal below indexRidge and V^-1's not positive", () => {
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(st.boxes[0], "V", 4, 0.5),
      /^SNAPSHOT_CORRUPT: snapshot field boxes\[0\].V diagonal entry 1 is 0.5; V = indexRidge I \+ sum psi psi\^T has a diagonal >= indexRidge \(1\)$/,
    );
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(st.boxes[2], "Vinv", 0, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field boxes\[2\].Vinv diagonal entry 0 is -1e\+308; an inverse Gram matrix has a positive diagonal$/,
    );
  });
  it("the reward design's diagonal, and its inverse's, not positive", () => {
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(st.reward, "PhiInv", 5, 0),
      /^SNAPSHOT_CORRUPT: snapshot field reward.PhiInv diagonal entry 1 is 0; an inverse Gram matrix has a positive diagonal$/,
    );
    expectRefused(
      t,
      Cosmos.fromJSON,
      (st) => setEntry(st.reward, "Phi", 0, -1),
      /^SNAPSHOT_CORRUPT: snapshot field reward.Phi diagonal entry 0 is -1; a Gram matrix ridge I \+ sum phi phi\^T has a positive diagonal$/,
    );
  });
});

describe("OneShot: semantic checks at restore", () => {
  const t = trained(new OneShot({ arms: ARMS, seed: 1, ...dims, ridge: 2 }), OneShot.fromJSON);
  it("A's diagonal below the ridge, A^-1's not positive (it was not checked: a negative variance read as 0)", () => {
    expectRefused(
      t,
      OneShot.fromJSON,
      (st) => setEntry(st.states[0], "A", 0, 1),
      /^SNAPSHOT_CORRUPT: snapshot field states\[0\].A diagonal entry 0 is 1; A = ridge I \+ sum psi psi\^T has a diagonal >= ridge \(2\)$/,
    );
    expectRefused(
      t,
      OneShot.fromJSON,
      (st) => setEntry(st.states[1], "Ainv", 8, -1e308),
      /^SNAPSHOT_CORRUPT: snapshot field states\[1\].Ainv diagonal entry 2 is -1e\+308; an inverse Gram matrix has a positive diagonal$/,
    );
  });
  it("an open episode's context above the norm bound", () => {
    expectRefused(
      t,
      OneShot.fromJSON,
      (st) => setEntry(lastEpisode(st), "context", 1, 1e60),
      /^SNAPSHOT_CORRUPT: snapshot field episode.context \(squared norm\) is [0-9.]+e\+1[12][0-9]; a context or output/,
    );
  });
});
