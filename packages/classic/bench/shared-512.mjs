// LinUCB-shared per-round time (select + update) at d = 512, K = 5 arms (the `compare` configuration
// of the kernel-ucb paper's d = 512 experiment). Run after `npx tsup`: node bench/shared-512.mjs
import { Rng } from "@routekit/core";
import { LinUCBShared } from "../dist/index.js";

const d = 512;
const arms = ["a", "b", "c", "d", "e"];
const T = Number(process.env.T ?? 3000);
const rng = Rng.fromSeed(1);
const pool = Array.from({ length: 256 }, () => {
  const x = rng.fillNormal(new Float64Array(d));
  const n = Math.hypot(...x);
  return x.map((v) => v / n);
});
const p = new LinUCBShared({ arms, contextDim: d, seed: 1 });
const us = new Float64Array(T);
const cpu = new Float64Array(T);
for (let t = 0; t < T; t++) {
  const x = pool[t & 255];
  const c0 = process.cpuUsage().user;
  const s = performance.now();
  const dec = p.select(x);
  p.update(dec, { reward: rng.uniform() });
  us[t] = 1000 * (performance.now() - s);
  cpu[t] = process.cpuUsage().user - c0;
}
const med = (a) => Array.from(a).sort((x, y) => x - y)[a.length >> 1];
const windows = [];
for (let w = 0; w + 300 <= T; w += 300) windows.push(`t=${w}: ${med(us.subarray(w, w + 300)).toFixed(0)}`);
const wall = med(us.subarray(T / 2));
const c = med(cpu.subarray(T / 2));
console.log(`LinUCB-shared d=${d} K=${arms.length}, median us per window: ${windows.join(", ")}`);
console.log(
  `LinUCB-shared d=${d} K=${arms.length}: median ${wall.toFixed(1)} us/round wall, ${c.toFixed(1)} us CPU: ` +
    `${wall <= 150 ? "ok" : "MISSED"} (target <= 150 us; no reference figure)`,
);
