import { spawn } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LinUCBDisjoint } from "@routekit/classic";
import { type ArmPolicy, checkEvent, learnedState } from "@routekit/core";
import { PakUcb, RffUcb } from "@routekit/kernel-ucb";
import { describe, expect, it } from "vitest";
import { benchmarks, createRffGateway, formatReport, MODELS, RoutingGateway, simulateTraffic } from "../src/index.js";
import { call, learned, snapshotsLanded, stateDir } from "./fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, "..", "README.md"), "utf8");

describe("routing quality (README: better than the best single model after 1000 requests)", () => {
  it("beats the best single model in the last 500 of 1500 requests, for seeds 1 and 2", async () => {
    const { bestSingleModel } = benchmarks();
    for (const seed of [1, 2]) {
      // What simulate-cli does with `--seed <seed>`.
      const gw = createRffGateway({ stateDir: stateDir(), models: MODELS, policy: { seed } });
      const url = `http://127.0.0.1:${await gw.listen()}`;
      const r = await simulateTraffic({ url, requests: 1500, seed });
      await gw.close();
      if (seed === 1) expect(readme).toContain(`\`\`\`\n${formatReport(r)}\n`);
      const last = r.quality.slice(-500);
      const mean = last.reduce((a, b) => a + b, 0) / last.length;
      // Expected rewards (not the 0/1 draws), so the only noise is the routing's own.
      expect(mean, `seed ${seed}`).toBeGreaterThan(bestSingleModel);
      // Every topic's best model gets the most traffic of its topic.
      expect(Object.entries(r.routed.code).sort((a, b) => b[1] - a[1])[0]?.[0]).toBe("code-llm");
      expect(Object.entries(r.routed.math).sort((a, b) => b[1] - a[1])[0]?.[0]).toBe("math-llm");
      expect(Object.entries(r.routed.chat).sort((a, b) => b[1] - a[1])[0]?.[0]).toBe("chat-llm");
    }
  }, 120_000);
});

describe("crash consistency", () => {
  it("a copy of the state directory taken mid-run (a kill -9) restores the live learned state exactly", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: MODELS, snapshotEvery: 97, policy: { seed: 3 } });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    await simulateTraffic({ url, requests: 400, seed: 3 });
    await snapshotsLanded(gw, 97);
    // Between two requests nothing is half-done: the copy is what a kill -9 would leave.
    const crashed = stateDir();
    cpSync(dir, crashed, { recursive: true });
    // The copy keeps the lock: it names this process, which does not hold that directory, so the restart takes it
    // over as it would a killed process's (see the lock tests).
    const liveState = learned(gw);
    expect(gw.stats().snapshots).toBeGreaterThan(0);

    // A write cut off mid-line is dropped on open.
    appendFileSync(join(crashed, "events.jsonl"), '{"v":1,"kind":"kernel-ucb/rff-ucb","proto');
    const restored = createRffGateway({ stateDir: crashed, models: MODELS, snapshotEvery: 97, policy: { seed: 3 } });
    expect(restored.stats().replayed).toBeGreaterThan(0); // the log past the snapshot was learned
    expect(learned(restored)).toBe(liveState);
    await restored.close();
    await gw.close();
  }, 60_000);

  it("the event log is a decision-event log: a fresh RffUcb learning it holds the gateway's learned state", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: MODELS, policy: { seed: 4 } });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    await simulateTraffic({ url, requests: 300, seed: 4 });
    const lines = readFileSync(join(dir, "events.jsonl"), "utf8").trim().split("\n");
    expect(lines.length).toBe(gw.stats().feedbacks);
    const fresh = new RffUcb({ arms: [...MODELS], contextDim: 256, seed: 4 });
    for (const line of lines) fresh.learn(checkEvent(JSON.parse(line), "arm"));
    expect(JSON.stringify(learnedState(fresh.toJSON()))).toBe(learned(gw));
    // Public ids are unique across runs, so `routekit train` (which drops repeated ids) keeps every line.
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(lines.length);
    await gw.close();
  }, 60_000);

  it("feedback for a decision lost with a crashed run is 404; one the snapshot held still counts", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: MODELS, policy: { seed: 5 } });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    const held = (await call(url, "/route", { prompt: "prove the integral bound" })).body.decisionId;
    await gw.snapshot();
    const lost = (await call(url, "/route", { prompt: "fix this typescript bug" })).body.decisionId;
    const crashed = stateDir();
    cpSync(dir, crashed, { recursive: true });
    await gw.close();

    const next = createRffGateway({ stateDir: crashed, models: MODELS, policy: { seed: 5 } });
    const url2 = `http://127.0.0.1:${await next.listen()}`;
    const fresh = (await call(url2, "/route", { prompt: "fix this typescript bug" })).body.decisionId;
    // The restored policy numbers on from the snapshot: the new decision reuses the lost one's policy id.
    expect(fresh.split(".")[1]).toBe(lost.split(".")[1]);
    expect(fresh).not.toBe(lost);
    const r = await call(url2, "/feedback", { decisionId: lost, reward: 1 });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("UNKNOWN_DECISION");
    expect((await call(url2, "/feedback", { decisionId: held, reward: 1 })).status).toBe(200);
    expect((await call(url2, "/feedback", { decisionId: fresh, reward: 0 })).status).toBe(200);
    await next.close();

    // After a clean stop the log's answered decisions are not pending again: a second answer is refused.
    const again = createRffGateway({ stateDir: crashed, models: MODELS, policy: { seed: 5 } });
    const url3 = `http://127.0.0.1:${await again.listen()}`;
    expect((await call(url3, "/feedback", { decisionId: held, reward: 1 })).status).not.toBe(200);
    await again.close();
  }, 60_000);

  it("a new model in the list on restart is added (and tried next); a dropped one is removed", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: MODELS, policy: { seed: 6 } });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    await simulateTraffic({ url, requests: 100, seed: 6 });
    // A decision for chat-llm, still pending when the sidecar stops (close() snapshots it).
    let toDropped = "";
    while (toDropped === "") {
      const d = (await call(url, "/route", { prompt: "plan a weekend" })).body;
      if (d.model === "chat-llm") toDropped = d.decisionId;
      else await call(url, "/feedback", { decisionId: d.decisionId, reward: 0 });
    }
    await gw.close();
    const models = ["code-llm", "math-llm", "new-llm"];
    const next = createRffGateway({ stateDir: dir, models, policy: { seed: 6 } });
    expect([...next.stats().models].sort()).toEqual([...models].sort());
    const url2 = `http://127.0.0.1:${await next.listen()}`;
    const before = learned(next);
    const late = await call(url2, "/feedback", { decisionId: toDropped, reward: 1 });
    expect(late.status).toBe(200); // accepted ...
    expect(learned(next)).toBe(before); // ... and ignored
    expect((await call(url2, "/route", { prompt: "hello" })).body.model).toBe("new-llm");
    await next.close();
  }, 60_000);
});

describe("the state directory", () => {
  it("holds one process: a second sidecar on it is refused; a dead process's lock is taken over", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: MODELS });
    expect(() => createRffGateway({ stateDir: dir, models: MODELS })).toThrow(/in use by process/);
    await gw.close();
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => dead.on("exit", r));
    mkdirSync(join(dir, "gateway.lock"));
    writeFileSync(join(dir, "gateway.lock", String(dead.pid)), "");
    const next = createRffGateway({ stateDir: dir, models: MODELS });
    expect(readdirSync(join(dir, "gateway.lock"))).toEqual([String(process.pid)]);
    await next.close();
    expect(existsSync(join(dir, "gateway.lock"))).toBe(false);
  });

  it("a log line the router refuses stops the start with its place in the log, and frees the directory", async () => {
    const dir = stateDir();
    const gw = createRffGateway({ stateDir: dir, models: MODELS, contextDim: 4 });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    const d = (await call(url, "/route", { embedding: [1, 0, 0, 0] })).body;
    await call(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
    await gw.close();
    appendFileSync(join(dir, "events.jsonl"), '{"v":1,"kind":"kernel-ucb/rff-ucb"}\n');
    expect(() => createRffGateway({ stateDir: dir, models: MODELS, contextDim: 4 })).toThrow(
      /events\.jsonl: event 1 after the snapshot's offset \d+: /,
    );
    expect(existsSync(join(dir, "gateway.lock"))).toBe(false);
  });

  it("routekit-gateway (dist/main.js) serves, and SIGTERM writes a final snapshot and exits 0", async () => {
    const dir = stateDir();
    const main = join(here, "..", "dist", "main.js");
    const child = spawn(process.execPath, [main, "--port", "0", "--state", dir, "--models", "a,b"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve) =>
      child.stdout.once("data", (b: Buffer) => resolve(b.toString())),
    );
    const url = /http:\/\/[\d.]+:\d+/.exec(line)?.[0] as string;
    const d = (await call(url, "/route", { prompt: "hello there" })).body;
    expect(["a", "b"]).toContain(d.model);
    expect((await call(url, "/feedback", { decisionId: d.decisionId, reward: 1 })).status).toBe(200);
    child.kill("SIGTERM");
    expect(await new Promise((r) => child.on("exit", r))).toBe(0);
    const snap = JSON.parse(readFileSync(join(dir, "snapshot.json"), "utf8"));
    expect(snap.logOffset).toBe(readFileSync(join(dir, "events.jsonl")).length);
    expect(RffUcb.fromJSON(snap.policy).visits()).toEqual({ [d.model]: 1, [d.model === "a" ? "b" : "a"]: 0 });
  }, 30_000);

  it("takes any arm policy: PakUcb and LinUCBDisjoint restart with their learned state", async () => {
    const makers: { create: (m: readonly string[]) => ArmPolicy; restore: (s: unknown) => ArmPolicy }[] = [
      {
        create: (m: readonly string[]) => new PakUcb({ arms: [...m], contextDim: 16, seed: 1 }),
        restore: (s: unknown) => PakUcb.fromJSON(s),
      },
      {
        create: (m: readonly string[]) => new LinUCBDisjoint({ arms: [...m], contextDim: 16, seed: 1 }),
        restore: (s: unknown) => LinUCBDisjoint.fromJSON(s),
      },
    ];
    for (const { create, restore } of makers) {
      const dir = stateDir();
      const gw = RoutingGateway.open({ stateDir: dir, models: MODELS, create, restore });
      const url = `http://127.0.0.1:${await gw.listen()}`;
      await simulateTraffic({ url, requests: 60, seed: 8 });
      const state = JSON.stringify(learnedState(gw.policy.toJSON()));
      await gw.close();
      const again = RoutingGateway.open({ stateDir: dir, models: MODELS, create, restore });
      expect(JSON.stringify(learnedState(again.policy.toJSON()))).toBe(state);
      await again.close();
    }
  }, 30_000);
});

describe("HTTP errors: RouteKit codes and statuses; bad requests change nothing", () => {
  it("maps each fault to its status and code, leaving the learned state as it was", async () => {
    const gw = createRffGateway({
      stateDir: stateDir(),
      models: MODELS,
      contextDim: 8,
      maxBodyBytes: 4096,
      policy: { seed: 7 },
    });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    const d = (await call(url, "/route", { embedding: [1, 0, 0, 0, 0, 0, 0, 0] })).body;
    expect(MODELS).toContain(d.model);
    expect((await call(url, "/feedback", { decisionId: d.decisionId, reward: 0.5 })).status).toBe(200);
    const before = learned(gw);
    const cases: [string, unknown, number, string][] = [
      ["/route", "{not json", 400, "INVALID_JSON"],
      ["/route", [1, 2], 400, "INVALID_BODY"],
      ["/route", { prompt: 3 }, 400, "INVALID_BODY"],
      ["/route", { prompt: "a", embedding: [1] }, 400, "INVALID_BODY"],
      ["/route", { embedding: [1, 2, 3] }, 400, "DIMENSION_MISMATCH"],
      ["/route", { embedding: [1, 0, 0, 0, 0, 0, 0, "0"] }, 400, "INVALID_ARGUMENT"],
      ["/route", { embedding: Array(2000).fill(0.5) }, 413, "BODY_TOO_LARGE"],
      ["/feedback", { decisionId: d.decisionId, reward: 1 }, 409, "DECISION_ALREADY_USED"],
      ["/feedback", { decisionId: "nope", reward: 1 }, 404, "UNKNOWN_DECISION"],
      ["/feedback", { decisionId: `${gw.stats().run}.d99`, reward: 1 }, 404, "UNKNOWN_DECISION"],
      ["/feedback", { decisionId: 5, reward: 1 }, 400, "INVALID_BODY"],
      ["/nope", {}, 404, "NOT_FOUND"],
    ];
    for (const [path, body, status, code] of cases) {
      const r = await call(url, path, body);
      expect([path, r.status, r.body.error?.code]).toEqual([path, status, code]);
    }
    const e = (await call(url, "/route", { embedding: [0, 1, 0, 0, 0, 0, 0, 0] })).body.decisionId;
    for (const [reward, code] of [
      ["1", "INVALID_ARGUMENT"],
      [null, "INVALID_ARGUMENT"],
      [undefined, "INVALID_ARGUMENT"],
    ] as const) {
      const r = await call(url, "/feedback", { decisionId: e, reward });
      expect([r.status, r.body.error.code]).toEqual([400, code]);
    }
    expect((await call(url, "/route", undefined, "GET")).status).toBe(405);
    // The path as sent: URL parsing read "//route" as a host and answered "no route /"; an inherited
    // property's name is no route either.
    for (const path of ["//route", "/__proto__", "/constructor"]) {
      const r = await call(url, path, { embedding: [0, 1, 0, 0, 0, 0, 0, 0] });
      expect([r.status, r.body.error?.code, r.body.error?.message]).toEqual([404, "NOT_FOUND", `no route ${path}`]);
    }
    expect(learned(gw)).toBe(before);
    expect((await call(url, "/feedback", { decisionId: e, reward: 1 })).status).toBe(200); // still pending, still good
    expect((await call(url, "/stats", undefined, "GET")).body.feedbacks).toBe(2);
    await gw.close();
  });

  it("is 410 DECISION_EXPIRED for feedback older than maxPending decisions", async () => {
    const gw = createRffGateway({ stateDir: stateDir(), models: MODELS, contextDim: 4, policy: { maxPending: 2 } });
    const url = `http://127.0.0.1:${await gw.listen()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call(url, "/route", { embedding: [1, 0, 0, i] })).body.decisionId);
    const r = await call(url, "/feedback", { decisionId: ids[0], reward: 1 });
    expect([r.status, r.body.error.code]).toEqual([410, "DECISION_EXPIRED"]);
    expect((await call(url, "/feedback", { decisionId: ids[2], reward: 1 })).status).toBe(200);
    await gw.close();
  }, 60_000);
});
