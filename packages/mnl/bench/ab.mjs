// Interleaved A/B of two builds of this package in ONE process (for a shared, loaded machine: both
// builds see the same load, and the ratio is what counts). CPU time (process.cpuUsage), not wall time.
//   node bench/ab.mjs [baseRef=main]        # base: packages/mnl/src at a git ref; new: the working tree
//   CASE=ofu|ucb|ts ROUNDS=... node bench/ab.mjs
//   CASE=pass T=3000 node bench/ab.mjs    # the MLE gradient and Hessian passes alone, over UCB-MNL's history at t = T
// Each build is bundled by esbuild with its own copy of @routekit/core and @routekit/linalg, so the two
// never share JIT feedback. Both play the same rounds and choices; the final estimates are compared bit
// for bit (a speed-up that changes the numerics shows up as "estimates differ").
// --smoke: base = HEAD, every CASE (unless one is set) on a few rounds, in bench/results/ab-smoke (removed after).
import { execSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const smoke = process.argv.includes("--smoke");
const out = join(here, "results", smoke ? "ab-smoke" : "ab");
const ref = process.argv.slice(2).find((a) => a !== "--smoke") ?? (smoke ? "HEAD" : "main");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "base-src"), { recursive: true });
// The base sources live under the package (so @routekit/* resolve from its node_modules).
const baseSrc = join(out, "base-src");
execSync(`git archive ${ref} src | tar -x -C ${baseSrc}`, { cwd: pkg });
const bundle = (entry, file) =>
  build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", outfile: file, logLevel: "error" });
await bundle(join(baseSrc, "src", "index.ts"), join(out, "base.mjs"));
await bundle(join(pkg, "src", "index.ts"), join(out, "new.mjs"));
await bundle(join(baseSrc, "src", "mle.ts"), join(out, "base-mle.mjs"));
await bundle(join(pkg, "src", "mle.ts"), join(out, "new-mle.mjs"));
const A = await import(join(out, "base.mjs"));
const B = await import(join(out, "new.mjs"));

const N = 100;
const d = 5;
const K = 15;
let kase = process.env.CASE ?? "ofu";
const kases = smoke && !process.env.CASE ? ["ofu", "ucb", "ts", "pass"] : [kase];

/** Deterministic rounds (a small LCG: no dependency on either build's Rng). */
function makeRounds(T, seed) {
  let s = seed >>> 0;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const b = 1 / Math.sqrt(d);
  const wStar = Float64Array.from({ length: d }, () => (2 * u() - 1) * b);
  const rounds = [];
  for (let t = 0; t < T; t++) {
    // The paper's features: N(0, 1) clipped coordinate-wise to +-1/sqrt(d) (Box-Muller).
    const features = Float64Array.from({ length: N * d }, () => {
      const g = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
      return Math.max(-b, Math.min(b, g));
    });
    const q = { features, numItems: N, maxSize: K };
    // NONUNIFORM=1: revenues r ~ U(0, 1) (the Dinkelbach path of select).
    if (process.env.NONUNIFORM) q.revenues = Float64Array.from({ length: N }, () => u());
    rounds.push({ q, u: u() });
  }
  return { rounds, wStar };
}

function choice(r, items, wStar) {
  const f = r.q.features;
  const e = (i) => {
    let z = 0;
    for (let k = 0; k < d; k++) z += f[i * d + k] * wStar[k];
    return Math.exp(z);
  };
  let den = 1;
  for (let j = 0; j < items.length; j++) den += e(items[j]);
  let acc = 0;
  for (let j = 0; j < items.length; j++) {
    acc += e(items[j]) / den;
    if (r.u < acc) return items[j];
  }
  return null;
}

const make = (M) =>
  kase === "ucb"
    ? new M.UcbMnl({ contextDim: d, maxSize: K })
    : kase === "ts"
      ? new M.TsMnl({ contextDim: d, maxSize: K, seed: 1 })
      : new M.OfuMnlPlus({ contextDim: d, maxSize: K, preset: process.env.PRESET ?? "authors-uniform" });

function round(p, r, wStar) {
  const dec = p.select(r.q);
  p.update(dec, { choice: choice(r, dec.items, wStar) });
}

const cpu = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[s.length >> 1];
};
const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

for (kase of kases) {
  if (kase === "pass") {
    // One UCB-MNL run to t = T (new build) gives the history and estimate; then each build's gradient pass
    // and gradient-and-Hessian pass over all of it, alternating, CPU time per pass.
    const T = smoke ? 100 : Number(process.env.T ?? 3000);
    const { rounds, wStar } = makeRounds(T, 11);
    const p = new B.UcbMnl({ contextDim: d, maxSize: K });
    for (let t = 0; t < T; t++) round(p, rounds[t], wStar);
    const h = p.history;
    const theta = p.weights;
    const mods = { base: await import(join(out, "base-mle.mjs")), new: await import(join(out, "new-mle.mjs")) };
    const res = {};
    for (const which of ["gradient", "hessian"]) {
      const t = { base: [], new: [] };
      const outs = {};
      for (let rep = 0; rep < (smoke ? 4 : 120); rep++) {
        for (const k of rep % 2 ? ["base", "new"] : ["new", "base"]) {
          const L = mods[k];
          const ws = new L.MleWorkspace(d, K);
          const g = new Float64Array(d);
          const H = new Float64Array(d * d);
          const s = cpu();
          if (which === "gradient") L.gradientPass(h, 0, h.rounds, 1, theta, ws, g);
          else L.hessianPass(h, 0, h.rounds, 1, theta, ws, g, H);
          if (rep >= (smoke ? 2 : 20)) t[k].push(cpu() - s);
          outs[k] = [...g, ...H];
        }
      }
      const mb = median(t.base);
      const mn = median(t.new);
      res[which] = { mb, mn, same: same(outs.base, outs.new) };
      console.log(
        `${which} pass over ${h.rounds} rounds: base ${mb.toFixed(0)} us  new ${mn.toFixed(0)} us  base/new ${(mb / mn).toFixed(3)}  (${res[which].same ? "identical" : "DIFFERENT"} results)`,
      );
    }
  } else if (kase === "ofu") {
    // Warm both builds, then alternate chunks of rounds on two long-lived policies.
    const T = smoke ? 1600 : Number(process.env.ROUNDS ?? 40000);
    const chunk = 400;
    const { rounds, wStar } = makeRounds(T, 7);
    const pa = make(A);
    const pb = make(B);
    const ta = [];
    const tb = [];
    for (let c = 0; c + chunk <= T; c += chunk) {
      for (const [p, acc] of c % (2 * chunk) === 0
        ? [
            [pa, ta],
            [pb, tb],
          ]
        : [
            [pb, tb],
            [pa, ta],
          ]) {
        const s = cpu();
        for (let t = c; t < c + chunk; t++) round(p, rounds[t], wStar);
        if (c >= T / 4) acc.push((cpu() - s) / chunk);
      }
    }
    const ma = median(ta);
    const mb = median(tb);
    console.log(
      `${kase} ${process.env.PRESET ?? "authors-uniform"}: CPU us/round (median of ${ta.length} chunks after warm-up)`,
    );
    console.log(`  base ${ma.toFixed(2)}  new ${mb.toFixed(2)}  base/new ${(ma / mb).toFixed(3)}`);
    console.log(`  estimates ${same(Array.from(pa.weights), Array.from(pb.weights)) ? "identical" : "differ"}`);
  } else {
    // Fresh policies each repetition; per-round CPU time in the window [from, to), alternating A/B per round.
    const reps = smoke ? 2 : Number(process.env.REPS ?? 6);
    const from = smoke ? 10 : Number(process.env.FROM ?? 100);
    const to = smoke ? 20 : Number(process.env.TO ?? 200);
    const ra = [];
    const rb = [];
    let identical = true;
    for (let rep = 0; rep < reps; rep++) {
      const { rounds, wStar } = makeRounds(to, 11 + rep);
      const pa = make(A);
      const pb = make(B);
      const sa = [];
      const sb = [];
      for (let t = 0; t < to; t++) {
        const order =
          (t + rep) % 2 === 0
            ? [
                [pa, sa],
                [pb, sb],
              ]
            : [
                [pb, sb],
                [pa, sa],
              ];
        for (const [p, acc] of order) {
          const s = cpu();
          round(p, rounds[t], wStar);
          if (t >= from) acc.push(cpu() - s);
        }
      }
      identical &&= same(Array.from(pa.weights), Array.from(pb.weights));
      if (rep > 0) {
        ra.push(median(sa));
        rb.push(median(sb));
      }
      console.log(
        `rep ${rep}: base ${median(sa).toFixed(0)} us, new ${median(sb).toFixed(0)} us (median over t = ${from}-${to})`,
      );
    }
    const ma = median(ra);
    const mb = median(rb);
    console.log(
      `${kase} t=${from}-${to}: base ${ma.toFixed(0)} us  new ${mb.toFixed(0)} us  base/new ${(ma / mb).toFixed(3)}`,
    );
    console.log(`  estimates ${identical ? "identical" : "differ"}`);
  }
}
writeFileSync(join(out, "done"), "");
if (smoke) rmSync(out, { recursive: true, force: true });
