/**
 * The CLI's exit-code rule on parameter values (a library error caused by a user's parameter is bad usage: exit 2),
 * hostile parameter keys and arm ids, help that shows defaults, `list algorithms NAME`, `list --quiet`, `check`
 * without a name, and user-facing wording.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StochasticBandit } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import type { FamilyRegistry } from "../src/registry/types.js";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

/** The fixture registry plus an environment that allocates dim x dim floats, as a Gram matrix would. */
const registry: FamilyRegistry = {
  ...fixtureRegistry,
  environments: [
    ...fixtureRegistry.environments,
    {
      name: "gram",
      protocol: "arm",
      family: "test",
      description: "allocates dim^2 floats",
      defaults: { dim: 4 },
      create: (p) => {
        const gram = new Float64Array((p.dim as number) * (p.dim as number));
        return new StochasticBandit({ k: 2 + (gram.length % 2) });
      },
    },
  ],
};

const cli = (argv: string[]) => runCli(argv, { registry });

const compare = ["compare", "--env", "k-armed", "--policies", "ucb1", "--horizon", "20", "--seeds", "1", "--json"];

describe("parameter values and keys", () => {
  it("a bad value of a known parameter is a usage error (exit 2), one line naming it", async () => {
    const cases: [string[], RegExp][] = [
      [[...compare, "--param", "ucb1.exploration=-1"], /policy ucb1 \{"exploration":-1\}: .*exploration/],
      [[...compare, "--env-param", "k=0"], /environment k-armed \{"k":0\}: /],
      [[...compare, "--env-param", "k=2.5"], /environment k-armed \{"k":2.5\}: /],
      [
        ["compare", "--env", "gram", "--policies", "random", "--env-param", "dim=1e9"],
        /environment gram \{"dim":1000000000\}: a parameter value is too large to allocate/,
      ],
    ];
    for (const [argv, re] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err, argv.join(" ")).toMatch(re);
      expect(r.err).not.toMatch(/Invalid typed array length|unexpected error/);
      expect(r.err.trim().split("\n")).toHaveLength(1);
      expect(r.out).toBe("");
    }
  });

  it("the README's examples of a refused parameter value are refused values, not unknown keys", async () => {
    const readme = readFileSync(join(__dirname, "..", "README.md"), "utf8").replace(/\s+/g, " ");
    const quoted = /A parameter value the library refuses \(`--param ([^`]+)`, `--env-param ([^`]+)`/.exec(readme);
    expect(quoted).not.toBeNull();
    const [, param, envParam] = quoted as unknown as [string, string, string];
    for (const argv of [
      [...compare, "--param", param],
      [...compare, "--env-param", envParam],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      // "ucb1 has no parameter "c"" was the README's first example: a key, not a value the library refuses.
      expect(r.err, argv.join(" ")).toMatch(/^routekit: (policy ucb1|environment k-armed) \{.*\}: /);
    }
  });

  it("inherited object keys are not parameters: toString, constructor, __proto__", async () => {
    for (const key of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
      const p = await cli([...compare, "--param", `ucb1.${key}=1`]);
      expect(p.code, key).toBe(2);
      expect(p.err).toMatch(new RegExp(`ucb1 has no parameter "${key}" \\(parameters: exploration\\)`));
      const e = await cli([...compare, "--env-param", `${key}=1`]);
      expect(e.code, key).toBe(2);
      expect(e.err).toMatch(new RegExp(`environment k-armed has no parameter "${key}"`));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("replays a file whose model names are __proto__, constructor and toString", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-hostile-"));
    const data = join(dir, "hostile.jsonl");
    const models = ["__proto__", "constructor", "toString"];
    const rows: string[] = [];
    for (let p = 0; p < 6; p++) {
      for (const [i, m] of models.entries()) {
        rows.push(JSON.stringify({ prompt: `prompt ${p}`, model: m, score: (p + i) % 3 === 0 ? 1 : 0.2 }));
      }
    }
    writeFileSync(data, `${rows.join("\n")}\n`);
    const out = join(dir, "out");
    const r = await cli([
      "replay",
      "--data",
      data,
      "--policies",
      "random,ucb1",
      "--seeds",
      "2",
      "--json",
      "--out",
      out,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.summary.map((s: { policy: string }) => s.policy)).toEqual(["random", "ucb1"]);
    expect(j.files.plots.panel.svg).toMatch(/\.svg$/); // vega rendered the hostile ids too
  });
});

describe("help, list and wording", () => {
  it("compare --help shows its defaults: 5 seeds x 2000 rounds, 200 points", async () => {
    const r = await cli(["compare", "--help"]);
    expect(r.out).toMatch(/--seeds <n>\s+number of seeds \(0\.\.n-1; default 5\)/);
    expect(r.out).toMatch(/--horizon <rounds>\s+rounds per run \(default 2000\)/);
    expect(r.out).toMatch(/default 200\)/);
    expect((await cli(["replay", "--help"])).out).toMatch(
      /default one\s+pass:\s+the\s+number\s+of\s+prompts\s+in\s+the\s+file\)/,
    );
    expect((await cli(["run", "--help"])).out).toMatch(/default the scenario's/);
  });

  it("list algorithms NAME lists each parameter with its type and default", async () => {
    const r = await cli(["list", "algorithms", "linucb-disjoint"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^linucb-disjoint \(arm, @routekit\/classic\): LinUCB with disjoint models\n/);
    expect(r.out).toMatch(/parameters \(2; override with --param linucb-disjoint\.KEY=VALUE\)/);
    expect(r.out).toMatch(/ {2}name {9}type {4}default\n {2}exploration {2}number {2}1\n {2}ridge {8}number {2}1\n/);
    const j = JSON.parse((await cli(["list", "environments", "replay", "--json"])).out);
    expect(j.parameters).toContainEqual({ name: "data", type: "string", default: "" });
    expect(j.parameters).toContainEqual({ name: "dim", type: "number", default: 256 });
    const bad = await cli(["list", "algorithms", "ucb9"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown policy "ucb9"/);
    expect((await cli(["list", "scenarios", "fixture-demo"])).code).toBe(2);
  });

  it("list takes --quiet (names only)", async () => {
    const r = await cli(["list", "algorithms", "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("random\nucb1\nlinucb-disjoint\n");
    expect((await cli(["list", "--quiet"])).out).toMatch(/^random\nucb1\nlinucb-disjoint\nk-armed\n/);
    expect((await cli(["list", "algorithms", "ucb1", "-q"])).out).toBe("exploration\n");
  });

  it("check without a name prints the checks with what they do (exit 2)", async () => {
    const r = await cli(["check"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the checks are:\n {2}assortment-lp {2}cross-check the exact Dinkelbach/);
    expect(r.out).toBe("");
  });

  it("says 1 seed, not 1 seeds", async () => {
    const out = mkdtempSync(join(tmpdir(), "routekit-1seed-"));
    const r = await cli([
      ...["compare", "--env", "k-armed", "--policies", "ucb1", "--horizon", "20", "--seeds", "1"],
      ...["--out", out, "--no-plots"],
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\(1 seed x 20 rounds;/);
  });

  it("--no-png writes every plot as SVG and the report, no PNG, and names the panel's SVG", async () => {
    const out = mkdtempSync(join(tmpdir(), "routekit-nopng-"));
    const r = await cli([
      ...["compare", "--env", "k-armed", "--policies", "ucb1,random", "--horizon", "20", "--seeds", "1"],
      ...["--workers", "1", "--out", out, "--no-png"],
    ]);
    expect(r.code).toBe(0);
    const files = readdirSync(out);
    expect(files.filter((f) => f.endsWith(".png"))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(["panel.svg", "regret.svg", "report.html"]));
    expect(r.out).toContain(`plot:    ${join(out, "panel.svg")}`);
  });
});
