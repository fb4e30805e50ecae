/**
 * What every arm-selection policy shares, whatever its family: named arms with uids (ArmTable), pending
 * decisions (DecisionLedger), the seeded Rng, option, context and feedback validation, the decision
 * event plumbing (`decisionRecord`, `learn`, `discard`) and the snapshot base. A family adds its
 * per-arm statistics, its selection rule and its update.
 */
import { ArmTable, type ArmTable as ArmTableType } from "./arms.js";
import { ErrorCode, RouteKitError } from "./errors.js";
import {
  type ArmEvent,
  type ArmEventDecision,
  asInvalidEvent,
  checkEvent,
  EVENT_VERSION,
  eventVector,
} from "./events.js";
import { DecisionLedger, type DecisionRef, type LedgerCodec } from "./ledger.js";
import { optionKeys } from "./option-keys.js";
import { armsOption, maxPendingOption, numberOption, readOptions, rngOption } from "./options.js";
import type { ArmDecision, ArmFeedback, ArmPolicy, VectorInput } from "./protocols.js";
import { Rng, type RngState } from "./rng.js";
import { field, type Json, readId, readInt, readObject, type Snapshot, snapshotCorrupt } from "./snapshot.js";
import { assertFinite, describe, errorText, readVectorInto } from "./validate.js";

/** Options every arm policy accepts. */
export interface ArmPolicyOptions {
  /** Initial arm ids (may be empty: add arms later with addArm). */
  readonly arms: readonly string[];
  /** Context length select() expects; 0 means "ignore any context" (context-free policies). */
  readonly contextDim?: number;
  /** Random stream; default `Rng.fromSeed(seed ?? 0)`. */
  readonly rng?: Rng;
  /** Seed of the default random stream (a number or a string). */
  readonly seed?: number | string;
  /** Pending decisions kept for late feedback before the oldest is dropped (default 100,000, at most 10^7). */
  readonly maxPending?: number;
}

/** The keys of {@link ArmPolicyOptions}; a family's list extends it with the family's own options. */
export const ARM_POLICY_OPTION_KEYS = optionKeys<ArmPolicyOptions>()([
  "arms",
  "contextDim",
  "rng",
  "seed",
  "maxPending",
]);

/** Largest context length any arm policy accepts. */
export const MAX_CONTEXT_DIM = 1 << 16;

/**
 * Largest side of a d x d matrix (a ridge design or its inverse) a policy allocates per model and writes to its
 * snapshots. Snapshots hold each such matrix as one base64 string, and JavaScript strings stop at 2^29 - 24
 * characters: at 4096 it is 179 M characters (128 MB); at 8192 it could not be written, and from about 16,000 the
 * matrix itself cannot be allocated (a RangeError).
 */
export const MAX_RIDGE_DIM = 1 << 12;

/** Per-arm state: `uid` tells an arm apart from a later arm re-added under the same id. */
export interface ArmState {
  readonly uid: number;
}

/**
 * Index of the largest of `scores[0..n)`, ties broken uniformly at random by reservoir sampling (an
 * RNG draw happens only when a tie is met, so tie-free rounds consume no randomness). A NaN score
 * never wins (policies must not produce one; this keeps a bug from picking a broken arm silently).
 */
export function argmaxRandomTie(scores: ArrayLike<number>, n: number, rng: Rng): number {
  let best = -1;
  let bv = Number.NEGATIVE_INFINITY;
  let ties = 0;
  for (let i = 0; i < n; i++) {
    const v = scores[i] as number;
    if (v > bv || (best < 0 && v === bv)) {
      bv = v;
      best = i;
      ties = 1;
    } else if (v === bv) {
      ties++;
      if (rng.int(ties) === 0) best = i;
    }
  }
  if (best < 0) throw new RouteKitError(ErrorCode.Numerical, "every arm's score is NaN; no arm can be chosen");
  return best;
}

/**
 * Copies an arm feedback's `reward` and `cost` into `into`, reading each once; anything that is not an object is
 * returned as it is (for checkArmFeedback to refuse). A -0 is copied as 0, as contexts are: JSON writes -0 as 0,
 * so a policy that kept it would leave another learned state (a stored score's sign bit) than the one that
 * learns the logged event, breaking update == learn bit for bit.
 */
export function readFeedbackOnce(feedback: unknown, into: { reward: number; cost?: number }): ArmFeedback {
  if (feedback === null || typeof feedback !== "object") return feedback as ArmFeedback;
  const f = feedback as { reward?: unknown; cost?: unknown };
  try {
    const reward = f.reward;
    into.reward = (reward === 0 ? 0 : reward) as number;
    const cost = f.cost;
    into.cost = (cost === 0 ? 0 : cost) as number | undefined;
  } catch (e) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `reading the feedback threw: ${errorText(e)}`);
  }
  return into;
}

/** Throws unless `fb` is `{ reward: finite, cost?: finite >= 0 }`. */
export function checkArmFeedback(fb: ArmFeedback): void {
  if (fb === null || typeof fb !== "object") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `feedback must be an object { reward: number, cost?: number }, got ${describe(fb)}`,
    );
  }
  assertFinite(fb.reward, "feedback.reward");
  const cost = fb.cost;
  if (cost !== undefined) {
    assertFinite(cost, "feedback.cost");
    if (cost < 0) throw new RouteKitError(ErrorCode.OutOfRange, `feedback.cost must be >= 0, got ${cost}`);
  }
}

/**
 * Runs a restore; errors other than the snapshot codes (an option out of range inside a tampered
 * snapshot) are reported as SNAPSHOT_CORRUPT.
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
 * Base of arm-selection policies. `S` is the per-arm state, `P` the ledger payload of a pending
 * decision; the payload records the chosen arm's uid (through {@link ArmPolicyBase.uidOf}) so feedback
 * for an arm removed since is accepted and ignored, even if an arm with the same id was added again.
 *
 * Update and learn share one path: `update` reads the payload from the ledger, `learn` validates the
 * event's decision whatever arm it names ({@link ArmPolicyBase.checkEventDecision}) and, for a live arm,
 * builds a payload from it ({@link ArmPolicyBase.payloadFromEvent}); both then call
 * {@link ArmPolicyBase.applyFeedback}. A subclass keeps `update` equal to `learn` of its
 * `decisionRecord` by storing in the payload only what the event carries (the context as received,
 * decision-time state in {@link ArmPolicyBase.eventState}).
 */
export abstract class ArmPolicyBase<S extends ArmState, P> implements ArmPolicy {
  readonly protocol = "arm" as const;
  abstract readonly kind: string;
  readonly contextDim: number;
  protected readonly table: ArmTableType<S> = new ArmTable<S>();
  protected rng: Rng;
  protected readonly ledger: DecisionLedger<P>;
  protected readonly maxPending: number;
  /** Per-arm scores of the current select (capacity grows with the arm count). */
  protected scores = new Float64Array(8);
  private readonly byUid = new Map<number, S>();
  /** Ids of removed arms that pending decisions may still name (pruned at each removal). */
  private retired = new Map<number, string>();
  private idOfUid = new Map<number, string>();
  private nextUid = 0;
  /** Scratch copy of a context, so a getter-backed array is read once and validated as read. */
  private contextCopy: Float64Array;
  /**
   * Set (to a name for the error) while the policy runs user code in the middle of a call: a schedule or a
   * warning hook (kernel-ucb), an external solver (StageRoute's deploySolver). Calls back into the policy from
   * there are refused (INVALID_STATE): a nested select overwrote the scratch context of the call in progress,
   * whose decision or learned point then silently took the nested call's context. Set and cleared by the
   * subclass around the user code, in a try/finally (no closure, so no allocation per round).
   */
  protected callback: string | undefined = undefined;

  /**
   * Reads the common options (arms are added later by {@link ArmPolicyBase.addInitialArms}, once the
   * subclass's own fields exist). `what` names the policy in error messages (default: its kind).
   */
  protected constructor(options: ArmPolicyOptions, codec: LedgerCodec<P>, defaultContextDim = 0, what?: string) {
    const o = readOptions(options, what ?? (new.target as unknown as { kind?: string }).kind ?? "policy");
    armsOption(o);
    this.contextDim = numberOption(o, "contextDim", defaultContextDim, { integer: true, min: 0, max: MAX_CONTEXT_DIM });
    this.maxPending = maxPendingOption(o);
    this.ledger = new DecisionLedger(codec, { maxPending: this.maxPending });
    this.rng = rngOption(o);
    this.contextCopy = new Float64Array(this.contextDim);
  }

  /** Adds the constructor's arms (validated again: the options object may have changed since). */
  protected addInitialArms(options: ArmPolicyOptions): void {
    for (const a of armsOption(readOptions(options, "policy"))) this.addArm(a);
  }

  /** The arm ids, in arrival order: a frozen copy (the table's own array must not be reachable), cached until the arms change. */
  get arms(): readonly string[] {
    if (this.armsView === undefined) this.armsView = Object.freeze([...this.table.ids]);
    return this.armsView;
  }

  private armsView: readonly string[] | undefined;

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  addArm(id: string): void {
    this.notFromCallback("addArm");
    this.table.checkAdd(id);
    this.checkAddable(id);
    const state = this.createArm(this.nextUid);
    this.nextUid++;
    this.table.add(id, state);
    this.armsView = undefined;
    this.byUid.set(state.uid, state);
    this.idOfUid.set(state.uid, id);
    if (this.scores.length < this.table.size) {
      const grown = new Float64Array(this.scores.length * 2);
      grown.set(this.scores);
      this.scores = grown;
    }
  }

  removeArm(id: string): void {
    this.notFromCallback("removeArm");
    this.table.checkRemove(id);
    this.checkRemovable(id);
    const state = this.table.remove(id);
    this.armsView = undefined;
    this.byUid.delete(state.uid);
    this.idOfUid.delete(state.uid);
    this.retired.set(state.uid, id);
    this.pruneRetired();
    this.onRemoved(state);
  }

  select(context?: VectorInput): ArmDecision {
    this.notFromCallback("select");
    this.table.checkNotEmpty();
    if (this.contextDim === 0) return this.choose(undefined);
    return this.choose(this.readContext(context, "context"));
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    this.notFromCallback("update");
    const payload = this.ledger.get(decision);
    const fb = readFeedbackOnce(feedback, this.feedbackCopy);
    checkArmFeedback(fb);
    if (this.costRequired && fb.cost === undefined) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "feedback.cost is required: this policy learns costs");
    }
    this.checkReward(fb.reward);
    const state = this.byUid.get(this.uidOf(payload));
    if (state !== undefined) this.applyFeedback(state, payload, fb);
    this.ledger.settle(decision);
  }

  /**
   * The feedback being applied, its fields read once: a getter cannot pass validation with one value and be
   * learned with another. Reused by every update (applyFeedback must not keep it).
   */
  private readonly feedbackCopy: { reward: number; cost?: number } = { reward: 0, cost: undefined };
  private readonly eventFeedbackCopy: { reward: number; cost?: number } = { reward: 0, cost: undefined };
  /** Whether feedback must carry a cost (policies that learn costs): without one, update and learn refuse it. */
  protected readonly costRequired: boolean = false;

  decisionRecord(decision: DecisionRef): ArmEvent {
    const payload = this.ledger.get(decision);
    const id = this.ledger.idOf(decision); // the id get resolved (decision.id is not read twice)
    const uid = this.uidOf(payload);
    const arm = this.idOfUid.get(uid) ?? this.retired.get(uid);
    if (arm === undefined) throw new RouteKitError(ErrorCode.InvalidState, "pending decision names an unknown arm uid");
    const context = this.eventContext(payload);
    const d: { -readonly [K in keyof ArmEventDecision]: ArmEventDecision[K] } = { arm, context };
    const propensity = this.eventPropensity(payload);
    if (propensity !== undefined) d.propensity = propensity;
    const state = this.eventState(payload);
    if (state !== undefined) d.state = state;
    if (!this.idOfUid.has(uid)) d.retired = true;
    return { v: EVENT_VERSION, kind: this.kind, protocol: "arm", id, decision: d };
  }

  learn(event: ArmEvent): void {
    this.notFromCallback("learn");
    // The feedback's fields are read once, before validation, so the values checked are the values learned.
    let once: ArmEvent = event;
    if (event !== null && typeof event === "object") {
      try {
        const copy = { ...event }; // each field read once: the feedback below is the one the spread read
        once = { ...copy, feedback: readFeedbackOnce(copy.feedback, this.eventFeedbackCopy) };
      } catch (e) {
        throw new RouteKitError(ErrorCode.InvalidEvent, `reading the event threw: ${errorText(e)}`);
      }
    }
    const ev = checkEvent(once, "arm");
    const ctx = ev.decision.context;
    let context: Float64Array | undefined;
    if (this.contextDim > 0) {
      if (ctx !== null) context = eventVector(ctx, "decision.context", this.contextDim);
      else if (this.recordsContext()) {
        throw new RouteKitError(ErrorCode.InvalidEvent, `event decision.context must hold ${this.contextDim} numbers`);
      }
      // A context-free policy given a contextDim (to sit beside contextual ones) records `context: null`: its
      // own events are learned like any other.
    }
    const fb = ev.feedback;
    if (this.costRequired && fb.cost === undefined) {
      throw new RouteKitError(ErrorCode.InvalidEvent, "event feedback.cost is required: this policy learns costs");
    }
    try {
      this.checkReward(fb.reward);
    } catch (e) {
      // One code for every refused event, as update's NaN, a negative cost and a missing field already are here.
      if (e instanceof RouteKitError) throw new RouteKitError(ErrorCode.InvalidEvent, `event ${e.message}`);
      throw e;
    }
    try {
      // Before the arm is looked up: an event naming a removed arm or one this policy never had is learned as
      // nothing, but a malformed one is refused exactly as it is when it names a live arm.
      this.checkEventDecision(ev, context);
      if (ev.decision.retired === true) return;
      const state = this.table.find(ev.decision.arm);
      if (state === undefined) return;
      const payload = this.payloadFromEvent(ev, state, context);
      try {
        this.applyFeedback(state, payload, fb);
      } finally {
        this.releaseEventPayload(payload);
      }
    } catch (e) {
      throw asInvalidEvent(e);
    }
  }

  discard(decision: DecisionRef): void {
    this.notFromCallback("discard");
    this.ledger.get(decision);
    this.ledger.settle(decision);
  }

  abstract toJSON(): Snapshot;

  /** Refuses (INVALID_STATE) a call made from inside {@link callback}'s user code. */
  protected notFromCallback(method: string): void {
    if (this.callback !== undefined) {
      throw new RouteKitError(
        ErrorCode.InvalidState,
        `${method} was called from inside ${this.callback}, which must not call back into the policy`,
      );
    }
  }

  /**
   * Copies a context into a scratch buffer, reading each entry once, and validates the copy (length,
   * finiteness): a getter-backed array cannot change between the check and the use.
   */
  protected readContext(context: unknown, what: string): Float64Array {
    return readVectorInto(context, this.contextDim, this.contextCopy, what);
  }

  // ------------------------------------------------------------ subclass hooks

  /** Fresh state of a new arm. */
  protected abstract createArm(uid: number): S;
  /** Picks an arm for a validated context (a scratch copy; undefined when contextDim is 0) and issues the decision. */
  protected abstract choose(context: Float64Array | undefined): ArmDecision;
  /** Applies validated feedback to a live arm; throws (before any change) on a numerical failure. */
  protected abstract applyFeedback(state: S, payload: P, feedback: ArmFeedback): void;
  /** The uid of the arm a payload's decision chose. */
  protected abstract uidOf(payload: P): number;
  /** Whether decision records carry the context (the policy overrides {@link eventContext}) or null. */
  private recordsContext(): boolean {
    return this.eventContext !== ArmPolicyBase.prototype.eventContext;
  }
  /** The context a pending decision saw, as event JSON (null for context-free policies). */
  protected eventContext(_payload: P): number[] | null {
    return null;
  }
  /** The propensity of a pending decision, when the policy's distribution is explicit. */
  protected eventPropensity(_payload: P): number | undefined {
    return undefined;
  }
  /** Decision-time state the update needs beyond arm, context and propensity. */
  protected eventState(_payload: P): Json | undefined {
    return undefined;
  }
  /**
   * Validates what an event's decision carries that needs no arm's learned state (`decision.state`, the propensity
   * against it, the context against the policy's options), throwing INVALID_EVENT; changes nothing. `learn` runs it
   * for every event, before the arm is looked up, so an event naming a removed or unknown arm (which is learned as
   * nothing) is refused exactly as the same event naming a live arm. `context` is the validated context (undefined
   * when contextDim is 0 or the event's context is null).
   */
  protected checkEventDecision(_event: ArmEvent, _context: Float64Array | undefined): void {}
  /**
   * A payload equivalent to the decision an event describes, for {@link ArmPolicyBase.applyFeedback}, from an
   * event {@link ArmPolicyBase.checkEventDecision} accepted.
   */
  protected abstract payloadFromEvent(event: ArmEvent, state: S, context: Float64Array | undefined): P;
  /** Returns a payload made by {@link ArmPolicyBase.payloadFromEvent} (e.g. to a pool). */
  protected releaseEventPayload(_payload: P): void {}
  /** Extra reward checks (e.g. [0, 1] for Beta-Bernoulli Thompson sampling). */
  protected checkReward(_reward: number): void {}
  /** Extra checks before an arm is added, run before anything changes. */
  protected checkAddable(_id: string): void {}
  /** Extra removal checks, run before anything changes. */
  protected checkRemovable(_id: string): void {}
  /** Called after an arm left the table. */
  protected onRemoved(_state: S): void {}
  /** The arm's learned state as JSON (without id and uid); read back through {@link readArmBaseState}. */
  protected abstract encodeArm(state: S): Record<string, Json>;

  /** The state of the arm with this uid, if it is live. */
  protected stateOfUid(uid: number): S | undefined {
    return this.byUid.get(uid);
  }

  private pruneRetired(): void {
    if (this.retired.size === 0) return;
    const used = new Set<number>();
    for (const p of this.ledger.values()) used.add(this.uidOf(p));
    for (const uid of [...this.retired.keys()]) if (!used.has(uid)) this.retired.delete(uid);
  }

  // ------------------------------------------------------------ snapshots

  /** The state every arm policy snapshots: options, arms, uids, rng and pending decisions. */
  protected baseState(): Record<string, Json> {
    // Every arm policy's toJSON starts here: a snapshot taken from inside a callback would hold a state half way
    // through an update (counts learned, deployment not yet re-chosen), one no sequence of calls can reach.
    this.notFromCallback("toJSON");
    const arms: Json[] = [];
    for (let i = 0; i < this.table.size; i++) {
      const s = this.table.states[i] as S;
      arms.push({ id: this.table.ids[i] as string, uid: s.uid, ...this.encodeArm(s) });
    }
    // Ids of removed arms are kept only for pending decisions' records, so they belong to the ledger:
    // they are per replica, not learned state.
    const retired: Json[] = [];
    for (const [uid, id] of this.retired) retired.push([uid, id]);
    return {
      contextDim: this.contextDim,
      maxPending: this.maxPending,
      nextUid: this.nextUid,
      rng: this.rng.toJSON() as unknown as Json,
      arms,
      ledger: { ...(this.ledger.toJSON() as Record<string, Json>), retired },
    };
  }

  /**
   * Loads a snapshot validated by {@link readArmBaseState} into a policy constructed with no arms and
   * the snapshot's options. `makeArm` turns an arm's validated data into its state.
   */
  protected restoreBase<A>(snap: ArmBaseSnapshot<A>, makeArm: (data: A, uid: number) => S): void {
    this.rng = snap.rng;
    for (const a of snap.arms) {
      const state = makeArm(a.data, a.uid);
      this.table.add(a.id, state);
      this.byUid.set(a.uid, state);
      this.idOfUid.set(a.uid, a.id);
    }
    this.armsView = undefined;
    this.retired = new Map(snap.retired);
    this.nextUid = snap.nextUid;
    if (this.scores.length < this.table.size) this.scores = new Float64Array(this.table.size * 2);
    this.ledger.loadJSON(snap.ledger);
  }
}

// ------------------------------------------------------------ snapshot readers

/** A validated arm of a snapshot: its id, uid and the policy's own (already checked) data. */
export interface SnapshotArm<A> {
  readonly id: string;
  readonly uid: number;
  readonly data: A;
}

/** The validated state every arm policy snapshots (see {@link ArmPolicyBase.baseState}). */
export interface ArmBaseSnapshot<A> {
  readonly contextDim: number;
  readonly maxPending: number;
  readonly nextUid: number;
  readonly rng: Rng;
  readonly arms: readonly SnapshotArm<A>[];
  readonly retired: readonly (readonly [number, string])[];
  /** The ledger JSON; its structure and every payload have been validated. */
  readonly ledger: Json;
}

export interface ArmBaseStateReader<A> {
  /** Allowed contextDim range (default [0, MAX_CONTEXT_DIM]). */
  readonly minContextDim?: number;
  readonly maxContextDim?: number;
  /** Validates an arm's own fields (id and uid are checked already) and returns its data. */
  readonly arm: (json: Record<string, Json>, contextDim: number) => A;
  /** Validates a pending decision's payload and returns the arm uid it names. */
  readonly payload: (json: Json, contextDim: number) => number;
}

/**
 * Reads and validates the base state (options, rng, arms, ledger) of an arm policy's snapshot without
 * touching any policy; throws SNAPSHOT_CORRUPT on anything invalid.
 */
export function readArmBaseState<A>(st: Record<string, Json>, reader: ArmBaseStateReader<A>): ArmBaseSnapshot<A> {
  const contextDim = readInt(st, "contextDim", reader.minContextDim ?? 0, reader.maxContextDim ?? MAX_CONTEXT_DIM);
  const maxPending = readInt(st, "maxPending", 1, 10_000_000);
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
  const ledgerJson = readObject(st.ledger, '"ledger"');
  // Absent in an empty ledger written by withReplicaParts.
  const retiredJson = ledgerJson.retired === undefined ? [] : ledgerJson.retired;
  if (!Array.isArray(retiredJson)) snapshotCorrupt("ledger.retired", "an array");
  const retired: [number, string][] = [];
  for (let i = 0; i < retiredJson.length; i++) {
    const r = retiredJson[i];
    if (
      !Array.isArray(r) ||
      r.length !== 2 ||
      !Number.isSafeInteger(r[0]) ||
      (r[0] as number) < 0 ||
      (r[0] as number) >= nextUid ||
      uids.has(r[0] as number) ||
      typeof r[1] !== "string" ||
      r[1].length === 0
    ) {
      snapshotCorrupt(`ledger.retired[${i}]`, "[uid of a removed arm, its id]");
    }
    uids.add(r[0] as number);
    retired.push([r[0] as number, r[1] as string]);
  }
  // Every pending decision names a live arm or a removed one whose id is kept for its decision record.
  DecisionLedger.validateJSON(st.ledger, (json) => {
    const uid = reader.payload(json, contextDim);
    if (!uids.has(uid)) snapshotCorrupt("ledger payload", "the uid of a live or retired arm");
  });
  return { contextDim, maxPending, nextUid, rng, arms, retired, ledger: st.ledger as Json };
}
