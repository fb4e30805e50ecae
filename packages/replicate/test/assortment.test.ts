/**
 * README: "It works with every arm-selection and assortment policy of RouteKit". The fold replicates an
 * assortment policy (OFU-MNL+): replicas fed the same stream, joined in different orders and one started from
 * another replica's snapshot, hold the learned state of one learner fed every event.
 */
import { type AssortmentEvent, learnedState, Rng, withReplicaParts } from "@routekit/core";
import { OfuMnlPlus } from "@routekit/mnl";
import { describe, expect, it } from "vitest";
import { StreamApplier } from "../src/apply.js";
import type { StreamEntry } from "../src/entries.js";

const D = 3;
const N = 6;
const make = (seed: number) => new OfuMnlPlus({ contextDim: D, maxSize: 3, seed });

/** Plays n requests on a writer; returns decision and feedback entries and the joined events. */
function stream(n: number): { decisions: StreamEntry[]; feedbacks: StreamEntry[]; events: AssortmentEvent[] } {
  const w = make(1);
  const rng = Rng.fromSeed("assortment-stream");
  const decisions: StreamEntry[] = [];
  const feedbacks: StreamEntry[] = [];
  const events: AssortmentEvent[] = [];
  for (let t = 0; t < n; t++) {
    const features = new Float64Array(N * D);
    for (let i = 0; i < features.length; i++) features[i] = rng.uniformIn(-1, 1);
    const d = w.select({ features, numItems: N, maxSize: 3 });
    const gid = `w~1:a${t}`;
    const rec = { ...w.decisionRecord(d), id: gid };
    const choice = rng.uniform() < 0.4 ? null : (d.items[rng.int(d.items.length)] as number);
    w.discard(d);
    decisions.push({ type: "d", id: gid, record: JSON.stringify(rec), writer: "w", ts: 0 });
    feedbacks.push({ type: "f", id: gid, feedback: JSON.stringify({ choice }), writer: "w", ts: 0 });
    events.push(JSON.parse(JSON.stringify({ ...rec, feedback: { choice } })));
  }
  return { decisions, feedbacks, events };
}

const learned = (p: OfuMnlPlus) => JSON.stringify(learnedState(p.toJSON()));

describe("StreamApplier with an assortment policy (OFU-MNL+)", () => {
  it("replicas joining in different orders, and one restored mid-stream, equal a single learner", () => {
    const { decisions, feedbacks, events } = stream(120);
    const single = make(2);
    for (const e of events) single.learn(e);

    const a = new StreamApplier(make(3), 1000);
    const b = new StreamApplier(make(4), 1000);
    for (let i = 0; i < decisions.length; i++) {
      a.apply(decisions[i] as StreamEntry);
      a.apply(feedbacks[i] as StreamEntry);
      b.apply(feedbacks[i] as StreamEntry);
      b.apply(decisions[i] as StreamEntry);
    }
    expect(a.counts).toMatchObject({ learned: 120, rejected: 0 });
    expect(learned(a.policy as OfuMnlPlus)).toBe(learned(single));
    expect(learned(b.policy as OfuMnlPlus)).toBe(learned(single));
    expect(learned(single)).not.toBe(learned(make(2))); // it learned something

    const half = new StreamApplier(make(5), 1000);
    for (let i = 0; i < 60; i++) {
      half.apply(decisions[i] as StreamEntry);
      half.apply(feedbacks[i] as StreamEntry);
    }
    const c = new StreamApplier(
      OfuMnlPlus.fromJSON(withReplicaParts(half.policy.toJSON(), Rng.fromSeed("replica-c"))),
      1000,
    );
    for (let i = 60; i < decisions.length; i++) {
      c.apply(decisions[i] as StreamEntry);
      c.apply(feedbacks[i] as StreamEntry);
    }
    expect(learned(c.policy as OfuMnlPlus)).toBe(learned(single));
  });
});
