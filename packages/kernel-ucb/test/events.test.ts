import {
  type ArmEvent,
  type ArmPolicy,
  ErrorCode,
  isRouteKitError,
  learnedState,
  Rng,
  withReplicaParts,
} from "@routekit/core";
import { checkArmsLackedRefusedAlike } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { PakUcb, RffUcb } from "../src/index.js";
import { family } from "./family.js";

const learned = (p: ArmPolicy) => JSON.stringify(learnedState(p.toJSON()));

describe.each(family)("$name decision events", (m) => {
  it("update equals learn of the decision record plus feedback, bit for bit, with late and out-of-order feedback", () => {
    const a = m.make({ arms: ["a", "b", "c"], seed: 1 });
    const b = m.make({ arms: ["a", "b", "c"], seed: 1 });
    const rng = Rng.fromSeed(7);
    const open: { id: string }[] = [];
    for (let t = 0; t < 150; t++) {
      // -0 and unnormalised magnitudes: the payload keeps the context as received, normalised at update.
      const ctx = new Float64Array([rng.normal() * 3, -0, rng.normal()]);
      const d = a.select(ctx);
      expect(b.select(ctx)).toEqual(d);
      open.push(d);
      while (open.length > 5 || (open.length > 0 && rng.uniform() < 0.3)) {
        const dec = open.splice(rng.int(open.length), 1)[0] as { id: string };
        const fb = { reward: rng.uniform() };
        const event = JSON.parse(JSON.stringify({ ...a.decisionRecord(dec), feedback: fb }));
        a.update(dec, fb);
        b.learn(event);
        b.discard(dec);
      }
    }
    expect(learned(b)).toBe(learned(a));
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
  });

  it("a policy warm-started from a JSON log of events equals the one that decided", () => {
    const a = m.make({ arms: ["a", "b"], seed: 2 });
    const rng = Rng.fromSeed(8);
    const log: ArmEvent[] = [];
    for (let t = 0; t < 60; t++) {
      const d = a.select(new Float64Array([rng.normal(), rng.normal(), rng.normal()]));
      const fb = { reward: rng.uniform() };
      log.push(JSON.parse(JSON.stringify({ ...a.decisionRecord(d), feedback: fb })));
      a.update(d, fb);
    }
    const b = m.make({ arms: ["a", "b"], seed: 2 });
    for (const e of log) b.learn(e);
    expect(learned(b)).toBe(learned(a));
    // The decision records survive a snapshot round trip.
    const c = a.select(new Float64Array([1, 2, 3]));
    const restored = m.restore(JSON.parse(JSON.stringify(a.toJSON())));
    expect(restored.decisionRecord(c)).toEqual(a.decisionRecord(c));
  });

  it("learned state depends only on the events learned, not on what each copy selected", () => {
    const a = m.make({ arms: ["a", "b", "c"], seed: 11 });
    // A replica starts from another's snapshot with its own random stream and no pending decisions.
    const b = m.restore(JSON.parse(JSON.stringify(withReplicaParts(a.toJSON(), Rng.fromSeed(12)))));
    const rng = Rng.fromSeed(5);
    for (let t = 0; t < 120; t++) {
      const ctx = new Float64Array([rng.normal(), rng.normal(), rng.normal()]);
      const d = a.select(ctx);
      b.select(ctx);
      b.select(ctx);
      const event = { ...a.decisionRecord(d), feedback: { reward: rng.uniform() } };
      a.update(d, event.feedback);
      b.learn(event);
      if (t === 50) a.removeArm(a.arms[0] as string);
      if (t === 50) b.removeArm(b.arms[0] as string);
    }
    expect(learned(b)).toBe(learned(a));
  });

  it("rejects malformed events with INVALID_EVENT and changes nothing", () => {
    const p = m.make({ arms: ["a", "b"], seed: 3 });
    const d = p.select(new Float64Array([0.5, 0.5, 0.5]));
    const rec = p.decisionRecord(d);
    const before = JSON.stringify(p.toJSON());
    const bad: unknown[] = [
      null,
      { ...rec },
      { ...rec, feedback: { reward: Number.NaN } },
      { ...rec, v: 2, feedback: { reward: 1 } },
      { ...rec, protocol: "assortment", feedback: { reward: 1 } },
      { ...rec, decision: { ...rec.decision, context: [1] }, feedback: { reward: 1 } },
      { ...rec, decision: { ...rec.decision, context: null }, feedback: { reward: 1 } },
      { ...rec, decision: { ...rec.decision, context: [1, Number.NaN, 0] }, feedback: { reward: 1 } },
    ];
    if (m.name.startsWith("sup")) {
      // Sup-* need the stage the round was filed into; another policy's event does not carry it.
      bad.push({ ...rec, decision: { arm: rec.decision.arm, context: rec.decision.context }, feedback: { reward: 1 } });
      bad.push({ ...rec, decision: { ...rec.decision, state: { stage: 99 } }, feedback: { reward: 1 } });
    }
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
    // A reward beyond the learnable range is refused by learn too, before anything changes.
    expect(() => p.learn({ ...rec, feedback: { reward: 1e300 } })).toThrow();
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });

  it("accepts and ignores an event for an arm that is not live (also after re-adding the same id)", () => {
    const p = m.make({ arms: ["a", "b"], seed: 4 });
    const d = p.select(new Float64Array([0.5, 0.1, 0.2]));
    const rec = { ...p.decisionRecord(d), feedback: { reward: 1 } };
    p.removeArm(d.arm);
    expect(p.decisionRecord(d).decision.arm).toBe(d.arm);
    const gone = JSON.stringify(p.toJSON());
    p.learn(rec);
    expect(JSON.stringify(p.toJSON())).toBe(gone);
    p.update(d, { reward: 1 });
    expect(p.pendingDecisions).toBe(0);
  });
});

const recordOf = (p: ArmPolicy, d: { id: string }) =>
  JSON.parse(JSON.stringify({ ...p.decisionRecord(d), feedback: { reward: 1 } })) as ArmEvent;

describe.each(family.filter((m) => m.name.startsWith("sup")))("$name events for arms it lacks", (m) => {
  it("refuses a malformed decision.state naming a removed or unknown arm as it does for a live arm; a valid one changes nothing", () => {
    const p = m.make({ arms: ["a", "b"], seed: 5 });
    const d = p.select(new Float64Array([0.5, 0.1, 0.2]));
    const rec = recordOf(p, d);
    checkArmsLackedRefusedAlike(p, d.arm, rec, [
      { ...rec, decision: { ...rec.decision, state: { stage: 99 } } },
      // Another policy's event: no stage.
      { ...rec, decision: { arm: rec.decision.arm, context: rec.decision.context } },
    ]);
  });
});

describe.each(family)("$name unnormalised events for arms it lacks", (m) => {
  it("refuses a context too large to learn naming a removed or unknown arm as it does for a live arm", () => {
    // A polynomial kernel (RFF-UCB approximates only the RBF kernel) adds the kernel-scale check to the norm bound.
    const poly = m.name.includes("rff") ? {} : { kernel: { type: "poly", gamma: 5 } };
    const p = m.make({ arms: ["a", "b"], seed: 5, normalizeContext: false, ...poly });
    const d = p.select(new Float64Array([0.5, 0.1, 0.2]));
    const rec = recordOf(p, d);
    const withContext = (context: number[]) => ({ ...rec, decision: { ...rec.decision, context } });
    // ||y||^2 = 1e14 is above MAX_CONTEXT_NORM2; ||y||^2 = 1e6 is within it, but k(y, y) is too large for the ridge.
    checkArmsLackedRefusedAlike(
      p,
      d.arm,
      rec,
      m.name.includes("rff") ? [withContext([1e7, 0, 0])] : [withContext([1e7, 0, 0]), withContext([1000, 0, 0])],
    );
  });
});

describe("events across kinds", () => {
  it("an RFF-UCB event teaches PAK-UCB exactly what a PAK-UCB decision on the same context would", () => {
    const rff = new RffUcb({ arms: ["a", "b"], contextDim: 3, frequencies: 8, seed: 1 });
    const pak1 = new PakUcb({ arms: ["a", "b"], contextDim: 3, seed: 1 });
    const pak2 = new PakUcb({ arms: ["a", "b"], contextDim: 3, seed: 1 });
    const rng = Rng.fromSeed(9);
    for (let t = 0; t < 40; t++) {
      const x = new Float64Array([rng.normal(), rng.normal(), rng.normal()]);
      const d = rff.select(x);
      const fb = { reward: rng.uniform() };
      const event = { ...rff.decisionRecord(d), feedback: fb };
      rff.update(d, fb);
      pak1.learn(event);
      pak2.learn({ ...event, kind: PakUcb.kind });
    }
    expect(JSON.stringify(pak1.toJSON())).toBe(JSON.stringify(pak2.toJSON()));
    expect(pak1.visits().a + pak1.visits().b).toBe(40);
  });
});
