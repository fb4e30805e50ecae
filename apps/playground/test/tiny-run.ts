import { expect } from "vitest";
import type { CommandResult } from "../src/api.js";
import type { ScenarioEntry } from "../src/registry/types.js";

/** What every registered scenario's run at horizon 20 must give (scenarios.test.ts and groups.test.ts). */
export function expectTinyRun(s: ScenarioEntry, res: CommandResult): void {
  expect(res.result.runs, s.name).toHaveLength(s.policies.length);
  expect(res.result.summary.map((x) => x.policy)).toEqual(s.policies.map((p) => p.label));
  for (const r of res.result.runs) {
    expect(r.horizon).toBe(20);
    expect(r.series.t.at(-1)).toBe(20);
    expect(Number.isFinite(r.final.regret)).toBe(true);
    expect(r.final.opr).toBeGreaterThanOrEqual(0);
    expect(r.final.opr).toBeLessThanOrEqual(1);
  }
}
