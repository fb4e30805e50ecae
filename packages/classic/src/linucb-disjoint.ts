import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmState,
  argmaxRandomTie,
  assertInt,
  encodeF64,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  vectorToJson,
} from "@routekit/core";
import {
  allocF64,
  allocF64From,
  axpy,
  dot,
  freeF64,
  setScaledIdentity,
  shermanMorrisonWithU,
  symvUpper,
} from "@routekit/linalg";
import {
  type BasePolicyOptions,
  CLASSIC_SNAPSHOT_VERSION,
  checkContextNorm,
  checkEventContextNorm,
  checkRidgeStep,
  clampInverseDiagonal,
  MAX_RIDGE_DIM,
  maxAbs,
  RIDGE_RANGE,
  scaleExponent,
} from "./base.js";
import { checkVecPayload, type VecPayload, VecPayloadStore } from "./payload.js";

export interface LinUCBDisjointOptions extends BasePolicyOptions {
  /** Context length d (>= 1). */
  readonly contextDim: number;
  /** Exploration multiplier (the paper's alpha) in x.theta + alpha sqrt(x^T A^-1 x) (default 1), >= 0. */
  readonly exploration?: number;
  /** Ridge lambda: each arm starts at A = lambda I, b = 0 (default 1; Li et al. use 1), > 0. */
  readonly ridge?: number;
}

/** The option keys of {@link LinUCBDisjointOptions}. */
export const LINUCB_DISJOINT_OPTION_KEYS = optionKeys<LinUCBDisjointOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "exploration",
  "ridge",
]);

interface DisjointArm extends ArmState {
  /** Upper triangle of A^-1 (d x d, row-major), kept by Sherman-Morrison. */
  readonly Ainv: Float64Array;
  /** b = sum of reward * x over this arm's feedback. */
  readonly b: Float64Array;
  /** Scratch: A^-1 x of the current select. */
  readonly u: Float64Array;
  /** Feedbacks applied (the model version pending payloads are checked against). */
  version: number;
}

/**
 * LinUCB with disjoint linear models (Li, Chu, Langford & Schapire 2010, Algorithm 1): one ridge
 * regression per arm, A_a = lambda I + sum x x^T, b_a = sum r x, and the index
 * x^T A_a^-1 b_a + alpha sqrt(x^T A_a^-1 x). A_a^-1 is kept directly by Sherman-Morrison, so
 * select costs K symmetric products (O(K d^2)) and update one rank-1 update (O(d^2)); the A^-1 x of
 * the chosen arm is carried in the pending decision and reused when the arm's model has not changed
 * in between. Ties are broken at random.
 */
export class LinUCBDisjoint extends ArmPolicyBase<DisjointArm, VecPayload> {
  static readonly kind = "classic/linucb-disjoint";
  readonly kind = LinUCBDisjoint.kind;
  readonly exploration: number;
  readonly ridge: number;
  private readonly d: number;
  private readonly store: VecPayloadStore;
  private readonly x: Float64Array;
  private readonly uTmp: Float64Array;
  /** Scratch of the robust score path: the context scaled by a power of two. */
  private readonly xHat: Float64Array;

  constructor(options: LinUCBDisjointOptions) {
    rejectUnknownOptions(options, LINUCB_DISJOINT_OPTION_KEYS, LinUCBDisjoint.kind);
    const o = readOptions(options, LinUCBDisjoint.kind);
    const d = o.contextDim as number;
    assertInt(d, "option contextDim", 1, MAX_RIDGE_DIM);
    const store = new VecPayloadStore(d, d);
    super(options, store, d);
    this.store = store;
    this.d = d;
    this.exploration = numberOption(o, "exploration", 1, { min: 0 });
    // Bounded so A^-1 = I / ridge and its updates stay finite (5e-324 made 1 / ridge overflow).
    this.ridge = numberOption(o, "ridge", 1, RIDGE_RANGE);
    this.x = allocF64(d);
    this.uTmp = allocF64(d);
    this.xHat = allocF64(d);
    this.addInitialArms(options);
  }

  /** Ridge estimate theta_a = A_a^-1 b_a of arm `id` (a new array). */
  theta(id: string): Float64Array {
    const s = this.table.get(id);
    const out = new Float64Array(this.d);
    symvUpper(s.Ainv, this.d, s.b, out);
    return out;
  }

  protected createArm(uid: number): DisjointArm {
    const d = this.d;
    const Ainv = allocF64(d * d);
    setScaledIdentity(Ainv, d, 1 / this.ridge);
    return { uid, Ainv, b: allocF64(d), u: allocF64(d), version: 0 };
  }

  protected uidOf(p: VecPayload): number {
    return p.uid;
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const d = this.d;
    const x = this.x;
    const ctx = context as ArrayLike<number>;
    for (let i = 0; i < d; i++) x[i] = ctx[i] as number;
    checkContextNorm(dot(x, x, d));
    const k = this.table.size;
    const states = this.table.states;
    const scores = this.scores;
    const alpha = this.exploration;
    let finite = true;
    for (let i = 0; i < k; i++) {
      const s = states[i] as DisjointArm;
      symvUpper(s.Ainv, d, x, s.u);
      const width = Math.sqrt(Math.max(0, dot(x, s.u, d)));
      const score = dot(s.u, s.b, d) + alpha * width;
      scores[i] = score;
      // score - score is 0 exactly when the score is finite: one subtraction per arm on the usual path.
      if (score - score !== 0) finite = false;
    }
    if (!finite) this.scaledScores(k);
    const pick = argmaxRandomTie(scores, k, this.rng);
    const s = states[pick] as DisjointArm;
    // The scaled path left A^-1 x-hat in s.u: the pending decision carries the A^-1 x of the usual path.
    if (!finite) symvUpper(s.Ainv, d, x, s.u);
    const p = this.store.acquire(s.uid, s.version, x);
    p.u.set(s.u);
    return { id: this.ledger.issue(p), arm: this.table.ids[pick] as string };
  }

  /**
   * The rare path of choose, taken only when some score is not finite: x.A^-1 b can pass the largest double
   * (ridge 1e-8 makes A^-1 up to 1e8, b reaches 1e308, x up to 1e154), and +-Infinity sums, or 0 * Infinity at
   * exploration 0, made every score NaN, so select threw NUMERICAL on valid input after valid updates. Every
   * score is recomputed divided by one positive factor 2^ex 2^E common to all arms (so their order is kept):
   * x-hat = x 2^-ex with |x-hat| <= 2, and b and alpha divided by 2^E >= their magnitudes, which leaves
   * score / (2^ex 2^E) = A^-1 x-hat . (b 2^-E) + (alpha 2^-E) sqrt(x-hat A^-1 x-hat), every term finite
   * (|A^-1| <= 1 / ridge). Scores far below the best may underflow to 0 (ties only among arms far from the top).
   * Powers of two keep the scaling exact; the usual path's bits are untouched because it never comes here.
   */
  private scaledScores(k: number): void {
    const d = this.d;
    const x = this.x;
    const xHat = this.xHat;
    const states = this.table.states;
    const scores = this.scores;
    const ix = 2 ** -scaleExponent(maxAbs(x, d));
    for (let i = 0; i < d; i++) xHat[i] = (x[i] as number) * ix;
    let e = scaleExponent(this.exploration);
    for (let i = 0; i < k; i++) e = Math.max(e, scaleExponent(maxAbs((states[i] as DisjointArm).b, d)));
    const ie = 2 ** -e;
    const alpha = this.exploration * ie;
    for (let i = 0; i < k; i++) {
      const s = states[i] as DisjointArm;
      const u = s.u;
      const b = s.b;
      symvUpper(s.Ainv, d, xHat, u);
      let ub = 0;
      for (let j = 0; j < d; j++) ub += (u[j] as number) * ((b[j] as number) * ie);
      scores[i] = ub + alpha * Math.sqrt(Math.max(0, dot(xHat, u, d)));
    }
  }

  protected override eventContext(p: VecPayload): number[] {
    return vectorToJson(p.x, this.d);
  }

  /** The context's norm needs no arm's state: checked for every event, whatever arm it names. */
  protected override checkEventDecision(_event: ArmEvent, context: Float64Array | undefined): void {
    checkEventContextNorm(dot(context as Float64Array, context as Float64Array, this.d));
  }

  protected payloadFromEvent(_event: ArmEvent, s: DisjointArm, context: Float64Array | undefined): VecPayload {
    // Version -1 never matches the arm's, so the update recomputes A^-1 x from the model as it is now,
    // which is what a pending decision made before the latest update does too.
    return this.store.acquire(s.uid, -1, context as Float64Array);
  }

  protected override releaseEventPayload(p: VecPayload): void {
    this.store.dispose(p);
  }

  protected applyFeedback(s: DisjointArm, p: VecPayload, feedback: ArmFeedback): void {
    const reward = feedback.reward;
    const d = this.d;
    let u = p.u;
    if (p.version !== s.version || u.length !== d) {
      u = this.uTmp;
      symvUpper(s.Ainv, d, p.x, u);
    }
    const denom = 1 + dot(p.x, u, d);
    checkRidgeStep(dot(u, u, d), denom, Math.abs(reward) * Math.sqrt(dot(p.x, p.x, d)));
    // b += reward x must stay finite too: two rewards of 1e308 on the same arm overflow b alone.
    const b = s.b;
    for (let k = 0; k < d; k++) {
      if (!Number.isFinite((b[k] as number) + reward * (p.x[k] as number))) checkRidgeStep(0, 1, Infinity);
    }
    shermanMorrisonWithU(s.Ainv, d, p.x, u, 1);
    clampInverseDiagonal(s.Ainv, d);
    axpy(reward, p.x, b, d);
    s.version++;
  }

  protected override onRemoved(s: DisjointArm): void {
    freeF64(s.Ainv);
    freeF64(s.b);
    freeF64(s.u);
  }

  protected encodeArm(s: DisjointArm): Record<string, Json> {
    return { version: s.version, Ainv: encodeF64(s.Ainv), b: encodeF64(s.b) };
  }

  toJSON(): Snapshot {
    return makeSnapshot(LinUCBDisjoint.kind, CLASSIC_SNAPSHOT_VERSION, {
      exploration: this.exploration,
      ridge: this.ridge,
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): LinUCBDisjoint {
    const st = readSnapshot(snapshot, LinUCBDisjoint.kind, CLASSIC_SNAPSHOT_VERSION);
    const exploration = readNumber(st, "exploration", (v) => v >= 0, "a finite number >= 0");
    const ridge = readNumber(
      st,
      "ridge",
      (v) => v >= RIDGE_RANGE.min && v <= RIDGE_RANGE.max,
      "a number in [1e-8, 1e8]",
    );
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      maxContextDim: MAX_RIDGE_DIM,
      arm: (json, d) => ({
        version: readInt(json, "version", 0),
        // A^-1 is positive definite: its diagonal is > 0, or 0 where rounding cancelled it (see clampInverseDiagonal).
        Ainv: readF64(json.Ainv, "arms[].Ainv", d * d, (x, i) => i % (d + 1) !== 0 || x >= 0),
        b: readF64(json.b, "arms[].b", d),
      }),
      payload: (json, d) => checkVecPayload(json, d, (n) => n === d),
    });
    return restoring(LinUCBDisjoint.kind, () => {
      const p = new LinUCBDisjoint({
        arms: [],
        exploration,
        ridge,
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
      });
      const d = p.d;
      p.restoreBase(snap, (a, uid) => ({
        uid,
        Ainv: allocF64From(a.Ainv),
        b: allocF64From(a.b),
        u: allocF64(d),
        version: a.version,
      }));
      return p;
    });
  }
}
