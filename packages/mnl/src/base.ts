/**
 * What OFU-MNL+, UCB-MNL and TS-MNL share: query/feedback validation, the pending-decision ledger
 * (each decision keeps a pooled copy of its offered feature rows, because features are fresh every
 * round), and the assortment step (top-K for uniform revenues, exact Dinkelbach otherwise).
 */
import {
  type AssortmentDecision,
  type AssortmentFeedback,
  type AssortmentPolicy,
  type AssortmentQuery,
  assertInt,
  assertPositive,
  assertVector,
  DecisionLedger,
  type DecisionRef,
  ErrorCode,
  encodeF64,
  Float64Pool,
  type Json,
  RouteKitError,
  readF64,
  readObject,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import { DinkelbachWorkspace, dinkelbachAssortment, topK } from "./assortment.js";

/**
 * Largest accepted squared Euclidean norm of one item's feature row: ||x||^2 <= 1e100 (||x|| <= 1e50).
 * The MNL models assume ||x|| <= 1; the bound leaves 200 orders of magnitude of headroom for the sums
 * and products of squared norms in V, the Hessians and the projection, so no finite query can make the
 * state overflow. select() rejects larger rows with OUT_OF_RANGE before any state change.
 */
export const MAX_FEATURE_SQUARED_NORM = 1e100;

/**
 * The first of `rows` rows of X (row stride d) whose squared norm is not <= {@link MAX_FEATURE_SQUARED_NORM}
 * (including NaN or overflow to Infinity), with that squared norm; index -1 when every row is fine.
 */
export function firstOversizedRow(X: ArrayLike<number>, rows: number, d: number): { index: number; sq: number } {
  for (let i = 0; i < rows; i++) {
    let s = 0;
    for (let k = 0; k < d; k++) {
      const v = X[i * d + k] as number;
      s += v * v;
    }
    if (!(s <= MAX_FEATURE_SQUARED_NORM)) return { index: i, sq: s };
  }
  return { index: -1, sq: 0 };
}

/**
 * Decodes a d x d lower-triangular Cholesky factor (row-major): finite entries, a positive diagonal and
 * zeros above it (the factor updates never write there).
 */
export function decodeCholeskyF64(s: Json | undefined, what: string, d: number): Float64Array {
  const L = readF64(s, what, d * d);
  for (let i = 0; i < d; i++) {
    if (!((L[i * d + i] as number) > 0)) snapshotCorrupt(what, "a factor with a positive diagonal");
    for (let j = i + 1; j < d; j++) if (L[i * d + j] !== 0) snapshotCorrupt(what, "lower-triangular");
  }
  return L;
}

/** Reads the named fields of a snapshot object, each required with its JSON type (no defaults filled in). */
export function readFields<T extends Record<string, "number" | "string">>(
  o: Json | undefined,
  what: string,
  spec: T,
): { [K in keyof T]: T[K] extends "number" ? number : string } {
  const obj = readObject(o, `"${what}"`);
  const out: Record<string, number | string> = {};
  for (const [k, type] of Object.entries(spec)) {
    const v = obj[k];
    if (typeof v !== type || (type === "number" && !Number.isFinite(v as number)))
      snapshotCorrupt(`"${what}.${k}"`, `a finite ${type}`);
    out[k] = v as number | string;
  }
  return out as { [K in keyof T]: T[K] extends "number" ? number : string };
}

/** A pending decision: the offered items (query row indices) and their feature rows. */
export interface PendingAssortment {
  readonly items: readonly number[];
  /** Pooled buffer of maxSize * dim values; the first items.length rows are the offered features. */
  readonly X: Float64Array;
}

export interface MnlCommonOptions {
  /** Feature dimension d. */
  dim: number;
  /** Largest assortment K the policy will be asked for (queries may ask for fewer). */
  maxSize: number;
  /** Known attraction of the outside option (default 1). */
  v0?: number;
  /** Clip the optimistic utilities to [lo, hi] before the assortment step (default none). */
  utilityClip?: readonly [number, number] | null;
  /** Pending decisions kept for late feedback (default 100,000). */
  maxPending?: number;
}

/** Validated common options (kept in snapshots). */
export interface MnlCommonConfig {
  readonly dim: number;
  readonly maxSize: number;
  readonly v0: number;
  readonly utilityClip: readonly [number, number] | null;
  readonly maxPending: number;
}

export function readCommonOptions(o: MnlCommonOptions): MnlCommonConfig {
  if (o === null || typeof o !== "object")
    throw new RouteKitError(ErrorCode.InvalidArgument, "options must be an object");
  assertInt(o.dim, "dim", 1, 4096);
  assertInt(o.maxSize, "maxSize", 1, 1 << 20);
  const v0 = o.v0 ?? 1;
  assertPositive(v0, "v0");
  const clip = o.utilityClip ?? null;
  if (clip !== null) {
    if (!Array.isArray(clip) || clip.length !== 2 || !(clip[0] <= clip[1]) || !clip.every(Number.isFinite)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "utilityClip must be [lo, hi] with finite lo <= hi, or null");
    }
  }
  const maxPending = o.maxPending ?? 100_000;
  assertInt(maxPending, "maxPending", 1, Number.MAX_SAFE_INTEGER);
  return { dim: o.dim, maxSize: o.maxSize, v0, utilityClip: clip ? [clip[0], clip[1]] : null, maxPending };
}

export function commonToJSON(c: MnlCommonConfig): Json {
  return {
    dim: c.dim,
    maxSize: c.maxSize,
    v0: c.v0,
    utilityClip: c.utilityClip ? [c.utilityClip[0], c.utilityClip[1]] : null,
    maxPending: c.maxPending,
  };
}

export function commonFromJSON(j: Json | undefined): MnlCommonConfig {
  const o = readFields(j, "common", { dim: "number", maxSize: "number", v0: "number", maxPending: "number" });
  const clip = (j as Record<string, Json>).utilityClip;
  if (clip !== null && !Array.isArray(clip))
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "common.utilityClip" must be null or [lo, hi]');
  try {
    return readCommonOptions({ ...o, utilityClip: clip as [number, number] | null });
  } catch (e) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot options are invalid: ${(e as Error).message}`);
  }
}

export abstract class MnlPolicyBase implements AssortmentPolicy {
  abstract readonly kind: string;
  readonly protocol = "assortment" as const;
  readonly dim: number;
  readonly maxSize: number;
  readonly v0: number;
  protected readonly common: MnlCommonConfig;
  protected readonly ledger: DecisionLedger<PendingAssortment>;
  private readonly pool: Float64Pool;
  /** Per-item scores of the current query (grown on demand). */
  protected util: Float64Array;
  private attract: Float64Array;
  private readonly chosen: Int32Array;
  private readonly dws: DinkelbachWorkspace;

  protected constructor(common: MnlCommonConfig) {
    this.common = common;
    this.dim = common.dim;
    this.maxSize = common.maxSize;
    this.v0 = common.v0;
    const rowLen = common.maxSize * common.dim;
    this.pool = new Float64Pool(rowLen);
    this.ledger = new DecisionLedger<PendingAssortment>(
      {
        encode: (p) => ({ items: [...p.items], x: encodeF64(p.X.subarray(0, p.items.length * this.dim)) }),
        decode: (j) => {
          const o = j as { items?: unknown; x?: Json };
          const items = o?.items;
          if (
            !Array.isArray(items) ||
            items.length > this.maxSize ||
            !items.every((i) => Number.isSafeInteger(i) && i >= 0) ||
            new Set(items).size !== items.length
          ) {
            throw new RouteKitError(ErrorCode.SnapshotCorrupt, "pending decision has malformed items");
          }
          const x = readF64(o.x, "pending.x", items.length * this.dim);
          if (firstOversizedRow(x, items.length, this.dim).index >= 0)
            throw new RouteKitError(
              ErrorCode.SnapshotCorrupt,
              "pending decision has a feature row above the norm bound",
            );
          const X = this.pool.acquire();
          X.set(x);
          return { items: Object.freeze([...(items as number[])]), X };
        },
        dispose: (p) => this.pool.release(p.X),
      },
      { maxPending: common.maxPending },
    );
    this.util = new Float64Array(128);
    this.attract = new Float64Array(128);
    this.chosen = new Int32Array(common.maxSize);
    this.dws = new DinkelbachWorkspace(128);
  }

  get pendingDecisions(): number {
    return this.ledger.size;
  }

  abstract toJSON(): Snapshot;

  /** Scores (optimistic or sampled utilities) of the query's items into this.util[0..n). */
  protected abstract scoreItems(features: Float64Array, n: number): void;

  /** Learns from one round with n offered rows in X and the choice position (-1 = outside). All-or-nothing. */
  protected abstract learn(X: Float64Array, n: number, choice: number): void;

  /** Validates a query; returns whether the revenues are uniform. Throws before any mutation. */
  protected checkQuery(query: AssortmentQuery): boolean {
    if (query === null || typeof query !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, "query must be an AssortmentQuery object");
    const n = query.numItems;
    if (!Number.isInteger(n) || n < 0)
      throw new RouteKitError(ErrorCode.InvalidArgument, `query.numItems must be an integer >= 0, got ${String(n)}`);
    if (n === 0) throw new RouteKitError(ErrorCode.EmptyAssortment, "query has no items (numItems = 0)");
    const K = query.maxSize;
    if (!Number.isInteger(K) || K < 1)
      throw new RouteKitError(ErrorCode.EmptyAssortment, `query.maxSize must be an integer >= 1, got ${String(K)}`);
    if (K > this.maxSize) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `query.maxSize ${K} exceeds the policy's maxSize ${this.maxSize} (set options.maxSize to the largest K)`,
      );
    }
    assertVector(query.features, n * this.dim, `query.features (numItems x dim = ${n} x ${this.dim})`);
    const big = firstOversizedRow(query.features, n, this.dim);
    if (big.index >= 0) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `query.features row ${big.index} has squared norm ${big.sq}, expected <= ${MAX_FEATURE_SQUARED_NORM} ` +
          "(the MNL models assume ||x|| <= 1; rescale the features)",
        { index: big.index },
      );
    }
    const r = query.revenues;
    if (r === undefined) return true;
    assertVector(r, n, "query.revenues");
    const r0 = r[0] as number;
    let uniform = r0 > 0;
    for (let i = 0; i < n; i++) {
      const ri = r[i] as number;
      if (!(ri >= 0 && ri <= 1)) {
        throw new RouteKitError(ErrorCode.OutOfRange, `query.revenues[${i}] must be in [0, 1], got ${ri}`, {
          index: i,
        });
      }
      if (ri !== r0) uniform = false;
    }
    return uniform;
  }

  select(query: AssortmentQuery): AssortmentDecision {
    const uniform = this.checkQuery(query);
    const n = query.numItems;
    const K = query.maxSize;
    if (this.util.length < n) {
      this.util = new Float64Array(n);
      this.attract = new Float64Array(n);
      this.dws.ensure(n);
    }
    // Plain-array input is accepted (validated above) and converted once; Float64Arrays are used as is.
    const f = query.features instanceof Float64Array ? query.features : Float64Array.from(query.features);
    this.scoreItems(f, n);
    const util = this.util;
    const clip = this.common.utilityClip;
    if (clip) for (let i = 0; i < n; i++) util[i] = Math.min(clip[1], Math.max(clip[0], util[i] as number));
    let size: number;
    if (uniform) {
      size = topK(util, n, K, this.chosen);
    } else {
      let m = -Infinity;
      for (let i = 0; i < n; i++) if ((util[i] as number) > m) m = util[i] as number;
      const v = this.attract;
      for (let i = 0; i < n; i++) v[i] = Math.exp((util[i] as number) - m);
      size = dinkelbachAssortment(
        v,
        query.revenues as ArrayLike<number>,
        n,
        K,
        this.v0 * Math.exp(-m),
        this.chosen,
        this.dws,
      );
    }
    const items = new Array<number>(size);
    for (let j = 0; j < size; j++) items[j] = this.chosen[j] as number;
    Object.freeze(items);
    const X = this.pool.acquire();
    const d = this.dim;
    for (let j = 0; j < size; j++) {
      const src = (items[j] as number) * d;
      for (let k = 0; k < d; k++) X[j * d + k] = f[src + k] as number;
    }
    const id = this.ledger.issue({ items, X });
    return { id, items };
  }

  update(decision: DecisionRef, feedback: AssortmentFeedback): void {
    const pending = this.ledger.get(decision);
    if (feedback === null || typeof feedback !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, "feedback must be an object { choice }");
    const c = feedback.choice;
    let pos = -1;
    if (c !== null) {
      pos = typeof c === "number" ? pending.items.indexOf(c) : -1;
      if (pos < 0) {
        throw new RouteKitError(
          ErrorCode.InvalidChoice,
          `choice ${String(c)} is not one of the offered items [${pending.items.join(", ")}] (use null for no choice)`,
        );
      }
    }
    const n = pending.items.length;
    if (n > 0) this.learn(pending.X, n, pos);
    this.ledger.settle(decision);
  }
}
