/** Resealed absurd values in a stage policy's snapshot are SNAPSHOT_CORRUPT; real snapshots (mid-stage) restore. */
import { Rng, RouteKitError, type Snapshot } from "@routekit/core";
import { resealSnapshot } from "@routekit/core/testing";
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

// biome-ignore lint/suspicious/noExplicitAny: the test edits parsed JSON by path
function tampered(snap: Snapshot, edit: (st: Record<string, any>) => void): Snapshot {
  const copy = JSON.parse(JSON.stringify(snap));
  edit(copy.state);
  return resealSnapshot(copy);
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof RouteKitError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return "accepted";
}

describe("stage policies: semantic checks at restore", () => {
  const p = new StageRoute({ ...base, seed: 1 });
  run(p, 63, 1);
  const snap = p.toJSON();
  const text = JSON.stringify(snap);
  it("per-arm counts above the learned total", () => {
    const bad = tampered(snap, (st) => {
      st.learned = 1;
      st.deployedAt = 0;
    });
    expect(code(() => StageRoute.fromJSON(bad))).toMatch(
      /^SNAPSHOT_CORRUPT: .*arms\[\]\.n \(sum\) is \d+; per-arm counts add up to at most "learned" \(1\)/,
    );
  });
  it("a deployment whose stage lies after the round it was made at, or none counted", () => {
    const late = tampered(snap, (st) => {
      st.lastDeployment.stage = st.deployedAt + 1;
    });
    expect(code(() => StageRoute.fromJSON(late))).toMatch(/^SNAPSHOT_CORRUPT: .*lastDeployment\.stage/);
    const none = tampered(snap, (st) => {
      st.deployments = 0;
    });
    expect(code(() => StageRoute.fromJSON(none))).toMatch(/^SNAPSHOT_CORRUPT: .*"deployments" is 0/);
  });
  it("a negative spend (budget) is refused", () => {
    const bad = tampered(snap, (st) => {
      st.spent = -5;
    });
    expect(code(() => StageRoute.fromJSON(bad))).toMatch(/^SNAPSHOT_CORRUPT/);
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
