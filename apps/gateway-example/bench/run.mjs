// The sidecar's costs: a request's routing work in process (featurize + select + feedback + log append)
// over t, the HTTP round trip around it, a snapshot, and a restart that replays the log. `pnpm bench`
// after a build. --smoke: the same steps on a few requests each (no timing is meaningful), to check that it runs.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "@routekit/core";
import { HashingFeaturizer } from "@routekit/environments";
import { createRffGateway, EventLog, MODELS, makePrompt, post, QUALITY, TOPICS } from "../dist/index.js";

const smoke = process.argv.includes("--smoke");
/** Requests per timed block (and per piece below). */
const B = smoke ? 20 : 1000;
const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const logPath = join(tmpdir(), `gateway-bench-${process.pid}.jsonl`);
const rng = Rng.fromSeed(1);
const gw = createRffGateway({ stateDir: dir, models: MODELS, snapshotEvery: 1e9, policy: { seed: 1 } });

function request() {
  const topic = TOPICS[rng.int(3)];
  const d = gw.route({ prompt: makePrompt(rng, topic) });
  gw.feedback({ decisionId: d.decisionId, reward: rng.bernoulli(QUALITY[d.model][topic]) ? 1 : 0 });
}

console.log("in process (featurize 256 + RFF-UCB select + update + log append), per request:");
const marks = smoke ? [20, 60] : [1000, 5000, 20000, 50000];
let done = 0;
for (const t of marks) {
  while (done < t - B) {
    request();
    done++;
  }
  const t0 = performance.now();
  for (let i = 0; i < B; i++) request();
  done += B;
  console.log(`  t = ${String(t).padStart(6)}: ${(((performance.now() - t0) * 1000) / B).toFixed(1)} us`);
}

// Where a request's time goes, at t = 50,000: the same work piece by piece.
{
  const featurizer = new HashingFeaturizer({ dim: 256 });
  const x = new Float64Array(256);
  const prompts = Array.from({ length: B }, () => makePrompt(rng, TOPICS[rng.int(3)]));
  const record = gw.policy.decisionRecord(gw.route({ prompt: prompts[0] }).decisionId.split(".")[1]);
  const line = { ...record, feedback: { reward: 1 } };
  const log = EventLog.open(logPath);
  const parts = [
    [
      "featurize the prompt (HashingFeaturizer, 256)",
      () => {
        for (const p of prompts) featurizer.transform(p, x);
      },
    ],
    [
      "RFF-UCB select + update (3 arms, D = 200)",
      () => {
        for (let i = 0; i < prompts.length; i++) gw.policy.update(gw.policy.select(x), { reward: 1 });
      },
    ],
    [
      "the event's JSON line + write(2) (EventLog.append)",
      () => {
        for (let i = 0; i < prompts.length; i++) log.append(line);
      },
    ],
  ];
  const syncedPath = `${logPath}.fsync`;
  const synced = EventLog.open(syncedPath, { fsync: true });
  const syncedLines = smoke ? 5 : 200;
  parts.push([
    `the same with --fsync (fdatasync after each line; ${syncedLines} lines)`,
    () => {
      for (let i = 0; i < syncedLines; i++) synced.append(line);
    },
    syncedLines,
  ]);
  for (const [what, fn, count = prompts.length] of parts) {
    fn();
    const t0 = performance.now();
    fn();
    console.log(`  ${what}: ${(((performance.now() - t0) * 1000) / count).toFixed(1)} us`);
  }
  log.close();
  synced.close();
  rmSync(logPath);
  rmSync(syncedPath);
}

const url = `http://127.0.0.1:${await gw.listen()}`;
for (let i = 0; i < (smoke ? 5 : 200); i++)
  await post(url, "/route", { prompt: "warm up" }).then((d) =>
    post(url, "/feedback", { decisionId: d.decisionId, reward: 1 }),
  );
const n = smoke ? 20 : 2000;
let t0 = performance.now();
for (let i = 0; i < n; i++) {
  const topic = TOPICS[rng.int(3)];
  const d = await post(url, "/route", { prompt: makePrompt(rng, topic) });
  await post(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
}
console.log(
  `over HTTP, Node's fetch (keep-alive, one client): ${(((performance.now() - t0) / n) * 1000).toFixed(0)} us per request (route + feedback)`,
);

// The same with node:http and a keep-alive agent: most of fetch's time above is the client's own.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const { port } = new URL(url);
const postRaw = (path, body) =>
  new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      { host: "127.0.0.1", port, path, method: "POST", agent, headers: { "content-length": Buffer.byteLength(text) } },
      (res) => {
        let out = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (out += c));
        res.on("end", () => resolve(JSON.parse(out)));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
t0 = performance.now();
for (let i = 0; i < n; i++) {
  const topic = TOPICS[rng.int(3)];
  const d = await postRaw("/route", { prompt: makePrompt(rng, topic) });
  await postRaw("/feedback", { decisionId: d.decisionId, reward: 1 });
}
console.log(
  `over HTTP, node:http (keep-alive agent, one client): ${(((performance.now() - t0) / n) * 1000).toFixed(0)} us per request (route + feedback)`,
);
agent.destroy();

t0 = performance.now();
await gw.snapshot();
const bytes = gw.stats().logBytes;
console.log(`snapshot (3 arms, 400 x 400 inverses): ${(performance.now() - t0).toFixed(1)} ms`);
const logged = smoke ? 50 : 20000;
for (let i = 0; i < logged; i++) request();
await gw.server.close();
// A restart after a crash (no final snapshot; a dead process's lock is taken over, this live one's is removed
// here): the snapshot plus 20,000 logged events after it (50 with --smoke).
rmSync(join(dir, "gateway.lock"), { recursive: true });
t0 = performance.now();
const again = createRffGateway({ stateDir: dir, models: MODELS, policy: { seed: 1 } });
console.log(
  `restart: restore + learn ${again.stats().replayed} logged events (${((gw.stats().logBytes - bytes) / 1e6).toFixed(1)} MB): ${(performance.now() - t0).toFixed(0)} ms`,
);
await again.close();
rmSync(dir, { recursive: true, force: true });
