// Per-round cost (select + update) of each classic policy over time, K = 10 arms, d = 20 and d = 100.
// Usage: pnpm bench (node --expose-gc bench/run.mjs [--quick]). Imports the built ../dist/index.js.
// --smoke: the same loops to t = 200, no targets checked and no results file written (to check that it runs).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { linalgBackend } from "@routekit/linalg";
import {
  EpsilonGreedy,
  LinUCBDisjoint,
  LinUCBShared,
  OneArmOracle,
  RandomPolicy,
  ThompsonBernoulli,
  ThompsonGaussian,
  UCB1,
} from "../dist/index.js";

const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
const K = 10;
const CHECKPOINTS = smoke ? [100, 200] : quick ? [1e3, 1e4] : [1e3, 1e4, 1e5];
const arms = Array.from({ length: K }, (_, i) => `m${i}`);

// Speed targets (microseconds per round, select + update), checked here and never in unit tests.
const TARGETS = {
  random: 3,
  "epsilon-greedy": 3,
  ucb1: 3,
  "thompson-bernoulli": 15,
  "thompson-gaussian": 8,
  "one-arm-oracle": 3,
  // (the timer itself costs ~0.1-0.3 us per call)
  "linucb-disjoint@20": 25,
  "linucb-disjoint@100": 250,
  "linucb-shared@20": 25,
  "linucb-shared@100": 120,
};

const policies = [
  ["random", (d) => new RandomPolicy({ arms, contextDim: d, seed: 1 })],
  ["epsilon-greedy", (d) => new EpsilonGreedy({ arms, contextDim: d, seed: 1 })],
  ["ucb1", (d) => new UCB1({ arms, contextDim: d, seed: 1 })],
  ["thompson-bernoulli", (d) => new ThompsonBernoulli({ arms, contextDim: d, seed: 1 })],
  ["thompson-gaussian", (d) => new ThompsonGaussian({ arms, contextDim: d, seed: 1 })],
  ["one-arm-oracle", (d) => new OneArmOracle({ arms, arm: "m3", contextDim: d, seed: 1 })],
  ["linucb-disjoint", (d) => new LinUCBDisjoint({ arms, contextDim: d, seed: 1 }), true],
  ["linucb-shared", (d) => new LinUCBShared({ arms, contextDim: d, seed: 1 }), true],
];

function makeWorld(d) {
  const rng = Rng.fromSeed(42);
  const pool = [];
  for (let i = 0; i < 1024; i++) {
    const x = rng.fillNormal(new Float64Array(d));
    const n = Math.hypot(...x);
    for (let j = 0; j < d; j++) x[j] /= n;
    pool.push(x);
  }
  const theta = arms.map(() => rng.fillNormal(new Float64Array(d), 0, 1 / Math.sqrt(d)));
  // Rewards in [0, 1] (Beta-Bernoulli needs them): 0.5 + 0.5 tanh(<theta, x>) plus a little noise, clamped.
  const noise = Array.from({ length: 4096 }, () => 0.05 * rng.normal());
  return { pool, theta, noise };
}

function reward(world, arm, x, t) {
  const th = world.theta[Number(arm.slice(1))];
  let s = 0;
  for (let i = 0; i < x.length; i++) s += th[i] * x[i];
  return Math.min(1, Math.max(0, 0.5 + 0.5 * Math.tanh(s) + world.noise[t & 4095]));
}

const rows = [];
for (const d of [20, 100]) {
  const world = makeWorld(d);
  for (const [name, make, contextual] of policies) {
    if (!contextual && d !== 20) continue; // context-free cost does not depend on d
    const p = make(d);
    globalThis.gc?.();
    let t = 0;
    const row = { policy: name, K, d: contextual ? d : "-", usPerRound: {}, heapBytesPerRound: {} };
    for (const cp of CHECKPOINTS) {
      // Play up to 90% of the checkpoint untimed, then time the last 10% window.
      const start = Math.floor(cp * 0.9);
      for (; t < start; t++) {
        const x = world.pool[t & 1023];
        const dec = p.select(x);
        p.update(dec, { reward: reward(world, dec.arm, x, t) });
      }
      globalThis.gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      // Median over 10 chunks of the window: robust to other processes stealing the CPU.
      const chunk = Math.max(1, Math.floor((cp - start) / 10));
      const chunkUs = [];
      let ns = 0n;
      let inChunk = 0;
      for (; t < cp; t++) {
        const x = world.pool[t & 1023];
        const t0 = process.hrtime.bigint();
        const dec = p.select(x);
        const t1 = process.hrtime.bigint();
        const r = reward(world, dec.arm, x, t);
        const t2 = process.hrtime.bigint();
        p.update(dec, { reward: r });
        ns += t1 - t0 + (process.hrtime.bigint() - t2);
        if (++inChunk === chunk) {
          chunkUs.push(Number(ns) / 1000 / chunk);
          ns = 0n;
          inChunk = 0;
        }
      }
      chunkUs.sort((a, b) => a - b);
      globalThis.gc?.();
      const n = cp - start;
      row.usPerRound[cp] = chunkUs[Math.floor(chunkUs.length / 2)];
      row.heapBytesPerRound[cp] = (process.memoryUsage().heapUsed - heap0) / n;
    }
    const key = contextual ? `${name}@${d}` : name;
    const last = row.usPerRound[CHECKPOINTS.at(-1)];
    row.target = TARGETS[key];
    row.ok = last <= row.target;
    rows.push(row);
  }
}

const pad = (s, n) => String(s).padEnd(n);
const num = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
console.log(
  `classic bench: K = ${K}, linalg backend ${linalgBackend()}, node ${process.version} (shared machine: numbers are noisy)`,
);
console.log(
  pad("policy", 20) +
    pad("d", 5) +
    CHECKPOINTS.map((c) => pad(`us@t=${c}`, 12)).join("") +
    pad("heap B/round", 14) +
    "target",
);
for (const r of rows) {
  console.log(
    pad(r.policy, 20) +
      pad(r.d, 5) +
      CHECKPOINTS.map((c) => pad(num(r.usPerRound[c]), 12)).join("") +
      pad(r.heapBytesPerRound[CHECKPOINTS.at(-1)].toFixed(1), 14) +
      `${r.ok ? "ok" : "MISSED"} (<= ${r.target} us)`,
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
        backend: linalgBackend(),
        K,
        checkpoints: CHECKPOINTS,
        rows,
      },
      null,
      2,
    ),
  );
  console.log(`wrote ${out}`);
}
// LinUCB-shared at d = 512 with K = 5 arms (the `compare` configuration of the d = 512 experiments).
await import("./shared-512.mjs");
if (!smoke && rows.some((r) => !r.ok)) process.exitCode = 1;
