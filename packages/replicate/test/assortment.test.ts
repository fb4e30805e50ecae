/**
 * README: "It works with every arm-selection and assortment policy of RouteKit". The fold replicates an
 * assortment policy (OFU-MNL+): replicas fed the same stream, joined in different orders and one started from
 * another replica's snapshot, hold the learned state of one learner fed every event.
 */
import { type AssortmentEvent, Rng } from "@routekit/core";
import { OfuMnlPlus } from "@routekit/mnl";
import { describe, it } from "vitest";
import type { StreamEntry } from "../src/entries.js";
import { expectFoldMatchesOneLearner } from "./fixture.js";

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

describe("StreamApplier with an assortment policy (OFU-MNL+)", () => {
  it("replicas joining in different orders, and one restored mid-stream, equal a single learner", () => {
    expectFoldMatchesOneLearner(stream(120), make, (s) => OfuMnlPlus.fromJSON(s));
  });
});
