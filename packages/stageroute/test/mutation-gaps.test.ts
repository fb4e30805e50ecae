/** Behaviour found unchecked by mutation testing (each test fails when the named line is mutated). */
import { describe, expect, it } from "vitest";
import { StageRoute } from "../src/index.js";

describe("paced budget at and after the horizon (stage-policy.ts roundBudget)", () => {
  it("once `horizon` feedbacks are learned, paced mode routes with the per-round budget (no division by 0 rounds left)", () => {
    const H = 10;
    const opts = {
      arms: ["x", "y"],
      budget: 1,
      maxDeployed: 2,
      stageLength: 5,
      horizon: H,
      costUnit: 1,
      exploration: 0,
      seed: 4,
    };
    const paced = new StageRoute({ ...opts, budgetMode: "paced" });
    for (let t = 0; t < H; t++) {
      const d = paced.select();
      paced.update(d, { reward: d.arm === "x" ? 0.9 : 0.3, cost: d.arm === "x" ? 2 : 0.2 });
    }
    paced.select();
    const r = paced.routing();
    // Cost means 2 and 0.2 (exploration 0): the budget-1 LP puts 4/9 on x whatever was spent before.
    expect(r.x).toBeCloseTo(4 / 9, 9);
    expect(r.y).toBeCloseTo(5 / 9, 9);
  });
});
