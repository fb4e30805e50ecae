// Per-round time of RFF-UCB and exact RBF PAK-UCB over t, in the issue's configuration
// (G = 5 models, d = 512, D = 200 frequencies = 400 features, T = 2000), next to the published
// NumPy reference measured on this machine. Run: `pnpm bench` (node --expose-gc bench/run.mjs)
// after `npx tsup`. Numbers are wall-clock on a shared 2-core machine: expect noise.
import { mkdirSync, writeFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { Rng } from "@routekit/core";
import { linalgBackend } from "@routekit/linalg";
import { PakUcb, RffUcb } from "../dist/index.js";

const G = 5;
const d = 512;
const D = 200;
const T = Number(process.env.BENCH_T ?? 2000);
const MARKS = [1, 250, 500, 1000, 1500, 2000].filter((t) => t <= T);
const WINDOW = 20;
const REFERENCE = {
  rff: { 1: 0.44, 250: 0.44, 500: 0.44, 1000: 0.44, 1500: 0.44, 2000: 0.44 },
  pak: { 1: 0.31, 1000: 4.5 },
};

const arms = Array.from({ length: G }, (_, g) => `m${g}`);
const rng = Rng.fromSeed(1234);
// The reference smoke test's setup: a pool of 1000 prompts, uniform(0, 1) scores.
const POOL = 1000;
const pool = Array.from({ length: POOL }, () => {
  const v = new Float64Array(d);
  let s = 0;
  for (let i = 0; i < d; i++) {
    v[i] = rng.normal();
    s += v[i] * v[i];
  }
  for (let i = 0; i < d; i++) v[i] /= Math.sqrt(s);
  return v;
});
const order = Int32Array.from({ length: T + 600 }, () => rng.int(POOL));
const rewards = Float64Array.from({ length: T + 600 }, () => rng.uniform());

let scavenges = 0;
const obs = new PerformanceObserver((list) => {
  scavenges += list.getEntries().length;
});
obs.observe({ entryTypes: ["gc"] });

/** Times one run; returns ms per round (select + update) in a window around each mark. */
function timeRun(make) {
  const p = make();
  const times = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const y = pool[order[t]];
    const s = performance.now();
    const dec = p.select(y);
    p.update(dec, { reward: rewards[t] });
    times[t] = performance.now() - s;
  }
  const out = {};
  for (const m of MARKS) {
    const lo = Math.max(0, Math.min(m - 1 - WINDOW / 2, T - WINDOW));
    let sum = 0;
    for (let t = lo; t < lo + WINDOW; t++) sum += times[t];
    out[m] = sum / WINDOW;
  }
  return { p, perRound: out, total: times.reduce((a, b) => a + b, 0) };
}

/** Heap bytes per round over 500 steady-state rounds (no GC in between). */
function allocationPerRound(p, offset) {
  globalThis.gc?.();
  const before = scavenges;
  const h0 = process.memoryUsage().heapUsed;
  const n = 500;
  for (let t = 0; t < n; t++) {
    const dec = p.select(pool[order[offset + t]]);
    p.update(dec, { reward: rewards[offset + t] });
  }
  const h1 = process.memoryUsage().heapUsed;
  return { bytesPerRound: (h1 - h0) / n, gcDuring: scavenges - before };
}

const makeRff = () => new RffUcb({ arms, contextDim: d, frequencies: D, sigma: 1, seed: 1 });
const makePak = () => new PakUcb({ arms, contextDim: d, kernel: { type: "rbf", sigma: 1 }, seed: 1 });

// Warm up the JIT on a short run of each.
for (let t = 0, p = makeRff(), q = makePak(); t < 300; t++) {
  p.update(p.select(pool[order[t]]), { reward: rewards[t] });
  q.update(q.select(pool[order[t]]), { reward: rewards[t] });
}

const rff = timeRun(makeRff);
const rffAlloc = allocationPerRound(rff.p, T);
const pak = timeRun(makePak);

const fmt = (x) => (x === undefined ? "    -" : x.toFixed(3).padStart(7));
console.log(`kernel-ucb benchmark: G=${G}, d=${d}, D=${D} (F=${2 * D}), T=${T}, linalg backend: ${linalgBackend()}`);
console.log("ms per round (select + update), mean of 20 rounds around t; reference = NumPy, same machine\n");
console.log("      t |  RFF-UCB |  ref | speed-up |  PAK-UCB-RBF |  ref | speed-up");
for (const m of MARKS) {
  const rr = REFERENCE.rff[m];
  const pr = REFERENCE.pak[m];
  console.log(
    `${String(m).padStart(7)} | ${fmt(rff.perRound[m])}  | ${rr ?? "   -"} | ${rr ? `${(rr / rff.perRound[m]).toFixed(1)}x`.padStart(8) : "       -"} |      ${fmt(pak.perRound[m])} | ${pr ? String(pr).padStart(4) : "   -"} | ${pr ? `${(pr / pak.perRound[m]).toFixed(1)}x` : "-"}`,
  );
}
const steady = MARKS.filter((m) => m >= 250).map((m) => rff.perRound[m]);
const rffMean = steady.reduce((a, b) => a + b, 0) / steady.length;
const flat = Math.max(...steady) / Math.min(...steady);
const pak1000 = pak.perRound[1000];
const targets = [
  { name: "RFF-UCB <= 0.22 ms/round (2x the reference)", value: rffMean, pass: rffMean <= 0.22 },
  { name: "RFF-UCB flat in t (max/min over t >= 250 < 1.5)", value: flat, pass: flat < 1.5 },
  {
    name: "PAK-UCB-RBF <= 0.45 ms/round at t = 1000 (10x)",
    value: pak1000,
    pass: pak1000 !== undefined && pak1000 <= 0.45,
  },
  {
    name: "RFF-UCB steady-state heap growth <= 1024 B/round (no per-round buffers: one 400-feature Float64Array alone is 3.3 KB)",
    value: rffAlloc.bytesPerRound,
    pass: rffAlloc.bytesPerRound <= 1024,
  },
];
console.log("");
for (const t of targets) console.log(`${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.value?.toFixed(3)}`);
console.log(
  `\n(heap measured over 500 rounds with ${rffAlloc.gcDuring} GC events in between; total run: RFF ${rff.total.toFixed(0)} ms, PAK ${pak.total.toFixed(0)} ms)`,
);

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/latest.json", import.meta.url),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      config: { G, d, D, T, window: WINDOW, backend: linalgBackend() },
      reference: REFERENCE,
      rff: rff.perRound,
      pak: pak.perRound,
      rffAllocation: rffAlloc,
      targets,
    },
    null,
    2,
  ),
);
obs.disconnect();
