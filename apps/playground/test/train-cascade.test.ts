/**
 * `routekit train` with the shipped registry's cascade policies: built for a log (no simulated environment), they take
 * the output length from the log and their links from their own defaults; a reward they would take from an
 * environment (`reward=known`) must be learned instead, and the oracle, which reads an environment, is bad usage.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "@routekit/core";
import { envA } from "@routekit/environments";
import { Cosmos, OneShot, QueryAll } from "@routekit/pandora";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

/** 150 episodes of COSMOS (reward learned) on Env-A, each logged as a decision event. */
function cascadeLog(): { path: string; live: Cosmos; dir: string } {
  const env = envA();
  env.reset(Rng.fromSeed(4));
  const live = new Cosmos({ arms: env.initialArms, contextDim: env.contextDim, outputDim: env.outputDim, seed: 2 });
  const lines: string[] = [];
  for (let t = 0; t < 150; t++) {
    const e = live.begin(env.next(t).context);
    for (let q = live.next(e); "query" in q; q = live.next(e)) {
      const o = env.query(q.query);
      live.observe(e, q.query, o.features, o.cost);
    }
    const reward = env.reward(live.choose(e));
    lines.push(JSON.stringify({ ...live.decisionRecord(e), feedback: { reward } }));
    live.feedback(e, reward);
  }
  const dir = mkdtempSync(join(tmpdir(), "routekit-train-cascade-"));
  const path = join(dir, "events.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, live, dir };
}

const boxes = (s: unknown) => JSON.stringify((s as { state: { boxes: unknown } }).state.boxes);

describe("routekit train: the shipped cascade policies learn from a log", () => {
  const { path, live, dir } = cascadeLog();

  it("cosmos with reward=learned: the boxes learn exactly what the live router's did", async () => {
    const out = join(dir, "cosmos.json");
    const r = await runCli([
      "train",
      "--events",
      path,
      "--policy",
      "cosmos",
      "--param",
      "reward=learned",
      "--out",
      out,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/trained cosmos \(pandora\/cosmos\) on 150 events/);
    const trained = Cosmos.fromJSON(JSON.parse(readFileSync(out, "utf8")));
    expect(trained.arms).toEqual(live.arms);
    expect(boxes(trained.toJSON())).toBe(boxes(live.toJSON()));
  });

  it("query-all (learned reward) and one-shot train too", async () => {
    for (const [policy, restore, params] of [
      ["query-all", QueryAll.fromJSON, ["--param", "reward=learned"]],
      ["one-shot", OneShot.fromJSON, []],
    ] as const) {
      const out = join(dir, `${policy}.json`);
      const r = await runCli(["train", "--events", path, "--policy", policy, ...params, "--out", out]);
      expect([policy, r.code, r.err]).toEqual([policy, 0, ""]);
      expect(restore(JSON.parse(readFileSync(out, "utf8"))).arms).toEqual(live.arms);
    }
  });

  it("reward=known (the default) is bad usage naming the fix; the oracle cannot be built for a log", async () => {
    const known = await runCli(["train", "--events", path, "--policy", "cosmos", "--out", join(dir, "k.json")]);
    expect(known.code).toBe(2);
    expect(known.err).toMatch(
      /reward=known takes the true reward parameter from a simulated environment; for a log use --param reward=learned/,
    );
    const oracle = await runCli([
      "train",
      "--events",
      path,
      "--policy",
      "pandora-oracle",
      "--out",
      join(dir, "o.json"),
    ]);
    expect(oracle.code).toBe(2);
    expect(oracle.err).toMatch(/reads a simulated environment/);
  });
});
