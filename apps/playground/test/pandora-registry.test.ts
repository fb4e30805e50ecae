import { Rng } from "@routekit/core";
import { envA } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { pandoraRegistry } from "../src/registry/pandora.js";
import type { EnvInfo } from "../src/registry/types.js";

const env = envA();
const info: EnvInfo = { protocol: "cascade", arms: env.initialArms, dim: env.contextDim, horizon: 100, env };
const entry = (name: string) => {
  const e = pandoraRegistry.policies.find((p) => p.name === name);
  if (!e) throw new Error(`no policy ${name}`);
  return e;
};
const make = (name: string, params: Record<string, unknown>) =>
  entry(name).create({ ...entry(name).defaults, ...params } as never, { rng: Rng.fromSeed(1), seed: 1, info });
const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });

describe("pandora registry parameters", () => {
  it('reward must be "known" or "learned" for every policy that takes it (a typo was silently "learned")', () => {
    for (const name of ["cosmos", "cosmos-greedy", "query-all", "threshold-cascade"]) {
      expect(() => make(name, { reward: "lerned" }), name).toThrow(code("INVALID_ARGUMENT"));
      expect(() => make(name, { reward: "known" }), name).not.toThrow();
      expect(() => make(name, { reward: "learned" }), name).not.toThrow();
    }
  });
});

describe("pandora registry numeric parameters", () => {
  it("cosmos: exploration scales and rewardBound are passed on (bad values refused), -1 / 0 mean the default", () => {
    for (const name of ["exploration", "explorationPlugIn", "explorationReward"]) {
      expect(() => make("cosmos", { [name]: -0.5 }), name).toThrow(code("OUT_OF_RANGE"));
      expect(() => make("cosmos", { [name]: "abc" }), name).toThrow(code("NON_FINITE"));
      expect(() => make("cosmos", { [name]: -1 }), name).not.toThrow();
    }
    const p = make("cosmos", { exploration: 0.3 }) as unknown as { config: { exploration: number } };
    expect(p.config.exploration).toBe(0.3);
    expect(() => make("cosmos", { rewardBound: -2 })).toThrow(code("OUT_OF_RANGE"));
    expect(() => make("cosmos", { rewardBound: "abc" })).toThrow(code("NON_FINITE"));
    const q = make("cosmos", { rewardBound: 0 }) as unknown as { config: { rewardBound: number } };
    expect(q.config.rewardBound).toBe(Number.POSITIVE_INFINITY);
  });
});
