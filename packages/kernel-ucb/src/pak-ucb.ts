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
  field,
  type Json,
  makeSnapshot,
  ObjectPool,
  Rng,
  RouteKitError,
  readId,
  readObject,
  readSnapshot,
  type Snapshot,
} from "@routekit/core";
import { allocF64 } from "@routekit/linalg";
import { type ContextPayload, checkInitialArms, contextPayloadCodec, feedbackReward } from "./common.js";
import { DotKernel, type KernelSpec } from "./kernel.js";
import { ExactKrr, MAX_INITIAL_CAPACITY, type OpCounter } from "./krr.js";
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
import { argmaxRandomTies, pickUnvisited } from "./select.js";

export interface PakUcbOptions {
  /** Initial arm ids (may be empty; add arms later with addArm). */
  readonly arms: readonly string[];
  /** Prompt-embedding length d. */
  readonly contextDim: number;
  /** Kernel (default RBF sigma = 1, spec P2; the paper's image runs use sigma = 5, poly3 gamma = 5 or 10). */
  readonly kernel?: KernelSpec;
  /** Ridge alpha (default 1, as in the paper). */
  readonly alpha?: number;
  /** Exploration multiplier (default "paper" = sqrt(2 ln(2G/delta))); 0 gives Naive-KRR. */
  readonly eta?: EtaOption;
  /** Failure probability in the eta presets (default 0.05). */
  readonly delta?: number;
  /** Horizon T, needed only by eta "theory". */
  readonly horizon?: number;
  /** Affine score map and prior mean (default identity, prior 0; spec P1). */
  readonly scoreTransform?: ScoreTransform;
  /** L2-normalise every context (default true: the setting assumes unit-sphere prompts, spec P14). */
  readonly normalizeContext?: boolean;
  /** Most decisions that may wait for feedback (default 100,000). */
  readonly maxPending?: number;
  /** Initial per-arm capacity (points) of the growable buffers (default 16). */
  readonly initialCapacity?: number;
  readonly rng?: Rng;
  readonly seed?: number;
  /** Optional flop counter (diagnostics, cost-model tests). */
  readonly counter?: OpCounter;
  /**
   * Called when an arm's regression grows past 8192 points (its inverse alone is then >= 512 MB;
   * spec P7). Default: console.warn. Consider RffUcb, whose memory is fixed.
   */
  readonly onWarning?: (message: string) => void;
}

/** One arm's prediction, on the caller's score scale. */
export interface ArmPrediction {
  readonly arm: string;
  /** Visits (points in the arm's regression). */
  readonly n: number;
  readonly mean: number;
  readonly sigma: number;
  /** mean + eta sigma; +Infinity for an unvisited arm. */
  readonly ucb: number;
}

type Payload = ContextPayload;

const KIND = "kernel-ucb/pak-ucb";
const VERSION = 1;

/**
 * PAK-UCB (Hu, Leung, Farnia, ICML 2025, Algorithm 2): one kernel ridge regression per arm on the
 * prompts that arm served; play argmax_g mu_g(y) + eta sigma_g(y). Unvisited arms are played first
 * (uniformly among them), ties are broken at random, arms added at run time are explored next.
 *
 * Per round: O(n_g d + n_g^2) per arm (one gemv for the kernel row, one quadratic form on the
 * upper-triangle inverse), and O(n d + n^2) for the chosen arm's bordered-inverse update. The
 * chosen arm's kernel row is kept between select and update when nothing happened in between.
 */
export class PakUcb implements ArmPolicy {
  static readonly kind = KIND;
  readonly kind = KIND;
  readonly protocol = "arm" as const;
  readonly contextDim: number;
  readonly kernel: KernelSpec;
  readonly alpha: number;
  readonly eta: EtaOption;
  readonly delta: number;
  readonly horizon: number | undefined;
  readonly normalizeContext: boolean;
  private readonly transform: ResolvedTransform;
  private readonly dotKernel: DotKernel;
  private readonly initialCapacity: number;
  private readonly counter: OpCounter | undefined;
  private readonly onWarning: (message: string) => void;
  private rng: Rng;
  private readonly table: ArmTable<ExactKrr> = new ArmTable<ExactKrr>();
  private readonly ledger: DecisionLedger<Payload>;
  private readonly payloads: ObjectPool<Payload>;
  private readonly y: Float64Array;
  private scores: Float64Array = new Float64Array(8);
  /** Sequence number of the decision whose select left the chosen arm's kernel row in its scratch. */
  private cacheSeq = -1;
  private readonly nOf = (i: number): number => (this.table.states[i] as ExactKrr).n;

  constructor(options: PakUcbOptions) {
    const o = options;
    this.contextDim = o.contextDim;
    this.alpha = o.alpha ?? 1;
    checkCommon({ contextDim: this.contextDim, alpha: this.alpha });
    this.kernel = o.kernel ?? { type: "rbf", sigma: 1 };
    this.dotKernel = new DotKernel(this.kernel);
    this.eta = o.eta ?? "paper";
    this.delta = o.delta ?? 0.05;
    this.horizon = o.horizon;
    if (this.horizon !== undefined) assertInt(this.horizon, "horizon", 1);
    checkEta(this.eta, this.delta, this.horizon);
    this.transform = resolveTransform(o.scoreTransform);
    this.normalizeContext = o.normalizeContext ?? true;
    this.initialCapacity = o.initialCapacity ?? 16;
    assertInt(this.initialCapacity, "initialCapacity", 1, MAX_INITIAL_CAPACITY);
    this.counter = o.counter;
    this.onWarning = o.onWarning ?? ((m) => console.warn(m));
    this.rng = o.rng ?? Rng.fromSeed(o.seed ?? 0);
    const d = this.contextDim;
    this.y = allocF64(d);
    this.payloads = new ObjectPool(() => ({ seq: 0, arm: "", y: allocF64(d), ny: 0 }));
    this.ledger = new DecisionLedger(contextPayloadCodec(d, this.payloads), {
      maxPending: o.maxPending ?? 100_000,
    });
    checkInitialArms(this.table, o.arms);
    for (const id of o.arms) this.table.add(id, this.newArm());
  }

  private newArm(): ExactKrr {
    return this.watch(new ExactKrr(this.contextDim, this.dotKernel, this.alpha, this.initialCapacity, this.counter));
  }

  private watch(s: ExactKrr): ExactKrr {
    s.onLarge = (cap) =>
      this.onWarning(
        `@routekit/kernel-ucb: a PAK-UCB arm now holds ${s.n} points; its exact inverse needs ${Math.round((cap * cap * 8) / 2 ** 20)} MB and O(n^2) time per round (RffUcb has fixed memory)`,
      );
    return s;
  }

  get arms(): readonly string[] {
    return this.table.ids;
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  /** Visits per arm. */
  visits(): Record<string, number> {
    const out: Record<string, number> = {};
    this.table.ids.forEach((id, i) => {
      out[id] = (this.table.states[i] as ExactKrr).n;
    });
    return out;
  }

  addArm(id: string): void {
    this.table.checkAdd(id);
    this.table.add(id, this.newArm());
    this.cacheSeq = -1;
  }

  removeArm(id: string): void {
    this.table.checkRemove(id);
    this.table.remove(id);
    this.cacheSeq = -1;
  }

  /** The eta used at the next select. */
  currentEta(): number {
    return resolveEta(this.eta, this.delta, this.table.size, this.ledger.issued + 1, this.horizon);
  }

  select(context?: Float64Array): ArmDecision {
    this.table.checkNotEmpty();
    assertVector(context, this.contextDim, "context");
    const ny = normalizeInto(context, this.y, this.contextDim, this.normalizeContext);
    const G = this.table.size;
    const states = this.table.states;
    let pick = pickUnvisited(G, this.nOf, this.rng);
    if (pick < 0) {
      if (this.scores.length < G) this.scores = new Float64Array(2 * G);
      const eta = this.currentEta();
      const kyy = this.dotKernel.diag(ny);
      for (let g = 0; g < G; g++) {
        const s = states[g] as ExactKrr;
        const b = s.row(this.y, ny);
        const mu = s.mean(b);
        this.scores[g] = eta === 0 ? mu : mu + eta * Math.sqrt(s.variance(b, kyy));
      }
      pick = argmaxRandomTies(this.scores, G, this.rng);
    }
    const p = this.payloads.acquire();
    p.seq = this.ledger.issued;
    p.arm = this.table.ids[pick] as string;
    p.ny = ny;
    p.y.set(this.y);
    const id = this.ledger.issue(p);
    this.cacheSeq = p.seq;
    return { id, arm: p.arm };
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    const p = this.ledger.get(decision);
    const reward = feedbackReward(feedback);
    const s = this.find(p.arm);
    if (s !== undefined) {
      const score = learnedScore(reward, this.transform);
      const b = s.n > 0 && this.cacheSeq === p.seq ? s.b : s.row(p.y, p.ny);
      s.append(p.y, p.ny, score, b, this.dotKernel.diag(p.ny));
      this.cacheSeq = -1;
    }
    this.ledger.settle(decision);
  }

  private find(arm: string): ExactKrr | undefined {
    return this.table.find(arm);
  }

  /** mu, sigma and the UCB index of every arm for `context` (no state change, no RNG draw). */
  predict(context: Float64Array): ArmPrediction[] {
    assertVector(context, this.contextDim, "context");
    const y = new Float64Array(this.contextDim);
    const ny = normalizeInto(context, y, this.contextDim, this.normalizeContext);
    const eta = this.currentEta();
    const kyy = this.dotKernel.diag(ny);
    const tr = this.transform;
    return this.table.ids.map((arm, g) => {
      const s = this.table.states[g] as ExactKrr;
      if (s.n === 0) {
        return { arm, n: 0, mean: tr.priorMean / tr.scale + tr.offset, sigma: Infinity, ucb: Infinity };
      }
      const b = s.row(y, ny, new Float64Array(s.n));
      const mu = s.mean(b);
      const sigma = Math.sqrt(s.variance(b, kyy));
      this.cacheSeq = -1;
      return {
        arm,
        n: s.n,
        mean: (mu + tr.priorMean) / tr.scale + tr.offset,
        sigma: sigma / tr.scale,
        ucb: (mu + eta * sigma + tr.priorMean) / tr.scale + tr.offset,
      };
    });
  }

  /** The arm's regression state (read-only use: tests and diagnostics). */
  regression(arm: string): ExactKrr {
    return this.table.get(arm);
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      options: {
        contextDim: this.contextDim,
        kernel: this.kernel as unknown as Json,
        alpha: this.alpha,
        eta: this.eta,
        delta: this.delta,
        horizon: this.horizon ?? null,
        scoreTransform: { ...this.transform },
        normalizeContext: this.normalizeContext,
        initialCapacity: this.initialCapacity,
      },
      rng: this.rng.toJSON() as unknown as Json,
      arms: this.table.ids.map((id, i) => ({ id, state: (this.table.states[i] as ExactKrr).toJSON() })),
      ledger: this.ledger.toJSON(),
    });
  }

  static fromJSON(snapshot: unknown): PakUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    const o = field(st, "options", "object");
    const horizon = o.horizon === null ? undefined : (o.horizon as number);
    const policy = new PakUcb({
      arms: [],
      contextDim: field(o, "contextDim", "number"),
      kernel: field(o, "kernel", "object") as unknown as KernelSpec,
      alpha: field(o, "alpha", "number"),
      eta: o.eta as EtaOption,
      delta: field(o, "delta", "number"),
      horizon,
      scoreTransform: field(o, "scoreTransform", "object") as ScoreTransform,
      normalizeContext: field(o, "normalizeContext", "boolean"),
      initialCapacity: field(o, "initialCapacity", "number"),
      rng: Rng.fromJSON(field(st, "rng", "object") as never),
    });
    for (const a of field(st, "arms", "array")) {
      const r = readObject(a, "arms[]");
      const id = readId(r, "id");
      const s = policy.watch(ExactKrr.fromJSON(r.state as Json, policy.contextDim, policy.dotKernel, policy.alpha));
      if (policy.table.has(id)) throw new RouteKitError(ErrorCode.SnapshotCorrupt, `arm "${id}" appears twice`);
      policy.table.add(id, s);
    }
    policy.ledger.loadJSON(st.ledger);
    return policy;
  }
}
