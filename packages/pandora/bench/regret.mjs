// The README's regret tables, recomputed: cumulative regret (realised utility under common random numbers,
// the first all-model episode counted) of COSMOS and the baselines on Env-A and Env-B, mean and sd over
// seeds at T = 500 / 1000 / 2000 / 4000 (and 8000 where the row runs that long), calls per request, and for
// COSMOS the number of index fits summed over the seeds (exact against geometric refits). Seeded: the
// numbers do not depend on the machine, only the wall time does (several minutes; exact refits grow like t).
// Run after `npx tsup`: node bench/regret.mjs [--rows=known,greedy,...] (row keys are printed with each row).
// --smoke: every row once on one seed at a tenth of its horizon (the checkpoints scaled alike), to check that it runs.
import { logLogSlope, runOne } from "@routekit/core";
import { envA, envB } from "@routekit/environments";
import { Cosmos, OneShot, QueryAll, ThresholdCascade } from "../dist/index.js";

const arms = ["box1", "box2", "box3"];
const a = { arms, contextDim: 2, outputDim: 4, indexLink: "linear" };
const knownA = { ...a, rewardParameter: [1, 0, 0, 0] };
/** The baselines' options: they have no index link (and refuse unknown options). */
const { indexLink: _link, ...baselineA } = knownA;
const b = { arms, contextDim: 2, outputDim: 3, indexLink: "tanh", rewardLink: "logistic" };
const knownB = { ...b, rewardParameter: [1.5, -1, 0.5] };
const seeds = (n) => Array.from({ length: n }, (_, i) => i);
const cosmos = (o) => (T) => new Cosmos({ ...o, horizon: T });

const rows = [
  {
    key: "known",
    label: "COSMOS known reward, s = 0.5, exact refits",
    env: envA,
    n: 10,
    T: 4000,
    make: cosmos({ ...knownA, exploration: 0.5, refit: "exact" }),
  },
  {
    key: "known",
    label: "COSMOS known reward, s = 0.5, geometric refits",
    env: envA,
    n: 10,
    T: 4000,
    make: cosmos({ ...knownA, exploration: 0.5 }),
  },
  {
    key: "known1",
    label: "COSMOS known reward, s = 1.0 (geometric)",
    env: envA,
    n: 10,
    T: 4000,
    make: cosmos({ ...knownA, exploration: 1 }),
  },
  {
    key: "greedy",
    label: "greedy (s = 0), known reward, geometric",
    env: envA,
    n: 20,
    T: 8000,
    make: cosmos({ ...knownA, exploration: 0 }),
  },
  {
    key: "greedy",
    label: "greedy (s = 0), known reward, exact refits",
    env: envA,
    n: 20,
    T: 8000,
    make: cosmos({ ...knownA, exploration: 0, refit: "exact" }),
  },
  {
    key: "greedy",
    label: "COSMOS known reward, s = 0.5, geometric, T = 8000",
    env: envA,
    n: 20,
    T: 8000,
    make: cosmos({ ...knownA, exploration: 0.5 }),
  },
  {
    key: "baselines",
    label: "one-shot LinUCB",
    env: envA,
    n: 10,
    T: 4000,
    make: () => new OneShot({ arms, contextDim: 2, outputDim: 4 }),
  },
  {
    key: "baselines",
    label: "call-all (known reward)",
    env: envA,
    n: 10,
    T: 4000,
    make: () => new QueryAll(baselineA),
  },
  {
    key: "baselines",
    label: "threshold cascade 0.7 (known reward)",
    env: envA,
    n: 10,
    T: 4000,
    make: () => new ThresholdCascade({ ...baselineA, threshold: 0.7 }),
  },
  {
    key: "learned",
    label: "COSMOS learned reward, s = 0.5, exact",
    env: envA,
    n: 3,
    T: 4000,
    make: cosmos({ ...a, exploration: 0.5, refit: "exact" }),
  },
  {
    key: "learned",
    label: "COSMOS learned reward, s = 0.5, geometric",
    env: envA,
    n: 10,
    T: 4000,
    make: cosmos({ ...a, exploration: 0.5 }),
  },
  {
    key: "learned",
    label: "COSMOS learned reward, s = 0.25, exact",
    env: envA,
    n: 3,
    T: 4000,
    make: cosmos({ ...a, exploration: 0.25, refit: "exact" }),
  },
  {
    key: "learned",
    label: "COSMOS learned reward, s = 0.25, geometric, T = 8000",
    env: envA,
    n: 10,
    T: 8000,
    make: cosmos({ ...a, exploration: 0.25 }),
  },
  {
    key: "envb",
    label: "Env-B: COSMOS known reward, s = 0.5, geometric",
    env: envB,
    n: 5,
    T: 4000,
    make: cosmos({ ...knownB, exploration: 0.5 }),
  },
  {
    key: "envb",
    label: "Env-B: COSMOS known reward, s = 0.5, exact",
    env: envB,
    n: 2,
    T: 4000,
    make: cosmos({ ...knownB, exploration: 0.5, refit: "exact" }),
  },
];

const smoke = process.argv.includes("--smoke");
const rowArg = process.argv.find((x) => x.startsWith("--rows="));
const keys = rowArg ? new Set(rowArg.slice(7).split(",")) : null;
const f1 = (v) => v.toFixed(1);
const meanOf = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const sdOf = (xs) =>
  xs.length < 2 ? 0 : Math.sqrt(xs.reduce((s, x) => s + (x - meanOf(xs)) ** 2, 0) / (xs.length - 1));

console.log(`pandora regret tables (node ${process.version}, ${new Date().toISOString()})`);
for (const row of rows) {
  if (keys && !keys.has(row.key)) continue;
  const scale = smoke ? 10 : 1;
  const T = row.T / scale;
  const n = smoke ? 1 : row.n;
  const marks = [500, 1000, 2000, 4000, 8000].filter((t) => t <= row.T).map((t) => t / scale);
  const perSeed = [];
  let calls = 0;
  let fits = 0;
  for (const seed of seeds(n)) {
    let policy;
    const create = () => {
      policy = row.make(T);
      return policy;
    };
    const experiment = {
      protocol: "cascade",
      environment: () => row.env(),
      policies: [{ label: "p", create }],
      seeds: [seed],
      horizon: T,
      points: row.T / 500,
    };
    const r = runOne(experiment, 0, seed);
    perSeed.push(marks.map((m) => r.series.regret[r.series.t.indexOf(m)]));
    calls += r.final.queriesPerRound / n;
    if (policy instanceof Cosmos) fits += policy.fitStats.fits;
  }
  const means = marks.map((_, i) => meanOf(perSeed.map((s) => s[i])));
  const sds = marks.map((_, i) => sdOf(perSeed.map((s) => s[i])));
  const slope = logLogSlope(marks.slice(0, 4), means.slice(0, 4));
  console.log(`[${row.key}] ${row.label}, seeds 0-${n - 1}`);
  console.log(
    `   R at ${marks.join(" / ")}: ${means.map(f1).join(" / ")} (sd ${sds.map(f1).join(" / ")}); slope over [500, 4000] ${slope.toFixed(2)}`,
  );
  console.log(`   calls per request ${calls.toFixed(2)}${policy0(fits)}`);
  if (row.T >= 8000) {
    const last = marks.length - 1;
    const growth = perSeed.map((s) => s[last] - s[last - 1]);
    const stuck = growth.filter((g) => g > 0.01 * (marks[last] - marks[last - 1])).length;
    console.log(
      `   slope of the mean over [4000, 8000] ${(Math.log(means[last] / means[last - 1]) / Math.log(2)).toFixed(2)}; seeds whose regret grew by more than 0.01 per request over (4000, 8000]: ${stuck} of ${n} (growth per seed ${growth.map((g) => g.toFixed(0)).join(", ")})`,
    );
  }
}

function policy0(fits) {
  return fits > 0 ? `; index fits summed over the seeds ${fits}` : "";
}
