/**
 * A small, correct contextual arm policy written only against @routekit/core, with switchable
 * deliberate bugs. The harness self-tests prove each check catches the bug it is meant for.
 */
import {
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  type ArmPolicy,
  ArmTable,
  assertFinite,
  assertVector,
  checkEvent,
  DecisionLedger,
  type DecisionRef,
  decodeF64,
  ErrorCode,
  EVENT_VERSION,
  encodeF64,
  eventVector,
  field,
  type Json,
  makeSnapshot,
  Rng,
  type RngState,
  RouteKitError,
  readSnapshot,
  type Snapshot,
  vectorToJson,
} from "@routekit/core";

export type ToyBug =
  | "none"
  /** update() counts the pull before validating the reward. */
  | "mutate-before-validate"
  /** Feedback for a removed arm dereferences a missing state: TypeError. */
  | "untyped-error"
  /** A re-added arm starts with NaN statistics ("unvisited" sentinel). */
  | "nan-sentinel"
  /** Keeps a reference to the caller's context instead of a copy. */
  | "aliases-context"
  /** toJSON forgets the RNG position, so a restored copy decides differently. */
  | "snapshot-drops-rng"
  /** fromJSON trusts the arm list and Float64 lengths. */
  | "trusting-restore"
  /** toJSON puts a Float64Array in the state (JSON.stringify writes it as an object of indices). */
  | "typed-array-in-snapshot"
  /** Squares the reward into a running second moment: huge rewards overflow to Infinity, then NaN. */
  | "overflow"
  /**
   * learn checks decision.state.epsilon only when the event names a live arm, so a malformed event naming a removed,
   * retired or unknown arm is accepted (and learns nothing) while the same event naming a live arm is refused.
   */
  | "state-checked-for-live-arms-only";

interface Stats {
  /** [count, sum, sumSq] */
  readonly s: Float64Array;
}

interface Pend {
  readonly arm: string;
  readonly x: Float64Array;
}

export interface ToyOptions {
  readonly arms: readonly string[];
  readonly dim: number;
  readonly seed?: number;
  readonly bug?: ToyBug;
}

/** The toy's exploration rate, recorded in every decision event as `decision.state.epsilon`. */
const EPSILON = 0.1;

/** INVALID_EVENT unless a decision.state is `{ epsilon }` with epsilon in [0, 1] (a field the update would read). */
function checkToyState(state: unknown): void {
  const eps = state !== null && typeof state === "object" ? (state as { epsilon?: unknown }).epsilon : undefined;
  if (typeof eps !== "number" || !(eps >= 0 && eps <= 1)) {
    throw new RouteKitError(ErrorCode.InvalidEvent, "event decision.state.epsilon must be a number in [0, 1]");
  }
}

/** Epsilon-greedy on (mean reward + 0.1 * context . arm-bias) with pending contexts kept per decision. */
export class ToyPolicy implements ArmPolicy {
  static readonly kind = "conformance/toy";
  readonly kind = ToyPolicy.kind;
  readonly protocol = "arm" as const;
  readonly contextDim: number;
  private readonly table: ArmTable<Stats> = new ArmTable<Stats>();
  private readonly ledger: DecisionLedger<Pend>;
  private rng: Rng;
  private readonly bug: ToyBug;
  private removedOnce = new Set<string>();

  constructor(o: ToyOptions) {
    this.contextDim = o.dim;
    this.bug = o.bug ?? "none";
    // String seed: Rng.fromSeed(n) gives the same first draw for every n < 2^32 (reported core bug).
    this.rng = Rng.fromSeed(`toy:${o.seed ?? 0}`);
    this.ledger = new DecisionLedger<Pend>({
      encode: (p) => ({ arm: p.arm, x: encodeF64(p.x) }),
      decode: (j) => {
        const o2 = j as Record<string, Json>;
        if (o2 === null || typeof o2 !== "object" || typeof o2.arm !== "string")
          throw new RouteKitError(ErrorCode.SnapshotCorrupt, "bad pending decision");
        return { arm: o2.arm, x: decodeF64(o2.x, "pending.x", this.contextDim) };
      },
    });
    for (const a of o.arms) this.addArm(a);
  }

  get arms(): readonly string[] {
    return this.table.ids;
  }
  get pendingDecisions(): number {
    return this.ledger.size;
  }

  addArm(id: string): void {
    this.table.checkAdd(id);
    const s = new Float64Array(3);
    if (this.bug === "nan-sentinel" && this.removedOnce.has(id)) s.fill(Number.NaN);
    this.table.add(id, { s });
  }

  removeArm(id: string): void {
    this.table.remove(id);
    this.removedOnce.add(id);
  }

  select(context?: Float64Array): ArmDecision {
    assertVector(context, this.contextDim, "context");
    this.table.checkNotEmpty();
    const n = this.table.size;
    let best = 0;
    let bv = -Infinity;
    if (this.rng.uniform() < EPSILON) best = this.rng.int(n);
    else {
      for (let i = 0; i < n; i++) {
        const s = (this.table.states[i] as Stats).s;
        const mean = s[0] > 0 ? s[1] / s[0] : 1;
        const v = mean + 0.01 * (context[i % this.contextDim] as number);
        if (v > bv) {
          bv = v;
          best = i;
        }
      }
    }
    const arm = this.table.ids[best] as string;
    const x = this.bug === "aliases-context" ? (context as Float64Array) : Float64Array.from(context);
    const id = this.ledger.issue({ arm, x });
    return { id, arm };
  }

  update(decision: DecisionRef, feedback: ArmFeedback): void {
    this.apply(this.ledger.get(decision), feedback);
    this.ledger.settle(decision);
  }

  decisionRecord(decision: DecisionRef): ArmEvent {
    const p = this.ledger.get(decision);
    const id = typeof decision === "string" ? decision : decision.id;
    return {
      v: EVENT_VERSION,
      kind: this.kind,
      protocol: "arm",
      id,
      decision: { arm: p.arm, context: vectorToJson(p.x), state: { epsilon: EPSILON } },
    };
  }

  learn(event: ArmEvent): void {
    const ev = checkEvent(event, "arm");
    const x = eventVector(ev.decision.context, "decision.context", this.contextDim);
    const live = ev.decision.retired !== true && this.table.has(ev.decision.arm);
    if (this.bug !== "state-checked-for-live-arms-only" || live) checkToyState(ev.decision.state);
    if (ev.decision.retired === true) return;
    this.apply({ arm: ev.decision.arm, x }, ev.feedback);
  }

  discard(decision: DecisionRef): void {
    this.ledger.get(decision);
    this.ledger.settle(decision);
  }

  private apply(p: Pend, feedback: ArmFeedback): void {
    const st = this.table.find(p.arm);
    if (this.bug === "mutate-before-validate" && st) st.s[0]++;
    if (feedback === null || typeof feedback !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, "feedback must be an object");
    assertFinite(feedback.reward, "reward");
    if (feedback.cost !== undefined) {
      assertFinite(feedback.cost, "cost");
      if (feedback.cost < 0) throw new RouteKitError(ErrorCode.OutOfRange, "cost must be >= 0");
    }
    if (this.bug === "untyped-error") {
      (st as Stats).s[0]++;
    } else if (st && this.bug !== "mutate-before-validate") st.s[0]++;
    if (st) {
      // The context enters the statistic so that an aliased (overwritten) context changes the state.
      const r = feedback.reward + 1e-3 * (p.x[0] ?? 0);
      st.s[1] += r;
      if (this.bug === "overflow") {
        st.s[2] += r * r;
        st.s[2] -= Math.abs(r) * Math.abs(r);
      } else st.s[2] = Math.max(st.s[2], Math.abs(r));
    }
  }

  toJSON(): Snapshot {
    const arms: Json[] = this.table.ids.map((id, i) => [id, encodeF64((this.table.states[i] as Stats).s)]);
    const state: Record<string, Json> = {
      dim: this.contextDim,
      arms,
      ledger: this.ledger.toJSON(),
      removedOnce: [...this.removedOnce],
    };
    if (this.bug !== "snapshot-drops-rng") state.rng = this.rng.toJSON() as unknown as Json;
    if (this.bug === "typed-array-in-snapshot") state.raw = Float64Array.of(this.contextDim) as unknown as Json;
    return makeSnapshot(ToyPolicy.kind, 1, state);
  }

  static fromJSON(snapshot: unknown, bug: ToyBug = "none"): ToyPolicy {
    const st = readSnapshot(snapshot, ToyPolicy.kind, 1);
    const dim = field(st, "dim", "number");
    if (!Number.isInteger(dim) || dim < 1) throw new RouteKitError(ErrorCode.SnapshotCorrupt, "bad dim");
    const arms = field(st, "arms", "array");
    const p = new ToyPolicy({ arms: [], dim, bug });
    for (const a of arms) {
      if (bug === "trusting-restore") {
        const [id, s] = a as [string, string];
        p.table.add(id, { s: new Float64Array(Buffer.from(s, "base64").buffer) });
        continue;
      }
      if (!Array.isArray(a) || a.length !== 2 || typeof a[0] !== "string")
        throw new RouteKitError(ErrorCode.SnapshotCorrupt, "bad arm entry");
      const s = decodeF64(a[1], "arm stats", 3);
      for (const v of s) if (!Number.isFinite(v)) throw new RouteKitError(ErrorCode.SnapshotCorrupt, "bad stat");
      if (p.table.has(a[0])) throw new RouteKitError(ErrorCode.SnapshotCorrupt, "duplicate arm");
      p.table.add(a[0], { s });
    }
    p.ledger.loadJSON(st.ledger);
    const removed = field(st, "removedOnce", "array");
    for (const r of removed) {
      if (typeof r !== "string") throw new RouteKitError(ErrorCode.SnapshotCorrupt, "bad removedOnce");
      p.removedOnce.add(r);
    }
    if (bug !== "snapshot-drops-rng") p.rng = Rng.fromJSON(field(st, "rng", "object") as unknown as RngState);
    return p;
  }
}
