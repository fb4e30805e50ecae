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
