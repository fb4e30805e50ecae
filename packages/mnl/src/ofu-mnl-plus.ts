/**
 * OFU-MNL+ (Lee & Oh, NeurIPS 2024, Algorithm 1): one online-mirror-descent step per round on the
 * full MNL log-likelihood, optimistic utilities alpha_i = x_i.w + beta_t ||x_i||_{H_t^-1}, and the
 * revenue-maximising assortment of e^{alpha}. Constant time and memory per round (independent of t):
 * O(N d^2) for the utilities, O(n d^2) for the Hessian rank-1 updates of the Cholesky factors, and
 * O(d^3) only when the exact projection is active.
 */
import {
  assertInRange,
  assertPositive,
  ErrorCode,
  encodeF64,
  makeSnapshot,
  RouteKitError,
  readF64,
  readInt,
  readSnapshot,
  type Snapshot,
} from "@routekit/core";
import { allocF64, choleskyInverseUpper, choleskySolve, dot } from "@routekit/linalg";
import {
  commonFromJSON,
  commonToJSON,
  decodeCholeskyF64,
  type MnlCommonConfig,
  type MnlCommonOptions,
  MnlPolicyBase,
  readCommonOptions,
  readFields,
} from "./base.js";
import { ofuMnlBeta, ofuMnlHyperparameters } from "./beta.js";
import { addMnlHessianToCholesky, mnlGradient, mnlProbabilities, optimisticUtilities } from "./model.js";
import { ProjectionWorkspace, projectUnitBall } from "./projection.js";

export type OfuMnlPreset = "paper" | "authors-uniform" | "authors-nonuniform" | "practical";
export type BetaMode = "theory" | "frozen" | "constant";

export interface OfuMnlPlusOptions extends MnlCommonOptions {
  /**
   * Named configuration (default "paper"); explicit options below override it.
   * - paper: beta_t(delta) recomputed each round (delta = 0.05), step eta H~^-1 g, exact projection.
   * - authors-uniform: the reference code's semantics: beta frozen at s = 1 with delta = 1,
   *   stepMultiplier 2, no projection.
   * - authors-nonuniform: authors-uniform plus betaScale 0.1 and utilities clipped to [0, 2].
   * - practical: frozen beta scaled by 0.02, stepMultiplier 2, exact projection (see README for the sweep).
   */
  preset?: OfuMnlPreset;
  /** Step size eta (default ln(K+1)/2 + 2). */
  eta?: number;
  /** Ridge lambda, H_1 = lambda I (default 84 sqrt(2) d eta). */
  lambda?: number;
  /** Confidence delta in (0, 1] for beta_t(delta). */
  delta?: number;
  /** "theory": beta_t each round; "frozen": beta at s = 1; "constant": options.beta. */
  betaMode?: BetaMode;
  /** The radius when betaMode = "constant". */
  beta?: number;
  /** Multiplier on beta (1 = the formula). */
  betaScale?: number;
  /** Multiplier on the OMD step (the reference code's step is 2 eta H~^-1 g, spec P7). */
  stepMultiplier?: number;
  /** "exact": projection onto the unit ball in the H~ norm (spec §2.4); "none": skip it. */
  projection?: "exact" | "none";
}

interface OfuConfig {
  readonly preset: OfuMnlPreset;
  readonly eta: number;
  readonly lambda: number;
  readonly delta: number;
  readonly betaMode: BetaMode;
  readonly beta: number;
  readonly betaScale: number;
  readonly stepMultiplier: number;
  readonly projection: "exact" | "none";
}

const PRESETS: Record<
  OfuMnlPreset,
  {
    delta: number;
    betaMode: BetaMode;
    betaScale: number;
    stepMultiplier: number;
    projection: "exact" | "none";
    utilityClip: [number, number] | null;
  }
> = {
  paper: { delta: 0.05, betaMode: "theory", betaScale: 1, stepMultiplier: 1, projection: "exact", utilityClip: null },
  "authors-uniform": {
    delta: 1,
    betaMode: "frozen",
    betaScale: 1,
    stepMultiplier: 2,
    projection: "none",
    utilityClip: null,
  },
  "authors-nonuniform": {
    delta: 1,
    betaMode: "frozen",
    betaScale: 0.1,
    stepMultiplier: 2,
    projection: "none",
    utilityClip: [0, 2],
  },
  practical: {
    delta: 1,
    betaMode: "frozen",
    betaScale: 0.02,
    stepMultiplier: 2,
    projection: "exact",
    utilityClip: null,
  },
};

/** The resolved settings of a preset (for documentation and registries). */
export function ofuMnlPreset(name: OfuMnlPreset): Readonly<(typeof PRESETS)[OfuMnlPreset]> {
  const p = PRESETS[name];
  if (!p) throw new RouteKitError(ErrorCode.InvalidArgument, `unknown OFU-MNL+ preset "${String(name)}"`);
  return p;
}

function resolve(o: OfuMnlPlusOptions): { common: MnlCommonConfig; cfg: OfuConfig } {
  const presetName = o?.preset ?? "paper";
  const pre = ofuMnlPreset(presetName);
  const common = readCommonOptions({
    ...o,
    utilityClip: o.utilityClip === undefined ? pre.utilityClip : o.utilityClip,
  });
  const hyper = ofuMnlHyperparameters(common.dim, common.maxSize);
  const eta = o.eta ?? hyper.eta;
  const lambda = o.lambda ?? 84 * Math.SQRT2 * common.dim * eta;
  assertPositive(eta, "eta");
  assertPositive(lambda, "lambda");
  const delta = o.delta ?? pre.delta;
  assertInRange(delta, "delta", 0, 1, { min: true });
  const betaMode = o.betaMode ?? pre.betaMode;
  if (betaMode !== "theory" && betaMode !== "frozen" && betaMode !== "constant") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `betaMode must be theory, frozen or constant, got ${betaMode}`);
  }
  const beta = o.beta ?? 0;
  // Validated in every mode: it is kept in the config and in snapshots.
  assertInRange(beta, "beta", 0, Number.MAX_VALUE);
  const betaScale = o.betaScale ?? pre.betaScale;
  assertInRange(betaScale, "betaScale", 0, Number.MAX_VALUE);
  const stepMultiplier = o.stepMultiplier ?? pre.stepMultiplier;
  assertPositive(stepMultiplier, "stepMultiplier");
  const projection = o.projection ?? pre.projection;
  if (projection !== "exact" && projection !== "none") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `projection must be "exact" or "none", got ${projection}`);
  }
  return {
    common,
    cfg: { preset: presetName, eta, lambda, delta, betaMode, beta, betaScale, stepMultiplier, projection },
  };
}

/** OFU-MNL+: the paper's algorithm with the presets of spec P6. */
export class OfuMnlPlus extends MnlPolicyBase {
  static readonly kind = "mnl/ofu-mnl-plus";
  static readonly version = 1;
  readonly kind = OfuMnlPlus.kind;
  readonly config: OfuConfig;

  private readonly w: Float64Array;
  /** Cholesky factor of H_t (lower, row-major). */
  private readonly L: Float64Array;
  /** Upper triangle of H_t^-1, refreshed from L after each update (O(d^3), independent of t). */
  private readonly Hinv: Float64Array;
  private updates = 0;
  private readonly frozenBeta: number;

  // scratch
  private readonly z: Float64Array;
  private readonly p: Float64Array;
  private readonly g: Float64Array;
  private readonly xbar: Float64Array;
  private readonly row: Float64Array;
  private readonly wNew: Float64Array;
  private readonly Lt: Float64Array;
  private readonly Lnew: Float64Array;
  private readonly A: Float64Array;
  private readonly projWs: ProjectionWorkspace;

  constructor(options: OfuMnlPlusOptions) {
    const { common, cfg } = resolve(options);
    super(common);
    this.config = cfg;
    const d = this.dim;
    this.w = allocF64(d);
    this.L = allocF64(d * d);
    const s = Math.sqrt(cfg.lambda);
    for (let i = 0; i < d; i++) this.L[i * d + i] = s;
    this.Hinv = allocF64(d * d);
    const bp = { d, K: this.maxSize, eta: cfg.eta, lambda: cfg.lambda, delta: cfg.delta };
    this.frozenBeta = ofuMnlBeta(1, bp);
    // beta_t increases in t: its value at t = 2^53 bounds every radius this policy can use.
    const betaMax =
      cfg.betaMode === "constant"
        ? cfg.beta
        : cfg.betaMode === "frozen"
          ? this.frozenBeta
          : ofuMnlBeta(Number.MAX_SAFE_INTEGER, bp);
    if (!Number.isFinite(betaMax * cfg.betaScale)) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `eta ${cfg.eta}, lambda ${cfg.lambda}, beta ${cfg.beta} and betaScale ${cfg.betaScale} give a non-finite confidence radius`,
      );
    }
    this.z = new Float64Array(this.maxSize + 1);
    this.p = new Float64Array(this.maxSize + 1);
    this.g = allocF64(d);
    this.xbar = allocF64(d);
    this.row = allocF64(d);
    this.wNew = allocF64(d);
    this.Lt = allocF64(d * d);
    this.Lnew = allocF64(d * d);
    this.A = allocF64(d * d);
    this.projWs = new ProjectionWorkspace(d);
    this.refreshInverse();
  }

  /** Number of (non-empty) feedback rounds learned from. */
  get rounds(): number {
    return this.updates;
  }

  /** The confidence radius used by the next select() (after betaScale). */
  get beta(): number {
    const c = this.config;
    let b: number;
    if (c.betaMode === "constant") b = c.beta;
    else if (c.betaMode === "frozen") b = this.frozenBeta;
    else b = ofuMnlBeta(this.updates, { d: this.dim, K: this.maxSize, eta: c.eta, lambda: c.lambda, delta: c.delta });
    return b * c.betaScale;
  }

  /** A copy of the current estimate w_t. */
  get weights(): Float64Array {
    return this.w.slice();
  }

  /** H_t as a full d x d matrix (a fresh array). */
  gram(): Float64Array {
    const d = this.dim;
    const H = new Float64Array(d * d);
    for (let i = 0; i < d; i++)
      for (let j = 0; j < d; j++) {
        let s = 0;
        for (let k = 0; k <= Math.min(i, j); k++) s += (this.L[i * d + k] as number) * (this.L[j * d + k] as number);
        H[i * d + j] = s;
      }
    return H;
  }

  /** ||w_t - v||_{H_t}: the distance the confidence set bounds by beta_t (Lemma 1). */
  confidenceDistance(v: ArrayLike<number>): number {
    const d = this.dim;
    // ||L^T e||^2 with e = w - v.
    let s = 0;
    for (let k = 0; k < d; k++) {
      let t = 0;
      for (let i = k; i < d; i++) t += (this.L[i * d + k] as number) * ((this.w[i] as number) - (v[i] as number));
      s += t * t;
    }
    return Math.sqrt(s);
  }

  protected scoreItems(f: Float64Array, n: number): void {
    // alpha_i = x_i.w + beta ||x_i||_{H^-1}
    optimisticUtilities(f, n, this.dim, this.w, this.Hinv, this.beta, this.row, this.util);
  }

  protected learn(X: Float64Array, n: number, choice: number): void {
    const d = this.dim;
    const { eta, stepMultiplier, projection } = this.config;
    const { z, p, g, xbar, row, wNew, Lt, Lnew } = this;
    // Steps 6-8: gradient and H~_t = H_t + eta G_t(w_t) at the current estimate.
    mnlProbabilities(X, n, d, this.w, this.v0, z, p);
    mnlGradient(X, n, d, p, choice, g);
    Lt.set(this.L);
    addMnlHessianToCholesky(Lt, X, n, d, p, eta, xbar, row);
    choleskySolve(Lt, d, g, wNew);
    const step = stepMultiplier * eta;
    for (let k = 0; k < d; k++) wNew[k] = (this.w[k] as number) - step * (wNew[k] as number);
    if (projection === "exact" && dot(wNew, wNew, d) > 1) {
      const A = this.A;
      for (let i = 0; i < d; i++)
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let k = 0; k <= j; k++) s += (Lt[i * d + k] as number) * (Lt[j * d + k] as number);
          A[i * d + j] = s;
          A[j * d + i] = s;
        }
      projectUnitBall(wNew, A, d, wNew, this.projWs);
    }
    // Step 9: H_{t+1} = H_t + G_t(w_{t+1}) on the same round's items (spec P9).
    mnlProbabilities(X, n, d, wNew, this.v0, z, p);
    Lnew.set(this.L);
    addMnlHessianToCholesky(Lnew, X, n, d, p, 1, xbar, row);
    for (let k = 0; k < d; k++) {
      if (!Number.isFinite(wNew[k] as number) || !((Lnew[k * d + k] as number) > 0)) {
        throw new RouteKitError(ErrorCode.Numerical, "OFU-MNL+ update produced a non-finite estimate; state unchanged");
      }
    }
    this.w.set(wNew);
    this.L.set(Lnew);
    this.refreshInverse();
    this.updates++;
  }

  private refreshInverse(): void {
    choleskyInverseUpper(this.L, this.dim, this.Hinv, this.g);
  }

  toJSON(): Snapshot {
    const c = this.config;
    return makeSnapshot(OfuMnlPlus.kind, OfuMnlPlus.version, {
      common: commonToJSON(this.common),
      config: {
        preset: c.preset,
        eta: c.eta,
        lambda: c.lambda,
        delta: c.delta,
        betaMode: c.betaMode,
        beta: c.beta,
        betaScale: c.betaScale,
        stepMultiplier: c.stepMultiplier,
        projection: c.projection,
      },
      w: encodeF64(this.w),
      L: encodeF64(this.L),
      updates: this.updates,
      ledger: this.ledger.toJSON(),
    });
  }

  /** Restores a snapshot after validating every field (SNAPSHOT_CORRUPT for anything malformed). */
  static fromJSON(snapshot: unknown): OfuMnlPlus {
    const s = readSnapshot(snapshot, OfuMnlPlus.kind, OfuMnlPlus.version);
    const common = commonFromJSON(s.common);
    const c = readFields(s.config, "config", {
      preset: "string",
      eta: "number",
      lambda: "number",
      delta: "number",
      betaMode: "string",
      beta: "number",
      betaScale: "number",
      stepMultiplier: "number",
      projection: "string",
    });
    const d = common.dim;
    const w = readF64(s.w, "w", d);
    const L = decodeCholeskyF64(s.L, "L", d);
    const updates = readInt(s, "updates");
    let policy: OfuMnlPlus;
    try {
      policy = new OfuMnlPlus({ ...common, ...(c as unknown as OfuMnlPlusOptions) });
    } catch (e) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot config is invalid: ${(e as Error).message}`);
    }
    policy.ledger.loadJSON(s.ledger);
    policy.w.set(w);
    policy.L.set(L);
    policy.refreshInverse();
    policy.updates = updates;
    return policy;
  }
}
