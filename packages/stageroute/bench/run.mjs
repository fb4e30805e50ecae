// StageRoute speed: RouteOPT per query (2..10 deployed models), DeployOPT per stage boundary (15 and
// 50 available models, each solver path), a pool-size sweep (100, 500, 2,000 models: a stage boundary and
// a routing round of StageRoute and of RatioGreedy; StageRoute also on mixed caps, where DeployOPT runs its
// branch-and-bound), DeployOPT's ways out of a slow branch-and-bound (searchNodeLimit, the HiGHS
// deploySolver) on rate-limited pools, and a 10^6-query simulation end to end.
// Usage: pnpm bench (node --expose-gc bench/run.mjs [--quick] [--sweep] [--rate] [--solvers]: --sweep runs the
// sweep only, --rate only its rate-limited StageRoute case, --solvers only the solver comparison).
// Imports the built ../dist/index.js (and ../dist/highs.js for the solver comparison).
// --smoke (with or without the others): every part on small pools and short batches, no results file written.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeSnapshot, Rng } from "@routekit/core";
import { arenaSim2025 } from "@routekit/environments";

// STAGEROUTE_DIST=<path to a build's index.js> times another build (e.g. the previous version) instead.
const { DeploySolver, RatioGreedy, RouteSolver, STAGE_PRESETS, StageRoute, stageValue } = await import(
  process.env.STAGEROUTE_DIST ?? "../dist/index.js"
);

const quick = process.argv.includes("--quick");
const smoke = process.argv.includes("--smoke");
const rateOnly = process.argv.includes("--rate");
const solversOnly = process.argv.includes("--solvers");
const sweepOnly = rateOnly || solversOnly || process.argv.includes("--sweep");
const rows = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Machine speed right now: a fixed 2025 multiply-add loop (about 0.5-1 us on an idle modern core).
function calibrate() {
  const a = new Float64Array(45).map((_, i) => (i + 1) / 45);
  const us = [];
  let s = 0;
  for (let r = 0; r < (smoke ? 3 : 21); r++) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < 2000; k++) for (let i = 0; i < 45; i++) for (let j = 0; j < 45; j++) s += a[i] * a[j];
    us.push(Number(process.hrtime.bigint() - t0) / 1000 / 2000);
  }
  if (s === 0) console.log(s);
  return median(us);
}
const calib = calibrate();

if (!sweepOnly) {
  // ---------------------------------------------------------------- RouteOPT per query
  // Independent random instances, bounds drawn like a live deployment: UCB in [0.3, 1], LCB in [0.1, 3]
  // (budget 1 in cost units), caps 0.4 (one 1.0). 65,536 of them per n, cycled: with a few hundred the
  // branch predictor learns the whole sequence and the time comes out too low.
  const ROUTE_INSTANCES = smoke ? 1024 : 65_536;
  const rng = Rng.fromSeed("bench");
  const TARGET_ROUTE_US = 2;
  for (const n of [2, 3, 4, 5, 6, 7, 8, 9, 10]) {
    const inst = Array.from({ length: ROUTE_INSTANCES }, () => ({
      u: Float64Array.from({ length: n }, () => 0.3 + 0.7 * rng.uniform()),
      c: Float64Array.from({ length: n }, () => 0.1 + 2.9 * rng.uniform()),
      a: Float64Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0.4)),
    }));
    const solver = new RouteSolver(n);
    const out = new Float64Array(n);
    const batch = smoke ? 100 : quick ? 2000 : 20000;
    let k = 0;
    for (let i = 0; i < batch; i++, k++) {
      const x = inst[k & (ROUTE_INSTANCES - 1)];
      solver.solve(x.u, x.c, x.a, n, 1, out);
    }
    const us = [];
    const cpu = [];
    for (let r = 0; r < 21; r++) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batch; i++, k++) {
        const x = inst[k & (ROUTE_INSTANCES - 1)];
        solver.solve(x.u, x.c, x.a, n, 1, out);
      }
      us.push(Number(process.hrtime.bigint() - t0) / 1000 / batch);
      const dc = process.cpuUsage(c0);
      cpu.push((dc.user + dc.system) / batch);
    }
    const m = median(us);
    rows.push({
      bench: "RouteOPT per query",
      size: `n=${n}`,
      us: m,
      minUs: Math.min(...us),
      cpuUs: median(cpu),
      target: TARGET_ROUTE_US,
      ok: m < TARGET_ROUTE_US,
    });
  }

  // Live routing: one model's bounds move a little per query (as after one feedback); the same instance
  // over and over is kinder to the branch predictor than independent ones.
  for (const n of [6, 10]) {
    const u = Float64Array.from({ length: n }, () => 0.3 + 0.7 * rng.uniform());
    const c = Float64Array.from({ length: n }, () => 0.1 + 2.9 * rng.uniform());
    const a = Float64Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0.4));
    const u0 = u.slice();
    const c0 = c.slice();
    const solver = new RouteSolver(n);
    const out = new Float64Array(n);
    const batch = smoke ? 100 : quick ? 2000 : 20000;
    const us = [];
    let k = 0;
    for (let r = 0; r < 22; r++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batch; i++, k++) {
        const j = k % n;
        u[j] = u0[j] + 0.01 * Math.sin(k);
        c[j] = c0[j] + 0.01 * Math.cos(k);
        solver.solve(u, c, a, n, 1, out);
      }
      if (r > 0) us.push(Number(process.hrtime.bigint() - t0) / 1000 / batch);
    }
    const m = median(us);
    rows.push({
      bench: "RouteOPT per query, live",
      size: `n=${n}`,
      us: m,
      minUs: Math.min(...us),
      target: TARGET_ROUTE_US,
      ok: m < TARGET_ROUTE_US,
    });
  }

  // ---------------------------------------------------------------- DeployOPT per stage boundary
  // Its own stream, so its instances do not depend on how many RouteOPT instances were drawn above.
  const deployRng = Rng.fromSeed("bench-deploy");
  function deployCase(label, N, s, cap, enumLimit) {
    const rng = deployRng;
    const inst = Array.from({ length: 16 }, () => {
      // A mid-run pool where better models cost more and the budget binds (the hard case for DeployOPT).
      const x = Float64Array.from({ length: N }, () => rng.uniform());
      const u = x.map((v) => 0.2 + 0.7 * v + 0.05 * rng.uniform());
      const c = x.map((v) => 0.05 + 3 * v * v + 0.1 * rng.uniform());
      const a = Float64Array.from({ length: N }, (_, i) => (i === 1 ? 1 : cap));
      return { u, c, a };
    });
    const solver = new DeploySolver(enumLimit);
    const order = Int32Array.from({ length: N }, (_, i) => i);
    const us = [];
    // The solver path is chosen per instance (the relaxation when its support fits the slots), so one case
    // mixes paths: the row of the case says how many instances each path solved, and one row per path gives
    // that path's own median.
    const byMethod = new Map();
    const reps = quick || smoke ? 1 : 5;
    for (let r = 0; r < reps; r++) {
      for (const x of inst) {
        const t0 = process.hrtime.bigint();
        const res = solver.solve(x.u, x.c, x.a, N, 1, s, order);
        const t = Number(process.hrtime.bigint() - t0) / 1000;
        us.push(t);
        if (!byMethod.has(res.method)) byMethod.set(res.method, []);
        byMethod.get(res.method).push(t);
      }
    }
    const mix = [...byMethod].map(([m, ts]) => `${m} ${ts.length / reps}`).join(", ");
    rows.push({
      bench: "DeployOPT per boundary",
      size: label,
      us: median(us),
      note: `all 16 instances (${mix}), max ${(Math.max(...us) / 1000).toFixed(1)} ms`,
    });
    if (byMethod.size > 1)
      for (const [m, ts] of byMethod)
        rows.push({
          bench: "  DeployOPT, one path",
          size: `${label}: ${m}`,
          us: median(ts),
          note: `${ts.length / reps} of 16 instances, max ${(Math.max(...ts) / 1000).toFixed(1)} ms`,
        });
  }
  deployCase("N=15, M_max=6, caps 0.4", 15, 6, 0.4, 50_000);
  deployCase("N=15, M_max=3, caps 0.4", 15, 3, 0.4, 50_000);
  deployCase("N=15, M_max=5, caps 0.2", 15, 5, 0.2, 50_000);
  deployCase("N=15, M_max=5, caps 0.2 (B&B)", 15, 5, 0.2, 0);
  deployCase("N=50, M_max=6, caps 0.4", 50, 6, 0.4, 50_000);
  deployCase("N=50, M_max=3, caps 0.4", 50, 3, 0.4, 50_000);
  deployCase("N=50, M_max=5, caps 0.2 (B&B)", 50, 5, 0.2, 50_000);
}

// ---------------------------------------------------------------- pool-size sweep
// A stage boundary (the feedback that ends a stage, with the deployment; the second after a restore) and a routing round (select + update
// inside a stage) over pools of 100, 500 and 2,000 models with learned statistics (5..204 plays each;
// better models cost more). StageRoute: caps 0.4 (DeployOPT by its relaxation). RatioGreedy: rate-limited
// pools, the cheap models (high UCB/LCB ratio) capped at 0.05, one in ten (the dearest) at 0.5, so the
// greedy passes over many cheap models before a slot needs a large cap (the case that was O(n^2 log n)).
// StageRoute on mixed caps: 0.2, one model 1.0, M_max 5: the relaxation's support exceeds the slots, so
// DeployOPT runs its branch-and-bound (LP bounds over the whole pool at every node). StageRoute on the
// rate-limited pools too (caps 0.05, one in ten 0.5, M_max 4; 50 and 100 models): no 4 models meet the
// budget, so DeployOPT runs three searches (no subset within budget, the cheapest reach, the best within it).
function sweepPool(Cls, n, s, caps, config = {}) {
  const rng = Rng.fromSeed(`sweep-${n}-${s}`);
  const L = 200;
  const arms = Array.from({ length: n }, (_, i) => `m${i}`);
  const q = arms.map(() => rng.uniform());
  const maxShare = {};
  arms.forEach((a, i) => {
    maxShare[a] = caps === "rate" ? (q[i] > 0.9 ? 0.5 : 0.05) : caps === "mixed" ? (i === 1 ? 1 : 0.2) : 0.4;
  });
  const p = new Cls({ arms, budget: 1, maxDeployed: s, stageLength: L, maxShare, seed: 1 });
  const snap = p.toJSON();
  const st = structuredClone(snap.state);
  let counted = 0;
  st.arms.forEach((a, i) => {
    a.n = 5 + rng.int(200);
    a.sr = a.n * (0.2 + 0.7 * q[i]) * (0.9 + 0.1 * rng.uniform());
    a.sc = a.n * (0.05 + 3 * q[i] * q[i] + 0.1 * rng.uniform());
    counted += a.n;
  });
  // At least the arms' counts (restore refuses fewer: every count was a learned feedback), one short of a stage
  // boundary, so that the next feedback ends the stage. With the default average budget nothing else reads it.
  st.learned = Math.ceil((counted + 1) / L) * L - 1;
  Object.assign(st.config, config);
  return { snapshot: makeSnapshot(snap.kind, snap.kindVersion, st), L };
}
const sweepBase = new Map();
const capsLabel = { rate: "caps 0.05/0.5", flat: "caps 0.4", mixed: "caps 0.2, one 1.0" };
for (const [Cls, label, caps, slots, sizes] of [
  [RatioGreedy, "RatioGreedy", "rate", [4, 16]],
  [StageRoute, "StageRoute", "flat", [4, 16]],
  [StageRoute, "StageRoute", "mixed", [5]],
  [StageRoute, "StageRoute", "rate", [4], [50, 50, 100]],
]) {
  if (solversOnly || (rateOnly && !(Cls === StageRoute && caps === "rate"))) continue;
  for (const s of slots) {
    // A first pass over the smallest pool warms the JIT up (not recorded).
    for (const [w, n] of (smoke ? [50, 50, 100] : (sizes ?? [100, 100, 500, 2000])).entries()) {
      const { snapshot, L } = sweepPool(Cls, n, s, caps);
      const boundary = [];
      const round = [];
      let method = "";
      // Branch-and-bound boundaries take up to seconds at 2,000 models: fewer repetitions there.
      const bnb = Cls === StageRoute && caps !== "flat";
      const reps = smoke ? 1 : quick ? 3 : bnb ? (n >= 2000 ? 5 : n >= 500 ? 9 : 15) : n >= 2000 ? 9 : 15;
      for (let r = 0; r < reps + 1; r++) {
        const p = Cls.fromJSON(snapshot);
        // Nodes over all of a boundary's branch-and-bound searches.
        let nodes = 0;
        let searches = 0;
        const search = p.deploySolver?.search;
        if (search !== undefined) {
          const solve = search.solve;
          search.solve = function (...args) {
            const found = solve.apply(this, args);
            nodes += this.nodes;
            searches++;
            return found;
          };
        }
        // The first boundary after a restore also sizes the solvers' buffers: time the next one.
        p.update(p.select(), { reward: 0.5, cost: 0.5 });
        const t1 = process.hrtime.bigint();
        for (let t = 1; t < L; t++) p.update(p.select(), { reward: 0.5, cost: 0.5 });
        const tr = Number(process.hrtime.bigint() - t1) / 1000 / (L - 1);
        const d = p.select();
        nodes = 0;
        searches = 0;
        const t0 = process.hrtime.bigint();
        p.update(d, { reward: 0.5, cost: 0.5 });
        const tb = Number(process.hrtime.bigint() - t0) / 1000;
        method = p.deployment?.method ?? "";
        if (p.deployment?.status === "budget-relaxed") method += " (budget-relaxed)";
        if (method.startsWith("branch-and-bound")) {
          method += ` (${nodes} nodes${searches > 1 ? ` over ${searches} searches` : ""})`;
        }
        if (r > 0) {
          // The first repetition warms the JIT up.
          boundary.push(tb);
          round.push(tr);
        }
      }
      if (w === 0) continue;
      const key = `${label} ${s} ${caps}`;
      const mb = median(boundary);
      const mr = median(round);
      if (w === 1) sweepBase.set(key, [mb, mr]);
      const [b0, r0] = sweepBase.get(key);
      const n0 = smoke ? 50 : (sizes ?? [100, 100])[1];
      rows.push({
        bench: `sweep: ${label} boundary`,
        size: `n=${n}, M_max=${s}, ${capsLabel[caps]}`,
        us: mb,
        note: `${method}; x${(mb / b0).toFixed(1)} of n=${n0} (n x${n / n0}); max ${(Math.max(...boundary) / 1000).toFixed(2)} ms`,
      });
      rows.push({
        bench: `sweep: ${label} round`,
        size: `n=${n}, M_max=${s}`,
        us: mr,
        note: `select + update inside a stage; x${(mr / r0).toFixed(1)} of n=${n0}`,
      });
    }
  }
}

// ---------------------------------------------------------------- solvers: built-in, node-limited, HiGHS
// The first stage boundary after restoring the sweep's rate-limited pools (caps 0.05, one in ten 0.5) at 50,
// 100 and 500 models, M_max 4 (no 4 models meet the budget: three searches) and 16 (within budget): the
// built-in branch-and-bound, the same with searchNodeLimit 2,000 and 20,000 (search-tree nodes), and the HiGHS
// deploySolver; the note gives each deployment's value against HiGHS's optimum (and its budget where it is not
// HiGHS's), and at the limit the improvement phase's work units (DeploySolver.improveEvals).
// The built-in search is not run where it takes over a minute (100 and 500 models at M_max 16).
// Not with STAGEROUTE_DIST: builds before these options have neither.
if (!rateOnly && (solversOnly || !sweepOnly) && !process.env.STAGEROUTE_DIST) {
  const { highsDeploySolver } = await import("../dist/highs.js");
  const highs = await highsDeploySolver();
  const boundary = (n, s, config, solver) => {
    const { snapshot } = sweepPool(StageRoute, n, s, "rate", config);
    const p = StageRoute.fromJSON(snapshot, solver ? { deploySolver: highs } : undefined);
    // The boundary's DeployResult, for its budget (a budget-relaxed or node-limited one may differ).
    let last;
    const solve = p.deploySolver.solve;
    p.deploySolver.solve = function (...args) {
      last = solve.apply(this, args);
      return last;
    };
    const d = p.select();
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    p.update(d, { reward: 0.5, cost: 0.5 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const { nodes, visits, improveEvals } = p.deploySolver;
    return { ms, nodes, visits, improveEvals, budget: last.budget, d: p.deployment };
  };
  // JIT warm-up on a small pool, each path once (not recorded).
  boundary(30, 4, {});
  boundary(30, 4, { searchNodeLimit: 2000 });
  boundary(30, 4, { deploySolver: "highs" }, true);
  for (const s of [4, 16]) {
    for (const n of smoke ? [50] : [50, 100, 500]) {
      const best = boundary(n, s, { deploySolver: "highs" }, true);
      const optimum = best.d.value;
      const cases = [
        ["HiGHS", { deploySolver: "highs" }, true],
        ["searchNodeLimit 2,000", { searchNodeLimit: 2000 }],
        ["searchNodeLimit 20,000", { searchNodeLimit: 20000 }],
      ];
      // (--smoke: not at M_max 16, where it takes seconds even at 50 models)
      if (s === 4 || (n === 50 && !smoke)) cases.push(["built-in", {}]);
      for (const [label, config, solver] of cases) {
        // Seconds per boundary for the built-in search: one run; the others the median of 3.
        const reps = quick || smoke || label === "built-in" ? 1 : 3;
        const runs = Array.from({ length: reps }, () => boundary(n, s, config, solver));
        const ms = median(runs.map((r) => r.ms));
        const { nodes, visits, improveEvals, budget, d } = runs[0];
        const gap = ((optimum - d.value) / optimum) * 100;
        // A value is comparable only under the same budget: say so when it is not HiGHS's.
        const over = ((budget - best.budget) / best.budget) * 100;
        const spend = Math.abs(over) <= 1e-7 ? "" : `, budget ${over > 0 ? "+" : ""}${over.toFixed(2)}% of HiGHS's`;
        const improved = improveEvals > 0 ? `, ${improveEvals} improvement units` : "";
        rows.push({
          bench: `solvers: ${label}`,
          size: `n=${n}, M_max=${s}, caps 0.05/0.5`,
          us: ms * 1000,
          note: `${d.status} ${d.method}, ${visits} search-tree nodes (${nodes} bounded)${improved}, value ${d.value.toFixed(4)} (${gap <= 1e-9 ? "optimal" : `${gap.toFixed(2)}% below HiGHS`}${spend})`,
        });
      }
    }
  }
}

// ---------------------------------------------------------------- 10^6-query simulation
if (!sweepOnly) {
  const T = smoke ? 5000 : quick ? 100_000 : 1_000_000;
  const env = arenaSim2025({ oracle: stageValue, stageLength: 1000, maxDeployed: 6, arrivalInterval: T / 10 });
  env.reset(Rng.fromSeed(1).fork("environment"));
  const p = new StageRoute({
    ...STAGE_PRESETS["arena2025-paper"],
    arms: env.initialArms,
    maxDeployed: 6,
    stageLength: 1000,
    maxShare: env.maxShares,
    seed: 1,
  });
  globalThis.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  let regret = 0;
  const t0 = process.hrtime.bigint();
  for (let t = 0; t < T; t++) {
    const round = env.next(t);
    if (round.arrivals) for (const a of round.arrivals) p.addArm(a);
    const d = p.select();
    p.update(d, env.pull(d.arm));
    regret += env.oracleReward() - env.expectedReward(d.arm);
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  globalThis.gc?.();
  rows.push({
    bench: "simulation end to end",
    size: `T=${T}, L=1000, M_max=6`,
    us: (s * 1e6) / T,
    note: `${s.toFixed(2)} s total, regret ${regret.toFixed(0)}, heap +${((process.memoryUsage().heapUsed - heap0) / 1e6).toFixed(1)} MB`,
  });
}

const pad = (s, n) => String(s).padEnd(n);
console.log(
  `stageroute bench, node ${process.version}; machine calibration: 2025 multiply-adds take ${calib.toFixed(2)} us (shared machine: numbers are noisy)`,
);
console.log(pad("bench", 26) + pad("size", 50) + pad("median us", 12) + "note / target");
for (const r of rows) {
  const v = Number.isFinite(r.us) ? (r.us < 10 ? r.us.toFixed(3) : r.us.toFixed(1)) : "-";
  const note =
    r.target !== undefined
      ? `target < ${r.target} us: ${r.ok ? "ok" : "MISSED"} (min ${r.minUs.toFixed(3)}${r.cpuUs === undefined ? "" : `, process CPU time ${r.cpuUs.toFixed(3)}`})`
      : (r.note ?? "");
  console.log(pad(r.bench, 26) + pad(r.size, 50) + pad(v, 12) + note);
}
const out = join(dirname(fileURLToPath(import.meta.url)), "results", "latest.json");
if (!smoke) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, calibrationUs: calib, rows }, null, 1)}\n`,
  );
}
