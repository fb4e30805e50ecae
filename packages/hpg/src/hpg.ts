import {
  type ArmState,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  numberOption,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  restoring,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import { basisCap, type MirrorGeometry, MirrorIterate } from "./mirror.js";
import { checkRoutePayload, type RoutePayload, RouterBase, type RouterOptions, softmaxInto } from "./router.js";

/** Snapshot layout version of every policy in this package. */
export const HPG_SNAPSHOT_VERSION = 3;

export interface HpgOptions extends RouterOptions {
  /** Query embedding length d (>= 1). */
  readonly contextDim: number;
  /** Latent rank s of the experts (default 1); sets the default radius 2s. */
  readonly latentRank?: number;
  /** Nuclear-norm ball radius tau of each model's matrix (default 2 * latentRank); caps |q^T W q| <= tau. */
  readonly radius?: number;
  /** Hypentropy scale beta > 0 (default radius / contextDim). */
  readonly beta?: number;
  /** Planned number of rounds T, used by the default step size (default 10,000). */
  readonly horizon?: number;
  /** Mirror-descent step eta (default sqrt(M ln max(d, 3) / horizon), M = initial model count, at least 2). */
  readonly stepSize?: number;
  /** Largest rank kept per model (default min(contextDim, 32)); exact when >= contextDim. */
  readonly maxRank?: number;
  /** Steps between re-orthonormalisations of each model's eigenvectors (default 1,000; 0 = never). */
  readonly reorthEvery?: number;
}

interface HpgArm extends ArmState {
  readonly iterate: MirrorIterate;
}

/** The defaults of the paper's Theorem 3: radius 2s, beta = radius / d, eta = sqrt(M ln d / T). */
export function hpgStepSize(models: number, dim: number, horizon: number): number {
  return Math.sqrt((Math.max(2, models) * Math.log(Math.max(dim, 3))) / horizon);
}

/**
 * Hypentropy Policy Gradient (Dai, Golrezaei & Jaillet, "Policy Regret for Embedding Model Routing",
 * Algorithm 1). Routes query q to model m with probability pi(m | q) ∝ exp(q^T W_m q); after the reward
 * r of the chosen model m_t, every model takes one online-mirror-descent step with the unbiased
 * rank-one gradient estimate G_m = -r (1[m = m_t] - pi_m) q q^T under the matrix hypentropy over its
 * nuclear-norm ball {|W_m|_* <= radius}. Each W_m is kept as the eigendecomposition of its mirror
 * matrix (the paper's §5.1), so a round costs O(M (d k^2 + k^3)) at rank k <= maxRank.
 */
export class Hpg extends RouterBase<HpgArm> {
  static readonly kind = "hpg/hpg";
  readonly kind = Hpg.kind;
  readonly latentRank: number;
  readonly radius: number;
  readonly beta: number;
  readonly horizon: number;
  readonly stepSize: number;
  readonly maxRank: number;
  readonly reorthEvery: number;

  constructor(options: HpgOptions) {
    super(options, 0, Hpg.kind);
    const o = readOptions(options, Hpg.kind);
    const d = this.contextDim;
    this.latentRank = numberOption(o, "latentRank", 1, { integer: true, min: 1, max: d });
    this.radius = numberOption(o, "radius", 2 * this.latentRank, { min: 0, openMin: true });
    this.beta = numberOption(o, "beta", this.radius / d, { min: 0, openMin: true });
    this.horizon = numberOption(o, "horizon", 10_000, { integer: true, min: 1 });
    const m = Array.isArray(o.arms) ? (o.arms as unknown[]).length : 0;
    this.stepSize = numberOption(o, "stepSize", hpgStepSize(m, d, this.horizon), { min: 0, openMin: true });
    this.maxRank = numberOption(o, "maxRank", Math.min(d, 32), { integer: true, min: 1 });
    this.reorthEvery = numberOption(o, "reorthEvery", 1000, { integer: true, min: 0 });
    this.addInitialArms(options);
  }

  /** The current W_m of model `id` as a dense d x d matrix (diagnostics). */
  weights(id: string): Float64Array {
    return this.table.get(id).iterate.toDense();
  }

  /** Rank and nuclear norm of every model's iterate, in `arms` order. */
  spectra(): { readonly arm: string; readonly rank: number; readonly nuclearNorm: number }[] {
    return this.table.ids.map((arm, i) => {
      const it = (this.table.states[i] as HpgArm).iterate;
      return { arm, rank: it.rank, nuclearNorm: it.nuclearNorm() };
    });
  }

  protected createArm(uid: number): HpgArm {
    return { uid, iterate: this.newIterate() };
  }

  private newIterate(): MirrorIterate {
    return new MirrorIterate({
      dim: this.contextDim,
      beta: this.beta,
      radius: this.radius,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
    });
  }

  protected distribution(q: Float64Array, probs: Float64Array): void {
    const k = this.table.size;
    const s = this.scores;
    for (let i = 0; i < k; i++) s[i] = (this.table.states[i] as HpgArm).iterate.score(q);
    softmaxInto(s, k, probs);
  }

  protected learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
    const eta = this.stepSize;
    for (let i = 0; i < p.n; i++) {
      const s = this.live(p.ids[i] as string);
      if (s === undefined) continue;
      const rho = eta * reward * ((i === p.chosen ? 1 : 0) - (p.probs[i] as number));
      s.iterate.step(q, rho);
    }
  }

  protected encodeArm(s: HpgArm): Record<string, Json> {
    return encodeIterate(s.iterate);
  }

  toJSON(): Snapshot {
    return makeSnapshot(Hpg.kind, HPG_SNAPSHOT_VERSION, {
      latentRank: this.latentRank,
      radius: this.radius,
      beta: this.beta,
      horizon: this.horizon,
      stepSize: this.stepSize,
      maxRank: this.maxRank,
      reorthEvery: this.reorthEvery,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): Hpg {
    const st = readSnapshot(snapshot, Hpg.kind, HPG_SNAPSHOT_VERSION);
    const pos = (v: number) => v > 0;
    const radius = readNumber(st, "radius", pos, "a number > 0");
    const beta = readNumber(st, "beta", pos, "a number > 0");
    const stepSize = readNumber(st, "stepSize", pos, "a number > 0");
    const horizon = readInt(st, "horizon", 1);
    const maxRank = readInt(st, "maxRank", 1);
    const reorthEvery = readInt(st, "reorthEvery", 0);
    const normalizeContext = field(st, "normalizeContext", "boolean");
    const clipRewards = field(st, "clipRewards", "boolean");
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => readIterate(json, d, Math.min(d, maxRank), beta, radius),
      payload: (json, d) => checkRoutePayload(json, d, 0),
    });
    const latentRank = readInt(st, "latentRank", 1, snap.contextDim);
    return restoring(Hpg.kind, () => {
      const p = new Hpg({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        latentRank,
        radius,
        beta,
        horizon,
        stepSize,
        maxRank,
        reorthEvery,
        normalizeContext,
        clipRewards,
      });
      p.restoreBase(snap, (a, uid) => {
        const iterate = p.newIterate();
        loadIterate(iterate, a);
        return { uid, iterate };
      });
      return p;
    });
  }
}

export interface IterateData {
  readonly rank: number;
  readonly steps: number;
  readonly basisSize: number;
  readonly basis: Float64Array;
  readonly coef: Float64Array;
  readonly gamma: Float64Array;
}

/** One model's factored mirror eigenpairs as snapshot JSON. */
export function encodeIterate(it: MirrorIterate): Record<string, Json> {
  const e = it.eig;
  return {
    rank: e.rank,
    steps: it.steps,
    basisSize: e.basisSize,
    basis: encodeF64(e.basis.subarray(0, e.basisSize * e.dim)),
    coef: encodeF64(e.coefRows()),
    gamma: encodeF64(e.values.subarray(0, e.rank)),
  };
}

export function loadIterate(it: MirrorIterate, a: IterateData): void {
  it.load(a.basis, a.basisSize, a.coef, a.gamma, a.rank, a.steps);
}

/** Largest |row_i . row_j - [i = j]| of the n rows (length m) of A. */
function rowsOrthonormalityError(A: Float64Array, n: number, m: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let l = 0; l < m; l++) s += (A[i * m + l] as number) * (A[j * m + l] as number);
      worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
    }
  return worst;
}

/**
 * Reads one model's factored mirror eigenpairs from a snapshot: rank <= maxRank <= basisSize <=
 * basisCap, orthonormal basis rows and coefficient rows (to 1e-6), nonzero mirror eigenvalues, and a
 * primal nuclear norm inside the ball (the mirror eigenvalues are the primal ones in the Euclidean geometry).
 */
export function readIterate(
  json: Record<string, Json>,
  d: number,
  maxRank: number,
  beta: number,
  radius: number,
  geometry: MirrorGeometry = "hypentropy",
): IterateData {
  const rank = readInt(json, "rank", 0, maxRank);
  const steps = readInt(json, "steps", 0);
  const basisSize = readInt(json, "basisSize", rank, basisCap(d, maxRank));
  const basis = readF64(json.basis, "arms[].basis", basisSize * d);
  const coef = readF64(json.coef, "arms[].coef", rank * basisSize);
  const gamma = readF64(json.gamma, "arms[].gamma", rank, (x) => x !== 0);
  let nuclear = 0;
  for (let i = 0; i < rank; i++) {
    const g = Math.abs(gamma[i] as number);
    nuclear += geometry === "hypentropy" ? beta * Math.sinh(g) : g;
  }
  if (!(nuclear <= radius * (1 + 1e-9)))
    snapshotCorrupt("arms[].gamma", `a spectrum of nuclear norm <= radius (${radius})`);
  if (rowsOrthonormalityError(basis, basisSize, d) > 1e-6) snapshotCorrupt("arms[].basis", "orthonormal rows");
  if (rowsOrthonormalityError(coef, rank, basisSize) > 1e-6) snapshotCorrupt("arms[].coef", "orthonormal rows");
  return { rank, steps, basisSize, basis, coef, gamma };
}
