// Interleaved A/B of two builds of this package in one process (the way to compare speed on a loaded
// machine): the same query stream and rewards, chunks of 50 rounds alternating A, B, B, A, ...; CPU time
// per round, medians over t = 1000..3000, and their ratio. d = 768, M = 8, maxRank 16.
// Usage: node bench/ab.mjs <dist A index.js> <dist B index.js> [Hpg|ParameterFreeHpg|EuclideanPg]
// --smoke: this build against itself (unless two are given), 4 chunks of 10 rounds (to check that it runs).
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";

const smoke = process.argv.includes("--smoke");
const own = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const positional = process.argv.slice(2).filter((a) => a !== "--smoke");
const [pathA, pathB, which = "Hpg"] = smoke && positional.length === 0 ? [own, own] : positional;
if (!pathA || !pathB) {
  console.error("usage: node bench/ab.mjs <dist A index.js> <dist B index.js> [policy class]");
  process.exit(2);
}
const A = await import(resolve(pathA));
const B = await import(resolve(pathB));
const d = 768;
const arms = Array.from({ length: 8 }, (_, i) => `m${i}`);
const rng = Rng.fromSeed(1);
const qs = Array.from({ length: 512 }, () => {
  const x = rng.fillNormal(new Float64Array(d));
  const s = Math.hypot(...x);
  for (let i = 0; i < d; i++) x[i] /= s;
  return x;
});
const make = (L) => new L[which]({ arms, contextDim: d, maxRank: 16, horizon: 10_000, seed: 1 });
const runs = [
  { p: make(A), r: Rng.fromSeed(2), us: [] },
  { p: make(B), r: Rng.fromSeed(2), us: [] },
];
const CHUNK = smoke ? 10 : 50;
for (let rep = 0; rep < (smoke ? 4 : 60); rep++) {
  for (const run of rep % 2 ? runs : [...runs].reverse()) {
    const base = run.us.length * CHUNK;
    const c0 = process.cpuUsage();
    for (let k = 0; k < CHUNK; k++) {
      const dec = run.p.select(qs[(base + k) & 511]);
      run.p.update(dec, { reward: run.r.uniform() });
    }
    const c = process.cpuUsage(c0);
    run.us.push((c.user + c.system) / CHUNK);
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const [a, b] = runs.map((r) => med(r.us.slice(smoke ? 1 : 20)));
console.log(
  `${which}: median us/round at t = 1000..3000: A ${a.toFixed(0)}, B ${b.toFixed(0)}, B/A ${(b / a).toFixed(3)}`,
);
