import { fuzzArmPolicy } from "@routekit/core/testing";
import { describe, it } from "vitest";
import { CASES } from "./helpers.js";

// The shared property-based contract (core/testing): random interleavings of valid, late, duplicated,
// unknown and invalid calls, arm churn and snapshot/restore, checked after every step.
describe("core/testing conformance fuzz", () => {
  for (const c of CASES) {
    it.each(["protocol", "extreme"] as const)(`${c.name} (%s)`, (profile) => {
      fuzzArmPolicy(
        {
          name: `classic/${c.name}`,
          create: ({ seed, arms }) => c.create(arms, seed),
          restore: c.restore,
          validatesCost: true,
          ...(c.name === "thompson-gaussian" ? { rewards: [-5, 5] as const } : {}),
          ...(c.fixed ? { pinnedArms: ["arm-0"] } : {}),
        },
        { numRuns: 200, profile },
      );
    });
  }
});
