import {
  type ArmDecision,
  type ArmFeedback,
  argmaxRandomTie,
  functionOption,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  readArmBaseState,
  readInt,
  readObject,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  type VectorInput,
} from "@routekit/core";
import {
  type ArmPrediction,
  KERNEL_POLICY_OPTION_KEYS,
  KernelPolicyBase,
  type KernelPolicyOptions,
  readCommonJSON,
} from "./base.js";
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
import { pickUnvisited } from "./select.js";

export interface PakUcbOptions extends KernelPolicyOptions {
  /**
   * Kernel (default RBF sigma = 1: on unit vectors the image runs' sigma = 5 is almost linear; the
   * paper's image runs use sigma = 5 and poly3 with gamma = 5 or 10).
   */
  readonly kernel?: KernelSpec;
  /** Initial per-arm capacity (points) of the growable buffers (default 16), in [1, 4096]. */
  readonly initialCapacity?: number;
  /**
   * Called once per arm when its buffers grow to room for 8192 points or more (the x1.5 growth: with the
   * default initialCapacity, at the 7,066th point; its inverse alone is then >= 512 MB and each round
   * costs O(n^2)). Default: console.warn. Consider RffUcb, whose memory is fixed.
   */
  readonly onWarning?: (message: string) => void;
}

/** The option keys of {@link PakUcbOptions}. */
export const PAK_UCB_OPTION_KEYS = optionKeys<PakUcbOptions>()([
  ...KERNEL_POLICY_OPTION_KEYS,
  "kernel",
  "initialCapacity",
  "onWarning",
]);

interface PakArm {
  readonly uid: number;
  readonly krr: ExactKrr;
}

/**
 * Most live arms for which select keeps every arm's Q b (see ExactKrr.varianceOfRow). Keeping it costs each arm
 * a product pass instead of a quadratic-form pass (about 1.1-1.3x), and saves the chosen arm's update one product
 * pass: a gain up to about 3-5 arms (measured medians, WebAssembly SIMD, n = 400 / 1000 / 2000 points per arm:
 * quadratic form 0.030 / 0.41 / 2.2 ms, product 0.042 / 0.56 / 2.8 ms, both in one pass 0.041 / 0.58 / 2.7 ms).
 */
const KEEP_PRODUCT_MAX_ARMS = 3;

const KIND = "kernel-ucb/pak-ucb";
/** 2: shared option names (ridge, exploration, confidence), arm uids, maxPending, contexts as received. */
const VERSION = 2;

/**
 * PAK-UCB (Hu, Leung, Farnia, ICML 2025, Algorithm 2): one kernel ridge regression per arm on the
 * prompts that arm served; play argmax_g mu_g(y) + exploration * sigma_g(y). Unvisited arms are played
 * first (uniformly among them), ties are broken at random, arms added at run time are explored next.
 *
 * Per round: O(n_g d + n_g^2) per arm (one gemv for the kernel row, one quadratic form on the
 * upper-triangle inverse), and O(n d + n^2) for the chosen arm's bordered-inverse update. The
 * chosen arm's kernel row is kept between select and update when nothing happened in between; with at most
 * three arms, so is its Q b (each arm's quadratic form is then computed together with Q b, in one pass), and the
 * update makes one pass over that arm's inverse (the rank-1 update) instead of two. Same bits either way.
 */
export class PakUcb extends KernelPolicyBase<PakArm> {
  static readonly kind = KIND;
  readonly kind = KIND;
  /** The kernel with its defaults filled in. */
  readonly kernel: ResolvedKernel;
  readonly initialCapacity: number;
  private readonly dotKernel: DotKernel;
  private readonly onWarning: (message: string) => void;
  /** Sequence number of the decision whose select left the chosen arm's kernel row in its scratch. */
  private cacheSeq = -1;
  private readonly nOf = (i: number): number => (this.table.states[i] as PakArm).krr.n;

  constructor(options: PakUcbOptions) {
    rejectUnknownOptions(options, PAK_UCB_OPTION_KEYS, "PakUcb");
    super(options, { what: "PakUcb", defaultExploration: "paper" });
    const o = readOptions(options, "PakUcb");
    this.dotKernel = kernelOption(o, { type: "rbf", sigma: 1 });
    this.kernel = this.dotKernel.spec;
    // Normalised contexts have ||y|| = 1, so k(y, y) <= diag(1) (diag grows with ||y||^2).
    // Unnormalised contexts are checked one by one, but diag is least at y = 0: a kernel above the bound there
    // (poly with c^degree > 1e4 ridge) would refuse every context, so it is refused here.
    checkKernelScale(this.dotKernel.diag(this.normalizeContext ? 1 : 0), this.ridge, "option kernel");
    this.initialCapacity = numberOption(o, "initialCapacity", 16, { integer: true, min: 1, max: MAX_INITIAL_CAPACITY });
    this.onWarning = functionOption<(m: string) => void>(o, "onWarning", undefined) ?? ((m: string) => console.warn(m));
    this.addInitialArms(options);
  }

  protected createArm(uid: number): PakArm {
    return {
      uid,
      krr: this.watch(new ExactKrr(this.contextDim, this.dotKernel, this.ridge, this.initialCapacity, this.counter)),
    };
  }

  private watch(s: ExactKrr): ExactKrr {
    s.onLarge = (cap) => {
      // onWarning runs in the middle of an update: calls back into the policy are refused (see `callback`).
      this.callback = "onWarning";
      try {
        this.onWarning(
          `@routekit/kernel-ucb: a PAK-UCB arm now holds ${s.n} points; its exact inverse needs ${Math.round((cap * cap * 8) / 2 ** 20)} MB and O(n^2) time per round (RffUcb has fixed memory)`,
        );
      } finally {
        this.callback = undefined;
      }
    };
    return s;
  }

  /** Visits per arm. */
  visits(): Record<string, number> {
    return this.perArm((s) => s.krr.n);
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const x = context as Float64Array;
    const ny = this.normalized(x);
    const kyy = this.kyy(ny);
    const G = this.table.size;
    const states = this.table.states;
    let pick = pickUnvisited(G, this.nOf, this.rng);
    if (pick < 0) {
      const e = this.currentExploration();
      for (let g = 0; g < G; g++) {
        const s = (states[g] as PakArm).krr;
        const b = s.row(this.y, ny);
        const mu = s.mean(b);
        if (e === 0) this.scores[g] = mu;
        else {
          // varianceOfRow: variance(b, kyy)'s bits, keeping Q b for the update if this arm is chosen.
          const v = G <= KEEP_PRODUCT_MAX_ARMS ? s.varianceOfRow(kyy) : s.variance(b, kyy);
          this.scores[g] = mu + e * Math.sqrt(v);
        }
      }
      pick = argmaxRandomTie(this.scores, G, this.rng);
    }
    const decision = this.issue(pick, x);
    this.cacheSeq = (this.issued as KernelPayload).seq;
    return decision;
  }

  protected applyFeedback(arm: PakArm, p: KernelPayload, feedback: ArmFeedback): void {
    const score = this.score(feedback.reward);
    const s = arm.krr;
    const ny = this.normalized(p.x);
    const kyy = this.kyy(ny);
    // The cached row is the same function of the same context and state (bit for bit).
    const b = s.n > 0 && p.seq >= 0 && this.cacheSeq === p.seq ? s.b : s.row(this.y, ny);
    this.cacheSeq = -1;
    s.append(this.y, ny, score, b, kyy);
  }

  /** k(y, y) for ||y||^2 = ny; an unnormalised context too large for the ridge is OUT_OF_RANGE. */
  private kyy(ny: number): number {
    this.checkContextScale(ny);
    return this.dotKernel.diag(ny);
  }

  protected override checkContextScale(ny: number): void {
    if (!this.normalizeContext) checkKernelScale(this.dotKernel.diag(ny), this.ridge, "context");
  }

  protected override onRemoved(): void {
    this.cacheSeq = -1;
  }

  /** mu, sigma and the UCB index of every arm for `context` (no state change, no RNG draw). */
  predict(context: VectorInput): ArmPrediction[] {
    const x = this.readContext(context, "context");
    const y = new Float64Array(this.contextDim);
    const ny = this.normalized(x);
    y.set(this.y);
    const e = this.currentExploration();
    const kyy = this.kyy(ny);
    return this.table.ids.map((arm, g) => {
      const s = (this.table.states[g] as PakArm).krr;
      if (s.n === 0) return this.prediction(arm, 0, 0, 0, e);
      const b = s.row(y, ny, new Float64Array(s.n));
      return this.prediction(arm, s.n, s.mean(b), Math.sqrt(s.variance(b, kyy)), e);
    });
  }

  /** The arm's regression state (read-only use: tests and diagnostics). */
  regression(arm: string): ExactKrr {
    return this.table.get(arm).krr;
  }

  protected encodeArm(a: PakArm): Record<string, Json> {
    return { state: a.krr.toJSON() };
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      ...this.commonJSON(),
      kernel: this.kernel as unknown as Json,
      initialCapacity: this.initialCapacity,
      ...this.baseState(),
    });
  }

  static fromJSON(snapshot: unknown): PakUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    return restoring(KIND, () => {
      const common = readCommonJSON(st);
      const kernel = readKernelJSON(st.kernel);
      const initialCapacity = readInt(st, "initialCapacity", 1, MAX_INITIAL_CAPACITY);
      const dk = new DotKernel(kernel);
      const snap = readArmBaseState(st, {
        minContextDim: 1,
        arm: (json, d) => ExactKrr.fromJSON(readObject(json, "arm").state as Json, d, dk, common.ridge),
        payload: (json, d) => readPayload(json, d, false, 0),
      });
      const p = new PakUcb({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        ...common,
        kernel,
        initialCapacity,
      });
      p.restoreBase(snap, (krr, uid) => ({ uid, krr: p.watch(krr) }));
      return p;
    });
  }
}
