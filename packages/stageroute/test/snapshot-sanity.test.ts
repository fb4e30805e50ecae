/** Resealed absurd values in a stage policy's snapshot are SNAPSHOT_CORRUPT; real snapshots (mid-stage) restore. */
import { Rng, type Snapshot } from "@routekit/core";
import { outcomeText, tamperedSnapshot } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { RatioGreedy, StageRoute, type StageRouteOptions } from "../src/index.js";

const base: StageRouteOptions = { arms: ["a", "b", "c"], budget: 1, maxDeployed: 2, stageLength: 4 };
const COST: Record<string, number> = { a: 0.5, b: 0.1, c: 2 };

function run(p: StageRoute | RatioGreedy, rounds: number, seed: number): void {
  const rng = Rng.fromSeed(`stage-sanity:${seed}`);
  for (let t = 0; t < rounds; t++) {
    const d = p.select();
    p.update(d, { reward: rng.uniform(), cost: (COST[d.arm] as number) * rng.uniform() });
    if (t === 30) p.removeArm("b");
    if (t === 40) p.addArm("b");
  }
}

describe("stage policies: semantic checks at restore", () => {
  const p = new StageRoute({ ...base, seed: 1 });
  run(p, 63, 1);
  const snap = p.toJSON();
  const text = JSON.stringify(snap);
  it("per-arm counts above the learned total", () => {
    const bad = tamperedSnapshot(snap, (st) => {
      st.learned = 1;
      st.deployedAt = 0;
    });
    expect(outcomeText(() => StageRoute.fromJSON(bad))).toMatch(
      /^SNAPSHOT_CORRUPT: .*arms\[\]\.n \(sum\) is \d+; per-arm counts add up to at most "learned" \(1\)/,
    );
  });
  it("a deployment whose stage lies after the round it was made at, or none counted", () => {
    const late = tamperedSnapshot(snap, (st) => {
      st.lastDeployment.stage = st.deployedAt + 1;
    });
    expect(outcomeText(() => StageRoute.fromJSON(late))).toMatch(/^SNAPSHOT_CORRUPT: .*lastDeployment\.stage/);
    const none = tamperedSnapshot(snap, (st) => {
      st.deployments = 0;
    });
    expect(outcomeText(() => StageRoute.fromJSON(none))).toMatch(/^SNAPSHOT_CORRUPT: .*"deployments" is 0/);
  });
  it("a negative spend (budget) is refused", () => {
    const bad = tamperedSnapshot(snap, (st) => {
      st.spent = -5;
    });
    expect(outcomeText(() => StageRoute.fromJSON(bad))).toMatch(/^SNAPSHOT_CORRUPT/);
  });
  it("the policy is unchanged; real snapshots (seeds, mid-stage, arms removed and re-added) restore bit for bit", () => {
    expect(JSON.stringify(p.toJSON())).toBe(text);
    for (const seed of [1, 2, 3, 4]) {
      for (const rounds of [0, 1, 5, 63, 401]) {
        for (const [make, restore] of [
          [(o: StageRouteOptions) => new StageRoute(o), StageRoute.fromJSON],
          [(o: StageRouteOptions) => new RatioGreedy(o), RatioGreedy.fromJSON],
        ] as const) {
          const q = make({ ...base, seed });
          run(q, rounds, seed);
          const t = JSON.stringify(q.toJSON());
          expect(JSON.stringify(restore(JSON.parse(t)).toJSON())).toBe(t);
        }
      }
    }
  });
});

describe("stage policies: caps whose sum meets 1 - 1e-12 in one order only", () => {
  // 0.7 + 0.2 - 1e-12 + 0.1 reaches 1 - 1e-12 (the sorted order, which deployment tests), (0.7 + 0.1) + (0.2 - 1e-12)
  // falls an ulp short of it (the deployed order). Valid options (some 3 caps sum to 1): the fresh policy's own
  // snapshot was refused ("deployed" must be models whose caps sum to 1), and select threw a TypeError.
  const maxShare = { a: 0.7, b: 0.1, c: 0.19999999999900003 };
  it("the sums differ by order (the premise)", () => {
    expect(0.7 + 0.19999999999900003 + 0.1 >= 1 - 1e-12).toBe(true);
    expect(0.7 + 0.1 + 0.19999999999900003 >= 1 - 1e-12).toBe(false);
  });
  for (const [name, make, restore] of [
    ["StageRoute", (o: StageRouteOptions) => new StageRoute(o), StageRoute.fromJSON],
    ["RatioGreedy", (o: StageRouteOptions) => new RatioGreedy(o), RatioGreedy.fromJSON],
  ] as const) {
    it(`${name}: real snapshots restore bit for bit, and select routes`, () => {
      const p = make({ ...base, maxDeployed: 3, stageLength: 2, maxShare, seed: 5 });
      const rng = Rng.fromSeed("one-order");
      for (let t = 0; t < 12; t++) {
        const s = JSON.stringify(p.toJSON());
        expect(JSON.stringify(restore(JSON.parse(s)).toJSON())).toBe(s);
        const d = p.select();
        expect(["a", "b", "c"]).toContain(d.arm);
        p.update(d, { reward: rng.uniform(), cost: rng.uniform() });
      }
    });
  }
  it("a deployed set whose caps fall short of 1 by more than rounding is still refused", () => {
    const p = new StageRoute({
      ...base,
      maxDeployed: 3,
      stageLength: 2,
      maxShare: { a: 0.7, b: 0.1, c: 0.2 },
      seed: 5,
    });
    const snap = p.toJSON() as Snapshot & { state: { deployed: number[] } };
    expect(snap.state.deployed).toHaveLength(3);
    const bad = tamperedSnapshot(snap, (st) => {
      st.deployed = st.deployed.slice(0, 2);
    });
    expect(outcomeText(() => StageRoute.fromJSON(bad))).toMatch(
      /^SNAPSHOT_CORRUPT: snapshot field "deployed" must be models whose caps \(maxShare\) sum to 1/,
    );
  });
});

describe("a routing that gave no deployed model a positive probability", () => {
  it("is a typed NUMERICAL error before the draw (the random stream and the ledger stay as they were), not a TypeError", () => {
    // Unreachable since carriesAllTraffic: a subclass zeroes the routing to reach the guard.
    class ZeroRouting extends StageRoute {
      protected override route(): number {
        const k = super.route();
        this.depP.fill(0, 0, k);
        return k;
      }
    }
    const p = new ZeroRouting({ ...base, seed: 3 });
    const before = JSON.stringify(p.toJSON());
    expect(outcomeText(() => p.select())).toMatch(/^NUMERICAL: routing gave no model of the deployed set \(2 models\)/);
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });
});
