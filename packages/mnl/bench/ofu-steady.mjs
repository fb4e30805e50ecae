// Steady-state per-round time (select + update) of OFU-MNL+ on one fixed stream, split by the state of
// the CPU core. On a virtual machine the same loop runs at two speeds, about 1.6-1.7x apart, switching every
// few milliseconds to seconds: the virtual CPU shares a physical core with another hardware thread that
// the host gives to someone else (see scripts/core-probe.mjs at the repository root). Between windows of 500 rounds a ~0.2 ms probe
// records the core's state; a window counts as unshared (shared) when the probes on both sides of it say
// so. Only the second half of the run is reported (the first half warms the JIT and fills the state).
import { Rng } from "@routekit/core";
import { coreShareRatio, UNSHARED_BELOW } from "../../../scripts/core-probe.mjs";
import { OfuMnlPlus } from "../dist/index.js";

const N = 100;
const d = 5;
const K = 15;
const W = 500;

const median = (a) => (a.length === 0 ? Number.NaN : a.sort((x, y) => x - y)[a.length >> 1]);

/**
 * Runs `T` rounds of OFU-MNL+ (N = 100, d = 5, K = 15) and returns the per-round medians in microseconds
 * over the second half: all rounds, rounds in unshared-core windows, rounds in shared-core windows, the
 * share of rounds in unshared windows, and the heap growth per round.
 */
export function ofuSteadyState({ preset = "authors-uniform", T = 20000 } = {}) {
  const rng = Rng.fromSeed(1);
  const b = 1 / Math.sqrt(d);
  const pool = Array.from({ length: 64 }, () =>
    Float64Array.from({ length: N * d }, () => Math.max(-b, Math.min(b, rng.normal()))),
  );
  const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset });
  for (let i = 0; i < 20; i++) coreShareRatio(); // warm the probe up
  const us = new Float64Array(T);
  const probe = [coreShareRatio() < UNSHARED_BELOW];
  globalThis.gc?.();
  const h0 = process.memoryUsage().heapUsed;
  for (let t = 0; t < T; t++) {
    const q = { features: pool[t & 63], numItems: N, maxSize: K };
    const s = performance.now();
    const dec = p.select(q);
    p.update(dec, { choice: t % 3 === 0 ? null : dec.items[t % dec.items.length] });
    us[t] = 1000 * (performance.now() - s);
    if (t % W === W - 1) probe.push(coreShareRatio() < UNSHARED_BELOW);
  }
  const h1 = process.memoryUsage().heapUsed;
  const fast = [];
  const slow = [];
  const half = Math.floor(T / 2);
  for (let t = half; t < T; t++) {
    const w = Math.floor(t / W);
    if (probe[w] && probe[w + 1]) fast.push(us[t]);
    else if (probe[w] === false && probe[w + 1] === false) slow.push(us[t]);
  }
  return {
    all: median(Array.from(us.subarray(half))),
    unshared: median(fast),
    shared: median(slow),
    unsharedShare: fast.length / (T - half),
    heapPerRound: (h1 - h0) / T,
  };
}
