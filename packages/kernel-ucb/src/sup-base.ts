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
  ObjectPool,
  Rng,
  RouteKitError,
  readId,
  readInt,
  readObject,
  type Snapshot,
} from "@routekit/core";
import { allocF64 } from "@routekit/linalg";
import { type ContextPayload, checkInitialArms, contextPayloadCodec, feedbackReward } from "./common.js";
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

/** Which uncertain arm branch (c) explores (spec P10: the paper says "any"). */
export type ExploreChoice = "largest-width" | "random";

export interface SupOptions {
  readonly arms: readonly string[];
  readonly contextDim: number;
  /** Horizon T (required: the stage count M = ceil(log2 T) and the 1/sqrt(T) test use it). */
  readonly horizon: number;
  readonly alpha?: number;
  /** Default "theory" (sqrt(2 ln(2GT/delta)), Theorem 3; Theorem 4 uses 4GT: pass a number). */
  readonly eta?: EtaOption;
  readonly delta?: number;
  /** Number of stages M (default ceil(log2 T), spec P8). */
  readonly stages?: number;
  /** Branch (c)'s choice among arms with a large width (default "largest-width", ties at random). */
  readonly exploreChoice?: ExploreChoice;
  readonly scoreTransform?: ScoreTransform;
  readonly normalizeContext?: boolean;
  readonly maxPending?: number;
  readonly rng?: Rng;
  readonly seed?: number;
}

/** What the last select did (diagnostics and invariant tests). */
export interface SupRoundTrace {
  /** "exploit" = branch (a), "explore" = branch (c), "guard" = stages ran out (treated as (a)). */
  branch: "exploit" | "explore" | "guard";
  /** Stage m (1-based) at which the arm was chosen. */
  stage: number;
  /** Arms eliminated in branch (b) steps this round. */
  eliminated: string[];
}

interface Payload extends ContextPayload {
  /** Stage index (0-based) the datum is filed into, or -1 (not filed). */
  stage: number;
}

/** One (arm, stage) estimate at a query: mean, width sigma and the bias terms B1, B2. */
export interface StageQuery {
  mu: number;
  sigma: number;
  b1: number;
  b2: number;
}

/**
 * The staged elimination shared by Sup-PAK-UCB (Algorithm 3) and Sup-RFF-UCB (Algorithm 6):
 * G x M independent estimators; per round, starting at stage m = 1 with all arms,
 * (a) if every (eta + sqrt(alpha)) sigma <= 1/sqrt(T): play argmax mu + eta sigma, file nothing;
 * (b) else if every width w = B1 + (2 eta + sqrt(alpha)) (sigma + B2) <= 2^(1-m): keep the arms with
 *     mu + w >= max(mu + w) - 2^(2-m), go to stage m + 1 (if m > M: act as (a), spec P8 guard);
 * (c) else play an arm with w > 2^(1-m) and file the round into its stage-m set.
 * (B1 = B2 = 0 for the exact kernel.)
 */
export abstract class SupBase<E extends { readonly n: number }> implements ArmPolicy {
  abstract readonly kind: string;
  readonly protocol = "arm" as const;
  readonly contextDim: number;
  readonly horizon: number;
  readonly alpha: number;
  readonly eta: EtaOption;
  readonly delta: number;
  readonly stages: number;
  readonly exploreChoice: ExploreChoice;
  readonly normalizeContext: boolean;
  /** Rounds per branch so far. */
  readonly branchCounts = { exploit: 0, explore: 0, guard: 0 };
  /** Largest stage reached so far. */
  maxStage = 1;
  readonly lastRound: SupRoundTrace = { branch: "explore", stage: 1, eliminated: [] };
  protected readonly transform: ResolvedTransform;
  protected rng: Rng;
  protected readonly table: ArmTable<E[]> = new ArmTable<E[]>();
  protected readonly ledger: DecisionLedger<Payload>;
  private readonly payloads: ObjectPool<Payload>;
  private readonly y: Float64Array;
  private readonly q: StageQuery = { mu: 0, sigma: 0, b1: 0, b2: 0 };
  private mu = new Float64Array(8);
  private wid = new Float64Array(8);
  private sig = new Float64Array(8);
  private active = new Uint8Array(8);

  constructor(o: SupOptions) {
    this.contextDim = o.contextDim;
    this.alpha = o.alpha ?? 1;
    checkCommon({ contextDim: this.contextDim, alpha: this.alpha });
    assertInt(o.horizon, "horizon", 1);
    this.horizon = o.horizon;
    this.eta = o.eta ?? "theory";
    this.delta = o.delta ?? 0.05;
    checkEta(this.eta, this.delta, this.horizon);
    this.stages = o.stages ?? Math.max(1, Math.ceil(Math.log2(this.horizon)));
    assertInt(this.stages, "stages", 1, 64);
    this.exploreChoice = o.exploreChoice ?? "largest-width";
    if (this.exploreChoice !== "largest-width" && this.exploreChoice !== "random") {
      throw new RouteKitError(ErrorCode.InvalidArgument, 'exploreChoice must be "largest-width" or "random"');
    }
    this.transform = resolveTransform(o.scoreTransform);
    this.normalizeContext = o.normalizeContext ?? true;
    this.rng = o.rng ?? Rng.fromSeed(o.seed ?? 0);
    const d = this.contextDim;
    this.y = allocF64(d);
    this.payloads = new ObjectPool(() => ({ seq: 0, arm: "", stage: -1, y: allocF64(d), ny: 0 }));
    this.ledger = new DecisionLedger(contextPayloadCodec(d, this.payloads, { stage: [-1, this.stages - 1] }), {
      maxPending: o.maxPending ?? 100_000,
    });
    checkInitialArms(this.table, o.arms);
  }

  /** Adds the constructor's arms (subclasses call it once their own fields are set). */
  protected addInitialArms(arms: readonly string[]): void {
    for (const id of arms) this.table.add(id, this.newArm(id));
  }

  protected newArm(id: string): E[] {
    return Array.from({ length: this.stages }, (_, m) => this.newEstimator(id, m));
  }

  protected abstract newEstimator(arm: string, stage: number): E;
  /** Fills `out` for a query at round t (1-based); n = 0 must give sigma = +Infinity. */
  protected abstract query(
    e: E,
    arm: string,
    stage: number,
    y: Float64Array,
    ny: number,
    t: number,
    out: StageQuery,
  ): void;
  protected abstract file(e: E, arm: string, stage: number, y: Float64Array, ny: number, s: number): void;

  get arms(): readonly string[] {
    return this.table.ids;
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  /** Points filed into each stage set of an arm. */
  filed(arm: string): number[] {
    return this.table.get(arm).map((s) => s.n);
  }

  /** The estimator of `arm` at stage m (1-based); read-only use (tests, diagnostics). */
  stageEstimator(arm: string, m: number): E {
    assertInt(m, "stage", 1, this.stages);
    return this.table.get(arm)[m - 1] as E;
  }

  addArm(id: string): void {
    this.table.checkAdd(id);
    this.table.add(id, this.newArm(id));
  }

  removeArm(id: string): void {
    this.table.checkRemove(id);
    this.table.remove(id);
  }

  currentEta(): number {
    return resolveEta(this.eta, this.delta, this.table.size, this.ledger.issued + 1, this.horizon);
  }

  select(context?: Float64Array): ArmDecision {
    this.table.checkNotEmpty();
    assertVector(context, this.contextDim, "context");
    const ny = normalizeInto(context, this.y, this.contextDim, this.normalizeContext);
    const G = this.table.size;
    if (this.mu.length < G) {
      this.mu = new Float64Array(2 * G);
      this.wid = new Float64Array(2 * G);
      this.sig = new Float64Array(2 * G);
      this.active = new Uint8Array(2 * G);
    }
    const t = this.ledger.issued + 1;
    const eta = this.currentEta();
    const ra = Math.sqrt(this.alpha);
    const tiny = 1 / Math.sqrt(this.horizon);
    const trace = this.lastRound;
    trace.eliminated.length = 0;
    this.active.fill(1, 0, G);
    const q = this.q;
    let m = 1;
    let pick = -1;
    let stage = -1;
    for (;;) {
      let allTiny = true;
      let allNarrow = true;
      const thr = 2 ** (1 - m);
      for (let g = 0; g < G; g++) {
        if (!this.active[g]) continue;
        const id = this.table.ids[g] as string;
        const e = (this.table.states[g] as E[])[m - 1] as E;
        if (e.n === 0) {
          q.mu = 0;
          q.sigma = Number.POSITIVE_INFINITY;
          q.b1 = 0;
          q.b2 = 0;
        } else this.query(e, id, m - 1, this.y, ny, t, q);
        this.mu[g] = q.mu;
        this.sig[g] = q.sigma;
        const w = q.b1 + (2 * eta + ra) * (q.sigma + q.b2);
        this.wid[g] = w;
        if (!((eta + ra) * q.sigma <= tiny)) allTiny = false;
        if (!(w <= thr)) allNarrow = false;
      }
      if (allTiny) {
        pick = this.argmaxActive(G, eta);
        trace.branch = "exploit";
        break;
      }
      if (allNarrow) {
        let maxS = Number.NEGATIVE_INFINITY;
        for (let g = 0; g < G; g++) {
          if (this.active[g]) maxS = Math.max(maxS, (this.mu[g] as number) + (this.wid[g] as number));
        }
        for (let g = 0; g < G; g++) {
          if (this.active[g] && (this.mu[g] as number) + (this.wid[g] as number) < maxS - 2 ** (2 - m)) {
            this.active[g] = 0;
            trace.eliminated.push(this.table.ids[g] as string);
          }
        }
        if (m + 1 > this.stages) {
          // Guard (spec P8): no stage left, act as branch (a) on the stage-M estimates.
          pick = this.argmaxActive(G, eta);
          trace.branch = "guard";
          break;
        }
        m++;
        continue;
      }
      pick = this.chooseWide(G, thr);
      stage = m - 1;
      trace.branch = "explore";
      break;
    }
    trace.stage = m;
    if (m > this.maxStage) this.maxStage = m;
    this.branchCounts[trace.branch]++;
    const p = this.payloads.acquire();
    p.seq = this.ledger.issued;
    p.arm = this.table.ids[pick] as string;
    p.stage = stage;
    p.ny = ny;
    p.y.set(this.y);
    const id = this.ledger.issue(p);
    return { id, arm: p.arm };
  }

  /** argmax of mu + eta sigma over active arms, ties at random. */
  private argmaxActive(G: number, eta: number): number {
    let best = -1;
    let bestV = Number.NEGATIVE_INFINITY;
    let ties = 0;
    for (let g = 0; g < G; g++) {
      if (!this.active[g]) continue;
      const v = (this.mu[g] as number) + eta * (this.sig[g] as number);
      if (best < 0 || v > bestV) {
        best = g;
        bestV = v;
        ties = 1;
      } else if (v === bestV) {
        ties++;
        if (this.rng.int(ties) === 0) best = g;
      }
    }
    return best;
  }

  /** Branch (c): an active arm with width > thr (largest width, ties at random; or uniformly). */
  private chooseWide(G: number, thr: number): number {
    let best = -1;
    let bestW = Number.NEGATIVE_INFINITY;
    let ties = 0;
    for (let g = 0; g < G; g++) {
      if (!this.active[g]) continue;
      const w = this.wid[g] as number;
      if (!(w > thr)) continue;
      const key = this.exploreChoice === "random" ? 0 : w;
      if (best < 0 || key > bestW) {
        best = g;
        bestW = key;
        ties = 1;
      } else if (key === bestW) {
        ties++;
        if (this.rng.int(ties) === 0) best = g;
      }
    }
    return best;
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    const p = this.ledger.get(decision);
    const reward = feedbackReward(feedback);
    const states = this.table.find(p.arm);
    if (states !== undefined && p.stage >= 0) {
      const score = learnedScore(reward, this.transform);
      this.file(states[p.stage] as E, p.arm, p.stage, p.y, p.ny, score);
    }
    this.ledger.settle(decision);
  }

  /** Options shared by both variants, for snapshots. */
  protected baseOptionsJSON(): Record<string, Json> {
    return {
      contextDim: this.contextDim,
      horizon: this.horizon,
      alpha: this.alpha,
      eta: this.eta,
      delta: this.delta,
      stages: this.stages,
      exploreChoice: this.exploreChoice,
      scoreTransform: { ...this.transform },
      normalizeContext: this.normalizeContext,
    };
  }

  protected baseStateJSON(encode: (e: E) => Json): Record<string, Json> {
    return {
      rng: this.rng.toJSON() as unknown as Json,
      branchCounts: { ...this.branchCounts },
      maxStage: this.maxStage,
      arms: this.table.ids.map((id, i) => ({ id, stages: (this.table.states[i] as E[]).map(encode) })),
      ledger: this.ledger.toJSON(),
    };
  }

  protected restoreBase(st: Record<string, Json>, decode: (json: Json, arm: string, stage: number) => E): void {
    const bc = readObject(st.branchCounts, "branchCounts");
    this.branchCounts.exploit = readInt(bc, "exploit");
    this.branchCounts.explore = readInt(bc, "explore");
    this.branchCounts.guard = readInt(bc, "guard");
    this.maxStage = readInt(st, "maxStage", 1);
    if (this.maxStage > this.stages) throw new RouteKitError(ErrorCode.SnapshotCorrupt, "maxStage exceeds stages");
    for (const a of field(st, "arms", "array")) {
      const r = readObject(a, "arms[]");
      const id = readId(r, "id");
      if (this.table.has(id)) throw new RouteKitError(ErrorCode.SnapshotCorrupt, `arm "${id}" appears twice`);
      const stages = field(r, "stages", "array");
      if (stages.length !== this.stages) {
        throw new RouteKitError(ErrorCode.SnapshotCorrupt, `each arm must hold ${this.stages} stage states`);
      }
      this.table.add(
        id,
        stages.map((s, m) => decode(s, id, m)),
      );
    }
    this.ledger.loadJSON(st.ledger);
  }

  abstract toJSON(): Snapshot;
}

/** Reads the shared options of a Sup-* snapshot. */
export function readSupOptions(o: Record<string, Json>, rng: Json | undefined): SupOptions {
  return {
    arms: [],
    contextDim: field(o, "contextDim", "number"),
    horizon: field(o, "horizon", "number"),
    alpha: field(o, "alpha", "number"),
    eta: o.eta as EtaOption,
    delta: field(o, "delta", "number"),
    stages: field(o, "stages", "number"),
    exploreChoice: field(o, "exploreChoice", "string") as ExploreChoice,
    scoreTransform: field(o, "scoreTransform", "object") as ScoreTransform,
    normalizeContext: field(o, "normalizeContext", "boolean"),
    rng: Rng.fromJSON(rng as never),
  };
}
