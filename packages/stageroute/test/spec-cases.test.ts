// A model's statistics are global, never reset at a stage boundary: Lemma 3 says "within the current stage",
// but the algorithm's text uses all history (and the README says the statistics span the run).
import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { StageRoute } from "../src/index.js";

describe("statistics span stages", () => {
  it("plays, mean reward and mean cost of every model count every round since the start, across 12 stages", () => {
    const arms = ["a", "b", "c", "d"];
    const mu: Record<string, number> = { a: 0.8, b: 0.6, c: 0.5, d: 0.3 };
    const price: Record<string, number> = { a: 0.9, b: 0.4, c: 0.2, d: 0.1 };
    const p = new StageRoute({ arms, budget: 0.5, maxDeployed: 2, stageLength: 25, seed: 1 });
    const rng = Rng.fromSeed(2);
    const plays: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    const sr: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    const sc: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    for (let t = 0; t < 300; t++) {
      const d = p.select();
      const reward = rng.uniform() < (mu[d.arm] as number) ? 1 : 0;
      const cost = (price[d.arm] as number) * (0.5 + rng.uniform());
      p.update(d, { reward, cost });
      plays[d.arm] = (plays[d.arm] as number) + 1;
      sr[d.arm] = (sr[d.arm] as number) + reward;
      sc[d.arm] = (sc[d.arm] as number) + cost;
    }
    expect(p.stage).toBeGreaterThanOrEqual(12);
    let total = 0;
    for (const a of arms) {
      const s = p.stats(a);
      expect(s.plays).toBe(plays[a]);
      total += s.plays;
      if (s.plays > 0) {
        expect(s.meanReward).toBeCloseTo((sr[a] as number) / s.plays, 12);
        expect(s.meanCost).toBeCloseTo((sc[a] as number) / s.plays, 12);
      }
    }
    expect(total).toBe(300);
    // Some model was played in more than one stage, so a per-stage reset would have lost plays.
    expect(Math.max(...arms.map((a) => plays[a] as number))).toBeGreaterThan(25);
  });
});
