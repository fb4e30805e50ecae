import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configToSpec, parseCompareConfig } from "../src/config.js";
import { UsageError } from "../src/errors.js";
import { main } from "../src/main.js";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

const defaults = { seeds: 3, horizon: 100, points: 50 };

function errorOf(text: string, file = "exp.yaml"): string {
  try {
    configToSpec(fixtureRegistry, parseCompareConfig(text, file), file, defaults);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error("expected a UsageError");
}

describe("compare config files", () => {
  it("accepts YAML and JSON, short and long forms", () => {
    const yaml = `
environment: { name: linear-contextual, params: { contextDim: 3 } }
policies:
  - random
  - { policy: linucb-disjoint, label: linucb-a0.3, params: { exploration: 0.3 } }
  - { policy: linucb-disjoint, label: linucb-a2, params: { exploration: 2 } }
seeds: [7, 8]
horizon: 400
`;
    const spec = configToSpec(fixtureRegistry, parseCompareConfig(yaml, "x.yml"), "x.yml", defaults);
    expect(spec).toEqual({
      environment: { name: "linear-contextual", params: { contextDim: 3 } },
      policies: [
        { label: "random", policy: "random", params: {} },
        { label: "linucb-a0.3", policy: "linucb-disjoint", params: { exploration: 0.3 } },
        { label: "linucb-a2", policy: "linucb-disjoint", params: { exploration: 2 } },
      ],
      seeds: [7, 8],
      horizon: 400,
      points: 50,
    });
    const json = JSON.stringify({ environment: "k-armed", policies: ["ucb1"], seeds: 2 });
    const s2 = configToSpec(fixtureRegistry, parseCompareConfig(json, "x.json"), "x.json", defaults);
    expect(s2.seeds).toEqual([0, 1]);
    expect(s2.horizon).toBe(100);
  });

  it("names the offending key path in every error", () => {
    expect(errorOf("policies: [ucb1]")).toBe("exp.yaml: environment: is required");
    expect(errorOf("environment: 3\npolicies: [ucb1]")).toBe(
      "exp.yaml: environment: must be an environment name or { name, params }",
    );
    expect(errorOf("environment: k-armed\npolicies: [ucb1, 4]")).toBe(
      "exp.yaml: policies[1]: must be a policy name or { policy, label, params }",
    );
    expect(errorOf("environment: k-armed\npolicies: []")).toMatch(/^exp.yaml: policies: Too small/);
    expect(errorOf("environment: k-armed\npolicies: [ucb1]\nhorizon: 1.5")).toMatch(
      /^exp.yaml: horizon: Invalid input: expected int/,
    );
    expect(errorOf("environment: k-armed\npolicies: [ucb1]\nhorizons: 10")).toBe("exp.yaml: horizons: unknown key");
    expect(
      errorOf("environment: k-armed\npolicies: [ucb1, { policy: ucb1, label: b, params: { exploration: [1] } }]"),
    ).toMatch(/^exp.yaml: policies\[1\]/);
    expect(
      errorOf("environment: k-armed\npolicies: [ucb1, { policy: ucb1, label: u2, params: { exploration: one } }]"),
    ).toBe('exp.yaml: policies[1].params.exploration: u2.exploration must be a number, got "one"');
    expect(errorOf("environment: k-armed\npolicies: [ucb1, { policy: ucb1, label: u2, params: { zz: 1 } }]")).toBe(
      'exp.yaml: policies[1].params.zz: u2 has no parameter "zz" (parameters: exploration)',
    );
    expect(errorOf("environment: k-armed\npolicies: [ucb1, ucb3]")).toMatch(
      /^exp.yaml: policies\[1\]: unknown policy "ucb3"/,
    );
    expect(errorOf("environment: { name: k-armed, params: { k: big } }\npolicies: [ucb1]")).toBe(
      'exp.yaml: environment.params.k: environment k-armed.k must be a number, got "big"',
    );
    expect(errorOf("environment: mars\npolicies: [ucb1]")).toMatch(
      /^exp.yaml: environment: unknown environment "mars"/,
    );
    expect(errorOf("environment: k-armed\npolicies: [ucb1, ucb1]")).toMatch(
      /policies\[1\].label: "ucb1" is also the label of policies\[0\]/,
    );
    expect(errorOf("environment: k-armed\npolicies: [ucb1]\n  bad indent: [", "exp.yaml")).toMatch(
      /^exp.yaml: cannot parse YAML/,
    );
    expect(errorOf("{ nope", "exp.json")).toMatch(/^exp.json: cannot parse JSON/);
    // A key given twice is refused in JSON as YAML refuses it (JSON.parse kept the last one silently),
    // nested keys too; the same key in two different objects is fine.
    const twice = '{"environment": "linear-contextual", "policies": ["random"], "seeds": 3, "seeds": 5}';
    // The message names the key's path (the YAML reader's "Map keys must be unique at line 1, column 66:" did not).
    const message = (path: string, line: number) =>
      `${path}: key given twice in one object (line ${line}); give it once (never a silent "last one wins")`;
    expect(errorOf(twice, "exp.json")).toBe(`exp.json: ${message("seeds", 1)}`);
    expect(errorOf(twice, "exp.yaml")).toBe(`exp.yaml: ${message("seeds", 1)}`);
    const nested = '{"environment": {"name": "linear-contextual", "params": {"k": 2, "k": 3}}, "policies": ["random"]}';
    expect(errorOf(nested, "exp.json")).toBe(`exp.json: ${message("environment.params.k", 1)}`);
    const inList = "environment: k-armed\npolicies:\n  - ucb1\n  - policy: random\n    label: a\n    label: b\n";
    expect(errorOf(inList, "exp.yaml")).toBe(`exp.yaml: ${message("policies[1].label", 6)}`);
    expect(errorOf('{"environment": "k-armed", "\\u0065nvironment": "x", "policies": ["ucb1"]}', "e.json")).toBe(
      `e.json: ${message("environment", 1)}`,
    );
    const fine =
      '{"environment": {"name": "linear-contextual", "params": {"k": 2}}, "policies": [{"policy": "random", "params": {}}, {"policy": "ucb1", "params": {}}]}';
    expect(parseCompareConfig(fine, "exp.json").policies).toHaveLength(2);
    // A seed listed twice is an invalid config (exit 2), not a failure of the run (it was exit 1).
    expect(errorOf("environment: k-armed\npolicies: [ucb1]\nseeds: [3, 17, 3]")).toBe(
      "exp.yaml: seeds[2]: seed 3 is also seeds[0]; seeds must be distinct (the runs would be identical)",
    );
  });

  it("reads a JSON or YAML file that starts with a byte order mark (as Windows editors save UTF-8)", () => {
    const json = JSON.stringify({ environment: "k-armed", policies: ["ucb1"], seeds: [4], horizon: 7 });
    for (const [text, file] of [
      [`\uFEFF${json}`, "x.json"],
      ["\uFEFFenvironment: k-armed\npolicies: [ucb1]\nseeds: [4]\nhorizon: 7\n", "x.yaml"],
    ] as const) {
      const spec = configToSpec(fixtureRegistry, parseCompareConfig(text, file), file, defaults);
      expect(spec.seeds, file).toEqual([4]);
      expect(spec.horizon, file).toBe(7);
    }
  });

  it("runs from a config file through the CLI, and rejects mixing --config with --env", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-cfg-"));
    const file = join(dir, "exp.yaml");
    writeFileSync(file, "environment: k-armed\npolicies: [random, ucb1]\nseeds: 1\nhorizon: 60\n");
    let out = "";
    let err = "";
    const io = {
      stdout: {
        write: (s: string) => {
          out += s;
          return true;
        },
      } as unknown as NodeJS.WritableStream,
      stderr: {
        write: (s: string) => {
          err += s;
          return true;
        },
      } as unknown as NodeJS.WritableStream,
      registry: fixtureRegistry,
    };
    expect(await main(["compare", "--config", file, "--json", "--out", dir, "--no-plots"], io)).toBe(0);
    const j = JSON.parse(out);
    expect(j.horizon).toBe(60);
    expect(j.summary).toHaveLength(2);
    expect(await main(["compare", "--config", file, "--env", "k-armed"], io)).toBe(2);
    expect(err).toMatch(/either --config or --env/);
    writeFileSync(file, "environment: k-armed\npolicies: [random]\nseed: 1\n");
    err = "";
    expect(await main(["compare", "--config", file], io)).toBe(2);
    expect(err).toBe(`routekit: ${file}: seed: unknown key\n`);
  });
});

describe("config values YAML reads as non-finite numbers (.inf, .nan, 1e999)", () => {
  it("are named by their key, saying a number must be finite (the message blamed the policy entry's shape)", () => {
    for (const v of [".inf", "-.inf", ".nan", "1e999"]) {
      expect(
        errorOf(`environment: k-armed\npolicies:\n  - { policy: ucb1, params: { exploration: ${v} } }`),
        v,
      ).toMatch(
        /^exp\.yaml: policies\[0\]\.params\.exploration: must be a finite number, a string or a boolean, got (-?Infinity|NaN)$/,
      );
      expect(errorOf(`environment: { name: k-armed, params: { noiseSd: ${v} } }\npolicies: [ucb1]`), v).toMatch(
        /^exp\.yaml: environment\.params\.noiseSd: must be a finite number/,
      );
    }
  });
});

describe("compare --config with --param or --env-param", () => {
  it("is bad usage (exit 2) naming the flag: the flags were dropped without a word and the file's values run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-cfg-"));
    const file = join(dir, "exp.yaml");
    writeFileSync(file, "environment: k-armed\npolicies: [ucb1]\nseeds: 1\nhorizon: 10\n");
    for (const [flag, value] of [
      ["--param", "ucb1.exploration=0.5"],
      ["--env-param", "k=3"],
    ] as const) {
      const r = await runCli(
        ["compare", "--config", file, flag, value, "--out", join(dir, "out"), "--no-plots", "-q"],
        {
          registry: fixtureRegistry,
        },
      );
      expect(r.code, flag).toBe(2);
      expect(r.err, flag).toMatch(new RegExp(`^routekit: ${flag} .*--config.*\n$`));
      expect(r.out, flag).toBe("");
    }
  });
});

describe("config files: a number for a parameter whose default is a word", () => {
  it('StageRoute\'s searchNodeLimit: 2000, budget: 3 (defaults "none", "env") are taken as the numbers they are', async () => {
    const { registry } = await import("../src/registry/index.js");
    const { mergeParams } = await import("../src/spec.js");
    const config = (params: string) =>
      configToSpec(
        registry,
        parseCompareConfig(
          `environment: arena-sim-2025\npolicies:\n  - { policy: stageroute, params: ${params} }`,
          "x.yml",
        ),
        "x.yml",
        defaults,
      );
    const spec = config("{ searchNodeLimit: 2000, enumLimit: 0, budget: 3, maxDeployed: 2 }");
    const entry = registry.policies.find((p) => p.name === "stageroute");
    const params = mergeParams("stageroute", entry?.defaults ?? {}, spec.policies[0]?.params);
    expect(params).toMatchObject({ searchNodeLimit: "2000", enumLimit: 0, budget: "3", maxDeployed: "2" });
    // Other types stay refused for a word.
    expect(() => config("{ tieBreak: true }")).toThrow(
      "x.yml: policies[0].params.tieBreak: stageroute.tieBreak must be a string, got true",
    );
  });
});
