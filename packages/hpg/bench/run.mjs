// Per-round cost (select + update) of HPG over time: d = 768, M = 8, maxRank 16 (Contriever-size query
// embeddings), against a 1 ms target that should hold flat in t; the parameter-free and Euclidean variants
// at the same size; the dense O(d^3) reference step at small d for contrast.
// Usage: pnpm bench (node --expose-gc bench/run.mjs [--quick]). Imports the built ../dist/index.js.
// --smoke: the same loops to t = 40 and 30 steps, no results file written (to check that it runs).
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { linalgBackend } from "@routekit/linalg";
import { DenseMirrorIterate, EuclideanPg, Hpg, MirrorIterate, ParameterFreeHpg } from "../dist/index.js";

const quick = process.argv.includes("--quick");
/** `--steps`: only the comparison of one model's step with the dense reference (seconds, not minutes). */
const stepsOnly = process.argv.includes("--steps");
const smoke = process.argv.includes("--smoke");
const CHECKPOINTS = smoke ? [20, 40] : quick ? [200, 1000] : [500, 2000, 8000];
const STEPS = smoke ? 30 : 3000;
const TARGET_US = 1000;

function pool(d, n, seed) {
  const rng = Rng.fromSeed(seed);
  return Array.from({ length: n }, () => {
    const x = rng.fillNormal(new Float64Array(d));
    const s = Math.hypot(...x);
    for (let i = 0; i < d; i++) x[i] /= s;
    return x;
  });
}

function timeRouter(name, make, d, M) {
  const arms = Array.from({ length: M }, (_, i) => `m${i}`);
  const p = make(arms, d);
  const qs = pool(d, 512, 1);
  const rng = Rng.fromSeed(2);
  const row = { policy: name, d, M, usPerRound: {} };
  let t = 0;
  for (const cp of CHECKPOINTS) {
    const start = Math.floor(cp * 0.8);
    for (; t < start; t++) {
      const dec = p.select(qs[t & 511]);
      p.update(dec, { reward: rng.uniform() });
    }
    globalThis.gc?.();
    const chunk = Math.max(1, Math.floor((cp - start) / 10));
    const chunks = [];
    // CPU time of this thread (process.cpuUsage), not wall time: on a shared machine the wall clock
    // mostly measures the wait for a core. Median over 10 chunks.
    let c0 = process.cpuUsage();
    let k = 0;
    for (; t < cp; t++) {
      const dec = p.select(qs[t & 511]);
      p.update(dec, { reward: rng.uniform() });
      if (++k === chunk) {
        const c = process.cpuUsage(c0);
        chunks.push((c.user + c.system) / chunk);
        c0 = process.cpuUsage();
        k = 0;
      }
    }
    chunks.sort((a, b) => a - b);
    row.usPerRound[cp] = chunks[Math.floor(chunks.length / 2)];
  }
  return row;
}

function timeStep(name, make, d, steps) {
  const it = make(d);
  const qs = pool(d, 256, 3);
  // Warm-up: 50 steps left the first size measured (d = 8) in V8's first compilation tiers, so the dense
  // reference came out slower at d = 8 than at d = 16 (258 against 142 us). 3,000 steps also take the iterate
  // to its steady rank (d here).
  for (let t = 0; t < STEPS; t++) it.step(qs[t & 255], 0.2 * Math.sin(t));
  const c0 = process.cpuUsage();
  for (let t = 0; t < steps; t++) it.step(qs[t & 255], 0.2 * Math.sin(t));
  const c = process.cpuUsage(c0);
  return { step: name, d, usPerStep: (c.user + c.system) / steps };
}

const rows = stepsOnly
  ? []
  : [
      timeRouter("hpg", (arms, d) => new Hpg({ arms, contextDim: d, maxRank: 16, horizon: 10_000, seed: 1 }), 768, 8),
      timeRouter(
        "hpg-parameter-free",
        (arms, d) => new ParameterFreeHpg({ arms, contextDim: d, maxRank: 16, seed: 1 }),
        768,
        8,
      ),
      timeRouter("euclidean-pg", (arms, d) => new EuclideanPg({ arms, contextDim: d, maxRank: 16, seed: 1 }), 768, 8),
      timeRouter("hpg (exact)", (arms, d) => new Hpg({ arms, contextDim: d, maxRank: d, seed: 1 }), 16, 4),
    ];
const steps = [];
for (const d of [8, 16, 32]) {
  steps.push(timeStep("subspace", (n) => new MirrorIterate({ dim: n, beta: 2 / n, radius: 2 }), d, STEPS));
  steps.push(timeStep("dense reference", (n) => new DenseMirrorIterate({ dim: n, beta: 2 / n, radius: 2 }), d, STEPS));
}

const pad = (s, n) => String(s).padEnd(n);
const num = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
console.log(
  `hpg bench: linalg backend ${linalgBackend()}, node ${process.version} (CPU time per round; shared machine: still noisy)`,
);
console.log(
  `load average (1, 5, 15 min) at the end: ${loadavg()
    .map((x) => x.toFixed(1))
    .join(", ")}`,
);
console.log(
  pad("policy", 22) + pad("d", 5) + pad("M", 4) + CHECKPOINTS.map((c) => pad(`us@t=${c}`, 12)).join("") + "target",
);
for (const r of rows) {
  const last = r.usPerRound[CHECKPOINTS.at(-1)];
  const target = r.d === 768 && r.policy === "hpg" ? `${TARGET_US} ${last <= TARGET_US ? "PASS" : "FAIL"}` : "-";
  console.log(
    pad(r.policy, 22) +
      pad(r.d, 5) +
      pad(r.M, 4) +
      CHECKPOINTS.map((c) => pad(num(r.usPerRound[c]), 12)).join("") +
      target,
  );
}
console.log("\none model's mirror-descent step (us): subspace form vs dense reference (full eigendecomposition)");
for (const s of steps) console.log(pad(s.step, 18) + pad(`d=${s.d}`, 8) + num(s.usPerStep));

const out = join(dirname(fileURLToPath(import.meta.url)), "results", stepsOnly ? "steps.json" : "latest.json");
if (!smoke) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), backend: linalgBackend(), loadavg: loadavg(), rows, steps }, null, 1)}\n`,
  );
}
