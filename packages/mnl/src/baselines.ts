/**
 * The paper's baselines (Section 6): UCB-MNL (Oh & Iyengar, AAAI 2021) and TS-MNL (Oh & Iyengar,
 * NeurIPS 2019, Gaussian-approximation version). Both refit the MLE on all past rounds every round,
 * so their per-round cost grows linearly with t.
 *
 * Exploration radius alpha_t = (1 / (2 kappa)) sqrt(2 d ln(1 + t/d) + 2 ln t), with
 * - alphaMode "frozen" (the reference code): evaluated once at t = 1 and kept;
 * - kappaMode "code" (the reference code): kappa = e^-1 / (v0 + K e)^2; "theory": v0 e^-1 / (v0 + K e)^2.
 * Variable-size assortments are stored as ragged rows (no -inf padding as in the
 * reference code) and the true v0 is used in the likelihood (the reference code hard-codes 1).
 */
import {
  checkTriangular,
  ErrorCode,
  encodeF64,
  enumOption,
  field,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  Rng,
  type RngState,
  RouteKitError,
  readF64,
  readInt,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  rngOption,
  type Snapshot,
} from "@routekit/core";
import { allocF64, backSubstTransposed, choleskyRank1Update, gemv } from "@routekit/linalg";
import {
  allFinite,
  checkFeatureRows,
  commonFromJSON,
  commonToJSON,
  decodeCholeskyF64,
  MAX_FEATURE_SQUARED_NORM,
  MNL_COMMON_OPTION_KEYS,
  type MnlCommonConfig,
  type MnlCommonOptions,
  MnlPolicyBase,
  OVERFLOW_STEP,
  readCommonOptions,
  readFields,
  snapshotOptions,
} from "./base.js";
import { ChoiceHistory, MleWorkspace } from "./mle.js";
import { checkedOptimisticUtilities, invertCholeskyUpper, optimisticUtilities } from "./model.js";
import { type WarmMleState, warmFitMnlMle } from "./warm-mle.js";

export type MleBaselinePreset = "authors-uniform" | "authors-nonuniform" | "theory";

export interface MleBaselineOptions extends MnlCommonOptions {
  /**
   * - authors-uniform (default): alpha frozen at t = 1, kappa without v0, no scaling, no clip;
   * - authors-nonuniform: as above with exploration 0.1 and utilities clipped to [0, 2];
   * - theory: alpha_t recomputed each round with kappa = v0 e^-1 / (v0 + K e)^2.
   */
  preset?: MleBaselinePreset;
  /** Ridge lambda of the MLE and V_0 = lambda I (default 1, as the reference code), > 0. */
  ridge?: number;
  /** "frozen": alpha evaluated at t = 1 and kept (the reference code); "theory": alpha_t every round. */
  alphaMode?: "frozen" | "theory";
  /** "code": kappa = e^-1 / (v0 + K e)^2 (the reference code); "theory": with the factor v0. */
  kappaMode?: "code" | "theory";
  /** Multiplier on the exploration radius alpha (reference: 0.1 for non-uniform revenues), >= 0. */
  exploration?: number;
  /** Newton iterations per refit at most (default 25; a warm start needs 0-2), an integer in [1, 1000]. */
  maxNewtonIterations?: number;
}

/** The option keys of {@link MleBaselineOptions}. */
export const MLE_BASELINE_OPTION_KEYS = optionKeys<MleBaselineOptions>()([
  ...MNL_COMMON_OPTION_KEYS,
  "preset",
  "ridge",
  "alphaMode",
  "kappaMode",
  "exploration",
  "maxNewtonIterations",
]);

/** The resolved configuration of UCB-MNL / TS-MNL (see {@link MleBaselineOptions}). */
export interface MleBaselineConfig {
  readonly preset: MleBaselinePreset;
  readonly ridge: number;
  readonly alphaMode: "frozen" | "theory";
  readonly kappaMode: "code" | "theory";
  readonly exploration: number;
  readonly maxNewtonIterations: number;
}

const BASELINE_PRESETS: Record<
  MleBaselinePreset,
  {
    alphaMode: "frozen" | "theory";
    kappaMode: "code" | "theory";
    exploration: number;
    utilityClip: [number, number] | null;
  }
> = {
  "authors-uniform": { alphaMode: "frozen", kappaMode: "code", exploration: 1, utilityClip: null },
  "authors-nonuniform": { alphaMode: "frozen", kappaMode: "code", exploration: 0.1, utilityClip: [0, 2] },
  theory: { alphaMode: "theory", kappaMode: "theory", exploration: 1, utilityClip: null },
};

function resolveBaseline(o: Record<string, unknown>): { common: MnlCommonConfig; cfg: MleBaselineConfig } {
  const preset = enumOption(
    o,
    "preset",
    ["authors-uniform", "authors-nonuniform", "theory"] as const,
    "authors-uniform",
  );
  const pre = BASELINE_PRESETS[preset];
  const common = readCommonOptions(o, pre.utilityClip);
  const ridge = numberOption(o, "ridge", 1, { min: 0, openMin: true });
  const alphaMode = enumOption(o, "alphaMode", ["frozen", "theory"] as const, pre.alphaMode);
  const kappaMode = enumOption(o, "kappaMode", ["code", "theory"] as const, pre.kappaMode);
  const exploration = numberOption(o, "exploration", pre.exploration, { min: 0 });
  const maxNewtonIterations = numberOption(o, "maxNewtonIterations", 25, { integer: true, min: 1, max: 1000 });
  // alpha_t grows like sqrt(log t): its value at t = 2^53 bounds every radius the policy can use.
  const alphaMax = mleBaselineAlpha(Number.MAX_SAFE_INTEGER, common.contextDim, common.maxSize, common.v0, kappaMode);
  if (!Number.isFinite(exploration * alphaMax)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `exploration ${exploration} (with v0 ${common.v0}, maxSize ${common.maxSize}) gives a non-finite exploration radius`,
    );
  }
  return { common, cfg: { preset, ridge, alphaMode, kappaMode, exploration, maxNewtonIterations } };
}

/** alpha_t of UCB-MNL / TS-MNL for round t >= 1 (before alphaScale). */
export function mleBaselineAlpha(t: number, d: number, K: number, v0: number, kappaMode: "code" | "theory"): number {
  const kappa = ((kappaMode === "theory" ? v0 : 1) * Math.exp(-1)) / (v0 + K * Math.E) ** 2;
  return (1 / (2 * kappa)) * Math.sqrt(2 * d * Math.log(1 + t / d) + 2 * Math.log(t));
}

/** Shared MLE state: theta, the Cholesky factor of V = lambda I + sum x x^T, and the ragged history. */
export abstract class MleMnlPolicy extends MnlPolicyBase {
  readonly config: MleBaselineConfig;
  protected readonly theta: Float64Array;
  protected readonly LV: Float64Array;
  /** Upper triangle of V^-1, refreshed after each update. */
  protected readonly Vinv: Float64Array;
  protected readonly history: ChoiceHistory;
  private readonly mleWs: MleWorkspace;
  private readonly thetaNew: Float64Array;
  private readonly LVnew: Float64Array;
  protected readonly row: Float64Array;
  /** The warm-started refit's cache (data gradient and Hessian), and its staged copy for an update. */
  private mle: WarmMleState;
  private mleNew: WarmMleState;

  protected constructor(options: Record<string, unknown>) {
    const { common, cfg } = resolveBaseline(options);
    super(common);
    this.config = cfg;
    const d = this.contextDim;
    this.theta = allocF64(d);
    this.LV = allocF64(d * d);
    const s = Math.sqrt(cfg.ridge);
    for (let i = 0; i < d; i++) this.LV[i * d + i] = s;
    this.Vinv = allocF64(d * d);
    this.history = new ChoiceHistory(d);
    this.mleWs = new MleWorkspace(d, this.maxSize);
    this.thetaNew = allocF64(d);
    this.LVnew = allocF64(d * d);
    this.row = allocF64(d);
    this.mle = { g: allocF64(d), H: allocF64(d * d), refreshedAt: 0 };
    this.mleNew = { g: allocF64(d), H: allocF64(d * d), refreshedAt: 0 };
    this.refreshInverse();
  }

  protected refreshInverse(): void {
    invertCholeskyUpper(this.LV, this.contextDim, this.Vinv, this.row);
  }

  /** Rounds learned from. */
  get rounds(): number {
    return this.history.rounds;
  }

  /** A copy of the MLE. */
  get weights(): Float64Array {
    return this.theta.slice();
  }

  /** Passes over the history used by the last refit (0 when the new round left the estimate converged). */
  get lastNewtonIterations(): number {
    return this.mleWs.iterations;
  }

  /** The exploration radius for the next select(). */
  get alpha(): number {
    const c = this.config;
    const t = c.alphaMode === "frozen" ? 1 : this.history.rounds + 1;
    return c.exploration * mleBaselineAlpha(t, this.contextDim, this.maxSize, this.v0, c.kappaMode);
  }

  protected learnRound(X: Float64Array, n: number, choice: number): void {
    const d = this.contextDim;
    this.history.stage(X, n, choice);
    this.thetaNew.set(this.theta);
    const st = this.mleNew;
    st.g.set(this.mle.g);
    st.H.set(this.mle.H);
    st.refreshedAt = this.mle.refreshedAt;
    warmFitMnlMle(
      this.history,
      this.history.rounds + 1,
      this.v0,
      this.config.ridge,
      this.thetaNew,
      st,
      this.mleWs,
      this.config.maxNewtonIterations,
    );
    this.LVnew.set(this.LV);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < d; k++) this.row[k] = X[i * d + k] as number;
      choleskyRank1Update(this.LVnew, d, this.row);
    }
    for (let k = 0; k < d; k++) {
      if (!Number.isFinite(this.thetaNew[k] as number) || !Number.isFinite(st.g[k] as number)) {
        throw new RouteKitError(ErrorCode.Numerical, "MLE refit diverged; state unchanged");
      }
    }
    for (let i = 0; i < d * d; i++) {
      if (!Number.isFinite(st.H[i] as number)) {
        throw new RouteKitError(ErrorCode.Numerical, "MLE refit diverged; state unchanged");
      }
    }
    this.history.commit();
    this.theta.set(this.thetaNew);
    this.mleNew = this.mle;
    this.mle = st;
    this.LV.set(this.LVnew);
    this.refreshInverse();
  }

  protected stateJSON(): Record<string, Json> {
    const h = this.history;
    const c = this.config;
    return {
      common: commonToJSON(this.common),
      config: {
        preset: c.preset,
        ridge: c.ridge,
        alphaMode: c.alphaMode,
        kappaMode: c.kappaMode,
        exploration: c.exploration,
        maxNewtonIterations: c.maxNewtonIterations,
      },
      theta: encodeF64(this.theta),
      LV: encodeF64(this.LV),
      mle: { g: encodeF64(this.mle.g), H: encodeF64(this.mle.H), refreshedAt: this.mle.refreshedAt },
      history: {
        rounds: h.rounds,
        start: Array.from(h.start.subarray(0, h.rounds + 1)),
        choice: Array.from(h.choice.subarray(0, h.rounds)),
        x: encodeF64(h.x.subarray(0, h.rows * this.contextDim)),
      },
      ledger: this.ledger.toJSON(),
    };
  }

  /** Restores theta, V and the history after validating every field (throws SNAPSHOT_CORRUPT before any change). */
  protected loadState(s: Record<string, Json>): void {
    const d = this.contextDim;
    const theta = readF64(s.theta, "theta", d);
    const LV = decodeCholeskyF64(s.LV, "LV", d);
    const hj = field(s, "history", "object");
    const rounds = readInt(hj, "rounds");
    // Array.from turns holes into undefined, which the checks below refuse; `every` on a sparse array (not JSON,
    // but possible for a snapshot object built in code) skipped them, and a hole in `choice` loaded as item 0.
    const start = Array.from(field(hj, "start", "array") as number[]);
    const choice = Array.from(field(hj, "choice", "array") as number[]);
    const ok =
      start.length === rounds + 1 &&
      choice.length === rounds &&
      start[0] === 0 &&
      start.every(
        (v, i) =>
          Number.isSafeInteger(v) &&
          (i === 0 || (v > (start[i - 1] as number) && v - (start[i - 1] as number) <= this.maxSize)),
      ) &&
      choice.every((c, i) => Number.isInteger(c) && c >= -1 && c < (start[i + 1] as number) - (start[i] as number));
    if (!ok) throw new RouteKitError(ErrorCode.SnapshotCorrupt, "snapshot history is malformed");
    const rows = start[rounds] as number;
    const x = readF64(hj.x, "history.x", rows * d);
    checkFeatureRows(x, rows, d, "history.x");
    const mj = field(s, "mle", "object");
    const mg = readF64(mj.g, "mle.g", d);
    const mH = readF64(mj.H, "mle.H", d * d);
    // Only the upper triangle of the cached Hessian is ever written.
    checkTriangular(mH, d, "mle.H", "below", "the cached Hessian keeps its upper triangle only (0 below the diagonal)");
    const refreshedAt = readInt(mj, "refreshedAt", 0, rounds);
    this.ledger.loadJSON(s.ledger);
    this.mle.g.set(mg);
    this.mle.H.set(mH);
    this.mle.refreshedAt = refreshedAt;
    // Same capacities as a fresh history at least, so growth never depends on where a run was restored.
    this.history.load(x, start, choice, rounds);
    this.theta.set(theta);
    this.LV.set(LV);
    this.refreshInverse();
  }

  /** The constructor options stored in a snapshot; every field is required (no preset defaults filled in). */
  protected static readConfig(s: Record<string, Json>): MleBaselineOptions {
    const common = commonFromJSON(s.common);
    const c = readFields(s.config, "config", {
      preset: "string",
      ridge: "number",
      alphaMode: "string",
      kappaMode: "string",
      exploration: "number",
      maxNewtonIterations: "number",
    });
    return { ...common, ...(c as unknown as MleBaselineConfig) };
  }
}

/** UCB-MNL: z_i = x_i.theta + alpha ||x_i||_{V^-1}, then the revenue-maximising assortment of e^z. */
export class UcbMnl extends MleMnlPolicy {
  static readonly kind = "mnl/ucb-mnl";
  static readonly version = 2;
  readonly kind = UcbMnl.kind;

  constructor(options: MleBaselineOptions) {
    rejectUnknownOptions(options, MLE_BASELINE_OPTION_KEYS, UcbMnl.kind);
    super(readOptions(options, UcbMnl.kind));
  }

  protected scoreItems(f: Float64Array, n: number): void {
    optimisticUtilities(f, n, this.contextDim, this.theta, this.Vinv, this.alpha, this.util);
  }

  protected override scoreCheckedItems(f: Float64Array, n: number, revenues: ArrayLike<number> | undefined): number {
    const d = this.contextDim;
    const bad = checkedOptimisticUtilities(
      f,
      n,
      d,
      this.theta,
      this.Vinv,
      this.alpha,
      this.util,
      MAX_FEATURE_SQUARED_NORM,
      this.topHint,
      this.cand,
      this.scoreStats,
    );
    if (bad < 0) this.checkRevenues(revenues, n);
    return bad;
  }

  toJSON(): Snapshot {
    return makeSnapshot(UcbMnl.kind, UcbMnl.version, this.stateJSON());
  }

  static fromJSON(snapshot: unknown): UcbMnl {
    const s = readSnapshot(snapshot, UcbMnl.kind, UcbMnl.version);
    const p = snapshotOptions(() => new UcbMnl(MleMnlPolicy.readConfig(s)));
    p.loadState(s);
    return p;
  }
}

export interface TsMnlOptions extends MleBaselineOptions {
  /**
   * Posterior samples per round, an integer in [1, 10000]; utilities are the max over samples
   * ("optimistic sampling"). Default 1 (reference code).
   */
  samples?: number;
  seed?: number | string;
  rng?: Rng;
}

/** The option keys of {@link TsMnlOptions}. */
export const TS_MNL_OPTION_KEYS = optionKeys<TsMnlOptions>()([...MLE_BASELINE_OPTION_KEYS, "samples"]);

/** TS-MNL: theta~ ~ N(theta, alpha^2 V^-1) (M samples, per-item max), then the best assortment of e^{x.theta~}. */
export class TsMnl extends MleMnlPolicy {
  static readonly kind = "mnl/ts-mnl";
  static readonly version = 2;
  readonly kind = TsMnl.kind;
  readonly samples: number;
  private rng: Rng;
  private readonly draw: Float64Array;
  /** L^-T xi of the current sample, kept so that a sample past the largest double is rescaled, not drawn again. */
  private readonly z: Float64Array;
  private sampled = new Float64Array(0);

  constructor(options: TsMnlOptions) {
    rejectUnknownOptions(options, TS_MNL_OPTION_KEYS, TsMnl.kind);
    const o = readOptions(options, TsMnl.kind);
    super(o);
    this.samples = numberOption(o, "samples", 1, { integer: true, min: 1, max: 10_000 });
    this.rng = rngOption(o);
    this.draw = allocF64(this.contextDim);
    this.z = allocF64(this.contextDim);
  }

  protected scoreItems(f: Float64Array, n: number): void {
    const d = this.contextDim;
    const a = this.alpha;
    const draw = this.draw;
    const util = this.util;
    const z = this.z;
    if (this.samples > 1 && this.sampled.length < n) this.sampled = new Float64Array(n);
    // Every sample's utilities are x.theta~ times `scale`, a power of two common to the round's samples: 1 unless
    // theta~ or x.theta~ would pass the largest double (a large exploration with a tiny ridge), which made them
    // NaN and the assortment empty. Scaling by a power of two keeps the order of the utilities exactly.
    let scale = 1;
    for (let m = 0; m < this.samples; m++) {
      // theta~ = theta + alpha L^-T xi has covariance alpha^2 (L L^T)^-1 = alpha^2 V^-1.
      this.rng.fillNormal(z);
      backSubstTransposed(this.LV, d, z, z);
      const out = m === 0 ? util : this.sampled;
      for (;;) {
        if (scale === 1) for (let k = 0; k < d; k++) draw[k] = (this.theta[k] as number) + a * (z[k] as number);
        else {
          const as = a * scale;
          for (let k = 0; k < d; k++) draw[k] = (this.theta[k] as number) * scale + as * (z[k] as number);
        }
        gemv(f, n, d, draw, out);
        if (allFinite(out, n) || scale === 0) break;
        // Past the largest double: this sample (drawn once) is scored again at a smaller scale, and the utilities
        // kept from earlier samples are brought to the same scale (exactly).
        scale *= OVERFLOW_STEP;
        if (m > 0) for (let i = 0; i < n; i++) util[i] = (util[i] as number) * OVERFLOW_STEP;
      }
      if (m === 0) continue;
      const s = this.sampled;
      for (let i = 0; i < n; i++) if ((s[i] as number) > (util[i] as number)) util[i] = s[i] as number;
    }
  }

  toJSON(): Snapshot {
    return makeSnapshot(TsMnl.kind, TsMnl.version, {
      ...this.stateJSON(),
      samples: this.samples,
      rng: this.rng.toJSON() as unknown as Json,
    });
  }

  static fromJSON(snapshot: unknown): TsMnl {
    const s = readSnapshot(snapshot, TsMnl.kind, TsMnl.version);
    const p = snapshotOptions(
      () => new TsMnl({ ...MleMnlPolicy.readConfig(s), samples: field(s, "samples", "number") }),
    );
    p.rng = snapshotOptions(() => Rng.fromJSON(s.rng as unknown as RngState));
    p.loadState(s);
    return p;
  }
}
