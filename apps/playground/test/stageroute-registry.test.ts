import { Rng } from "@routekit/core";
import { arenaSim2025 } from "@routekit/environments";
import { type StageRoute, stageValue } from "@routekit/stageroute";
import { describe, expect, it } from "vitest";
import { policies } from "../src/registry/index.js";
import type { EnvInfo } from "../src/registry/types.js";

describe("stageroute registry: searchNodeLimit", () => {
  const entry = policies.find((p) => p.name === "stageroute");
  const env = arenaSim2025({ oracle: stageValue, stageLength: 100, maxDeployed: 3 });
  const info: EnvInfo = { protocol: "arm", arms: env.initialArms, dim: 0, horizon: 1000, env };
  const make = (extra: Record<string, string | number>) =>
    entry?.create({ ...entry.defaults, ...extra }, { rng: Rng.fromSeed(1), seed: 1, info }) as StageRoute;

  it('defaults to "none" (no limit); a number is passed to the policy; a bad one is the policy\'s error', () => {
    expect(entry?.defaults.searchNodeLimit).toBe("none");
    expect(make({}).config.searchNodeLimit).toBe(Number.POSITIVE_INFINITY);
    expect(make({ searchNodeLimit: "5000" }).config.searchNodeLimit).toBe(5000);
    expect(() => make({ searchNodeLimit: 0 })).toThrow(expect.objectContaining({ code: "OUT_OF_RANGE" }));
    expect(() => make({ searchNodeLimit: "many" })).toThrow(expect.objectContaining({ code: "NON_FINITE" }));
  });
});
