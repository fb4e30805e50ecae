import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmPolicyOptions,
  type ArmState,
  armsOption,
  asInvalidEvent,
  booleanOption,
  checkDecisionRecord,
  checkEvent,
  DecisionLedger,
  ErrorCode,
  EVENT_VERSION,
  enumOption,
  isRouteKitError,
  makeSnapshot,
  maxPendingOption,
  numberOption,
  Rng,
  RouteKitError,
  readOptions,
  rngOption,
  type Snapshot,
  vectorToJson,
} from "../src/index.js";
import { checkArmsLackedRefusedAlike } from "../src/testing/index.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (!isRouteKitError(e)) throw e;
    return e.code;
  }
  return undefined;
}

describe("option readers follow the error-code rule", () => {
  it("type faults are INVALID_ARGUMENT, NaN/Infinity NON_FINITE, range and integer faults OUT_OF_RANGE", () => {
    const r = { min: 0, max: 1, integer: false };
    expect(numberOption({}, "x", 0.5, r)).toBe(0.5);
    expect(numberOption({ x: 0.25 }, "x", 0.5, r)).toBe(0.25);
    expect(code(() => numberOption({ x: "1" }, "x", 0.5, r))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => numberOption({ x: null }, "x", 0.5, r))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => numberOption({ x: Number.NaN }, "x", 0.5, r))).toBe(ErrorCode.NonFinite);
    expect(code(() => numberOption({ x: Number.POSITIVE_INFINITY }, "x", 0.5, r))).toBe(ErrorCode.NonFinite);
    expect(code(() => numberOption({ x: 1.5 }, "x", 0.5, r))).toBe(ErrorCode.OutOfRange);
    expect(code(() => numberOption({ x: 0 }, "x", 0.5, { min: 0, openMin: true }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => numberOption({ x: 2.5 }, "x", 1, { integer: true }))).toBe(ErrorCode.OutOfRange);
    // An integer option is a safe integer (snapshots read integers back with Number.isSafeInteger).
    expect(numberOption({ x: 2 ** 53 - 1 }, "x", 1, { integer: true })).toBe(2 ** 53 - 1);
    expect(code(() => numberOption({ x: 2 ** 53 }, "x", 1, { integer: true, min: 1 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => numberOption({ x: -(2 ** 53) }, "x", 1, { integer: true }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => maxPendingOption({ maxPending: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(maxPendingOption({})).toBe(100_000);
    expect(code(() => booleanOption({ b: 0 }, "b", true))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => booleanOption({ b: "false" }, "b", true))).toBe(ErrorCode.InvalidArgument);
    expect(booleanOption({ b: false }, "b", true)).toBe(false);
    expect(code(() => enumOption({ e: "c" }, "e", ["a", "b"], "a"))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => readOptions(null, "UCB1"))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => readOptions([], "UCB1"))).toBe(ErrorCode.InvalidArgument);
    expect(readOptions(undefined, "x", true)).toEqual({});
  });

  it("arms: an array of distinct non-empty strings; a string is not split into letters", () => {
    expect(armsOption({ arms: ["a", "b"] })).toEqual(["a", "b"]);
    expect(code(() => armsOption({ arms: "gpt-4o" }))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => armsOption({}))).toBe(ErrorCode.InvalidArgument);
    expect(armsOption({}, false)).toEqual([]);
    expect(code(() => armsOption({ arms: ["a", ""] }))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => armsOption({ arms: ["a", 3] }))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => armsOption({ arms: ["a", "a"] }))).toBe(ErrorCode.DuplicateArm);
  });

  it("rng: an Rng of this library, else a number or string seed", () => {
    expect(code(() => rngOption({ rng: {} }))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => rngOption({ seed: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(rngOption({ seed: 3 }).uniform()).toBe(Rng.fromSeed(3).uniform());
    expect(rngOption({ seed: "a" }).uniform()).toBe(Rng.fromSeed("a").uniform());
  });
});

describe("RouteKitError brand", () => {
  it("is recognised across the ESM source and the CommonJS build (instanceof and isRouteKitError)", () => {
    const require = createRequire(import.meta.url);
    const cjs = require("../dist/index.cjs") as typeof import("../src/index.js");
    const fromCjs = new cjs.RouteKitError(cjs.ErrorCode.OutOfRange, "m");
    expect(isRouteKitError(fromCjs, ErrorCode.OutOfRange)).toBe(true);
    expect(fromCjs instanceof RouteKitError).toBe(true);
    expect(cjs.isRouteKitError(new RouteKitError(ErrorCode.NoArms, "m"))).toBe(true);
    expect(isRouteKitError(new Error("m"))).toBe(false);
    expect(isRouteKitError({ code: "NO_ARMS" })).toBe(false);
  });

  it("an Rng of the CommonJS build is an rng option of the ESM one, and back (was INVALID_ARGUMENT 'must be an Rng')", () => {
    // The runner of one copy hands its policy stream to a factory whose policy comes from the other copy.
    const require = createRequire(import.meta.url);
    const cjs = require("../dist/index.cjs") as typeof import("../src/index.js");
    const fromCjs = cjs.Rng.fromSeed(7);
    expect(fromCjs instanceof Rng).toBe(true);
    expect(rngOption({ rng: fromCjs })).toBe(fromCjs);
    expect(cjs.rngOption({ rng: Rng.fromSeed(7) }).uniform()).toBe(Rng.fromSeed(7).uniform());
    expect({} instanceof Rng).toBe(false);
    expect(Object.create(Rng.prototype) instanceof Rng).toBe(false);
    expect(code(() => rngOption({ rng: { uniform: () => 0.5 } }))).toBe(ErrorCode.InvalidArgument);
  });
});

describe("decision events", () => {
  const armEvent = {
    v: EVENT_VERSION,
    kind: "x/y",
    protocol: "arm",
    id: "d1",
    decision: { arm: "a", context: [1, 2], propensity: 0.5 },
    feedback: { reward: 1, cost: 0.1 },
  };
  it("checkEvent accepts well-formed events of each protocol", () => {
    expect(checkEvent(armEvent, "arm").decision.arm).toBe("a");
    const as = {
      v: 1,
      kind: "mnl/ofu",
      protocol: "assortment",
      id: "d2",
      decision: { items: [3, 7], features: [1, 2, 3, 4] },
      feedback: { choice: 7 },
    };
    expect(checkEvent(as, "assortment").feedback.choice).toBe(7);
    const cs = {
      v: 1,
      kind: "pandora/cosmos",
      protocol: "cascade",
      id: "e1",
      decision: { context: [0], queried: [{ arm: "a", features: [1], cost: 0.1 }], chosen: "a" },
      feedback: { reward: 0.5 },
    };
    expect(checkEvent(cs, "cascade").decision.chosen).toBe("a");
  });

  it("rejects malformed events with INVALID_EVENT naming the field", () => {
    const bad: [unknown, string][] = [
      [null, ""],
      [{ ...armEvent, v: 2 }, "v"],
      [{ ...armEvent, protocol: "cascade" }, "protocol"],
      [{ ...armEvent, id: "" }, "id"],
      [{ ...armEvent, feedback: undefined }, "feedback"],
      [{ ...armEvent, feedback: { reward: Number.NaN } }, "feedback.reward"],
      [{ ...armEvent, feedback: { reward: 1, cost: -1 } }, "feedback.cost"],
      [{ ...armEvent, decision: { arm: "a", context: [1, "2"] } }, "decision.context[1]"],
      [{ ...armEvent, decision: { arm: "a", context: [1], propensity: 0 } }, "decision.propensity"],
      [{ ...armEvent, protocol: "assortment", decision: { items: [1, 1], features: [1, 2] } }, "decision.items[1]"],
    ];
    for (const [e, field] of bad) {
      let err: unknown;
      try {
        checkEvent(e, (e as { protocol?: string } | null)?.protocol === "assortment" ? "assortment" : "arm");
      } catch (x) {
        err = x;
      }
      expect(isRouteKitError(err, ErrorCode.InvalidEvent), String(err)).toBe(true);
      expect((err as Error).message).toContain(field);
    }
  });

  it("messages name the field once, and a missing value as undefined (an array hole read 'event  must be')", () => {
    const message = (e: unknown) => {
      try {
        checkEvent(e, "arm");
      } catch (x) {
        return (x as Error).message;
      }
      return "accepted";
    };
    expect(message(undefined)).toBe(
      "event must be an object { v, kind, protocol, id, decision, feedback }, got undefined",
    );
    expect(message(null)).toMatch(/^event must be an object .*, got null$/);
    expect(message({ ...armEvent, feedback: undefined })).toMatch(
      /^event feedback must be an object .*, got undefined$/,
    );
  });

  it("checkDecisionRecord accepts a record without feedback and refuses what is no decision record", () => {
    const { feedback: _, ...record } = armEvent;
    expect(checkDecisionRecord(record, "arm").decision.arm).toBe("a");
    const cs = {
      v: 1,
      kind: "pandora/cosmos",
      protocol: "cascade",
      id: "e1",
      decision: { context: [0], queried: [{ arm: "a", features: [1], cost: 0.1 }], chosen: "a" },
    };
    expect(checkDecisionRecord(cs, "cascade").id).toBe("e1");
    const as = { v: 1, kind: "mnl/ofu", protocol: "assortment", id: "d2", decision: { items: [3], features: [1] } };
    expect(checkDecisionRecord(as, "assortment").id).toBe("d2");
    const bad: [unknown, string][] = [
      [{}, "v"],
      [{ hello: "world" }, "v"],
      [[], "an object { v, kind, protocol, id, decision }"],
      [{ ...record, protocol: "cascade" }, "protocol"],
      [{ ...record, id: 3 }, "id"],
      [{ ...record, decision: { arm: "a", context: [1, Number.NaN] } }, "decision.context[1]"],
      [{ ...record, decision: { arm: "a", context: [1], propensity: 2 } }, "decision.propensity"],
      [armEvent, "feedback"], // an event with feedback is no record: checkEvent reads those
    ];
    for (const [e, field] of bad) {
      let err: unknown;
      try {
        checkDecisionRecord(e, "arm");
      } catch (x) {
        err = x;
      }
      expect(isRouteKitError(err, ErrorCode.InvalidEvent), String(err)).toBe(true);
      expect((err as Error).message).toContain(field);
    }
  });

  it("checkEvent returns a plain copy, every field and element read once (a getter cannot pass validation and then change)", () => {
    // Before: checkEvent returned the caller's object, so a policy read decision.arm again after validation (UCB1
    // learned an event for arm "b" that had been validated as arm "a").
    const reads = new Map<string, number>();
    const counted = <T>(name: string, values: T[]) => {
      return () => {
        const n = reads.get(name) ?? 0;
        reads.set(name, n + 1);
        return values[Math.min(n, values.length - 1)] as T;
      };
    };
    const context = new Proxy([1, 2], {
      get(t, k, r) {
        if (k === "0") return counted("context[0]", [1, Number.NaN])();
        return Reflect.get(t, k, r);
      },
    });
    const decision = {};
    Object.defineProperty(decision, "arm", { enumerable: true, get: counted("arm", ["a", "zzz"]) });
    Object.defineProperty(decision, "context", { enumerable: true, get: counted("context", [context, [9, 9, 9]]) });
    const feedback = {};
    Object.defineProperty(feedback, "reward", { enumerable: true, get: counted("reward", [1, Number.NaN]) });
    const event = { v: 1, kind: "x/y", protocol: "arm", id: "d1" };
    Object.defineProperty(event, "decision", { enumerable: true, get: counted("decision", [decision, null]) });
    Object.defineProperty(event, "feedback", { enumerable: true, get: counted("feedback", [feedback, null]) });
    const ev = checkEvent(event, "arm");
    expect(ev === (event as unknown)).toBe(false); // (not.toBe would read the getters for its message)
    expect([ev.decision.arm, ev.decision.context, ev.feedback.reward]).toEqual(["a", [1, 2], 1]);
    expect([ev.decision.arm, ev.decision.context, ev.feedback.reward]).toEqual(["a", [1, 2], 1]);
    expect(Object.fromEntries(reads)).toEqual({
      decision: 1,
      feedback: 1,
      arm: 1,
      context: 1,
      "context[0]": 1,
      reward: 1,
    });
    // Cascade boxes and assortment rows are copied too.
    const box = { arm: "a", features: [1], cost: 0.1 };
    const cs = {
      v: 1,
      kind: "pandora/cosmos",
      protocol: "cascade",
      id: "e1",
      decision: { context: [0], queried: [box], chosen: "a" },
      feedback: { reward: 0.5 },
    };
    const cev = checkEvent(cs, "cascade");
    box.cost = -1;
    box.features[0] = Number.NaN;
    expect(cev.decision.queried[0]).toEqual({ arm: "a", features: [1], cost: 0.1 });
    // A cyclic event is INVALID_EVENT, not a stack overflow.
    const cyclic: Record<string, unknown> = { ...armEvent, decision: { arm: "a", context: null } };
    (cyclic.decision as Record<string, unknown>).state = cyclic;
    let err: unknown;
    try {
      checkEvent(cyclic, "arm");
    } catch (x) {
      err = x;
    }
    expect(isRouteKitError(err, ErrorCode.InvalidEvent), String(err)).toBe(true);
  });

  it("vectorToJson writes -0 as 0 so a JSON round trip is bit-exact", () => {
    const v = vectorToJson(new Float64Array([-0, 1.5, -2]));
    expect(Object.is(v[0], 0)).toBe(true);
    expect(JSON.parse(JSON.stringify(v))).toEqual([0, 1.5, -2]);
  });
});

describe("DecisionLedger eviction", () => {
  it("evicts the oldest still-pending decision when full, whatever the settle order", () => {
    const l = new DecisionLedger<number>({ encode: (p) => p, decode: (j) => j as number }, { maxPending: 3 });
    const ids = [l.issue(0), l.issue(1), l.issue(2)];
    l.settle(ids[0] as string);
    l.settle(ids[1] as string);
    const d3 = l.issue(3);
    const d4 = l.issue(4);
    const d5 = l.issue(5); // evicts d2 (ids[2]), the oldest pending
    expect(code(() => l.get(ids[2] as string))).toBe(ErrorCode.DecisionExpired);
    expect(l.get(d3)).toBe(3);
    l.issue(6); // evicts d3
    expect(code(() => l.get(d3))).toBe(ErrorCode.DecisionExpired);
    expect(l.get(d4)).toBe(4);
    expect(l.get(d5)).toBe(5);
    const restored = new DecisionLedger<number>({ encode: (p) => p, decode: (j) => j as number }, { maxPending: 3 });
    restored.loadJSON(l.toJSON());
    restored.issue(7); // evicts d4 after a restore too
    expect(code(() => restored.get(d4))).toBe(ErrorCode.DecisionExpired);
    expect(restored.get(d5)).toBe(5);
  });

  it("keeps a full ledger's per-decision work constant (eviction never walks settled entries)", () => {
    // Counts Map lookups the eviction makes: with settles in issue order they stay at one per decision.
    const l = new DecisionLedger<number>({ encode: (p) => p, decode: (j) => j as number }, { maxPending: 1000 });
    const pending = (l as unknown as { pending: Map<number, number> }).pending;
    let gets = 0;
    const get = pending.get.bind(pending);
    pending.get = (k: number) => {
      gets++;
      return get(k);
    };
    for (let i = 0; i < 5000; i++) l.issue(i);
    gets = 0;
    for (let i = 0; i < 5000; i++) l.issue(i);
    expect(gets).toBe(5000);
  });
});

describe("asInvalidEvent: a learning step's refusals are INVALID_EVENT", () => {
  it("turns NUMERICAL and OUT_OF_RANGE into INVALID_EVENT with the message kept; other errors pass through", () => {
    for (const c of [ErrorCode.Numerical, ErrorCode.OutOfRange]) {
      const got = asInvalidEvent(new RouteKitError(c, "the ridge step overflows"));
      expect(isRouteKitError(got, "INVALID_EVENT")).toBe(true);
      expect((got as Error).message).toBe("event cannot be learned: the ridge step overflows");
    }
    const other = new RouteKitError(ErrorCode.InvalidState, "x");
    expect(asInvalidEvent(other)).toBe(other);
    const plain = new TypeError("a bug");
    expect(asInvalidEvent(plain)).toBe(plain);
  });
});

/**
 * An arm policy whose events must carry `decision.state.ok === true` (INVALID_EVENT otherwise) and
 * `decision.state.scale <= 1` when given (OUT_OF_RANGE, as a model bound would be), checked in checkEventDecision.
 */
class StatefulEvents extends ArmPolicyBase<ArmState & { n: number }, number> {
  readonly kind = "test/stateful-events";
  constructor(options: ArmPolicyOptions) {
    super(options, { encode: (u) => u, decode: (j) => j as number });
    this.addInitialArms(options);
  }
  protected createArm(uid: number) {
    return { uid, n: 0 };
  }
  protected choose() {
    const s = this.table.states[0] as ArmState;
    return { id: this.ledger.issue(s.uid), arm: this.table.ids[0] as string };
  }
  protected applyFeedback(state: { n: number }, _p: number, _fb: ArmFeedback): void {
    state.n++;
  }
  protected uidOf(p: number): number {
    return p;
  }
  protected override eventState(): { ok: boolean } {
    return { ok: true };
  }
  protected override checkEventDecision(event: ArmEvent): void {
    const st = event.decision.state as { ok?: unknown; scale?: number } | undefined;
    if (st?.ok !== true) throw new RouteKitError(ErrorCode.InvalidEvent, "event decision.state.ok must be true");
    if (st.scale !== undefined && st.scale > 1) {
      throw new RouteKitError(ErrorCode.OutOfRange, `scale must be <= 1, got ${st.scale}`);
    }
  }
  protected payloadFromEvent(_e: ArmEvent, state: ArmState): number {
    return state.uid;
  }
  protected encodeArm(s: { n: number }) {
    return { n: s.n };
  }
  toJSON(): Snapshot {
    return makeSnapshot(this.kind, 1, this.baseState());
  }
}

describe("ArmPolicyBase.learn checks every event's decision, whatever arm it names", () => {
  it("refuses a malformed decision naming a removed or unknown arm as for a live arm, changing nothing; a valid one is ignored", () => {
    const p = new StatefulEvents({ arms: ["a", "b"] });
    const d = p.select();
    const rec = JSON.parse(JSON.stringify({ ...p.decisionRecord(d), feedback: { reward: 1 } })) as ArmEvent;
    const bad: ArmEvent[] = [
      { ...rec, decision: { ...rec.decision, state: { ok: false } } },
      { ...rec, decision: { arm: rec.decision.arm, context: null } },
      // A hook's OUT_OF_RANGE is INVALID_EVENT, as the learning step's is.
      { ...rec, decision: { ...rec.decision, state: { ok: true, scale: 2 } } },
    ];
    expect(() => p.learn(bad[2] as ArmEvent)).toThrow("event cannot be learned: scale must be <= 1, got 2");
    checkArmsLackedRefusedAlike(p, d.arm, rec, bad);
    // A valid event naming a live arm is learned.
    const before = JSON.stringify(p.toJSON());
    p.learn({ ...rec, decision: { ...rec.decision, arm: "b" } });
    expect(JSON.stringify(p.toJSON())).not.toBe(before);
  });
});
