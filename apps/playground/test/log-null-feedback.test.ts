/**
 * `"feedback": null` is not in the decision event format (a record waiting for its feedback has no `feedback`
 * field): `train` and `evaluate` refuse the line saying what is expected, instead of core's message, which reads as
 * if records without feedback were refused.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

const cli = (argv: string[]) => runCli(argv, { registry: fixtureRegistry });

function logFile(): string {
  const event = (id: string, feedback?: unknown) => ({
    v: 1,
    kind: "test/logger",
    protocol: "arm",
    id,
    decision: { arm: id.length % 2 === 0 ? "a" : "b", context: null, propensity: 0.5 },
    ...(feedback === undefined ? {} : { feedback }),
  });
  const rows = [event("e0", { reward: 1 }), event("e10", null), event("e2", { reward: 0 }), event("e33")];
  const f = join(mkdtempSync(join(tmpdir(), "routekit-null-feedback-")), "events.jsonl");
  writeFileSync(f, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return f;
}

const expected =
  /line 2: "feedback" is null: give the feedback as an object \(e\.g\. \{"reward": 0\.8\}\), or leave the field out of a decision record still waiting for its feedback/;

describe('"feedback": null in an events file', () => {
  it("train refuses the line saying what is expected; --skip-invalid skips it", async () => {
    const events = logFile();
    const out = join(mkdtempSync(join(tmpdir(), "routekit-null-feedback-out-")), "s.json");
    const r = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(expected);
    const s = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out, "--skip-invalid", "--json"]);
    expect(s.code, s.err).toBe(0);
    expect(JSON.parse(s.out)).toMatchObject({ learned: 2, withoutFeedback: 1, skipped: [{ line: 2 }] });
  });

  it("evaluate refuses it the same way", async () => {
    const r = await cli(["evaluate", "--events", logFile(), "--policy", "random", "--estimator", "ips"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(expected);
  });
});
