/**
 * The cascade protocol shared by COSMOS and the cascade baselines: open episodes (one per request) kept
 * in a decision ledger, the query loop with Weitzman's stopping rule, selection, and feedback.
 *
 * Per episode: `begin(context)` fixes an index sigma~ for every live box (before any query, so the choice
 * to open a box never depends on its own output) and a reward radius; boxes are planned in decreasing
 * sigma~ order (ties: the earlier-added box first). `next` asks for the next planned box, or stops once
 * the best optimistic reward seen is >= the next box's sigma~ (a tie stops). `observe` records the asked
 * box's output features and cost. `choose` deploys the first queried box of highest optimistic reward.
 * `feedback(reward)` learns from the whole episode and closes it; `discard` closes it without learning.
 * Many episodes may be open at once; learning happens only at feedback, so the learned state is a
 * function of the sequence of completed episodes.
 *
 * A box removed while an episode is open stays removed for that episode, even if a box with the same id is
 * added again (the episode's `retired` list): it is not asked if it was not asked yet, and the episode
 * teaches the new box nothing (its record marks the old box's output `retired`), as the arm protocol ignores
 * late feedback for a removed arm after its id was re-added.
 */
import {
  ArmTable,
  asInvalidEvent,
  assertFinite,
  assertVector,
  type CascadeEvent,
  type CascadePolicy,
  type CascadeStep,
  checkEvent,
  DecisionLedger,
  type DecisionRef,
  decodeF64,
  describe,
  ErrorCode,
  EVENT_VERSION,
  encodeF64,
  eventVector,
  type Json,
  Rng,
  type RngState,
  RouteKitError,
  readObject,
  readVectorInto,
  type Snapshot,
  snapshotCorrupt,
  snapshotInvalid,
  type VectorInput,
  vectorToJson,
} from "@routekit/core";

/**
 * Largest accepted squared Euclidean norm of a context or an output's features (1e100), and largest
 * |cost| and |reward| (1e6; both are in reward units, normally in [0, 1]). The bounds leave room for the
 * products and sums of the learners, so no accepted input can overflow their state.
 */
export const MAX_SQUARED_NORM = 1e100;
export const MAX_MAGNITUDE = 1e6;

/**
 * Checks a snapshot's costs: each in [0, MAX_MAGNITUDE], as `observe` and `learn` take them (SNAPSHOT_CORRUPT naming
 * the entry and its value).
 */
export function checkCosts(costs: ArrayLike<number>, what: string): void {
  for (let i = 0; i < costs.length; i++) {
    const c = costs[i] as number;
    if (!(c >= 0 && c <= MAX_MAGNITUDE)) snapshotInvalid(`${what}[${i}]`, c, `a cost is in [0, ${MAX_MAGNITUDE}]`);
  }
}

/** Checks a snapshot's context or output features: squared norm <= MAX_SQUARED_NORM, as `begin` and `observe` take them. */
function checkStoredNorm(v: ArrayLike<number>, what: string): void {
  const s = squaredNorm(v);
  if (!(s <= MAX_SQUARED_NORM)) {
    snapshotInvalid(
      `${what} (squared norm)`,
      s,
      `a context or output has squared norm <= ${MAX_SQUARED_NORM} (begin and observe refuse larger)`,
    );
  }
}

function squaredNorm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) * (v[i] as number);
  return s;
}

function checkNorm(v: ArrayLike<number>, what: string, code: ErrorCode): void {
  const s = squaredNorm(v);
  if (!(s <= MAX_SQUARED_NORM))
    throw new RouteKitError(code, `${what} has squared norm ${s}, expected <= ${MAX_SQUARED_NORM} (rescale it)`);
}

/** A request context as `begin` takes it: `dim` finite numbers of squared norm <= MAX_SQUARED_NORM. */
export function checkContext(context: ArrayLike<number>, dim: number): void {
  assertVector(context, dim, "context");
  checkNorm(context, "context", ErrorCode.OutOfRange);
}

function checkMagnitude(v: number, what: string, min: number, code: ErrorCode): void {
  if (!(v >= min && v <= MAX_MAGNITUDE))
    throw new RouteKitError(code, `${what} must be in [${min}, ${MAX_MAGNITUDE}], got ${v}`);
}

/** One open episode. */
export interface Episode {
  readonly context: Float64Array;
  /** Planned box ids, in query order. */
  readonly order: readonly string[];
  /** sigma~ per planned position (+Infinity: a box with no data yet, always opened). */
  readonly sigma: Float64Array;
  /** Reward radius frozen for the episode (+Infinity when it overflows). */
  readonly beta: number;
  readonly queried: string[];
  readonly features: Float64Array[];
  readonly costs: number[];
  /** Optimistic reward of each queried output. */
  readonly optimistic: number[];
  /** Next planned position to consider. */
  pos: number;
  /** The box last returned by `next` and not yet observed. */
  awaiting: string | null;
  stopped: boolean;
  chosen: string | null;
  /**
   * Planned boxes removed since `begin` (in removal order; usually empty): skipped by `next` and not learned
   * about at feedback, even after a box with the same id was added again.
   */
  readonly retired: string[];
}

/** A completed episode as the learner sees it (also the shape of a logged cascade event). */
export interface CascadeRecord {
  readonly context: Float64Array;
  readonly queried: readonly {
    readonly arm: string;
    readonly features: Float64Array;
    readonly cost: number;
    /** The box was removed since the episode began: learn nothing about the box (a box with its id is another). */
    readonly retired?: boolean;
  }[];
  readonly chosen: string;
  readonly reward: number;
}

export interface CascadeCommonOptions {
  /** Box (model) ids, in the order used to break index ties. */
  arms: readonly string[];
  /** Length of the request context x. */
  contextDim: number;
  /** Length of each box's output features phi(x, omega). */
  outputDim: number;
  /** Open episodes kept waiting for feedback (default 100,000). */
  maxPending?: number;
  /**
   * The policy's random stream (default: seeded with 0). Cascade policies draw nothing from it; it is kept
   * so that every policy snapshot has the same per-replica fields (`rng` and `ledger`).
   */
  rng?: Rng;
}

export abstract class CascadePolicyBase implements CascadePolicy {
  abstract readonly kind: string;
  readonly protocol = "cascade" as const;
  readonly contextDim: number;
  readonly outputDim: number;
  protected readonly table: ArmTable<number> = new ArmTable<number>();
  protected readonly ledger: DecisionLedger<Episode>;
  protected readonly maxPending: number;
  /** Per-replica random stream (unused by the cascade policies here; snapshotted as `rng`). */
  protected rng: Rng;
  private sigmaBuf: Float64Array;
  private orderBuf: number[] = [];

  protected constructor(o: CascadeCommonOptions) {
    this.contextDim = o.contextDim;
    this.outputDim = o.outputDim;
    this.maxPending = o.maxPending ?? 100_000;
    this.rng = o.rng ?? Rng.fromSeed(0);
    this.sigmaBuf = new Float64Array(Math.max(4, o.arms.length));
    this.ledger = new DecisionLedger<Episode>(
      { encode: (e) => this.encodeEpisode(e), decode: (j) => this.decodeEpisode(j) },
      { maxPending: this.maxPending, prefix: "e" },
    );
  }

  get arms(): readonly string[] {
    return this.table.ids;
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  abstract toJSON(): Snapshot;

  /** The per-replica part of every cascade snapshot's state: `rng` then `ledger` (last in the state). */
  protected replicaJSON(): { rng: Json; ledger: Json } {
    return { rng: this.rng.toJSON() as unknown as Json, ledger: this.ledger.toJSON() };
  }

  /** Restores the per-replica part (validated before anything is replaced). */
  protected restoreReplica(s: Record<string, Json>): void {
    const rng = Rng.fromJSON(readObject(s.rng, '"rng"') as unknown as RngState);
    this.ledger.loadJSON(s.ledger);
    this.rng = rng;
  }

  /** Fills sigma[i] for every live box i (table order) for this context; returns the reward radius. */
  protected abstract plan(context: Float64Array, sigma: Float64Array): number;
  /** Optimistic reward of an output (the radius is the episode's). */
  protected abstract optimisticReward(features: Float64Array, beta: number): number;
  /** Learns from a completed episode (all input already validated). */
  protected abstract learnRecord(r: CascadeRecord): void;
  /** Per-box learner state for a new box (called after validation). */
  protected abstract addBox(id: string): void;
  /** Drops box i's learner state. */
  protected abstract removeBox(index: number): void;

  addArm(id: string): void {
    this.table.checkAdd(id);
    this.addBox(id);
    this.table.add(id, this.table.size);
  }

  removeArm(id: string): void {
    this.table.checkRemove(id);
    const i = this.table.indexOf(id);
    this.removeBox(i);
    this.table.remove(id);
    // Open episodes that planned this box keep it removed, also once a box with the same id is added again.
    for (const e of this.ledger.values()) if (e.order.includes(id) && !e.retired.includes(id)) e.retired.push(id);
  }

  begin(context: VectorInput): string {
    // The episode's copy of the context, each entry read once and the copy validated (-0 written as 0, so event
    // JSON round trips are exact).
    const ctx = readVectorInto(context, this.contextDim, new Float64Array(this.contextDim), "context");
    checkNorm(ctx, "context", ErrorCode.OutOfRange);
    this.table.checkNotEmpty();
    const A = this.table.size;
    if (this.sigmaBuf.length < A) this.sigmaBuf = new Float64Array(2 * A);
    const sigma = this.sigmaBuf;
    const beta = this.plan(ctx, sigma);
    const order = this.orderBuf;
    order.length = A;
    for (let i = 0; i < A; i++) order[i] = i;
    order.sort((a, b) => {
      const sa = sigma[a] as number;
      const sb = sigma[b] as number;
      return sa === sb ? a - b : sb > sa ? 1 : -1;
    });
    const ids = this.table.ids;
    const planned = new Float64Array(A);
    for (let k = 0; k < A; k++) planned[k] = sigma[order[k] as number] as number;
    return this.ledger.issue({
      context: ctx,
      order: order.map((i) => ids[i] as string),
      sigma: planned,
      beta,
      queried: [],
      features: [],
      costs: [],
      optimistic: [],
      pos: 0,
      awaiting: null,
      stopped: false,
      chosen: null,
      retired: [],
    });
  }

  next(episode: DecisionRef): CascadeStep {
    const e = this.ledger.get(episode);
    if (e.awaiting !== null) return { query: e.awaiting };
    if (e.stopped || e.chosen !== null) return { stop: true };
    // Skip planned boxes removed since begin (also when a box with the same id was added again).
    let k = e.pos;
    while (k < e.order.length && this.removedFor(e, e.order[k] as string)) k++;
    if (k >= e.order.length) {
      if (e.queried.length === 0)
        throw new RouteKitError(ErrorCode.InvalidState, "every box planned for this episode was removed; discard it");
      e.stopped = true;
      e.pos = k;
      return { stop: true };
    }
    if (e.queried.length > 0) {
      let best = Number.NEGATIVE_INFINITY;
      for (const v of e.optimistic) if (v > best) best = v;
      if (best >= (e.sigma[k] as number)) {
        e.stopped = true;
        e.pos = k;
        return { stop: true };
      }
    }
    e.pos = k + 1;
    e.awaiting = e.order[k] as string;
    return { query: e.awaiting };
  }

  observe(episode: DecisionRef, arm: string, outputFeatures: VectorInput, cost: number): void {
    const e = this.ledger.get(episode);
    if (e.awaiting === null)
      throw new RouteKitError(
        ErrorCode.InvalidState,
        `observe(${describe(arm)}) but no box was asked for: call next() and open the box it names`,
      );
    if (arm !== e.awaiting)
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `observe(${describe(arm)}) but next() asked for "${e.awaiting}"`,
      );
    const phi = readVectorInto(outputFeatures, this.outputDim, new Float64Array(this.outputDim), "outputFeatures");
    checkNorm(phi, "outputFeatures", ErrorCode.OutOfRange);
    assertFinite(cost, "cost");
    checkMagnitude(cost, "cost", 0, ErrorCode.OutOfRange);
    const mu = this.optimisticReward(phi, e.beta);
    e.queried.push(arm);
    e.features.push(phi);
    e.costs.push(cost === 0 ? 0 : cost);
    e.optimistic.push(mu);
    e.awaiting = null;
  }

  /** Whether planned box `id` is gone for episode `e`: removed since `begin`, even if its id was added again. */
  private removedFor(e: Episode, id: string): boolean {
    return !this.table.has(id) || (e.retired.length > 0 && e.retired.includes(id));
  }

  choose(episode: DecisionRef): string {
    const e = this.ledger.get(episode);
    if (e.chosen !== null) return e.chosen;
    if (e.queried.length === 0)
      throw new RouteKitError(
        ErrorCode.InvalidState,
        "choose() before any box was observed: call next() and observe()",
      );
    let best = 0;
    for (let i = 1; i < e.optimistic.length; i++)
      if ((e.optimistic[i] as number) > (e.optimistic[best] as number)) best = i;
    e.awaiting = null;
    e.stopped = true;
    e.chosen = e.queried[best] as string;
    return e.chosen;
  }

  feedback(episode: DecisionRef, reward: number): void {
    const e = this.ledger.get(episode);
    if (e.chosen === null) throw new RouteKitError(ErrorCode.InvalidState, "feedback() before choose()");
    assertFinite(reward, "reward");
    checkMagnitude(reward, "reward", -MAX_MAGNITUDE, ErrorCode.OutOfRange);
    this.learnRecord(this.recordOf(e, reward));
    this.ledger.settle(episode);
  }

  /** Closes an episode without learning from it. */
  discard(episode: DecisionRef): void {
    this.ledger.get(episode);
    this.ledger.settle(episode);
  }

  /** The decision part of an episode's event (after choose): context, opened boxes, chosen box. */
  decisionRecord(episode: DecisionRef): CascadeEvent {
    const e = this.ledger.get(episode);
    const id = this.ledger.idOf(episode); // the id get resolved (episode.id is not read twice)
    if (e.chosen === null) throw new RouteKitError(ErrorCode.InvalidState, "decisionRecord() before choose()");
    return {
      v: EVENT_VERSION,
      kind: this.kind,
      protocol: "cascade",
      id,
      decision: {
        context: vectorToJson(e.context),
        queried: e.queried.map((arm, i) =>
          e.retired.includes(arm)
            ? { arm, features: vectorToJson(e.features[i] as Float64Array), cost: e.costs[i] as number, retired: true }
            : { arm, features: vectorToJson(e.features[i] as Float64Array), cost: e.costs[i] as number },
        ),
        chosen: e.chosen,
      },
    };
  }

  /**
   * Learns from a self-contained logged episode (from this policy, another replica, or another cascade
   * policy kind); open episodes are not touched. Boxes no longer live, and outputs marked `retired` (their box
   * was removed before the record was made), teach no box. Throws INVALID_EVENT.
   */
  learn(event: CascadeEvent): void {
    const ev = checkEvent(event, "cascade");
    const d = ev.decision;
    const context = eventVector(d.context, "decision.context", this.contextDim);
    checkNorm(context, "event decision.context", ErrorCode.InvalidEvent);
    const queried = d.queried.map((q, i) => {
      const features = eventVector(q.features, `decision.queried[${i}].features`, this.outputDim);
      checkNorm(features, `event decision.queried[${i}].features`, ErrorCode.InvalidEvent);
      checkMagnitude(q.cost, `event decision.queried[${i}].cost`, 0, ErrorCode.InvalidEvent);
      return q.retired === true
        ? { arm: q.arm, features, cost: q.cost + 0, retired: true }
        : { arm: q.arm, features, cost: q.cost + 0 };
    });
    checkMagnitude(ev.feedback.reward, "event feedback.reward", -MAX_MAGNITUDE, ErrorCode.InvalidEvent);
    try {
      this.learnRecord({ context, queried, chosen: d.chosen, reward: ev.feedback.reward });
    } catch (e) {
      throw asInvalidEvent(e);
    }
  }

  /** The completed-episode view of an open episode (choose() must have been called). */
  protected recordOf(e: Episode, reward: number): CascadeRecord {
    return {
      context: e.context,
      queried: e.queried.map((arm, i) =>
        e.retired.includes(arm)
          ? { arm, features: e.features[i] as Float64Array, cost: e.costs[i] as number, retired: true }
          : { arm, features: e.features[i] as Float64Array, cost: e.costs[i] as number },
      ),
      chosen: e.chosen as string,
      reward,
    };
  }

  /** Episode payloads in snapshots. */
  private encodeEpisode(e: Episode): Json {
    const json: Record<string, Json> = {
      context: encodeF64(e.context),
      order: [...e.order],
      sigma: encodeF64(e.sigma),
      beta: encodeF64(Float64Array.of(e.beta)),
      queried: [...e.queried],
      features: e.features.map((f) => encodeF64(f)),
      costs: encodeF64(Float64Array.from(e.costs)),
      optimistic: encodeF64(Float64Array.from(e.optimistic)),
      pos: e.pos,
      awaiting: e.awaiting,
      stopped: e.stopped,
      chosen: e.chosen,
    };
    // Written only when a planned box was removed, so the snapshot of an episode without one is unchanged.
    if (e.retired.length > 0) json.retired = [...e.retired];
    return json;
  }

  private decodeEpisode(j: Json): Episode {
    const o = j as Record<string, Json>;
    if (o === null || typeof o !== "object" || Array.isArray(o)) snapshotCorrupt("episode", "an object");
    const context = decodeF64(o.context, "episode.context", this.contextDim);
    if (!context.every(Number.isFinite)) snapshotCorrupt("episode.context", "finite values");
    checkStoredNorm(context, "episode.context");
    const strings = (v: Json | undefined, what: string): string[] => {
      if (!Array.isArray(v) || !v.every((s) => typeof s === "string" && s.length > 0))
        snapshotCorrupt(what, "an array of ids");
      return v as string[];
    };
    const order = strings(o.order, "episode.order");
    if (new Set(order).size !== order.length || order.length === 0) snapshotCorrupt("episode.order", "distinct ids");
    const sigma = decodeF64(o.sigma, "episode.sigma", order.length);
    if (sigma.some((v) => Number.isNaN(v))) snapshotCorrupt("episode.sigma", "numbers (+-Infinity allowed)");
    const beta = decodeF64(o.beta, "episode.beta", 1)[0] as number;
    // +Infinity when the radius overflows (a confidence near 0): every optimistic reward is then 1.
    if (!(beta >= 0)) snapshotCorrupt("episode.beta", "a number >= 0 (+Infinity allowed)");
    const queried = strings(o.queried, "episode.queried");
    const n = queried.length;
    if (!queried.every((q) => order.includes(q)) || new Set(queried).size !== n)
      snapshotCorrupt("episode.queried", "planned, distinct ids");
    if (!Array.isArray(o.features) || o.features.length !== n)
      snapshotCorrupt("episode.features", `${n} feature vectors`);
    const features = (o.features as Json[]).map((f, i) => {
      const v = decodeF64(f, `episode.features[${i}]`, this.outputDim);
      if (!v.every(Number.isFinite)) snapshotCorrupt(`episode.features[${i}]`, "finite values");
      checkStoredNorm(v, `episode.features[${i}]`);
      return v;
    });
    const costs = [...decodeF64(o.costs, "episode.costs", n)];
    const optimistic = [...decodeF64(o.optimistic, "episode.optimistic", n)];
    checkCosts(costs, "episode.costs");
    if (!optimistic.every(Number.isFinite)) snapshotCorrupt("episode.optimistic", "finite values");
    const pos = o.pos;
    if (typeof pos !== "number" || !Number.isInteger(pos) || pos < 0 || pos > order.length || pos < n)
      snapshotCorrupt("episode.pos", "a position in the plan");
    const awaiting = o.awaiting;
    if (
      awaiting !== null &&
      (typeof awaiting !== "string" || awaiting !== order[pos - 1] || queried.includes(awaiting))
    )
      snapshotCorrupt("episode.awaiting", "null or the box last planned");
    if (typeof o.stopped !== "boolean") snapshotCorrupt("episode.stopped", "a boolean");
    const chosen = o.chosen;
    if (chosen !== null && (typeof chosen !== "string" || !queried.includes(chosen)))
      snapshotCorrupt("episode.chosen", "null or a queried id");
    let retired: string[] = [];
    if (o.retired !== undefined) {
      retired = strings(o.retired, "episode.retired");
      if (retired.length === 0 || new Set(retired).size !== retired.length || !retired.every((r) => order.includes(r)))
        snapshotCorrupt("episode.retired", "absent, or distinct planned ids");
    }
    return {
      context,
      order,
      sigma,
      beta,
      queried,
      features,
      costs,
      optimistic,
      pos: pos as number,
      awaiting: awaiting as string | null,
      stopped: o.stopped as boolean,
      chosen: chosen as string | null,
      retired: [...retired],
    };
  }
}
