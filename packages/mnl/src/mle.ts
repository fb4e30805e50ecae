/**
 * Regularised maximum-likelihood refit of the MNL parameter over all past rounds, used by the
 * UCB-MNL and TS-MNL baselines (Oh & Iyengar). O(t) per refit by construction: that growth is the
 * point of the paper's runtime comparison.
 *
 * Objective: sum_s [log(v0 + sum_{i in S_s} e^{x_si.theta}) - z_{s,c_s}] + (lambda/2) ||theta||^2,
 * minimised by Newton's method with Armijo backtracking, warm-started from the previous estimate.
 * (The reference code runs scipy's fmin_tnc on (1/m)[NLL] + (lambda/m)||theta|| with the gradient of
 * the squared penalty and a hard-coded v0 = 1; we use the consistent squared ridge and the true v0.)
 */
import { choleskyFactor, choleskySolve, dot, symmetrizeUpper } from "@routekit/linalg";
import { WasmHistoryStore } from "./gradient-wasm.js";
import { gradientPassKernel, hessianPassKernel, PASS_SCRATCH_ROWS } from "./unrolled.generated.js";

/**
 * Past rounds with variable-size assortments (a mask-free ragged layout). Where WebAssembly SIMD is available
 * the arrays live in a WebAssembly memory of the history's own, where the SIMD gradient kernel reads them in
 * place ({@link WasmHistoryStore}); elsewhere they are plain typed arrays. Either way `x`, `start` and
 * `choice` are typed arrays (replaced when the history grows: re-read them after {@link stage}).
 */
export class ChoiceHistory {
  x: Float64Array;
  start: Int32Array;
  choice: Int32Array;
  rounds = 0;
  /**
   * The arrays' WebAssembly home with the gradient kernel, or null (plain arrays, TypeScript kernels). Made at the
   * first growth past a fresh history's 64 rounds: a memory and an instance cost about 0.3 ms, which short
   * histories (tests, restores of young policies) would not earn back.
   */
  store: WasmHistoryStore | null = null;
  /** The most rows of any round so far (the kernel's scratch must hold a round). */
  private widest = 0;
  /** False without WebAssembly SIMD, for d > 8, or once the runtime refused a memory. */
  private wasmAllowed: boolean;

  constructor(readonly d: number) {
    this.x = new Float64Array(64 * d);
    this.start = new Int32Array(65);
    this.choice = new Int32Array(64);
    this.wasmAllowed = WasmHistoryStore.available(d);
  }

  get rows(): number {
    return this.start[this.rounds] as number;
  }

  /**
   * Gives the arrays room for `rows` rows, `rounds` rounds (start gets one slot more) and rounds of `roundRows`
   * rows, keeping the first `usedRows` rows and `usedRounds` rounds.
   */
  private place(rows: number, rounds: number, roundRows: number, usedRows: number, usedRounds: number): void {
    if (this.store === null && this.wasmAllowed && rounds > 64) this.store = WasmHistoryStore.create(this.d);
    const store = this.store;
    if (store !== null) {
      if (store.relayout(rows, rounds, Math.max(roundRows, this.widest), this, usedRows, usedRounds)) {
        this.x = store.x;
        this.start = store.start;
        this.choice = store.choice;
        return;
      }
      // The runtime refused a memory: plain arrays from here on.
      this.store = null;
      this.wasmAllowed = false;
    }
    const d = this.d;
    const x = new Float64Array(rows * d);
    x.set(this.x.subarray(0, usedRows * d));
    const start = new Int32Array(rounds + 1);
    start.set(this.start.subarray(0, usedRounds + 1));
    const choice = new Int32Array(rounds);
    choice.set(this.choice.subarray(0, usedRounds));
    this.x = x;
    this.start = start;
    this.choice = choice;
  }

  /** Writes round `rounds` (not yet counted) from n rows of X; call {@link commit} to keep it. */
  stage(X: Float64Array, n: number, choice: number): void {
    const d = this.d;
    const r = this.rounds;
    const row0 = this.start[r] as number;
    const capRows = this.x.length / d;
    const capRounds = this.choice.length;
    const scratch = this.store === null ? Number.POSITIVE_INFINITY : this.store.roundRows;
    if (row0 + n > capRows || r + 1 > capRounds || n > scratch) {
      this.place(
        row0 + n > capRows ? Math.max(2 * capRows, row0 + n) : capRows,
        r + 1 > capRounds ? Math.max(2 * capRounds, r + 1) : capRounds,
        n,
        row0,
        r,
      );
    }
    if (n > this.widest) this.widest = n;
    const x = this.x;
    for (let i = 0; i < n * d; i++) x[row0 * d + i] = X[i] as number;
    this.start[r + 1] = row0 + n;
    this.choice[r] = choice;
  }

  commit(): void {
    this.rounds++;
  }

  /** Replaces the history by `rounds` restored rounds (capacities at least those of a fresh history). */
  load(
    x: Float64Array,
    start: Int32Array | readonly number[],
    choice: Int32Array | readonly number[],
    rounds: number,
  ): void {
    const d = this.d;
    let widest = 0;
    for (let s = 0; s < rounds; s++) widest = Math.max(widest, (start[s + 1] as number) - (start[s] as number));
    this.rounds = 0;
    this.widest = widest;
    this.place(Math.max(64, x.length / d), Math.max(64, rounds), PASS_SCRATCH_ROWS, 0, 0);
    this.x.set(x);
    this.start.set(start);
    this.choice.set(choice);
    this.rounds = rounds;
  }
}

/** Scratch space of {@link fitMnlMle}. */
export class MleWorkspace {
  readonly g: Float64Array;
  readonly H: Float64Array;
  readonly LH: Float64Array;
  readonly step: Float64Array;
  readonly trial: Float64Array;
  readonly z: Float64Array;
  readonly xbar: Float64Array;
  /** Newton iterations of the last fit. */
  iterations = 0;
  constructor(d: number, maxSize: number) {
    this.g = new Float64Array(d);
    this.H = new Float64Array(d * d);
    this.LH = new Float64Array(d * d);
    this.step = new Float64Array(d);
    this.trial = new Float64Array(d);
    this.z = new Float64Array(maxSize + 1);
    this.xbar = new Float64Array(d);
  }
}

/**
 * One fused pass over rounds [from, to) of the history at theta: returns the data part of the NLL and,
 * by `mode`, adds the data gradient to `g` (mode >= 1) and the upper triangle of the data Hessian
 * sum_s X_s^T (diag p_s - p_s p_s^T) X_s to `H` (mode 2, in the O(n d^2) x̄ form). The caller zeroes
 * g and H. A fused loop over the ragged history: per-row calls into linalg cost more than the
 * arithmetic at d ~ 5.
 */
export function dataPass(
  h: ChoiceHistory,
  from: number,
  to: number,
  v0: number,
  theta: Float64Array,
  ws: MleWorkspace,
  g: Float64Array,
  H: Float64Array,
  mode: 0 | 1 | 2,
): number {
  const d = h.d;
  const x = h.x;
  const { z, xbar } = ws;
  const logV0 = Math.log(v0);
  let f = 0;
  for (let s = from; s < to; s++) {
    const a = h.start[s] as number;
    const n = (h.start[s + 1] as number) - a;
    const c = h.choice[s] as number;
    let m = logV0;
    for (let i = 0; i < n; i++) {
      let u = 0;
      const o = (a + i) * d;
      for (let k = 0; k < d; k++) u += (x[o + k] as number) * (theta[k] as number);
      z[i] = u;
      if (u > m) m = u;
    }
    const zc = c < 0 ? logV0 : (z[c] as number);
    // z[i] becomes e^{z_i - m}; the probabilities are then e_i / sum (one exp per row).
    let sum = Math.exp(logV0 - m);
    for (let i = 0; i < n; i++) {
      const e = Math.exp((z[i] as number) - m);
      z[i] = e;
      sum += e;
    }
    f += m + Math.log(sum) - zc;
    if (mode === 0) continue;
    const inv = 1 / sum;
    if (mode === 1) {
      // g += X^T e / sum - x_c, one coordinate at a time (the sum stays in a register).
      const oc = (a + c) * d;
      for (let k = 0; k < d; k++) {
        let acc = 0;
        for (let i = 0; i < n; i++) acc += (z[i] as number) * (x[(a + i) * d + k] as number);
        g[k] = (g[k] as number) + acc * inv - (c >= 0 ? (x[oc + k] as number) : 0);
      }
      continue;
    }
    xbar.fill(0);
    for (let i = 0; i < n; i++) {
      const p = (z[i] as number) * inv;
      const coef = p - (i === c ? 1 : 0);
      const o = (a + i) * d;
      for (let k = 0; k < d; k++) {
        const xk = x[o + k] as number;
        g[k] = (g[k] as number) + coef * xk;
        xbar[k] = (xbar[k] as number) + p * xk;
        const pxk = p * xk;
        for (let l = k; l < d; l++) H[k * d + l] = (H[k * d + l] as number) + pxk * (x[o + l] as number);
      }
    }
    for (let k = 0; k < d; k++) {
      const bk = xbar[k] as number;
      for (let l = k; l < d; l++) H[k * d + l] = (H[k * d + l] as number) - bk * (xbar[l] as number);
    }
  }
  return f;
}

/**
 * Adds the data gradient of rounds [from, to) at theta to `g`: the same values, bit for bit, as
 * {@link dataPass} in mode 1, without the objective (no log per round). For d <= 8 a kernel with the
 * feature index unrolled does the same operations in the same order; this pass is the per-round cost
 * of the warm-started refit once the estimate has settled.
 */
export function gradientPass(
  h: ChoiceHistory,
  from: number,
  to: number,
  v0: number,
  theta: Float64Array,
  ws: MleWorkspace,
  g: Float64Array,
): void {
  if (h.store !== null) {
    h.store.gradient(from, to, Math.log(v0), theta, g);
    return;
  }
  const kernel = gradientPassKernel(h.d, ws.z.length - 1);
  if (kernel !== undefined) kernel(h.x, h.start, h.choice, from, to, Math.log(v0), theta, ws.z, g);
  else dataPass(h, from, to, v0, theta, ws, g, g, 1);
}

/**
 * Adds the data gradient and the upper triangle of the data Hessian of rounds [from, to) at theta to `g`
 * and `H`: the same values, bit for bit, as {@link dataPass} in mode 2, without the objective. For d <= 8
 * a kernel with the feature index unrolled does the same operations in the same order; this is the pass
 * of an exact Hessian refresh of the warm-started refit.
 */
export function hessianPass(
  h: ChoiceHistory,
  from: number,
  to: number,
  v0: number,
  theta: Float64Array,
  ws: MleWorkspace,
  g: Float64Array,
  H: Float64Array,
): void {
  const kernel = hessianPassKernel(h.d, ws.z.length - 1);
  if (kernel !== undefined) kernel(h.x, h.start, h.choice, from, to, Math.log(v0), theta, ws.z, g, H);
  else dataPass(h, from, to, v0, theta, ws, g, H, 2);
}

/**
 * One pass over the first `count` rounds at theta: returns the regularised NLL and, when `withDerivatives`,
 * writes its gradient to ws.g and the upper triangle of its Hessian (data part + lambda I) to ws.H.
 */
function historyPass(
  h: ChoiceHistory,
  count: number,
  v0: number,
  lambda: number,
  theta: Float64Array,
  ws: MleWorkspace,
  withDerivatives: boolean,
): number {
  const d = h.d;
  const { g, H } = ws;
  let f = 0;
  for (let k = 0; k < d; k++) f += 0.5 * lambda * (theta[k] as number) * (theta[k] as number);
  if (withDerivatives) {
    for (let k = 0; k < d; k++) g[k] = lambda * (theta[k] as number);
    H.fill(0);
    for (let k = 0; k < d; k++) H[k * d + k] = lambda;
  }
  return f + dataPass(h, 0, count, v0, theta, ws, g, H, withDerivatives ? 2 : 0);
}

/** The regularised NLL of the first `count` rounds at theta. */
export function mleObjective(
  h: ChoiceHistory,
  count: number,
  v0: number,
  lambda: number,
  theta: Float64Array,
  ws: MleWorkspace,
): number {
  return historyPass(h, count, v0, lambda, theta, ws, false);
}

/**
 * Newton refit over the first `count` rounds, starting from and writing to `theta`.
 * Stops when the Newton decrement g^T H^-1 g / 2 < tol or after maxIter iterations. Full Newton steps
 * once the decrement is below 0.1 (the quadratic-convergence region of a self-concordant-like loss),
 * Armijo backtracking before that. Returns the iterations used.
 */
export function fitMnlMle(
  h: ChoiceHistory,
  count: number,
  v0: number,
  lambda: number,
  theta: Float64Array,
  ws: MleWorkspace,
  maxIter = 25,
  tol = 1e-10,
): number {
  const d = h.d;
  const { g, H, LH, step, trial } = ws;
  let it = 0;
  let restarted = false;
  for (; it < maxIter; it++) {
    const f = historyPass(h, count, v0, lambda, theta, ws, true);
    if (!Number.isFinite(f) && !restarted) {
      // Only an absurd starting point (|theta|^2 overflowing) has an infinite objective, from which no Armijo test
      // passes: restart once from 0 (as warmFitMnlMle does). A finite objective never takes this branch.
      theta.fill(0);
      restarted = true;
      it--;
      continue;
    }
    symmetrizeUpper(H, d);
    if (!choleskyFactor(H, d, LH)) break;
    choleskySolve(LH, d, g, step);
    const dec = dot(g, step, d);
    if (!(dec / 2 > tol)) break;
    let t = 1;
    if (dec > 0.1) {
      for (let bt = 0; bt < 30; bt++) {
        for (let k = 0; k < d; k++) trial[k] = (theta[k] as number) - t * (step[k] as number);
        if (historyPass(h, count, v0, lambda, trial, ws, false) <= f - 1e-4 * t * dec) break;
        t *= 0.5;
      }
    }
    for (let k = 0; k < d; k++) theta[k] = (theta[k] as number) - t * (step[k] as number);
  }
  ws.iterations = it;
  return it;
}
