// Per-round time (select + update) of UCB-MNL and TS-MNL at large contextDim: 20 candidates a round, K = 5,
// clipped-normal features (norm <= 1), choices drawn from a fixed w*, the authors-uniform preset. Reports the
// median round over rounds T/4..T of each run and the median of those over REPEATS runs, and the V^-1 refresh
// alone (linalg's choleskyInverseUpper at the same size), which each update does (see the README: the refit, not
// the refresh, is the round's cost at large d).
//   node --expose-gc bench/baselines-large-d.mjs [d ...]   (after `npx tsup`; T=rounds, REPEATS=runs,
//   DIST=another build's index.js, relative to this file, for before/after comparisons; --smoke: one run of
//   20 rounds at each d, to check that it runs)
import { allocF64, choleskyInverseUpper } from "@routekit/linalg";
import { K, median, N, timeRounds } from "./large-d-rounds.mjs";

const dist = process.env.DIST ?? "../dist/index.js";
const { TsMnl, UcbMnl } = await import(new URL(dist, import.meta.url).href);
const smoke = process.argv.includes("--smoke");
const REPEATS = smoke ? 1 : Number(process.env.REPEATS ?? 3);
const dims = process.argv
  .slice(2)
  .filter((a) => a !== "--smoke")
  .map(Number);

function run(Policy, d, T) {
  const { selectMs, updateMs } = timeRounds(new Policy({ contextDim: d, maxSize: K, seed: 1 }), d, T);
  return median(selectMs.map((s, i) => s + updateMs[i]));
}

function inverseMs(d) {
  const L = allocF64(d * d);
  for (let i = 0; i < d; i++) L[i * d + i] = 1 + i / d;
  const out = allocF64(d * d);
  const work = allocF64(d);
  const ms = [];
  for (let r = 0; r < 25; r++) {
    const s = performance.now();
    choleskyInverseUpper(L, d, out, work);
    ms.push(performance.now() - s);
  }
  return median(ms.slice(5));
}

for (const d of dims.length > 0 ? dims : [16, 64, 256]) {
  const T = smoke ? 20 : Number(process.env.T ?? (d >= 200 ? 120 : 400));
  for (const [name, Policy] of [
    ["UCB-MNL", UcbMnl],
    ["TS-MNL", TsMnl],
  ]) {
    const runs = Array.from({ length: REPEATS }, () => run(Policy, d, T));
    console.log(
      `${name} d=${d} N=${N} K=${K} T=${T}: round (select + update) ${median(runs).toFixed(3)} ms` +
        ` (runs ${runs.map((x) => x.toFixed(3)).join(", ")})`,
    );
  }
  console.log(`  choleskyInverseUpper d=${d}: ${inverseMs(d).toFixed(3)} ms`);
}
