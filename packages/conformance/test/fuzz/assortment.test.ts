/**
 * Every assortment policy against the protocol contract: 1,000 seeded generated runs per policy
 * and profile in CI (x10 with ROUTEKIT_FUZZ=large).
 */
import { checkBufferReuseAssortment, fuzzAssortmentPolicy } from "@routekit/core/testing";
import { describe, it } from "vitest";
import { mnlPolicies } from "../policies.js";

describe.each(mnlPolicies.map((s) => [s.name, s] as const))("%s", (_name, spec) => {
  it("protocol fuzz: valid, late, duplicated, unknown and invalid calls", () => {
    fuzzAssortmentPolicy(spec, { numRuns: 1000, maxSteps: 16 });
  });
  it("extreme fuzz: huge, tiny and zero features, oversized queries work or are rejected, never NaN", () => {
    fuzzAssortmentPolicy(spec, { numRuns: 1000, maxSteps: 10, profile: "extreme" });
  });
  it("a caller overwriting its query buffers after select changes nothing", () => {
    checkBufferReuseAssortment(spec);
  });
});
