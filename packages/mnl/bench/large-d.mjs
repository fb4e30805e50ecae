// Per-update time of OFU-MNL+ at large contextDim: 20 candidates a round, K = 5, clipped-normal features
// (norm <= 1), choices drawn from a fixed w*. Reports the median update (and select) time over the
// rounds after a warm-up, and for comparison the H^-1 refresh (linalg's choleskyInverseUpper on a factor of
// the same size) that each update did before past d = 8, when the utilities read H^-1 rather than the factor.
//   node --expose-gc bench/large-d.mjs [d ...]      (after `npx tsup`; PRESET=paper|authors-uniform|..., T=rounds)
//   --smoke: 20 rounds at each d (to check that it runs)
import { allocF64, choleskyInverseUpper } from "@routekit/linalg";
import { OfuMnlPlus } from "../dist/index.js";
import { K, median, N, timeRounds } from "./large-d-rounds.mjs";

const preset = process.env.PRESET ?? "paper";
const smoke = process.argv.includes("--smoke");
const dims = process.argv
  .slice(2)
  .filter((a) => a !== "--smoke")
  .map(Number);

function run(d, T) {
  const p = new OfuMnlPlus({ contextDim: d, maxSize: K, preset });
  const { selectMs, updateMs } = timeRounds(p, d, T);
  // The refresh alone, on the policy's own factor (the same memory kind: allocF64).
  const L = allocF64(d * d);
  const H = p.gram();
  for (let i = 0; i < d; i++)
    for (let j = 0; j <= i; j++) {
      let s = H[i * d + j];
      for (let k = 0; k < j; k++) s -= L[i * d + k] * L[j * d + k];
      L[i * d + j] = i === j ? Math.sqrt(s) : s / L[j * d + j];
    }
  const out = allocF64(d * d);
  const work = allocF64(d);
  const invMs = [];
  for (let r = 0; r < Math.max(20, updateMs.length); r++) {
    const s = performance.now();
    choleskyInverseUpper(L, d, out, work);
    invMs.push(performance.now() - s);
  }
  return { select: median(selectMs), update: median(updateMs), inverse: median(invMs.slice(5)) };
}

for (const d of dims.length > 0 ? dims : [64, 256]) {
  const T = smoke ? 20 : Number(process.env.T ?? (d >= 200 ? 120 : 600));
  const r = run(d, T);
  console.log(
    `OFU-MNL+ ${preset} d=${d} N=${N} K=${K}: update ${r.update.toFixed(3)} ms, select ${r.select.toFixed(3)} ms;` +
      ` choleskyInverseUpper ${r.inverse.toFixed(3)} ms (${d <= 8 ? "part of each update" : "not part of an update past d = 8"})`,
  );
}
