import { Rng } from "@routekit/core";
import { OfuMnlPlus } from "../dist/index.js";

const N = 100,
  d = 5,
  K = 15,
  T = Number(process.env.T ?? 20000);
const rng = Rng.fromSeed(1);
const b = 1 / Math.sqrt(d);
const pool = Array.from({ length: 64 }, () =>
  Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, rng.normal()))),
);
const preset = process.env.PRESET ?? "authors-uniform";
const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset });
const us = new Float64Array(T);
globalThis.gc?.();
const h0 = process.memoryUsage().heapUsed;
for (let t = 0; t < T; t++) {
  const q = { features: pool[t & 63], numItems: N, maxSize: K };
  const s = performance.now();
  const dec = p.select(q);
  p.update(dec, { choice: t % 3 === 0 ? null : dec.items[t % dec.items.length] });
  us[t] = 1000 * (performance.now() - s);
}
const h1 = process.memoryUsage().heapUsed;
const sorted = Array.from(us.subarray(T / 2)).sort((a, b) => a - b);
console.log(
  preset,
  "median us",
  sorted[sorted.length >> 1].toFixed(2),
  "p10",
  sorted[Math.floor(sorted.length * 0.1)].toFixed(2),
  "heap B/round",
  ((h1 - h0) / T).toFixed(0),
);
