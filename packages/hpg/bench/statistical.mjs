// Per-round cost of HPG at the sizes of test/statistical.test.ts, the longest part of this package's test
// run: one seeded runRoutingExperiment (router + planted environment + regret meter, as the tests run it)
// per configuration and seed, CPU time per round (process.cpuUsage: on a shared machine the wall clock mostly
// measures the wait for a core), median over seeds.
//   d = 16, M = 4, exact rank (maxRank 16), "ambient": the linearized-regret-over-T runs (85% of the rounds)
//   d = 64, exact rank, "query": dimension robustness and the rank cap
//   d = 256, maxRank 32 (the default), "query": dimension robustness
// With a second build, both run the same experiments interleaved (A, B, B, A, ...) and the ratio is printed:
// the way to compare speed on a loaded machine.
// Usage: node bench/statistical.mjs [--quick] [<dist index.js of build B>]   (imports the built ../dist/index.js)
// --smoke: one seed at a tenth of the quick horizons, this build against itself (to check that it runs).
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PlantedQuadraticEnvironment, runRoutingExperiment } from "@routekit/environments";
import * as here from "../dist/index.js";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const smoke = args.includes("--smoke");
const other =
  args.find((a) => !a.startsWith("--")) ??
  (smoke ? fileURLToPath(new URL("../dist/index.js", import.meta.url)) : undefined);
const builds = [{ name: "A (this build)", lib: here }];
if (other) builds.push({ name: `B (${other})`, lib: await import(resolve(other)) });

const CONFIGS = [
  {
    label: "d=16 M=4 exact, ambient",
    d: 16,
    maxRank: undefined,
    planted: "ambient",
    T: smoke ? 200 : quick ? 2000 : 8000,
  },
  { label: "d=64 M=4 exact, query", d: 64, maxRank: 64, planted: "query", T: smoke ? 50 : quick ? 500 : 2000 },
  {
    label: "d=256 M=4 maxRank 32, query",
    d: 256,
    maxRank: undefined,
    planted: "query",
    T: smoke ? 30 : quick ? 300 : 1000,
  },
];
const SEEDS = smoke ? [0] : quick ? [0, 1] : [0, 1, 2, 3];

function run(lib, c, seed) {
  const env = new PlantedQuadraticEnvironment({
    contextDim: c.d,
    models: 4,
    latentRank: 1,
    mcSamples: 200,
    planted: c.planted,
    ...(c.planted === "query" ? { queryNoise: 0.4 / Math.sqrt(c.d) } : {}),
  });
  const rank = c.maxRank === undefined ? {} : { maxRank: c.maxRank };
  const c0 = process.cpuUsage();
  const r = runRoutingExperiment(
    env,
    (rng) => new lib.Hpg({ arms: [...env.initialArms], contextDim: c.d, horizon: c.T, ...rank, rng }),
    { horizon: c.T, seed },
  );
  const t = process.cpuUsage(c0);
  return { us: (t.user + t.system) / c.T, linReg: r.linearizedRegret };
}

const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const pad = (s, n) => String(s).padEnd(n);
// Warm-up (JIT) on the smallest configuration.
for (const b of builds) run(b.lib, { ...CONFIGS[0], T: smoke ? 50 : 500 }, 99);
console.log(`hpg statistical-size bench (CPU us per round, median of ${SEEDS.length} seeds)`);
for (const c of CONFIGS) {
  const us = builds.map(() => []);
  const lin = builds.map(() => []);
  SEEDS.forEach((seed, i) => {
    const order = i % 2 ? [...builds.keys()].reverse() : [...builds.keys()];
    for (const k of order) {
      const r = run(builds[k].lib, c, seed);
      us[k].push(r.us);
      lin[k].push(r.linReg);
    }
  });
  const cells = builds.map((b, k) => `${b.name}: ${med(us[k]).toFixed(1)}`);
  let line = `${pad(c.label, 30)} T=${pad(c.T, 6)}${cells.join("   ")}`;
  if (builds.length === 2) {
    const same = lin[0].every((x, i) => x === lin[1][i]);
    line += `   B/A ${(med(us[1]) / med(us[0])).toFixed(3)}; linearized regret ${same ? "identical" : "differs"}`;
    if (!same)
      line += ` (max rel. diff ${Math.max(...lin[0].map((x, i) => Math.abs(x - lin[1][i]) / Math.abs(x))).toExponential(1)})`;
  }
  console.log(line);
}
