/**
 * What every classic policy shares: named arms (ArmTable), pending decisions (DecisionLedger),
 * the seeded Rng, context and feedback validation, and the snapshot envelope. Each policy adds
 * its per-arm statistics and its selection rule.
 */
import {
  type ArmDecision,
  type ArmFeedback,
  type ArmPolicy,
  ArmTable,
  assertFinite,
  assertInt,
  assertVector,
  DecisionLedger,
  type DecisionRef,
  ErrorCode,
  field,
  type Json,
  type LedgerCodec,
  Rng,
  type RngState,
  RouteKitError,
  readId,
  readInt,
  readObject,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";

/** Options every classic policy accepts. */
export interface BasePolicyOptions {
  /** Initial arm ids (may be empty: add arms later with addArm). */
  readonly arms: readonly string[];
  /** Context length select() expects; 0 (default for context-free policies) means "ignore any context". */
  readonly contextDim?: number;
  /** Random stream; default `Rng.fromSeed(seed ?? 0)`. */
  readonly rng?: Rng;
  readonly seed?: number;
  /** Pending decisions kept for late feedback before the oldest is dropped (default 100,000). */
  readonly maxPending?: number;
}

/** Per-arm state: `uid` tells an arm apart from a later arm re-added under the same id. */
export interface ArmState {
  readonly uid: number;
}

/** Current snapshot layout version of every classic policy. */
export const CLASSIC_SNAPSHOT_VERSION = 1;

/** Largest context length any classic policy accepts (option and snapshot). */
export const MAX_CONTEXT_DIM = 1 << 16;
/** Largest side of a ridge matrix (LinUCB: d, or d + one-hot slots), so its d^2 Float64s stay allocatable. */
export const MAX_RIDGE_DIM = 1 << 14;

/**
 * Index of the largest of `scores[0..n)`, ties broken uniformly at random by reservoir sampling
 * (an RNG draw happens only when a tie is met, so tie-free rounds consume no randomness).
 */
export function argmaxRandomTie(scores: Float64Array, n: number, rng: Rng): number {
  let best = 0;
  let bv = scores[0] as number;
  let ties = 1;
  for (let i = 1; i < n; i++) {
    const v = scores[i] as number;
    if (v > bv) {
      bv = v;
      best = i;
      ties = 1;
    } else if (v === bv) {
      ties++;
      if (rng.int(ties) === 0) best = i;
    }
  }
  return best;
}

/** Throws unless `fb` is `{ reward: finite, cost?: finite >= 0 }`. */
export function checkFeedback(fb: ArmFeedback): void {
  if (fb === null || typeof fb !== "object") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `feedback must be an object { reward: number, cost?: number }, got ${String(fb)}`,
    );
  }
  assertFinite(fb.reward, "feedback.reward");
  if (fb.cost !== undefined) {
    assertFinite(fb.cost, "feedback.cost");
    if (fb.cost < 0) throw new RouteKitError(ErrorCode.OutOfRange, `feedback.cost must be >= 0, got ${fb.cost}`);
  }
}

/** Throws INVALID_ARGUMENT unless `v` is a finite number satisfying `ok`. */
export function checkOption(v: number, what: string, ok: (v: number) => boolean, expected: string): void {
  if (typeof v !== "number" || !Number.isFinite(v) || !ok(v)) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `option ${what} must be ${expected}, got ${String(v)}`);
  }
}

/**
 * Runs a restore; errors other than the snapshot codes (e.g. an option out of range inside a
 * tampered snapshot) are reported as SNAPSHOT_CORRUPT.
 */
export function restoring<T>(kind: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (
      e instanceof RouteKitError &&
      e.code !== ErrorCode.SnapshotCorrupt &&
      e.code !== ErrorCode.SnapshotKind &&
      e.code !== ErrorCode.SnapshotVersion
    ) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot of "${kind}" is invalid: ${e.message}`);
    }
    throw e;
  }
}

/**
 * Base of the classic policies. `P` is the ledger payload of a pending decision; it records the
 * chosen arm's uid (through {@link BaseArmPolicy.uidOf}) so feedback for an arm removed since is
 * accepted and ignored, even if an arm with the same id was added again.
 */
export abstract class BaseArmPolicy<S extends ArmState, P> implements ArmPolicy {
  readonly protocol = "arm" as const;
  abstract readonly kind: string;
  readonly contextDim: number;
  protected readonly table: ArmTable<S> = new ArmTable<S>();
  protected rng: Rng;
  protected readonly ledger: DecisionLedger<P>;
  protected readonly maxPending: number;
  /** Per-arm scores of the current select (capacity grows with the arm count). */
  protected scores = new Float64Array(8);
  private readonly byUid = new Map<number, S>();
  private nextUid = 0;

  protected constructor(options: BasePolicyOptions, codec: LedgerCodec<P>, defaultContextDim = 0) {
    if (options === null || typeof options !== "object") {
      throw new RouteKitError(ErrorCode.InvalidArgument, "options must be an object with at least { arms }");
    }
    if (!Array.isArray(options.arms)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "option arms must be an array of arm ids");
    }
    const dim = options.contextDim ?? defaultContextDim;
    assertInt(dim, "option contextDim", 0, MAX_CONTEXT_DIM);
    this.contextDim = dim;
    this.maxPending = options.maxPending ?? 100_000;
    assertInt(this.maxPending, "option maxPending", 1, Number.MAX_SAFE_INTEGER);
    this.ledger = new DecisionLedger(codec, { maxPending: this.maxPending });
    if (options.rng !== undefined && !(options.rng instanceof Rng)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "option rng must be an Rng from @routekit/core");
    }
    this.rng = options.rng ?? Rng.fromSeed(options.seed ?? 0);
  }

  /** Adds the constructor's arms; subclasses call it once their own fields exist. */
  protected addInitialArms(arms: readonly string[]): void {
    const seen = new Set<string>();
    for (const a of arms) {
      this.table.checkAdd(a);
      if (seen.has(a)) throw new RouteKitError(ErrorCode.DuplicateArm, `arm "${a}" is listed twice in option arms`);
      seen.add(a);
    }
    for (const a of arms) this.addArm(a);
  }

  get arms(): readonly string[] {
    return this.table.ids;
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  addArm(id: string): void {
    this.table.checkAdd(id);
    const state = this.createArm(this.nextUid);
    this.nextUid++;
    this.table.add(id, state);
    this.byUid.set(state.uid, state);
    if (this.scores.length < this.table.size) {
      const grown = new Float64Array(this.scores.length * 2);
      grown.set(this.scores);
      this.scores = grown;
    }
  }

  removeArm(id: string): void {
    this.table.checkRemove(id);
    this.checkRemovable(id);
    const state = this.table.remove(id);
    this.byUid.delete(state.uid);
    this.onRemoved(state);
  }

  select(context?: Float64Array): ArmDecision {
    this.table.checkNotEmpty();
    if (this.contextDim > 0) assertVector(context, this.contextDim, "context");
    return this.choose(context);
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    const payload = this.ledger.get(decision);
    checkFeedback(feedback);
    this.checkReward(feedback.reward);
    const state = this.byUid.get(this.uidOf(payload));
    if (state !== undefined) this.learn(state, payload, feedback.reward);
    this.ledger.settle(decision);
  }

  abstract toJSON(): Snapshot;

  // ------------------------------------------------------------ subclass hooks

  /** Fresh state of a new arm. */
  protected abstract createArm(uid: number): S;
  /** Picks an arm for a validated context (undefined when contextDim is 0) and issues the decision. */
  protected abstract choose(context: Float64Array | undefined): ArmDecision;
  /** Applies validated feedback to a live arm. */
  protected abstract learn(state: S, payload: P, reward: number): void;
  /** The uid of the arm a payload's decision chose. */
  protected abstract uidOf(payload: P): number;
  /** Extra reward checks (e.g. [0, 1] for Beta-Bernoulli Thompson sampling). */
  protected checkReward(_reward: number): void {}
  /** Extra removal checks, run before anything changes. */
  protected checkRemovable(_id: string): void {}
  /** Called after an arm left the table. */
  protected onRemoved(_state: S): void {}
  /** The arm's learned state as JSON (without id and uid); read back through {@link readBaseState}. */
  protected abstract encodeArm(state: S): Record<string, Json>;

  // ------------------------------------------------------------ snapshots

  /** The state every classic policy snapshots: arms, uids, rng and pending decisions. */
  protected baseState(): Record<string, Json> {
    const arms: Json[] = [];
    for (let i = 0; i < this.table.size; i++) {
      const s = this.table.states[i] as S;
      arms.push({ id: this.table.ids[i] as string, uid: s.uid, ...this.encodeArm(s) });
    }
    return {
      contextDim: this.contextDim,
      maxPending: this.maxPending,
      nextUid: this.nextUid,
      rng: this.rng.toJSON() as unknown as Json,
      arms,
      ledger: this.ledger.toJSON(),
    };
  }

  /**
   * Loads a snapshot validated by {@link readBaseState} into a policy constructed with no arms and
   * the snapshot's options. `makeArm` turns an arm's validated data into its state; the ledger
   * payloads were validated too, so nothing here can fail on snapshot content.
   */
  protected restoreBase<A>(snap: BaseSnapshot<A>, makeArm: (data: A, uid: number) => S): void {
    this.rng = snap.rng;
    for (const a of snap.arms) {
      const state = makeArm(a.data, a.uid);
      this.table.add(a.id, state);
      this.byUid.set(a.uid, state);
    }
    this.nextUid = snap.nextUid;
    if (this.scores.length < this.table.size) this.scores = new Float64Array(this.table.size * 2);
    this.ledger.loadJSON(snap.ledger);
  }
}

// ------------------------------------------------------------ snapshot readers
//
// Every classic fromJSON reads its snapshot with core's field readers (readInt, readF64, ...) before
// constructing anything: a field that is missing, of the wrong type, non-finite, out of range or
// inconsistent with the others throws SNAPSHOT_CORRUPT naming it.

/** A validated arm of a snapshot: its id, uid and the policy's own (already checked) data. */
export interface SnapshotArm<A> {
  readonly id: string;
  readonly uid: number;
  readonly data: A;
}

/** The validated state every classic policy snapshots (see {@link BaseArmPolicy.baseState}). */
export interface BaseSnapshot<A> {
  readonly contextDim: number;
  readonly maxPending: number;
  readonly nextUid: number;
  readonly rng: Rng;
  readonly arms: readonly SnapshotArm<A>[];
  /** The ledger JSON; its structure and every payload have been validated. */
  readonly ledger: Json;
}

export interface BaseStateReader<A> {
  /** Allowed contextDim range (default [0, MAX_CONTEXT_DIM]). */
  readonly minContextDim?: number;
  readonly maxContextDim?: number;
  /** Validates an arm's own fields (id and uid are checked already) and returns its data. */
  readonly arm: (json: Record<string, Json>, contextDim: number) => A;
  /** Validates a pending decision's payload; `nextUid` bounds the uids it may name. */
  readonly payload: (json: Json, nextUid: number, contextDim: number) => void;
}

/**
 * Reads and validates the base state (options, rng, arms, ledger) of a classic snapshot without
 * touching any policy; throws SNAPSHOT_CORRUPT on anything invalid.
 */
export function readBaseState<A>(st: Record<string, Json>, reader: BaseStateReader<A>): BaseSnapshot<A> {
  const contextDim = readInt(st, "contextDim", reader.minContextDim ?? 0, reader.maxContextDim ?? MAX_CONTEXT_DIM);
  const maxPending = readInt(st, "maxPending", 1);
  const nextUid = readInt(st, "nextUid", 0);
  const rng = Rng.fromJSON(readObject(st.rng, '"rng"') as unknown as RngState);
  const armsJson = field(st, "arms", "array");
  if (armsJson.length > nextUid) snapshotCorrupt('"arms"', `at most nextUid (${nextUid}) entries`);
  const ids = new Set<string>();
  const uids = new Set<number>();
  const arms: SnapshotArm<A>[] = [];
  for (let i = 0; i < armsJson.length; i++) {
    const a = readObject(armsJson[i], `arms[${i}]`);
    const id = readId(a, "id");
    const uid = readInt(a, "uid", 0, nextUid - 1);
    if (ids.has(id)) snapshotCorrupt(`arms[${i}].id`, `unique (arm "${id}" is listed twice)`);
    if (uids.has(uid)) snapshotCorrupt(`arms[${i}].uid`, `unique (uid ${uid} is listed twice)`);
    ids.add(id);
    uids.add(uid);
    arms.push({ id, uid, data: reader.arm(a, contextDim) });
  }
  DecisionLedger.validateJSON(st.ledger, (json) => reader.payload(json, nextUid, contextDim));
  return { contextDim, maxPending, nextUid, rng, arms, ledger: st.ledger as Json };
}

/** Validates a pending decision payload that is just an arm uid (context-free policies). */
export function checkUidPayload(json: Json, nextUid: number): void {
  if (typeof json !== "number" || !Number.isSafeInteger(json) || json < 0 || json >= nextUid) {
    snapshotCorrupt("ledger payload", `an arm uid in [0, ${nextUid})`);
  }
}

/** Ledger codec for payloads that are just the chosen arm's uid (context-free policies). */
export const uidCodec: LedgerCodec<number> = {
  encode: (uid) => uid,
  decode: (json) => {
    if (!Number.isSafeInteger(json) || (json as number) < 0) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, "pending decision payload must be an arm uid");
    }
    return json as number;
  },
};

/**
 * Guards a ridge update before it mutates anything: throws NUMERICAL when the Sherman-Morrison step
 * (A^-1 -= u u^T / denom) or the accompanying vector step (`step` = largest |increment|, e.g.
 * |reward| |x|) would overflow, so extreme-but-finite input cannot leave Infinity or NaN behind.
 */
export function checkRidgeStep(uu: number, denom: number, step: number): void {
  if (!(Number.isFinite(denom) && denom > 0 && Number.isFinite(uu / denom) && Number.isFinite(step))) {
    throw new RouteKitError(
      ErrorCode.Numerical,
      "this feedback would overflow the ridge model (context or reward magnitude too large); the update was not applied",
    );
  }
}

/** Throws OUT_OF_RANGE when |x|^2 overflows (such a context cannot be scored). */
export function checkContextNorm(xx: number): void {
  if (!Number.isFinite(xx)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      "context is too large: its squared norm overflows (expected entries well below 1e150 in magnitude)",
    );
  }
}
