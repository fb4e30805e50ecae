// Per-round time of OFU-MNL+ (flat in t) and of the MLE baselines (growing with t), the paper's setup:
// N = 100 items, d = 5, clipped-normal features redrawn each round, w* in the box.
// Run: pnpm bench (node --expose-gc bench/run.mjs) after `npx tsup`. Numbers are wall-clock: on a
// shared machine they are noisy; the targets are printed and checked here, never in unit tests.
// Reference figures: the authors' code, timing only their select and update calls, measured side by
// side with RouteKit on a 2-core EPYC, Node 20, single-thread OpenBLAS (median of 3 alternating pairs).
// --smoke: T = 300 and a 1,000-round steady state, no results file written (to check that it runs).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { windowTimeText } from "../../../scripts/core-probe.mjs";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../dist/index.js";
import { ofuSteadyState } from "./ofu-steady.mjs";

const N = 100;
const d = 5;
const smoke = process.argv.includes("--smoke");
const T = smoke ? 300 : Number(process.env.BENCH_T ?? 3000);
const here = dirname(fileURLToPath(import.meta.url));

function makeRounds(seed, K, nonuniform) {
  const rng = Rng.fromSeed(seed);
  const b = 1 / Math.sqrt(d);
  const wStar = Float64Array.from({ length: d }, () => rng.uniformIn(-b, b));
  const rounds = [];
  for (let t = 0; t < T; t++) {
    const features = Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, rng.normal())));
    const q = { features, numItems: N, maxSize: K };
    if (nonuniform) q.revenues = Float64Array.from({ length: N }, () => rng.uniform());
    rounds.push(q);
  }
  return { rounds, wStar, choiceRng: rng.fork("choices") };
}

function choose(rng, q, items, wStar, v0) {
  const w = items.map((i) => {
    let u = 0;
    for (let k = 0; k < d; k++) u += q.features[i * d + k] * wStar[k];
    return Math.exp(u);
  });
  w.push(v0);
  const c = rng.categorical(w);
  return c === items.length ? null : items[c];
}

/** Plays T rounds; returns per-round microseconds (select + update) and heap growth. */
function play(policy, inst) {
  const us = new Float64Array(T);
  globalThis.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  for (let t = 0; t < T; t++) {
    const q = inst.rounds[t];
    const s = performance.now();
    const dec = policy.select(q);
    const mid = performance.now();
    const choice = choose(inst.choiceRng, q, dec.items, inst.wStar, policy.v0);
    const s2 = performance.now();
    policy.update(dec, { choice });
    us[t] = 1000 * (mid - s + performance.now() - s2);
  }
  globalThis.gc?.();
  const heap1 = process.memoryUsage().heapUsed;
  return { us, heapPerRound: (heap1 - heap0) / T };
}

const windowMean = (us, a, b) => {
  let s = 0;
  for (let t = a; t < b; t++) s += us[t];
  return s / (b - a);
};
// Medians per window: robust to the preemptions of a shared machine (means are reported too).
const windowMedian = (us, a, b) => {
  const w = Array.from(us.subarray(a, b)).sort((x, y) => x - y);
  return w[Math.floor(w.length / 2)];
};
// Reference per-round times (ms) of the authors' code, timing only their select and update calls, measured
// side by side with RouteKit on a 2-core EPYC, Node 20, single-thread OpenBLAS: OFU-MNL+ 0.083 ms flat in
// t; UCB-MNL / TS-MNL 3.1-3.4 ms at t = 150 and 13 ms at t = 3000. No other points were measured.
const REF = { ofu: 0.083, mle150lo: 3.1, mle150hi: 3.4, mle3000: 13 };
const REF_NOTE =
  "reference: the authors' code (select + update calls only), measured on a 2-core EPYC, Node 20, single-thread OpenBLAS: " +
  "OFU-MNL+ 0.083 ms flat; UCB-MNL / TS-MNL 3.1-3.4 ms at t = 150, 13 ms at t = 3000";
/** "a-b" for a range of ratios, one number when they agree to the printed precision. */
const ratioText = (lo, hi) => (lo.toFixed(1) === hi.toFixed(1) ? lo.toFixed(1) : `${lo.toFixed(1)}-${hi.toFixed(1)}`);

const cases = [
  {
    name: "OFU-MNL+ authors-uniform K=15 uniform",
    K: 15,
    make: () => new OfuMnlPlus({ contextDim: d, maxSize: 15, preset: "authors-uniform" }),
    ofu: true,
  },
  {
    name: "OFU-MNL+ paper K=15 uniform",
    K: 15,
    make: () => new OfuMnlPlus({ contextDim: d, maxSize: 15, preset: "paper" }),
    ofu: true,
  },
  {
    name: "OFU-MNL+ practical K=15 uniform",
    K: 15,
    make: () => new OfuMnlPlus({ contextDim: d, maxSize: 15, preset: "practical" }),
    ofu: true,
  },
  {
    name: "OFU-MNL+ authors-nonuniform K=15 (Dinkelbach)",
    K: 15,
    nonuniform: true,
    make: () => new OfuMnlPlus({ contextDim: d, maxSize: 15, preset: "authors-nonuniform" }),
    ofu: true,
  },
  { name: "UCB-MNL K=15 uniform", K: 15, make: () => new UcbMnl({ contextDim: d, maxSize: 15 }) },
  { name: "TS-MNL K=15 uniform", K: 15, make: () => new TsMnl({ contextDim: d, maxSize: 15, seed: 1 }) },
].filter((c) => !process.env.BENCH_ONLY || c.name.includes(process.env.BENCH_ONLY));

const rows = [];
const checks = [];
let steady = null;
const a = Math.min(100, T - 1);
const late = Math.max(a + 1, T - 100);
for (const c of cases) {
  const inst = makeRounds(7, c.K, c.nonuniform);
  // warm-up run for the JIT on OFU (cheap); the baselines are measured cold to keep the bench short
  if (c.ofu) play(c.make(), makeRounds(8, c.K, c.nonuniform));
  const { us, heapPerRound } = play(c.make(), inst);
  const early = windowMedian(us, a, Math.min(200, T));
  const at150 = windowMedian(us, Math.min(100, T - 1), Math.min(200, T));
  const mid = windowMedian(us, Math.floor(T / 2) - 50, Math.floor(T / 2) + 50);
  const end = windowMedian(us, late, T);
  const all = windowMean(us, 0, T);
  rows.push({
    case: c.name,
    "median us t=100-200": early,
    "median us mid": mid,
    "median us last 100": end,
    "mean us all": all,
    "late/early": end / early,
    "heap B/round": heapPerRound,
    "ratio ref/RouteKit": c.ofu
      ? `${((REF.ofu * 1000) / end).toFixed(1)} (last 100)`
      : `${ratioText((REF.mle150lo * 1000) / at150, (REF.mle150hi * 1000) / at150)} at t=150` +
        (T >= 3000 ? `, ${((REF.mle3000 * 1000) / end).toFixed(1)} at t=3000` : ""),
  });
  if (c.ofu && !c.nonuniform && c.name.includes("authors")) {
    checks.push({
      target: `OFU-MNL+ (N=100, d=5, K=15, uniform) <= 4 us/round at t ~ ${T} (20x the reference ${REF.ofu * 1000} us)`,
      value: end,
      pass: end <= 4,
    });
    checks.push({
      target: "OFU-MNL+ ratio reference / RouteKit (target >= 20)",
      value: (REF.ofu * 1000) / end,
      pass: (REF.ofu * 1000) / end >= 20,
    });
    checks.push({
      target: "OFU-MNL+ flat in t: last-100 / [100,200) <= 1.5",
      value: end / early,
      pass: end / early <= 1.5,
    });
    // On a VM whose core the host sometimes shares (SMT), the rows above mix two speeds about 1.7x apart;
    // a longer run split by a core probe tells the host's slow state from a regression.
    steady = ofuSteadyState({ preset: "authors-uniform", T: smoke ? 1000 : 20000 });
    const share = `${Math.round(100 * steady.unsharedShare)}% of its rounds`;
    console.log(
      `OFU-MNL+ authors-uniform steady state (20,000 rounds, second half), median per round: ${steady.all.toFixed(2)} us; ` +
        `in windows on an unshared core (${share}): ${windowTimeText(steady.unshared)}; ` +
        `on a shared core: ${windowTimeText(steady.shared)}`,
    );
    // Not measurable when the host shared the core for the whole loop: reported as such, not as a failure.
    checks.push({
      target: `OFU-MNL+ <= 4 us/round on an unshared core (steady state, ${share} of the run unshared)`,
      value: steady.unshared,
      pass: steady.unshared <= 4,
      ...(Number.isNaN(steady.unshared) ? { status: "N/A " } : {}),
    });
  }
  if (!c.ofu) {
    const who = c.name.split(" ")[0];
    // Checked against the low end of the measured 3.1-3.4 ms, so a pass holds for the whole range.
    checks.push({
      target: `${who} ratio reference / RouteKit at t ~ 150 (reference ${REF.mle150lo}-${REF.mle150hi} ms; target >= 10 against ${REF.mle150lo} ms)`,
      value: (REF.mle150lo * 1000) / at150,
      pass: (REF.mle150lo * 1000) / at150 >= 10,
    });
    if (T >= 3000) {
      checks.push({
        target: `${who} ratio reference / RouteKit at t ~ 3000 (reference ${REF.mle3000} ms; target >= 10, i.e. <= 1300 us)`,
        value: (REF.mle3000 * 1000) / end,
        pass: (REF.mle3000 * 1000) / end >= 10,
      });
    }
  }
  // Per-round time over t (median per window of 100 rounds), to read the growth in t, with the ratio to
  // the reference wherever a reference figure was measured (OFU-MNL+: every t; the baselines: t = 150, 3000).
  const over = [];
  const step = Math.max(100, Math.floor(T / 10 / 100) * 100);
  const starts = [];
  for (let w = 0; w + 100 <= T; w += step) starts.push(w);
  if (T >= 200 && !starts.includes(100)) starts.splice(1, 0, 100);
  if (T >= 3000 && !starts.includes(2900)) starts.push(2900);
  for (const w of starts) {
    const m = windowMedian(us, w, w + 100);
    let r = "";
    if (c.ofu) r = ` (ref/RK ${((REF.ofu * 1000) / m).toFixed(1)})`;
    else if (w === 100) r = ` (ref/RK ${ratioText((REF.mle150lo * 1000) / m, (REF.mle150hi * 1000) / m)})`;
    else if (w === 2900) r = ` (ref/RK ${((REF.mle3000 * 1000) / m).toFixed(1)})`;
    over.push(`t=${w}-${w + 100}: ${m.toFixed(1)} us${r}`);
  }
  console.log(`${c.name}: per-round median per window: ${over.join(", ")}`);
}

const fmt = (v) => (typeof v === "number" ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2)) : v);
console.log(`\n@routekit/mnl per-round time (select + update), N = ${N}, d = ${d}, T = ${T}; ${REF_NOTE}\n`);
console.table(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fmt(v)]))));
console.log("\nTargets:");
for (const c of checks) {
  const status = c.status ?? (c.pass ? "PASS" : "FAIL");
  console.log(`  ${status}  ${c.target}: ${Number.isNaN(c.value) ? "no unshared window in this run" : fmt(c.value)}`);
}
if (!smoke) {
  mkdirSync(join(here, "results"), { recursive: true });
  writeFileSync(
    join(here, "results", "latest.json"),
    JSON.stringify({ date: new Date().toISOString(), node: process.version, N, d, T, rows, checks, steady }, null, 2),
  );
  console.log("\nwrote bench/results/latest.json");
}
