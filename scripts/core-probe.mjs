// A probe of how much of the CPU core this process gets, for reading timings on a virtual machine.
// On a VM whose virtual CPU shares a physical core with another hardware thread (SMT) that the host gives
// to someone else, everything throughput-bound runs up to 2x slower while the sibling is busy: OFU-MNL+,
// a plain floating-point loop and performance.now() alike, while a single dependent chain of multiplies
// (latency-bound, it leaves the core's other slots idle) keeps its speed. The two probes tell the states
// apart: `throughput` is six independent integer chains, `latency` is one dependent chain; both do no
// memory access, so only the core's execution resources can change their time. The ratio
// throughput / latency is about 0.75 on an unshared core and rises to 1.1-1.4 while the sibling is busy.
function throughputLoop(n) {
  let a = 1,
    b = 2,
    c = 3,
    e = 4,
    f = 5,
    g = 6;
  for (let i = 0; i < n; i++) {
    a = (a + i) | 0;
    b = (b ^ i) | 0;
    c = (c + a) | 0;
    e = (e ^ b) | 0;
    f = (f + c) | 0;
    g = (g ^ e) | 0;
  }
  return a + b + c + e + f + g;
}
function latencyLoop(n) {
  let x = 1;
  for (let i = 0; i < n; i++) x = (Math.imul(x, 1664525) + i) | 0;
  return x;
}
let sink = 0;
function timeOf(f, n) {
  const r = [];
  for (let j = 0; j < 3; j++) {
    const s = performance.now();
    sink ^= f(n);
    r.push(performance.now() - s);
  }
  r.sort((x, y) => x - y);
  return r[1];
}
/** Throughput time / latency time of two ~30 us probes (median of 3 each): about 0.75 when the core is unshared. */
export function coreShareRatio() {
  const t = timeOf(throughputLoop, 30000);
  const l = timeOf(latencyLoop, 30000);
  return sink === 0.5 ? 0 : t / l;
}
/** Ratios below this count as "core unshared" (the two states are 0.7-0.8 and 1.1-1.4). */
export const UNSHARED_BELOW = 0.95;
/**
 * A median per-round time over the windows of one core state, for a bench's report: "none (no such window)" when the
 * run had no such window (the median of nothing, NaN), not "NaN us".
 */
export function windowTimeText(us, digits = 2) {
  return Number.isFinite(us) ? `${us.toFixed(digits)} us` : "none (no such window)";
}
