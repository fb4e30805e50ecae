// Replication benchmark: 3 replica processes on one local redis-server, each selecting and sending
// feedback as fast as it can; every replica applies all three streams of events. Prints, per policy,
// events applied per second per replica and the replication lag (write by any replica -> applied here).
//   node bench/run.mjs [--seconds 8] [--policies rff-ucb,ofu-mnl]
//   --smoke: 0.5 s per policy, no results file written (to check that it runs)
import { fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { startRedisServer } from "../dist/server.js";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const smoke = process.argv.includes("--smoke");
const SECONDS = Number(arg("seconds", smoke ? "0.5" : "8"));
const POLICIES = arg("policies", "rff-ucb,ofu-mnl").split(",");
const REPLICAS = 3;
const script = fileURLToPath(new URL("./load.mjs", import.meta.url));
const results = [];

for (const policy of POLICIES) {
  const server = await startRedisServer({ appendOnly: false });
  const procs = [];
  for (let i = 0; i < REPLICAS; i++) {
    const child = fork(script, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const ready = new Promise((r) => child.once("message", r));
    child.send({
      url: server.url,
      stream: `bench-${policy}`,
      replicaId: `r${i}`,
      policy,
      seed: i + 1,
      seconds: SECONDS,
      burst: 8,
    });
    await ready;
    procs.push(child);
  }
  const done = procs.map((c) => new Promise((r) => c.on("message", (m) => m.type === "done" && r(m))));
  for (const c of procs) c.send({ type: "go" });
  const out = await Promise.all(done);
  await server.stop({ removeData: true });
  const row = {
    policy,
    replicas: REPLICAS,
    seconds: SECONDS,
    decisionsPerSecondPerReplica: out.map((o) => o.decisions / o.seconds),
    eventsAppliedPerSecondPerReplica: out.map((o) => o.learned / o.seconds),
    selectUs: out.map((o) => o.selectUs),
    lagMedianMs: out.map((o) => o.lag.median),
    lagP99Ms: out.map((o) => o.lag.p99),
  };
  results.push(row);
  const f = (a, d = 0) => a.map((x) => x.toFixed(d)).join(" / ");
  console.log(`${policy}: ${REPLICAS} replicas x ${SECONDS} s`);
  console.log(`  decisions/s per replica        ${f(row.decisionsPerSecondPerReplica)}`);
  console.log(`  events applied/s per replica   ${f(row.eventsAppliedPerSecondPerReplica)}`);
  console.log(`  select (local) us              ${f(row.selectUs, 1)}`);
  console.log(`  replication lag median ms      ${f(row.lagMedianMs, 1)}`);
  console.log(`  replication lag p99 ms         ${f(row.lagP99Ms, 1)}`);
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")} (2 cores; replicas and redis-server share them)`,
);
if (!smoke) {
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(
    new URL("./results/latest.json", import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`,
  );
}
