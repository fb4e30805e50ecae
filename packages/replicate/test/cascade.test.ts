/**
 * The fold replicates cascade policies too: COSMOS (paper "Online Pandora's Box for Contextual LLM
 * Cascading") replicas fed the same stream, joined in different orders and started from another
 * replica's snapshot, hold the learned state of one learner fed every event.
 */
import { type CascadeEvent, Rng } from "@routekit/core";
import { Cosmos } from "@routekit/pandora";
import { describe, it } from "vitest";
import type { StreamEntry } from "../src/entries.js";
import { expectFoldMatchesOneLearner } from "./fixture.js";

const make = (seed: number) =>
  new Cosmos({ arms: ["mini", "standard", "frontier"], contextDim: 2, outputDim: 2, rewardParameter: [1, 0], seed });

/** Plays n requests on a writer; returns decision and feedback entries and the joined events. */
function stream(n: number): { decisions: StreamEntry[]; feedbacks: StreamEntry[]; events: CascadeEvent[] } {
  const w = make(1);
  const rng = Rng.fromSeed("cascade-stream");
  const level: Record<string, number> = { mini: 0.35, standard: 0.55, frontier: 0.75 };
  const cost: Record<string, number> = { mini: 0.005, standard: 0.03, frontier: 0.1 };
  const decisions: StreamEntry[] = [];
  const feedbacks: StreamEntry[] = [];
  const events: CascadeEvent[] = [];
  for (let t = 0; t < n; t++) {
    const x = new Float64Array([rng.uniformIn(-1, 1), rng.uniformIn(-1, 1)]);
    const ep = w.begin(x);
    for (let s = w.next(ep); "query" in s; s = w.next(ep)) {
      const q = Math.min(1, Math.max(0, (level[s.query] as number) - 0.1 * (x[0] as number) + 0.2 * rng.normal()));
      w.observe(ep, s.query, new Float64Array([q, rng.uniform()]), cost[s.query] as number);
    }
    w.choose(ep);
    const gid = `w~1:e${t}`;
    const rec = { ...w.decisionRecord(ep), id: gid };
    const reward = rng.uniform() < 0.6 ? 1 : 0;
    w.discard(ep);
    decisions.push({ type: "d", id: gid, record: JSON.stringify(rec), writer: "w", ts: 0 });
    feedbacks.push({ type: "f", id: gid, feedback: JSON.stringify({ reward }), writer: "w", ts: 0 });
    events.push(JSON.parse(JSON.stringify({ ...rec, feedback: { reward } })));
  }
  return { decisions, feedbacks, events };
}

describe("StreamApplier with a cascade policy (COSMOS)", () => {
  it("replicas joining in different orders, and one restored mid-stream, equal a single learner", () => {
    expectFoldMatchesOneLearner(stream(200), make, (s) => Cosmos.fromJSON(s));
  });
});
