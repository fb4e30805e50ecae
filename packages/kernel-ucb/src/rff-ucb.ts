import {
  type ArmDecision,
  type ArmFeedback,
  argmaxRandomTie,
  describe,
  ErrorCode,
  enumOption,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  Rng,
  type RngState,
  RouteKitError,
  readArmBaseState,
  readEnum,
  readInt,
  readNumber,
  readObject,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  type VectorInput,
} from "@routekit/core";
import { allocF32, allocF64, paddedLength, type RandomFourierFeatures, roundToF32 } from "@routekit/linalg";
import {
  type ArmPrediction,
  KERNEL_POLICY_OPTION_KEYS,
  KernelPolicyBase,
  type KernelPolicyOptions,
  readCommonJSON,
} from "./base.js";
import {
  checkFeatures,
  drawFeatures,
  effectiveParameters,
  type FeatureConfig,
  FREQUENCY_RANGE,
  featureChecksum,
  RFF_VARIANTS,
  type RffVariant,
  SIGMA_RANGE,
} from "./features.js";
import { type KernelPayload, readPayload } from "./payload.js";
import { RidgeArm } from "./ridge.js";
import { pickUnvisited } from "./select.js";

export interface RffUcbOptions extends KernelPolicyOptions {
  /** RBF bandwidth sigma (default 1; the paper's image runs use 5), in [1e-6, 1e6]. */
  readonly sigma?: number;
  /** Number of random frequencies D (default 200, as in the paper), in [1, 1024]; 2D features for "paper". */
  readonly frequencies?: number;
  /** Feature convention (default "paper"); see {@link RffVariant}. */
  readonly rffVariant?: RffVariant;
}

/** The option keys of {@link RffUcbOptions}. */
export const RFF_UCB_OPTION_KEYS = optionKeys<RffUcbOptions>()([
  ...KERNEL_POLICY_OPTION_KEYS,
  "sigma",
  "frequencies",
  "rffVariant",
]);

interface RffArm {
  readonly uid: number;
  readonly ridge: RidgeArm;
}

const KIND = "kernel-ucb/rff-ucb";
/**
 * 3: shared option names, arm uids, maxPending, contexts as received; the frequencies are redrawn from
 * the stored state of the stream they were drawn from (a checksum detects a build that would draw
 * different ones).
 */
const VERSION = 3;

/**
 * RFF-UCB (the paper's Algorithm 4, with its Compute_UCB_RFF done incrementally): random Fourier
 * features drawn once per learner from its "rff" RNG fork and shared by all arms, per-arm ridge
 * regression with Sherman-Morrison updates. Per round: one feature map (O(D d)), one quadratic
 * form per arm and one symmetric product for the chosen arm (O(G F^2)), constant in t.
 */
export class RffUcb extends KernelPolicyBase<RffArm> {
  static readonly kind = KIND;
  readonly kind = KIND;
  readonly sigma: number;
  readonly frequencies: number;
  readonly rffVariant: RffVariant;
  /** Feature count F (2D, or D for "cosBias"). */
  readonly numFeatures: number;
  private feats: RandomFourierFeatures;
  /** State of the stream the frequencies were drawn from (learned state: replicas share it). */
  private featureStream: Json;
  private readonly featureConfig: FeatureConfig;
  private readonly ridgeUsed: number;
  private readonly phi: Float64Array;
  private readonly nOf = (i: number): number => (this.table.states[i] as RffArm).ridge.n;
  /** phi rounded to f32, for the arms' Float32 mirrors (see RidgeArm.selectionVariance). */
  private readonly phi32: Float32Array;
  /** [0] the exploration multiplier of a select, [1] the learned score of an update (unboxed doubles). */
  private readonly work = new Float64Array(2);

  constructor(options: RffUcbOptions) {
    rejectUnknownOptions(options, RFF_UCB_OPTION_KEYS, "RffUcb");
    super(options, { what: "RffUcb", defaultExploration: "paper" });
    const o = readOptions(options, "RffUcb");
    this.sigma = numberOption(o, "sigma", 1, SIGMA_RANGE);
    this.frequencies = numberOption(o, "frequencies", 200, FREQUENCY_RANGE);
    this.rffVariant = enumOption(o, "rffVariant", RFF_VARIANTS, "paper");
    const fc: FeatureConfig = {
      contextDim: this.contextDim,
      sigma: this.sigma,
      frequencies: this.frequencies,
      variant: this.rffVariant,
      ridge: this.ridge,
    };
    checkFeatures(fc);
    this.featureConfig = fc;
    const stream = this.rng.fork("rff");
    this.featureStream = stream.toJSON() as unknown as Json;
    this.feats = drawFeatures(fc, stream);
    this.ridgeUsed = effectiveParameters(fc).ridge;
    const F = this.feats.numFeatures;
    this.numFeatures = F;
    // (features.numFeatures depends only on the configuration, so a redraw keeps F.)
    this.phi = allocF64(F);
    this.phi32 = allocF32(paddedLength(F));
    this.store.setCacheLength(F);
    this.addInitialArms(options);
  }

  /**
   * A copy of the random feature map (frequencies drawn once, shared by all arms): writing to it cannot change
   * the policy, whose snapshot records only the seed of its frequencies and their checksum.
   */
  get features(): RandomFourierFeatures {
    return this.feats.copy();
  }

  protected createArm(uid: number): RffArm {
    return { uid, ridge: new RidgeArm(this.numFeatures, this.ridgeUsed, this.counter) };
  }

  visits(): Record<string, number> {
    return this.perArm((s) => s.ridge.n);
  }

  /** Writes phi(y) of a validated context (after the optional normalisation) into `out`. */
  private featurizeInto(x: ArrayLike<number>, out: Float64Array): Float64Array {
    this.normalize(x);
    this.feats.map(this.y, out);
    if (this.counter) this.counter.ops += this.frequencies * this.contextDim;
    return out;
  }

  /** phi(y) (after the optional normalisation) of `context`, written into `out` (a Float64Array of at least {@link numFeatures} values). */
  featurize(context: VectorInput, out: Float64Array): Float64Array {
    // A short array silently received a truncated phi, and a missing one threw a TypeError.
    if (!(out instanceof Float64Array)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `featurize(context, out): out must be a Float64Array of ${this.numFeatures} values, got ${describe(out)}`,
      );
    }
    if (out.length < this.numFeatures) {
      throw new RouteKitError(
        ErrorCode.DimensionMismatch,
        `featurize(context, out): out has length ${out.length}, needs ${this.numFeatures} (numFeatures)`,
      );
    }
    return this.featurizeInto(this.readContext(context, "context"), out);
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const x = context as Float64Array;
    const phi = this.featurizeInto(x, this.phi);
    const G = this.table.size;
    const states = this.table.states;
    let pick = pickUnvisited(G, this.nOf, this.rng);
    if (pick < 0) {
      // The exploration multiplier and the indices travel through typed arrays, so no double is boxed.
      this.currentExplorationTo(this.work, 0);
      const phi32 = roundToF32(phi, this.numFeatures, this.phi32);
      for (let g = 0; g < G; g++) {
        (states[g] as RffArm).ridge.selectionScoreTo(phi, phi32, this.work, 0, this.scores, g);
      }
      pick = argmaxRandomTie(this.scores, G, this.rng);
    }
    const arm = (states[pick] as RffArm).ridge;
    const decision = this.issue(pick, x);
    const p = this.issued as KernelPayload;
    p.version = arm.version;
    p.phi.set(phi);
    arm.solve(phi, p.u);
    return decision;
  }

  protected applyFeedback(arm: RffArm, p: KernelPayload, feedback: ArmFeedback): void {
    this.scoreTo(feedback.reward, this.work, 1);
    const s = arm.ridge;
    // phi and A^-1 phi cached at select are the same functions of the same context and (unchanged)
    // model as the recompute below, so both paths give the same bits.
    if (p.version !== s.version) {
      this.featurizeInto(p.x, p.phi);
      s.solve(p.phi, p.u);
    }
    s.updateAt(p.phi, this.work, 1, p.u);
    p.version = -1;
  }

  predict(context: VectorInput): ArmPrediction[] {
    const phi = this.featurize(context, new Float64Array(this.numFeatures));
    const e = this.currentExploration();
    return this.table.ids.map((arm, g) => {
      const s = (this.table.states[g] as RffArm).ridge;
      if (s.n === 0) return this.prediction(arm, 0, 0, 0, e);
      return this.prediction(arm, s.n, s.mean(phi), Math.sqrt(s.variance(phi)), e);
    });
  }

  /** The arm's ridge state (read-only use: tests and diagnostics). */
  regression(arm: string): RidgeArm {
    return this.table.get(arm).ridge;
  }

  protected encodeArm(a: RffArm): Record<string, Json> {
    return { state: a.ridge.toJSON() };
  }

  private checksum(): number {
    return featureChecksum(this.feats.W) + featureChecksum(this.feats.phase);
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      ...this.commonJSON(),
      sigma: this.sigma,
      frequencies: this.frequencies,
      rffVariant: this.rffVariant,
      // The frequencies are redrawn from this stream state on restore (a few numbers instead of D x d
      // doubles); the checksum refuses a build that would draw different ones.
      featureStream: this.featureStream,
      featureChecksum: this.checksum(),
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): RffUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    return restoring(KIND, () => {
      const common = readCommonJSON(st);
      const sigma = readNumber(
        st,
        "sigma",
        (v) => v >= SIGMA_RANGE.min && v <= SIGMA_RANGE.max,
        "a number in [1e-6, 1e6]",
      );
      const frequencies = readInt(st, "frequencies", 1, FREQUENCY_RANGE.max);
      const rffVariant = readEnum(st, "rffVariant", RFF_VARIANTS);
      const checksum = readNumber(st, "featureChecksum");
      const F = rffVariant === "cosBias" ? frequencies : 2 * frequencies;
      const ridge = effectiveParameters({
        contextDim: 1,
        sigma,
        frequencies,
        variant: rffVariant,
        ridge: common.ridge,
      }).ridge;
      const snap = readArmBaseState(st, {
        minContextDim: 1,
        arm: (json) => RidgeArm.fromJSON(readObject(json, "arm").state as Json, F, ridge),
        payload: (json, d) => readPayload(json, d, false, 0),
      });
      const p = new RffUcb({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        rng: snap.rng,
        ...common,
        sigma,
        frequencies,
        rffVariant,
      });
      const stream = Rng.fromJSON(readObject(st.featureStream, '"featureStream"') as unknown as RngState);
      p.featureStream = stream.toJSON() as unknown as Json;
      p.feats = drawFeatures(p.featureConfig, stream);
      if (p.checksum() !== checksum) {
        throw new RouteKitError(
          ErrorCode.SnapshotVersion,
          "this build draws different random features from this RFF-UCB snapshot's stream (its RNG derivation changed)",
        );
      }
      p.restoreBase(snap, (r, uid) => ({ uid, ridge: r }));
      return p;
    });
  }
}
