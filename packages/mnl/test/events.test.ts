import {
  type AssortmentEvent,
  type AssortmentPolicy,
  learnedState as coreLearnedState,
  ErrorCode,
  isRouteKitError,
  Rng,
  type Snapshot,
  withReplicaParts,
} from "@routekit/core";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../src/index.js";
import { randomQuery, sampleChoice } from "./helpers.js";

const D = 3;
const K = 4;
const makers: [string, (seed: number) => AssortmentPolicy][] = [
  ["ofu-mnl-plus paper", () => new OfuMnlPlus({ contextDim: D, maxSize: K })],
  ["ofu-mnl-plus practical", () => new OfuMnlPlus({ contextDim: D, maxSize: K, preset: "practical" })],
  ["ucb-mnl", () => new UcbMnl({ contextDim: D, maxSize: K })],
  ["ts-mnl", (seed) => new TsMnl({ contextDim: D, maxSize: K, seed })],
];

/** The snapshot without the per-replica parts (pending decisions, random stream). */
function learnedState(p: AssortmentPolicy): string {
  const { ledger: _l, rng: _r, ...rest } = p.toJSON().state as Record<string, unknown>;
  return JSON.stringify(rest);
}

describe.each(makers)("%s decision events", (_name, make) => {
  it("update equals learn of the decision record plus feedback, bit for bit, with late feedback", () => {
    const a = make(1);
    const b = make(1);
    const rng = Rng.fromSeed(5);
    const w = [0.5, -0.3, 0.2];
    const open: { id: string; q: ReturnType<typeof randomQuery>; items: readonly number[] }[] = [];
    for (let t = 0; t < 200; t++) {
      const q = randomQuery(rng, 8, D, 1 + rng.int(K), rng.uniform() < 0.5);
      // -0 entries must survive as 0 in both paths.
      (q.features as Float64Array)[0] = -0;
      const da = a.select(q);
      const db = b.select(q);
      expect(db.items).toEqual(da.items);
      open.push({ id: da.id, q, items: da.items });
      while (open.length > 3 || (open.length > 0 && rng.uniform() < 0.4)) {
        const o = open.splice(rng.int(open.length), 1)[0] as (typeof open)[number];
        const choice = o.items.length === 0 ? null : sampleChoice(rng, o.q, D, w, o.items);
        if (o.items.length === 0) {
          a.discard(o.id);
          b.discard(o.id);
          continue;
        }
        const event = JSON.parse(JSON.stringify({ ...a.decisionRecord(o.id), feedback: { choice } }));
        a.update(o.id, { choice });
        b.learn(event);
        b.discard(o.id);
      }
    }
    expect(learnedState(b)).toBe(learnedState(a));
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
  });

  it("records carry the offered rows and revenues; any assortment policy's event is learnable", () => {
    const p = make(2);
    const q = randomQuery(Rng.fromSeed(1), 6, D, K, true);
    const d = p.select(q);
    const rec = p.decisionRecord(d);
    expect(rec).toMatchObject({ v: 1, kind: p.kind, protocol: "assortment", id: d.id });
    expect(rec.decision.items).toEqual([...d.items]);
    const want: number[] = [];
    for (const i of d.items) for (let k = 0; k < D; k++) want.push(q.features[i * D + k] as number);
    expect(rec.decision.features).toEqual(want);
    expect(rec.decision.revenues).toEqual(d.items.map((i) => q.revenues?.[i]));
    // A decision from another kind of assortment policy is learned the same way.
    const other = make(3);
    const before = learnedState(other);
    other.learn({ ...rec, kind: "someone/else", feedback: { choice: null } });
    expect(learnedState(other)).not.toBe(before);
    expect(other.pendingDecisions).toBe(0);
  });

  it("rejects malformed events with INVALID_EVENT and changes nothing", () => {
    const p = make(4);
    const d = p.select(randomQuery(Rng.fromSeed(2), 6, D, K));
    const rec = p.decisionRecord(d);
    const before = JSON.stringify(p.toJSON());
    const bad: unknown[] = [
      null,
      { ...rec },
      { ...rec, feedback: { choice: 999 } },
      { ...rec, v: 2, feedback: { choice: null } },
      { ...rec, protocol: "arm", feedback: { choice: null } },
      { ...rec, decision: { ...rec.decision, features: rec.decision.features.slice(1) }, feedback: { choice: null } },
      {
        ...rec,
        decision: { items: [0], features: [1, 2, 3, 4, 5, 6] },
        feedback: { choice: null },
      },
      {
        ...rec,
        decision: { items: [0, 1, 2, 3, 4], features: new Array(5 * D).fill(0) },
        feedback: { choice: null },
      },
      { ...rec, decision: { items: [0], features: [1e60, 0, 0] }, feedback: { choice: null } },
      { ...rec, decision: { ...rec.decision, features: rec.decision.features.map(() => Number.NaN) } },
    ];
    for (const e of bad) {
      let err: unknown;
      try {
        p.learn(e as never);
      } catch (x) {
        err = x;
      }
      expect(isRouteKitError(err, ErrorCode.InvalidEvent), `${JSON.stringify(e)}: ${String(err)}`).toBe(true);
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
  });

  it("discard drops a pending decision without learning; its id is then used up", () => {
    const p = make(5);
    const before = learnedState(p);
    const d = p.select(randomQuery(Rng.fromSeed(3), 6, D, K));
    p.discard(d);
    expect(p.pendingDecisions).toBe(0);
    expect(learnedState(p)).toBe(before);
    let err: unknown;
    try {
      p.update(d, { choice: null });
    } catch (x) {
      err = x;
    }
    expect(isRouteKitError(err, ErrorCode.DecisionAlreadyUsed)).toBe(true);
    const restored = (p.constructor as unknown as { fromJSON(s: Snapshot): AssortmentPolicy }).fromJSON(
      JSON.parse(JSON.stringify(p.toJSON())),
    );
    expect(JSON.stringify(restored.toJSON())).toBe(JSON.stringify(p.toJSON()));
  });
});

describe.each(makers)("%s replication", (_name, make) => {
  it("a replica started from a snapshot through withReplicaParts learns the same events to the same state", () => {
    const a = make(1);
    const rng = Rng.fromSeed(8);
    const w = [0.5, -0.3, 0.2];
    const events: AssortmentEvent[] = [];
    for (let t = 0; t < 120; t++) {
      const q = randomQuery(rng, 8, D, K);
      const d = a.select(q);
      const choice = d.items.length === 0 ? null : sampleChoice(rng, q, D, w, d.items);
      const record = a.decisionRecord(d);
      a.update(d, { choice });
      events.push({ ...record, feedback: { choice } } as AssortmentEvent);
    }
    // Half the stream, then a replica from that snapshot learns the rest alongside the original.
    const single = make(1);
    for (const e of events.slice(0, 60)) single.learn(JSON.parse(JSON.stringify(e)));
    const restore = (s: Snapshot) =>
      (single.constructor as unknown as { fromJSON(s: Snapshot): AssortmentPolicy }).fromJSON(s);
    const replica = restore(JSON.parse(JSON.stringify(withReplicaParts(single.toJSON(), Rng.fromSeed(99)))));
    expect(replica.pendingDecisions).toBe(0);
    for (const e of events.slice(60)) {
      single.learn(JSON.parse(JSON.stringify(e)));
      replica.learn(JSON.parse(JSON.stringify(e)));
    }
    expect(JSON.stringify(coreLearnedState(replica.toJSON()))).toBe(JSON.stringify(coreLearnedState(single.toJSON())));
    expect(JSON.stringify(coreLearnedState(single.toJSON()))).toBe(JSON.stringify(coreLearnedState(a.toJSON())));
  });
});
