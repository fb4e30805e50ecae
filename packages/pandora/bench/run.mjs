// Per-request time of COSMOS over t on Env-A (3 boxes, psi = (1, x1, x2), phi = omega in R^4), for the
// known reward (paper Section 4) and the learned reward (Section 5), each with exact refits (the paper) and
// geometric refits (the default). The index loss sums over a box's whole history and has no finite
// sufficient statistics, so an exact refit of a box costs O(n_a): with a known reward only the boxes opened
// last request are refit (time per request grows like t), with a learned reward theta-hat moves every
// request and every box is refit (also O(t) per request, with a larger constant: O(T^2) in total).
// Geometric refits re-solve a box when its sample count has grown by 20% (and every box when the reward
// count has), so the amortised time per request is flat in t.
//
// Each variant runs on its own (fresh policy, then the heap is collected), after a JIT warm-up of all
// four. Two clocks: wall time inside the policy, and the process's CPU time (user + system) for the whole
// request, which other processes' load does not inflate. The variants are not interleaved request by
// request: the exact variants' growing heaps and O(n) passes then inflate the cheap variants' times
// (geometric known reward measured 15 -> 26 CPU microseconds per request from t = 500 to 4000 interleaved,
// 14 -> 11.5 from t = 1000 to 8000 on its own).
// Run: pnpm bench (node --expose-gc bench/run.mjs) after `npx tsup`. BENCH_T sets the horizon (4000).
// --smoke: T = 200, no results file written (to check that it runs).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { envA } from "@routekit/environments";
import { Cosmos } from "../dist/index.js";

const smoke = process.argv.includes("--smoke");
const T = smoke ? 200 : Number(process.env.BENCH_T ?? 4000);
const here = dirname(fileURLToPath(import.meta.url));
const arms = ["box1", "box2", "box3"];
const base = { arms, contextDim: 2, outputDim: 4, indexLink: "linear", horizon: T };
const known = { ...base, rewardParameter: [1, 0, 0, 0], exploration: 0.5 };
const learned = { ...base, exploration: 0.25 };

const variants = [
  { name: "known, default (geometric)", options: known },
  { name: "known, exact", options: { ...known, refit: "exact" } },
  { name: "learned, exact", options: { ...learned, refit: "exact" } },
  { name: "learned, geometric", options: { ...learned, refit: "geometric" } },
];
const start = (seed) =>
  variants.map((c) => {
    const env = envA();
    env.reset(Rng.fromSeed(seed).fork("environment"));
    return { ...c, policy: new Cosmos(c.options), env, us: new Float64Array(T), cpu: new Float64Array(T) };
  });

/** CPU microseconds (user + system) of this process: unlike wall time, not inflated by other processes. */
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** One request of case c at period t: wall microseconds inside the policy, and CPU microseconds of the request. */
function step(c, t) {
  const c0 = cpu();
  const { policy, env } = c;
  const { context } = env.next(t);
  let spent = 0;
  let s = performance.now();
  const ep = policy.begin(context);
  for (let q = policy.next(ep); "query" in q; q = policy.next(ep)) {
    spent += performance.now() - s;
    const out = env.query(q.query);
    s = performance.now();
    policy.observe(ep, q.query, out.features, out.cost);
  }
  const arm = policy.choose(ep);
  spent += performance.now() - s;
  const r = env.reward(arm);
  s = performance.now();
  policy.feedback(ep, r);
  c.cpu[t] = cpu() - c0;
  return 1000 * (spent + performance.now() - s);
}

/** Plays n requests of every variant, interleaved (the warm-up). */
function warm(cases, n) {
  for (let t = 0; t < n; t++) for (const c of cases) step(c, t);
}

// Warm-up (JIT) on other draws, then each variant from a fresh policy on its own.
warm(start(99), Math.min(T, 600));
const cases = start(1);
for (const c of cases) {
  globalThis.gc?.();
  for (let t = 0; t < T; t++) c.us[t] = step(c, t);
  c.policy = { fitStats: { ...c.policy.fitStats } };
  c.env = null;
}

// Doubling windows (t/2, t]: under geometric refits each holds the same number of refits per box (about
// log(2) / log(1.2)), each costing O(n_a), so a flat amortised cost shows as equal window means.
const ends = [T / 8, T / 4, T / 2, T].map(Math.floor);
const windows = ends.map((b) => [Math.floor(b / 2), b]);
const mean = (us, a, b) => {
  let s = 0;
  for (let t = a; t < b; t++) s += us[t];
  return s / (b - a);
};

const results = [];
for (const [metric, title] of [
  ["us", "wall microseconds inside the policy"],
  ["cpu", "CPU microseconds of the whole request (user + system; robust to other processes' load)"],
]) {
  console.log(`COSMOS on Env-A, T = ${T}: ${title}, mean per request over (t/2, t]`);
  console.log(
    `${"variant".padEnd(28)}${ends.map((b) => `t=${b}`.padStart(10)).join("")}  last/first  fits/request  Newton its/fit`,
  );
  for (const c of cases) {
    const w = windows.map(([a, b]) => mean(c[metric], a, b));
    const growth = w[w.length - 1] / w[0];
    const { fits, newtonIterations } = c.policy.fitStats;
    results.push({
      variant: c.name,
      metric,
      windows: windows.map(([a, b], i) => ({ from: a, to: b, mean: w[i] })),
      growth,
      fitsPerRequest: fits / T,
      newtonIterationsPerFit: newtonIterations / fits,
    });
    console.log(
      `${c.name.padEnd(28)}${w.map((x) => x.toFixed(1).padStart(10)).join("")}${`${growth.toFixed(2)}x`.padStart(12)}` +
        `${(fits / T).toFixed(3).padStart(14)}${(newtonIterations / fits).toFixed(2).padStart(16)}`,
    );
  }
}
if (!smoke) {
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(join(here, "results", "latest.json"), `${JSON.stringify({ T, results }, null, 1)}\n`);
}
