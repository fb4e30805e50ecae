/**
 * OFU-MNL+ (Lee & Oh, NeurIPS 2024, Algorithm 1): one online-mirror-descent step per round on the
 * full MNL log-likelihood, optimistic utilities alpha_i = x_i.w + beta_t ||x_i||_{H_t^-1}, and the
 * revenue-maximising assortment of e^{alpha}. Constant time and memory per round (independent of t):
 * O(N d^2) for the utilities, O(n d^2 + d^3) to add the MNL Hessian to the Cholesky factor (formed and
 * factored again; past d = 8 with few offered items, n + 1 rank-1 updates in O(n d^2)), O(d^3) for H^-1 for
 * d <= 8 only, and O(d^3) per iterate only when the exact projection is active.
 */
import {
  ErrorCode,
  encodeF64,
  enumOption,
  makeSnapshot,
  numberOption,
  optionKeys,
  RouteKitError,
  readF64,
  readInt,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import { allocF64, dot } from "@routekit/linalg";
import {
  commonFromJSON,
  commonToJSON,
  decodeCholeskyF64,
  MAX_FEATURE_SQUARED_NORM,
  MNL_COMMON_OPTION_KEYS,
  type MnlCommonConfig,
  type MnlCommonOptions,
  MnlPolicyBase,
  readCommonOptions,
  readFields,
  snapshotOptions,
} from "./base.js";
import { type BetaParams, ofuMnlBeta, ofuMnlHyperparameters } from "./beta.js";
import {
  checkedFactorUtilities,
  checkedOptimisticUtilities,
  factorUtilities,
  invertCholeskyUpper,
  mnlProbabilities,
  mnlProbabilitiesAndGradient,
  optimisticUtilities,
  refactorMnlHessian,
  solveCholesky,
} from "./model.js";
import { ProjectionWorkspace, projectUnitBall } from "./projection.js";
import { WasmUtilities } from "./utilities-wasm.js";

/**
 * From this contextDim on the utilities are computed from the Cholesky factor (forward substitutions, see
 * factorUtilities) instead of from an H^-1 refreshed after each update: the d <= 8 kernels (unrolled, WebAssembly)
 * read H^-1 and keep its exact bits.
 */
const FACTOR_UTILITIES_MIN_D = 9;

/** Items per forward substitution of factorUtilities (its scratch is contextDim x this). */
const FACTOR_UTILITIES_BATCH = 64;

/** Largest `stepMultiplier` accepted. */
const MAX_STEP_MULTIPLIER = 1e6;

/** Smallest `ridge` and `stepSize` accepted (see resolve). */
const MIN_RIDGE = 1e-100;

export type OfuMnlPreset = "paper" | "authors-uniform" | "authors-nonuniform" | "practical";
export type BetaMode = "theory" | "frozen" | "constant";

export interface OfuMnlPlusOptions extends MnlCommonOptions {
  /**
   * Named configuration (default "paper"); explicit options below override it.
   * - paper: beta_t(delta) recomputed each round (delta = 0.05), step eta H~^-1 g, exact projection.
   * - authors-uniform: the authors' experiment code: beta frozen at s = 1 with delta = 1,
   *   stepMultiplier 2, no projection.
   * - authors-nonuniform: authors-uniform plus exploration 0.1 and utilities clipped to [0, 2].
   * - practical: frozen beta scaled by 0.02, stepMultiplier 2, exact projection (see README for the sweep).
   */
  preset?: OfuMnlPreset;
  /** Step size eta of the mirror-descent step (default ln(K+1)/2 + 2), > 0. */
  stepSize?: number;
  /** Ridge lambda, H_1 = lambda I (default 84 sqrt(2) d eta), > 0. */
  ridge?: number;
  /** Failure probability delta in (0, 1] of the confidence radius beta_t(delta) (default: the preset's). */
  confidence?: number;
  /** "theory": beta_t each round; "frozen": beta at s = 1; "constant": options.beta. */
  betaMode?: BetaMode;
  /** The radius when betaMode = "constant" (default 0), >= 0. */
  beta?: number;
  /** Multiplier on the confidence radius beta (1 = the formula; default: the preset's), >= 0. */
  exploration?: number;
  /** Multiplier on the mirror-descent step (the authors' code steps 2 eta H~^-1 g), in (0, 1e6]. */
  stepMultiplier?: number;
  /** "exact": projection onto the unit ball in the H~ norm; "none": skip it. */
  projection?: "exact" | "none";
}

/** The option keys of {@link OfuMnlPlusOptions}. */
export const OFU_MNL_PLUS_OPTION_KEYS = optionKeys<OfuMnlPlusOptions>()([
  ...MNL_COMMON_OPTION_KEYS,
  "preset",
  "stepSize",
  "ridge",
  "confidence",
  "betaMode",
  "beta",
  "exploration",
  "stepMultiplier",
  "projection",
]);

/** The resolved configuration of an OFU-MNL+ policy (see {@link OfuMnlPlusOptions}). */
export interface OfuMnlPlusConfig {
  readonly preset: OfuMnlPreset;
  readonly stepSize: number;
  readonly ridge: number;
  readonly confidence: number;
  readonly betaMode: BetaMode;
  readonly beta: number;
  readonly exploration: number;
  readonly stepMultiplier: number;
  readonly projection: "exact" | "none";
}

/** The settings a preset fixes (explicit options override them). */
export interface OfuMnlPresetSettings {
  readonly confidence: number;
  readonly betaMode: BetaMode;
  readonly exploration: number;
  readonly stepMultiplier: number;
  readonly projection: "exact" | "none";
  readonly utilityClip: readonly [number, number] | null;
}

const PRESETS: Record<OfuMnlPreset, OfuMnlPresetSettings> = {
  paper: {
    confidence: 0.05,
    betaMode: "theory",
    exploration: 1,
    stepMultiplier: 1,
    projection: "exact",
    utilityClip: null,
  },
  "authors-uniform": {
    confidence: 1,
    betaMode: "frozen",
    exploration: 1,
    stepMultiplier: 2,
    projection: "none",
    utilityClip: null,
  },
  "authors-nonuniform": {
    confidence: 1,
    betaMode: "frozen",
    exploration: 0.1,
    stepMultiplier: 2,
    projection: "none",
    utilityClip: [0, 2],
  },
  practical: {
    confidence: 1,
    betaMode: "frozen",
    exploration: 0.02,
    stepMultiplier: 2,
    projection: "exact",
    utilityClip: null,
  },
};

const PRESET_NAMES = ["paper", "authors-uniform", "authors-nonuniform", "practical"] as const;

/** The resolved settings of a preset (for documentation and registries). */
export function ofuMnlPreset(name: OfuMnlPreset): OfuMnlPresetSettings {
  return PRESETS[enumOption({ preset: name }, "preset", PRESET_NAMES, "paper")];
}

function resolve(options: OfuMnlPlusOptions): { common: MnlCommonConfig; cfg: OfuMnlPlusConfig } {
  const o = readOptions(options, OfuMnlPlus.kind);
  const preset = enumOption(o, "preset", PRESET_NAMES, "paper");
  const pre = PRESETS[preset];
  const common = readCommonOptions(o, pre.utilityClip);
  const hyper = ofuMnlHyperparameters(common.contextDim, common.maxSize);
  // Floors of 1e-100: H^-1 starts at I / ridge and beta_t grows with ln(1 / ridge), so a ridge (or the
  // default ridge of a stepSize) near the smallest double makes every confidence width infinite.
  const stepSize = numberOption(o, "stepSize", hyper.eta, { min: MIN_RIDGE });
  const ridge = numberOption(o, "ridge", 84 * Math.SQRT2 * common.contextDim * stepSize, { min: MIN_RIDGE });
  const confidence = numberOption(o, "confidence", pre.confidence, { min: 0, openMin: true, max: 1 });
  const betaMode = enumOption(o, "betaMode", ["theory", "frozen", "constant"] as const, pre.betaMode);
  // Validated in every mode: it is kept in the config and in snapshots.
  const beta = numberOption(o, "beta", 0, { min: 0 });
  // A radius that no mode reads would be silently ignored (the preset's betaMode is "theory" or "frozen").
  if (o.beta !== undefined && o.beta !== 0 && betaMode !== "constant") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option beta is the radius of betaMode "constant", but betaMode is "${betaMode}": add betaMode: "constant" to use it, or leave beta out`,
    );
  }
  const exploration = numberOption(o, "exploration", pre.exploration, { min: 0 });
  // At most 1e6 (the paper steps 1 eta, the authors' code 2): a multiplier of 1e308 overflowed the first step,
  // so every update of a policy built with a value in the range threw NUMERICAL.
  const stepMultiplier = numberOption(o, "stepMultiplier", pre.stepMultiplier, {
    min: 0,
    openMin: true,
    max: MAX_STEP_MULTIPLIER,
  });
  const projection = enumOption(o, "projection", ["exact", "none"] as const, pre.projection);
  return {
    common,
    cfg: { preset, stepSize, ridge, confidence, betaMode, beta, exploration, stepMultiplier, projection },
  };
}

/** OFU-MNL+: the paper's algorithm (Lee & Oh, NeurIPS 2024, Algorithm 1) with named presets. */
export class OfuMnlPlus extends MnlPolicyBase {
  static readonly kind = "mnl/ofu-mnl-plus";
  static readonly version = 2;
  readonly kind = OfuMnlPlus.kind;
  readonly config: OfuMnlPlusConfig;

  private w: Float64Array;
  /** Cholesky factor of H_t (lower, row-major). */
  private L: Float64Array;
  /**
   * Upper triangle of H_t^-1, refreshed from L after each update (O(d^3), independent of t), for d <= 8 (the
   * unrolled kernels). Past d = 8 the utilities come from L itself (forward substitutions) and this is empty.
   */
  private readonly Hinv: Float64Array;
  /** d > 8: the utilities are computed from the factor L (see factorUtilities), with Y as scratch. */
  private readonly fromFactor: boolean;
  /** Scratch of factorUtilities (d x FACTOR_UTILITIES_BATCH, in linalg's memory) when fromFactor. */
  private readonly Y: Float64Array;
  private updates = 0;
  private readonly frozenBeta: number;
  /** Parameters of beta_t (one object, so the per-round radius allocates nothing). */
  private readonly betaParams: BetaParams;

  // scratch
  private readonly z: Float64Array;
  private readonly p: Float64Array;
  private readonly g: Float64Array;
  private readonly xbar: Float64Array;
  private readonly row: Float64Array;
  private wNew: Float64Array;
  private readonly Lt: Float64Array;
  private Lnew: Float64Array;
  private readonly A: Float64Array;
  private readonly projWs: ProjectionWorkspace;
  /** The WebAssembly SIMD utilities (identical bits), or null: the TypeScript kernels run. */
  private readonly wasm: WasmUtilities | null;

  constructor(options: OfuMnlPlusOptions) {
    rejectUnknownOptions(options, OFU_MNL_PLUS_OPTION_KEYS, OfuMnlPlus.kind);
    const { common, cfg } = resolve(options);
    super(common);
    this.config = cfg;
    const d = this.contextDim;
    this.w = allocF64(d);
    this.L = allocF64(d * d);
    const s = Math.sqrt(cfg.ridge);
    for (let i = 0; i < d; i++) this.L[i * d + i] = s;
    this.fromFactor = d >= FACTOR_UTILITIES_MIN_D;
    this.Hinv = this.fromFactor ? new Float64Array(0) : allocF64(d * d);
    this.Y = this.fromFactor ? allocF64(d * FACTOR_UTILITIES_BATCH) : new Float64Array(0);
    const bp = { d, K: this.maxSize, eta: cfg.stepSize, lambda: cfg.ridge, delta: cfg.confidence };
    this.betaParams = bp;
    this.frozenBeta = ofuMnlBeta(1, bp);
    // beta_t increases in t: its value at t = 2^53 bounds every radius this policy can use.
    const betaMax =
      cfg.betaMode === "constant"
        ? cfg.beta
        : cfg.betaMode === "frozen"
          ? this.frozenBeta
          : ofuMnlBeta(Number.MAX_SAFE_INTEGER, bp);
    if (!Number.isFinite(betaMax * cfg.exploration)) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `stepSize ${cfg.stepSize}, ridge ${cfg.ridge}, beta ${cfg.beta} and exploration ${cfg.exploration} give a non-finite confidence radius`,
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
    this.wasm = WasmUtilities.create(d);
    this.refreshInverse();
  }

  /** Number of (non-empty) feedback rounds learned from. */
  get rounds(): number {
    return this.updates;
  }

  /** The confidence radius used by the next select() (after the exploration multiplier). */
  get beta(): number {
    const c = this.config;
    let b: number;
    if (c.betaMode === "constant") b = c.beta;
    else if (c.betaMode === "frozen") b = this.frozenBeta;
    else {
      b = ofuMnlBeta(this.updates, this.betaParams);
    }
    return b * c.exploration;
  }

  /** A copy of the current estimate w_t. */
  get weights(): Float64Array {
    return this.w.slice();
  }

  /** H_t as a full d x d matrix (a fresh array). */
  gram(): Float64Array {
    const d = this.contextDim;
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
    const d = this.contextDim;
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
    if (this.fromFactor) factorUtilities(f, n, this.contextDim, this.w, this.L, this.beta, this.util, this.Y);
    else optimisticUtilities(f, n, this.contextDim, this.w, this.Hinv, this.beta, this.util);
  }

  protected override scoreCheckedItems(f: Float64Array, n: number, revenues: ArrayLike<number> | undefined): number {
    const d = this.contextDim;
    const c = this.beta;
    if (this.fromFactor) {
      const bad = checkedFactorUtilities(
        f,
        n,
        d,
        this.w,
        this.L,
        c,
        this.util,
        MAX_FEATURE_SQUARED_NORM,
        this.topHint,
        this.cand,
        this.scoreStats,
        this.Y,
      );
      if (bad < 0) this.checkRevenues(revenues, n);
      return bad;
    }
    const wasm = this.wasm;
    // Two items per instruction; a row above the norm bound goes to the TypeScript kernel below, which
    // names the first such row. c = 0 (no exploration) also runs there.
    if (
      wasm !== null &&
      c > 0 &&
      wasm.run(f, n, this.w, this.Hinv, c, MAX_FEATURE_SQUARED_NORM, this.topHint, this.scoreStats) < 0
    ) {
      this.util = wasm.util;
      this.cand = wasm.cand;
      this.checkRevenues(revenues, n);
      return -1;
    }
    const bad = checkedOptimisticUtilities(
      f,
      n,
      d,
      this.w,
      this.Hinv,
      c,
      this.util,
      MAX_FEATURE_SQUARED_NORM,
      this.topHint,
      this.cand,
      this.scoreStats,
    );
    if (bad < 0) this.checkRevenues(revenues, n);
    return bad;
  }

  protected learnRound(X: Float64Array, n: number, choice: number): void {
    const d = this.contextDim;
    const { stepSize: eta, stepMultiplier, projection } = this.config;
    const { z, p, g, xbar, row, wNew, Lt, Lnew } = this;
    // Steps 6-8: gradient and H~_t = H_t + eta G_t(w_t) at the current estimate.
    mnlProbabilitiesAndGradient(X, n, d, this.w, this.v0, choice, z, p, g);
    // (this.A is the d x d scratch of the generic path, d > 8; the projection below reuses it afterwards.)
    refactorMnlHessian(Lt, X, n, d, p, eta, xbar, row, this.L, this.A);
    solveCholesky(Lt, d, g, wNew);
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
    // Step 9: H_{t+1} = H_t + G_t(w_{t+1}) on the same round's items.
    mnlProbabilities(X, n, d, wNew, this.v0, z, p);
    refactorMnlHessian(Lnew, X, n, d, p, 1, xbar, row, this.L, this.A);
    for (let k = 0; k < d; k++) {
      if (!Number.isFinite(wNew[k] as number) || !((Lnew[k * d + k] as number) > 0)) {
        throw new RouteKitError(ErrorCode.Numerical, "OFU-MNL+ update produced a non-finite estimate; state unchanged");
      }
    }
    // Commit by swapping buffers (no copies): the old estimate and factor become next round's scratch.
    this.wNew = this.w;
    this.w = wNew;
    this.Lnew = this.L;
    this.L = Lnew;
    this.refreshInverse();
    this.updates++;
  }

  private refreshInverse(): void {
    if (!this.fromFactor) invertCholeskyUpper(this.L, this.contextDim, this.Hinv, this.g);
  }

  toJSON(): Snapshot {
    const c = this.config;
    return makeSnapshot(OfuMnlPlus.kind, OfuMnlPlus.version, {
      common: commonToJSON(this.common),
      config: {
        preset: c.preset,
        stepSize: c.stepSize,
        ridge: c.ridge,
        confidence: c.confidence,
        betaMode: c.betaMode,
        beta: c.beta,
        exploration: c.exploration,
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
      stepSize: "number",
      ridge: "number",
      confidence: "number",
      betaMode: "string",
      beta: "number",
      exploration: "number",
      stepMultiplier: "number",
      projection: "string",
    });
    const d = common.contextDim;
    const w = readF64(s.w, "w", d);
    const L = decodeCholeskyF64(s.L, "L", d);
    const updates = readInt(s, "updates");
    // A snapshot written before beta needed betaMode "constant" may carry a radius no mode reads: it is kept
    // as it was (the config round-trips), not refused.
    const { beta, ...rest } = c as unknown as OfuMnlPlusOptions & { beta: number };
    const policy = snapshotOptions(
      () => new OfuMnlPlus({ ...common, ...rest, ...(rest.betaMode === "constant" ? { beta } : {}) }),
    );
    if (policy.config.beta !== beta) {
      if (!(Number.isFinite(beta) && beta >= 0)) snapshotCorrupt("config.beta", "a number >= 0");
      (policy.config as { beta: number }).beta = beta;
    }
    policy.ledger.loadJSON(s.ledger);
    policy.w.set(w);
    policy.L.set(L);
    policy.refreshInverse();
    policy.updates = updates;
    return policy;
  }
}
