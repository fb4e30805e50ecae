import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmState,
  argmaxRandomTie,
  assertInt,
  ErrorCode,
  encodeF64,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  RouteKitError,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  snapshotCorrupt,
  vectorToJson,
} from "@routekit/core";
import { allocF64, axpy, dot, freeF64, setScaledIdentity, shermanMorrisonWithU, symvUpper } from "@routekit/linalg";
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

export interface LinUCBSharedOptions extends BasePolicyOptions {
  /** Context length d (>= 1). */
  readonly contextDim: number;
  /** Exploration multiplier (the paper's alpha) in z.theta + alpha sqrt(z^T A^-1 z) (default 1), >= 0. */
  readonly exploration?: number;
  /** Ridge lambda: A starts at lambda I_{d+M} (default 1), > 0. */
  readonly ridge?: number;
  /**
   * One-hot slots reserved up front (default 64, or 4,096 - contextDim when that is less). Every arm ever added takes a slot (slots of removed
   * arms are not reused, so a re-added id starts fresh); past `maxArms` the model doubles its capacity,
   * which is exact because an unused slot's row and column of A are lambda e_j.
   */
  readonly maxArms?: number;
}

/** The option keys of {@link LinUCBSharedOptions}. */
export const LINUCB_SHARED_OPTION_KEYS = optionKeys<LinUCBSharedOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "exploration",
  "ridge",
  "maxArms",
]);

interface SharedArm extends ArmState {
  /** Index of this arm's one-hot coordinate (feature d + slot). */
  readonly slot: number;
}

/**
 * LinUCB with one shared ridge model over z = [x; one-hot(arm)] (Chu, Li, Reyzin & Schapire 2011's
 * LinUCB on per-arm feature vectors, as used for the "LinUCB" baseline of Hu, Leung & Farnia 2025):
 * A = lambda I + sum z z^T, theta = A^-1 b, index z.theta + alpha sqrt(z^T A^-1 z). It can only learn
 * a shared linear function of the context plus a per-arm offset, so it cannot represent rankings that
 * change with the context; it is the shared-weight baseline of the per-arm methods.
 *
 * The block structure of z makes select O(d (d + M)) for all K arms together (one product with the
 * first d columns of A^-1, then O(1) per arm); update is one Sherman-Morrison step, O((d + M)^2),
 * with theta updated incrementally (recursive least squares: theta += (r - z.theta) A_new^-1 z).
 */
export class LinUCBShared extends ArmPolicyBase<SharedArm, VecPayload> {
  static readonly kind = "classic/linucb-shared";
  readonly kind = LinUCBShared.kind;
  readonly exploration: number;
  readonly ridge: number;
  readonly maxArms: number;
  private readonly d: number;
  private readonly store: VecPayloadStore;
  private readonly x: Float64Array;
  /** Slot capacity M; the row stride of the matrices is d + M. */
  private cap = 0;
  private ld = 0;
  private slotsUsed = 0;
  /** Bumped by every update and every new slot; pending payloads with another version recompute u. */
  private version = 0;
  private Ainv: Float64Array = new Float64Array(0);
  private thetaV: Float64Array = new Float64Array(0);
  private w: Float64Array = new Float64Array(0);
  private z: Float64Array = new Float64Array(0);
  private uTmp: Float64Array = new Float64Array(0);
  /** Scratch of the robust score path: the context scaled by a power of two. */
  private readonly xHat: Float64Array;

  constructor(options: LinUCBSharedOptions) {
    rejectUnknownOptions(options, LINUCB_SHARED_OPTION_KEYS, LinUCBShared.kind);
    const o = readOptions(options, LinUCBShared.kind);
    const d = o.contextDim as number;
    assertInt(d, "option contextDim", 1, MAX_RIDGE_DIM - 1);
    // The default fits the 4,096-feature cap: a plain 64 made every contextDim above 4,032 throw OUT_OF_RANGE
    // for an option the caller never gave.
    const maxArms = (o.maxArms as number | undefined) ?? Math.min(64, MAX_RIDGE_DIM - d);
    assertInt(maxArms, "option maxArms", 1, MAX_RIDGE_DIM - d);
    const store = new VecPayloadStore(d, d + maxArms);
    super(options, store, d);
    this.store = store;
    this.d = d;
    this.maxArms = maxArms;
    this.exploration = numberOption(o, "exploration", 1, { min: 0 });
    // Bounded so A^-1 = I / ridge and its updates stay finite (5e-324 made 1 / ridge overflow).
    this.ridge = numberOption(o, "ridge", 1, RIDGE_RANGE);
    this.x = allocF64(d);
    this.xHat = allocF64(d);
    this.resize(maxArms);
    setScaledIdentity(this.Ainv, d, 1 / this.ridge, this.ld);
    this.addInitialArms(options);
  }

  /** Current one-hot capacity (grows by doubling past maxArms). */
  get capacity(): number {
    return this.cap;
  }

  /** The shared estimate theta = A^-1 b over [x; one-hot] for the slots in use (a new array). */
  theta(): Float64Array {
    return this.thetaV.slice(0, this.d + this.slotsUsed);
  }

  /** Reallocates the model for `cap` slots, keeping the active block. */
  private resize(cap: number): void {
    const ld = this.d + cap;
    const active = this.ld === 0 ? 0 : this.d + this.slotsUsed;
    const A = allocF64(ld * ld);
    for (let i = 0; i < active; i++) {
      for (let j = i; j < active; j++) A[i * ld + j] = this.Ainv[i * this.ld + j] as number;
    }
    const theta = allocF64(ld);
    for (let i = 0; i < active; i++) theta[i] = this.thetaV[i] as number;
    for (const old of [this.Ainv, this.thetaV, this.w, this.z, this.uTmp]) freeF64(old);
    this.Ainv = A;
    this.thetaV = theta;
    this.w = allocF64(ld);
    this.z = allocF64(ld);
    this.uTmp = allocF64(ld);
    this.cap = cap;
    this.ld = ld;
    this.store.setULength(ld);
  }

  protected createArm(uid: number): SharedArm {
    if (this.slotsUsed === this.cap) {
      // Doubling, but never past the bound: the last growth stops at MAX_RIDGE_DIM - d slots, so every arm
      // that fits (context + slots <= MAX_RIDGE_DIM) can be added (doubling past it refused arms that fit).
      if (this.d + this.cap + 1 > MAX_RIDGE_DIM) {
        throw new RouteKitError(
          ErrorCode.OutOfRange,
          `cannot add an arm: the shared model would exceed ${MAX_RIDGE_DIM} features (context + one slot per arm ever added)`,
        );
      }
      this.resize(Math.min(this.cap * 2, MAX_RIDGE_DIM - this.d));
    }
    const slot = this.slotsUsed++;
    const j = this.d + slot;
    this.Ainv[j * this.ld + j] = 1 / this.ridge;
    this.version++;
    return { uid, slot };
  }

  protected uidOf(p: VecPayload): number {
    return p.uid;
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const d = this.d;
    const ld = this.ld;
    const A = this.Ainv;
    const x = this.x;
    const w = this.w;
    const ctx = context as ArrayLike<number>;
    for (let i = 0; i < d; i++) x[i] = ctx[i] as number;
    checkContextNorm(dot(x, x, d));
    this.fillW(x, w);
    const xPx = dot(x, w, d);
    const xTheta = dot(x, this.thetaV, d);
    const k = this.table.size;
    const states = this.table.states;
    const scores = this.scores;
    const theta = this.thetaV;
    const alpha = this.exploration;
    let finite = true;
    for (let i = 0; i < k; i++) {
      const j = d + (states[i] as SharedArm).slot;
      const quad = xPx + 2 * (w[j] as number) + (A[j * ld + j] as number);
      const score = xTheta + (theta[j] as number) + alpha * Math.sqrt(Math.max(0, quad));
      scores[i] = score;
      // score - score is 0 exactly when the score is finite: one subtraction per arm on the usual path.
      if (score - score !== 0) finite = false;
    }
    if (!finite) {
      this.scaledScores(k);
      // The scaled path left A^-1[:, 0:d] x-hat in w: the pending decision carries the usual path's u.
      this.fillW(x, w);
    }
    const pick = argmaxRandomTie(scores, k, this.rng);
    const s = states[pick] as SharedArm;
    const p = this.store.acquire(s.uid, this.version, x);
    this.fillU(w, d + s.slot, p.u);
    return { id: this.ledger.issue(p), arm: this.table.ids[pick] as string };
  }

  /**
   * The rare path of choose, taken only when some score is not finite: x.theta can pass the largest double
   * (x up to 1e154, theta up to 1e308), x^T A^-1 x too (ridge 1e-8), and +-Infinity sums, or 0 * Infinity at
   * exploration 0, made every score NaN, so select threw NUMERICAL on valid input after valid updates. Every score
   * is recomputed divided by one positive factor 2^ex 2^E common to all arms (so their order is kept): with
   * x-hat = x 2^-ex (|x-hat| <= 2, ex >= 0), w-hat = A^-1[:, 0:d] x-hat and theta, alpha divided by 2^E >= their
   * magnitudes, score / (2^ex 2^E) = x-hat . theta-hat + theta-hat_j 2^-ex
   * + alpha-hat sqrt(x-hat P x-hat + 2 w-hat_j 2^-ex + A_jj 2^-2ex), every term finite (|A^-1| <= 1 / ridge).
   * Scores far below the best may underflow to 0. Powers of two keep the scaling exact; the usual path's bits are
   * untouched because it never comes here.
   */
  private scaledScores(k: number): void {
    const d = this.d;
    const ld = this.ld;
    const A = this.Ainv;
    const x = this.x;
    const xHat = this.xHat;
    const w = this.w;
    const theta = this.thetaV;
    const states = this.table.states;
    const scores = this.scores;
    const ix = 2 ** -scaleExponent(maxAbs(x, d));
    for (let i = 0; i < d; i++) xHat[i] = (x[i] as number) * ix;
    this.fillW(xHat, w);
    const xPx = dot(xHat, w, d);
    const ie = 2 ** -Math.max(scaleExponent(this.exploration), scaleExponent(maxAbs(theta, d + this.slotsUsed)));
    const alpha = this.exploration * ie;
    let xTheta = 0;
    for (let i = 0; i < d; i++) xTheta += (xHat[i] as number) * ((theta[i] as number) * ie);
    for (let i = 0; i < k; i++) {
      const j = d + (states[i] as SharedArm).slot;
      const quad = xPx + 2 * ((w[j] as number) * ix) + (A[j * ld + j] as number) * ix * ix;
      scores[i] = xTheta + (theta[j] as number) * ie * ix + alpha * Math.sqrt(Math.max(0, quad));
    }
  }

  /**
   * u = A^-1 z = w + column j of A^-1 (upper storage: rows <= j hold it, then row j), with
   * w = A^-1[:, 0:d] x. The one formula for u, at select and at update, so an update that reuses the
   * u of its decision and one that recomputes it (a logged event) give the same bits.
   */
  private fillU(w: Float64Array, j: number, u: Float64Array): void {
    const A = this.Ainv;
    const ld = this.ld;
    const active = this.d + this.slotsUsed;
    for (let i = 0; i <= j; i++) u[i] = (w[i] as number) + (A[i * ld + j] as number);
    for (let i = j + 1; i < active; i++) u[i] = (w[i] as number) + (A[j * ld + i] as number);
    u.fill(0, active);
  }

  /**
   * w = A^-1[:, 0:d] x: the x block by a symmetric product, then the slot entries from the cross block
   * (rows 0..d-1, columns d..d+slots of the upper storage), row by row so each row's few slot entries
   * are read contiguously. (A gemvT over all columns computed the x block twice: at d = 512 that was
   * half of a round.)
   */
  private fillW(x: Float64Array, w: Float64Array): void {
    const d = this.d;
    const ld = this.ld;
    const A = this.Ainv;
    const end = d + this.slotsUsed;
    symvUpper(A, d, x, w, ld);
    w.fill(0, d, end);
    for (let i = 0; i < d; i++) {
      const xi = x[i] as number;
      const row = i * ld;
      for (let j = d; j < end; j++) w[j] = (w[j] as number) + xi * (A[row + j] as number);
    }
  }

  protected override eventContext(p: VecPayload): number[] {
    return vectorToJson(p.x, this.d);
  }

  /** The context's norm needs no arm's state: checked for every event, whatever arm it names. */
  protected override checkEventDecision(_event: ArmEvent, context: Float64Array | undefined): void {
    checkEventContextNorm(dot(context as Float64Array, context as Float64Array, this.d));
  }

  protected payloadFromEvent(_event: ArmEvent, s: SharedArm, context: Float64Array | undefined): VecPayload {
    // Version -1 never matches the arm's, so the update recomputes A^-1 x from the model as it is now,
    // which is what a pending decision made before the latest update does too.
    return this.store.acquire(s.uid, -1, context as Float64Array);
  }

  protected override releaseEventPayload(p: VecPayload): void {
    this.store.dispose(p);
  }

  protected applyFeedback(s: SharedArm, p: VecPayload, feedback: ArmFeedback): void {
    const reward = feedback.reward;
    const d = this.d;
    const ld = this.ld;
    const active = d + this.slotsUsed;
    const j = d + s.slot;
    const z = this.z;
    for (let i = 0; i < d; i++) z[i] = p.x[i] as number;
    z[j] = 1;
    let u = p.u;
    if (p.version !== this.version || u.length !== ld) {
      u = this.uTmp;
      this.fillW(p.x, this.w);
      this.fillU(this.w, j, u);
    }
    const pred = dot(p.x, this.thetaV, d) + (this.thetaV[j] as number);
    const denom = 1 + dot(z, u, active);
    const uu = dot(u, u, active);
    const coef = (reward - pred) / denom;
    try {
      checkRidgeStep(uu, denom, Math.abs(coef) * Math.sqrt(uu));
      // theta += coef u must stay finite too (as LinUCB-disjoint's b): rewards near 1e308 of both signs pushed an
      // entry past the largest double, and the snapshot of that state did not restore (theta must be finite).
      const theta = this.thetaV;
      for (let i = 0; i < active; i++) {
        if (!Number.isFinite((theta[i] as number) + coef * (u[i] as number))) checkRidgeStep(0, 1, Infinity);
      }
    } catch (e) {
      z[j] = 0;
      throw e;
    }
    shermanMorrisonWithU(this.Ainv, active, z, u, 1, ld);
    clampInverseDiagonal(this.Ainv, active, ld);
    axpy(coef, u, this.thetaV, active);
    z[j] = 0;
    this.version++;
  }

  protected encodeArm(s: SharedArm): Record<string, Json> {
    return { slot: s.slot };
  }

  toJSON(): Snapshot {
    return makeSnapshot(LinUCBShared.kind, CLASSIC_SNAPSHOT_VERSION, {
      exploration: this.exploration,
      ridge: this.ridge,
      maxArms: this.maxArms,
      capacity: this.cap,
      slotsUsed: this.slotsUsed,
      version: this.version,
      Ainv: encodeF64(this.Ainv),
      theta: encodeF64(this.thetaV),
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): LinUCBShared {
    const st = readSnapshot(snapshot, LinUCBShared.kind, CLASSIC_SNAPSHOT_VERSION);
    const exploration = readNumber(st, "exploration", (v) => v >= 0, "a finite number >= 0");
    const ridge = readNumber(
      st,
      "ridge",
      (v) => v >= RIDGE_RANGE.min && v <= RIDGE_RANGE.max,
      "a number in [1e-8, 1e8]",
    );
    const d = readInt(st, "contextDim", 1, MAX_RIDGE_DIM - 1);
    const maxArms = readInt(st, "maxArms", 1, MAX_RIDGE_DIM - d);
    const cap = readInt(st, "capacity", maxArms, MAX_RIDGE_DIM - d);
    let c = maxArms;
    while (c < cap) c *= 2;
    // The last growth may stop at the bound (see createArm).
    if (c !== cap && cap !== MAX_RIDGE_DIM - d) {
      snapshotCorrupt('"capacity"', `maxArms (${maxArms}) times a power of 2, or ${MAX_RIDGE_DIM} - contextDim`);
    }
    const slotsUsed = readInt(st, "slotsUsed", 0, cap);
    const version = readInt(st, "version", 0);
    const ld = d + cap;
    const active = d + slotsUsed;
    // A^-1 is positive definite on the active block: its diagonal there is > 0, or 0 where rounding
    // cancelled it (see clampInverseDiagonal).
    const Ainv = readF64(st.Ainv, "Ainv", ld * ld, (x, i) => {
      const r = Math.floor(i / ld);
      return r !== i % ld || r >= active || x >= 0;
    });
    const theta = readF64(st.theta, "theta", ld);
    const slots = new Set<number>();
    const snap = readArmBaseState(st, {
      minContextDim: d,
      maxContextDim: d,
      arm: (json) => {
        const slot = readInt(json, "slot", 0, slotsUsed - 1);
        if (slots.has(slot)) snapshotCorrupt("arms[].slot", `unique (slot ${slot} is used twice)`);
        slots.add(slot);
        return slot;
      },
      payload: (json) => checkVecPayload(json, d, (n) => n > d && n <= ld),
    });
    return restoring(LinUCBShared.kind, () => {
      const p = new LinUCBShared({
        arms: [],
        exploration,
        ridge,
        maxArms,
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
      });
      if (cap !== p.cap) p.resize(cap);
      p.Ainv.set(Ainv);
      p.thetaV.set(theta);
      p.slotsUsed = slotsUsed;
      p.version = version;
      p.restoreBase(snap, (slot, uid) => ({ uid, slot }));
      return p;
    });
  }
}
