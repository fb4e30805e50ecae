/**
 * `routekit train` and `routekit evaluate` on event logs a real service writes: logs mixing policy kinds (a
 * context-free policy's records carry `context: null`) and the line order of such logs.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

const cli = (argv: string[]) => runCli(argv, { registry: fixtureRegistry });

/** n arm events of a uniform logger over a, b, c with 3-number contexts and their propensity. */
function contextEvents(n: number): object[] {
  return Array.from({ length: n }, (_, t) => ({
    v: 1,
    kind: "test/logger",
    protocol: "arm",
    id: `c${t}`,
    decision: { arm: ["a", "b", "c"][t % 3], context: [t % 2, (t % 5) / 5, 1], propensity: 1 / 3 },
    feedback: { reward: ((t * 7) % 10) / 10 },
  }));
}

/** A record of a context-free policy (as UCB1 logs it beside contextual ones): `context: null`. */
const contextFree = {
  v: 1,
  kind: "classic/ucb1",
  protocol: "arm",
  id: "u0",
  decision: { arm: "a", context: null, propensity: 1 / 3 },
  feedback: { reward: 1 },
};

function logFile(rows: object[]): string {
  const f = join(mkdtempSync(join(tmpdir(), "routekit-log-inputs-")), "events.jsonl");
  writeFileSync(f, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return f;
}

describe("a log whose first line has no context", () => {
  // The policy's context length was the first event's: a contextual policy was built for no context at all and
  // refused as bad usage (exit 2, no line named), and --skip-invalid could not help.
  it("train: a contextual policy refuses that line by number (exit 1), --skip-invalid learns from the rest", async () => {
    const events = logFile([contextFree, ...contextEvents(30)]);
    const out = join(mkdtempSync(join(tmpdir(), "routekit-log-inputs-out-")), "s.json");
    const r = await cli(["train", "--events", events, "--policy", "linucb-disjoint", "--out", out]);
    expect([r.code, r.err.trim().split("\n").length]).toEqual([1, 1]);
    expect(r.err).toMatch(/refused 1 event of .*events\.jsonl: line 1: .*context/);
    expect(existsSync(out)).toBe(false);
    const s = await cli(["train", "--events", events, "--policy", "linucb-disjoint", "--out", out, "--skip-invalid"]);
    expect(s.code, s.err).toBe(0);
    expect(s.out).toMatch(/on 30 events/);
    expect(s.err).toMatch(/skipped line 1: .*context/);
    expect(existsSync(out)).toBe(true);
  });

  it("train and evaluate treat the log the same whatever line comes first", async () => {
    const rows = contextEvents(30);
    const first = logFile([contextFree, ...rows]);
    const later = logFile([...rows.slice(0, 5), contextFree, ...rows.slice(5)]);
    for (const [events, line] of [
      [first, 1],
      [later, 6],
    ] as const) {
      const e = await cli(["evaluate", "--events", events, "--policy", "linucb-disjoint"]);
      expect([e.code, e.err.trim().split("\n").length]).toEqual([1, 1]);
      expect(e.err).toMatch(new RegExp(`events\\.jsonl line ${line}: .*context`));
      // A context-free policy learns such a line, wherever it is.
      const out = join(mkdtempSync(join(tmpdir(), "routekit-log-inputs-out-")), "s.json");
      const t = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out, "--json"]);
      expect(t.code, t.err).toBe(0);
      expect(JSON.parse(t.out).learned).toBe(31);
    }
  });
});
