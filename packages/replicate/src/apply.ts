/**
 * The deterministic part of replication: folding the stream's entries, in stream order, into a
 * policy's learned state. Every replica runs exactly this on the same entries, so every replica that
 * has applied up to the same entry holds the same learned state, whatever it selected meanwhile.
 *
 * Entries (all plain strings, see entries.ts): a decision record (`d`), the feedback of a decision
 * (`f`), an arm added (`a`) or removed (`r`). A decision and its feedback are joined by the decision's
 * global id; they may reach the stream in either order (different replicas wrote them), and either
 * may be written twice (a retried write), so the join keeps both sides until they meet, applies each
 * pair once, and ignores what comes after.
 */
import { type DecisionEvent, isRouteKitError, type Json, type PolicyBase } from "@routekit/core";
import type { StreamEntry } from "./entries.js";

/** A policy that learns from events and can change its arms (arm-selection, assortment and cascade policies). */
export interface ReplicablePolicy extends PolicyBase {
  learn(event: DecisionEvent): void;
  decisionRecord(ref: string): DecisionEvent;
  /** A second argument, when the policy's addArm takes one (e.g. StageRoute's `{ maxShare }`), is replicated too. */
  addArm?(id: string): void;
  removeArm?(id: string): void;
}

/** Counters of what the fold did; equal on every replica at the same position. */
export interface ApplyCounts {
  /** Entries applied. */
  entries: number;
  /** Events learned (decision joined with its feedback). */
  learned: number;
  /** Events the policy refused (a typed error, e.g. a context of another length): skipped everywhere. */
  rejected: number;
  /** Entries that were duplicates of an entry already applied or joined: ignored. */
  duplicates: number;
  /** Decision records or feedbacks dropped from the join table (oldest first) when it was full. */
  expired: number;
  /** Arm additions/removals that did not apply (already present, unknown, last arm). */
  armChangesIgnored: number;
}

/**
 * Bounded insertion-ordered map; the oldest entry leaves when full. O(1) amortised per operation:
 * eviction walks an array of (key, generation) from a cursor instead of a Map's first key, which V8
 * reaches only by walking every deleted entry at the head of its table.
 */
class BoundedMap<V> {
  readonly map = new Map<string, { value: V; gen: number }>();
  private readonly order: { key: string; gen: number }[] = [];
  private head = 0;
  private gen = 0;
  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  /** Adds `key` (new: callers check `has` first); returns how many entries were dropped to make room. */
  set(key: string, value: V): number {
    const gen = this.gen++;
    this.map.set(key, { value, gen });
    this.order.push({ key, gen });
    let dropped = 0;
    while (this.map.size > this.capacity) {
      const o = this.order[this.head++] as { key: string; gen: number };
      if (this.map.get(o.key)?.gen === o.gen) {
        this.map.delete(o.key);
        dropped++;
      }
    }
    if (this.head > 4096 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
    return dropped;
  }

  take(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    return v.value;
  }

  /** Entries, oldest first. */
  entries(): [string, V][] {
    const out: [string, V][] = [];
    for (const [k, v] of this.map) out.push([k, v.value]);
    return out;
  }
}

/** The fold's state that is not the policy's: the join table. Part of every replication snapshot. */
export interface JoinState {
  /** Decision records waiting for their feedback, oldest first: [global id, record JSON]. */
  readonly decisions: [string, string][];
  /** Feedbacks that arrived before their decision record: [global id, feedback JSON]. */
  readonly feedbacks: [string, string][];
  /** Global ids joined recently (a later duplicate of either side is ignored). */
  readonly done: string[];
}

export class StreamApplier {
  readonly counts: ApplyCounts = {
    entries: 0,
    learned: 0,
    rejected: 0,
    duplicates: 0,
    expired: 0,
    armChangesIgnored: 0,
  };
  private readonly decisions: BoundedMap<string>;
  private readonly feedbacks: BoundedMap<string>;
  private readonly done: BoundedMap<true>;

  /**
   * `capacity` bounds each side of the join (decisions waiting for feedback, early feedbacks) and the
   * memory of joined ids, so feedback that never comes cannot grow memory without bound.
   */
  constructor(
    public policy: ReplicablePolicy,
    capacity: number,
    /** Called after an event is learned (e.g. to drop the replica's own pending decision). */
    private readonly onLearned?: (globalId: string) => void,
  ) {
    this.decisions = new BoundedMap(capacity);
    this.feedbacks = new BoundedMap(capacity);
    this.done = new BoundedMap(capacity);
  }

  /** Applies one entry. Never throws on entry content: anything malformed or refused is counted and skipped. */
  apply(e: StreamEntry): void {
    this.counts.entries++;
    if (e.type === "a" || e.type === "r") {
      let options: Json | undefined;
      if (e.type === "a" && e.options !== undefined) {
        try {
          options = JSON.parse(e.options) as Json;
        } catch {
          // Options that do not parse (another writer's entry) are skipped like options the policy refuses.
          this.counts.armChangesIgnored++;
          return;
        }
      }
      try {
        if (e.type === "r") this.policy.removeArm?.(e.arm);
        else if (options === undefined) this.policy.addArm?.(e.arm);
        else
          (this.policy.addArm as ((id: string, options: Json) => void) | undefined)?.call(this.policy, e.arm, options);
      } catch (err) {
        if (!isRouteKitError(err)) throw err;
        this.counts.armChangesIgnored++;
      }
      return;
    }
    const id = e.id;
    if (this.done.has(id)) {
      this.counts.duplicates++;
      return;
    }
    if (e.type === "d") {
      const fb = this.feedbacks.take(id);
      if (fb === undefined) {
        if (this.decisions.has(id)) this.counts.duplicates++;
        else this.counts.expired += this.decisions.set(id, e.record);
        return;
      }
      this.learn(id, e.record, fb);
    } else {
      const rec = this.decisions.take(id);
      if (rec === undefined) {
        if (this.feedbacks.has(id)) this.counts.duplicates++;
        else this.counts.expired += this.feedbacks.set(id, e.feedback);
        return;
      }
      this.learn(id, rec, e.feedback);
    }
  }

  private learn(id: string, record: string, feedback: string): void {
    this.done.set(id, true);
    let event: DecisionEvent;
    try {
      event = { ...(JSON.parse(record) as DecisionEvent), id, feedback: JSON.parse(feedback) as never };
    } catch {
      this.counts.rejected++;
      return;
    }
    try {
      this.policy.learn(event);
      this.counts.learned++;
    } catch (err) {
      if (!isRouteKitError(err)) throw err;
      this.counts.rejected++;
      return;
    }
    this.onLearned?.(id);
  }

  /** The join table as JSON (for snapshots). */
  joinState(): JoinState {
    return {
      decisions: this.decisions.entries(),
      feedbacks: this.feedbacks.entries(),
      done: this.done.entries().map(([k]) => k),
    };
  }

  /** Loads a join table written by {@link StreamApplier.joinState} into this (fresh) applier. */
  loadJoinState(j: JoinState, counts: ApplyCounts): void {
    for (const [k, v] of j.decisions) this.decisions.set(k, v);
    for (const [k, v] of j.feedbacks) this.feedbacks.set(k, v);
    for (const k of j.done) this.done.set(k, true);
    Object.assign(this.counts, counts);
  }

  /** Sizes of the join table (decisions waiting, early feedbacks). */
  get waiting(): { decisions: number; feedbacks: number } {
    return { decisions: this.decisions.size, feedbacks: this.feedbacks.size };
  }
}

/** Checks a join table read from a snapshot; returns undefined when malformed. */
export function readJoinState(j: Json | undefined): JoinState | undefined {
  const o = j as { decisions?: unknown; feedbacks?: unknown; done?: unknown } | null;
  if (o === null || typeof o !== "object") return undefined;
  const pairs = (v: unknown) =>
    Array.isArray(v) &&
    v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === "string" && typeof p[1] === "string");
  if (!pairs(o.decisions) || !pairs(o.feedbacks)) return undefined;
  if (!Array.isArray(o.done) || !o.done.every((x) => typeof x === "string")) return undefined;
  return o as JoinState;
}
