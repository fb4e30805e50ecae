// The sidecar's costs: a request's routing work in process (featurize + select + feedback + log append)
// over t, the HTTP round trip around it, a snapshot, and a restart that replays the log. `pnpm bench`
// after a build.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "@routekit/core";
import { createRffGateway, MODELS, makePrompt, post, QUALITY, TOPICS } from "../dist/index.js";

const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
const rng = Rng.fromSeed(1);
const gw = createRffGateway({ stateDir: dir, models: MODELS, snapshotEvery: 1e9, policy: { seed: 1 } });

function request() {
  const topic = TOPICS[rng.int(3)];
  const d = gw.route({ prompt: makePrompt(rng, topic) });
  gw.feedback({ decisionId: d.decisionId, reward: rng.bernoulli(QUALITY[d.model][topic]) ? 1 : 0 });
}

console.log("in process (featurize 256 + RFF-UCB select + update + log append), per request:");
const marks = [1000, 5000, 20000, 50000];
let done = 0;
for (const t of marks) {
  while (done < t - 1000) {
    request();
    done++;
  }
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) request();
  done += 1000;
  console.log(`  t = ${String(t).padStart(6)}: ${(((performance.now() - t0) * 1000) / 1000).toFixed(1)} us`);
}

const url = `http://127.0.0.1:${await gw.listen()}`;
for (let i = 0; i < 200; i++)
  await post(url, "/route", { prompt: "warm up" }).then((d) =>
    post(url, "/feedback", { decisionId: d.decisionId, reward: 1 }),
  );
const n = 2000;
let t0 = performance.now();
for (let i = 0; i < n; i++) {
  const topic = TOPICS[rng.int(3)];
  const d = await post(url, "/route", { prompt: makePrompt(rng, topic) });
  await post(url, "/feedback", { decisionId: d.decisionId, reward: 1 });
}
console.log(
  `over HTTP (fetch, keep-alive, one client): ${(((performance.now() - t0) / n) * 1000).toFixed(0)} us per request (route + feedback)`,
);

t0 = performance.now();
await gw.snapshot();
const bytes = gw.stats().logBytes;
console.log(`snapshot (3 arms, 400 x 400 inverses): ${(performance.now() - t0).toFixed(1)} ms`);
for (let i = 0; i < 20000; i++) request();
await gw.server.close();
// A restart: the snapshot plus 20,000 logged events after it.
t0 = performance.now();
const again = createRffGateway({ stateDir: dir, models: MODELS, policy: { seed: 1 } });
console.log(
  `restart: restore + learn ${again.stats().replayed} logged events (${((gw.stats().logBytes - bytes) / 1e6).toFixed(1)} MB): ${(performance.now() - t0).toFixed(0)} ms`,
);
await again.close();
rmSync(dir, { recursive: true, force: true });
