/**
 * Offline class fit, the synthetic analogue of the paper's Table 2: given queries and the exact
 * expected reward R_m(q) of every model, find the best policy of each class by full-information
 * gradient ascent (Adam) on mean_q sum_m pi(m | q) R_m(q) over a training half, and report each class's
 * gap Gap(pi) = mean_q [max_m R_m(q) - sum_m pi(m | q) R_m(q)] on the held-out half.
 * Classes: constant (the model with the best mean), log-linear pi ∝ exp(theta_m^T q + b_m) (with an
 * intercept, so it contains the constant class), log-quadratic pi ∝ exp(q^T W_m q) (contains the
 * constant class through W = c I on unit-norm queries).
 */
import { assertInRange, assertInt, optionKeys, rejectUnknownOptions } from "@routekit/core";

export interface ClassFitOptions {
  /** Adam iterations for the log-linear and log-quadratic classes (default 1,500). */
  readonly iterations?: number;
  /** Adam step (default 0.05). */
  readonly learningRate?: number;
  /** Share of the queries used for fitting (default 0.5); the rest evaluates. */
  readonly trainShare?: number;
}

/** The option keys of {@link ClassFitOptions}. */
export const CLASS_FIT_OPTION_KEYS = optionKeys<ClassFitOptions>()(["iterations", "learningRate", "trainShare"]);

export interface ClassFitResult {
  readonly trainSize: number;
  readonly testSize: number;
  /** Held-out gaps to the per-query oracle. */
  readonly gap: { readonly constant: number; readonly linear: number; readonly quadratic: number };
  /** The same gaps on the training half. */
  readonly trainGap: { readonly constant: number; readonly linear: number; readonly quadratic: number };
}

class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;
  constructor(
    readonly params: Float64Array,
    private readonly lr: number,
  ) {
    this.m = new Float64Array(params.length);
    this.v = new Float64Array(params.length);
  }
  /** Ascent step along `grad`. */
  step(grad: Float64Array): void {
    this.t++;
    const b1 = 0.9;
    const b2 = 0.999;
    const c1 = 1 - b1 ** this.t;
    const c2 = 1 - b2 ** this.t;
    for (let i = 0; i < grad.length; i++) {
      const g = grad[i] as number;
      const m = b1 * (this.m[i] as number) + (1 - b1) * g;
      const v = b2 * (this.v[i] as number) + (1 - b2) * g * g;
      this.m[i] = m;
      this.v[i] = v;
      this.params[i] = (this.params[i] as number) + (this.lr * (m / c1)) / (Math.sqrt(v / c2) + 1e-8);
    }
  }
}

/** Scores S = X Theta^T (rows [from, to) of X: n x p; Theta: M x p) into s (M entries per row). */
function scoresOf(X: Float64Array, p: number, theta: Float64Array, M: number, i: number, s: Float64Array): void {
  for (let m = 0; m < M; m++) {
    let v = 0;
    const o = m * p;
    const x = i * p;
    for (let l = 0; l < p; l++) v += (theta[o + l] as number) * (X[x + l] as number);
    s[m] = v;
  }
}

/** In place softmax of s[0..M). */
function softmaxInPlace(s: Float64Array, M: number): void {
  let mx = Number.NEGATIVE_INFINITY;
  for (let m = 0; m < M; m++) mx = Math.max(mx, s[m] as number);
  let z = 0;
  for (let m = 0; m < M; m++) {
    const e = Math.exp((s[m] as number) - mx);
    s[m] = e;
    z += e;
  }
  for (let m = 0; m < M; m++) s[m] = (s[m] as number) / z;
}

/** Mean gap over rows [from, to) of the softmax policy with scores X Theta^T, or of the constant model `c`. */
function gapOf(
  R: Float64Array,
  M: number,
  from: number,
  to: number,
  X: Float64Array | null,
  p: number,
  theta: Float64Array | null,
  c: number,
): number {
  const s = new Float64Array(M);
  let total = 0;
  for (let i = from; i < to; i++) {
    let best = Number.NEGATIVE_INFINITY;
    for (let m = 0; m < M; m++) best = Math.max(best, R[i * M + m] as number);
    let value = 0;
    if (X === null || theta === null) value = R[i * M + c] as number;
    else {
      scoresOf(X, p, theta, M, i, s);
      softmaxInPlace(s, M);
      for (let m = 0; m < M; m++) value += (s[m] as number) * (R[i * M + m] as number);
    }
    total += best - value;
  }
  return total / Math.max(1, to - from);
}

/** Adam ascent on mean_i sum_m softmax(X_i Theta^T)_m R_im over rows [0, nTrain); d score_m = pi_m (R_m - Rbar). */
function fitSoftmax(
  X: Float64Array,
  p: number,
  R: Float64Array,
  M: number,
  nTrain: number,
  iterations: number,
  lr: number,
): Float64Array {
  const theta = new Float64Array(M * p);
  const grad = new Float64Array(M * p);
  const adam = new Adam(theta, lr);
  const s = new Float64Array(M);
  for (let it = 0; it < iterations; it++) {
    grad.fill(0);
    for (let i = 0; i < nTrain; i++) {
      scoresOf(X, p, theta, M, i, s);
      softmaxInPlace(s, M);
      let rbar = 0;
      for (let m = 0; m < M; m++) rbar += (s[m] as number) * (R[i * M + m] as number);
      const x = i * p;
      for (let m = 0; m < M; m++) {
        const w = ((s[m] as number) * ((R[i * M + m] as number) - rbar)) / nTrain;
        const o = m * p;
        for (let l = 0; l < p; l++) grad[o + l] = (grad[o + l] as number) + w * (X[x + l] as number);
      }
    }
    adam.step(grad);
  }
  return theta;
}

/**
 * Fits the constant, log-linear and log-quadratic classes on the first share of the rows of
 * (queries: n x d, rewards: n x M) and reports held-out and training gaps. The quadratic class is fitted
 * as a linear score over the features q_a q_b (a <= b), which is q^T W q for symmetric W.
 */
export function fitPolicyClasses(
  queries: Float64Array,
  rewards: Float64Array,
  n: number,
  d: number,
  M: number,
  options: ClassFitOptions = {},
): ClassFitResult {
  rejectUnknownOptions(options, CLASS_FIT_OPTION_KEYS, "fitPolicyClasses", true);
  const iterations = options.iterations ?? 1500;
  assertInt(iterations, "option iterations", 1, 1_000_000);
  const lr = options.learningRate ?? 0.05;
  assertInRange(lr, "option learningRate", 0, 10, { min: true });
  const share = options.trainShare ?? 0.5;
  assertInRange(share, "option trainShare", 0, 1, { min: true, max: true });
  const nTrain = Math.max(1, Math.min(n - 1, Math.round(n * share)));
  const R = rewards;

  const means = new Float64Array(M);
  for (let i = 0; i < nTrain; i++)
    for (let m = 0; m < M; m++) means[m] = (means[m] as number) + (R[i * M + m] as number);
  let cBest = 0;
  for (let m = 1; m < M; m++) if ((means[m] as number) > (means[cBest] as number)) cBest = m;

  const pl = d + 1;
  const XL = new Float64Array(n * pl);
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < d; l++) XL[i * pl + l] = queries[i * d + l] as number;
    XL[i * pl + d] = 1;
  }
  const pq = (d * (d + 1)) / 2;
  const XQ = new Float64Array(n * pq);
  for (let i = 0; i < n; i++) {
    let k = 0;
    for (let a = 0; a < d; a++)
      for (let b = a; b < d; b++) XQ[i * pq + k++] = (queries[i * d + a] as number) * (queries[i * d + b] as number);
  }
  const thetaL = fitSoftmax(XL, pl, R, M, nTrain, iterations, lr);
  const thetaQ = fitSoftmax(XQ, pq, R, M, nTrain, iterations, lr);
  const gaps = (from: number, to: number) => ({
    constant: gapOf(R, M, from, to, null, 0, null, cBest),
    linear: gapOf(R, M, from, to, XL, pl, thetaL, 0),
    quadratic: gapOf(R, M, from, to, XQ, pq, thetaQ, 0),
  });
  return { trainSize: nTrain, testSize: n - nTrain, gap: gaps(nTrain, n), trainGap: gaps(0, nTrain) };
}
