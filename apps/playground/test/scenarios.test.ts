import { describe, expect, it } from "vitest";
import { runScenario } from "../src/api.js";
import { scenarioGroups } from "../src/group.js";
import { registry, scenarios } from "../src/registry/index.js";
import { expectTinyRun } from "./tiny-run.js";

// Every registered scenario, whatever family added it, runs end to end at a tiny horizon. The members of a
// group run in groups.test.ts (the same run, plus their output files) and get the same checks there.
describe("every registered scenario runs", () => {
  const grouped = new Set(scenarioGroups(registry).flatMap((g) => g.scenarios.map((s) => s.name)));
  it("has scenarios registered (the default demo needs one)", () => {
    expect(scenarios.length).toBeGreaterThan(0);
  });
  it("the scenarios left to groups.test.ts are exactly the grouped ones of the same registry", () => {
    expect(registry.scenarios).toBe(scenarios);
    expect([...grouped].sort()).toEqual(
      scenarios
        .filter((s) => s.group !== undefined)
        .map((s) => s.name)
        .sort(),
    );
  });
  for (const s of scenarios.filter((x) => !grouped.has(x.name))) {
    it(`${s.name} (${s.protocol})`, async () => {
      expectTinyRun(s, await runScenario(s.name, { horizon: 20, seeds: 1, points: 10, workers: 1 }));
    });
  }
});
