// The cost of a snapshot write inside Redis: one replica of a LinUCB whose snapshot is about 5 MB (contextDim 256,
// 7 arms: each arm's 256 x 256 inverse as base64 of its Float64 bytes) writes a snapshot after every decision and its
// feedback, and Redis's SLOWLOG reports how long each snapshot-write script ran on the server (Redis serves nothing
// else meanwhile). Also times redis.sha1hex over the stored snapshot alone, and Node's SHA-1 of the same bytes (the
// writer's digest, computed on the replica).
//   node bench/snapshot-write.mjs [--writes 20] [--arms 7] [--dim 256] [--aof]
//   --smoke: a small policy and 3 writes (to check that it runs)
import { createHash } from "node:crypto";
import { LinUCBDisjoint } from "@routekit/classic";
import { Redis } from "ioredis";
import { Replica } from "../dist/index.js";
import { startRedisServer } from "../dist/server.js";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const smoke = process.argv.includes("--smoke");
const WRITES = Number(arg("writes", smoke ? "3" : "20"));
const ARMS = Number(arg("arms", smoke ? "2" : "7"));
const DIM = Number(arg("dim", smoke ? "8" : "256"));
const aof = process.argv.includes("--aof");

const server = await startRedisServer({ appendOnly: aof });
const raw = new Redis(server.url);
await raw.config("SET", "slowlog-log-slower-than", "0");
await raw.config("SET", "slowlog-max-len", "100000");
const arms = Array.from({ length: ARMS }, (_, i) => `m${i}`);
const create = () => new LinUCBDisjoint({ arms, contextDim: DIM, seed: 1 });
const r = await Replica.start({
  redis: server.url,
  stream: "bench",
  replicaId: "w",
  create,
  restore: (s) => LinUCBDisjoint.fromJSON(s),
  snapshotEvery: 2,
  blockMs: 20,
});
const ctx = new Float64Array(DIM).fill(1 / Math.sqrt(DIM));
const waitFor = async (done) => {
  while (!done()) await new Promise((res) => setTimeout(res, 2));
};
// The first write has no newest snapshot to keep as the previous one but the initial one: start counting after it.
const writeOnce = async () => {
  const n = r.stats().snapshotsWritten;
  const d = r.select(ctx);
  r.feedback(d.id, { reward: 0.5 });
  await r.flush();
  await waitFor(() => r.stats().snapshotsWritten > n && !r.snapshotting);
};
await writeOnce();
await raw.slowlog("RESET");
for (let i = 0; i < WRITES; i++) await writeOnce();
// A snapshot write is the EVAL whose first key is <stream>:snapshot and that has more than the initial write's keys.
const log = await raw.slowlog("GET", -1);
const us = log
  .filter((e) => String(e[3][0]).toLowerCase() === "eval" && Number(e[3][2]) >= 4 && e[3][3] === "bench:snapshot")
  .map((e) => Number(e[2]));
// The replica's read loop runs on meanwhile (its stream-head script is an EVAL too): only this one's are counted.
const bytes = Buffer.from((await raw.get("bench:snapshot")) ?? "", "utf8");
await raw.slowlog("RESET");
for (let i = 0; i < WRITES; i++)
  await raw.eval("return redis.sha1hex(redis.call('GET', KEYS[1]))", 1, "bench:snapshot");
const shaUs = (await raw.slowlog("GET", -1))
  .filter((e) => String(e[3][0]).toLowerCase() === "eval" && e[3][3] === "bench:snapshot")
  .map((e) => Number(e[2]));
const t0 = performance.now();
for (let i = 0; i < WRITES; i++) createHash("sha1").update(bytes).digest("hex");
const nodeMs = (performance.now() - t0) / WRITES;
const ms = (xs, q) => ([...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? Number.NaN) / 1000;
const row = (xs) => `median ${ms(xs, 0.5).toFixed(1)} ms (min ${ms(xs, 0).toFixed(1)}, max ${ms(xs, 1).toFixed(1)})`;
console.log(
  `snapshot ${(bytes.length / 1e6).toFixed(2)} MB, ${us.length} writes, appendonly ${aof ? "yes (fsync always)" : "no"}`,
);
console.log(`snapshot write script in Redis: ${row(us)}`);
console.log(`redis.sha1hex of the snapshot alone: ${row(shaUs)}`);
console.log(`Node SHA-1 of the snapshot (on the replica): ${nodeMs.toFixed(1)} ms`);
await r.close();
raw.disconnect();
await server.stop({ removeData: true });
if (us.length !== WRITES) throw new Error(`expected ${WRITES} snapshot writes in the slow log, found ${us.length}`);
