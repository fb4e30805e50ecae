import {
  type ArmDecision,
  type ArmFeedback,
  type ArmPolicy,
  ArmTable,
  assertInt,
  assertVector,
  DecisionLedger,
  type DecisionRef,
  ErrorCode,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  ObjectPool,
  Rng,
  RouteKitError,
  readF64,
  readId,
  readInt,
  readObject,
  readSnapshot,
  type Snapshot,
} from "@routekit/core";
import { allocF32, allocF64, paddedLength, type RandomFourierFeatures, roundToF32 } from "@routekit/linalg";
import { checkInitialArms, feedbackReward } from "./common.js";
import { checkFeatures, drawFeatures, effectiveParameters, type FeatureConfig, type RffVariant } from "./features.js";
import type { OpCounter } from "./krr.js";
import {
  checkCommon,
  checkEta,
  type EtaOption,
  learnedScore,
  normalizeInto,
  type ResolvedTransform,
  resolveEta,
  resolveTransform,
  type ScoreTransform,
} from "./options.js";
import type { ArmPrediction } from "./pak-ucb.js";
import { RidgeArm } from "./ridge.js";
import { argmaxRandomTies, pickUnvisited } from "./select.js";

export interface RffUcbOptions {
  readonly arms: readonly string[];
  readonly contextDim: number;
  /** RBF bandwidth sigma (default 1, spec P2; the paper's image runs use 5). */
  readonly sigma?: number;
  /** Number of random frequencies D (default 200, as in the paper); 2D features for "paper". */
  readonly frequencies?: number;
  /** Feature convention (default "paper"); see {@link RffVariant}. */
  readonly rffVariant?: RffVariant;
  /** Ridge alpha (default 1). */
  readonly alpha?: number;
  /** Exploration multiplier (default "paper" = sqrt(2 ln(2G/delta))). */
  readonly eta?: EtaOption;
  readonly delta?: number;
  readonly horizon?: number;
  readonly scoreTransform?: ScoreTransform;
  /** L2-normalise every context (default true, spec P14). */
  readonly normalizeContext?: boolean;
  readonly maxPending?: number;
  readonly rng?: Rng;
  readonly seed?: number;
  readonly counter?: OpCounter;
}

interface Payload {
  seq: number;
  arm: string;
  /** The chosen arm's version when u was computed. */
  version: number;
  phi: Float64Array;
  /** Ainv phi of the chosen arm at select time, reused by update (Sherman-Morrison). */
  u: Float64Array;
}

const KIND = "kernel-ucb/rff-ucb";
/** 2: the frequencies (and phases) are stored, so restoring never depends on how the RNG derives them. */
const VERSION = 2;

/**
 * RFF-UCB (Algorithm 4 with the implementation-grade Compute_UCB_RFF of spec §2.4): random Fourier
 * features drawn once per learner from its "rff" RNG fork and shared by all arms, per-arm ridge
 * regression with Sherman-Morrison updates. Per round: one feature map (O(D d)), one quadratic
 * form per arm and one symmetric product for the chosen arm (O(G F^2)), constant in t.
 */
export class RffUcb implements ArmPolicy {
  static readonly kind = KIND;
  readonly kind = KIND;
  readonly protocol = "arm" as const;
  readonly contextDim: number;
  readonly sigma: number;
  readonly frequencies: number;
  readonly rffVariant: RffVariant;
  readonly alpha: number;
  readonly eta: EtaOption;
  readonly delta: number;
  readonly horizon: number | undefined;
  readonly normalizeContext: boolean;
  /** Feature count F (2D, or D for "cosBias"). */
  readonly numFeatures: number;
  readonly features: RandomFourierFeatures;
  private readonly ridgeAlpha: number;
  private readonly transform: ResolvedTransform;
  private readonly counter: OpCounter | undefined;
  private rng: Rng;
  private readonly table: ArmTable<RidgeArm> = new ArmTable<RidgeArm>();
  private readonly ledger: DecisionLedger<Payload>;
  private readonly payloads: ObjectPool<Payload>;
  private readonly y: Float64Array;
  private readonly phi: Float64Array;
  /** phi rounded to f32, for the arms' Float32 mirrors (see RidgeArm.selectionVariance). */
  private readonly phi32: Float32Array;
  private scores: Float64Array = new Float64Array(8);
  private readonly nOf = (i: number): number => (this.table.states[i] as RidgeArm).n;

  constructor(options: RffUcbOptions) {
    const o = options;
    this.contextDim = o.contextDim;
    this.alpha = o.alpha ?? 1;
    checkCommon({ contextDim: this.contextDim, alpha: this.alpha });
    this.sigma = o.sigma ?? 1;
    this.frequencies = o.frequencies ?? 200;
    this.rffVariant = o.rffVariant ?? "paper";
    const fc: FeatureConfig = {
      contextDim: this.contextDim,
      sigma: this.sigma,
      frequencies: this.frequencies,
      variant: this.rffVariant,
      alpha: this.alpha,
    };
    checkFeatures(fc);
    this.eta = o.eta ?? "paper";
    this.delta = o.delta ?? 0.05;
    this.horizon = o.horizon;
    if (this.horizon !== undefined) assertInt(this.horizon, "horizon", 1);
    checkEta(this.eta, this.delta, this.horizon);
    this.transform = resolveTransform(o.scoreTransform);
    this.normalizeContext = o.normalizeContext ?? true;
    this.counter = o.counter;
    checkInitialArms(this.table, o.arms);
    this.rng = o.rng ?? Rng.fromSeed(o.seed ?? 0);
    // fork() depends on the stream key only, so a restored policy redraws the same W.
    this.features = drawFeatures(fc, this.rng.fork("rff"));
    this.ridgeAlpha = effectiveParameters(fc).alpha;
    const F = this.features.numFeatures;
    this.numFeatures = F;
    this.y = allocF64(this.contextDim);
    this.phi = allocF64(F);
    this.phi32 = allocF32(paddedLength(F));
    this.payloads = new ObjectPool(() => ({ seq: 0, arm: "", version: 0, phi: allocF64(F), u: allocF64(F) }));
    this.ledger = new DecisionLedger<Payload>(
      {
        encode: (p) => ({ seq: p.seq, arm: p.arm, version: p.version, phi: encodeF64(p.phi), u: encodeF64(p.u) }),
        decode: (j) => {
          const r = readObject(j, "pending decision");
          const seq = readInt(r, "seq");
          const arm = readId(r, "arm");
          const version = readInt(r, "version");
          const phi = readF64(r.phi, "payload.phi", F);
          const u = readF64(r.u, "payload.u", F);
          const p = this.payloads.acquire();
          p.seq = seq;
          p.arm = arm;
          p.version = version;
          p.phi.set(phi);
          p.u.set(u);
          return p;
        },
        dispose: (p) => this.payloads.release(p),
      },
      { maxPending: o.maxPending ?? 100_000 },
    );
    for (const id of o.arms) this.table.add(id, new RidgeArm(F, this.ridgeAlpha, this.counter));
  }

  get arms(): readonly string[] {
    return this.table.ids;
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  visits(): Record<string, number> {
    const out: Record<string, number> = {};
    this.table.ids.forEach((id, i) => {
      out[id] = (this.table.states[i] as RidgeArm).n;
    });
    return out;
  }

  addArm(id: string): void {
    this.table.checkAdd(id);
    this.table.add(id, new RidgeArm(this.numFeatures, this.ridgeAlpha, this.counter));
  }

  removeArm(id: string): void {
    this.table.checkRemove(id);
    this.table.remove(id);
  }

  currentEta(): number {
    return resolveEta(this.eta, this.delta, this.table.size, this.ledger.issued + 1, this.horizon);
  }

  /** Writes phi(y) (after the optional normalisation) into `out`. */
  featurize(context: Float64Array, out: Float64Array): Float64Array {
    assertVector(context, this.contextDim, "context");
    normalizeInto(context, this.y, this.contextDim, this.normalizeContext);
    this.features.map(this.y, out);
    if (this.counter) this.counter.ops += this.frequencies * this.contextDim;
    return out;
  }

  select(context?: Float64Array): ArmDecision {
    this.table.checkNotEmpty();
    assertVector(context, this.contextDim, "context");
    const phi = this.featurize(context, this.phi);
    const G = this.table.size;
    const states = this.table.states;
    let pick = pickUnvisited(G, this.nOf, this.rng);
    if (pick < 0) {
      if (this.scores.length < G) this.scores = new Float64Array(2 * G);
      const eta = this.currentEta();
      const phi32 = roundToF32(phi, this.numFeatures, this.phi32);
      for (let g = 0; g < G; g++) {
        const s = states[g] as RidgeArm;
        const mu = s.mean(phi);
        this.scores[g] = eta === 0 ? mu : mu + eta * Math.sqrt(s.selectionVariance(phi, phi32));
      }
      pick = argmaxRandomTies(this.scores, G, this.rng);
    }
    const arm = states[pick] as RidgeArm;
    const p = this.payloads.acquire();
    p.seq = this.ledger.issued;
    p.arm = this.table.ids[pick] as string;
    p.version = arm.version;
    p.phi.set(phi);
    arm.solve(phi, p.u);
    const id = this.ledger.issue(p);
    return { id, arm: p.arm };
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    const p = this.ledger.get(decision);
    const reward = feedbackReward(feedback);
    const s = this.table.find(p.arm);
    if (s !== undefined) {
      const score = learnedScore(reward, this.transform);
      // Another update of this arm since the decision makes the cached u stale: recompute it.
      if (s.version !== p.version) s.solve(p.phi, p.u);
      s.update(p.phi, score, p.u);
    }
    this.ledger.settle(decision);
  }

  predict(context: Float64Array): ArmPrediction[] {
    const phi = this.featurize(context, new Float64Array(this.numFeatures));
    const eta = this.currentEta();
    const tr = this.transform;
    return this.table.ids.map((arm, g) => {
      const s = this.table.states[g] as RidgeArm;
      if (s.n === 0) {
        return { arm, n: 0, mean: tr.priorMean / tr.scale + tr.offset, sigma: Infinity, ucb: Infinity };
      }
      const mu = s.mean(phi);
      const sigma = Math.sqrt(s.variance(phi));
      return {
        arm,
        n: s.n,
        mean: (mu + tr.priorMean) / tr.scale + tr.offset,
        sigma: sigma / tr.scale,
        ucb: (mu + eta * sigma + tr.priorMean) / tr.scale + tr.offset,
      };
    });
  }

  /** The arm's ridge state (read-only use: tests and diagnostics). */
  regression(arm: string): RidgeArm {
    return this.table.get(arm);
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      options: {
        contextDim: this.contextDim,
        sigma: this.sigma,
        frequencies: this.frequencies,
        rffVariant: this.rffVariant,
        alpha: this.alpha,
        eta: this.eta,
        delta: this.delta,
        horizon: this.horizon ?? null,
        scoreTransform: { ...this.transform },
        normalizeContext: this.normalizeContext,
      },
      rng: this.rng.toJSON() as unknown as Json,
      // Stored rather than redrawn from the "rff" fork, so a snapshot survives any change in how
      // streams are derived (about 0.8 MB of base64 for D = 200, d = 512; the arms' inverses are larger).
      features: { W: encodeF64(this.features.W), phase: encodeF64(this.features.phase) },
      arms: this.table.ids.map((id, i) => ({ id, state: (this.table.states[i] as RidgeArm).toJSON() })),
      ledger: this.ledger.toJSON(),
    });
  }

  static fromJSON(snapshot: unknown): RffUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    const o = field(st, "options", "object");
    const policy = new RffUcb({
      arms: [],
      contextDim: field(o, "contextDim", "number"),
      sigma: field(o, "sigma", "number"),
      frequencies: field(o, "frequencies", "number"),
      rffVariant: field(o, "rffVariant", "string") as RffVariant,
      alpha: field(o, "alpha", "number"),
      eta: o.eta as EtaOption,
      delta: field(o, "delta", "number"),
      horizon: o.horizon === null ? undefined : (o.horizon as number),
      scoreTransform: field(o, "scoreTransform", "object") as ScoreTransform,
      normalizeContext: field(o, "normalizeContext", "boolean"),
      rng: Rng.fromJSON(field(st, "rng", "object") as never),
    });
    const feats = readObject(st.features, "features");
    policy.features.W.set(readF64(feats.W, "features.W", policy.features.W.length));
    policy.features.phase.set(readF64(feats.phase, "features.phase", policy.features.phase.length));
    for (const a of field(st, "arms", "array")) {
      const r = readObject(a, "arms[]");
      const id = readId(r, "id");
      const s = RidgeArm.fromJSON(r.state as Json, policy.numFeatures, policy.ridgeAlpha);
      if (policy.table.has(id)) throw new RouteKitError(ErrorCode.SnapshotCorrupt, `arm "${id}" appears twice`);
      policy.table.add(id, s);
    }
    policy.ledger.loadJSON(st.ledger);
    return policy;
  }
}
