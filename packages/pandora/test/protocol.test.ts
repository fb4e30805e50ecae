import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade } from "../src/index.js";

const make = () =>
  new Cosmos({ arms: ["mini", "standard", "frontier"], contextDim: 2, outputDim: 2, rewardParameter: [1, 0] });
const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });

/** Runs fn, expects the error code and an unchanged snapshot. */
function rejects(p: Cosmos, c: string, fn: () => unknown) {
  const before = JSON.stringify(p.toJSON());
  expect(fn).toThrow(code(c));
  expect(JSON.stringify(p.toJSON())).toBe(before);
}

describe("bad input gets typed errors and leaves the state intact", () => {
  it("options", () => {
    expect(() => make()).not.toThrow();
    expect(() => new Cosmos({ arms: [], contextDim: 2, outputDim: 2 })).toThrow(code("INVALID_ARGUMENT"));
    expect(() => new Cosmos({ arms: ["a", "a"], contextDim: 2, outputDim: 2 })).toThrow(code("DUPLICATE_ARM"));
    expect(() => new Cosmos({ arms: ["a"], contextDim: 2, outputDim: 2, exploration: -1 })).toThrow(
      code("OUT_OF_RANGE"),
    );
    expect(() => new Cosmos({ arms: ["a"], contextDim: 2, outputDim: 2, ridge: Number.NaN })).toThrow(
      code("NON_FINITE"),
    );
    expect(() => new Cosmos({ arms: ["a"], contextDim: 2, outputDim: 2, rewardParameter: [1] })).toThrow(
      code("DIMENSION_MISMATCH"),
    );
    expect(() => new Cosmos({ arms: ["a"], contextDim: 2, outputDim: 2, radiusMode: "theory" })).toThrow(
      code("INVALID_ARGUMENT"),
    );
    expect(() => new Cosmos({ arms: ["a"], contextDim: 2, outputDim: 2, refit: "sometimes" as never })).toThrow(
      code("INVALID_ARGUMENT"),
    );
    expect(() => new Cosmos({ arms: ["a"], contextDim: 2, outputDim: 2, maxPending: 0 })).toThrow(code("OUT_OF_RANGE"));
    expect(() => new ThresholdCascade({ arms: [], contextDim: 1, outputDim: 1 })).toThrow(code("INVALID_ARGUMENT"));
    expect(() => new QueryAll({ arms: ["a"], contextDim: 1, outputDim: 0 })).toThrow(code("OUT_OF_RANGE"));
    expect(() => new OneShot({ arms: ["a"], contextDim: -1, outputDim: 1 })).toThrow(code("OUT_OF_RANGE"));
  });

  it("protocol order, unknown boxes and episodes, non-finite numbers", () => {
    const p = make();
    rejects(p, "DIMENSION_MISMATCH", () => p.begin(new Float64Array(3)));
    rejects(p, "NON_FINITE", () => p.begin(new Float64Array([0, Number.NaN])));
    const e = p.begin(new Float64Array([0.1, 0.2]));
    rejects(p, "INVALID_STATE", () => p.observe(e, "mini", new Float64Array(2), 0.1)); // nothing asked yet
    rejects(p, "INVALID_STATE", () => p.choose(e)); // nothing observed
    rejects(p, "INVALID_STATE", () => p.feedback(e, 1)); // feedback before choose
    rejects(p, "INVALID_STATE", () => p.decisionRecord(e));
    const s = p.next(e);
    expect(s).toEqual({ query: "mini" });
    expect(p.next(e)).toEqual(s); // repeats the outstanding box
    rejects(p, "INVALID_ARGUMENT", () => p.observe(e, "frontier", new Float64Array(2), 0.1)); // not asked for
    rejects(p, "NON_FINITE", () => p.observe(e, "mini", new Float64Array(2), Number.POSITIVE_INFINITY));
    rejects(p, "OUT_OF_RANGE", () => p.observe(e, "mini", new Float64Array(2), -0.1));
    rejects(p, "NON_FINITE", () => p.observe(e, "mini", new Float64Array([0.5, Number.NaN]), 0.1));
    rejects(p, "DIMENSION_MISMATCH", () => p.observe(e, "mini", new Float64Array(3), 0.1));
    rejects(p, "UNKNOWN_DECISION", () => p.next("e999"));
    rejects(p, "UNKNOWN_DECISION", () => p.feedback("nope", 1));
    p.observe(e, "mini", new Float64Array([0.4, 0.1]), 0.01);
    expect(p.choose(e)).toBe("mini"); // choose may cut the cascade short
    expect(p.choose(e)).toBe("mini");
    rejects(p, "NON_FINITE", () => p.feedback(e, Number.NaN));
    p.feedback(e, 1);
    rejects(p, "DECISION_ALREADY_USED", () => p.feedback(e, 1));
    rejects(p, "DECISION_ALREADY_USED", () => p.next(e));
    rejects(p, "LAST_ARM", () => {
      const q = new Cosmos({ arms: ["only"], contextDim: 1, outputDim: 1 });
      q.removeArm("only");
    });
  });

  it("learn(event) accepts other kinds' events and rejects malformed ones with INVALID_EVENT", () => {
    const p = make();
    const other = new QueryAll({
      arms: ["mini", "standard", "frontier"],
      contextDim: 2,
      outputDim: 2,
      rewardParameter: [1, 0],
    });
    const e = other.begin(new Float64Array([0.3, -0.2]));
    for (let s = other.next(e); "query" in s; s = other.next(e))
      other.observe(e, s.query, new Float64Array([0.5, 0]), 0.02);
    other.choose(e);
    const event = { ...other.decisionRecord(e), feedback: { reward: 1 } };
    p.learn(event);
    expect(p.indexParameter("mini").some((v) => v !== 0)).toBe(true);
    const bad = { ...event, decision: { ...event.decision, context: [1, 2, 3] } };
    rejects(p, "INVALID_EVENT", () => p.learn(bad));
    rejects(p, "INVALID_EVENT", () => p.learn({ ...event, feedback: undefined } as never));
  });

  it("open episodes beyond maxPending are dropped oldest first (DECISION_EXPIRED), discard closes without learning", () => {
    const p = new Cosmos({ arms: ["a", "b"], contextDim: 1, outputDim: 1, rewardParameter: [1], maxPending: 2 });
    const e1 = p.begin(Float64Array.of(0));
    const e2 = p.begin(Float64Array.of(0.5));
    p.begin(Float64Array.of(-0.5));
    expect(p.pendingDecisions).toBe(2);
    rejects(p, "DECISION_EXPIRED", () => p.next(e1));
    const learned = JSON.stringify((p.toJSON().state as { boxes: unknown }).boxes);
    p.next(e2);
    p.observe(e2, "a", Float64Array.of(0.7), 0.1);
    p.discard(e2);
    expect(JSON.stringify((p.toJSON().state as { boxes: unknown }).boxes)).toBe(learned);
    expect(p.pendingDecisions).toBe(1);
  });

  it("snapshots keep every option", () => {
    const p = new Cosmos({
      arms: ["a", "b"],
      contextDim: 1,
      outputDim: 2,
      rewardLink: "logistic",
      indexLink: "logistic",
      linkKnee: 0.8,
      indexIntercept: false,
      rewardIntercept: true,
      indexBound: 2,
      rewardBound: 4,
      ridge: 0.5,
      indexRidge: 2,
      radiusMode: "theory",
      theory: { kappa: 0.2, psiBound: 1, phiBound: 2, rewardMax: 1 },
      exploration: 0.3,
      explorationPlugIn: 0.2,
      explorationReward: 0.1,
      horizon: 100,
      confidence: 0.01,
      refit: "geometric",
      refitGrowth: 1.5,
      maxIter: 20,
      maxPending: 7,
    });
    const back = Cosmos.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
    expect(back.config).toEqual(p.config);
  });
});
