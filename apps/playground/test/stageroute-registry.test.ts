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
    // A word that is no number is the wrong type (INVALID_ARGUMENT), named as typed, not as Number()'s NaN.
    expect(() => make({ searchNodeLimit: "many" })).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: 'searchNodeLimit must be a number or "none", got "many"',
      }),
    );
  });

  it('a blank or non-numeric searchNodeLimit, maxCost or costUnit is refused as typed (Number("") is 0: maxCost= was a silent maxCost 0)', () => {
    // No stage environment (as on k-armed): nothing comes from the environment.
    const kArmed: EnvInfo = { protocol: "arm", arms: ["a", "b"], dim: 0, horizon: 100, env: {} as EnvInfo["env"] };
    const fresh = (extra: Record<string, string>) =>
      entry?.create(
        { ...entry.defaults, budget: "1", maxDeployed: "2", stageLength: "5", minCost: "0", ...extra },
        { rng: Rng.fromSeed(1), seed: 1, info: kArmed },
      ) as StageRoute;
    expect(fresh({}).config.maxCost).toBe(Number.POSITIVE_INFINITY);
    expect(fresh({ maxCost: "2", costUnit: "0.5", searchNodeLimit: "100" }).config).toMatchObject({
      maxCost: 2,
      costUnit: 0.5,
      searchNodeLimit: 100,
    });
    for (const [key, or] of [
      ["maxCost", '"env"'],
      ["costUnit", '"budget" or "preset"'],
      ["searchNodeLimit", '"none"'],
    ] as const) {
      for (const typed of ["", " ", "none!", "Infinityy"]) {
        expect(() => fresh({ [key]: typed }), `${key}=${JSON.stringify(typed)}`).toThrow(
          expect.objectContaining({
            code: "INVALID_ARGUMENT",
            message: `${key} must be a number or ${or}, got "${typed}"`,
          }),
        );
      }
    }
  });
});

describe("stageroute registry: preset", () => {
  const env = arenaSim2025({ oracle: stageValue, stageLength: 100, maxDeployed: 3 });
  const info: EnvInfo = { protocol: "arm", arms: env.initialArms, dim: 0, horizon: 1000, env };

  it("only the named presets: an Object.prototype key (toString, constructor, __proto__) is refused, not read as the library defaults", () => {
    for (const name of ["stageroute", "stageroute-greedy", "stageroute-oracle"]) {
      const entry = policies.find((p) => p.name === name);
      const make = (preset: string) =>
        entry?.create({ ...entry.defaults, preset }, { rng: Rng.fromSeed(1), seed: 1, info }) as StageRoute;
      expect(make("arena2025-paper").config.costUnit, name).toBe(1);
      const library = make("library").config;
      expect(library.costUnit, name).toBe(library.budget); // "budget": costs measured in budgets
      for (const preset of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
        expect(() => make(preset), `${name} ${preset}`).toThrow(
          expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining(`got "${preset}"`) }),
        );
      }
    }
  });
});
