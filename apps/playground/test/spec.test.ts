import { runExperiment } from "@routekit/core";
import { StochasticBandit } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { compare } from "../src/api.js";
import { UsageError } from "../src/errors.js";
import type { AnyEnvironment, FamilyRegistry } from "../src/registry/types.js";
import { buildExperimentFrom, resolveSpec } from "../src/spec.js";
import { fixtureRegistry } from "./fixture.js";

describe("buildExperimentFrom", () => {
  it("builds one environment per run (none just for the name) and hands each policy its own run's environment", () => {
    const built: AnyEnvironment[] = [];
    const seen: AnyEnvironment[] = [];
    const base = fixtureRegistry.policies.find((p) => p.name === "ucb1")!;
    const reg: FamilyRegistry = {
      ...fixtureRegistry,
      policies: [
        {
          ...base,
          create: (p, ctx) => {
            seen.push(ctx.info.env);
            return base.create(p, ctx);
          },
        },
      ],
      environments: [
        {
          name: "counted",
          protocol: "arm",
          family: "test",
          description: "counts constructions",
          defaults: { k: 3 },
          create: (p) => {
            const e = new StochasticBandit({ k: p.k as number });
            built.push(e);
            return e;
          },
        },
      ],
    };
    const exp = buildExperimentFrom(reg, {
      environment: { name: "counted", params: {} },
      policies: [
        { label: "a", policy: "ucb1", params: {} },
        { label: "b", policy: "ucb1", params: {} },
      ],
      seeds: [0, 1, 2],
      horizon: 10,
      points: 5,
    });
    expect(built).toHaveLength(1); // built up front to surface data problems
    expect(exp.environmentName).toBe(built[0]!.name);
    const res = runExperiment(exp);
    expect(res.environment).toBe(built[0]!.name);
    expect(built).toHaveLength(6); // 2 policies x 3 seeds, the first reusing the up-front one
    // Each policy is first built once on the up-front environment to check its parameters (usage errors before any run).
    expect(seen.slice(0, 2)).toEqual([built[0], built[0]]);
    expect(seen.slice(2)).toEqual(built);
  });
});

describe("the limits every entry point shares (CLI flags, config files, API)", () => {
  it("refuses more than 10,000 seeds and 100,000 points per series with a UsageError, before any run", async () => {
    const spec = {
      environment: { name: "k-armed", params: {} },
      policies: [{ label: "u", policy: "ucb1", params: {} }],
      seeds: [0],
      horizon: 10,
      points: 100_000,
    };
    expect(resolveSpec(fixtureRegistry, spec).points).toBe(100_000);
    expect(() => resolveSpec(fixtureRegistry, { ...spec, points: 100_001 })).toThrow(UsageError);
    expect(() => resolveSpec(fixtureRegistry, { ...spec, seeds: Array.from({ length: 10_001 }, (_, i) => i) })).toThrow(
      /at most 10000 seeds, got 10001/,
    );
    const api = { environment: "k-armed", policies: ["ucb1"], horizon: 10, registry: fixtureRegistry, workers: 1 };
    await expect(compare({ ...api, seeds: 200_000 })).rejects.toThrow(/seeds must be an integer in \[1, 10000\]/);
    await expect(compare({ ...api, seeds: 1, points: 3_000_000 })).rejects.toThrow(
      /points must be an integer in \[2, 100000\]/,
    );
  });
});
