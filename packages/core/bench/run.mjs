// Core micro-benchmarks: RNG draws, ledger bookkeeping, runner overhead per round, worker-pool start-up.
// Run with `pnpm bench` (node --expose-gc bench/run.mjs) after `pnpm build`. Numbers on a shared
// machine are noisy: each figure is the median of several timed samples. --smoke: every measurement on a few
// thousand calls, one sample, no results file written (to check that it runs).
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { DecisionLedger, Rng, runExperiment, runOne } from "../dist/index.js";
import { runExperimentInWorkers } from "../dist/node.js";
import { buildExperiment } from "./trivial.mjs";

const strict = process.argv.includes("--strict");
const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
const SAMPLES = smoke ? 1 : quick ? 3 : 7;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** ns per call of `body(n)`, which must run n calls; median over samples after a warm-up. */
function nsPerCall(body, n) {
  body(Math.min(n, 100_000));
  const out = [];
  for (let s = 0; s < SAMPLES; s++) {
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    body(n);
    out.push(Number(process.hrtime.bigint() - t0) / n);
  }
  return median(out);
}

let sink = 0;
const rng = Rng.fromSeed(1);
const weights8 = new Float64Array([0.1, 0.3, 0.05, 0.2, 0.1, 0.05, 0.15, 0.05]);
const N = smoke ? 2000 : quick ? 200_000 : 2_000_000;

const rows = [];
function row(name, ns, targetNs, note = "") {
  rows.push({ name, ns, targetNs, pass: ns <= targetNs, note });
}

row(
  "Rng.uniform",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) sink += rng.uniform();
  }, N),
  60,
);
row(
  "Rng.normal",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) sink += rng.normal();
  }, N),
  200,
  "Box-Muller, 2 uniforms",
);
row(
  "Rng.categorical (8 weights)",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) sink += rng.categorical(weights8);
  }, N),
  200,
);
row(
  "Rng.int(10)",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) sink += rng.int(10);
  }, N),
  100,
);
row(
  "Rng.gamma(2.5)",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) sink += rng.gamma(2.5);
  }, N / 4),
  500,
);

const ledger = new DecisionLedger({ encode: (p) => p, decode: (j) => j });
row(
  "ledger issue + get + settle",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) {
      const id = ledger.issue(i);
      sink += ledger.get(id);
      ledger.settle(id);
    }
  }, N / 2),
  700,
  "immediate feedback (Map + id string)",
);
const delayed = new DecisionLedger({ encode: (p) => p, decode: (j) => j }, { maxPending: 1000 });
const ring = new Array(100);
row(
  "ledger issue + settle, 100 in flight",
  nsPerCall((n) => {
    for (let i = 0; i < n; i++) {
      const k = i % 100;
      if (ring[k] !== undefined) delayed.settle(ring[k]);
      ring[k] = delayed.issue(i);
    }
  }, N / 2),
  700,
  "feedback 100 decisions late",
);

// Runner overhead: a trivial policy and environment, so the time is the harness's (timers, metrics).
const H = smoke ? 1000 : quick ? 100_000 : 500_000;
const exp = buildExperiment({ seeds: [1], horizon: H });
row(
  "runner overhead per round",
  nsPerCall((n) => {
    const e = n === H ? exp : buildExperiment({ seeds: [1], horizon: n });
    sink += runOne(e, 0, 1).final.regret;
  }, H),
  2000,
  "4 performance.now() + metrics per round",
);

// Worker pool: start-up and hand-off cost against the same runs in this thread.
const module = fileURLToPath(new URL("./trivial.mjs", import.meta.url));
const spec = { seeds: [1, 2, 3, 4], horizon: smoke ? 1000 : quick ? 50_000 : 200_000 };
const local = [];
const pooled = [];
for (let s = 0; s < (quick || smoke ? 1 : 3); s++) {
  let t0 = performance.now();
  runExperiment(buildExperiment(spec));
  local.push(performance.now() - t0);
  t0 = performance.now();
  await runExperimentInWorkers({ module, spec }, { workers: 2 });
  pooled.push(performance.now() - t0);
}
const tiny = [];
for (let s = 0; s < (quick || smoke ? 1 : 3); s++) {
  const t0 = performance.now();
  await runExperimentInWorkers({ module, spec: { seeds: [1, 2], horizon: 10 } }, { workers: 2 });
  tiny.push(performance.now() - t0);
}

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
console.log(
  `@routekit/core bench (node ${process.version}, ${cpus()[0]?.model ?? "cpu"}, ${availableParallelism()} cores)`,
);
console.log("shared machine: numbers are medians of noisy samples\n");
console.log(`${pad("operation", 40)}${lpad("ns/call", 10)}${lpad("target", 10)}  status  note`);
for (const r of rows) {
  console.log(
    `${pad(r.name, 40)}${lpad(r.ns.toFixed(1), 10)}${lpad(`<=${r.targetNs}`, 10)}  ${pad(r.pass ? "ok" : "SLOW", 6)}  ${r.note}`,
  );
}
const workers = {
  runs: spec.seeds.length,
  horizon: spec.horizon,
  inProcessMs: median(local),
  twoWorkersMs: median(pooled),
  startupMs: median(tiny),
};
console.log(
  `\nworkers: 4 runs x ${spec.horizon} rounds: in-process ${workers.inProcessMs.toFixed(0)} ms, 2 workers ${workers.twoWorkersMs.toFixed(0)} ms` +
    ` (speed-up x${(workers.inProcessMs / workers.twoWorkersMs).toFixed(2)}); pool start-up + teardown ~${workers.startupMs.toFixed(0)} ms`,
);

if (!smoke) {
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(
    new URL("./results/latest.json", import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows, workers, sink: Number.isFinite(sink) }, null, 2)}\n`,
  );
}
const slow = rows.filter((r) => !r.pass);
if (slow.length > 0) {
  console.log(`\n${slow.length} target(s) missed: ${slow.map((r) => r.name).join(", ")}`);
  if (strict && !smoke) process.exitCode = 1;
}
