import { ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { checkArmsLackedRefusedAlike } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { unitVector } from "./helpers.js";
import { routers } from "./policies.js";

const D = 5;
const ARMS = ["a", "b", "c"];

function expectCode(fn: () => unknown, code: string): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(isRouteKitError(err), String(err)).toBe(true);
  expect((err as { code: string }).code).toBe(code);
}

/** `event` naming `arm` as its chosen model, in decision.arm and (when present) in decision.state.arms. */
function naming(event: Record<string, unknown>, arm: string): Record<string, unknown> {
  const d = event.decision as { arm: string; state?: { arms?: unknown } };
  const st = d.state;
  const state =
    st !== undefined && Array.isArray(st.arms)
      ? { ...st, arms: st.arms.map((a: unknown) => (a === d.arm ? arm : a)) }
      : st;
  return { ...event, decision: { ...d, arm, state } };
}

describe.each(routers)("%s", (_name, make, restore) => {
  it("update equals learn of the decision record plus feedback, bit for bit, with late feedback", () => {
    const a = make({ arms: ARMS, contextDim: D, seed: 1, horizon: 500 });
    const b = make({ arms: ARMS, contextDim: D, seed: 1, horizon: 500 });
    const rng = Rng.fromSeed(7);
    const open: { id: string }[] = [];
    for (let t = 0; t < 200; t++) {
      const q = unitVector(rng, D);
      q[2] = -0;
      const d = a.select(q);
      b.select(q);
      open.push(d);
      while (open.length > 4 || (open.length > 0 && rng.uniform() < 0.3)) {
        const dec = open.splice(rng.int(open.length), 1)[0] as { id: string };
        const fb = { reward: 2 * rng.uniform() - 1 };
        const event = JSON.parse(JSON.stringify({ ...a.decisionRecord(dec), feedback: fb }));
        a.update(dec, fb);
        b.learn(event);
        b.discard(dec);
      }
    }
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
  });

  it("snapshot round trip (through JSON text) continues with exactly the same decisions", () => {
    const a = make({ arms: ARMS, contextDim: D, seed: 3, horizon: 300 });
    const rng = Rng.fromSeed(9);
    const pending: string[] = [];
    for (let t = 0; t < 120; t++) {
      const d = a.select(unitVector(rng, D));
      pending.push(d.id);
      if (pending.length > 2) a.update(pending.shift() as string, { reward: rng.uniform() });
    }
    const b = restore(JSON.parse(JSON.stringify(a.toJSON())));
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
    for (let t = 0; t < 60; t++) {
      const q = unitVector(rng, D);
      const da = a.select(q);
      const db = b.select(q);
      expect(db.arm).toBe(da.arm);
      expect(db.propensity).toBe(da.propensity);
      expect(db.id).toBe(da.id);
      pending.push(da.id);
      const id = pending.shift() as string;
      const fb = { reward: rng.uniform() };
      a.update(id, fb);
      b.update(id, fb);
    }
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
  });

  it("propensity is the sampled model's probability; probabilities sum to 1; a fresh router is uniform", () => {
    const p = make({ arms: ARMS, contextDim: D, seed: 4 });
    const q = unitVector(Rng.fromSeed(1), D);
    const pi = p.probabilities(q);
    for (const v of pi) expect(v).toBeCloseTo(1 / 3, 14);
    const d = p.select(q);
    expect(d.propensity).toBe(pi[ARMS.indexOf(d.arm)]);
    for (let t = 0; t < 50; t++) p.update(p.select(q), { reward: 1 });
    const after = p.probabilities(q);
    expect(Array.from(after).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
  });

  it("bad input gets typed errors and leaves the state unchanged", () => {
    const p = make({ arms: ARMS, contextDim: D, seed: 5 });
    const rng = Rng.fromSeed(2);
    const d = p.select(unitVector(rng, D));
    const before = JSON.stringify(p.toJSON());
    expectCode(() => p.select(new Float64Array(D).fill(1)), ErrorCode.OutOfRange); // norm sqrt(5) > 1
    expectCode(() => p.select(new Float64Array(D + 1)), ErrorCode.DimensionMismatch);
    expectCode(() => p.select(Float64Array.of(Number.NaN, 0, 0, 0, 0)), ErrorCode.NonFinite);
    expectCode(() => p.update("nope", { reward: 1 }), ErrorCode.UnknownDecision);
    expectCode(() => p.update(d, { reward: Number.POSITIVE_INFINITY }), ErrorCode.NonFinite);
    const rec = p.decisionRecord(d);
    expectCode(
      () => p.learn({ ...rec, decision: { ...rec.decision, state: undefined }, feedback: { reward: 1 } } as never),
      ErrorCode.InvalidEvent,
    );
    expectCode(
      () =>
        p.learn({
          ...rec,
          decision: { ...rec.decision, state: { arms: ["a"], probs: [1] } },
          feedback: { reward: 1 },
        } as never),
      ErrorCode.InvalidEvent,
    );
    expectCode(
      () =>
        p.learn({ ...rec, decision: { ...rec.decision, context: [1, 1, 1, 1, 1] }, feedback: { reward: 1 } } as never),
      ErrorCode.InvalidEvent,
    );
    expect(JSON.stringify(p.toJSON())).toBe(before);
    const strict = make({ arms: ARMS, contextDim: D, seed: 5, ...({ clipRewards: false } as object) });
    const ds = strict.select(unitVector(rng, D));
    const sb = JSON.stringify(strict.toJSON());
    expectCode(() => strict.update(ds, { reward: 1.5 }), ErrorCode.OutOfRange);
    expect(JSON.stringify(strict.toJSON())).toBe(sb);
    strict.update(ds, { reward: -1 });
  });

  it("normalizeContext scales raw embeddings to unit norm", () => {
    const p = make({ arms: ARMS, contextDim: D, seed: 6, ...({ normalizeContext: true } as object) });
    const d = p.select(new Float64Array(D).fill(3));
    p.update(d, { reward: 1 });
    expectCode(() => p.select(new Float64Array(D)), ErrorCode.OutOfRange);
  });

  it("arms can be added and removed; feedback for a removed model is accepted and ignored", () => {
    const p = make({ arms: ARMS, contextDim: D, seed: 8 });
    const rng = Rng.fromSeed(3);
    const d = p.select(unitVector(rng, D));
    p.addArm("d");
    p.removeArm(d.arm);
    p.update(d, { reward: 1 });
    expect(p.pendingDecisions).toBe(0);
    const d2 = p.select(unitVector(rng, D));
    expect(p.arms).toContain(d2.arm);
    p.update(d2, { reward: 0.5 });
  });

  it("a record made after its model was removed says so; learn ignores it, as update does, after a re-add", () => {
    const rng = Rng.fromSeed(4);
    const a = make({ arms: ARMS, contextDim: D, seed: 9 });
    const b = make({ arms: ARMS, contextDim: D, seed: 9 });
    const q = unitVector(rng, D);
    const d = a.select(q);
    const db = b.select(q);
    expect(a.decisionRecord(d).decision.retired).toBeUndefined();
    for (const p of [a, b]) {
      p.removeArm(d.arm);
      p.addArm(d.arm);
    }
    const event = JSON.parse(JSON.stringify({ ...a.decisionRecord(d), feedback: { reward: 1 } }));
    expect(event.decision.retired).toBe(true);
    const before = JSON.stringify(a.toJSON());
    a.update(d, { reward: 1 });
    b.learn(event);
    b.discard(db);
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
    // Nothing was learned: only the pending decision is gone.
    expect(JSON.stringify(a.toJSON())).not.toBe(before);
    const c = make({ arms: ARMS, contextDim: D, seed: 9 });
    const s0 = JSON.stringify(c.toJSON());
    c.learn(event);
    expect(JSON.stringify(c.toJSON())).toBe(s0);
    expectCode(() => c.learn({ ...event, decision: { ...event.decision, retired: 1 } }), ErrorCode.InvalidEvent);
  });

  it("refuses a malformed decision naming a removed or unknown model as it does for a live one; a valid one changes nothing", () => {
    const p = make({ arms: ARMS, contextDim: D, seed: 10 });
    const d = p.select(unitVector(Rng.fromSeed(5), D));
    const rec = JSON.parse(JSON.stringify({ ...p.decisionRecord(d), feedback: { reward: 0.5 } }));
    const st = rec.decision.state as { probs: number[] };
    const bad = [
      // probabilities summing to 2
      { ...rec, decision: { ...rec.decision, state: { ...st, probs: st.probs.map((v) => 2 * v) } } },
      // no routing distribution (another kind of policy's event)
      { ...rec, decision: { arm: rec.decision.arm, context: rec.decision.context } },
      // a query of norm sqrt(5)
      { ...rec, decision: { ...rec.decision, context: new Array(D).fill(1) } },
    ];
    checkArmsLackedRefusedAlike(p, d.arm, rec, bad, (e, arm) => naming(e as never, arm) as never);
  });

  it("rejects bad options with the vocabulary's codes", () => {
    expectCode(() => make({ arms: ARMS } as never), ErrorCode.InvalidArgument);
    expectCode(() => make({ arms: ARMS, contextDim: 0 }), ErrorCode.OutOfRange);
    expectCode(() => make({ arms: ARMS, contextDim: D, horizon: 0 }), ErrorCode.OutOfRange);
    expectCode(() => make({ arms: ARMS, contextDim: D, horizon: Number.NaN }), ErrorCode.NonFinite);
  });
});
