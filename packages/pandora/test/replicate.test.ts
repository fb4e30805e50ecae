/**
 * Replication: every cascade snapshot has the per-replica fields `rng` and `ledger` (last in its state),
 * so core's learnedState / withReplicaParts (what @routekit/replicate uses) work for the cascade family:
 * a replica started from another replica's snapshot and fed the rest of the event stream ends with the
 * same learned state, byte for byte, as one learner fed every event.
 */
import { type CascadeEvent, type CascadePolicy, learnedState, Rng, withReplicaParts } from "@routekit/core";
import { envA } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll, ThresholdCascade, WeitzmanOracle } from "../src/index.js";
import { ENV_A_ARMS } from "./helpers.js";

const base = { arms: ENV_A_ARMS, contextDim: 2, outputDim: 4 };

/** Plays n Env-A requests with `source`; returns the logged events (decision record plus feedback). */
function events(source: CascadePolicy, n: number, seed: number): CascadeEvent[] {
  const env = envA();
  env.reset(Rng.fromSeed(seed));
  const out: CascadeEvent[] = [];
  for (let t = 0; t < n; t++) {
    const ep = source.begin(env.next(t).context);
    for (let s = source.next(ep); "query" in s; s = source.next(ep)) {
      const o = env.query(s.query);
      source.observe(ep, s.query, o.features, o.cost);
    }
    const reward = env.reward(source.choose(ep));
    out.push(JSON.parse(JSON.stringify({ ...source.decisionRecord(ep), feedback: { reward } })));
    source.feedback(ep, reward);
  }
  return out;
}

const learned = (p: CascadePolicy) => JSON.stringify(learnedState(p.toJSON()));

describe("replicating COSMOS with learnedState / withReplicaParts", () => {
  for (const [name, make] of [
    ["known reward", (seed: number) => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], seed })],
    ["learned reward, exact refits", (seed: number) => new Cosmos({ ...base, refit: "exact", seed })],
  ] as const) {
    it(`${name}: a replica restored mid-stream equals one learner fed every event`, () => {
      const stream = events(make(1), 300, 7);
      const single = make(2);
      for (const e of stream) single.learn(e);

      // Replica A learns the first half and leaves an episode open; replica B starts from A's snapshot with
      // its own random stream and no pending episodes, then learns the second half.
      const a = make(3);
      for (const e of stream.slice(0, 150)) a.learn(e);
      a.begin(new Float64Array([0.1, -0.2]));
      const snap = a.toJSON();
      expect(Object.keys(snap.state as object).slice(-2)).toEqual(["rng", "ledger"]);
      const b = Cosmos.fromJSON(withReplicaParts(snap, Rng.fromSeed("replica-b")));
      expect(b.pendingDecisions).toBe(0);
      for (const e of stream.slice(150)) b.learn(e);

      expect(learned(b)).toBe(learned(single));
      // ... and the same decisions: the next request plans the same cascade on both.
      const x = new Float64Array([0.3, 0.4]);
      expect(b.optimisticIndices(x)).toEqual(single.optimisticIndices(x));
      // The per-replica parts do differ.
      expect(JSON.stringify((b.toJSON().state as { rng: unknown }).rng)).not.toBe(
        JSON.stringify((single.toJSON().state as { rng: unknown }).rng),
      );
    });
  }

  it("every cascade policy kind has the per-replica fields and survives withReplicaParts bit-exactly", () => {
    const theta = [1, 0, 0, 0];
    const kinds: [CascadePolicy, (s: never) => CascadePolicy][] = [
      [new Cosmos({ ...base, rewardParameter: theta, seed: 5 }), Cosmos.fromJSON as never],
      [new QueryAll({ ...base, seed: 5 }), QueryAll.fromJSON as never],
      [new ThresholdCascade({ ...base, rewardParameter: theta, seed: 5 }), ThresholdCascade.fromJSON as never],
      [new OneShot({ ...base, seed: 5 }), OneShot.fromJSON as never],
      [
        new WeitzmanOracle({
          ...base,
          rewardParameter: theta,
          indexLink: "linear",
          indexParameters: { box1: [0.5, 0, 0], box2: [0.6, 0.1, 0], box3: [0.7, 0, 0.1] },
          seed: 5,
        }),
        WeitzmanOracle.fromJSON as never,
      ],
    ];
    const stream = events(new Cosmos({ ...base, rewardParameter: theta }), 40, 3);
    for (const [p, restore] of kinds) {
      for (const e of stream) p.learn(e);
      const snap = p.toJSON();
      expect(Object.keys(snap.state as object).slice(-2)).toEqual(["rng", "ledger"]);
      const fresh = Rng.fromSeed(99);
      const r = restore(withReplicaParts(snap, fresh) as never);
      expect(learned(r)).toBe(learned(p));
      expect(JSON.stringify((r.toJSON().state as { rng: unknown }).rng)).toBe(JSON.stringify(fresh.toJSON()));
      // A snapshot round trip keeps the rng field exactly.
      expect(JSON.stringify(restore(JSON.parse(JSON.stringify(snap)) as never).toJSON())).toBe(JSON.stringify(snap));
    }
  });

  it("a damaged rng field is refused as SNAPSHOT_CORRUPT", () => {
    const p = new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0] });
    const snap = withReplicaParts(p.toJSON(), { toJSON: () => ({ key: [1, 2, 3], state: [0, 0, 0, 0] }) });
    expect(() => Cosmos.fromJSON(snap)).toThrow(expect.objectContaining({ code: "SNAPSHOT_CORRUPT" }));
  });
});
