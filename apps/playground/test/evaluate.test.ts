/**
 * `routekit evaluate` end to end: logs of a uniform (and a non-uniform) logging policy on a linear contextual
 * environment, written as JSONL event lines; the CLI's numbers are core's estimators on the same events, learning
 * beats random under replay, a frozen trained snapshot's estimate lands on its true value on held-out traffic, and
 * every refusal names the file's line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EpsilonGreedy, LinUCBDisjoint, RandomPolicy } from "@routekit/classic";
import { type ArmEvent, estimateOffPolicy, Rng, replayEvaluate } from "@routekit/core";
import { LinearContextualBandit } from "@routekit/environments";
import { LogLinearPg } from "@routekit/hpg";
import { describe, expect, it } from "vitest";
import { fixtureRegistry } from "./fixture.js";
import { runCli } from "./run-cli.js";

const ARMS = ["coder", "math", "general"];
const D = 4;
const dir = mkdtempSync(join(tmpdir(), "routekit-evaluate-"));

interface Logged {
  readonly events: ArmEvent[];
  /** Expected reward of every arm on each event's context (the environment's truth). */
  readonly means: number[][];
}

/** n rounds of the environment (seeded) logged by a policy choosing arm probabilities from `probs`. */
function simulate(seed: string, n: number, probs: (t: number) => number[]): Logged {
  const env = new LinearContextualBandit({ contextDim: D, arms: ARMS, noiseSd: 0.1 });
  env.reset(Rng.fromSeed("evaluate-env")); // one problem instance (thetas) for every log
  const rng = Rng.fromSeed(seed);
  const events: ArmEvent[] = [];
  const means: number[][] = [];
  for (let t = 0; t < n; t++) {
    const x = env.next(t).context as Float64Array;
    const p = probs(t);
    const a = rng.categorical(p);
    const arm = ARMS[a] as string;
    means.push(ARMS.map((m) => env.expectedReward(m)));
    const { reward } = env.pull(arm);
    events.push({
      v: 1,
      kind: "test/logger",
      protocol: "arm",
      id: `${seed}-${t}`,
      decision: { arm, context: Array.from(x, (v) => v + 0), propensity: p[a] as number },
      feedback: { reward },
    });
  }
  return { events, means };
}

function write(name: string, events: readonly unknown[]): string {
  const f = join(dir, name);
  writeFileSync(f, `${events.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join("\n")}\n`);
  return f;
}

const cli = (argv: string[]) => runCli(argv, { registry: fixtureRegistry });
const uniform = () => [1 / 3, 1 / 3, 1 / 3];
const uniformLog = simulate("uniform", 900, uniform);
const uniformFile = write("uniform.jsonl", uniformLog.events);

describe("routekit evaluate", () => {
  it("replay: the CLI's result is core's replayEvaluate on the log, and a learner beats random", async () => {
    const r = await cli(["evaluate", "--events", uniformFile, "--policy", "linucb-disjoint", "--json"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    const direct = replayEvaluate(
      uniformLog.events,
      new LinUCBDisjoint({ arms: ARMS, contextDim: D, rng: Rng.fromSeed(0), exploration: 1, ridge: 1 }),
    );
    expect(j).toMatchObject({ ...direct, policy: "linucb-disjoint", kind: "classic/linucb-disjoint", snapshot: false });
    expect(j).toMatchObject({ lines: 900, duplicates: 0, withoutFeedback: 0, skipped: [] });
    expect(j.matched).toBeGreaterThan(250);
    expect(j.logged.mean).toBeCloseTo(uniformLog.events.reduce((s, e) => s + (e.feedback?.reward ?? 0), 0) / 900, 12);

    const rnd = JSON.parse((await cli(["evaluate", "--events", uniformFile, "--policy", "random", "--json"])).out);
    // A uniform policy replayed on uniform logs earns the logged mean, up to noise; LinUCB learns and earns more.
    expect(Math.abs(rnd.estimate - j.logged.mean)).toBeLessThan(3 * Math.hypot(rnd.se, j.logged.se));
    expect(j.estimate - rnd.estimate).toBeGreaterThan(3 * Math.hypot(j.se, rnd.se));

    const table = await cli(["evaluate", "--events", uniformFile, "--policy", "linucb-disjoint"]);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/linucb-disjoint \(classic\/linucb-disjoint\) on 900 events of .*uniform\.jsonl: replay/);
    expect(table.out).toMatch(/policy +estimate +s\.e\. +95% interval +events +matched +ESS +max weight +clipped/);
    expect(table.out).toContain(`linucb-disjoint `);
    expect(table.out).toMatch(/logging policy \(logged mean\)/);
  });

  it("a trained snapshot held fixed: IPS, SNIPS and DR land on its true value on held-out traffic", async () => {
    // Train on one uniform log, evaluate on another (the held-out traffic of a non-uniform logging policy).
    const trainFile = write("train.jsonl", simulate("train", 600, uniform).events);
    const snap = join(dir, "linucb.json");
    const t = await cli([
      "train",
      "--events",
      trainFile,
      "--policy",
      "linucb-disjoint",
      "--param",
      "exploration=0",
      "--out",
      snap,
    ]);
    expect(t.code).toBe(0);
    const skewed = (i: number) => (i % 2 === 0 ? [0.6, 0.3, 0.1] : [0.15, 0.15, 0.7]);
    const held = simulate("held", 1500, skewed);
    const heldFile = write("held.jsonl", held.events);
    // The truth: the snapshot's picks (deterministic: exploration 0) scored by the environment's expected rewards.
    const frozen = LinUCBDisjoint.fromJSON(JSON.parse(readFileSync(snap, "utf8")));
    const picks = held.events.map((e) => {
      const d = frozen.select(Float64Array.from(e.decision.context ?? []));
      frozen.discard(d);
      return d.arm;
    });
    const frozenCli = async (...extra: string[]) => {
      const r = await cli([
        "evaluate",
        "--events",
        heldFile,
        "--policy",
        "linucb-disjoint",
        "--snapshot",
        snap,
        ...extra,
      ]);
      expect(r.code, r.err).toBe(0);
      return JSON.parse(r.out);
    };
    const truth = picks.reduce((s, a, i) => s + (held.means[i]?.[ARMS.indexOf(a)] as number), 0) / picks.length;
    for (const estimator of ["ips", "snips", "dr"]) {
      const j = await frozenCli("--estimator", estimator, "--json");
      expect(j.snapshot).toBe(true);
      expect(j.estimator).toBe(estimator);
      expect(Math.abs(j.estimate - truth), `${estimator}: ${j.estimate} ± ${j.se}, truth ${truth}`).toBeLessThan(
        3 * j.se,
      );
      if (estimator !== "dr") {
        // The CLI's numbers are core's estimator on the snapshot's picks.
        expect(j).toMatchObject(estimateOffPolicy(held.events, { target: { picks }, estimator: estimator as "ips" }));
      }
    }
    // The logging policy's own mean is far from the snapshot's value: the estimate is not just the logged mean.
    const ips = await frozenCli("--estimator", "ips", "--json");
    expect(Math.abs(ips.logged.mean - truth)).toBeGreaterThan(3 * ips.se);
    // Clipping and the confidence level pass through.
    const c = await frozenCli("--estimator", "snips", "--clip", "2", "--level", "0.5", "--json");
    expect(c.maxWeight).toBe(2);
    expect(c.clipped).toBeGreaterThan(0);
    expect(c.level).toBe(0.5);
  });

  it("refusals name the line: missing propensity (or --fallback-propensity), bad lines, wrong context length", async () => {
    const lines = uniformLog.events.slice(0, 30).map((e) => JSON.parse(JSON.stringify(e)) as ArmEvent);
    const noProp = lines.map((e, i) =>
      i === 6 ? { ...e, decision: { arm: e.decision.arm, context: e.decision.context } } : e,
    );
    const f = write("noprop.jsonl", ["", ...noProp]); // a blank first line: event 6 is on line 8
    const r = await cli(["evaluate", "--events", f, "--policy", "ucb1", "--estimator", "ips"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/noprop\.jsonl line 8: event decision\.propensity is missing/);
    const ok = await cli([
      "evaluate",
      "--events",
      f,
      "--policy",
      "ucb1",
      "--estimator",
      "ips",
      "--fallback-propensity",
      "0.3333333333333333",
    ]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/1 events without propensity \(--fallback-propensity used\)/);

    const shortCtx = lines.map((e, i) => (i === 4 ? { ...e, decision: { ...e.decision, context: [0.5] } } : e));
    const s = await cli(["evaluate", "--events", write("short.jsonl", shortCtx), "--policy", "linucb-disjoint"]);
    expect(s.code).toBe(1);
    expect(s.err).toMatch(
      /short\.jsonl line 5: event decision\.context must be 4 numbers \(the policy's contextDim\), got 1 numbers/,
    );

    // An update the replayed policy refuses (Beta-Bernoulli Thompson sampling takes rewards in [0, 1]).
    const high = write(
      "high.jsonl",
      lines.map((e) => ({ ...e, feedback: { reward: 1.5 } })),
    );
    const th = await runCli(["evaluate", "--events", high, "--policy", "thompson-bernoulli"]);
    expect(th.code).toBe(1);
    expect(th.err).toMatch(/high\.jsonl line \d+: .*reward/);

    const bad = write("bad.jsonl", [
      lines[0],
      "{not json",
      { ...lines[1], decision: { ...lines[1]?.decision, propensity: 0 } },
      lines[2],
    ]);
    const b = await cli(["evaluate", "--events", bad, "--policy", "ucb1"]);
    expect(b.code).toBe(1);
    expect(b.err).toMatch(
      /has 2 invalid lines: line 2: not JSON .*; line 3: event decision\.propensity must be in \(0, 1\]/,
    );
    const sk = await cli(["evaluate", "--events", bad, "--policy", "ucb1", "--skip-invalid", "--estimator", "ips"]);
    expect(sk.code).toBe(0);
    expect(sk.err).toMatch(/skipped line 2: not JSON[^\n]*\n.*skipped line 3/);
    expect(sk.out).toMatch(/on 2 events/);
    expect(sk.out).toMatch(/2 invalid lines skipped/);
  });

  it("--skip-invalid skips the events the estimator refuses, as train does: named, counted, reported", async () => {
    // Found: a context of another length, an arm outside --arms or a missing propensity still failed the file (exit
    // 1) with --skip-invalid, where `train --skip-invalid` skips such lines.
    const lines = uniformLog.events.slice(0, 30).map((e) => JSON.parse(JSON.stringify(e)) as ArmEvent);
    const mixed = lines.map((e, i) =>
      i === 4
        ? { ...e, decision: { ...e.decision, context: [0.5] } }
        : i === 9
          ? { ...e, decision: { arm: e.decision.arm, context: e.decision.context } }
          : e,
    );
    const f = write("refused.jsonl", mixed);
    for (const estimator of ["replay", "ips", "snips", "dr"]) {
      const base = ["evaluate", "--events", f, "--policy", "linucb-disjoint", "--estimator", estimator];
      const refused = await cli(base);
      expect(refused.code, estimator).toBe(1);
      expect(refused.err).toMatch(/--skip-invalid evaluates on the others/);
      const r = await cli([...base, "--skip-invalid"]);
      expect(r.code, `${estimator}: ${r.err}`).toBe(0);
      expect(r.err).toMatch(
        /skipped line 5: event decision\.context must be 4 numbers[^\n]*\n.*skipped line 10: event decision\.propensity is missing/,
      );
      expect(r.out).toMatch(/on 28 events/);
      expect(r.out).toMatch(/2 invalid lines skipped/);
      // The estimate is core's on the events kept.
      const j = JSON.parse((await cli([...base, "--skip-invalid", "--json"])).out);
      expect(j.n).toBe(28);
      expect(j.skipped.map((s: { line: number }) => s.line)).toEqual([5, 10]);
    }
    // An update the replayed policy refuses (Beta-Bernoulli Thompson sampling takes rewards in [0, 1]) is skipped,
    // and the policy replayed from its start on the others.
    const high = lines.map((e, i) => ({ ...e, feedback: { reward: i % 3 === 0 ? 1.5 : 0.5 } }));
    const hf = write("high-some.jsonl", high);
    const th = await runCli(["evaluate", "--events", hf, "--policy", "thompson-bernoulli", "--skip-invalid", "--json"]);
    expect(th.code, th.err).toBe(0);
    const jt = JSON.parse(th.out);
    expect(jt.skipped.length).toBeGreaterThan(0);
    for (const s of jt.skipped) expect((s.line - 1) % 3, s.message).toBe(0);
    expect(jt.n).toBe(30 - jt.skipped.length);
    // An arm outside --arms is skipped too, and the others are evaluated on --arms.
    const arms = lines.findIndex((e) => e.decision.arm === "general");
    const a = await cli([
      "evaluate",
      "--events",
      write("arms.jsonl", lines),
      "--policy",
      "ucb1",
      "--arms",
      "coder,math",
      "--skip-invalid",
      "--json",
    ]);
    expect(a.code, a.err).toBe(0);
    const ja = JSON.parse(a.out);
    const general = lines.filter((e) => e.decision.arm === "general").length;
    expect(ja.n).toBe(30 - general);
    expect(ja.skipped[0]).toEqual({ line: arms + 1, message: 'logged arm "general" is not one of the arms option' });
    expect(ja.skipped).toHaveLength(general);
  });

  it("usage errors exit 2; unreadable or foreign snapshots and arms the log never names exit 1", async () => {
    const snap = join(dir, "ucb1.json");
    expect((await cli(["train", "--events", uniformFile, "--policy", "ucb1", "--out", snap])).code).toBe(0);
    // A policy trained with an arm the evaluation log never names.
    const xl = join(dir, "ucb1-xl.json");
    expect(
      (
        await cli([
          "train",
          "--events",
          uniformFile,
          "--policy",
          "ucb1",
          "--arms",
          "coder,math,general,xl",
          "--out",
          xl,
        ])
      ).code,
    ).toBe(0);
    const e = ["evaluate", "--events", uniformFile];
    for (const [argv, re] of [
      [[...e, "--policy", "ucb9"], /unknown policy "ucb9"/],
      [[...e, "--policy", "ucb1", "--estimator", "dm"], /Allowed choices are replay, ips, snips, dr/],
      [[...e, "--policy", "ucb1", "--param", "zeta=1"], /no parameter "zeta"/],
      [
        [...e, "--policy", "ucb1", "--snapshot", snap, "--param", "exploration=1"],
        /--param does not apply with --snapshot/,
      ],
      [[...e, "--policy", "ucb1", "--snapshot", snap, "--seed", "1"], /--seed does not apply with --snapshot/],
      [[...e, "--policy", "ucb1", "--level", "95"], /--level must be in \(0, 1\)/],
      [[...e, "--policy", "ucb1", "--clip", "0"], /--clip must be a number > 0/],
      [[...e, "--policy", "ucb1", "--fallback-propensity", "0"], /--fallback-propensity must be in \(0, 1\]/],
      [["evaluate", "--events", uniformFile], /required option '--policy <name>'/],
    ] as [string[], RegExp][]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toMatch(re);
    }
    for (const [argv, re] of [
      [
        [...e, "--policy", "linucb-disjoint", "--snapshot", snap],
        /is not a linucb-disjoint snapshot: .*kind "classic\/ucb1"/,
      ],
      [[...e, "--policy", "ucb1", "--snapshot", join(dir, "nope.json")], /cannot read snapshot .*nope\.json: ENOENT/],
      [
        ["evaluate", "--events", join(dir, "nope.jsonl"), "--policy", "ucb1"],
        /cannot read events file .*nope\.jsonl: ENOENT/,
      ],
      [[...e, "--policy", "ucb1", "--snapshot", xl, "--estimator", "ips"], /ucb1 has arms the log never names \(xl\)/],
      [
        [...e, "--policy", "ucb1", "--snapshot", xl, "--estimator", "ips", "--arms", "coder,math,general"],
        /ucb1 has arms outside --arms \(xl\)/,
      ],
      [[...e, "--policy", "ucb1", "--snapshot", xl], /the policy's arm "xl" is not one the logging policy plays/],
      [
        [...e, "--policy", "ucb1", "--arms", "coder,math"],
        /line 3: logged arm "general" is not one of the arms option/,
      ],
    ] as [string[], RegExp][]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.err).toMatch(re);
    }
  });

  it("a snapshot file saved with a byte order mark (as Windows editors do) evaluates like the file without it", async () => {
    const snap = join(dir, "ucb1-plain.json");
    expect((await cli(["train", "--events", uniformFile, "--policy", "ucb1", "--out", snap])).code).toBe(0);
    const bom = join(dir, "ucb1-bom.json");
    writeFileSync(bom, `\uFEFF${readFileSync(snap, "utf8")}`);
    const args = ["evaluate", "--events", uniformFile, "--policy", "ucb1", "--estimator", "ips", "--json"];
    const plain = await cli([...args, "--snapshot", snap]);
    const marked = await cli([...args, "--snapshot", bom]);
    expect(marked.err).toBe("");
    expect(marked.code).toBe(0);
    expect(JSON.parse(marked.out).estimate).toBe(JSON.parse(plain.out).estimate);
  });

  it("the randomized policies the README names log their propensity", () => {
    for (const p of [
      new RandomPolicy({ arms: ARMS, seed: 1 }),
      new EpsilonGreedy({ arms: ARMS, seed: 1, epsilon: 0.2 }),
      new LogLinearPg({ arms: ARMS, contextDim: D, horizon: 10, normalizeContext: true, seed: 1 }),
    ]) {
      const d = p.select(Float64Array.of(0.5, 0.5, 0.5, 0.5));
      const propensity = p.decisionRecord(d).decision.propensity;
      expect(propensity, p.kind).toBeGreaterThan(0);
      expect(propensity, p.kind).toBeLessThanOrEqual(1);
    }
  });

  it("the shipped example log evaluates as the playground README shows", async () => {
    const example = fileURLToPath(new URL("../examples/events.jsonl", import.meta.url));
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    const m = /```sh\nnode apps\/playground\/dist\/cli\.js evaluate ([^\n]*)\n```\n\n```text\n([\s\S]*?)```/.exec(
      readme,
    );
    expect(m, "README has the evaluate example and its output").not.toBeNull();
    const args = (m?.[1] ?? "").split(/\s+/).map((a) => (a === "apps/playground/examples/events.jsonl" ? example : a));
    const r = await runCli(["evaluate", ...args]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.replace(example, "apps/playground/examples/events.jsonl")).toBe(m?.[2]);
  });
});
