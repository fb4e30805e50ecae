import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPLAY_CASCADE_DEFAULT_POLICIES, replay } from "../src/api.js";
import { runCli } from "./run-cli.js";

const example = join(__dirname, "..", "examples", "prompts.jsonl");

/** The CLI with the default registry (the cascade policies are in it). */
const cli = (argv: string[]) => runCli(argv);

describe("replay --protocol cascade", () => {
  it("replays the example as a cascade: the README's numbers, COSMOS (s = 0.1) beating one-shot and query-all", async () => {
    // The README's command: `replay --data examples/prompts.jsonl --protocol cascade --cost-weight 0.1 --dim 16
    // --passes 5 --seeds 3`, default lineup.
    const res = await replay({
      data: example,
      protocol: "cascade",
      environmentParams: { dim: 16, costWeight: 0.1 },
      seeds: 3,
      passes: 5,
    });
    const by = Object.fromEntries(res.result.summary.map((s) => [s.policy, s]));
    const cosmos = by["COSMOS s=0.1"];
    expect(cosmos?.regret.mean).toBeLessThan(0.7 * (by["one-shot"]?.regret.mean ?? 0));
    expect(cosmos?.regret.mean).toBeLessThan(0.5 * (by["query-all"]?.regret.mean ?? 0));
    expect(by["query-all"]?.queriesPerRound?.mean).toBe(3);
    expect(by["one-shot"]?.queriesPerRound?.mean).toBe(1);
    expect(cosmos?.queriesPerRound?.mean).toBeGreaterThan(1);
    expect(cosmos?.queriesPerRound?.mean).toBeLessThan(3);
    // The README quotes each policy's regret and models asked per request as the command prints them (seeded).
    const readme = readFileSync(join(__dirname, "..", "README.md"), "utf8").replace(/\s+/g, " ");
    const quoted: [string, string, string, string][] = [
      ["COSMOS s=0.1", "21.0", "1.61", "COSMOS s = 0.1 has regret 21.0 with 1.61 models asked per request"],
      ["threshold 0.7", "31.2", "2.23", "the threshold cascade 31.2 (2.23)"],
      ["one-shot", "38.7", "1.00", "one-shot routing 38.7 (1.00)"],
      ["COSMOS s=0.5", "74.0", "2.73", "COSMOS s = 0.5 74.0 (2.73"],
      ["query-all", "88.9", "3.00", "query-all 88.9 (3.00)"],
    ];
    for (const [label, regret, queries, sentence] of quoted) {
      expect(readme).toContain(sentence);
      expect(by[label]?.regret.mean.toFixed(1), label).toBe(regret);
      expect(by[label]?.queriesPerRound?.mean.toFixed(2), label).toBe(queries);
    }
    // query-all deploys the best of the three scores and pays every cost: its reward per request is the
    // file's per-prompt best score (0.805), its cost 0.1 x the mean summed cost.
    expect(by["query-all"]?.costPerRound.mean).toBeCloseTo(0.15, 2);
    expect(res.notes?.["cost weight"]).toMatch(/^0.1 reward units/);
    expect(res.notes?.["best single model net of cost"]).toMatch(/^coder-7b|^math-13b|^generalist-70b/);
    expect(res.title).toBe(`cascade replay of ${example}`);
  }, 120_000);

  it("the default lineup is COSMOS at two scales and the three baselines", () => {
    expect(REPLAY_CASCADE_DEFAULT_POLICIES.map((p) => p.label ?? p.policy)).toEqual([
      "COSMOS s=0.5",
      "COSMOS s=0.1",
      "one-shot",
      "query-all",
      "threshold 0.7",
    ]);
  });

  it("the CLI prints the cascade table without O2B and refuses what a cascade cannot replay", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-cascade-"));
    const ok = await cli([
      "replay",
      "--data",
      example,
      "--protocol",
      "cascade",
      "--cost-weight",
      "0.1",
      "--dim",
      "8",
      "--seeds",
      "1",
      "--policies",
      "one-shot,query-all",
      "--out",
      dir,
      "--no-plots",
      "--quiet",
    ]);
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/queries\/round/);
    expect(ok.out).not.toMatch(/O2B/);
    const noCost = join(dir, "no-cost.jsonl");
    writeFileSync(noCost, '{"prompt":"a","model":"x","score":0.5}\n{"prompt":"a","model":"y","score":0.7}\n');
    const r1 = await cli(["replay", "--data", noCost, "--protocol", "cascade", "--policies", "query-all"]);
    expect(r1.code).not.toBe(0);
    expect(r1.err).toMatch(/needs a cost column/);
    const r2 = await cli(["replay", "--data", example, "--cost-weight", "0.1", "--policies", "random"]);
    expect(r2.err).toMatch(/--cost-weight applies to --protocol cascade only/);
    const r3 = await cli(["replay", "--data", example, "--protocol", "cascade", "--cost-weight", "0"]);
    expect(r3.err).toMatch(/--cost-weight must be a finite number > 0, got "0"/);
    const r4 = await cli(["replay", "--data", example, "--protocol", "cascade", "--policies", "random"]);
    expect(r4.err).toMatch(/random/);
  }, 120_000);
});
