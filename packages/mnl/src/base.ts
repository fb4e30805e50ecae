/**
 * What OFU-MNL+, UCB-MNL and TS-MNL share: query/feedback validation, the pending-decision ledger
 * (each decision keeps a pooled copy of its offered feature rows, because features are fresh every
 * round), and the assortment step (top-K for uniform revenues, exact Dinkelbach otherwise).
 */
import {
  type AssortmentDecision,
  type AssortmentEvent,
  type AssortmentEventDecision,
  type AssortmentFeedback,
  type AssortmentPolicy,
  type AssortmentQuery,
  asInvalidEvent,
  assertVector,
  checkDiagonal,
  checkEvent,
  checkNumber,
  checkTriangular,
  copyNumbers,
  DecisionLedger,
  type DecisionRef,
  describe,
  ErrorCode,
  EVENT_VERSION,
  encodeF64,
  errorText,
  eventVector,
  type Json,
  type LedgerCodec,
  maxPendingOption,
  numberOption,
  ObjectPool,
  optionKeys,
  type Rng,
  RouteKitError,
  readF64,
  readLength,
  readObject,
  rejectUnknownOptions,
  requiredNumber,
  rngOption,
  type Snapshot,
  snapshotCorrupt,
  snapshotInvalid,
  vectorToJson,
} from "@routekit/core";
import { topKIndices, topKIndicesAmong, topKThreshold } from "@routekit/linalg";
import { DinkelbachWorkspace, dinkelbachAssortment } from "./assortment.js";
import { copyRowsKernel, oversizedRowKernel } from "./unrolled.generated.js";

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
  const i = oversizedRowIndex(X, rows, d);
  if (i < 0) return NO_OVERSIZED_ROW;
  let s = 0;
  for (let k = 0; k < d; k++) {
    const v = X[i * d + k] as number;
    s += v * v;
  }
  return { index: i, sq: s };
}

const NO_OVERSIZED_ROW = Object.freeze({ index: -1, sq: 0 });

/** The index of {@link firstOversizedRow} alone (no object; unrolled for d <= 8): -1 when every row is fine. */
export function oversizedRowIndex(X: ArrayLike<number>, rows: number, d: number): number {
  const kernel = oversizedRowKernel(d);
  if (kernel !== undefined) return kernel(X, rows, MAX_FEATURE_SQUARED_NORM);
  for (let i = 0; i < rows; i++) {
    let s = 0;
    for (let k = 0; k < d; k++) {
      const v = X[i * d + k] as number;
      s += v * v;
    }
    if (!(s <= MAX_FEATURE_SQUARED_NORM)) return i;
  }
  return -1;
}

/**
 * Decodes a d x d lower-triangular Cholesky factor (row-major): finite entries, a positive diagonal and
 * zeros above it (the factor updates never write there).
 */
export function decodeCholeskyF64(s: Json | undefined, what: string, d: number): Float64Array {
  const L = readF64(s, what, d * d);
  checkDiagonal(L, d, what, "a Cholesky factor has a positive diagonal", { min: 0, openMin: true });
  checkTriangular(L, d, what, "above", "a lower-triangular Cholesky factor is 0 above its diagonal");
  return L;
}

/** Checks that every one of `rows` rows of X (row stride d) is within {@link MAX_FEATURE_SQUARED_NORM}. */
export function checkFeatureRows(X: ArrayLike<number>, rows: number, d: number, what: string): void {
  const big = firstOversizedRow(X, rows, d);
  if (big.index >= 0) {
    snapshotInvalid(
      `${what} row ${big.index} (squared norm)`,
      big.sq,
      `a feature row has squared norm <= ${MAX_FEATURE_SQUARED_NORM} (select and learn refuse larger)`,
    );
  }
}

/** Reads the named fields of a snapshot object, each required with its JSON type (no defaults filled in). */
export function readFields<T extends Record<string, "number" | "string">>(
  o: Json | undefined,
  what: string,
  spec: T,
  extraKeys: readonly string[] = [],
): { [K in keyof T]: T[K] extends "number" ? number : string } {
  const obj = readObject(o, `"${what}"`);
  try {
    rejectUnknownOptions(obj, [...Object.keys(spec), ...extraKeys], `"${what}"`);
  } catch (e) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot field ${errorText(e)}`);
  }
  const out: Record<string, number | string> = {};
  for (const [k, type] of Object.entries(spec)) {
    const v = obj[k];
    if (typeof v !== type || (type === "number" && !Number.isFinite(v as number)))
      snapshotCorrupt(`"${what}.${k}"`, `a finite ${type}`);
    out[k] = v as number | string;
  }
  return out as { [K in keyof T]: T[K] extends "number" ? number : string };
}

/**
 * A pending decision: the offered items (query row indices), their feature rows and, when the query
 * had revenues, their revenues: exactly what its decision event carries, so update and learn agree.
 * A class rather than an object literal: V8 widens the field types of a literal's second copy, which
 * invalidated the optimised select of the first policy when a second one was built.
 */
class PendingAssortment {
  /**
   * The offered items in decision order: the first `count` entries. The record's own copy, so the
   * returned decision's array needs no freezing (Object.freeze cost about 3 % of an OFU-MNL+ round).
   */
  items: Int32Array;
  count = 0;
  /** Room for `rows` feature rows; the first `count` rows are the offered features (-0 stored as 0). */
  X: Float64Array;
  /** The first `count` entries are the offered items' revenues when `hasRevenues`. */
  r: Float64Array;
  hasRevenues = false;
  /** Rows the buffers hold: grown on demand up to maxSize, so a record costs what its assortments offer. */
  rows: number;

  constructor(
    private readonly maxSize: number,
    private readonly contextDim: number,
  ) {
    this.rows = Math.min(maxSize, INITIAL_RECORD_ROWS);
    this.items = new Int32Array(this.rows);
    this.X = new Float64Array(this.rows * contextDim);
    this.r = new Float64Array(this.rows);
  }

  /**
   * Makes room for `size` (<= maxSize) rows, growing x2 (capped at maxSize): a pooled record grows once to
   * the largest assortment it has carried, so a select/update stream allocates nothing per round. Called
   * before anything is written; the contents are not kept.
   */
  reserve(size: number): void {
    if (size <= this.rows) return;
    const rows = Math.min(this.maxSize, Math.max(size, 2 * this.rows));
    this.items = new Int32Array(rows);
    this.X = new Float64Array(rows * this.contextDim);
    this.r = new Float64Array(rows);
    this.rows = rows;
  }
}

/**
 * Whether `items` are distinct integers that fit the records' Int32Array: a larger index (a safe integer is
 * not enough) wrapped when stored, so the restored decision offered other, possibly repeated, items and its
 * own snapshot no longer restored. A plain loop, not `every`, so that a hole (a sparse array, not JSON but
 * possible for an object built in code) is refused rather than skipped and stored as item 0.
 */
function distinctItemIndices(items: readonly unknown[]): boolean {
  const seen = new Set<number>();
  for (let j = 0; j < items.length; j++) {
    const i = items[j];
    if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i > 0x7fffffff || seen.has(i)) return false;
    seen.add(i);
  }
  return true;
}

/** Whether the first n entries of `x` are finite numbers (no NaN, no +-Infinity). */
export function allFinite(x: ArrayLike<number>, n: number): boolean {
  for (let i = 0; i < n; i++) if (!Number.isFinite(x[i] as number)) return false;
  return true;
}

/** The factor by which {@link MnlPolicyBase} scales scores (features or samples) that overflow a double: 2^-64. */
export const OVERFLOW_STEP = 2 ** -64;

/**
 * Rows a pending-decision record holds at first. Records used to hold maxSize rows each, which at the top of
 * the maxSize range (2^20) with a wide contextDim was gigabytes per pending decision (the constructor's
 * first record threw a RangeError at contextDim 4096).
 */
const INITIAL_RECORD_ROWS = 16;

/**
 * The pending-decision records of one policy: a free list of records (each with room for maxSize rows)
 * and the ledger codec. A class, not closures, so that every policy in a process runs the same functions
 * and V8's optimised select/update stay valid when a second policy is built (a per-policy closure called
 * in the hot path made them deoptimise, and run unoptimised for hundreds of rounds, for every new policy).
 */
class RecordPool implements LedgerCodec<PendingAssortment> {
  private readonly pool: ObjectPool<PendingAssortment>;

  constructor(
    private readonly maxSize: number,
    private readonly contextDim: number,
  ) {
    this.pool = new ObjectPool<PendingAssortment>(() => this.make(), 1024);
    // One record from the start, so a select/update stream never calls `make` (nor grows an empty list).
    this.pool.release(this.make());
  }

  private make(): PendingAssortment {
    return new PendingAssortment(this.maxSize, this.contextDim);
  }

  acquire(): PendingAssortment {
    return this.pool.acquire();
  }

  encode(p: PendingAssortment): Json {
    const n = p.count;
    const o: Record<string, Json> = {
      items: Array.from(p.items.subarray(0, n)),
      x: encodeF64(p.X.subarray(0, n * this.contextDim)),
    };
    if (p.hasRevenues) o.r = encodeF64(p.r.subarray(0, n));
    return o;
  }

  decode(j: Json): PendingAssortment {
    const o = readObject(j, "pending decision");
    const items = o.items;
    if (!Array.isArray(items) || items.length > this.maxSize || !distinctItemIndices(items)) {
      snapshotCorrupt("pending.items", `at most ${this.maxSize} distinct item indices in [0, 2^31 - 1]`);
    }
    const n = items.length;
    const x = readF64(o.x, "pending.x", n * this.contextDim);
    checkFeatureRows(x, n, this.contextDim, "pending.x");
    const r = o.r === undefined ? undefined : readF64(o.r, "pending.r", n, (v) => v >= 0 && v <= 1);
    const p = this.pool.acquire();
    p.reserve(n);
    p.items.set(items as number[]);
    p.count = n;
    p.X.set(x);
    p.hasRevenues = r !== undefined;
    if (r) p.r.set(r);
    return p;
  }

  dispose(p: PendingAssortment): void {
    this.pool.release(p);
  }
}

/** Options every MNL policy accepts. */
export interface MnlCommonOptions {
  /** Length d of each item's feature row (required, 1..4096). */
  contextDim: number;
  /** Largest assortment K the policy will be asked for (required; queries may ask for fewer). */
  maxSize: number;
  /** Known attraction v0 of the outside option (default 1), > 0. */
  v0?: number;
  /** Clip the optimistic utilities to [lo, hi] before the assortment step (default: the preset's, else none). */
  utilityClip?: readonly [number, number] | null;
  /** Pending decisions kept for late feedback (default 100,000), an integer in [1, 10^7]. */
  maxPending?: number;
  /** Seed of the random stream (TS-MNL draws from it; the deterministic policies still validate it). */
  seed?: number | string;
  /** Random stream; wins over `seed`. */
  rng?: Rng;
}

/** The keys of {@link MnlCommonOptions}. */
export const MNL_COMMON_OPTION_KEYS = optionKeys<MnlCommonOptions>()([
  "contextDim",
  "maxSize",
  "v0",
  "utilityClip",
  "maxPending",
  "seed",
  "rng",
]);

/** Validated common options (kept in snapshots). */
export interface MnlCommonConfig {
  readonly contextDim: number;
  readonly maxSize: number;
  readonly v0: number;
  readonly utilityClip: readonly [number, number] | null;
  readonly maxPending: number;
}

/** Largest item feature length accepted. */
export const MAX_MNL_CONTEXT_DIM = 4096;
/** Largest policy maxSize accepted. */
export const MAX_MNL_SIZE = 1 << 20;

function readClip(v: unknown): readonly [number, number] | null {
  if (v === null) return null;
  if (!Array.isArray(v) || v.length !== 2) {
    throw new RouteKitError(ErrorCode.InvalidArgument, "option utilityClip must be [lo, hi] or null");
  }
  const lo = checkNumber(v[0], "option utilityClip[0]");
  const hi = checkNumber(v[1], "option utilityClip[1]");
  if (!(lo <= hi))
    throw new RouteKitError(ErrorCode.OutOfRange, `option utilityClip needs lo <= hi, got [${lo}, ${hi}]`);
  return [lo, hi];
}

/** Reads the common options with core's option readers (INVALID_ARGUMENT / NON_FINITE / OUT_OF_RANGE). */
export function readCommonOptions(
  o: Record<string, unknown>,
  defaultClip: readonly [number, number] | null,
): MnlCommonConfig {
  // Every policy accepts `seed`/`rng`; the deterministic ones draw nothing, but a bad value is still refused.
  rngOption(o);
  const contextDim = requiredNumber(o, "contextDim", { integer: true, min: 1, max: MAX_MNL_CONTEXT_DIM });
  const maxSize = requiredNumber(o, "maxSize", { integer: true, min: 1, max: MAX_MNL_SIZE });
  const v0 = numberOption(o, "v0", 1, { min: 0, openMin: true });
  const utilityClip = o.utilityClip === undefined ? defaultClip : readClip(o.utilityClip);
  const maxPending = maxPendingOption(o);
  return { contextDim, maxSize, v0, utilityClip, maxPending };
}

export function commonToJSON(c: MnlCommonConfig): Json {
  return {
    contextDim: c.contextDim,
    maxSize: c.maxSize,
    v0: c.v0,
    utilityClip: c.utilityClip ? [c.utilityClip[0], c.utilityClip[1]] : null,
    maxPending: c.maxPending,
  };
}

/** Runs `fn` (a constructor from snapshot fields); any error it throws becomes SNAPSHOT_CORRUPT. */
export function snapshotOptions<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    // Already a snapshot error (a nested snapshotOptions, readFields): the prefix was repeated in the message.
    if (e instanceof RouteKitError && e.code === ErrorCode.SnapshotCorrupt) throw e;
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot options are invalid: ${(e as Error).message}`);
  }
}

export function commonFromJSON(j: Json | undefined): MnlCommonConfig {
  const o = readFields(j, "common", { contextDim: "number", maxSize: "number", v0: "number", maxPending: "number" }, [
    "utilityClip",
  ]);
  const clip = (j as Record<string, Json>).utilityClip;
  if (clip !== null && !Array.isArray(clip)) snapshotCorrupt('"common.utilityClip"', "null or [lo, hi]");
  return snapshotOptions(() => readCommonOptions({ ...o, utilityClip: clip }, null));
}

// Ranges of the query's counts, hoisted so select allocates no option objects.
const COUNT = { integer: true, min: 0 } as const;
const SIZE = { integer: true, min: 1 } as const;

function eventError(what: string): never {
  throw new RouteKitError(ErrorCode.InvalidEvent, `event ${what}`);
}

/**
 * What OFU-MNL+, UCB-MNL and TS-MNL share: query and feedback validation, the pending-decision
 * ledger, decision events, and the assortment step (top-K for uniform revenues, exact Dinkelbach otherwise).
 */
export abstract class MnlPolicyBase implements AssortmentPolicy {
  abstract readonly kind: string;
  readonly protocol = "assortment" as const;
  readonly contextDim: number;
  readonly maxSize: number;
  readonly v0: number;
  protected readonly common: MnlCommonConfig;
  protected readonly ledger: DecisionLedger<PendingAssortment>;
  private readonly records: RecordPool;
  /** Per-item scores of the current query (grown on demand). */
  protected util: Float64Array;
  /**
   * The top-K's threshold path, prepared while scoring (see checkedOptimisticUtilities): the items whose
   * score is above `topHint` (the threshold guessed from the previous round's scores) and
   * [sum, sum of squares, count] of the scores; count -1 when the scoring did not prepare them. Speed
   * only: the decision is the exact top-K whatever the hint (a bad one falls back to the full top-K).
   */
  protected cand: Int32Array;
  protected readonly scoreStats = new Float64Array(3);
  protected topHint = Number.NaN;
  private attract: Float64Array;
  /** The query's features when given as a plain array (copied once, then validated). */
  private fcopy: Float64Array;
  /** The current query's fields, read once by readQuery. */
  private queryItems = 0;
  private querySize = 0;
  private queryRevenues: ArrayLike<number> | undefined = undefined;
  private rcopy = new Float64Array(0);
  private readonly chosen: Int32Array;
  private readonly dws: DinkelbachWorkspace;

  protected constructor(common: MnlCommonConfig) {
    this.common = common;
    this.contextDim = common.contextDim;
    this.maxSize = common.maxSize;
    this.v0 = common.v0;
    this.records = new RecordPool(common.maxSize, common.contextDim);
    this.ledger = new DecisionLedger<PendingAssortment>(this.records, { maxPending: common.maxPending });
    this.util = new Float64Array(128);
    this.cand = new Int32Array(128);
    this.attract = new Float64Array(128);
    this.fcopy = new Float64Array(0);
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
  protected abstract learnRound(X: Float64Array, n: number, choice: number): void;

  /**
   * Checks every feature row is within the norm bound, then the revenues ({@link checkRevenues}, which
   * throws), then scores the items ({@link scoreItems}); returns the first row above the bound (nothing
   * checked after it, nothing scored or drawn) or -1. Policies whose scoring draws nothing override it
   * with one fused pass (validation and utilities read each row once) followed by the revenue check.
   */
  protected scoreCheckedItems(features: Float64Array, n: number, revenues: ArrayLike<number> | undefined): number {
    const bad = oversizedRowIndex(features, n, this.contextDim);
    if (bad >= 0) return bad;
    this.checkRevenues(revenues, n);
    this.scoreItems(features, n);
    return -1;
  }

  /**
   * Scores the query again after {@link scoreCheckedItems} gave a utility that is not a finite double, on its
   * feature rows scaled by the first of 2^-64, 2^-128, ... that makes every utility finite. The utilities of
   * OFU-MNL+ and UCB-MNL, x.w + c ||x||_M, are positively homogeneous in x, so each is scaled by the same power
   * of two exactly (short of the subnormal range): their order, which top-K uses, is the true one, and the
   * revenue step sees finite attractions. TS-MNL keeps its sampled utilities finite itself and never gets here.
   */
  protected rescoreScaled(f: Float64Array, n: number): void {
    const m = n * this.contextDim;
    const g = new Float64Array(m);
    let s = 1;
    do {
      s *= OVERFLOW_STEP;
      for (let i = 0; i < m; i++) g[i] = (f[i] as number) * s;
      this.scoreItems(g, n);
      // s reaches 0 after 17 steps: all-zero rows score x.w + c ||x|| = 0, so the loop ends.
    } while (!allFinite(this.util, n));
  }

  /**
   * Validates a query's types, counts and feature shape and returns its features as a Float64Array read
   * once (a plain array is copied first and the copy validated); the norm bound and the revenues are
   * checked by select right after (still before any mutation). Throws INVALID_ARGUMENT for wrong types,
   * NON_FINITE, OUT_OF_RANGE (fractional or too large sizes), DIMENSION_MISMATCH, EMPTY_ASSORTMENT
   * (no items, maxSize < 1).
   */
  private readQuery(query: AssortmentQuery): Float64Array {
    if (query === null || typeof query !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, "query must be an AssortmentQuery object");
    // Each field is read once, here: a getter cannot pass validation with one value and be used with another.
    let n: number;
    let K: number;
    let f: unknown;
    let rev: unknown;
    try {
      n = query.numItems;
      K = query.maxSize;
      f = query.features;
      rev = query.revenues;
    } catch (e) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `reading the query threw: ${errorText(e)}`);
    }
    if (n === 0) throw new RouteKitError(ErrorCode.EmptyAssortment, "query has no items (numItems = 0)");
    checkNumber(n, "query.numItems", COUNT);
    if (typeof K === "number" && K < 1 && K > -Infinity)
      throw new RouteKitError(ErrorCode.EmptyAssortment, `query.maxSize must be >= 1, got ${K}`);
    checkNumber(K, "query.maxSize", SIZE);
    if (K > this.maxSize) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `query.maxSize ${K} exceeds the policy's maxSize ${this.maxSize} (set options.maxSize to the largest K)`,
      );
    }
    const d = this.contextDim;
    this.queryItems = n;
    this.querySize = K;
    this.queryRevenues = this.readRevenues(rev, n);
    if (!(f instanceof Float64Array)) {
      if (!Array.isArray(f)) assertVector(f, n * d, `query.features (numItems x contextDim = ${n} x ${d})`);
      const src = f as ArrayLike<number>;
      if (readLength(src, "query.features") !== n * d)
        assertVector(src, n * d, `query.features (numItems x contextDim = ${n} x ${d})`);
      if (this.fcopy.length < n * d) this.fcopy = new Float64Array(n * d);
      const c = this.fcopy;
      copyNumbers(src, c, n * d, "query.features");
      f = c.length === n * d ? c : c.subarray(0, n * d);
    } else if (f.length !== n * d) {
      assertVector(f, n * d, `query.features (numItems x contextDim = ${n} x ${d})`);
    }
    return f as Float64Array;
  }

  /** The query's revenues (checked later): a Float64Array as given, a plain array copied once, else as given. */
  private readRevenues(rev: unknown, n: number): ArrayLike<number> | undefined {
    if (rev === undefined || rev instanceof Float64Array || !Array.isArray(rev)) return rev as undefined;
    if (readLength(rev, "query.revenues") !== n) return rev;
    if (this.rcopy.length < n) this.rcopy = new Float64Array(n);
    copyNumbers(rev, this.rcopy, n, "query.revenues");
    return this.rcopy.length === n ? this.rcopy : this.rcopy.subarray(0, n);
  }

  /** Throws for features with a row above the norm bound: NON_FINITE for NaN/Infinity, else OUT_OF_RANGE. */
  private rejectFeatures(feats: Float64Array, n: number): never {
    const d = this.contextDim;
    const big = firstOversizedRow(feats, n, d);
    assertVector(feats, n * d, `query.features (numItems x contextDim = ${n} x ${d})`);
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `query.features row ${big.index} has squared norm ${big.sq}, expected <= ${MAX_FEATURE_SQUARED_NORM} ` +
        "(the MNL models assume ||x|| <= 1; rescale the features)",
      { index: big.index },
    );
  }

  /** Checks the query's revenues (length n, each in [0, 1]) if it has any. */
  protected checkRevenues(r: ArrayLike<number> | undefined, n: number): void {
    if (r !== undefined) {
      assertVector(r, n, "query.revenues");
      for (let i = 0; i < n; i++) {
        const ri = r[i] as number;
        if (!(ri >= 0 && ri <= 1)) {
          throw new RouteKitError(ErrorCode.OutOfRange, `query.revenues[${i}] must be in [0, 1], got ${ri}`, {
            index: i,
          });
        }
      }
    }
  }

  select(query: AssortmentQuery): AssortmentDecision {
    const f = this.readQuery(query);
    const n = this.queryItems;
    const K = this.querySize;
    if (this.util.length < n) {
      this.util = new Float64Array(n);
      this.cand = new Int32Array(n);
      this.attract = new Float64Array(n);
      this.dws.ensure(n);
    }
    const rev = this.queryRevenues;
    const stats = this.scoreStats;
    stats[2] = -1;
    if (this.scoreCheckedItems(f, n, rev) >= 0) this.rejectFeatures(f, n);
    // A utility past the largest double (a large exploration with a tiny ridge, rows near the norm bound) made
    // top-K rank tied Infinities by index and the revenue step offer nothing (e^(Infinity - Infinity) = NaN).
    // A finite sum of the utilities (prepared by the fused kernels) proves them all finite without a pass.
    if (!(stats[2] >= 0 && Number.isFinite(stats[0] as number)) && !allFinite(this.util, n)) {
      this.rescoreScaled(f, n);
      stats[2] = -1;
    }
    let uniform = true;
    if (rev !== undefined) {
      const r0 = rev[0] as number;
      uniform = r0 > 0;
      for (let i = 1; i < n && uniform; i++) if (rev[i] !== r0) uniform = false;
    }
    const util = this.util;
    const clip = this.common.utilityClip;
    if (clip) for (let i = 0; i < n; i++) util[i] = Math.min(clip[1], Math.max(clip[0], util[i] as number));
    let size: number;
    if (uniform) {
      const prepared = clip === null && stats[2] >= 0;
      size = prepared ? topKIndicesAmong(util, K, this.chosen, this.cand, stats[2] as number) : -1;
      if (size < 0) size = topKIndices(util, n, K, this.chosen);
      if (prepared) this.topHint = topKThreshold(stats[0] as number, stats[1] as number, n, K);
    } else {
      let m = -Infinity;
      for (let i = 0; i < n; i++) if ((util[i] as number) > m) m = util[i] as number;
      const v = this.attract;
      for (let i = 0; i < n; i++) v[i] = Math.exp((util[i] as number) - m);
      size = dinkelbachAssortment(v, rev as ArrayLike<number>, n, K, this.v0 * Math.exp(-m), this.chosen, this.dws);
    }
    const items = new Array<number>(size);
    const p = this.records.acquire();
    p.reserve(size);
    const own = p.items;
    for (let j = 0; j < size; j++) {
      const i = this.chosen[j] as number;
      items[j] = i;
      own[j] = i;
    }
    p.count = size;
    const X = p.X;
    const d = this.contextDim;
    // -0 is stored as 0 (x + 0), as a decision event writes it, so update and learn agree bitwise.
    const copy = copyRowsKernel(d);
    if (copy !== undefined) copy(f, this.chosen, size, X);
    else {
      for (let j = 0; j < size; j++) {
        const src = (items[j] as number) * d;
        for (let k = 0; k < d; k++) X[j * d + k] = (f[src + k] as number) + 0;
      }
    }
    p.hasRevenues = rev !== undefined;
    if (rev !== undefined) for (let j = 0; j < size; j++) p.r[j] = rev[items[j] as number] as number;
    const id = this.ledger.issue(p);
    return { id, items };
  }

  update(decision: DecisionRef, feedback: AssortmentFeedback): void {
    const pending = this.ledger.get(decision);
    const n = pending.count;
    const pos = this.choicePosition(pending.items, n, feedback);
    if (n > 0) this.learnRound(pending.X, n, pos);
    this.ledger.settle(decision);
  }

  private choicePosition(items: Int32Array, n: number, feedback: AssortmentFeedback): number {
    if (feedback === null || typeof feedback !== "object")
      throw new RouteKitError(ErrorCode.InvalidArgument, "feedback must be an object { choice }");
    let c: unknown;
    try {
      c = feedback.choice;
    } catch (e) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `reading feedback.choice threw: ${errorText(e)}`);
    }
    if (c === null) return -1;
    let pos = -1;
    if (typeof c === "number") for (let j = 0; j < n && pos < 0; j++) if (items[j] === c) pos = j;
    if (pos < 0) {
      throw new RouteKitError(
        ErrorCode.InvalidChoice,
        `choice ${describe(c)} is not one of the offered items [${Array.from(items.subarray(0, n)).join(", ")}] (use null for no choice)`,
      );
    }
    return pos;
  }

  decisionRecord(ref: DecisionRef): AssortmentEvent {
    const p = this.ledger.get(ref);
    const id = this.ledger.idOf(ref); // the id get resolved (ref.id is not read twice)
    const n = p.count;
    const decision: { -readonly [K in keyof AssortmentEventDecision]: AssortmentEventDecision[K] } = {
      items: Array.from(p.items.subarray(0, n)),
      features: vectorToJson(p.X, n * this.contextDim),
    };
    if (p.hasRevenues) decision.revenues = vectorToJson(p.r, n);
    return { v: EVENT_VERSION, kind: this.kind, protocol: "assortment", id, decision };
  }

  /**
   * Learns from a logged event (of any assortment policy with the same contextDim): the offered
   * feature rows and the choice are all the MNL update needs. INVALID_EVENT, changing nothing, for a
   * malformed event, more than maxSize items, rows of another length or above the norm bound.
   * Pending decisions are not touched. An empty assortment's record is learned as its update is: it teaches nothing.
   */
  learn(event: AssortmentEvent): void {
    const ev = checkEvent(event, "assortment");
    const items = ev.decision.items;
    const n = items.length;
    const d = this.contextDim;
    if (n > this.maxSize) eventError(`decision.items has ${n} items, this policy's maxSize is ${this.maxSize}`);
    const X = eventVector(ev.decision.features, "decision.features");
    if (X.length !== n * d) {
      eventError(`decision.features must hold ${n} rows of contextDim = ${d} values, got ${X.length} values`);
    }
    const big = firstOversizedRow(X, n, d);
    if (big.index >= 0) eventError(`decision.features row ${big.index} is above the norm bound ||x||^2 <= 1e100`);
    const c = ev.feedback.choice;
    try {
      // An empty assortment teaches nothing, as its update does.
      if (n > 0) this.learnRound(X, n, c === null ? -1 : items.indexOf(c));
    } catch (e) {
      throw asInvalidEvent(e);
    }
  }

  discard(ref: DecisionRef): void {
    this.ledger.get(ref);
    this.ledger.settle(ref);
  }
}
