import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseReplay } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { replay } from "../src/api.js";
import { fixtureRegistry } from "./fixture.js";

const examples = join(__dirname, "..", "examples");

describe("replay on the shipped example", () => {
  it("the example JSONL and CSV hold the same 200 x 3 table", () => {
    const a = parseReplay(readFileSync(join(examples, "prompts.jsonl"), "utf8"));
    const b = parseReplay(readFileSync(join(examples, "prompts.csv"), "utf8"));
    expect(a.numPrompts).toBe(200);
    expect(a.models).toEqual(["coder-7b", "math-13b", "generalist-70b"]);
    expect(Array.from(b.meanScore)).toEqual(Array.from(a.meanScore));
    expect(Array.from(b.contexts)).toEqual(Array.from(a.contexts));
    expect(a.hasCost).toBe(true);
  });

  it("runs policies end to end and writes results, plots (real PNGs) and a self-contained report", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-replay-"));
    const res = await replay({
      data: join(examples, "prompts.jsonl"),
      registry: fixtureRegistry,
      policies: ["random", { policy: "linucb-disjoint", params: { exploration: 0.3 } }],
      environmentParams: { dim: 32 },
      seeds: 2,
      horizon: 1200,
      out: dir,
    });
    const byPolicy = Object.fromEntries(res.result.summary.map((s) => [s.policy, s]));
    // A contextual policy on the featurized prompts learns something uniform routing cannot
    // (measured: OPR 0.46 vs 0.33, regret 162 vs 231 over 2 seeds).
    expect(byPolicy.random?.opr.mean).toBeCloseTo(1 / 3, 1);
    expect(byPolicy["linucb-disjoint"]?.opr.mean).toBeGreaterThan((byPolicy.random?.opr.mean ?? 1) + 0.07);
    expect(byPolicy["linucb-disjoint"]?.regret.mean).toBeLessThan(0.85 * (byPolicy.random?.regret.mean ?? 0));
    expect(byPolicy.random?.costPerRound.mean).toBeGreaterThan(0.4);
    expect(res.notes?.prompts).toBe(200);
    const files = res.files!;
    for (const name of ["panel", "regret", "o2b", "opr", "cost", "pick-share", "pick-share-rounds"]) {
      const png = readFileSync(files.plots[name]!.png as string);
      expect([...png.subarray(0, 8)], name).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(png.length, name).toBeGreaterThan(20_000);
      // IHDR width and height (big-endian) at bytes 16..24: a real image, 2x the vega-lite size.
      expect(png.readUInt32BE(16), name).toBeGreaterThan(600);
      expect(png.readUInt32BE(20), name).toBeGreaterThan(300);
      expect(readFileSync(files.plots[name]!.svg, "utf8")).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
    const html = readFileSync(files.report!, "utf8");
    expect(html).toMatch(/<!doctype html>/);
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect((html.match(/<svg/g) ?? []).length).toBe(6);
    expect(html).toMatch(/Pick share over rounds/);
    expect(html).toMatch(/linucb-disjoint/);
    expect(html).toMatch(/&quot;exploration&quot;: 0.3/);
    expect(statSync(files.seriesCsv).size).toBeGreaterThan(1000);
    // Pick share over rounds: per policy and checkpoint the windowed shares of the 3 models sum to 1.
    const rows = readFileSync(files.pickShareCsv, "utf8").trim().split("\n");
    expect(rows[0]).toBe("policy,arm,t,mean,se");
    const sums = new Map<string, number>();
    for (const r of rows.slice(1)) {
      const [policy, , t, mean] = r.split(",");
      sums.set(`${policy}@${t}`, (sums.get(`${policy}@${t}`) ?? 0) + Number(mean));
    }
    expect(sums.size).toBe(2 * 200);
    for (const v of sums.values()) expect(v).toBeCloseTo(1, 9);
    const json = JSON.parse(readFileSync(files.json, "utf8"));
    expect(json.pickShareOverRounds).toHaveLength(rows.length - 1);
    expect(Object.keys(json.runs[0].series.pickShare).sort()).toEqual(["coder-7b", "generalist-70b", "math-13b"]);
  });
});

describe("replay: one pass by default, the best single model in the lineup, first-pass figures", () => {
  const data = join(examples, "prompts.jsonl");

  it("defaults to one pass over the prompts and lists the best single model first", async () => {
    const res = await replay({ data, seeds: 1, environmentParams: { dim: 32 } });
    expect(res.spec.horizon).toBe(200);
    const names = res.result.summary.map((s) => s.policy);
    expect(names[0]).toBe("best single model");
    expect(names).toEqual(expect.arrayContaining(["random", "ucb1", "linucb-disjoint", "rff-ucb"]));
    // One pass: no repeated rounds, so the first-pass figures are the overall ones.
    for (const s of res.result.summary) {
      expect(s.repeatShare.mean).toBe(0);
      expect(s.firstPassRewardPerRound.mean).toBeCloseTo(s.rewardPerRound.mean, 12);
      expect(s.firstPassOpr.mean).toBeCloseTo(s.opr.mean, 12);
    }
    const best = res.result.summary[0]!;
    expect(best.o2b.mean).toBeCloseTo(0, 12);
    expect(String(res.notes?.["best single model"])).toMatch(/mean score/);
  });

  it("--passes n plays n passes; rounds after the first are repeats, and the first pass is reported apart", async () => {
    const res = await replay({
      data,
      registry: fixtureRegistry,
      policies: ["random", { policy: "linucb-disjoint", params: { exploration: 0.3 } }],
      environmentParams: { dim: 32 },
      seeds: 2,
      passes: 3,
    });
    expect(res.spec.horizon).toBe(600);
    for (const s of res.result.summary) expect(s.repeatShare.mean).toBeCloseTo(2 / 3, 12);
    const lin = res.result.summary.find((s) => s.policy === "linucb-disjoint")!;
    // Whole-run and first-pass figures are computed on different rounds.
    expect(lin.firstPassOpr.mean).not.toBe(lin.opr.mean);
    expect(Number.isFinite(lin.firstPassO2b.mean)).toBe(true);
    await expect(replay({ data, registry: fixtureRegistry, seeds: 1, passes: 2, horizon: 10 })).rejects.toThrow(
      /not both/,
    );
  });
});
