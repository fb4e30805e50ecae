// A/B of two builds of this package, for speed work on a shared machine (absolute times are
// meaningless under load; ratios of alternated runs are not):
//   node bench/ab.mjs <dist A>/index.js <dist B>/index.js      (default B: this package's dist)
// e.g. A from an older commit: `git worktree add /tmp/old <commit>`, build it, pass its dist.
// Each run of PAK-UCB RBF or RFF-UCB (G = 5, d = 512, D = 200, the bench's prompt pool) is a fresh
// child process, alternating A, B, then B, A, ...; each mark reports the median over pairs of the
// median round in the 50 rounds before it, and the ratio B/A. Separate processes, because two builds
// in one process each bring their own linalg WebAssembly memory, and then one of them can run several
// times slower (seen with RFF-UCB: 10x, whichever build ran first), which is no property of either.
// Both builds see the same prompts and rewards (and must accept the same options).
// --smoke: this build against itself (unless a build is given), T = 500, one pair (to check that it runs).
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Rng } from "@routekit/core";

const CHILD = process.argv[2] === "--child";
const smoke = process.argv.includes("--smoke");
const own = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const positional = process.argv.slice(2).filter((a) => a !== "--smoke");
const [aPath, bPath = own] = smoke && positional.length === 0 ? [own] : positional;
if (!aPath) throw new Error("usage: node bench/ab.mjs <dist A>/index.js [<dist B>/index.js]");
const G = 5;
const d = 512;
const T = smoke ? 500 : Number(process.env.BENCH_T ?? 2000);
const PAIRS = smoke ? 1 : Number(process.env.PAIRS ?? 4);
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
  pak: (M) => new M.PakUcb({ arms, contextDim: d, kernel: { type: "rbf", sigma: 1 }, seed: 1 }),
  rff: (M) => new M.RffUcb({ arms, contextDim: d, frequencies: 200, sigma: 1, seed: 1 }),
};
const NAMES = { pak: "PAK-UCB", rff: "RFF-UCB" };
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

if (CHILD) {
  // node ab.mjs --child <dist> <pak | rff>: one run, its marks as JSON.
  const M = await import(pathToFileURL(resolve(process.argv[3])).href);
  const kind = process.argv[4];
  process.stdout.write(JSON.stringify(run(() => makers[kind](M))));
  process.exit(0);
}

/** One run of `kind` with the build at `dist`, in a fresh process. */
function child(dist, kind) {
  const args = [fileURLToPath(import.meta.url), "--child", dist, kind, ...(smoke ? ["--smoke"] : [])];
  const out = execFileSync(process.execPath, args, {
    encoding: "utf8",
    env: { ...process.env },
  });
  return JSON.parse(out);
}

// KINDS=pak or KINDS=rff runs one policy only.
for (const kind of (process.env.KINDS ?? "pak,rff").split(",")) {
  const res = { A: [], B: [] };
  const dist = { A: aPath, B: bPath };
  for (let k = 0; k < PAIRS; k++) {
    const first = k % 2 === 0 ? "A" : "B";
    const second = first === "A" ? "B" : "A";
    res[first].push(child(dist[first], kind));
    res[second].push(child(dist[second], kind));
  }
  console.log(`${NAMES[kind]}: ${PAIRS} pairs`);
  for (const m of MARKS) {
    const a = median(res.A.map((r) => r[m]));
    const b = median(res.B.map((r) => r[m]));
    const perPair = res.A.map((r, k) => (res.B[k][m] / r[m]).toFixed(2)).join(" ");
    console.log(
      `  t = ${String(m).padStart(4)}: A ${(a * 1000).toFixed(0).padStart(5)} us  B ${(b * 1000).toFixed(0).padStart(5)} us  B/A ${(b / a).toFixed(2)}  (per pair: ${perPair})`,
    );
  }
}
