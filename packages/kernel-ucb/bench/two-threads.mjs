// Would a second thread bring an RFF-UCB round (G = 5, d = 512, D = 200, 400 features) under issue 15's 90 us?
// This times the round's kernels (feature-map gemv, cos/sin, five Float32 quadratic forms, the chosen arm's
// A^-1 phi, the mirrored rank-1 update: linalg's WebAssembly SIMD kernels, instantiated twice on one shared
// memory) on one thread, then split between the main thread and a worker:
// - gemv: rows 0-99 / 100-199; quadratic forms: arms 0-2 / 3-4; rank-1 update: rows [0, S) / [S, F) (S = 29% of F
//   balances the triangle), each output written by one thread, as one thread writes it;
// - A^-1 phi: each output element computed by one thread in the order one thread adds it (the top-right block
//   read by both: rows' dot products on one, columns' sums on the other), so a threaded round could keep every bit.
// The split's extra work is timed faithfully; the values are not (the inverses stay identity-like, the chosen arm
// cycles, main's share of the rank-1 update runs on a scratch triangle of the same size): a feasibility timing,
// not an implementation. Handoffs are Atomics spins (no futex wake-up while the round runs).
// Measured 2026-11-28 on this project's 2-core VM, idle, three runs: one thread 136 / 136 / 142 us per round, two
// threads 124 / 124 / 142 us (1.10x, 1.10x, 1.00x); with each phase timed (a prototype of this script), every kernel
// ran 20-60% slower while the other vCPU ran one too.
// Run: node bench/two-threads.mjs [rounds=3000]; --smoke: 200 rounds, one repetition.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const F = 400;
const D = 200;
const d = 512;
const G = 5;
/** linalg's kernel module (its build embeds the bytes in this generated source file as base64). */
function kernelModule() {
  const src = readFileSync(new URL("../../linalg/src/wasm/kernels.generated.ts", import.meta.url), "utf8");
  const start = src.indexOf("KERNELS_WASM_BASE64 =");
  const b64 = [...src.slice(start, src.indexOf(";", start)).matchAll(/"([^"]*)"/g)].map((m) => m[1]).join("");
  return new WebAssembly.Module(new Uint8Array(Buffer.from(b64, "base64")));
}
function mirror32Length(n) {
  const q = n >> 2;
  const r = n & 3;
  return n * ((n + 3) & ~3) - 4 * (2 * q * (q - 1) + r * q);
}
/** Byte offsets in the shared memory (64-byte aligned); 0-63 hold the handoff counters. */
function layout() {
  let off = 1024;
  const take = (bytes) => {
    const o = off;
    off += Math.ceil(bytes / 64) * 64;
    return o;
  };
  const L = {
    W: take(D * d * 8),
    x: take(d * 8),
    z: take(D * 8),
    phi: take(F * 8),
    phi32: take(((F + 3) & ~3) * 4),
    A: Array.from({ length: G }, () => take(F * F * 8)),
    M: Array.from({ length: G }, () => take(mirror32Length(F) * 4)),
    u: take(F * 8),
    r: take(F * 8),
    q: take(8 * 8),
    Aeq: take(F * F * 8),
    Meq: take(mirror32Length(F) * 4),
  };
  return { L, bytes: off };
}
/** Row S where the rank-1 update's triangle splits in two halves (a multiple of 4: the mirror's row padding). */
const S = Math.round(F * (1 - Math.SQRT1_2)) & ~3;
/** A triangle with as many entries as rows [0, S) of the full one: the main thread's share, on scratch memory. */
const NEQ = Math.round(Math.sqrt(F * F - (F - S) * (F - S)));
const KS = F / 2;
const STOP = 9;

if (!isMainThread) {
  const { memory } = workerData;
  const { L } = layout();
  const K = new WebAssembly.Instance(kernelModule(), { env: { memory } }).exports;
  const ctl = new Int32Array(memory.buffer, 0, 16);
  const qv = new Float64Array(memory.buffer, L.q, 8);
  let mirrorRowS = 0;
  for (let i = 0; i < S; i++) mirrorRowS += ((F + 3) & ~3) - (i & ~3);
  parentPort.postMessage("ready");
  let seen = 0;
  for (;;) {
    let spins = 0;
    while (Atomics.load(ctl, 0) === seen) {
      if (++spins > 20000) {
        Atomics.wait(ctl, 0, seen, 5);
        spins = 0;
      }
    }
    seen = Atomics.load(ctl, 0);
    const phase = ctl[1];
    const A = L.A[ctl[3]];
    if (phase === STOP) break;
    if (phase === 1) K.gemv(L.W + (D / 2) * d * 8, D / 2, d, L.x, L.z + (D / 2) * 8, 1, 0, d);
    else if (phase === 2) for (let g = 3; g < G; g++) qv[g] = K.quad32(L.M[g], F, L.phi32, L.phi);
    else if (phase === 3) {
      K.symv(A + KS * (F + 1) * 8, F - KS, L.phi + KS * 8, L.u + KS * 8, F);
      K.addrows(L.u + KS * 8, F - KS, A + KS * 8, F, L.phi, KS, 1);
    } else if (phase === 4) {
      K.syrmirror(A + S * (F + 1) * 8, F - S, -1e-9, L.u + S * 8, F, L.M[ctl[3]] + mirrorRowS * 4);
    }
    Atomics.store(ctl, 2, seen);
  }
} else {
  const smoke = process.argv.includes("--smoke");
  const N = smoke ? 200 : Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3000);
  const { L, bytes } = layout();
  const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / 65536) + 1, maximum: 65536, shared: true });
  const K = new WebAssembly.Instance(kernelModule(), { env: { memory } }).exports;
  const buf = memory.buffer;
  const ctl = new Int32Array(buf, 0, 16);
  let seed = 1;
  const rnd = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  const W = new Float64Array(buf, L.W, D * d);
  for (let i = 0; i < W.length; i++) W[i] = rnd() * 0.1;
  for (const a of [...L.A, L.Aeq]) {
    const A = new Float64Array(buf, a, F * F);
    for (let i = 0; i < F; i++) A[i * F + i] = 1;
  }
  const x = new Float64Array(buf, L.x, d);
  const z = new Float64Array(buf, L.z, D);
  const phi = new Float64Array(buf, L.phi, F);
  const phi32 = new Float32Array(buf, L.phi32, (F + 3) & ~3);
  const qv = new Float64Array(buf, L.q, 8);
  const bias = Float64Array.from({ length: D }, () => rnd() * 6);
  const worker = new Worker(new URL(import.meta.url), { workerData: { memory } });
  await new Promise((r) => worker.once("message", r));
  let ticket = 0;
  let threaded = false;
  const start = (phase, arm) => {
    ctl[1] = phase;
    ctl[3] = arm;
    Atomics.store(ctl, 0, ++ticket);
    Atomics.notify(ctl, 0);
  };
  const join = () => {
    while (Atomics.load(ctl, 2) !== ticket) {}
  };
  const round = (t) => {
    for (let i = 0; i < d; i++) x[i] = rnd();
    if (threaded) {
      start(1, 0);
      K.gemv(L.W, D / 2, d, L.x, L.z, 1, 0, d);
      join();
    } else K.gemv(L.W, D, d, L.x, L.z, 1, 0, d);
    for (let i = 0; i < D; i++) {
      const v = z[i] + bias[i];
      phi[2 * i] = Math.cos(v) * 0.07;
      phi[2 * i + 1] = Math.sin(v) * 0.07;
    }
    for (let i = 0; i < F; i++) phi32[i] = phi[i];
    if (threaded) {
      start(2, 0);
      for (let g = 0; g < 3; g++) qv[g] = K.quad32(L.M[g], F, L.phi32, L.phi);
      join();
    } else for (let g = 0; g < G; g++) qv[g] = K.quad32(L.M[g], F, L.phi32, L.phi);
    const arm = t % G;
    const A = L.A[arm];
    if (threaded) {
      start(3, arm);
      K.symv(A, KS, L.phi, L.u, F);
      K.gemv(A + KS * 8, KS, F - KS, L.phi + KS * 8, L.r, 1, 0, F);
      join();
      start(4, arm);
      K.syrmirror(L.Aeq, NEQ, -1e-9, L.u, F, L.Meq);
      join();
    } else {
      K.symv(A, F, L.phi, L.u, F);
      K.syrmirror(A, F, -1e-9, L.u, F, L.M[arm]);
    }
  };
  const timeRounds = () => {
    for (let t = 0; t < Math.min(N, 500); t++) round(t);
    const t0 = process.hrtime.bigint();
    for (let t = 0; t < N; t++) round(t);
    return Number(process.hrtime.bigint() - t0) / 1e3 / N;
  };
  const one = [];
  const two = [];
  for (let rep = 0; rep < (smoke ? 1 : 5); rep++) {
    threaded = false;
    one.push(timeRounds());
    threaded = true;
    two.push(timeRounds());
  }
  start(STOP, 0);
  await worker.terminate();
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(`RFF-UCB-shaped round, ${N} rounds x ${one.length} alternating repetitions (median; all)`);
  console.log(`  one thread : ${median(one).toFixed(1)} us (${one.map((v) => v.toFixed(0)).join(", ")})`);
  console.log(`  two threads: ${median(two).toFixed(1)} us (${two.map((v) => v.toFixed(0)).join(", ")})`);
  console.log(
    `  ratio ${(median(one) / median(two)).toFixed(2)}x; load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(" ")}`,
  );
}
