/**
 * The base every policy of the family extends (internal): core's ArmPolicyBase (arms with uids,
 * pending decisions, rng, context and feedback validation, decision events, snapshot base) plus the
 * options the family shares (ridge, exploration, confidence, horizon, score transform, context
 * normalisation) and the pending-decision payload that keeps the context as received.
 */
import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  type ArmEvent,
  ArmPolicyBase,
  type ArmPolicyOptions,
  type ArmState,
  booleanOption,
  describe,
  ErrorCode,
  type Json,
  MAX_CONTEXT_DIM,
  numberOption,
  optionKeys,
  RouteKitError,
  readInt,
  readNumber,
  readOptions,
  requiredNumber,
  snapshotCorrupt,
  vectorToJson,
} from "@routekit/core";
import { allocF64 } from "@routekit/linalg";
import type { OpCounter } from "./krr.js";
import {
  checkExploration,
  type Exploration,
  explorationValue,
  learnedScore,
  learnedScoreTo,
  normalizeInto,
  normalizeIntoTo,
  type ResolvedTransform,
  readTransform,
  readTransformJSON,
  resolveExplorationTo,
  type ScoreTransform,
} from "./options.js";
import { type KernelPayload, PayloadStore } from "./payload.js";

/** Options every policy of the family accepts. */
export interface KernelPolicyOptions extends ArmPolicyOptions {
  /** Prompt-embedding length d (required, >= 1). */
  readonly contextDim: number;
  /** Ridge penalty of the regressions (the paper's alpha; default 1, as in the paper), in [1e-4, 1e9]. */
  readonly ridge?: number;
  /** Exploration multiplier of mu + exploration * sigma (the paper's eta); see {@link Exploration}. */
  readonly exploration?: Exploration;
  /** Failure probability delta in the exploration presets (default 0.05), in (0, 1). */
  readonly confidence?: number;
  /** Planned number of rounds T (needed by exploration "theory"). */
  readonly horizon?: number;
  /** Affine score map and prior mean (default identity, prior 0). */
  readonly scoreTransform?: ScoreTransform;
  /** L2-normalise every context (default true: the paper's setting assumes unit-sphere prompts). */
  readonly normalizeContext?: boolean;
  /** Optional flop counter (diagnostics, cost-model tests). */
  readonly counter?: OpCounter;
}

/** The option keys of {@link KernelPolicyOptions}. */
export const KERNEL_POLICY_OPTION_KEYS = optionKeys<KernelPolicyOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "ridge",
  "exploration",
  "confidence",
  "horizon",
  "scoreTransform",
  "normalizeContext",
  "counter",
]);

/**
 * Smallest ridge accepted: with RBF kernel values of 1 it keeps k / ridge <= 1e4, where the exact
 * regressions' incremental inverse stays accurate (see MAX_KERNEL_RATIO).
 */
export const MIN_RIDGE = 1e-4;
/** Largest ridge accepted. */
export const MAX_RIDGE = 1e9;
const RIDGE = { min: MIN_RIDGE, max: MAX_RIDGE } as const;
const CONFIDENCE = { min: 0, max: 1, openMin: true, openMax: true } as const;
/** Where checkReward puts the score it checks (and drops). */
const CHECKED_SCORE = new Float64Array(1);
/** Where normalize puts the norm nobody reads. */
const NORM2_DROPPED = new Float64Array(1);

/** The shared options as read from a snapshot (every field present). */
export interface CommonSnapshotOptions {
  readonly ridge: number;
  readonly exploration: Exploration;
  readonly confidence: number;
  readonly horizon: number | undefined;
  readonly scoreTransform: ResolvedTransform;
  readonly normalizeContext: boolean;
}

/** How a subclass configures the base. */
export interface FamilyConfig {
  /** Name in error messages. */
  readonly what: string;
  readonly defaultExploration: Exploration;
  /** Sup-*: the horizon is required. */
  readonly horizonRequired?: boolean;
  /** Sup-*: payloads carry a stage index in [-1, maxStage]. */
  readonly maxStage?: (o: Record<string, unknown>, horizon: number | undefined) => number;
}

export abstract class KernelPolicyBase<S extends ArmState> extends ArmPolicyBase<S, KernelPayload> {
  readonly ridge: number;
  readonly exploration: Exploration;
  readonly confidence: number;
  readonly horizon: number | undefined;
  readonly normalizeContext: boolean;
  protected readonly transform: ResolvedTransform;
  protected readonly counter: OpCounter | undefined;
  protected readonly store: PayloadStore;
  /** Normalised context of the current select or update. */
  protected readonly y: Float64Array;

  protected constructor(options: KernelPolicyOptions, cfg: FamilyConfig) {
    const o = readOptions(options, cfg.what);
    const d = requiredNumber(o, "contextDim", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
    const horizon = cfg.horizonRequired
      ? requiredNumber(o, "horizon", { integer: true, min: 1 })
      : numberOption(o, "horizon", undefined, { integer: true, min: 1 });
    const store = new PayloadStore(d, cfg.maxStage !== undefined, cfg.maxStage?.(o, horizon) ?? 0);
    super(options, store, d, cfg.what);
    this.store = store;
    this.horizon = horizon;
    this.ridge = numberOption(o, "ridge", 1, RIDGE);
    const e = o.exploration;
    this.exploration = e === undefined ? cfg.defaultExploration : checkExploration(e, "option exploration");
    this.confidence = numberOption(o, "confidence", 0.05, CONFIDENCE);
    if (this.exploration === "theory" && horizon === undefined) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        'option exploration "theory" needs the horizon T: pass option horizon',
      );
    }
    this.transform = readTransform(o.scoreTransform);
    this.normalizeContext = booleanOption(o, "normalizeContext", true);
    const counter = o.counter;
    if (counter !== undefined) {
      // The policy adds to ops inside select and update: a string would concatenate, and a frozen counter
      // threw a TypeError mid-select; both are refused here, before anything exists.
      const ops = counter !== null && typeof counter === "object" ? (counter as { ops?: unknown }).ops : undefined;
      if (typeof ops === "number" && !Number.isFinite(ops)) {
        throw new RouteKitError(ErrorCode.NonFinite, `option counter.ops must be a finite number, got ${ops}`);
      }
      if (typeof ops !== "number" || !Reflect.set(counter as object, "ops", ops)) {
        throw new RouteKitError(
          ErrorCode.InvalidArgument,
          `option counter must be an object { ops } with a writable finite number ops, got ${describe(counter)}`,
        );
      }
    }
    this.counter = counter as OpCounter | undefined;
    this.y = allocF64(d);
  }

  /** The exploration multiplier used at the next select. */
  currentExploration(): number {
    return explorationValue(this.exploration, this.confidence, this.table.size, this.ledger.issued + 1, this.horizon);
  }

  /**
   * {@link currentExploration} stored into out[oi]: a returned double is boxed (16 bytes per select) when the call is
   * not inlined, one stored into a typed array is not. Same value.
   */
  protected currentExplorationTo(out: Float64Array, oi: number): void {
    resolveExplorationTo(
      this.exploration,
      this.confidence,
      this.table.size,
      this.ledger.issued + 1,
      this.horizon,
      out,
      oi,
    );
  }

  /** Throws (before anything changes) when a context with ||y||^2 = ny cannot be learned (default: never). */
  protected checkContextScale(_ny: number): void {}

  /**
   * A context's norm and kernel scale need no arm's state: checked for every event, whatever arm it names, so a
   * log line too large to learn is refused alike for a live, a retired and an unknown arm.
   */
  protected override checkEventDecision(_event: ArmEvent, context: Float64Array | undefined): void {
    if (context !== undefined) this.checkContextScale(this.normalized(context));
  }

  /** Normalises `x` into `this.y` (when normalizeContext) and returns ||y||^2. */
  protected normalized(x: ArrayLike<number>): number {
    return normalizeInto(x, this.y, this.contextDim, this.normalizeContext);
  }

  /** {@link normalized} without the returned norm (which would be boxed when the call is not inlined). */
  protected normalize(x: ArrayLike<number>): void {
    normalizeIntoTo(x, this.y, this.contextDim, this.normalizeContext, NORM2_DROPPED, 0);
  }

  /**
   * Issues a decision for arm `pick` (table index) on the validated context `x`; its payload is left in
   * `issued` for select-time caches.
   */
  protected issue(pick: number, x: Float64Array, stage = 0): ArmDecision {
    const s = this.table.states[pick] as S;
    const payload = this.store.acquire(s.uid, x, this.ledger.issued, stage);
    this.issued = payload;
    return { id: this.ledger.issue(payload), arm: this.table.ids[pick] as string };
  }

  /** Payload of the decision issued last (valid right after `issue`). */
  protected issued: KernelPayload | undefined;

  protected uidOf(p: KernelPayload): number {
    return p.uid;
  }

  protected override eventContext(p: KernelPayload): number[] {
    return vectorToJson(p.x, this.contextDim);
  }

  protected payloadFromEvent(event: ArmEvent, s: S, context: Float64Array | undefined): KernelPayload {
    return this.store.acquire(s.uid, context as Float64Array, -1, this.eventStage(event));
  }

  /** The stage an event's round is filed into (Sup-* read it from the event's state). */
  protected eventStage(_event: ArmEvent): number {
    return 0;
  }

  protected override releaseEventPayload(p: KernelPayload): void {
    this.store.dispose(p);
  }

  /** Rewards whose learned score would overflow the regressions are refused before anything changes. */
  protected override checkReward(reward: number): void {
    learnedScoreTo(reward, this.transform, CHECKED_SCORE, 0); // not learnedScore: its unused result would be boxed
  }

  /** The learned score of a (checked) reward. */
  protected score(reward: number): number {
    return learnedScore(reward, this.transform);
  }

  /** {@link score} stored into out[oi] (not boxed, see {@link currentExplorationTo}). */
  protected scoreTo(reward: number, out: Float64Array, oi: number): void {
    learnedScoreTo(reward, this.transform, out, oi);
  }

  /** The shared options, for snapshots. */
  protected commonJSON(): Record<string, Json> {
    return {
      ridge: this.ridge,
      exploration: this.exploration,
      confidence: this.confidence,
      horizon: this.horizon ?? null,
      scoreTransform: { ...this.transform },
      normalizeContext: this.normalizeContext,
    };
  }

  /**
   * A per-arm record { id: value } in arrival order; every id is an own enumerable key, even
   * "__proto__" (a plain assignment would set the prototype instead and lose the arm).
   */
  protected perArm(value: (state: S) => number): Record<string, number> {
    const out: Record<string, number> = {};
    for (let i = 0; i < this.table.size; i++) {
      Object.defineProperty(out, this.table.ids[i] as string, {
        value: value(this.table.states[i] as S),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }

  /** A prediction on the caller's score scale from mu and sigma on the learned scale. */
  protected prediction(arm: string, n: number, mu: number, sigma: number, e: number): ArmPrediction {
    const tr = this.transform;
    if (n === 0) return { arm, n: 0, mean: tr.priorMean / tr.scale + tr.offset, sigma: Infinity, ucb: Infinity };
    return {
      arm,
      n,
      mean: (mu + tr.priorMean) / tr.scale + tr.offset,
      sigma: sigma / tr.scale,
      ucb: (mu + e * sigma + tr.priorMean) / tr.scale + tr.offset,
    };
  }
}

/** One arm's prediction, on the caller's score scale. */
export interface ArmPrediction {
  readonly arm: string;
  /** Points in the arm's regression. */
  readonly n: number;
  readonly mean: number;
  readonly sigma: number;
  /** mean + exploration * sigma; +Infinity for an unvisited arm. */
  readonly ucb: number;
}

/** Reads the shared options of a snapshot state (SNAPSHOT_CORRUPT on anything missing or invalid). */
export function readCommonJSON(st: Record<string, Json>): CommonSnapshotOptions {
  const ridge = readNumber(st, "ridge", (v) => v >= RIDGE.min && v <= RIDGE.max, "a number in [1e-4, 1e9]");
  let exploration: Exploration;
  try {
    exploration = checkExploration(st.exploration, "exploration");
  } catch {
    snapshotCorrupt('"exploration"', 'a number >= 0 or "paper", "theory", "anytime"');
  }
  const confidence = readNumber(st, "confidence", (v) => v > 0 && v < 1, "a number in (0, 1)");
  const horizon = st.horizon === null ? undefined : readInt(st, "horizon", 1);
  if (exploration === "theory" && horizon === undefined)
    snapshotCorrupt('"horizon"', 'set when exploration is "theory"');
  const normalizeContext = st.normalizeContext;
  if (typeof normalizeContext !== "boolean") snapshotCorrupt('"normalizeContext"', "true or false");
  return {
    ridge,
    exploration,
    confidence,
    horizon,
    scoreTransform: readTransformJSON(st.scoreTransform),
    normalizeContext,
  };
}
