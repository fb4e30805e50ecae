import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runGroup } from "../src/api.js";
import { scenarioGroups, selectScenarios } from "../src/group.js";
import { main } from "../src/main.js";
import { registry, scenarios } from "../src/registry/index.js";
import { Capture } from "./run-cli.js";
import { expectTinyRun } from "./tiny-run.js";

const tiny = { horizon: 20, seeds: 1, points: 10, workers: 1 } as const;
const tmp = () => mkdtempSync(join(tmpdir(), "routekit-group-"));

describe("scenario groups (one command per paper figure)", () => {
  const groups = scenarioGroups(registry);

  it("groups the paper figures, with names distinct from scenario names and a panel label per member", () => {
    expect(groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(["mnl-fig1-uniform", "mnl-fig1-nonuniform", "mnl-figI2", "kernel-ucb-t2i"]),
    );
    const fig1 = groups.find((g) => g.name === "mnl-fig1-uniform")!;
    expect(fig1.scenarios.map((s) => s.panel)).toEqual(["K = 5", "K = 10", "K = 15"]);
    for (const g of groups) {
      expect(
        scenarios.some((s) => s.name === g.name),
        g.name,
      ).toBe(false);
      expect(g.scenarios.length, g.name).toBeGreaterThan(1);
    }
  });

  it("selects a scenario, a group or a glob, and names the groups when nothing matches", () => {
    expect(selectScenarios(registry, "mnl-fig1-uniform-k5").kind).toBe("scenario");
    expect(selectScenarios(registry, "mnl-figI2").scenarios.map((s) => s.name)).toEqual([
      "mnl-figI2-k5",
      "mnl-figI2-k10",
      "mnl-figI2-k15",
    ]);
    const glob = selectScenarios(registry, "mnl-fig1-*");
    expect(glob).toMatchObject({ kind: "glob", name: "mnl-fig1-all" });
    expect(glob.scenarios).toHaveLength(6);
    expect(() => selectScenarios(registry, "nope")).toThrow(/unknown scenario "nope" \(known: .*; groups: .*mnl-figI2/);
    expect(() => selectScenarios(registry, "zz-*")).toThrow(/no scenario matches "zz-\*"/);
  });

  // Every registered group, end to end at a tiny horizon: member outputs plus the combined figure and report.
  // The first group also renders every PNG; the others run with png: false (SVGs and reports only), which checks
  // that option and skips more than half of this file's time (36 of 65 s): a PNG is one resvg rendering of the SVG
  // each group still writes and checks, rendered here for the first group, in replay-and-plots.test.ts for every
  // plot kind and in built-cli.test.ts for the demo.
  for (const [gi, g] of groups.entries()) {
    const png = gi === 0;
    it(`${g.name} runs every member and writes the combined figure${png ? " (with PNGs)" : " (png: false)"}`, async () => {
      const dir = tmp();
      const res = await runGroup(g.name, { ...tiny, out: dir, png });
      expect(res.members.map((m) => m.scenario.name)).toEqual(g.scenarios.map((s) => s.name));
      for (const m of res.members) {
        // scenarios.test.ts leaves the members of groups to this run: the same checks of the run itself
        expectTinyRun(m.scenario, m.result);
        expect(m.result.files?.dir).toBe(join(dir, m.scenario.name));
        expect(existsSync(join(dir, m.scenario.name, "report.html"))).toBe(true);
      }
      const files = res.files!;
      if (png)
        expect(
          readFileSync(files.figure!.png as string)
            .subarray(1, 4)
            .toString(),
        ).toBe("PNG");
      else {
        expect(files.figure!.png).toBeUndefined();
        expect(existsSync(join(dir, "figure.png"))).toBe(false);
        for (const m of res.members) {
          expect(Object.values(m.result.files!.plots).every((p) => p.png === undefined)).toBe(true);
          expect(existsSync(join(dir, m.scenario.name, "panel.png"))).toBe(false);
          expect(existsSync(join(dir, m.scenario.name, "panel.svg"))).toBe(true);
        }
      }
      const svg = readFileSync(files.figure!.svg, "utf8");
      for (const m of res.members) expect(svg).toContain(m.panel.replace(/&/g, "&amp;").slice(0, 10));
      if (g.scenarios.some((s) => s.metrics?.includes("usPerRound"))) expect(svg).toContain("Time per round");
      const html = readFileSync(files.report!, "utf8");
      expect(html).not.toMatch(/<script|src="http|href="http/);
      expect((html.match(/<svg/g) ?? []).length).toBe(1);
      for (const m of res.members) expect(html).toContain(`href="${m.scenario.name}/report.html"`);
      const summary = readFileSync(files.summaryCsv, "utf8").trim().split("\n");
      expect(summary).toHaveLength(1 + g.scenarios.reduce((n, s) => n + s.policies.length, 0));
      // reference checks are made at the scenario's own horizon only; here a note says why there are none
      expect(files.referencesCsv).toBeUndefined();
      for (const m of res.members) {
        if (m.scenario.referenceValues?.length)
          expect(m.result.referenceSkipped).toMatch(/^no reference checks: horizon 20/);
      }
    });
  }

  it("routekit run <glob> --json runs every match; list scenarios shows the groups", async () => {
    const stdout = new Capture();
    const stderr = new Capture();
    const dir = tmp();
    const code = await main(
      [
        "run",
        "mnl-figI2-k1*",
        "--horizon",
        "20",
        "--seeds",
        "1",
        "--workers",
        "1",
        "--no-plots",
        "--json",
        "--out",
        dir,
      ],
      { stdout, stderr },
    );
    expect(stderr.text).toBe("");
    expect(code).toBe(0);
    const j = JSON.parse(stdout.text);
    expect(j.group).toBe("mnl-figI2-k1all");
    expect(j.members.map((m: { scenario: string }) => m.scenario)).toEqual(["mnl-figI2-k10", "mnl-figI2-k15"]);
    expect(j.files.json).toBe(join(dir, "group.json"));
    const list = new Capture();
    expect(await main(["list", "scenarios"], { stdout: list, stderr })).toBe(0);
    expect(list.text).toMatch(/groups \(\d+\)/);
    expect(list.text).toMatch(/ {2}mnl-fig1-uniform +mnl-fig1-uniform-k5 \(K = 5\), mnl-fig1-uniform-k10 \(K = 10\)/);
    const json = new Capture();
    expect(await main(["list", "scenarios", "--json"], { stdout: json, stderr })).toBe(0);
    const l = JSON.parse(json.text);
    expect(l.groups.find((g: { name: string }) => g.name === "mnl-figI2").scenarios).toHaveLength(3);
    expect(l.scenarios.find((s: { name: string }) => s.name === "mnl-figI2-k10").panel).toBe("K = 10, v0 = 2");
  });
});
