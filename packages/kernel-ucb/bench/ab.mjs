// A/B of two builds of this package in one process, for speed work on a shared machine (absolute
// times are meaningless under load; ratios of interleaved runs are not):
//   node bench/ab.mjs <dist A>/index.js <dist B>/index.js      (default B: this package's dist)
// e.g. A from an older commit: `git worktree add /tmp/old <commit>`, build it, pass its dist.
// Whole runs of PAK-UCB RBF and RFF-UCB (G = 5, d = 512, D = 200, the bench's prompt pool) alternate
// A, B, then B, A, ...; each mark reports the median over pairs of the median round in the 50 rounds
// before it, and the ratio B/A. Both builds see the same prompts and rewards (and must accept the
// same options: kernel, frequencies, sigma, seed).
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Rng } from "@routekit/core";

const [aPath, bPath = new URL("../dist/index.js", import.meta.url).pathname] = process.argv.slice(2);
if (!aPath) throw new Error("usage: node bench/ab.mjs <dist A>/index.js [<dist B>/index.js]");
const A = await import(pathToFileURL(resolve(aPath)).href);
const B = await import(pathToFileURL(resolve(bPath)).href);
const G = 5;
const d = 512;
const T = Number(process.env.BENCH_T ?? 2000);
const PAIRS = Number(process.env.PAIRS ?? 4);
const MARKS = [500, 1000, 1500, 2000].filter((m) => m <= T);
const arms = Array.from({ length: G }, (_, g) => `m${g}`);
const rng = Rng.fromSeed(1234);
const pool = Array.from({ length: 1000 }, () => {
  const v = new Float64Array(d);
  let s = 0;
  for (let i = 0; i < d; i++) {
    v[i] = rng.normal();
    s += v[i] * v[i];
  }
  for (let i = 0; i < d; i++) v[i] /= Math.sqrt(s);
  return v;
});
const order = Int32Array.from({ length: T }, () => rng.int(pool.length));
const rewards = Float64Array.from({ length: T }, () => rng.uniform());
const makers = {
  "PAK-UCB": (M) => new M.PakUcb({ arms, contextDim: d, kernel: { type: "rbf", sigma: 1 }, seed: 1 }),
  "RFF-UCB": (M) => new M.RffUcb({ arms, contextDim: d, frequencies: 200, sigma: 1, seed: 1 }),
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function run(make) {
  const p = make();
  const times = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const s = performance.now();
    p.update(p.select(pool[order[t]]), { reward: rewards[t] });
    times[t] = performance.now() - s;
  }
  return Object.fromEntries(MARKS.map((m) => [m, median(Array.from(times.subarray(m - 50, m)))]));
}

for (const [name, make] of Object.entries(makers)) {
  const res = { A: [], B: [] };
  for (let k = 0; k < PAIRS; k++) {
    const first = k % 2 === 0 ? "A" : "B";
    const second = first === "A" ? "B" : "A";
    const mod = { A, B };
    res[first].push(run(() => make(mod[first])));
    res[second].push(run(() => make(mod[second])));
  }
  console.log(`${name}: ${PAIRS} pairs`);
  for (const m of MARKS) {
    const a = median(res.A.map((r) => r[m]));
    const b = median(res.B.map((r) => r[m]));
    const perPair = res.A.map((r, k) => (res.B[k][m] / r[m]).toFixed(2)).join(" ");
    console.log(
      `  t = ${String(m).padStart(4)}: A ${(a * 1000).toFixed(0).padStart(5)} us  B ${(b * 1000).toFixed(0).padStart(5)} us  B/A ${(b / a).toFixed(2)}  (per pair: ${perPair})`,
    );
  }
}
