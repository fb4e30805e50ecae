/**
 * A box removed and added again under the same id while an episode is open: the episode treats the old box as
 * removed (not asked, not learned about), the new box starts fresh, in every policy, through snapshots and events.
 */
import { checkReAddWithOpenEpisodes, resealSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade } from "../src/index.js";

const arms = ["mini", "standard", "frontier"];
const dims = { contextDim: 2, outputDim: 2 };
const ctx = Float64Array.of(0.3, -0.2);
const out = Float64Array.of(0.8, 0.1);

describe("re-added box", () => {
  it("is not asked in an episode begun before its id was removed and added again", () => {
    for (const p of [new QueryAll({ arms, ...dims }), new ThresholdCascade({ arms, ...dims, threshold: 2 })]) {
      const e = p.begin(ctx);
      expect(p.next(e)).toEqual({ query: "mini" });
      p.observe(e, "mini", out, 0.01);
      p.removeArm("standard");
      p.addArm("standard");
      expect(p.next(e)).toEqual({ query: "frontier" });
      p.observe(e, "frontier", out, 0.01);
      expect(p.next(e)).toEqual({ stop: true });
      // A new episode plans the new box.
      const f = p.begin(ctx);
      expect(p.next(f)).toEqual({ query: "mini" });
      p.observe(f, "mini", out, 0);
      expect(p.next(f)).toEqual({ query: "frontier" });
      p.observe(f, "frontier", out, 0);
      expect(p.next(f)).toEqual({ query: "standard" });
    }
  });

  it("learns nothing from an output the old box gave; the record marks it retired; snapshots keep it", () => {
    const p = new Cosmos({ arms, ...dims, rewardParameter: [1, 0] });
    const e = p.begin(ctx);
    expect(p.next(e)).toEqual({ query: "mini" });
    p.observe(e, "mini", out, 0.01);
    p.removeArm("mini");
    p.addArm("mini");
    const snap = JSON.stringify(p.toJSON());
    expect(snap).toContain('"retired":["mini"]');
    const q = Cosmos.fromJSON(JSON.parse(snap));
    expect(JSON.stringify(q.toJSON())).toBe(snap);
    for (const c of [p, q]) {
      expect(c.next(e)).toEqual({ query: "standard" });
      c.observe(e, "standard", out, 0.01);
      expect(c.next(e)).toEqual({ query: "frontier" });
      c.observe(e, "frontier", out, 0.01);
      expect(c.next(e)).toEqual({ stop: true });
      c.choose(e);
    }
    const record = p.decisionRecord(e);
    expect(record.decision.queried.map((x) => x.retired)).toEqual([true, undefined, undefined]);
    const r = Cosmos.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
    r.learn({ ...record, feedback: { reward: 1 } });
    r.discard(e);
    p.feedback(e, 1);
    expect(JSON.stringify(r.toJSON())).toBe(JSON.stringify(p.toJSON()));
    // The new "mini" is fresh: no sample, so the next episode opens it first (index +Infinity).
    const box = (p.toJSON().state as { boxes: { n: number }[] }).boxes;
    expect(box.map((b) => b.n)).toEqual([1, 1, 0]);
    expect(p.next(p.begin(ctx))).toEqual({ query: "mini" });
  });

  it("OneShot: the new box learns nothing from the old box's episode", () => {
    const p = new OneShot({ arms, ...dims });
    const fresh = JSON.stringify((p.toJSON().state as { states: unknown[] }).states[0]);
    const e = p.begin(ctx);
    expect(p.next(e)).toEqual({ query: "mini" });
    p.observe(e, "mini", out, 0.01);
    p.choose(e);
    p.removeArm("mini");
    p.addArm("mini");
    p.feedback(e, 1);
    const states = (p.toJSON().state as { states: unknown[] }).states;
    expect(JSON.stringify(states[2])).toBe(fresh);
  });

  it("snapshots refuse a malformed retired list", () => {
    const p = new Cosmos({ arms, ...dims, rewardParameter: [1, 0] });
    p.begin(ctx);
    p.removeArm("mini");
    const text = JSON.stringify(p.toJSON());
    expect(text).toContain('"retired":["mini"]');
    for (const bad of ["[]", '["mini","mini"]', '["nope"]', '"mini"', "null"]) {
      const s = resealSnapshot(JSON.parse(text.replace('"retired":["mini"]', `"retired":${bad}`)));
      expect(() => Cosmos.fromJSON(s)).toThrow(expect.objectContaining({ code: "SNAPSHOT_CORRUPT" }));
    }
  });

  it("the conformance property holds for every policy", () => {
    for (const [name, create] of [
      ["cosmos", (a: readonly string[], seed: number) => new Cosmos({ arms: a, seed, ...dims })],
      ["one-shot", (a: readonly string[], seed: number) => new OneShot({ arms: a, seed, ...dims })],
    ] as const) {
      checkReAddWithOpenEpisodes({
        name,
        create: ({ arms: a, seed }) => create(a, seed),
        restore: (s) => (name === "cosmos" ? Cosmos.fromJSON(s) : OneShot.fromJSON(s)),
      });
    }
  });
});
