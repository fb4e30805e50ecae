// Per-round cost of each environment over time: the calls the runner makes on it each round (next, pull or
// choose or query, and the regret references), driven by a stand-in policy that costs next to nothing, so
// the time is the environment's own. Environments have no speed target (their cost is a small part of a
// run); what this checks is that a round's cost stays flat in t: the last checkpoint at most 3x the first.
// Usage: pnpm bench (node --expose-gc bench/run.mjs [--quick]). Imports the built ../dist/index.js.
// --smoke: the same loops to t = 200, no growth check and no results file written (to check that it runs).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import {
  arenaSim2025,
  CascadeReplayEnvironment,
  ContextualMnlEnvironment,
  envA,
  envB,
  findDuplicateJsonKey,
  LinearContextualBandit,
  PlantedQuadraticEnvironment,
  parseReplay,
  promptPool,
  ReplayEnvironment,
  routerBenchSurrogate,
  StochasticBandit,
  TwoTowerEnvironment,
} from "../dist/index.js";

const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
const CHECKPOINTS = smoke ? [100, 200] : quick ? [1e3, 1e4] : [1e3, 1e4, 1e5];
const MAX_GROWTH = 3;

// The staged environments' regret reference is a stage-problem solver (StageRoute's LP, which this package
// cannot import: stageroute's tests depend on it). It is called once per stage and cached, so a stand-in that
// routes everything to the best affordable model shows the environment's own per-round cost; the solver's
// cost is in stageroute's bench.
function bestAffordable(r, c, _a, b) {
  const w = new Float64Array(r.length);
  let best = -1;
  for (let i = 0; i < r.length; i++) if (c[i] <= b && (best < 0 || r[i] > r[best])) best = i;
  if (best >= 0) w[best] = 1;
  return { value: best >= 0 ? r[best] : 0, weights: w };
}

/** A logged full-information table: `prompts` embeddings of length `dim`, every model scored on each. */
function syntheticReplayText(prompts, dim, models) {
  const rng = Rng.fromSeed(7);
  const lines = [];
  for (let p = 0; p < prompts; p++) {
    const e = Array.from(rng.fillNormal(new Float64Array(dim)), (v) => Number(v.toFixed(4)));
    for (let m = 0; m < models; m++) {
      const score = Number(rng.uniform().toFixed(3));
      const cost = Number((0.01 + 0.05 * m + 0.01 * rng.uniform()).toFixed(4));
      lines.push(JSON.stringify({ embedding: e, model: `m${m}`, score, cost }));
    }
  }
  return lines.join("\n");
}

function armDriver(env) {
  const live = [...env.initialArms];
  return (t) => {
    const round = env.next(t);
    if (round.arrivals) for (const a of round.arrivals) live.push(a);
    if (round.departures) for (const a of round.departures) live.splice(live.indexOf(a), 1);
    const arm = live[t % live.length];
    const fb = env.pull(arm);
    const mean = env.expectedReward(arm);
    let sink = env.oracleReward() - mean + env.bestFixedReward() + fb.reward;
    if (env.isOptimal(arm)) sink += 1;
    if (env.bestFixedRealised) sink += env.bestFixedRealised();
    if (env.isOptimalRealised?.(arm)) sink += 1;
    if (env.seenBefore?.()) sink += 1;
    return sink;
  };
}

function assortmentDriver(env, size) {
  const items = Array.from({ length: size }, (_, i) => i);
  return (t) => {
    env.next(t);
    for (let i = 0; i < size; i++) items[i] = (t + i * 7) % env.numItems;
    const choice = env.choose(items);
    return env.oracleRevenue() - env.expectedRevenue(items) + (choice ?? -1);
  };
}

function cascadeDriver(env, opens) {
  const arms = env.initialArms;
  return (t) => {
    env.next(t);
    let paid = 0;
    let last = "";
    for (let k = 0; k < opens; k++) {
      last = arms[(t + k) % arms.length];
      paid += env.query(last).cost;
    }
    return env.oracleUtility() - (env.expectedReward(last) - paid) + env.reward(last);
  };
}

const replayText = syntheticReplayText(2000, 64, 5);
const cases = [
  ["stochastic (K = 10, Bernoulli)", () => new StochasticBandit({ k: 10 }), armDriver],
  ["linear-contextual (d = 10, K = 5)", () => new LinearContextualBandit({ contextDim: 10, k: 5 }), armDriver],
  ["linear-contextual (d = 512, K = 5)", () => new LinearContextualBandit({ contextDim: 512, k: 5 }), armDriver],
  ["prompt-pool expert5 (d = 512)", () => promptPool("expert5"), armDriver],
  ["prompt-pool llm-code (d = 768)", () => promptPool("llm-code"), armDriver],
  ["arena-sim 2025 (15 models)", () => arenaSim2025({ oracle: bestAffordable }), armDriver],
  ["routerbench surrogate (11 models)", () => routerBenchSurrogate({ oracle: bestAffordable }), armDriver],
  ["two-tower (d = 10, 3 models)", () => new TwoTowerEnvironment({ contextDim: 10, models: 3 }), armDriver],
  [
    "planted quadratic (d = 12, 4 models)",
    () => new PlantedQuadraticEnvironment({ contextDim: 12, models: 4, latentRank: 2 }),
    armDriver,
  ],
  ["replay (2000 prompts, d = 64, 5 models)", () => new ReplayEnvironment(parseReplay(replayText)), armDriver],
  [
    "contextual MNL (N = 100, d = 5, K = 15)",
    () => new ContextualMnlEnvironment({ numItems: 100, contextDim: 5, maxSize: 15 }),
    (e) => assortmentDriver(e, 15),
  ],
  ["cascade env A (uniform boxes, 2 opened)", () => envA(), (e) => cascadeDriver(e, 2)],
  ["cascade env B (GLM boxes, 2 opened)", () => envB(), (e) => cascadeDriver(e, 2)],
  [
    "cascade replay (2000 prompts, 2 opened)",
    () => new CascadeReplayEnvironment(parseReplay(replayText)),
    (e) => cascadeDriver(e, 2),
  ],
];

let sink = 0;
const rows = [];
for (const [name, make, driver] of cases) {
  const s = performance.now();
  const env = make();
  env.reset(Rng.fromSeed(1));
  const setupMs = performance.now() - s;
  rows.push(measure(name, driver(env), setupMs));
}

function measure(name, step, setupMs) {
  const row = { environment: name, setupMs, usPerRound: {}, heapBytesPerRound: {} };
  let t = 0;
  for (const cp of CHECKPOINTS) {
    // Play up to 90% of the checkpoint untimed, then time the last 10% in 10 chunks (median: robust to other
    // processes stealing the CPU).
    const start = Math.floor(cp * 0.9);
    for (; t < start; t++) sink += step(t);
    globalThis.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    const chunk = Math.max(1, Math.floor((cp - start) / 10));
    const chunkUs = [];
    let t0 = performance.now();
    let inChunk = 0;
    for (; t < cp; t++) {
      sink += step(t);
      if (++inChunk === chunk) {
        const now = performance.now();
        chunkUs.push(((now - t0) * 1000) / chunk);
        t0 = now;
        inChunk = 0;
      }
    }
    chunkUs.sort((a, b) => a - b);
    row.heapBytesPerRound[cp] = (process.memoryUsage().heapUsed - heap0) / (cp - start);
    row.usPerRound[cp] = chunkUs[Math.floor(chunkUs.length / 2)];
  }
  row.growth = row.usPerRound[CHECKPOINTS.at(-1)] / row.usPerRound[CHECKPOINTS[0]];
  row.ok = row.growth <= MAX_GROWTH;
  return row;
}

const pad = (s, n) => String(s).padEnd(n);
const num = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
console.log(`environments bench: node ${process.version} (shared machine: numbers are noisy)`);
console.log(
  pad("environment", 42) +
    pad("setup ms", 10) +
    CHECKPOINTS.map((c) => pad(`us@t=${c}`, 12)).join("") +
    pad("heap B/round", 14) +
    `growth (<= ${MAX_GROWTH}x)`,
);
for (const r of rows) {
  console.log(
    pad(r.environment, 42) +
      pad(r.setupMs.toFixed(1), 10) +
      CHECKPOINTS.map((c) => pad(num(r.usPerRound[c]), 12)).join("") +
      pad(r.heapBytesPerRound[CHECKPOINTS.at(-1)].toFixed(0), 14) +
      `${r.growth.toFixed(2)}x ${r.ok ? "flat" : "GROWS"}`,
  );
}
// README (replays): the duplicate-key check of a JSONL line, given the parsed value, costs a fraction of
// JSON.parse's time on that line. Median of 9 batches of 20,000 calls per line shape; fails above MAX_DUP_RATIO.
const MAX_DUP_RATIO = 0.5;
const dupLines = {
  "event line (arm, 16-number context)": JSON.stringify({
    v: 1,
    kind: "classic/linucb-disjoint",
    protocol: "arm",
    id: "d123",
    decision: { arm: "gpt-4o-mini", context: Array.from({ length: 16 }, (_, i) => Math.sin(i) / 3), propensity: 0.25 },
    feedback: { reward: 0.8, cost: 0.0012 },
  }),
  "replay row (prompt text)": JSON.stringify({
    prompt: "Write a function that reverses a linked list in place and explain its complexity.",
    model: "claude-haiku",
    score: 0.75,
    cost: 0.00042,
  }),
  "replay row (64-number embedding)": JSON.stringify({
    embedding: Array.from({ length: 64 }, (_, i) => Math.cos(i) / 5),
    model: "llama-70b",
    score: 1,
    cost: 0.0009,
  }),
};
const nsPerCall = (f, n) => {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  return Number(process.hrtime.bigint() - t0) / n;
};
const dupRows = [];
console.log(`\nduplicate-key check of a JSONL line, given the parsed value, against JSON.parse (<= ${MAX_DUP_RATIO}x)`);
for (const [shape, text] of Object.entries(dupLines)) {
  const parsed = JSON.parse(text);
  const parse = [];
  const check = [];
  const calls = smoke ? 200 : 20_000;
  for (let s = 0; s < 9; s++) {
    parse.push(nsPerCall(() => (sink += JSON.parse(text) === null ? 1 : 0), calls));
    check.push(nsPerCall(() => (sink += findDuplicateJsonKey(text, parsed) === undefined ? 0 : 1), calls));
  }
  parse.sort((a, b) => a - b);
  check.sort((a, b) => a - b);
  const ratio = check[4] / parse[4];
  dupRows.push({ shape, parseNs: parse[4], checkNs: check[4], ratio, ok: ratio <= MAX_DUP_RATIO });
  console.log(
    `${pad(shape, 42)}JSON.parse ${pad(`${parse[4].toFixed(0)} ns`, 10)}check ${pad(`${check[4].toFixed(0)} ns`, 10)}` +
      `${ratio.toFixed(2)}x ${ratio <= MAX_DUP_RATIO ? "ok" : "MISSED"}`,
  );
}

const out = join(dirname(fileURLToPath(import.meta.url)), "results", "latest.json");
if (!smoke) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        checkpoints: CHECKPOINTS,
        rows,
        duplicateKeyCheck: dupRows,
      },
      null,
      2,
    ),
  );
  console.log(`wrote ${out}`);
}
// Keeps the drivers' results alive, so no call can be optimised away.
if (!Number.isFinite(sink)) console.log("(non-finite checksum of the drivers' results)");
if (!smoke && (rows.some((r) => !r.ok) || dupRows.some((r) => !r.ok))) process.exitCode = 1;
