import {
  type ArmDecision,
  type ArmFeedback,
  argmaxRandomTie,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  readArmBaseState,
  readInt,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import { allocF64 } from "@routekit/linalg";
import { KERNEL_POLICY_OPTION_KEYS, KernelPolicyBase, type KernelPolicyOptions, readCommonJSON } from "./base.js";
import {
  checkKernelScale,
  DotKernel,
  type KernelSpec,
  kernelOption,
  type ResolvedKernel,
  readKernelJSON,
} from "./kernel.js";
import { ExactKrr, MAX_INITIAL_CAPACITY } from "./krr.js";
import { type KernelPayload, readPayload } from "./payload.js";

export interface KernelUcbOptions extends KernelPolicyOptions {
  /** Kernel on the augmented context [y; e_g] (default the paper's baseline: poly3 gamma = 1, c = 1). */
  readonly kernel?: KernelSpec;
  /** Initial capacity (points) of the shared regression's buffers (default 64), in [1, 4096]. */
  readonly initialCapacity?: number;
}

/** The option keys of {@link KernelUcbOptions}. */
export const KERNEL_UCB_OPTION_KEYS = optionKeys<KernelUcbOptions>()([
  ...KERNEL_POLICY_OPTION_KEYS,
  "kernel",
  "initialCapacity",
]);

/** An arm of KernelUCB: its uid is also its slot in the one-hot code (never reused). */
interface TagArm {
  readonly uid: number;
}

const KIND = "kernel-ucb/kernel-ucb";
/** 2: shared option names, arm uids (= one-hot slots), maxPending, contexts as received. */
const VERSION = 2;

/**
 * KernelUCB with shared weights (Valko et al. 2013), the paper's baseline: one kernel ridge
 * regression over all past (x, s) with the augmented context x = [y; e_g] (one-hot arm id), UCB
 * evaluated at [y_t; e_g] for every arm. It can only learn what a shared function of [y; e_g]
 * can express, which is why per-arm PAK-UCB beats it when the best model depends on the prompt.
 * O(t d + G t^2) per round. The reference code's baseline used 2 ln(2G/delta) without the square
 * root as its exploration: pass that number to reproduce it.
 */
export class KernelUcb extends KernelPolicyBase<TagArm> {
  static readonly kind = KIND;
  readonly kind = KIND;
  readonly kernel: ResolvedKernel;
  readonly initialCapacity: number;
  private readonly dotKernel: DotKernel;
  private krr: ExactKrr;
  private dots: Float64Array;
  private cur: Float64Array;
  private best: Float64Array;
  private cacheSeq = -1;

  constructor(options: KernelUcbOptions) {
    rejectUnknownOptions(options, KERNEL_UCB_OPTION_KEYS, "KernelUcb");
    super(options, { what: "KernelUcb", defaultExploration: "paper" });
    const o = readOptions(options, "KernelUcb");
    this.dotKernel = kernelOption(o, { type: "poly", gamma: 1, c: 1, degree: 3 });
    this.kernel = this.dotKernel.spec;
    // Normalised augmented contexts [y; e_g] have squared norm 2.
    // Unnormalised contexts are checked one by one, but diag is least at y = 0: a kernel above the bound there
    // (poly with c^degree > 1e4 ridge) would refuse every context, so it is refused here.
    checkKernelScale(this.dotKernel.diag(this.normalizeContext ? 2 : 1), this.ridge, "option kernel");
    this.initialCapacity = numberOption(o, "initialCapacity", 64, { integer: true, min: 1, max: MAX_INITIAL_CAPACITY });
    this.krr = new ExactKrr(this.contextDim, this.dotKernel, this.ridge, this.initialCapacity, this.counter);
    this.dots = allocF64(this.krr.cap);
    this.cur = allocF64(this.krr.cap);
    this.best = allocF64(this.krr.cap);
    this.addInitialArms(options);
  }

  protected createArm(uid: number): TagArm {
    return { uid };
  }

  /** Points in the shared regression. */
  get size(): number {
    return this.krr.n;
  }

  /** The shared regression (read-only use: tests and diagnostics such as `drift()`). */
  regression(): ExactKrr {
    return this.krr;
  }

  private ensureScratch(): void {
    const cap = this.krr.cap;
    if (this.dots.length < cap) {
      this.dots = allocF64(cap);
      this.cur = allocF64(cap);
      this.best = allocF64(cap);
    }
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const x = context as Float64Array;
    const ny = this.normalized(x);
    this.ensureScratch();
    const G = this.table.size;
    const e = this.currentExploration();
    const kyy = this.kyy(ny);
    const krr = this.krr;
    krr.dots(this.y, this.dots);
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < G; g++) {
      const b = krr.rowTagged(this.dots, ny, (this.table.states[g] as TagArm).uid, this.cur);
      const ucb = krr.mean(b) + e * Math.sqrt(krr.variance(b, kyy));
      this.scores[g] = ucb;
      if (ucb > bestScore) {
        bestScore = ucb;
        this.cur = this.best;
        this.best = b;
      }
    }
    const pick = argmaxRandomTie(this.scores, G, this.rng);
    // `best` holds the row of the first maximiser; a tie broken elsewhere recomputes at update.
    const cached = this.scores[pick] === bestScore && firstMax(this.scores, G, bestScore) === pick;
    const decision = this.issue(pick, x);
    this.cacheSeq = cached ? (this.issued as KernelPayload).seq : -1;
    return decision;
  }

  protected applyFeedback(arm: TagArm, p: KernelPayload, feedback: ArmFeedback): void {
    const score = this.score(feedback.reward);
    const krr = this.krr;
    const ny = this.normalized(p.x);
    const kyy = this.kyy(ny);
    let b = this.best;
    // The cached row is the same function of the same context and regression (bit for bit).
    if (p.seq < 0 || this.cacheSeq !== p.seq) {
      this.ensureScratch();
      krr.dots(this.y, this.dots);
      b = krr.rowTagged(this.dots, ny, arm.uid, this.best);
    }
    this.cacheSeq = -1;
    krr.append(this.y, ny, score, b, kyy, arm.uid);
  }

  /** k at the augmented context, ||[y; e]||^2 = ny + 1; an unnormalised context too large for the ridge is OUT_OF_RANGE. */
  private kyy(ny: number): number {
    this.checkContextScale(ny);
    return this.dotKernel.diag(ny + 1);
  }

  protected override checkContextScale(ny: number): void {
    if (!this.normalizeContext) checkKernelScale(this.dotKernel.diag(ny + 1), this.ridge, "context");
  }

  protected override onRemoved(): void {
    this.cacheSeq = -1;
  }

  protected encodeArm(): Record<string, Json> {
    return {};
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      ...this.commonJSON(),
      kernel: this.kernel as unknown as Json,
      initialCapacity: this.initialCapacity,
      regression: this.krr.toJSON(),
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): KernelUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    return restoring(KIND, () => {
      const common = readCommonJSON(st);
      const kernel = readKernelJSON(st.kernel);
      const initialCapacity = readInt(st, "initialCapacity", 1, MAX_INITIAL_CAPACITY);
      const snap = readArmBaseState(st, {
        minContextDim: 1,
        arm: () => null,
        payload: (json, d) => readPayload(json, d, false, 0),
      });
      const krr = ExactKrr.fromJSON(st.regression, snap.contextDim, new DotKernel(kernel), common.ridge);
      // Every row is tagged with the one-hot slot (uid) of the arm that played it.
      for (let i = 0; i < krr.n; i++) {
        const t = krr.tags[i] as number;
        if (t < 0 || t >= snap.nextUid) snapshotCorrupt(`regression.tags[${i}]`, "the uid of an arm");
      }
      const p = new KernelUcb({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        ...common,
        kernel,
        initialCapacity,
      });
      p.krr = krr;
      p.ensureScratch();
      p.restoreBase(snap, (_, uid) => ({ uid }));
      return p;
    });
  }
}

function firstMax(s: Float64Array, n: number, m: number): number {
  for (let i = 0; i < n; i++) if (s[i] === m) return i;
  return -1;
}
