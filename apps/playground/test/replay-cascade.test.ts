import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPLAY_CASCADE_DEFAULT_POLICIES, replay } from "../src/api.js";
import { runCli } from "./run-cli.js";

const example = join(__dirname, "..", "examples", "prompts.jsonl");

/** The CLI with the default registry (the cascade policies are in it). */
const cli = (argv: string[]) => runCli(argv);

describe("replay --protocol cascade", () => {
  it("replays the example as a cascade: COSMOS (s = 0.1) beats one-shot routing and query-all", async () => {
    const res = await replay({
      data: example,
      protocol: "cascade",
      environmentParams: { dim: 16, costWeight: 0.1 },
      seeds: 2,
      passes: 5,
      policies: [
        { policy: "cosmos", label: "cosmos", params: { exploration: 0.1 } },
        "one-shot",
        "query-all",
        { policy: "threshold-cascade", label: "threshold" },
      ],
    });
    const by = Object.fromEntries(res.result.summary.map((s) => [s.policy, s]));
    // Measured (2 seeds x 1000 requests): regret COSMOS 21.4, threshold 31.2, one-shot 40.2, query-all 88.9.
    expect(by.cosmos?.regret.mean).toBeLessThan(0.7 * (by["one-shot"]?.regret.mean ?? 0));
    expect(by.cosmos?.regret.mean).toBeLessThan(0.5 * (by["query-all"]?.regret.mean ?? 0));
    expect(by["query-all"]?.queriesPerRound?.mean).toBe(3);
    expect(by["one-shot"]?.queriesPerRound?.mean).toBe(1);
    expect(by.cosmos?.queriesPerRound?.mean).toBeGreaterThan(1);
    expect(by.cosmos?.queriesPerRound?.mean).toBeLessThan(3);
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
