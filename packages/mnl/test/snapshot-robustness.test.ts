import { type AssortmentPolicy, isRouteKitError, makeSnapshot, Rng, type Snapshot } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { MAX_FEATURE_SQUARED_NORM, OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";
import { ChoiceHistory } from "../src/mle.js";
import { randomQuery } from "./helpers.js";

const d = 3;
const K = 4;
const specs: [string, () => AssortmentPolicy, (s: Snapshot) => AssortmentPolicy][] = [
  ["ofu-mnl-plus", () => new OfuMnlPlus({ contextDim: d, maxSize: K }), OfuMnlPlus.fromJSON],
  [
    "ofu-mnl-plus practical",
    () => new OfuMnlPlus({ contextDim: d, maxSize: K, preset: "practical" }),
    OfuMnlPlus.fromJSON,
  ],
  ["ucb-mnl", () => new UcbMnl({ contextDim: d, maxSize: K }), UcbMnl.fromJSON],
  ["ts-mnl", () => new TsMnl({ contextDim: d, maxSize: K, seed: 3 }), TsMnl.fromJSON],
];

const text = (p: AssortmentPolicy) => JSON.stringify(p.toJSON());
const round = (p: AssortmentPolicy, rng: Rng) => {
  const dec = p.select(randomQuery(rng, 5, d, K, rng.uniform() < 0.5));
  p.update(dec, { choice: dec.items.length > 0 && rng.uniform() < 0.7 ? (dec.items[0] as number) : null });
};

describe.each(specs)("%s", (_name, create, restore) => {
  it("rejects feature rows above the norm bound at select (OUT_OF_RANGE), state unchanged", () => {
    const p = create();
    const rng = Rng.fromSeed("norm");
    for (let t = 0; t < 3; t++) round(p, rng);
    const before = text(p);
    for (const scale of [1e300, 1e60, 1e51]) {
      const q = randomQuery(rng, 4, d, K, true);
      const f = q.features as Float64Array;
      for (let i = 0; i < f.length; i++) f[i] = (f[i] as number) * scale + scale;
      let err: unknown;
      try {
        p.select(q);
      } catch (e) {
        err = e;
      }
      expect(isRouteKitError(err, "OUT_OF_RANGE")).toBe(true);
      expect(text(p)).toBe(before);
    }
    // Just inside the bound still works and keeps the state finite.
    const q = randomQuery(rng, 2, d, K);
    (q.features as Float64Array).fill(Math.sqrt(MAX_FEATURE_SQUARED_NORM / d) * 0.999);
    const dec = p.select(q);
    p.update(dec, { choice: dec.items[0] as number });
    expect(text(p)).not.toMatch(/NaN|Infinity/);
  });

  it("restores bit-exactly after 150 rounds of zero and random features (history capacity growth)", () => {
    const a = create();
    const rng = Rng.fromSeed("restore");
    const qs: { q: ReturnType<typeof randomQuery>; c: number }[] = [];
    for (let t = 0; t < 150; t++) {
      const q = randomQuery(rng, 1 + rng.int(4), d, 1 + rng.int(K));
      if (t % 3 === 0) (q.features as Float64Array).fill(0);
      qs.push({ q, c: rng.int(3) });
    }
    const b0 = create();
    let b = b0;
    for (let t = 0; t < qs.length; t++) {
      const { q, c } = qs[t] as (typeof qs)[number];
      if (t % 37 === 5) b = restore(JSON.parse(text(b)) as Snapshot);
      const da = a.select(q);
      const db = b.select({ ...q, features: (q.features as Float64Array).slice() });
      expect(db).toEqual(da);
      const choice = c < da.items.length ? (da.items[c] as number) : null;
      a.update(da, { choice });
      b.update(db, { choice });
    }
    expect(text(b)).toBe(text(a));
  });

  it("rejects non-finite and non-integer snapshot fields with SNAPSHOT_CORRUPT", () => {
    const p = create();
    const rng = Rng.fromSeed("corrupt");
    for (let t = 0; t < 4; t++) round(p, rng);
    const snap = JSON.parse(text(p)) as { state: Record<string, Record<string, unknown>> };
    const mutate = (path: string[], v: unknown) => {
      const s = JSON.parse(JSON.stringify(snap));
      let o = s.state;
      for (const k of path.slice(0, -1)) o = o[k];
      o[path[path.length - 1] as string] = v;
      return s;
    };
    const cases: [string[], unknown][] = [
      [["common", "v0"], null],
      [["common", "maxPending"], 1e300],
      [["common", "utilityClip"], undefined],
      [["config", "ridge"], Number.POSITIVE_INFINITY],
      [["config", "ridge"], undefined],
    ];
    if ("beta" in (snap.state.config as object))
      cases.push([["config", "beta"], Number.POSITIVE_INFINITY], [["config", "beta"], Number.NEGATIVE_INFINITY]);
    if ("updates" in snap.state) cases.push([["updates"], 1e300], [["updates"], 1.5]);
    if ("history" in snap.state) cases.push([["history", "rounds"], 1e300]);
    for (const [path, v] of cases) {
      let err: unknown;
      try {
        restore(mutate(path, v));
      } catch (e) {
        err = e;
      }
      expect(isRouteKitError(err, "SNAPSHOT_CORRUPT"), `${path.join(".")} = ${String(v)}`).toBe(true);
    }
  });
});

describe("ChoiceHistory", () => {
  it("grows start and choice independently (restored histories have tight arrays)", () => {
    const h = new ChoiceHistory(2);
    h.start = Int32Array.from([0, 1]);
    h.choice = Int32Array.from([0]);
    h.rounds = 1;
    for (let r = 1; r < 200; r++) {
      h.stage(new Float64Array([1, 2]), 1, r % 2 === 0 ? 0 : -1);
      h.commit();
    }
    for (let r = 1; r < 200; r++) expect(h.choice[r]).toBe(r % 2 === 0 ? 0 : -1);
  });
});

describe("pending items and history arrays in a snapshot", () => {
  type State = { ledger: { entries: [number, { items: number[] }][] }; history: { choice: number[] } };
  const restamp = (s: Snapshot, edit: (state: State) => void): Snapshot => {
    const state = JSON.parse(JSON.stringify(s.state));
    edit(state);
    return makeSnapshot(s.kind, s.kindVersion, state);
  };
  it.each(specs)(
    "%s: item indices past 2^31 - 1 or holes are SNAPSHOT_CORRUPT (they wrapped in the Int32Array)",
    (_n, create, restore) => {
      const p = create();
      const rng = Rng.fromSeed("items");
      for (let t = 0; t < 2; t++) round(p, rng);
      p.select({ features: new Float64Array(2 * d).fill(0.1), numItems: 2, maxSize: 2 });
      const s = p.toJSON();
      const last = (st: State) => (st.ledger.entries.at(-1) as [number, { items: number[] }])[1];
      expect(text(restore(restamp(s, () => {})))).toBe(text(p));
      // 2^31 was stored as -2^31 (its own snapshot then failed to restore), 2^32 + 1 as item 1, a duplicate.
      for (const bad of [2 ** 31, 2 ** 32 + 1]) {
        expect(() => restore(restamp(s, (st) => (last(st).items[0] = bad)))).toThrow(
          expect.objectContaining({ code: "SNAPSHOT_CORRUPT" }),
        );
      }
      expect(() => restore(restamp(s, (st) => delete last(st).items[0]))).toThrow(
        expect.objectContaining({ code: "SNAPSHOT_CORRUPT" }),
      );
      const top = restore(restamp(s, (st) => (last(st).items[0] = 2 ** 31 - 1)));
      expect(last(top.toJSON().state as unknown as State).items[0]).toBe(2 ** 31 - 1);
    },
  );
  it.each(specs.filter(([n]) => !n.startsWith("ofu")))(
    "%s: a hole in history.choice is SNAPSHOT_CORRUPT (it loaded as item 0)",
    (_n, create, restore) => {
      const p = create();
      const rng = Rng.fromSeed("holes");
      for (let t = 0; t < 3; t++) round(p, rng);
      const s = p.toJSON();
      expect(() => restore(restamp(s, (st) => delete st.history.choice[1]))).toThrow(
        expect.objectContaining({ code: "SNAPSHOT_CORRUPT" }),
      );
    },
  );
});

describe("snapshot option errors", () => {
  it.each(specs)("%s: a bad option in a snapshot says so once", (_n, create, restore) => {
    const s = create().toJSON();
    const state = JSON.parse(JSON.stringify(s.state));
    state.common.utilityClip = [1, 0];
    let message = "";
    try {
      restore(makeSnapshot(s.kind, s.kindVersion, state));
    } catch (e) {
      expect(isRouteKitError(e, "SNAPSHOT_CORRUPT")).toBe(true);
      message = (e as Error).message;
    }
    // UCB-MNL and TS-MNL said "snapshot options are invalid: snapshot options are invalid: ...".
    expect(message.match(/snapshot options are invalid/g)?.length).toBe(1);
  });
});
