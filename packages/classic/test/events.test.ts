import { type ArmEvent, type ArmPolicy, ErrorCode, isRouteKitError, learnedState, Rng } from "@routekit/core";
import { checkArmsLackedRefusedAlike } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { EpsilonGreedy, LinUCBDisjoint, LinUCBShared, ThompsonGaussian, UCB1 } from "../src/index.js";

const D = 3;
const makers: [string, (seed: number) => ArmPolicy][] = [
  ["ucb1", (seed) => new UCB1({ arms: ["a", "b", "c"], seed })],
  ["epsilon-greedy", (seed) => new EpsilonGreedy({ arms: ["a", "b", "c"], seed, epsilon: 0.2 })],
  ["thompson-gaussian", (seed) => new ThompsonGaussian({ arms: ["a", "b", "c"], seed })],
  ["linucb-disjoint", (seed) => new LinUCBDisjoint({ arms: ["a", "b", "c"], contextDim: D, seed })],
  ["linucb-shared", (seed) => new LinUCBShared({ arms: ["a", "b", "c"], contextDim: D, seed })],
];

describe.each(makers)("%s decision events", (_name, make) => {
  it("update equals learn of the decision record plus feedback, bit for bit, with late feedback", () => {
    const a = make(1);
    const b = make(1);
    const rng = Rng.fromSeed(7);
    const open: { id: string }[] = [];
    for (let t = 0; t < 300; t++) {
      const ctx = a.contextDim > 0 ? new Float64Array([rng.normal(), -0, rng.normal()]) : undefined;
      const d = a.select(ctx);
      b.select(ctx);
      open.push(d);
      // Feedback arrives late and out of order.
      while (open.length > 4 || (open.length > 0 && rng.uniform() < 0.3)) {
        const i = rng.int(open.length);
        const dec = open.splice(i, 1)[0] as { id: string };
        const fb = { reward: rng.uniform() };
        const event = JSON.parse(JSON.stringify({ ...a.decisionRecord(dec), feedback: fb }));
        a.update(dec, fb);
        b.learn(event);
        b.discard(dec);
      }
    }
    expect(JSON.stringify(learnedState(b.toJSON()))).toBe(JSON.stringify(learnedState(a.toJSON())));
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
  });

  it("learned state depends only on the events learned, not on what each copy selected", () => {
    const a = make(11);
    const b = make(12);
    const rng = Rng.fromSeed(5);
    for (let t = 0; t < 200; t++) {
      const ctx = a.contextDim > 0 ? new Float64Array([rng.normal(), rng.normal(), rng.normal()]) : undefined;
      const d = a.select(ctx);
      b.select(ctx);
      b.select(ctx);
      const event = { ...a.decisionRecord(d), feedback: { reward: rng.uniform() } };
      a.update(d, event.feedback);
      b.learn(event);
      if (t === 50) a.removeArm(a.arms[0] as string);
      if (t === 50) b.removeArm(b.arms[0] as string);
    }
    expect(JSON.stringify(learnedState(b.toJSON()))).toBe(JSON.stringify(learnedState(a.toJSON())));
  });

  it("rejects malformed events with INVALID_EVENT and changes nothing", () => {
    const p = make(2);
    const d = p.select(p.contextDim > 0 ? new Float64Array(D).fill(0.5) : undefined);
    const rec = p.decisionRecord(d);
    const before = JSON.stringify(p.toJSON());
    const bad: unknown[] = [
      null,
      { ...rec },
      { ...rec, feedback: { reward: Number.NaN } },
      { ...rec, v: 2, feedback: { reward: 1 } },
      { ...rec, protocol: "assortment", feedback: { reward: 1 } },
      { ...rec, decision: { ...rec.decision, propensity: 2 }, feedback: { reward: 1 } },
    ];
    if (p.contextDim > 0) bad.push({ ...rec, decision: { ...rec.decision, context: [1] }, feedback: { reward: 1 } });
    for (const e of bad) {
      let err: unknown;
      try {
        p.learn(e as never);
      } catch (x) {
        err = x;
      }
      expect(isRouteKitError(err, ErrorCode.InvalidEvent), String(err)).toBe(true);
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
  });

  it("refuses an event its model update cannot take as INVALID_EVENT (not NUMERICAL / OUT_OF_RANGE), changing nothing", () => {
    if (make(0).contextDim === 0) return;
    const learnCode = (p: ArmPolicy, e: unknown): string | undefined => {
      try {
        p.learn(e as never);
        return undefined;
      } catch (x) {
        return isRouteKitError(x) ? x.code : String(x);
      }
    };
    // A context another policy logged whose squared norm overflows (select refuses it with OUT_OF_RANGE): the ridge
    // step overflowed and learn threw NUMERICAL.
    const p = make(3);
    const rec = p.decisionRecord(p.select(new Float64Array(D).fill(0.5)));
    const before = JSON.stringify(p.toJSON());
    const huge = { ...rec, decision: { ...rec.decision, context: [1e300, 1e300, 1e300] }, feedback: { reward: 0.5 } };
    expect(learnCode(p, huge)).toBe(ErrorCode.InvalidEvent);
    expect(JSON.stringify(p.toJSON())).toBe(before);
    // Contexts select accepts, with rewards whose ridge step may overflow (LinUCB-disjoint's does, NUMERICAL from
    // update): learn of the same event refuses what update refuses, as INVALID_EVENT, and accepts what it accepts.
    for (const [x, reward] of [
      [1e100, 1e308],
      [1e150, 1],
      [1e153, 1e10],
    ] as const) {
      const q = make(4);
      const twin = make(4);
      const d = q.select(new Float64Array(D).fill(x));
      twin.select(new Float64Array(D).fill(x));
      const event = JSON.parse(JSON.stringify({ ...q.decisionRecord(d), feedback: { reward } }));
      const mid = JSON.stringify(learnedState(twin.toJSON()));
      let byUpdate: string | undefined;
      try {
        q.update(d, { reward });
      } catch (e) {
        byUpdate = isRouteKitError(e) ? e.code : String(e);
      }
      const byLearn = learnCode(twin, event);
      expect(byLearn, `context ${x}, reward ${reward}: update ${byUpdate}`).toBe(
        byUpdate === undefined ? undefined : ErrorCode.InvalidEvent,
      );
      if (byLearn !== undefined) expect(JSON.stringify(learnedState(twin.toJSON()))).toBe(mid);
      else expect(JSON.stringify(learnedState(twin.toJSON()))).toBe(JSON.stringify(learnedState(q.toJSON())));
    }
  });

  it("accepts and ignores an event for an arm that is not live; keeps the id of a removed arm's pending decision", () => {
    const p = make(3);
    const d = p.select(p.contextDim > 0 ? new Float64Array(D).fill(0.5) : undefined);
    const rec = p.decisionRecord(d);
    const other = p.arms.find((x) => x !== d.arm) as string;
    p.removeArm(d.arm);
    expect(p.decisionRecord(d).decision.arm).toBe(d.arm);
    const before = JSON.stringify(p.toJSON());
    p.learn({ ...rec, feedback: { reward: 1 } });
    expect(JSON.stringify(p.toJSON())).toBe(before);
    p.update(d, { reward: 1 });
    expect(other).toBeDefined();
  });
});

describe.each(makers.filter(([name]) => name.startsWith("linucb")))("%s events for arms it lacks", (_name, make) => {
  it("refuses a malformed decision naming a removed or unknown arm as it does for a live arm; a valid one changes nothing", () => {
    const p = make(5);
    const d = p.select(new Float64Array(D).fill(0.5));
    const rec = JSON.parse(JSON.stringify({ ...p.decisionRecord(d), feedback: { reward: 0.5 } })) as ArmEvent;
    // A context whose squared norm overflows (select refuses it with OUT_OF_RANGE).
    checkArmsLackedRefusedAlike(p, d.arm, rec, [
      { ...rec, decision: { ...rec.decision, context: [1e300, 1e300, 1e300] } },
    ]);
  });
});
