import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicySummary } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { main } from "../src/main.js";
import {
  checkReferences,
  formatReferenceChecks,
  markdownReferenceChecks,
  referenceRows,
  referenceZ,
  VERDICT_RULE,
} from "../src/reference.js";
import type { FamilyRegistry, ScenarioEntry } from "../src/registry/types.js";
import { fixtureRegistry } from "./fixture.js";
import { Capture } from "./run-cli.js";

const stat = (mean: number, std: number, n: number) => ({ mean, std, se: std / Math.sqrt(n) });
const nan = { mean: Number.NaN, std: Number.NaN, se: Number.NaN };
function row(policy: string, n: number, regret: ReturnType<typeof stat>, opr = nan): PolicySummary {
  return {
    policy,
    seeds: n,
    regret,
    o2b: nan,
    opr,
    o2bRealised: nan,
    oprRealised: nan,
    costPerRound: nan,
    rewardPerRound: nan,
    repeatShare: nan,
    firstPassRewardPerRound: nan,
    firstPassO2b: nan,
    firstPassOpr: nan,
    usPerRound: nan,
  };
}

describe("z score and verdict against a reference mean", () => {
  it("uses RouteKit's per-seed sd for both means: z = (mean - ref) / sqrt(s^2/n + s^2/m)", () => {
    // (10 - 8) / sqrt(4/10 + 4/3) = 2 / 1.316561 = 1.519109
    expect(referenceZ(10, 2, 10, 8, 3)).toBeCloseTo(1.519109, 5);
    // (18.3 - 24.8) / sqrt(2.2^2/10 + 2.2^2/3) = -6.5 / 1.448217 = -4.488277
    expect(referenceZ(18.3, 2.2, 10, 24.8, 3)).toBeCloseTo(-4.488277, 5);
    // no spread: exact agreement is z = 0, anything else infinitely far; under 2 seeds there is no estimate
    expect(referenceZ(0.5, 0, 10, 0.5, 3)).toBe(0);
    expect(referenceZ(0.51, 0, 10, 0.5, 3)).toBe(Number.POSITIVE_INFINITY);
    expect(referenceZ(5, 0, 1, 5, 3)).toBeNaN();
    // with the quoted value's rounding: the distance is to the nearest end of [ref - r, ref + r]
    // (0.2429 - 0.245) / sqrt(.00233^2/10 + .00233^2/3) = -0.0021 / 0.00153379 = -1.369154
    expect(referenceZ(0.2429, 0.00233, 10, 0.25, 3, 0.005)).toBeCloseTo(-1.369154, 5);
    expect(referenceZ(0.2429, 0.00233, 10, 0.25, 3)).toBeCloseTo(-4.629045, 5);
    expect(referenceZ(126.3, 0.2, 10, 126, 3, 0.5)).toBe(0);
  });

  it("checks each cell against its policy and metric; |z| <= 2 is within noise", () => {
    const summary = [row("a", 10, stat(10, 2, 10), stat(0.5, 0.01, 10)), row("b", 10, stat(18.3, 2.2, 10))];
    const checks = checkReferences(
      [
        { policy: "a", metric: "regret", value: 8, seeds: 3 },
        { policy: "a", metric: "opr", value: 0.51, seeds: 3 },
        { policy: "a", metric: "opr", value: 0.53, seeds: 3, rounding: 0.005 },
        { policy: "a", metric: "opr", value: 0.54, seeds: 3, rounding: 0.005 },
        { policy: "b", metric: "regret", value: 24.8, seeds: 3 },
        { policy: "b", metric: "regret", value: 18.3 - 2 * Math.sqrt(2.2 ** 2 / 10 + 2.2 ** 2 / 3), seeds: 3 },
        { policy: "missing", metric: "regret", value: 1, seeds: 3 },
      ],
      summary,
    );
    expect(checks.map((c) => c.within)).toEqual([true, true, false, false, false, true, false]);
    // 0.50 against .53 +- .005: (0.5 - 0.525) / sqrt(.01^2/10 + .01^2/3) = -0.025 / 0.0065828 = -3.797773
    expect(checks[2]?.zRounded).toBeCloseTo(-3.797773, 5);
    expect(checks[2]?.withinRounding).toBe(false);
    // 0.50 against .54 +- .005: z -6.08, from .535 z = -5.317, outside either way; .51 +- 0 is within
    expect(checks.map((c) => c.withinRounding)).toEqual([false, false, false, false, false, false, false]);
    expect(checks[0]).toMatchObject({ mean: 10, std: 2, n: 10, value: 8, seeds: 3 });
    expect(checks[1]?.z).toBeCloseTo(-1.519109, 5); // (0.50 - 0.51) / sqrt(.01^2/10 + .01^2/3)
    expect(checks[5]?.z).toBeCloseTo(2, 9); // exactly on the limit counts as within
    expect(checks[6]?.z).toBeNaN();
    const text = formatReferenceChecks(checks);
    expect(text).toContain("3 of 7 reference cells within noise");
    expect(text).toContain(VERDICT_RULE);
    expect(text).toMatch(/b\s+regret\s+24\.8 \(3\)\s+18\.3 ± 0\.696 \(10\)\s+-4\.49\s+-4\.49\s+outside/);
    expect(text).toMatch(/missing\s+regret.*NaN\s+no estimate/);
    // the reference shown with the digits it was quoted with: .50 (rounding .005) -> "0.50", 801 (.5) -> "801"
    const quotedRows = referenceRows(
      checkReferences(
        [
          { policy: "a", metric: "opr", value: 0.5, seeds: 3, rounding: 0.005 },
          { policy: "a", metric: "regret", value: 801, seeds: 3, rounding: 0.5 },
        ],
        summary,
      ),
    ).rows;
    expect(quotedRows.map((r) => r[2])).toEqual(["0.50 (3)", "801 (3)"]);
    const md = markdownReferenceChecks(checks).split("\n");
    expect(md[0]).toBe(
      "| policy | metric | reference (seeds) | RouteKit mean ± se (seeds) | z | z, rounding | verdict |",
    );
    expect(md[2]).toBe("| a | regret | 8 (3) | 10.0 ± 0.632 (10) | 1.52 | 1.52 | within |");
  });

  it("a cell outside by z but inside the quoted value's rounding is 'within rounding', counted apart", () => {
    const [c] = checkReferences(
      [{ policy: "p", metric: "opr", value: 0.25, seeds: 3, rounding: 0.005 }],
      [row("p", 10, nan, stat(0.2429, 0.00233, 10))],
    );
    expect(c).toMatchObject({ within: false, withinRounding: true });
    expect(c?.z).toBeCloseTo(-4.629045, 5);
    expect(c?.zRounded).toBeCloseTo(-1.369154, 5);
    const text = formatReferenceChecks(c ? [c] : []);
    expect(text).toMatch(/p\s+opr\s+0\.25 \(3\)\s+0\.243 ± 0\.000737 \(10\)\s+-4\.63\s+-1\.37\s+within rounding/);
    expect(text).toContain("0 of 1 reference cells within noise (1 more within the reference's rounding)");
  });
});

describe("groups with reference numbers print the checks (terminal, HTML, CSV, Markdown)", () => {
  const member = (name: string, k: number): ScenarioEntry => ({
    name,
    protocol: "arm",
    description: `k-armed with ${k} arms: references`,
    environment: { name: "k-armed", params: { k } },
    policies: [
      { label: "random", policy: "random" },
      { label: "ucb1", policy: "ucb1" },
    ],
    seeds: 3,
    horizon: 100,
    reference: "made-up numbers",
    referenceValues: [
      { policy: "random", metric: "regret", value: 1e6, seeds: 3 },
      { policy: "ucb1", metric: "opr", value: 0.5, seeds: 5 },
    ],
    group: "ref-group",
    panel: `K = ${k}`,
  });
  const reg: FamilyRegistry = { ...fixtureRegistry, scenarios: [member("ref-k2", 2), member("ref-k3", 3)] };

  it("routekit run <group> writes references.csv and .md, the report's tables and the printed verdicts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-ref-"));
    const stdout = new Capture();
    const stderr = new Capture();
    const code = await main(["run", "ref-group", "--out", dir, "--workers", "1"], {
      stdout,
      stderr,
      registry: reg,
    });
    expect(code).toBe(0);
    expect(stdout.text.match(/against the reference:/g)).toHaveLength(2);
    expect(stdout.text).toMatch(
      /random\s+regret\s+1000000 \(3\)\s+[\d.]+ ± [\d.]+ \(3\)\s+-[\d.]+\s+-[\d.]+\s+outside/,
    );
    expect(stdout.text).toMatch(/\nref-group: \d of 4 reference cells within noise.*\n\(z = \(RouteKit mean/);
    expect(stdout.text.split(VERDICT_RULE)).toHaveLength(2); // the rule once for the group
    const csv = readFileSync(join(dir, "references.csv"), "utf8").trim().split("\n");
    expect(csv[0]).toBe(
      "scenario,panel,policy,metric,reference,reference_seeds,mean,std,se,seeds,z,z_rounding,verdict",
    );
    expect(csv).toHaveLength(5);
    expect(csv[1]).toMatch(/^ref-k2,K = 2,random,regret,1000000,3,[\d.]+,[\d.]+,[\d.]+,3,-[\d.e+]+,-[\d.e+]+,outside$/);
    const md = readFileSync(join(dir, "references.md"), "utf8");
    expect(md).toContain("## K = 3 (ref-k3)");
    expect(md).toMatch(/\*\*ref-group: \d of 4 reference cells within noise\.\*\*/);
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(html.match(/class="refcheck"/g)).toHaveLength(2);
    expect(html).toContain("of 4 reference cells within noise");
    const json = JSON.parse(readFileSync(join(dir, "group.json"), "utf8"));
    expect(json.members[0].referenceChecks).toHaveLength(2);
    // each member's own outputs carry its checks too
    expect(
      readFileSync(join(dir, "ref-k3", "references.csv"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(3);
    expect(readFileSync(join(dir, "ref-k3", "report.html"), "utf8")).toContain("Against the reference");
  });

  it("makes no checks at another horizon than the scenario's, and says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-ref-"));
    const stdout = new Capture();
    const code = await main(["run", "ref-k2", "--horizon", "50", "--out", dir, "--workers", "1", "--no-plots"], {
      stdout,
      stderr: new Capture(),
      registry: reg,
    });
    expect(code).toBe(0);
    expect(stdout.text).not.toContain("against the reference");
    expect(stdout.text).toContain("(no reference checks: horizon 50, the reference's numbers are at 100)");
    expect(existsSync(join(dir, "references.csv"))).toBe(false);
  });

  it("--json says so too, for a scenario and for each member of a group, as results.json and group.json do", async () => {
    // The text output and results.json said why there were no checks; --json (and group.json) left the key out, so
    // a script could not tell "no reference numbers" from "none at this horizon".
    const note = "no reference checks: horizon 50, the reference's numbers are at 100";
    const dir = mkdtempSync(join(tmpdir(), "routekit-ref-"));
    const one = new Capture();
    const args = ["--horizon", "50", "--workers", "1", "--no-plots", "--json"];
    expect(
      await main(["run", "ref-k2", ...args, "--out", dir], { stdout: one, stderr: new Capture(), registry: reg }),
    ).toBe(0);
    expect(JSON.parse(one.text).referenceSkipped).toBe(note);
    expect(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")).referenceSkipped).toBe(note);
    const gdir = mkdtempSync(join(tmpdir(), "routekit-ref-"));
    const group = new Capture();
    expect(
      await main(["run", "ref-group", ...args, "--out", gdir], { stdout: group, stderr: new Capture(), registry: reg }),
    ).toBe(0);
    const members = JSON.parse(group.text).members;
    expect(members.map((m: { referenceSkipped?: string }) => m.referenceSkipped)).toEqual([note, note]);
    const written = JSON.parse(readFileSync(join(gdir, "group.json"), "utf8")).members;
    expect(written.map((m: { referenceSkipped?: string }) => m.referenceSkipped)).toEqual([note, note]);
  });
});
