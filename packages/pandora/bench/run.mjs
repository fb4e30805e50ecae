// Per-request time of COSMOS over t on Env-A (3 boxes, psi = (1, x1, x2), phi = omega in R^4):
// known reward (paper Section 4) and learned reward (Section 5), each with exact refits (the paper) and
// geometric refits (RouteKit's option). Exact refits re-solve each box over its whole history: with a
// known reward only the boxes opened last request (time grows like n_a), with a learned reward every box
// after every request (theta-hat moves every period, so time grows like t: O(T^2) in total). Geometric
// refits keep the amortised time flat.
// Run: pnpm bench (node --expose-gc bench/run.mjs) after `npx tsup`. Wall-clock on a shared machine: noisy.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { envA } from "@routekit/environments";
import { Cosmos } from "../dist/index.js";

const T = Number(process.env.BENCH_T ?? 4000);
const here = dirname(fileURLToPath(import.meta.url));
const arms = ["box1", "box2", "box3"];
const base = { arms, contextDim: 2, outputDim: 4, indexLink: "linear", horizon: T };

const cases = [
  { name: "known exact", make: () => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], exploration: 0.5 }) },
  {
    name: "known geometric",
    make: () => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], exploration: 0.5, refit: "geometric" }),
  },
  { name: "learned exact", make: () => new Cosmos({ ...base, exploration: 0.25 }) },
  { name: "learned geometric", make: () => new Cosmos({ ...base, exploration: 0.25, refit: "geometric" }) },
];

/** Plays T requests on Env-A; per-request microseconds spent inside the policy. */
function play(policy) {
  const env = envA();
  env.reset(Rng.fromSeed(1).fork("environment"));
  const us = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const { context } = env.next(t);
    let spent = 0;
    let s = performance.now();
    const ep = policy.begin(context);
    for (let step = policy.next(ep); "query" in step; step = policy.next(ep)) {
      spent += performance.now() - s;
      const out = env.query(step.query);
      s = performance.now();
      policy.observe(ep, step.query, out.features, out.cost);
    }
    const arm = policy.choose(ep);
    spent += performance.now() - s;
    const r = env.reward(arm);
    s = performance.now();
    policy.feedback(ep, r);
    us[t] = 1000 * (spent + performance.now() - s);
  }
  return us;
}

const windows = [
  [0, T / 8],
  [T / 4 - T / 8, T / 4],
  [T / 2 - T / 8, T / 2],
  [T - T / 8, T],
].map(([a, b]) => [Math.floor(a), Math.floor(b)]);
const mean = (us, a, b) => {
  let s = 0;
  for (let t = a; t < b; t++) s += us[t];
  return s / (b - a);
};

const results = [];
console.log(`COSMOS per-request time on Env-A, T = ${T} (mean microseconds in windows ending at t)`);
console.log(`${"case".padEnd(20)}${windows.map(([, b]) => `t<=${b}`.padStart(12)).join("")}  last/first`);
for (const c of cases) {
  const us = play(c.make());
  const w = windows.map(([a, b]) => mean(us, a, b));
  const growth = w[w.length - 1] / w[0];
  results.push({ case: c.name, windows: windows.map(([a, b], i) => ({ from: a, to: b, meanUs: w[i] })), growth });
  console.log(`${c.name.padEnd(20)}${w.map((x) => x.toFixed(1).padStart(12)).join("")}  ${growth.toFixed(2)}x`);
}
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "latest.json"), `${JSON.stringify({ T, results }, null, 1)}\n`);
