// Benchmarks of the playground's own hot paths: the replay featurizer, the loader, a replay round, plot rendering,
// and the CLI pipeline overhead. Run `pnpm bench` (node --expose-gc bench/run.mjs) after building; pass --scale for
// the issue's scale check (100,000 rounds x 10 seeds x 3 policies on a 512-dimensional environment, in workers;
// --scale=N runs N rounds instead, with the target scaled linearly). --smoke: every measurement once on a small
// input, the scale check included (50 rounds x 2 seeds, d = 16), no targets, no results file (to check that it runs).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { HashingFeaturizer, parseReplay, ReplayEnvironment } from "@routekit/environments";
import { compare, metricSpec, renderSvg, svgToPng } from "../dist/index.js";

const smoke = process.argv.includes("--smoke");
const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, "..", "examples", "prompts.jsonl");
const text = readFileSync(example, "utf8");
const prompts = [
  ...new Set(
    text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).prompt),
  ),
];

function time(fn, minMs = 400) {
  fn();
  globalThis.gc?.();
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < (smoke ? 1 : minMs)) {
    fn();
    n++;
    t = performance.now();
  }
  return (t - t0) / n;
}

const rows = [];
const f = new HashingFeaturizer({ dim: 256 });
const out = new Float64Array(256);
const msPerPass = time(() => {
  for (const p of prompts) f.transform(p, out);
});
rows.push({
  name: "featurizer (dim 256)",
  value: (prompts.length / msPerPass) * 1000,
  unit: "prompts/s",
  target: 20_000,
});

const msLoad = time(() => parseReplay(text));
rows.push({
  name: "loader (JSONL, 600 rows + featurize)",
  value: (600 / msLoad) * 1000,
  unit: "rows/s",
  target: 50_000,
});

const table = parseReplay(text);
const env = new ReplayEnvironment(table);
env.reset(Rng.fromSeed(1));
let t = 0;
const msRounds = time(() => {
  for (let i = 0; i < 10_000; i++, t++) {
    env.next(t);
    env.pull("coder-7b");
    env.expectedReward("coder-7b");
    env.oracleReward();
    env.bestFixedReward();
    env.isOptimal("coder-7b");
  }
});
rows.push({
  name: "replay round (next + pull + metrics)",
  value: (10_000 / msRounds) * 1000,
  unit: "rounds/s",
  target: 2_000_000,
});

const pts = [];
for (const policy of ["a", "b", "c"])
  for (let i = 1; i <= 200; i++)
    pts.push({ policy, metric: "regret", t: i * 50, mean: i, se: 1, lo: i - 1, hi: i + 1 });
const spec = metricSpec(pts, "regret", "bench");
let svg = "";
const msSvgAsync = [];
for (let i = 0; i < (smoke ? 1 : 5); i++) {
  const s = performance.now();
  svg = await renderSvg(spec);
  msSvgAsync.push(performance.now() - s);
}
rows.push({
  name: "vega-lite -> SVG (3 policies x 200 points)",
  value: Math.min(...msSvgAsync),
  unit: "ms",
  target: 500,
  lower: true,
});
const msPng = time(() => svgToPng(svg), 500);
rows.push({ name: "SVG -> PNG (resvg, 2x)", value: msPng, unit: "ms", target: 500, lower: true });

const s0 = performance.now();
await compare({
  environment: "replay",
  environmentParams: { data: example },
  policies: ["random", "ucb1"],
  seeds: 2,
  horizon: smoke ? 200 : 2000,
  workers: 1,
});
rows.push({
  name: "compare replay 2 policies x 2 seeds x 2000 rounds (in-process, no files)",
  value: performance.now() - s0,
  unit: "ms",
  target: 3000,
  lower: true,
});

// README (--no-png): what skipping the PNGs saves per scenario. The same small replay comparison written to a
// temporary directory with and without PNGs (median of 3 each); the difference is the PNG rendering of one run's
// plots (regret, O2B, OPR, cost, pick shares, the panel).
{
  const dir = mkdtempSync(join(tmpdir(), "routekit-bench-png-"));
  const write = async (png) => {
    const s = performance.now();
    await compare({
      environment: "replay",
      environmentParams: { data: example },
      policies: ["random", "ucb1"],
      seeds: 2,
      horizon: smoke ? 50 : 500,
      workers: 1,
      out: join(dir, png ? "png" : "svg"),
      png,
    });
    return performance.now() - s;
  };
  const med = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const withPng = [];
  const withoutPng = [];
  for (let i = 0; i < (smoke ? 1 : 3); i++) {
    withPng.push(await write(true));
    withoutPng.push(await write(false));
  }
  rmSync(dir, { recursive: true, force: true });
  rows.push({
    name: "--no-png saving per scenario (files of a 2-policy replay run)",
    value: med(withPng) - med(withoutPng),
    unit: "ms",
  });
}

const scaleArg = process.argv.find((a) => a.startsWith("--scale"));
if (scaleArg || smoke) {
  // --scale: the issue's 100,000 rounds; --scale=N for a shorter run (the target scales linearly).
  const horizon = smoke ? 50 : scaleArg.includes("=") ? Number(scaleArg.split("=")[1]) : 100_000;
  const s1 = performance.now();
  const before = process.memoryUsage().rss;
  let lastPrint = 0;
  await compare({
    environment: "linear-contextual",
    environmentParams: { contextDim: smoke ? 16 : 512 },
    policies: ["linucb-shared", "linucb-disjoint", "rff-ucb"],
    seeds: smoke ? 2 : 10,
    horizon,
    workers: 2,
    onProgress: (p) => {
      const now = performance.now();
      if (now - lastPrint > 10_000) {
        lastPrint = now;
        process.stderr.write(`scale: ${p.done}/${p.total} rounds after ${((now - s1) / 1000).toFixed(0)} s\n`);
      }
    },
  });
  rows.push({
    name: `scale: 3 policies x ${smoke ? 2 : 10} seeds x ${horizon} rounds, d=${smoke ? 16 : 512} (workers)`,
    value: (performance.now() - s1) / 1000,
    unit: "s",
    target: (600 * horizon) / 100_000,
    lower: true,
  });
  rows.push({
    name: "scale: RSS growth of the main thread",
    value: (process.memoryUsage().rss - before) / 2 ** 20,
    unit: "MiB",
    target: 200,
    lower: true,
  });
}

const fmt = (x) => (x >= 1000 ? Math.round(x).toLocaleString("en-US") : x.toPrecision(3));
console.log("routekit playground benchmarks (shared 2-core machine: numbers are noisy)\n");
const w = Math.max(...rows.map((r) => r.name.length));
let failed = 0;
for (const r of rows) {
  if (r.target === undefined) {
    console.log(`${r.name.padEnd(w)}  ${fmt(r.value).padStart(12)} ${r.unit.padEnd(9)} (measured, no target)`);
    continue;
  }
  const ok = r.lower ? r.value <= r.target : r.value >= r.target;
  if (!ok) failed++;
  console.log(
    `${r.name.padEnd(w)}  ${fmt(r.value).padStart(12)} ${r.unit.padEnd(9)} target ${r.lower ? "<=" : ">="} ${fmt(r.target)}  ${ok ? "ok" : "MISSED"}`,
  );
}
if (!smoke) {
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(
    join(here, "results", "latest.json"),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`,
  );
  console.log(`\n${failed === 0 ? "all targets met" : `${failed} target(s) missed`}; wrote bench/results/latest.json`);
}
