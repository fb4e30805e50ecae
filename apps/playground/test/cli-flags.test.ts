/**
 * A flag given twice: a single-valued one is bad usage (Commander kept the last value without a word, so
 * `--seeds 3 --seeds 5` ran 5 seeds), a repeatable one (its help says so) collects every value.
 */
import type { EventEmitter } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command, Option } from "commander";
import { describe, expect, it, onTestFinished } from "vitest";
import { UsageError } from "../src/errors.js";
import { allCommands, cliProgram, isRepeatable } from "../src/main.js";
import { fixtureRegistry } from "./fixture.js";
import { Capture, runCli } from "./run-cli.js";

const cli = (argv: string[]) => runCli(argv, { registry: fixtureRegistry });

/** The command at `path` (names from the program down) of a fresh program. */
function commandAt(path: readonly string[]): Command {
  let c = cliProgram({ stdout: new Capture(), stderr: new Capture() }, fixtureRegistry);
  for (const name of path) c = c.commands.find((x) => x.name() === name) as Command;
  return c;
}

/** Every (command path, option) of the program whose option takes a value. */
function valueFlags(): { path: string[]; option: Option }[] {
  const out: { path: string[]; option: Option }[] = [];
  for (const c of allCommands(cliProgram({ stdout: new Capture(), stderr: new Capture() }, fixtureRegistry))) {
    const path: string[] = [];
    for (let x: Command | null = c; x?.parent; x = x.parent) path.unshift(x.name());
    for (const option of c.options) if (option.required || option.optional) out.push({ path, option });
  }
  return out;
}

describe("a flag given twice", () => {
  it("a single-valued flag given twice is bad usage: exit 2, one line naming both values, nothing run", async () => {
    const compare = ["compare", "--env", "k-armed", "--policies", "ucb1", "--horizon", "20", "--workers", "1"];
    const cases: [string[], string, string, string][] = [
      [[...compare, "--seeds", "3", "--seeds", "5"], "--seeds", "3", "5"],
      [[...compare, "--seeds=3", "--seeds", "3"], "--seeds", "3", "3"],
      [[...compare, "--env", "k-armed"], "--env", "k-armed", "k-armed"],
      [["--seeds", "1", "--seeds", "2"], "--seeds", "1", "2"], // the demo's own flags
      [["run", "x", "--horizon", "10", "--horizon", "20"], "--horizon", "10", "20"],
      [["replay", "--data", "a.jsonl", "--protocol", "arm", "--protocol", "cascade"], "--protocol", "arm", "cascade"],
      [["train", "--events", "e", "--policy", "ucb1", "--out", "o", "--seed", "1", "--seed", "2"], "--seed", "1", "2"],
      [["evaluate", "--estimator", "ips", "--estimator", "snips"], "--estimator", "ips", "snips"],
      [["class-fit", "--seeds", "1", "--seeds", "2"], "--seeds", "1", "2"],
      [["check", "assortment-lp", "--instances", "2", "--instances", "3"], "--instances", "2", "3"],
    ];
    for (const [argv, flag, a, b] of cases) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err, argv.join(" ")).toMatch(
        new RegExp(`^routekit: ${flag} given twice \\("${a}", then "${b}"\\): give it once( \\(.*\\))?\\n$`),
      );
      expect(r.out).toBe("");
    }
    // The message names the flags of that command that may be repeated.
    expect((await cli([...compare, "--seeds", "3", "--seeds", "5"])).err).toContain(
      "(of this command's flags only --param, --env-param may be repeated)",
    );
  });

  it("repeatable flags (--param, --env-param) collect every value; flags without a value may be given twice", async () => {
    const out = mkdtempSync(join(tmpdir(), "routekit-flags-"));
    const r = await cli([
      "compare",
      "--env",
      "linear-contextual",
      "--policies",
      "ucb1,linucb-disjoint",
      "--param",
      "ucb1.exploration=0.5",
      "--param",
      "linucb-disjoint.ridge=2",
      "--param",
      "linucb-disjoint.exploration=0.25",
      "--env-param",
      "k=4",
      "--env-param",
      "contextDim=3",
      "--horizon",
      "20",
      "--seeds",
      "1",
      "--workers",
      "1",
      "--no-plots",
      "--no-plots",
      "--json",
      "--json",
      "--out",
      out,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const spec = JSON.parse(r.out).spec as {
      environment: { params: Record<string, unknown> };
      policies: { policy: string; params: Record<string, unknown> }[];
    };
    expect(spec.environment.params).toEqual({ k: 4, contextDim: 3 });
    expect(spec.policies.map((p) => [p.policy, p.params])).toEqual([
      ["ucb1", { exploration: 0.5 }],
      ["linucb-disjoint", { ridge: 2, exploration: 0.25 }],
    ]);
  });

  it("a repeatable flag setting one parameter twice is bad usage too (it kept the last value)", async () => {
    const compare = ["compare", "--env", "k-armed", "--policies", "ucb1", "--horizon", "20", "--workers", "1"];
    const cases: [string[], string][] = [
      [
        [...compare, "--param", "ucb1.exploration=1", "--param", "ucb1.exploration=2"],
        '--param ucb1.exploration given twice ("1", then "2")',
      ],
      [[...compare, "--env-param", "k=3", "--env-param", "k=5"], '--env-param k given twice ("3", then "5")'],
      [
        ["replay", "--data", "a.jsonl", "--param", "ucb1.exploration=1", "--param", "ucb1.exploration= 1"],
        '--param ucb1.exploration given twice ("1", then " 1")',
      ],
      [
        [
          "train",
          "--events",
          "e",
          "--policy",
          "ucb1",
          "--out",
          "o",
          "--param",
          "exploration=1",
          "--param",
          "exploration=1",
        ],
        '--param exploration given twice ("1", then "1")',
      ],
      [
        ["evaluate", "--events", "e", "--policy", "ucb1", "--param", "exploration=1", "--param", "exploration=2"],
        '--param exploration given twice ("1", then "2")',
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect([r.code, r.err, r.out], argv.join(" ")).toEqual([
        2,
        `routekit: ${message}: set each parameter once\n`,
        "",
      ]);
    }
  });

  it("a flag whose value is missing, followed by another flag, is bad usage, not that flag taken as the value", async () => {
    // `--out --json` wrote the results into a directory named "--json" and printed a table, exit 0: the flag after a
    // value-taking flag was read as its value (Commander's rule) without a word.
    const dir = mkdtempSync(join(tmpdir(), "routekit-flags-"));
    // The old code wrote into ./--json and ./-q: removed again, so a failing run leaves no directory behind.
    const strays = ["--json", "-q", "--no-plots"].filter((d) => !existsSync(d));
    onTestFinished(() => {
      for (const d of strays) rmSync(d, { recursive: true, force: true });
    });
    for (const [flag, next] of [
      ["--out", "--json"],
      ["--out", "-q"],
      ["--out", "--no-plots"],
      ["--policies", "--json"],
    ]) {
      const base = ["compare", "--env", "k-armed", "--policies", "ucb1", "--seeds", "1", "--horizon", "10"];
      const argv = flag === "--policies" ? ["compare", "--env", "k-armed", "--seeds", "1"] : base;
      const r = await runCli([...argv, flag, next as string], { registry: fixtureRegistry });
      expect(r.code, `${flag} ${next}`).toBe(2);
      expect(r.err, `${flag} ${next}`).toMatch(
        new RegExp(`^routekit: option '${flag} <[^>]+>' argument missing.*"${next}".*\n$`),
      );
      expect(r.out).toBe("");
    }
    // A path that starts with a dash is still a path when written as one.
    const r = await runCli(
      [
        "compare",
        "--env",
        "k-armed",
        "--policies",
        "ucb1",
        "--seeds",
        "1",
        "--horizon",
        "10",
        "--no-plots",
        "-q",
      ].concat(["--out", join(dir, "--json")]),
      { registry: fixtureRegistry },
    );
    expect(r.code).toBe(0);
  });

  it("every flag that takes a value is repeatable exactly when its help says so, and refused twice otherwise", () => {
    const flags = valueFlags();
    const repeatable = flags.filter((f) => isRepeatable(f.option)).map((f) => `${f.path.join(" ")} ${f.option.long}`);
    expect(repeatable).toEqual([
      "compare --param",
      "compare --env-param",
      "replay --param",
      "train --param",
      "evaluate --param",
    ]);
    for (const { path, option } of flags) {
      const name = `${path.join(" ") || "(program)"} ${option.long}`;
      expect(/\(repeatable\b/.test(option.description), name).toBe(isRepeatable(option));
      if (isRepeatable(option)) continue;
      // A value the flag's own parser takes, then the same flag again.
      let refused: unknown;
      let accepted = false;
      for (const value of [...(option.argChoices ?? []), "1", "2", "10", "0.5", "x"]) {
        const cmd = commandAt(path);
        try {
          (cmd as unknown as EventEmitter).emit(`option:${option.name()}`, value);
        } catch {
          continue; // not a value this flag takes
        }
        accepted = true;
        try {
          (cmd as unknown as EventEmitter).emit(`option:${option.name()}`, value);
        } catch (e) {
          refused = e;
        }
        break;
      }
      expect(accepted, name).toBe(true);
      expect(refused, name).toBeInstanceOf(UsageError);
      expect((refused as Error).message, name).toMatch(/ given twice /);
    }
  });
});
