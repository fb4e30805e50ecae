import { isRouteKitError } from "@routekit/core";
import { resealSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { RatioGreedy, StageOracle, StageRoute, type StageRouteOptions } from "../src/index.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

const base: StageRouteOptions = { arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 3 };
const means = {
  a: { reward: 0.5, cost: 0.5 },
  b: { reward: 0.2, cost: 0.1 },
  c: { reward: 0.9, cost: 2 },
  d: { reward: 0.4, cost: 0.2 },
};
const makers = [
  (o: StageRouteOptions) => new StageRoute(o),
  (o: StageRouteOptions) => new RatioGreedy(o),
  (o: StageRouteOptions) => new StageOracle({ ...o, means }),
];

describe("options whose cost-unit value overflows", () => {
  it("minCost or priorCost that overflow, or a budget that underflows, in cost units are OUT_OF_RANGE at construction", () => {
    for (const make of makers) {
      // Costs are divided by the unit (default: the budget): 1e300 / 1e-100 is not a finite number.
      expect(code(() => make({ ...base, budget: 1e-100, minCost: 1e300 }))).toBe("OUT_OF_RANGE");
      expect(code(() => make({ ...base, budget: 1e-100, priorCost: 1e300 }))).toBe("OUT_OF_RANGE");
      expect(code(() => make({ ...base, costUnit: 1e-100, priorCost: 1e300 }))).toBe("OUT_OF_RANGE");
      // A unit so large that the budget underflows in cost units (1e-100 / 1e250 = 0) would make the budget 0.
      expect(code(() => make({ ...base, budget: 1e-100, costUnit: 1e250 }))).toBe("OUT_OF_RANGE");
      expect(code(() => make({ ...base, budget: 1e-100, costUnit: 1 }))).toBeUndefined();
      expect(code(() => make({ ...base, budget: 1, costUnit: 1e100 }))).toBeUndefined();
      // The largest values that stay finite are accepted and route.
      const p = make({ ...base, budget: 1e-100, minCost: 1e200, maxCost: 1e250 });
      const d = p.select();
      expect(["a", "b"]).toContain(d.arm);
      p.update(d, { reward: 1, cost: 1e200 });
      expect(Object.values(p.routing()).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
    }
  });
});

describe("a finite cost that overflows the statistics in cost units", () => {
  it("is OUT_OF_RANGE (as the README lists) and changes nothing; the decision still takes its feedback", () => {
    for (const make of makers) {
      // budget 1e-100 is the unit: a cost of 1e299 is 1e399 budgets, not a finite number.
      const p = make({ ...base, budget: 1e-100 });
      const d = p.select();
      const before = JSON.stringify(p.toJSON());
      expect(code(() => p.update(d, { reward: 1, cost: 1e299 }))).toBe("OUT_OF_RANGE");
      expect(code(() => p.learn({ ...p.decisionRecord(d), feedback: { reward: 1, cost: 1e299 } }))).toBe(
        "INVALID_EVENT",
      );
      expect(JSON.stringify(p.toJSON())).toBe(before);
      // Two costs that fit alone but not summed: the second is refused, the first stays learned.
      const q = make({ ...base, budget: 1e-100, costUnit: 1 });
      q.update(q.select(), { reward: 1, cost: 1.5e308 });
      const e = q.select();
      const mid = JSON.stringify(q.toJSON());
      expect(code(() => q.update(e, { reward: 1, cost: 1.5e308 }))).toBe("OUT_OF_RANGE");
      expect(JSON.stringify(q.toJSON())).toBe(mid);
      q.update(e, { reward: 1, cost: 1 });
      expect(q.totalCost).toBe(1.5e308 + 1);
    }
  });

  it("so is a cost whose sum in reported units (totalCost) overflows, though its sum in cost units does not", () => {
    for (const make of makers) {
      // The README named only the sum in cost units: here each cost is 0.7 budgets, and the second one is refused.
      const p = make({ ...base, budget: 1.7e308 });
      p.update(p.select(), { reward: 1, cost: 1.2e308 });
      const e = p.select();
      const mid = JSON.stringify(p.toJSON());
      expect(code(() => p.update(e, { reward: 1, cost: 1.2e308 }))).toBe("OUT_OF_RANGE");
      expect(JSON.stringify(p.toJSON())).toBe(mid);
    }
  });
});

type Policy = StageRoute | RatioGreedy | StageOracle;
const restorers = [StageRoute.fromJSON, RatioGreedy.fromJSON, StageOracle.fromJSON] as ((s: unknown) => Policy)[];

/** A policy after a few rounds (caps 0.5: two models must be deployed), its snapshot as JSON. */
/** A snapshot as plain JSON, to tamper with. */
type SnapJson = { kind: string; kindVersion: number; state: Record<string, unknown> };

function played(i: number): { p: Policy; json: SnapJson } {
  const p = (makers[i] as (o: StageRouteOptions) => Policy)({ ...base, arms: ["a", "b", "c"], maxShare: 0.5 });
  for (let t = 0; t < 7; t++) p.update(p.select(), { reward: t % 2, cost: 0.1 * t });
  return { p, json: JSON.parse(JSON.stringify(p.toJSON())) };
}

describe("tampered snapshots (checksum recomputed) are SNAPSHOT_CORRUPT, never a later TypeError", () => {
  it("a deployed set whose caps cannot carry all traffic, or none while the pool can", () => {
    for (let i = 0; i < 3; i++) {
      const restore = restorers[i] as (s: unknown) => Policy;
      const { json } = played(i);
      const deployed = json.state.deployed as number[];
      expect(deployed.length).toBe(2);
      for (const bad of [[deployed[0]], []]) {
        const s = resealSnapshot({ ...json, state: { ...json.state, deployed: bad } });
        expect(code(() => restore(s))).toBe("SNAPSHOT_CORRUPT");
      }
      // The untouched snapshot restores and keeps routing.
      const q = restore(json);
      expect(code(() => q.update(q.select(), { reward: 1, cost: 0.1 }))).toBeUndefined();
    }
  });

  it("a per-model cap record next to a default cap other than 1 (the options give one or the other)", () => {
    const p = new StageRoute({ ...base, maxShare: { a: 0.5 } });
    const json = JSON.parse(JSON.stringify(p.toJSON())) as SnapJson;
    const config = { ...(json.state.config as Record<string, unknown>), maxShareDefault: 0.75 };
    const s = resealSnapshot({ ...json, state: { ...json.state, config } });
    expect(code(() => StageRoute.fromJSON(s))).toBe("SNAPSHOT_CORRUPT");
  });

  it("an oracle snapshot without the true means of a live model", () => {
    const { json } = played(2);
    for (const id of ["a", "b", "c"]) {
      const means = { ...(json.state.means as Record<string, unknown>) };
      delete means[id];
      const s = resealSnapshot({ ...json, state: { ...json.state, means } });
      expect(code(() => StageOracle.fromJSON(s))).toBe("SNAPSHOT_CORRUPT");
    }
  });
});

describe("restoring mid-run and continuing equals never stopping", () => {
  /**
   * Late feedback in random order (update, learn of the JSON decision record, discard), arms added mid-stage and
   * at a boundary, deployed arms removed, ids such as "__proto__" and a 10,000-character one, stages of 1 and 4.
   * `restoreAt` rounds swap the policy for its restored snapshot (through JSON and structuredClone).
   */
  function play(i: number, extra: Partial<StageRouteOptions>, restoreAt: readonly number[]): string {
    const arms = ["a", "b", "__proto__", "constructor", "🙂", "x".repeat(10_000)];
    const all: Record<string, { reward: number; cost: number }> = Object.create(null);
    [...arms, "new", "n2"].forEach((id, k) => {
      all[id] = { reward: (0.37 * k) % 1, cost: 0.2 * (k % 4) + 0.01 };
    });
    const options = { arms, budget: 0.35, maxDeployed: 3, stageLength: 4, maxShare: 0.5, seed: 3, ...extra };
    let p: Policy =
      i === 2
        ? new StageOracle({ ...options, means: all })
        : i === 1
          ? new RatioGreedy(options)
          : new StageRoute(options);
    const restore = restorers[i] as (s: unknown) => Policy;
    let s = 7;
    const rnd = () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const pending: ReturnType<Policy["select"]>[] = [];
    const trace: unknown[] = [];
    for (let t = 0; t < 200; t++) {
      if (restoreAt.includes(t)) {
        const json = JSON.stringify(p.toJSON());
        const viaClone = restore(structuredClone(p.toJSON()));
        p = restore(JSON.parse(json));
        expect(JSON.stringify(p.toJSON())).toBe(json);
        expect(JSON.stringify(viaClone.toJSON())).toBe(json);
      }
      if (t === 37) p.addArm("new", { maxShare: 0.7 });
      if (t === 40) p.addArm("n2");
      if (t === 55) p.removeArm(p.deployedArms[0] as string);
      if (t === 90 && p.arms.includes("new")) p.removeArm("new");
      const d = p.select();
      trace.push(d.arm, d.propensity);
      pending.push(d);
      while (pending.length > 0 && rnd() < 0.6) {
        const e = pending.splice(Math.floor(rnd() * pending.length), 1)[0] as ReturnType<Policy["select"]>;
        const fb = { reward: rnd() < 0.5 ? 1 : 0, cost: rnd() };
        const how = rnd();
        if (how < 0.1) p.discard(e);
        else if (how < 0.35) {
          const ev = JSON.parse(JSON.stringify({ ...p.decisionRecord(e), feedback: fb }));
          p.discard(e);
          p.learn(ev);
        } else p.update(e, fb);
      }
    }
    return JSON.stringify([trace, p.toJSON()]);
  }

  it("all three policies, four option sets, 12 restore points (stage boundaries, arrivals, removals)", () => {
    const at = [1, 4, 8, 37, 38, 40, 41, 55, 56, 99, 100, 150];
    for (let i = 0; i < 3; i++) {
      for (const extra of [
        {},
        { budgetMode: "paced" as const, horizon: 150 },
        { tieBreak: "index" as const, estimator: "shrunk" as const, initialPulls: 3, fillSlots: false },
        { stageLength: 1 },
      ]) {
        expect(play(i, extra, at)).toBe(play(i, extra, []));
      }
    }
  });
});

describe("stage clock edge cases", () => {
  it("a model added mid-stage waits for the next boundary, also right after a removal re-chose the set", () => {
    const p = new StageRoute({ arms: ["a", "b", "c"], budget: 1, maxDeployed: 2, stageLength: 100, maxShare: 0.5 });
    for (let t = 0; t < 30; t++) p.update(p.select(), { reward: 0.3, cost: 0.5 });
    const [first] = p.deployedArms;
    // The rest cannot carry all traffic alone (cap 0.5): the set is re-chosen mid-stage.
    p.removeArm(first as string);
    expect(p.deployedArms).toHaveLength(2);
    p.addArm("d");
    expect(p.deployedArms).not.toContain("d");
    for (let t = 30; t < 100; t++) {
      const d = p.select();
      expect(d.arm).not.toBe("d");
      p.update(d, { reward: 0.3, cost: 0.5 });
    }
    // The boundary: "d" (unplayed, maximally optimistic) is deployed.
    expect(p.deployedArms).toContain("d");
  });
});

describe("inspection cannot change the policy", () => {
  it("config, deployment and arms are frozen: writing to them throws and the snapshot stays the same", () => {
    for (let i = 0; i < 3; i++) {
      const { p } = played(i);
      const before = JSON.stringify(p.toJSON());
      const info = p.deployment as NonNullable<Policy["deployment"]>;
      expect(() => (info.deployed as string[]).push("zzz")).toThrow(TypeError);
      expect(() => {
        (info as { stage: number }).stage = 99;
      }).toThrow(TypeError);
      expect(() => {
        (p.config as { budget: number }).budget = 5;
      }).toThrow(TypeError);
      expect(() => {
        (p.config.maxShareByArm as Record<string, number>).a = 0.1;
      }).toThrow(TypeError);
      // The arm list is a frozen copy, not the policy's own table.
      expect(() => (p.arms as string[]).push("zzz")).toThrow(TypeError);
      expect(p.arms).toEqual(["a", "b", "c"]);
      expect(JSON.stringify(p.toJSON())).toBe(before);
      // Also after a restore.
      const q = (restorers[i] as (s: unknown) => Policy)(p.toJSON());
      expect(Object.isFrozen(q.deployment?.deployed)).toBe(true);
      expect(Object.isFrozen(q.config)).toBe(true);
      expect(Object.isFrozen(q.arms)).toBe(true);
      q.addArm("d", { maxShare: 1 });
      expect(q.arms).toEqual(["a", "b", "c", "d"]);
      q.removeArm("a");
      expect(q.arms).toEqual(["b", "c", "d"]);
    }
  });
});

describe("feedback read once", () => {
  it("a getter-backed feedback that changes after it was validated cannot corrupt the statistics", () => {
    /** Returns `good` for the first `reads` reads, then `bad`. */
    const flip = (good: number, bad: number, reads: number) => {
      let k = 0;
      return () => (k++ < reads ? good : bad);
    };
    for (let reads = 1; reads <= 5; reads++) {
      for (const field of ["reward", "cost"] as const) {
        for (const via of ["update", "learn"] as const) {
          const p = new StageRoute(base);
          const d = p.select();
          const g = field === "reward" ? flip(1, 7, reads) : flip(0.5, -3, reads);
          const fb =
            field === "reward"
              ? {
                  get reward() {
                    return g();
                  },
                  cost: 0.5,
                }
              : {
                  reward: 1,
                  get cost() {
                    return g();
                  },
                };
          const before = JSON.stringify(p.toJSON());
          const err = code(() =>
            via === "update" ? p.update(d, fb) : p.learn({ ...p.decisionRecord(d), feedback: fb }),
          );
          if (err !== undefined) {
            expect(JSON.stringify(p.toJSON())).toBe(before);
            continue;
          }
          // Accepted: what was learned is the validated value, and the snapshot restores.
          expect(p.stats(d.arm)).toMatchObject({ plays: 1, meanReward: 1, meanCost: 0.5 });
          expect(code(() => StageRoute.fromJSON(JSON.parse(JSON.stringify(p.toJSON()))))).toBeUndefined();
        }
      }
    }
  });
});
