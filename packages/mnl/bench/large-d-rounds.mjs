// The large-d benchmarks' workload (bench/large-d.mjs, bench/baselines-large-d.mjs): 20 candidates a round,
// K = 5, clipped-normal features (norm <= 1, a pool of 32 rounds reused), choices drawn from a fixed w*.
import { Rng } from "@routekit/core";

export const N = 20;
export const K = 5;

export const median = (a) => Float64Array.from(a).sort()[a.length >> 1];

/** Plays T rounds of `policy` at dimension d; select and update times (ms) of the rounds after T/4. */
export function timeRounds(policy, d, T) {
  const rng = Rng.fromSeed(d);
  const b = 1 / Math.sqrt(d);
  const wStar = Float64Array.from({ length: d }, () => rng.uniformIn(-b, b));
  const pool = Array.from({ length: 32 }, () =>
    Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, b * rng.normal()))),
  );
  const selectMs = [];
  const updateMs = [];
  for (let t = 0; t < T; t++) {
    const q = { features: pool[t & 31], numItems: N, maxSize: K };
    const s0 = performance.now();
    const dec = policy.select(q);
    const s1 = performance.now();
    const weights = dec.items.map((i) => {
      let u = 0;
      for (let k = 0; k < d; k++) u += q.features[i * d + k] * wStar[k];
      return Math.exp(u);
    });
    weights.push(policy.v0);
    const c = rng.categorical(weights);
    const s2 = performance.now();
    policy.update(dec, { choice: c === dec.items.length ? null : dec.items[c] });
    const s3 = performance.now();
    if (t >= T >> 2) {
      selectMs.push(s1 - s0);
      updateMs.push(s3 - s2);
    }
  }
  return { selectMs, updateMs };
}
