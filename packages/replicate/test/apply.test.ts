import { LinUCBDisjoint } from "@routekit/classic";
import { type ArmEvent, learnedState } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { StreamApplier } from "../src/apply.js";
import type { StreamEntry } from "../src/entries.js";

const make = (seed: number) => new LinUCBDisjoint({ arms: ["a", "b"], contextDim: 2, seed });

function decision(p: LinUCBDisjoint, gid: string, ctx: number[]): StreamEntry {
  const d = p.select(new Float64Array(ctx));
  const rec = p.decisionRecord(d);
  p.discard(d);
  return { type: "d", id: gid, record: JSON.stringify({ ...rec, id: gid }), writer: "w", ts: 0 };
}
const feedback = (gid: string, reward: number): StreamEntry => ({
  type: "f",
  id: gid,
  feedback: JSON.stringify({ reward }),
  writer: "w",
  ts: 0,
});

describe("StreamApplier (the deterministic fold)", () => {
  it("joins a decision with its feedback in either order, once, ignoring duplicates of either side", () => {
    const src = make(1);
    const d1 = decision(src, "r~1:d0", [1, 0]);
    const d2 = decision(src, "r~1:d1", [0, 1]);
    const entries = [d1, feedback("r~1:d1", 0.5), feedback("r~1:d0", 1), d1, d2, feedback("r~1:d0", 1), d2];
    const a = new StreamApplier(make(2), 100);
    for (const e of entries) a.apply(e);
    expect(a.counts).toMatchObject({ entries: 7, learned: 2, duplicates: 3, rejected: 0 });
    expect(a.waiting).toEqual({ decisions: 0, feedbacks: 0 });

    // The same two events through learn() in join order give the same learned state.
    const ref = make(3);
    const ev = (e: StreamEntry, r: number) =>
      ({ ...JSON.parse((e as { record: string }).record), feedback: { reward: r } }) as ArmEvent;
    ref.learn(ev(d1, 1));
    ref.learn(ev(d2, 0.5));
    expect(JSON.stringify(learnedState(a.policy.toJSON()))).toBe(JSON.stringify(learnedState(ref.toJSON())));
  });

  it("skips an event the policy refuses (a context of another length) on every replica alike", () => {
    const other = new LinUCBDisjoint({ arms: ["a", "b"], contextDim: 3, seed: 1 });
    const d = other.select(new Float64Array([1, 2, 3]));
    const bad: StreamEntry = {
      type: "d",
      id: "x~1:d0",
      record: JSON.stringify(other.decisionRecord(d)),
      writer: "w",
      ts: 0,
    };
    const a = new StreamApplier(make(2), 100);
    a.apply(bad);
    a.apply(feedback("x~1:d0", 1));
    expect(a.counts.rejected).toBe(1);
    expect(a.counts.learned).toBe(0);
  });

  it("bounds the join: the oldest waiting decision leaves when full, and a restored join evicts the same", () => {
    const src = make(1);
    const a = new StreamApplier(make(2), 3);
    const ds = [0, 1, 2, 3, 4].map((i) => decision(src, `r~1:d${i}`, [i, 1]));
    for (const d of ds) a.apply(d);
    expect(a.counts.expired).toBe(2);
    const b = new StreamApplier(make(2), 3);
    b.loadJoinState(a.joinState(), a.counts);
    const more = decision(src, "r~1:d9", [9, 1]);
    a.apply(more);
    b.apply(more);
    expect(JSON.stringify(b.joinState())).toBe(JSON.stringify(a.joinState()));
    a.apply(feedback("r~1:d0", 1)); // expired decision: the feedback waits (and expires in turn)
    expect(a.counts.learned).toBe(0);
  });

  it("applies arm additions and removals in stream order; impossible ones are counted and skipped", () => {
    const a = new StreamApplier(make(2), 10);
    a.apply({ type: "a", arm: "c", writer: "w", ts: 0 });
    a.apply({ type: "a", arm: "c", writer: "w", ts: 0 });
    a.apply({ type: "r", arm: "zz", writer: "w", ts: 0 });
    a.apply({ type: "r", arm: "a", writer: "w", ts: 0 });
    expect((a.policy as LinUCBDisjoint).arms).toEqual(["b", "c"]);
    expect(a.counts.armChangesIgnored).toBe(2);
  });
});
