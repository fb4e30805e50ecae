/**
 * `routekit train` end to end: a policy's run is logged as decision events (decisionRecord + feedback), other
 * policies are trained from the log by the CLI, and each trained snapshot equals, bit for bit, the learned state of
 * a policy fed the same decisions by update (the policy that made them) or by learn in-process.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LinUCBDisjoint, UCB1 } from "@routekit/classic";
import { type ArmEvent, Rng, type Snapshot } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { main } from "../src/main.js";
import { fixtureRegistry } from "./fixture.js";
import { Capture } from "./run-cli.js";

async function cli(argv: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(argv, { stdout, stderr, isTTY: false, registry: fixtureRegistry });
  return { code, out: stdout.text, err: stderr.text };
}

const ARMS = ["gpt-small", "gpt-large", "__proto__"];
const D = 4;

/** 400 rounds of LinUCB on a linear problem, every decision logged as an event line (feedback out of order). */
function loggedRun() {
  const a = new LinUCBDisjoint({ arms: ARMS, contextDim: D, seed: 11, exploration: 1, ridge: 1 });
  const rng = Rng.fromSeed("train-test");
  const theta = ARMS.map(() => rng.fillNormal(new Float64Array(D), 0, 1));
  const lines: string[] = [];
  const pending: { d: ReturnType<LinUCBDisjoint["select"]>; r: number }[] = [];
  for (let t = 0; t < 400; t++) {
    const x = rng.fillNormal(new Float64Array(D), 0, 1);
    const d = a.select(x);
    const th = theta[ARMS.indexOf(d.arm)] as Float64Array;
    let r = rng.normal() * 0.1;
    for (let i = 0; i < D; i++) r += (th[i] as number) * (x[i] as number);
    pending.push({ d, r });
    // Feedback arrives late and out of order: settle a random pending decision half of the time.
    while (pending.length > 0 && (rng.uniform() < 0.5 || t === 399)) {
      const [p] = pending.splice(rng.int(pending.length), 1);
      const { d: dp, r: rp } = p as { d: typeof d; r: number };
      const event: ArmEvent = { ...a.decisionRecord(dp), feedback: { reward: rp } };
      a.update(dp, { reward: rp });
      lines.push(JSON.stringify(event));
    }
  }
  return { policy: a, lines };
}

const learnedPart = (s: Snapshot) => {
  const st = s.state as Record<string, unknown>;
  return JSON.stringify({ arms: st.arms, exploration: st.exploration, ridge: st.ridge });
};

describe("routekit train", () => {
  it("trains from a logged run: the snapshot equals the learned state of the policy fed by update", async () => {
    const { policy, lines } = loggedRun();
    expect(policy.pendingDecisions).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-"));
    const events = join(dir, "events.jsonl");
    // A duplicate of an earlier decision and a decision record without feedback are in the log too.
    const first = JSON.parse(lines[0] as string) as ArmEvent;
    const { feedback: _f, ...record } = first;
    writeFileSync(events, `${[...lines, lines[3], "", JSON.stringify({ ...record, id: "no-feedback" })].join("\n")}\n`);

    const out = join(dir, "linucb.json");
    const r = await cli(["train", "--events", events, "--policy", "linucb-disjoint", "--out", out]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/trained linucb-disjoint \(classic\/linucb-disjoint\) on 400 events from .*events\.jsonl/);
    expect(r.out).toMatch(/1 duplicate decision id dropped, 1 without feedback, 0 invalid skipped/);
    const trained = LinUCBDisjoint.fromJSON(JSON.parse(readFileSync(out, "utf8")));
    expect(trained.arms).toEqual(ARMS);
    expect(learnedPart(trained.toJSON())).toBe(learnedPart(policy.toJSON()));
    // Same learned state, so the same choices on fresh contexts (LinUCB's choice has no randomness without ties).
    const rng = Rng.fromSeed("after");
    for (let t = 0; t < 50; t++) {
      const x = rng.fillNormal(new Float64Array(D), 0, 1);
      expect(trained.select(x).arm).toBe(policy.select(x).arm);
    }

    // Another policy, trained from the same log, equals that policy fed the events by learn in-process.
    const ucbOut = join(dir, "ucb1.json");
    const u = await cli([
      "train",
      "--events",
      events,
      "--policy",
      "ucb1",
      "--param",
      "exploration=0.5",
      "--out",
      ucbOut,
      "-q",
    ]);
    expect(u.code).toBe(0);
    expect(u.out).toBe("");
    const direct = new UCB1({ arms: ARMS, exploration: 0.5, seed: 0 });
    for (const l of lines) direct.learn(JSON.parse(l) as ArmEvent);
    expect(readFileSync(ucbOut, "utf8")).toBe(`${JSON.stringify(direct.toJSON())}\n`);
  });

  it("refuses malformed lines, naming each by line number; --skip-invalid learns from the rest", async () => {
    const { lines } = loggedRun();
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-bad-"));
    const events = join(dir, "events.jsonl");
    const bad = JSON.parse(lines[1] as string) as { feedback: { reward: unknown } };
    bad.feedback.reward = "high";
    const shortCtx = JSON.parse(lines[2] as string) as { decision: { context: number[] }; id: string };
    shortCtx.decision.context = [0.5];
    writeFileSync(events, [lines[0], "{not json", JSON.stringify(bad), JSON.stringify(shortCtx), lines[5]].join("\n"));
    const out = join(dir, "s.json");
    const r = await cli(["train", "--events", events, "--policy", "linucb-disjoint", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /has 2 invalid lines: line 2: not JSON .*; line 3: event feedback\.reward must be a finite number/,
    );
    const r2 = await cli([
      "train",
      "--events",
      events,
      "--policy",
      "linucb-disjoint",
      "--out",
      out,
      "--json",
      "--skip-invalid",
      "--arms",
      ARMS.join(","),
    ]);
    expect(r2.code).toBe(0);
    const j = JSON.parse(r2.out);
    expect(j.learned).toBe(2);
    expect(j.skipped.map((s: { line: number }) => s.line)).toEqual([2, 3, 4]);
    expect(j.skipped[2].message).toMatch(/context/);
    expect(LinUCBDisjoint.fromJSON(JSON.parse(readFileSync(out, "utf8"))).arms).toEqual(ARMS);
  });

  it("a line naming a key twice is an invalid line naming it (JSON.parse kept the last value), for train and evaluate", async () => {
    const { lines } = loggedRun();
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-dupkeys-"));
    const events = join(dir, "events.jsonl");
    // Line 2 gives feedback.reward twice (learned the second value); line 3 the top-level id twice (a colon in a
    // string value and an escaped key do not count as keys: line 4 is valid).
    const twice = (lines[1] as string).replace(/"feedback":\{"reward":/, '"feedback":{"reward":5,"reward":');
    const idTwice = (lines[2] as string).replace(/^\{/, '{"id":"x:y",');
    const escaped = (lines[3] as string).replace('"feedback":', '"feedb\\u0061ck":');
    expect(JSON.parse(twice).feedback.reward).not.toBe(5);
    writeFileSync(events, [lines[0], twice, idTwice, escaped, lines[4]].join("\r\n"));
    const out = join(dir, "s.json");
    const r = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out]);
    expect([r.code, r.out]).toEqual([1, ""]);
    expect(r.err.split("\n")).toHaveLength(2); // one line
    expect(r.err).toMatch(
      /has 2 invalid lines: line 2: key "reward" given twice in feedback .*; line 3: key "id" given twice in the top-level object/,
    );
    const r2 = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out, "--skip-invalid", "--json"]);
    expect(r2.code).toBe(0);
    expect(JSON.parse(r2.out).learned).toBe(3);
    const ev = await cli(["evaluate", "--events", events, "--policy", "ucb1", "--fallback-propensity", "0.5"]);
    expect(ev.code).toBe(1);
    expect(ev.err).toMatch(/line 2: key "reward" given twice in feedback/);
  });

  it("an object line that is no decision record is an invalid line, not a record 'without feedback'", async () => {
    const { lines } = loggedRun();
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-records-"));
    const events = join(dir, "events.jsonl");
    const { feedback: _, ...record } = JSON.parse(lines[3] as string) as { feedback: unknown };
    const cascade = { ...record, protocol: "cascade" };
    writeFileSync(
      events,
      [lines[0], "{}", '{"hello":"world"}', JSON.stringify(cascade), JSON.stringify(record), lines[4]].join("\n"),
    );
    const out = join(dir, "s.json");
    const r = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /has 3 invalid lines: line 2: event v must be 1 .*; line 3: event v .*; line 4: event protocol/,
    );
    const r2 = await cli(["train", "--events", events, "--policy", "ucb1", "--out", out, "--skip-invalid", "--json"]);
    expect(r2.code).toBe(0);
    const j = JSON.parse(r2.out);
    expect([j.learned, j.withoutFeedback]).toEqual([2, 1]); // the one real record waiting for its feedback
    expect(j.skipped.map((s: { line: number }) => s.line)).toEqual([2, 3, 4]);
  });

  it("an event for an arm --arms leaves out is a refused line, not counted as learned (the policy ignored it)", async () => {
    const { lines } = loggedRun();
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-arms-"));
    const events = join(dir, "events.jsonl");
    writeFileSync(events, `${lines.join("\n")}\n`);
    const logged = lines.map((l) => (JSON.parse(l) as ArmEvent).decision.arm);
    const kept = ARMS.slice(0, 2);
    const outsideLines = logged.flatMap((a, i) => (kept.includes(a) ? [] : [i + 1]));
    expect(outsideLines.length).toBeGreaterThan(0);
    const out = join(dir, "s.json");
    const r = await cli(["train", "--events", events, "--policy", "ucb1", "--arms", kept.join(","), "--out", out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `refused ${outsideLines.length} events? .*line ${outsideLines[0]}: logged arm "${ARMS[2]}" is not one of the policy's arms`,
      ),
    );
    const r2 = await cli([
      "train",
      "--events",
      events,
      "--policy",
      "ucb1",
      "--arms",
      kept.join(","),
      "--out",
      out,
      "--skip-invalid",
      "--json",
    ]);
    expect(r2.code).toBe(0);
    const j = JSON.parse(r2.out);
    expect(j.learned).toBe(lines.length - outsideLines.length);
    expect(j.skipped.map((s: { line: number }) => s.line)).toEqual(outsideLines);
  });

  it("usage errors: unknown policy, unknown or bad parameters, missing options (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-train-usage-"));
    const events = join(dir, "e.jsonl");
    writeFileSync(events, `${loggedRun().lines.slice(0, 5).join("\n")}\n`);
    const o = join(dir, "o.json");
    for (const [argv, re] of [
      [["train", "--events", events, "--policy", "ucb9", "--out", o], /unknown policy "ucb9"/],
      [["train", "--events", events, "--policy", "ucb1", "--out", o, "--param", "zeta=1"], /no parameter "zeta"/],
      [
        ["train", "--events", events, "--policy", "ucb1", "--out", o, "--param", "exploration=-1"],
        /policy ucb1 \{"exploration":-1\}/,
      ],
      [["train", "--events", events, "--out", o], /required option '--policy <name>'/],
    ] as [string[], RegExp][]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toMatch(re);
    }
    const missing = await cli(["train", "--events", join(dir, "nope"), "--policy", "ucb1", "--out", o]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/cannot read events file .*nope: ENOENT/);
  });
});
