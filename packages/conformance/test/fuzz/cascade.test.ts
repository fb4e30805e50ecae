/**
 * Every cascade policy against the protocol contract: interleaved open episodes, bad input at every
 * step, mid-episode snapshots, feedback == learn(decisionRecord + feedback) bit for bit, and callers that
 * overwrite their context and feature buffers while episodes are open.
 */
import { checkBufferReuseCascade, fuzzCascadePolicy } from "@routekit/core/testing";
import { describe, it } from "vitest";
import { cascadePolicies } from "../cascade-policies.js";

describe.each(cascadePolicies.map((s) => [s.name, s] as const))("%s", (_name, spec) => {
  it("protocol fuzz: interleaved episodes, out-of-order, unknown and invalid calls", () => {
    fuzzCascadePolicy(spec, { numRuns: 300, maxSteps: 40 });
  });
  it("extreme fuzz: huge, zero and plain-array inputs work or are rejected, never NaN", () => {
    fuzzCascadePolicy(spec, { numRuns: 150, maxSteps: 30, profile: "extreme" });
  });
  it("a caller that reuses its context and feature buffers gets the same steps and learned state", () => {
    checkBufferReuseCascade(spec);
  });
});
