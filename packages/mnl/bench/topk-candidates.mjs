// The README's "97 % of rounds in the bench setup": the share of OFU-MNL+ rounds (authors-uniform, N = 100, d = 5,
// K = 15, uniform revenues, T = 3000, the features and choices of bench/early.mjs) whose top-K sorts only the items
// above the previous round's threshold (k to 4k candidates) instead of running the full top-K. Seeded.
//   node bench/topk-candidates.mjs     (after `npx tsup`; --smoke: one seed, 200 rounds)
import { Rng } from "@routekit/core";
import { OfuMnlPlus } from "../dist/index.js";

const smoke = process.argv.includes("--smoke");
const N = 100,
  d = 5,
  K = 15,
  T = smoke ? 200 : 3000;
for (const seed of smoke ? [7] : [7, 8, 9]) {
  const rng = Rng.fromSeed(seed);
  const b = 1 / Math.sqrt(d);
  const wStar = Float64Array.from({ length: d }, () => rng.uniformIn(-b, b));
  const choices = rng.fork("choices");
  const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset: "authors-uniform" });
  let hits = 0,
    prepared = 0;
  for (let t = 0; t < T; t++) {
    const features = Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, rng.normal())));
    const dec = p.select({ features, numItems: N, maxSize: K });
    const c = p.scoreStats[2]; // candidates collected while scoring (-1: none)
    if (c >= 0) {
      prepared++;
      if (c >= K && c <= 4 * K) hits++;
    }
    const w = dec.items.map((i) => {
      let u = 0;
      for (let k = 0; k < d; k++) u += features[i * d + k] * wStar[k];
      return Math.exp(u);
    });
    w.push(1);
    const ch = choices.categorical(w);
    p.update(dec, { choice: ch === dec.items.length ? null : dec.items[ch] });
  }
  console.log(`seed ${seed}: candidate path in ${((100 * hits) / T).toFixed(1)}% of rounds (prepared ${prepared})`);
}
