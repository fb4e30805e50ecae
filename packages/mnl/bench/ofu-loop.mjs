// Steady-state per-round time of OFU-MNL+, split by the state of the CPU core (see ofu-steady.mjs).
//   T=20000 node --expose-gc bench/ofu-loop.mjs      (after `npx tsup`; PRESET=paper|practical|...)
//   --smoke: 1,000 rounds (to check that it runs)
import { ofuSteadyState } from "./ofu-steady.mjs";

const preset = process.env.PRESET ?? "authors-uniform";
const r = ofuSteadyState({ preset, T: process.argv.includes("--smoke") ? 1000 : Number(process.env.T ?? 20000) });
const f = (x) => x.toFixed(2);
console.log(
  preset,
  "median us",
  f(r.all),
  "unshared-core us",
  f(r.unshared),
  "shared-core us",
  f(r.shared),
  "unshared share",
  r.unsharedShare.toFixed(2),
  "heap B/round",
  r.heapPerRound.toFixed(0),
);
