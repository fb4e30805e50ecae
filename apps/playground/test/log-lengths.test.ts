/**
 * The context length `train` and `evaluate` build a fresh policy for is the log's most common one, not the first
 * line's: a log whose first line is the odd one out has that line refused, not every other one.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

const cli = (argv: string[]) => runCli(argv, { registry: fixtureRegistry });

/** Arm events of a uniform logger over a, b, c, the t-th with a context of lengths[t] numbers. */
function logFile(lengths: readonly number[]): string {
  const rows = lengths.map((len, t) => ({
    v: 1,
    kind: "test/logger",
    protocol: "arm",
    id: `c${t}`,
    decision: {
      arm: ["a", "b", "c"][t % 3],
      context: Array.from({ length: len }, (_, i) => ((t + i) % 5) / 5),
      propensity: 1 / 3,
    },
    feedback: { reward: ((t * 7) % 10) / 10 },
  }));
  const f = join(mkdtempSync(join(tmpdir(), "routekit-log-lengths-")), "events.jsonl");
  writeFileSync(f, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return f;
}

const out = () => join(mkdtempSync(join(tmpdir(), "routekit-log-lengths-out-")), "s.json");

describe("a log whose first context has the odd length", () => {
  const events = logFile([2, ...Array.from({ length: 30 }, () => 3)]);

  it("train refuses that line only (exit 1), and --skip-invalid learns from the 30 others", async () => {
    const o = out();
    const r = await cli(["train", "--events", events, "--policy", "linucb-disjoint", "--out", o]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/refused 1 event of .*events\.jsonl: line 1: .*context/);
    expect(existsSync(o)).toBe(false);
    const s = await cli(
      ["train", "--events", events, "--policy", "linucb-disjoint", "--out", o, "--json"].concat("--skip-invalid"),
    );
    expect(s.code, s.err).toBe(0);
    const j = JSON.parse(s.out);
    expect([j.learned, j.skipped.map((x: { line: number }) => x.line)]).toEqual([30, [1]]);
  });

  it("evaluate refuses that line only (exit 1), and --skip-invalid evaluates on the 30 others", async () => {
    const r = await cli(["evaluate", "--events", events, "--policy", "linucb-disjoint"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/events\.jsonl line 1: event decision\.context must be 3 numbers/);
    const s = await cli(["evaluate", "--events", events, "--policy", "linucb-disjoint", "--skip-invalid", "--json"]);
    expect(s.code, s.err).toBe(0);
    const j = JSON.parse(s.out);
    expect([j.n, j.skipped.map((x: { line: number }) => x.line)]).toEqual([30, [1]]);
  });

  it("a tie between two lengths is refused, naming both with their counts and first lines", async () => {
    const tie = logFile([2, 3, 3, 2]);
    for (const skip of [[], ["--skip-invalid"]]) {
      const r = await cli(["train", "--events", tie, "--policy", "linucb-disjoint", "--out", out(), ...skip]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        /has as many contexts of 2 numbers \(2 events, first on line 1\) as of 3 numbers \(2 events, first on line 2\)/,
      );
    }
  });
});
