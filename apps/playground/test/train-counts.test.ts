/**
 * `routekit train` counts only the events its policy learned from: a valid arm event naming a retired arm is
 * accepted and ignored by `learn` (core's rule), so it is counted apart, in the summary line and in `--json`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { train } from "../src/train.js";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

/** 30 uniform-logger events over a, b, c; c's 10 records were made after c was removed (retired). */
function retiredLog(): string {
  const lines = Array.from({ length: 30 }, (_, t) => {
    const arm = ["a", "b", "c"][t % 3] as string;
    const decision = { arm, context: null, propensity: 1 / 3, ...(arm === "c" ? { retired: true } : {}) };
    return JSON.stringify({
      v: 1,
      kind: "test/logger",
      protocol: "arm",
      id: `e${t}`,
      decision,
      feedback: { reward: 1 },
    });
  });
  const file = join(mkdtempSync(join(tmpdir(), "routekit-train-counts-")), "events.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

describe("routekit train: events naming an arm the policy lacks", () => {
  it("are counted apart from the learned ones (API)", () => {
    const r = train({ events: retiredLog(), policy: "ucb1", registry: fixtureRegistry });
    expect([r.learned, r.notLearned, r.skipped.length]).toEqual([20, 10, 0]);
  });

  it("are counted apart in the summary line and in --json", async () => {
    const events = retiredLog();
    const out = join(mkdtempSync(join(tmpdir(), "routekit-train-counts-")), "s.json");
    const text = await runCli(["train", "--events", events, "--policy", "ucb1", "--out", out], {
      registry: fixtureRegistry,
    });
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/trained ucb1 \(classic\/ucb1\) on 20 events from /);
    expect(text.out).toMatch(/; 10 events named an arm the policy lacks \(retired: accepted, not learned\)\n/);
    const json = await runCli(["train", "--events", events, "--policy", "ucb1", "--out", out, "--json"], {
      registry: fixtureRegistry,
    });
    expect(JSON.parse(json.out)).toMatchObject({ lines: 30, learned: 20, notLearned: 10, skipped: [] });
  });
});
