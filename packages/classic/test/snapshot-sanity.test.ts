/**
 * Semantic checks at restore for LinUCB's pending decisions: a resealed snapshot whose pending context x has a squared
 * norm that overflows (-1e308 in one entry) is refused with SNAPSHOT_CORRUPT naming field, value and rule, since select
 * refuses such a context and no pending decision can hold one; every real snapshot (long seeded runs, contexts of
 * every magnitude select accepts, arms removed and re-added, decisions pending) still restores bit for bit.
 */
import { decodeF64, encodeF64, Rng, RouteKitError, type Snapshot } from "@routekit/core";
import { resealSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { LinUCBDisjoint, LinUCBShared } from "../src/index.js";

type Linucb = LinUCBDisjoint | LinUCBShared;
const CLASSES: [string, (seed: number, ridge?: number) => Linucb, (s: unknown) => Linucb][] = [
  [
    "LinUCBDisjoint",
    (seed, ridge) => new LinUCBDisjoint({ arms: ["a", "b", "c"], contextDim: 4, seed, ridge }),
    LinUCBDisjoint.fromJSON,
  ],
  [
    "LinUCBShared",
    (seed, ridge) => new LinUCBShared({ arms: ["a", "b", "c"], contextDim: 4, seed, ridge }),
    LinUCBShared.fromJSON,
  ],
];

/**
 * `rounds` selects with contexts scaled by up to `scale`, feedback four rounds late (an update refused as NUMERICAL
 * leaves its decision pending); "b" removed and re-added.
 */
function run(p: Linucb, seed: number, rounds: number, scale: number): Linucb {
  const rng = Rng.fromSeed(`linucb-sanity:${seed}`);
  const pending: { id: string }[] = [];
  for (let t = 0; t < rounds; t++) {
    const x = rng.fillNormal(new Float64Array(4), 0, 1);
    const s = scale ** rng.uniform();
    for (let i = 0; i < 4; i++) x[i] = (x[i] as number) * s;
    pending.push(p.select(x));
    if (pending.length > 4) {
      const d = pending.shift() as { id: string };
      try {
        p.update(d, { reward: rng.uniform() });
      } catch (e) {
        // A huge context can make the ridge step overflow: NUMERICAL, nothing applied, the decision still pending.
        if (!(e instanceof RouteKitError && e.code === "NUMERICAL")) throw e;
      }
    }
    if (t === Math.floor(rounds / 3)) p.removeArm("b");
    if (t === Math.floor(rounds / 2)) p.addArm("b");
  }
  return p;
}

describe.each(CLASSES)("%s", (_name, make, restore) => {
  it("a pending context whose squared norm overflows (x[1] = -1e308) is refused, naming field, value and rule", () => {
    const p = run(make(1), 1, 40, 1);
    const snap = p.toJSON();
    const before = JSON.stringify(snap);
    const copy = JSON.parse(before) as Snapshot & { state: { ledger: { entries: [number, { x: string }][] } } };
    const payload = (copy.state.ledger.entries[0] as [number, { x: string }])[1];
    const x = decodeF64(payload.x, "x");
    x[1] = -1e308;
    payload.x = encodeF64(x);
    let err: unknown;
    try {
      restore(resealSnapshot(copy));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RouteKitError);
    expect((err as RouteKitError).code).toBe("SNAPSHOT_CORRUPT");
    expect((err as RouteKitError).message).toBe(
      "snapshot field ledger x (squared norm) is Infinity; select refuses a context whose squared norm overflows",
    );
    expect(JSON.stringify(p.toJSON())).toBe(before);
    expect(JSON.stringify(snap)).toBe(before);
  });
  it("every real snapshot restores bit for bit: several seeds, long runs, contexts up to 1e150, a tiny ridge", () => {
    let checked = 0;
    for (const [seed, rounds, scale, ridge] of [
      [1, 1500, 1, undefined],
      [2, 1500, 1e3, undefined],
      [3, 1000, 1e150, undefined],
      [4, 1000, 1, 1e-6],
    ] as const) {
      const p = run(make(seed, ridge), seed, rounds, scale);
      const text = JSON.stringify(p.toJSON());
      expect(
        (JSON.parse(text) as { state: { ledger: { entries: unknown[] } } }).state.ledger.entries.length,
      ).toBeGreaterThanOrEqual(4);
      expect(JSON.stringify(restore(JSON.parse(text)).toJSON()), `seed ${seed}`).toBe(text);
      checked++;
    }
    expect(checked).toBe(4);
  });
});
