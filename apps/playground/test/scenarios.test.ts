import { describe, expect, it } from "vitest";
import { runScenario } from "../src/api.js";
import { scenarios } from "../src/registry/index.js";

// Every registered scenario, whatever family added it, runs end to end at a tiny horizon.
describe("every registered scenario runs", () => {
  it("has scenarios registered (the default demo needs one)", () => {
    expect(scenarios.length).toBeGreaterThan(0);
  });
  for (const s of scenarios) {
    it(`${s.name} (${s.protocol})`, async () => {
      const res = await runScenario(s.name, { horizon: 20, seeds: 1, points: 10, workers: 1 });
      expect(res.result.runs).toHaveLength(s.policies.length);
      expect(res.result.summary.map((x) => x.policy)).toEqual(s.policies.map((p) => p.label));
      for (const r of res.result.runs) {
        expect(r.horizon).toBe(20);
        expect(r.series.t.at(-1)).toBe(20);
        expect(Number.isFinite(r.final.regret)).toBe(true);
        expect(r.final.opr).toBeGreaterThanOrEqual(0);
        expect(r.final.opr).toBeLessThanOrEqual(1);
      }
    });
  }
});
