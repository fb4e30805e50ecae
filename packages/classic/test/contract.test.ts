import { type ArmDecision, ErrorCode, makeSnapshot, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { CLASSIC_SNAPSHOT_VERSION } from "../src/index.js";
import { CASES, context, D, drive, expectRejects } from "./helpers.js";

const ARMS = ["a", "b", "c"];

describe.each(CASES)("$name", (c) => {
  it("snapshot round trip is bit-exact and continuing gives the same decisions as never stopping", () => {
    const p = c.create(ARMS, 7);
    const pending: ArmDecision[] = [];
    drive(p, Rng.fromSeed(1), 80, pending);
    expect(p.pendingDecisions).toBeGreaterThan(0);
    const text = JSON.stringify(p.toJSON());
    const q = c.restore(JSON.parse(text));
    expect(JSON.stringify(q.toJSON())).toBe(text);
    expect(q.kind).toBe(p.kind);
    expect(q.arms).toEqual(p.arms);
    expect(q.pendingDecisions).toBe(p.pendingDecisions);
    // Continue both, delivering the feedback of decisions made before the snapshot too.
    const logP = drive(p, Rng.fromSeed(2), 120, [...pending]);
    const logQ = drive(q, Rng.fromSeed(2), 120, [...pending]);
    expect(logQ).toEqual(logP);
    expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
  });

  it("rejects every bad input with a typed error and leaves the state unchanged", () => {
    const p = c.create(ARMS, 3);
    const pending: ArmDecision[] = [];
    drive(p, Rng.fromSeed(4), 30, pending);
    const open = p.select(context(p));
    const used = p.select(context(p));
    p.update(used, { reward: 0.5 });
    const x = context(p);
    if (c.contextDim > 0) {
      expectRejects(p, () => p.select(new Float64Array(D + 1)), ErrorCode.DimensionMismatch);
      expectRejects(p, () => p.select(new Float64Array(D - 1)), ErrorCode.DimensionMismatch);
      expectRejects(p, () => p.select(undefined), ErrorCode.InvalidArgument);
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        const y = (x as Float64Array).slice();
        y[D - 1] = bad;
        expectRejects(p, () => p.select(y), ErrorCode.NonFinite);
      }
    }
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expectRejects(p, () => p.update(open, { reward: bad }), ErrorCode.NonFinite);
      expectRejects(p, () => p.update(open, { reward: 0.5, cost: bad }), ErrorCode.NonFinite);
    }
    expectRejects(p, () => p.update(open, { reward: 0.5, cost: -1 }), ErrorCode.OutOfRange);
    expectRejects(p, () => p.update(open, null as never), ErrorCode.InvalidArgument);
    expectRejects(p, () => p.update(open, { reward: "1" as never }), ErrorCode.InvalidArgument);
    expectRejects(p, () => p.update("nope", { reward: 0.5 }), ErrorCode.UnknownDecision);
    expectRejects(p, () => p.update("d999999", { reward: 0.5 }), ErrorCode.UnknownDecision);
    expectRejects(p, () => p.update({ id: "d01" }, { reward: 0.5 }), ErrorCode.UnknownDecision);
    expectRejects(p, () => p.update(used, { reward: 0.5 }), ErrorCode.DecisionAlreadyUsed);
    expectRejects(p, () => p.update(used.id, { reward: 0.5 }), ErrorCode.DecisionAlreadyUsed);
    expectRejects(p, () => p.removeArm("zz"), ErrorCode.UnknownArm);
    expectRejects(p, () => p.addArm("a"), ErrorCode.DuplicateArm);
    expectRejects(p, () => p.addArm(""), ErrorCode.InvalidArgument);
    expectRejects(p, () => p.addArm(7 as never), ErrorCode.InvalidArgument);
    // The decision still accepts valid feedback afterwards.
    p.update(open, { reward: 0.25 });

    const single = c.create(["a"], 1);
    expectRejects(single, () => single.removeArm("a"), ErrorCode.LastArm);
    if (c.fixed) expectRejects(p, () => p.removeArm("a"), ErrorCode.InvalidState);

    const snap = p.toJSON();
    expect(() => c.restore({ ...snap, kindVersion: 99 })).toThrow(
      expect.objectContaining({ code: ErrorCode.SnapshotVersion }),
    );
    expect(() => c.restore({ ...snap, version: 9 })).toThrow(
      expect.objectContaining({ code: ErrorCode.SnapshotVersion }),
    );
    expect(() => c.restore({ ...snap, kind: "classic/other" })).toThrow(
      expect.objectContaining({ code: ErrorCode.SnapshotKind }),
    );
    const other = CASES.find((o) => o.create(["a"]).kind !== p.kind) ?? CASES[0];
    expect(() => c.restore(other!.create(["a"]).toJSON())).toThrow(
      expect.objectContaining({ code: ErrorCode.SnapshotKind }),
    );
    expect(() => c.restore({ garbage: true } as never)).toThrow(
      expect.objectContaining({ code: ErrorCode.SnapshotCorrupt }),
    );
    expect(() =>
      c.restore(makeSnapshot(p.kind, CLASSIC_SNAPSHOT_VERSION, { ...(snap.state as object), rng: 3 })),
    ).toThrow(expect.objectContaining({ code: ErrorCode.SnapshotCorrupt }));
    expect(() =>
      c.restore(makeSnapshot(p.kind, CLASSIC_SNAPSHOT_VERSION, { ...(snap.state as object), arms: [{ id: "a" }] })),
    ).toThrow(expect.objectContaining({ code: ErrorCode.SnapshotCorrupt }));
  });

  it("adds and removes arms at run time", () => {
    const p = c.create(ARMS, 5);
    const pending: ArmDecision[] = [];
    drive(p, Rng.fromSeed(6), 40, pending);
    p.addArm("new");
    expect(p.arms).toEqual(["a", "b", "c", "new"]);
    const rng = Rng.fromSeed(8);
    let sawNew = false;
    for (let t = 0; t < 400 && !sawNew; t++) {
      const d = p.select(context(p, rng));
      sawNew = d.arm === "new";
      p.update(d, { reward: d.arm === "new" ? 1 : 0 });
    }
    expect(sawNew).toBe(!c.fixed);

    // Remove an arm that has pending decisions: they stay valid, their feedback is ignored.
    const doomed = c.fixed ? "b" : "new";
    let mine: ArmDecision | undefined;
    for (let t = 0; t < 2000 && mine === undefined && !c.fixed; t++) {
      const d = p.select(context(p, rng));
      if (d.arm === doomed) mine = d;
      else p.update(d, { reward: 0 });
    }
    expect(mine === undefined).toBe(c.fixed === true);
    p.removeArm(doomed);
    expect(p.arms).not.toContain(doomed);
    if (mine) {
      const armsBefore = JSON.stringify((p.toJSON().state as { arms: unknown }).arms);
      const pendingBefore = p.pendingDecisions;
      p.update(mine, { reward: 1 });
      expect(JSON.stringify((p.toJSON().state as { arms: unknown }).arms)).toBe(armsBefore);
      expect(p.pendingDecisions).toBe(pendingBefore - 1);
    }
    for (let t = 0; t < 200; t++) {
      const d = p.select(context(p, rng));
      expect(d.arm).not.toBe(doomed);
      p.update(d, { reward: 0.5 });
    }
    // Re-adding an id gives a fresh arm: old pending feedback does not reach it.
    if (!c.fixed) {
      const held = pending.find((d) => d.arm === "a");
      p.removeArm("a");
      p.addArm("a");
      const fresh = JSON.stringify((p.toJSON().state as { arms: { id: string }[] }).arms.at(-1));
      if (held) p.update(held, { reward: 1 });
      const after = (p.toJSON().state as { arms: { id: string }[] }).arms.at(-1);
      expect(after?.id).toBe("a");
      expect(JSON.stringify(after)).toBe(fresh);
    }
  });

  it("select on a policy without arms throws NO_ARMS", () => {
    const p = c.create([], 1);
    expectRejects(p, () => p.select(context(p)), ErrorCode.NoArms);
    p.addArm(c.fixed ? "a" : "z");
    expect(p.select(context(p)).arm).toBe(c.fixed ? "a" : "z");
  });
});
