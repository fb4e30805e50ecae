import { type ArmDecision, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { greedyByRatio } from "../src/greedy.js";
import { RatioGreedy, type StageArm, type StageRouteOptions } from "../src/index.js";

/**
 * The greedy's picks as written before 0.1.1 (O(n^2 log n) per pick): for each candidate in ratio order,
 * re-sort the other remaining caps and sum the largest. The reference the fast version must match exactly.
 */
function referencePicks(byUtil: readonly number[], caps: ArrayLike<number>, s: number): number[] {
  const chosen: number[] = [];
  let mass = 0;
  const remaining = byUtil.slice();
  while (chosen.length < s && remaining.length > 0) {
    let pick = -1;
    for (let r = 0; r < remaining.length && pick < 0; r++) {
      const i = remaining[r] as number;
      const slotsLeft = s - chosen.length - 1;
      const others = remaining
        .filter((_, q) => q !== r)
        .map((j) => caps[j] as number)
        .sort((x, y) => y - x)
        .slice(0, slotsLeft);
      const reach = mass + (caps[i] as number) + others.reduce((x, y) => x + y, 0);
      if (reach >= 1 - 1e-12) pick = r;
    }
    if (pick < 0) pick = 0;
    const i = remaining.splice(pick, 1)[0] as number;
    chosen.push(i);
    mass += caps[i] as number;
  }
  return chosen;
}

/** RatioGreedy with the deployment rule exactly as it was before 0.1.1. */
class ReferenceGreedy extends RatioGreedy {
  protected override chooseDeployment(rng: Rng): { deployed: StageArm[]; status: string; method: string } {
    const states = this.table.states;
    const n = states.length;
    const s = Math.min(this.config.maxDeployed, n);
    const order = this.poolOrder(rng);
    const util = (st: StageArm) => (st.lcb > 0 ? st.ucb / st.lcb : st.ucb > 0 ? Number.POSITIVE_INFINITY : 0);
    const byUtil = Array.from(order).sort((x, y) => {
      const d = util(states[y] as StageArm) - util(states[x] as StageArm);
      return Number.isNaN(d) || d === 0 ? 0 : d;
    });
    const chosen = referencePicks(
      byUtil,
      states.map((st) => st.maxShare),
      s,
    );
    chosen.sort((x, y) => x - y);
    return { deployed: chosen.map((i) => states[i] as StageArm), status: "ok", method: "ucb-lcb-ratio" };
  }
}

/** Caps that tie and that sum to within a few ulps of the greedy's threshold 1 - 1e-12. */
function drawCaps(rng: Rng, n: number, s: number): Float64Array {
  const kind = rng.int(5);
  const near = (k: number) => {
    // k copies of x sum to about 1 - 1e-12, nudged by a few ulps either way.
    let x = (1 - 1e-12) / k;
    for (let t = rng.int(7) - 3; t !== 0; t += t > 0 ? -1 : 1) x = t > 0 ? x * (1 + 2 ** -52) : x * (1 - 2 ** -52);
    return x;
  };
  const tiedSet = [0.05, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 1, 1 / 7, 0.3];
  // Per pool: which k the near-threshold caps are built from.
  const k1 = Math.max(1, s - rng.int(2));
  const k2 = s + 1 + rng.int(3);
  const k3 = 1 + rng.int(s);
  return Float64Array.from({ length: n }, () => {
    switch (kind) {
      case 0:
        return tiedSet[rng.int(tiedSet.length)] as number;
      case 1:
        return near(k1);
      case 2:
        return rng.uniform() < 0.8 ? near(k2) : near(k3);
      case 3:
        return rng.uniform() < 0.85 ? 0.05 : rng.uniform() < 0.5 ? 0.5 : 1;
      default:
        return 1e-3 + (1 - 1e-3) * rng.uniform();
    }
  });
}

/** A ratio order with runs of ties, as the policy's sort of a seeded shuffle gives. */
function drawOrder(rng: Rng, n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

describe("RatioGreedy's deployment matches the O(n^2 log n) reference exactly", () => {
  it("the same picks in the same order on 6,000 random pools (tied caps, caps summing to the threshold's ulps)", () => {
    const rng = Rng.fromSeed("greedy-equivalence");
    let fallbacks = 0;
    for (let t = 0; t < 6000; t++) {
      const n = 1 + rng.int(t < 5000 ? 24 : 120);
      const s = 1 + rng.int(Math.min(n + 2, 18));
      const caps = drawCaps(rng, n, Math.min(s, n));
      const order = drawOrder(rng, n);
      const ref = referencePicks(order, caps, Math.min(s, n));
      const got = greedyByRatio(order, caps, Math.min(s, n));
      // With s >= n every model is picked and the pick order is immaterial (the caller sorts).
      if (s >= n) expect([...got].sort((x, y) => x - y)).toEqual([...ref].sort((x, y) => x - y));
      else expect(got).toEqual(ref);
      let mass = 0;
      for (const i of ref) mass += caps[i] as number;
      if (mass < 1 - 1e-12) fallbacks++;
    }
    // Some pools end below the threshold: the first-remaining fallback ran too.
    expect(fallbacks).toBeGreaterThan(0);
  });

  it("policies with the old and new rule make identical decisions and snapshots over whole runs", () => {
    const rng = Rng.fromSeed("greedy-policy-equivalence");
    for (let run = 0; run < 24; run++) {
      const n = 3 + rng.int(40);
      const M = 1 + rng.int(8);
      const arms = Array.from({ length: n }, (_, i) => `m${i}`);
      const capsArr = drawCaps(rng, n, Math.min(M, n));
      const maxShare: Record<string, number> = {};
      arms.forEach((a, i) => {
        maxShare[a] = capsArr[i] as number;
      });
      // Rewards and costs on a coarse grid: ratios tie often.
      const means = arms.map(() => ({ r: rng.int(4) / 4, c: 0.25 + rng.int(3) / 4 }));
      const options: StageRouteOptions = {
        arms,
        budget: 0.6,
        maxDeployed: M,
        stageLength: 1 + rng.int(6),
        maxShare,
        seed: run,
        tieBreak: run % 3 === 0 ? "index" : "random",
      };
      let fast: RatioGreedy;
      let ref: RatioGreedy;
      try {
        fast = new RatioGreedy(options);
      } catch {
        continue; // the caps cannot carry all traffic: both refuse
      }
      ref = new ReferenceGreedy(options);
      const env = Rng.fromSeed(1000 + run);
      for (let t = 0; t < 300; t++) {
        const d1: ArmDecision = fast.select();
        const d2: ArmDecision = ref.select();
        expect(d1).toEqual(d2);
        const i = Number(d1.arm.slice(1));
        const m = means[i] as { r: number; c: number };
        const fb = { reward: env.uniform() < m.r ? 1 : 0, cost: m.c * (0.5 + env.int(3) / 2) };
        fast.update(d1, fb);
        ref.update(d2, fb);
        expect(fast.deployment).toEqual(ref.deployment);
        if (t === 150) {
          // Restoring the fast policy from the reference's snapshot continues identically.
          fast = RatioGreedy.fromJSON(ref.toJSON());
          ref = Object.setPrototypeOf(RatioGreedy.fromJSON(ref.toJSON()), ReferenceGreedy.prototype);
        }
      }
      expect(fast.toJSON()).toEqual(ref.toJSON());
    }
  });
});
