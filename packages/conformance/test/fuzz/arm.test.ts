/**
 * Every arm policy against the protocol contract: 1,000 seeded generated runs per policy and
 * profile in CI (x10 with ROUTEKIT_FUZZ=large). See @routekit/core/testing for the rules checked.
 */
import { checkBufferReuseArm, fuzzArmPolicy } from "@routekit/core/testing";
import { describe, it } from "vitest";
import { armPolicies } from "../policies.js";

describe.each(armPolicies.map((s) => [s.name, s] as const))("%s", (_name, spec) => {
  it("protocol fuzz: valid, late, duplicated, unknown and invalid calls", () => {
    fuzzArmPolicy(spec, { numRuns: 1000, maxSteps: 20 });
  });
  it("extreme fuzz: huge, tiny, zero and subnormal magnitudes work or are rejected, never NaN", () => {
    fuzzArmPolicy(spec, { numRuns: 1000, maxSteps: 12, profile: "extreme" });
  });
  it("a caller overwriting its context buffer after select changes nothing", () => {
    checkBufferReuseArm(spec);
  });
});
