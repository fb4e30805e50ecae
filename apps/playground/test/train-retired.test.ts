/**
 * `routekit train` (the `train` API: the shipped cascade policies read a simulated environment, so a registry that
 * builds one for a log is used) on cascade events whose opened box was removed before the record was made: the
 * record marks it `retired: true`, learn ignores it, so an `--arms` list without that box does not refuse the event.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArmEvent, CascadeEvent } from "@routekit/core";
import { Cosmos } from "@routekit/pandora";
import { describe, expect, it } from "vitest";
import { evaluate } from "../src/evaluate.js";
import { namedArms } from "../src/event-log.js";
import type { FamilyRegistry } from "../src/registry/types.js";
import { train } from "../src/train.js";
import { fixtureRegistry } from "./fixture.js";

const dims = { contextDim: 2, outputDim: 2 };
const registry: FamilyRegistry = {
  policies: [
    {
      name: "cosmos-fixed",
      protocol: "cascade",
      family: "@routekit/pandora",
      description: "COSMOS with a known reward, for logs",
      defaults: {},
      create: (_p, { rng, info }) => new Cosmos({ arms: info.arms, ...dims, rewardParameter: [1, 0], rng }),
    },
  ],
  environments: [],
  scenarios: [],
};

const ctx = Float64Array.of(0.3, -0.2);
const out = Float64Array.of(0.8, 0.1);

/** Two episodes of a live router: in the first, "old" answers and is then removed (its entry retired). */
function log(): { lines: string[]; live: Cosmos } {
  const p = new Cosmos({ arms: ["old", "standard", "frontier"], ...dims, rewardParameter: [1, 0] });
  const lines: string[] = [];
  const e = p.begin(ctx);
  expect(p.next(e)).toEqual({ query: "old" });
  p.observe(e, "old", out, 0.01);
  p.removeArm("old");
  for (let q = p.next(e); "query" in q; q = p.next(e)) p.observe(e, q.query, out, 0.02);
  p.choose(e);
  const first: CascadeEvent = { ...p.decisionRecord(e), feedback: { reward: 1 } };
  expect(first.decision.queried.map((b) => [b.arm, b.retired])).toEqual([
    ["old", true],
    ["standard", undefined],
    ["frontier", undefined],
  ]);
  p.feedback(e, 1);
  lines.push(JSON.stringify(first));
  const f = p.begin(ctx);
  for (let q = p.next(f); "query" in q; q = p.next(f)) p.observe(f, q.query, out, 0.02);
  p.choose(f);
  lines.push(JSON.stringify({ ...p.decisionRecord(f), feedback: { reward: 0 } }));
  p.feedback(f, 0);
  return { lines, live: p };
}

describe("routekit train: retired cascade boxes", () => {
  it("accepts an event whose retired box is not among --arms, and learns as the live router did", () => {
    const { lines, live } = log();
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-retired-"));
    const events = join(dir, "events.jsonl");
    writeFileSync(events, `${lines.join("\n")}\n`);
    const r = train({ events, policy: "cosmos-fixed", arms: ["standard", "frontier"], registry });
    expect(r.skipped).toEqual([]);
    expect(r.learned).toBe(2);
    // The same boxes learned the same samples as the router that made the decisions.
    const boxes = (s: unknown) => JSON.stringify((s as { state: { boxes: unknown } }).state.boxes);
    expect(boxes(r.snapshot)).toBe(boxes(live.toJSON()));
    // Without --arms, the default arms are those the events name, the retired box aside.
    const d = train({ events, policy: "cosmos-fixed", registry });
    expect(Cosmos.fromJSON(d.snapshot).arms).toEqual(["standard", "frontier"]);
  });

  it("still refuses a live (not retired) opened box that --arms leaves out", () => {
    const { lines } = log();
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-retired-"));
    const events = join(dir, "events.jsonl");
    writeFileSync(events, `${lines.join("\n")}\n`);
    expect(() => train({ events, policy: "cosmos-fixed", arms: ["standard"], registry })).toThrow(
      /refused 2 events .*line 1: logged arm "frontier" is not one of the policy's arms/,
    );
  });

  it("namedArms leaves out retired entries of both protocols", () => {
    const cascade = JSON.parse(log().lines[0] as string) as CascadeEvent;
    expect(namedArms(cascade)).toEqual(["standard", "frontier"]);
    const arm = {
      v: 1,
      kind: "k",
      protocol: "arm",
      id: "d",
      decision: { arm: "a", context: null },
      feedback: { reward: 1 },
    };
    expect(namedArms(arm as never)).toEqual(["a"]);
    expect(namedArms({ ...arm, decision: { ...arm.decision, retired: true } } as never)).toEqual([]);
  });
});

describe("arm events marked retired: train ignores them, evaluate counts them (documented)", () => {
  /** A uniform logger over a, b, c; c was removed before each of its records was made (retired). */
  const events = (retired: boolean): ArmEvent[] =>
    Array.from({ length: 60 }, (_, t) => {
      const arm = ["a", "b", "c"][t % 3] as string;
      return {
        v: 1,
        kind: "test/logger",
        protocol: "arm",
        id: `e${t}`,
        decision: { arm, context: null, propensity: 1 / 3, ...(retired && arm === "c" ? { retired: true } : {}) },
        feedback: { reward: arm === "c" ? 1 : (t % 2) * 0.5 },
      };
    });
  const file = (retired: boolean) => {
    const f = join(mkdtempSync(join(tmpdir(), "routekit-retired-arm-")), "events.jsonl");
    writeFileSync(
      f,
      `${events(retired)
        .map((e) => JSON.stringify(e))
        .join("\n")}\n`,
    );
    return f;
  };

  it("train: a retired arm is no default arm and --arms may leave it out", () => {
    const r = train({ events: file(true), policy: "ucb1", arms: ["a", "b"], registry: fixtureRegistry });
    expect([r.learned, r.notLearned, r.skipped.length]).toEqual([40, 20, 0]);
    const d = train({ events: file(true), policy: "ucb1", registry: fixtureRegistry });
    expect((d.snapshot.state as { arms: { id: string }[] }).arms.map((a) => a.id)).toEqual(["a", "b"]);
  });

  it("evaluate: a retired event is the logging policy's play of its arm, counted as if unmarked; --arms must name it", () => {
    const opts = { policy: "random", estimator: "ips", registry: fixtureRegistry } as const;
    const marked = evaluate({ ...opts, events: file(true) });
    const plain = evaluate({ ...opts, events: file(false) });
    expect(marked.n).toBe(60);
    expect(marked.estimate).toBe(plain.estimate);
    expect(() => evaluate({ ...opts, events: file(true), arms: ["a", "b"] })).toThrow(/line 3: .*"c"/);
  });
});
