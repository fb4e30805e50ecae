// Per-round time of OFU-MNL+ over the first rounds of several policies built one after another in ONE
// process (median per window of 100 rounds, wall time): the first policy pays V8's warm-up (interpreter,
// then optimised code), later ones should run at full speed from their first round. A later policy that
// starts slow means its first rounds threw away optimised code (run with --trace-deopt to see why).
//   node bench/early.mjs [policies=4] [rounds=1500]     (after `npx tsup`; --smoke: 2 policies, 200 rounds)
import { Rng } from "@routekit/core";
import { OfuMnlPlus } from "../dist/index.js";

const N = 100;
const d = 5;
const K = 15;
const smoke = process.argv.includes("--smoke");
const args = process.argv.slice(2).filter((a) => a !== "--smoke");
const policies = Number(args[0] ?? (smoke ? 2 : 4));
const T = Number(args[1] ?? (smoke ? 200 : 1500));
const preset = process.env.PRESET ?? "authors-uniform";

for (let rep = 0; rep < policies; rep++) {
  const rng = Rng.fromSeed(7 + rep);
  const b = 1 / Math.sqrt(d);
  const wStar = Float64Array.from({ length: d }, () => rng.uniformIn(-b, b));
  const rounds = Array.from({ length: T }, () =>
    Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, rng.normal()))),
  );
  const choices = rng.fork("choices");
  const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset });
  const us = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const features = rounds[t];
    const s = performance.now();
    const dec = p.select({ features, numItems: N, maxSize: K });
    const mid = performance.now();
    const w = dec.items.map((i) => {
      let u = 0;
      for (let k = 0; k < d; k++) u += features[i * d + k] * wStar[k];
      return Math.exp(u);
    });
    w.push(1);
    const c = choices.categorical(w);
    const s2 = performance.now();
    p.update(dec, { choice: c === dec.items.length ? null : dec.items[c] });
    us[t] = 1000 * (mid - s + performance.now() - s2);
  }
  const windows = [];
  for (let a = 0; a + 100 <= T; a += 100) {
    const w = Array.from(us.subarray(a, a + 100)).sort((x, y) => x - y);
    windows.push(w[50].toFixed(1));
  }
  console.log(`policy ${rep}: median us per 100 rounds: ${windows.join(" ")}`);
}
