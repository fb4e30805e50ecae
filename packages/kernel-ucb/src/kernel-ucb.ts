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
  readInt,
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
import { argmaxRandomTies } from "./select.js";

export interface KernelUcbOptions {
  readonly arms: readonly string[];
  readonly contextDim: number;
  /** Kernel on the augmented context [y; e_g] (default the paper's baseline: poly3 gamma = 1, c = 1). */
  readonly kernel?: KernelSpec;
  readonly alpha?: number;
  /**
   * Exploration multiplier (default "paper"). The reference code's KernelUCB baseline used
   * 2 ln(2G/delta) without the square root; pass that number to reproduce it.
   */
  readonly eta?: EtaOption;
  readonly delta?: number;
  readonly horizon?: number;
  readonly scoreTransform?: ScoreTransform;
  readonly normalizeContext?: boolean;
  readonly maxPending?: number;
  readonly initialCapacity?: number;
  readonly rng?: Rng;
  readonly seed?: number;
  readonly counter?: OpCounter;
}

interface Payload extends ContextPayload {
  tag: number;
}

const KIND = "kernel-ucb/kernel-ucb";
const VERSION = 1;

/**
 * KernelUCB with shared weights (Valko et al. 2013), the paper's baseline: one kernel ridge
 * regression over all past (x, s) with the augmented context x = [y; e_g] (one-hot arm id), UCB
 * evaluated at [y_t; e_g] for every arm. It can only learn what a shared function of [y; e_g]
 * can express, which is why per-arm PAK-UCB beats it when the best model depends on the prompt.
 * O(t d + G t^2) per round.
 */
export class KernelUcb implements ArmPolicy {
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
  private rng: Rng;
  /** Per arm: its tag (ordinal in the one-hot code; never reused). */
  private readonly table: ArmTable<number> = new ArmTable<number>();
  private nextTag = 0;
  private krr: ExactKrr;
  private readonly ledger: DecisionLedger<Payload>;
  private readonly payloads: ObjectPool<Payload>;
  private readonly y: Float64Array;
  private dots: Float64Array;
  private cur: Float64Array;
  private best: Float64Array;
  private scores: Float64Array = new Float64Array(8);
  private cacheSeq = -1;

  constructor(options: KernelUcbOptions) {
    const o = options;
    this.contextDim = o.contextDim;
    this.alpha = o.alpha ?? 1;
    checkCommon({ contextDim: this.contextDim, alpha: this.alpha });
    this.kernel = o.kernel ?? { type: "poly", gamma: 1, c: 1, degree: 3 };
    this.dotKernel = new DotKernel(this.kernel);
    this.eta = o.eta ?? "paper";
    this.delta = o.delta ?? 0.05;
    this.horizon = o.horizon;
    if (this.horizon !== undefined) assertInt(this.horizon, "horizon", 1);
    checkEta(this.eta, this.delta, this.horizon);
    this.transform = resolveTransform(o.scoreTransform);
    this.normalizeContext = o.normalizeContext ?? true;
    this.initialCapacity = o.initialCapacity ?? 64;
    assertInt(this.initialCapacity, "initialCapacity", 1, MAX_INITIAL_CAPACITY);
    this.rng = o.rng ?? Rng.fromSeed(o.seed ?? 0);
    const d = this.contextDim;
    this.krr = new ExactKrr(d, this.dotKernel, this.alpha, this.initialCapacity, o.counter);
    this.y = allocF64(d);
    this.dots = allocF64(this.krr.cap);
    this.cur = allocF64(this.krr.cap);
    this.best = allocF64(this.krr.cap);
    this.payloads = new ObjectPool(() => ({ seq: 0, arm: "", tag: 0, y: allocF64(d), ny: 0 }));
    this.ledger = new DecisionLedger(contextPayloadCodec(d, this.payloads, { tag: [0, Number.MAX_SAFE_INTEGER] }), {
      maxPending: o.maxPending ?? 100_000,
    });
    checkInitialArms(this.table, o.arms);
    for (const id of o.arms) this.table.add(id, this.nextTag++);
  }

  get arms(): readonly string[] {
    return this.table.ids;
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  /** Points in the shared regression. */
  get size(): number {
    return this.krr.n;
  }

  /** The shared regression (read-only use: tests and diagnostics such as `drift()`). */
  regression(): ExactKrr {
    return this.krr;
  }

  addArm(id: string): void {
    this.table.checkAdd(id);
    this.table.add(id, this.nextTag++);
    this.cacheSeq = -1;
  }

  removeArm(id: string): void {
    this.table.checkRemove(id);
    this.table.remove(id);
    this.cacheSeq = -1;
  }

  currentEta(): number {
    return resolveEta(this.eta, this.delta, this.table.size, this.ledger.issued + 1, this.horizon);
  }

  private ensureScratch(): void {
    const cap = this.krr.cap;
    if (this.dots.length < cap) {
      this.dots = allocF64(cap);
      this.cur = allocF64(cap);
      this.best = allocF64(cap);
    }
  }

  select(context?: Float64Array): ArmDecision {
    this.table.checkNotEmpty();
    assertVector(context, this.contextDim, "context");
    const ny = normalizeInto(context, this.y, this.contextDim, this.normalizeContext);
    this.ensureScratch();
    const G = this.table.size;
    if (this.scores.length < G) this.scores = new Float64Array(2 * G);
    const eta = this.currentEta();
    const kyy = this.dotKernel.diag(ny + 1);
    const krr = this.krr;
    krr.dots(this.y, this.dots);
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < G; g++) {
      const b = krr.rowTagged(this.dots, ny, this.table.states[g] as number, this.cur);
      const ucb = krr.mean(b) + eta * Math.sqrt(krr.variance(b, kyy));
      this.scores[g] = ucb;
      if (ucb > bestScore) {
        bestScore = ucb;
        this.cur = this.best;
        this.best = b;
      }
    }
    const pick = argmaxRandomTies(this.scores, G, this.rng);
    // `best` holds the row of the first maximiser; a tie broken elsewhere recomputes at update.
    const cached = this.scores[pick] === bestScore && firstMax(this.scores, G, bestScore) === pick;
    const p = this.payloads.acquire();
    p.seq = this.ledger.issued;
    p.arm = this.table.ids[pick] as string;
    p.tag = this.table.states[pick] as number;
    p.ny = ny;
    p.y.set(this.y);
    const id = this.ledger.issue(p);
    this.cacheSeq = cached ? p.seq : -1;
    return { id, arm: p.arm };
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    const p = this.ledger.get(decision);
    const reward = feedbackReward(feedback);
    if (this.table.has(p.arm)) {
      const score = learnedScore(reward, this.transform);
      const krr = this.krr;
      let b = this.best;
      if (this.cacheSeq !== p.seq) {
        this.ensureScratch();
        krr.dots(p.y, this.dots);
        b = krr.rowTagged(this.dots, p.ny, p.tag, this.best);
      }
      krr.append(p.y, p.ny, score, b, this.dotKernel.diag(p.ny + 1), p.tag);
      this.cacheSeq = -1;
    }
    this.ledger.settle(decision);
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
      arms: this.table.ids.map((id, i) => ({ id, tag: this.table.states[i] as number })),
      nextTag: this.nextTag,
      regression: this.krr.toJSON(),
      ledger: this.ledger.toJSON(),
    });
  }

  static fromJSON(snapshot: unknown): KernelUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    const o = field(st, "options", "object");
    const policy = new KernelUcb({
      arms: [],
      contextDim: field(o, "contextDim", "number"),
      kernel: field(o, "kernel", "object") as unknown as KernelSpec,
      alpha: field(o, "alpha", "number"),
      eta: o.eta as EtaOption,
      delta: field(o, "delta", "number"),
      horizon: o.horizon === null ? undefined : (o.horizon as number),
      scoreTransform: field(o, "scoreTransform", "object") as ScoreTransform,
      normalizeContext: field(o, "normalizeContext", "boolean"),
      initialCapacity: field(o, "initialCapacity", "number"),
      rng: Rng.fromJSON(field(st, "rng", "object") as never),
    });
    policy.nextTag = readInt(st, "nextTag");
    for (const a of field(st, "arms", "array")) {
      const r = readObject(a, "arms[]");
      const id = readId(r, "id");
      const tag = readInt(r, "tag");
      if (tag >= policy.nextTag || policy.table.has(id)) {
        throw new RouteKitError(ErrorCode.SnapshotCorrupt, `arm "${id}" has an invalid or repeated entry`);
      }
      policy.table.add(id, tag);
    }
    policy.krr = ExactKrr.fromJSON(st.regression as Json, policy.contextDim, policy.dotKernel, policy.alpha);
    policy.ensureScratch();
    policy.ledger.loadJSON(st.ledger);
    return policy;
  }
}

function firstMax(s: Float64Array, n: number, m: number): number {
  for (let i = 0; i < n; i++) if (s[i] === m) return i;
  return -1;
}
