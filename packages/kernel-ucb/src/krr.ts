import {
  checkNumber,
  describe,
  ErrorCode,
  encodeF64,
  type Json,
  MAX_CONTEXT_DIM,
  RouteKitError,
  readF64,
  readInt,
  readNumber,
  readObject,
  snapshotCorrupt,
  snapshotInvalid,
} from "@routekit/core";
import {
  allocF64,
  borderedInverseAppend,
  borderedInverseAppendWithProduct,
  choleskyInverseUpper,
  dot,
  freeF64,
  gemv,
  invertSPD,
  quadFormUpper,
  symvQuadUpper,
  symvUpper,
} from "@routekit/linalg";
import { DotKernel } from "./kernel.js";

/** Optional flop counter (diagnostics: the cost model is tested by counts, not wall time). */
export interface OpCounter {
  ops: number;
}

/**
 * Incremental kernel ridge regression on one index set (one arm of PAK-UCB, one (arm, stage) of
 * Sup-PAK-UCB, or KernelUCB's single shared regression), updated incrementally:
 *
 * - `Q = (K + ridge I)^-1` in the upper triangle of a row-major buffer with row stride `cap`,
 *   grown by bordered inversion (Schur complement, clamped at >= ridge) on each new point;
 * - `a = Q v` kept by the O(n) update `a <- [a - u e; e]`, e = (s - b.a) / S;
 * - history X (n x d) for kernel rows, capacity grown by x1.5, so no re-solve ever happens.
 *
 * Query and append are O(n d + n^2). Buffers come from `allocF64` (SIMD-reachable).
 */
/** Capacity (points) from which an exact regression's growth is reported through `onLarge`. */
export const LARGE_CAPACITY = 8192;

/** Largest `initialCapacity` accepted (a 4096 x 4096 inverse is 128 MB). */
export const MAX_INITIAL_CAPACITY = 4096;

/** Relative slack of the diagonal bound 1 / ridge before the inverse is rebuilt. */
const REFRESH_SLACK = 1 + 1e-6;

export class ExactKrr {
  n = 0;
  cap: number;
  X: Float64Array;
  /** Squared norms of the history rows (plus 1 for tagged rows, see KernelUCB). */
  norms: Float64Array;
  /** Tags of the rows (arm ordinal in KernelUCB's augmented context), -1 when untagged. */
  tags: Int32Array;
  v: Float64Array;
  a: Float64Array;
  Q: Float64Array;
  /**
   * Called once when the capacity first reaches LARGE_CAPACITY points (the inverse alone is then
   * >= 512 MB): exact PAK-UCB's memory is O(n^2) per arm, so the owner warns.
   */
  onLarge: ((cap: number) => void) | undefined;
  /** Threshold for `onLarge` (default LARGE_CAPACITY). */
  largeCapacity = LARGE_CAPACITY;
  /** Whether `onLarge` was called (not learned state: a restored regression already holds its room). */
  private largeReported = false;
  /** Scratch kernel row (cap values), reused by callers between query and append. */
  b: Float64Array;
  private work: Float64Array;
  /**
   * True while `work` holds Q b for the current state and the scratch row `b` (left by {@link varianceOfRow}):
   * the next `append` of that row then skips its O(n^2) product. Cleared by anything that writes `b`, `work` or Q.
   */
  private productReady = false;

  constructor(
    readonly d: number,
    readonly kernel: DotKernel,
    readonly ridge: number,
    initialCap = 16,
    readonly counter?: OpCounter,
  ) {
    // Exported building block: a ridge of 0 or a non-DotKernel gave NaN or a TypeError later, not a typed error here.
    checkNumber(d, "ExactKrr d", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
    if (!(kernel instanceof DotKernel)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `ExactKrr kernel must be a DotKernel, got ${describe(kernel)}`,
      );
    }
    checkNumber(ridge, "ExactKrr ridge", { min: 0, openMin: true });
    checkNumber(initialCap, "ExactKrr initialCap", { integer: true, min: 1 });
    this.cap = initialCap;
    this.X = allocF64(this.cap * d);
    this.norms = allocF64(this.cap);
    this.tags = new Int32Array(this.cap);
    this.v = allocF64(this.cap);
    this.a = allocF64(this.cap);
    this.Q = allocF64(this.cap * this.cap);
    this.b = allocF64(this.cap);
    this.work = allocF64(this.cap);
  }

  /** out[i] = x_i . y for the n history rows. */
  dots(y: Float64Array, out: Float64Array): void {
    if (this.n === 0) return;
    gemv(this.X, this.n, this.d, y, out, 1, 0, this.d);
    if (this.counter) this.counter.ops += this.n * this.d;
  }

  /** Kernel row k(x_i, y) into out (default: the scratch `b`). `ny` = ||y||^2. */
  row(y: Float64Array, ny: number, out: Float64Array = this.b): Float64Array {
    if (out === this.b) this.productReady = false;
    this.dots(y, out);
    this.kernel.mapRow(out, this.n, this.norms, ny);
    return out;
  }

  /**
   * Kernel row for an augmented context [y; e_tag] from precomputed dots y.x_i:
   * [y; e_tag].[x_i; e_tag_i] = dots[i] + (tag == tag_i), ||[y; e]||^2 = ny + 1.
   */
  rowTagged(dots: Float64Array, ny: number, tag: number, out: Float64Array): Float64Array {
    if (out === this.b) this.productReady = false;
    const k = this.kernel;
    for (let i = 0; i < this.n; i++) {
      const dd = (dots[i] as number) + (this.tags[i] === tag ? 1 : 0);
      out[i] = k.fromDot(dd, this.norms[i] as number, ny + 1);
    }
    return out;
  }

  /** mu = b . a (b: a kernel row for the current n). */
  mean(b: Float64Array): number {
    if (this.counter) this.counter.ops += this.n;
    return this.n === 0 ? 0 : dot(b, this.a, this.n);
  }

  /**
   * sigma^2 = (k(y,y) - b^T Q b) / ridge, clamped at 0 (rounding can make it slightly negative). One quadratic form over the
   * upper triangle: half the flops of forming Q b.
   */
  variance(b: Float64Array, kyy: number): number {
    if (this.n === 0) return kyy / this.ridge;
    if (this.counter) this.counter.ops += (this.n * (this.n + 1)) / 2;
    const v = kyy - quadFormUpper(this.Q, this.n, b, this.cap);
    return v > 0 ? v / this.ridge : 0;
  }

  /**
   * {@link variance} of the scratch row `b` (as left by `row`), with the same bits, computed in one pass over Q
   * that also keeps u = Q b: a following `append` of this row (the arm chosen, nothing changed in between)
   * then reuses u instead of reading Q once more, the same bits either way. For the exact learner's select,
   * where each candidate arm's variance is needed and the chosen one is appended next.
   */
  varianceOfRow(kyy: number): number {
    if (this.n === 0) return kyy / this.ridge;
    if (this.counter) this.counter.ops += (this.n * (this.n + 1)) / 2;
    const v = kyy - symvQuadUpper(this.Q, this.n, this.b, this.work, this.cap);
    this.productReady = true;
    return v > 0 ? v / this.ridge : 0;
  }

  /**
   * Adds (y, s). `b` must hold the kernel row of y for the current n (compute it with `row`), and
   * `kyy` = k(y, y). Returns the Schur complement used (>= ridge).
   */
  append(y: Float64Array, ny: number, s: number, b: Float64Array, kyy: number, tag = -1): number {
    const n = this.n;
    if (n + 1 > this.cap) b = this.grow(n + 1, b);
    // Q b from varianceOfRow, still valid: the scratch row, no write to b, work or Q since (grow clears it).
    const haveProduct = this.productReady && b === this.b;
    this.productReady = false;
    const c = kyy + this.ridge;
    let S: number;
    if (n === 0) {
      // Q = [[1/(k(y,y) + ridge)]] (the reference code computes 1/k(y,y) + ridge, a precedence bug).
      S = c;
      this.Q[0] = 1 / c;
      this.a[0] = s / c;
    } else {
      // Schur complement S = c - b^T Q b = ridge (1 + sigma^2(y)) >= ridge exactly; clamp at ridge.
      S = haveProduct
        ? borderedInverseAppendWithProduct(this.Q, n, this.cap, b, c, this.work, this.ridge)
        : borderedInverseAppend(this.Q, n, this.cap, b, c, this.work, this.ridge);
      const e = (s - dot(b, this.a, n)) / S;
      const u = this.work;
      const a = this.a;
      for (let i = 0; i < n; i++) a[i] = (a[i] as number) - (u[i] as number) * e;
      a[n] = e;
      if (this.counter) this.counter.ops += n * n + 3 * n;
    }
    const row = n * this.d;
    for (let j = 0; j < this.d; j++) this.X[row + j] = y[j] as number;
    this.norms[n] = tag >= 0 ? ny + 1 : ny;
    this.tags[n] = tag;
    this.v[n] = s;
    this.n = n + 1;
    if (n > 0 && !this.inverseBounded(n)) this.refresh();
    return S;
  }

  /**
   * Whether the kept inverse is still within what exact arithmetic allows: (K + ridge I)^-1 has every
   * eigenvalue in (0, 1 / ridge], so each diagonal entry is at most 1 / ridge; the bordered update only
   * adds u_i^2 / S to them. An entry beyond the bound (or non-finite) means rounding errors have grown
   * (ill-conditioned K at a small ridge), and the inverse is rebuilt. O(n).
   */
  private inverseBounded(n: number): boolean {
    const lim = (1 / this.ridge) * this.refreshSlack;
    const Q = this.Q;
    const ld = this.cap;
    for (let i = 0; i <= n; i++) if (!((Q[i * ld + i] as number) <= lim)) return false;
    return true;
  }

  /** Tolerance factor of the diagonal bound (raised after a rebuild that could not reach the bound). */
  refreshSlack = REFRESH_SLACK;
  /** Rebuilds of the inverse so far (diagnostics and tests). */
  refreshes = 0;

  /**
   * Rebuilds Q = (K + ridge I)^-1 and a = Q v from the stored points by a Cholesky factorisation whose
   * pivots are kept >= ridge (each exact pivot is ridge (1 + sigma_i^2) >= ridge, the same bound the
   * bordered update's Schur complement obeys), so the result is finite whatever the conditioning.
   * O(n^2 d + n^3); runs only when the diagonal bound check fails.
   */
  refresh(): void {
    this.productReady = false;
    const n = this.n;
    const d = this.d;
    const L = new Float64Array(n * n);
    const row = new Float64Array(n);
    const y = new Float64Array(d);
    for (let i = 0; i < n; i++) {
      y.set(this.X.subarray(i * d, (i + 1) * d));
      gemv(this.X, i + 1, d, y, row, 1, 0, d);
      for (let j = 0; j <= i; j++) {
        const same = this.tags[i] >= 0 && this.tags[i] === this.tags[j] ? 1 : 0;
        L[i * n + j] = this.kernel.fromDot((row[j] as number) + same, this.norms[j] as number, this.norms[i] as number);
      }
      L[i * n + i] = (L[i * n + i] as number) + this.ridge;
    }
    const minPivot = Math.sqrt(this.ridge);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const s = (L[i * n + j] as number) - dot(L, L, j, i * n, j * n);
        if (i === j) L[i * n + i] = s > this.ridge ? Math.sqrt(s) : minPivot;
        else L[i * n + j] = s / (L[j * n + j] as number);
      }
    }
    const inv = new Float64Array(n * n);
    choleskyInverseUpper(L, n, inv, this.work, n);
    for (let i = 0; i < n; i++) for (let j = i; j < n; j++) this.Q[i * this.cap + j] = inv[i * n + j] as number;
    symvUpper(this.Q, n, this.v, this.a, this.cap);
    this.refreshes++;
    if (this.counter) this.counter.ops += n * n * d + n * n * n;
    // Rounding may leave the rebuilt inverse slightly above the bound; allow that much before the next
    // rebuild, so an ill-conditioned kernel does not rebuild on every point.
    let worst = 0;
    for (let i = 0; i < n; i++) worst = Math.max(worst, (this.Q[i * this.cap + i] as number) * this.ridge);
    this.refreshSlack = Math.max(REFRESH_SLACK, 2 * worst);
  }

  /** Grows every buffer to hold at least `need` points (x1.5); returns `b` at its new home. */
  private grow(need: number, b: Float64Array): Float64Array {
    const n = this.n;
    this.productReady = false;
    const cap = Math.max(need, Math.ceil(this.cap * 1.5), 16);
    if (cap >= this.largeCapacity && this.cap < this.largeCapacity && !this.largeReported) {
      // Reported once even when the callback throws: that update then throws and changes nothing, and the next
      // one grows without calling it again (a callback that always throws would otherwise freeze the arm).
      this.largeReported = true;
      this.onLarge?.(cap);
    }
    const Q = allocF64(cap * cap);
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) Q[i * cap + j] = this.Q[i * this.cap + j] as number;
    }
    const X = allocF64(cap * this.d);
    X.set(this.X.subarray(0, n * this.d));
    const wasScratch = b === this.b;
    const nb = allocF64(cap);
    nb.set(b.subarray(0, n));
    const old = [this.Q, this.X, this.norms, this.v, this.a, this.work, this.b];
    this.Q = Q;
    this.X = X;
    this.norms = copyInto(allocF64(cap), this.norms, n);
    const tags = new Int32Array(cap);
    tags.set(this.tags.subarray(0, n));
    this.tags = tags;
    this.v = copyInto(allocF64(cap), this.v, n);
    this.a = copyInto(allocF64(cap), this.a, n);
    this.work = allocF64(cap);
    this.cap = cap;
    this.b = wasScratch ? nb : allocF64(cap);
    // Hand the old blocks back to linalg's WebAssembly allocator (no-op for plain arrays).
    for (const o of old) freeF64(o);
    return nb;
  }

  /**
   * Drift of the incremental state (a debug check, O(n^3 + n^2 d)): rebuilds K + ridge I
   * from the stored points, inverts it directly (Cholesky) and returns the largest absolute
   * difference from the kept inverse, relative to the largest entry of the direct one, and the same
   * for a = Q v. Read-only.
   */
  drift(): { inverse: number; weights: number } {
    const n = this.n;
    if (n === 0) return { inverse: 0, weights: 0 };
    const A = new Float64Array(n * n);
    const row = new Float64Array(n);
    const y = new Float64Array(this.d);
    for (let i = 0; i < n; i++) {
      y.set(this.X.subarray(i * this.d, (i + 1) * this.d));
      // Tagged rows (KernelUCB) carry their one-hot term in norms and tags.
      gemv(this.X, n, this.d, y, row, 1, 0, this.d);
      for (let j = 0; j < n; j++) {
        const same = this.tags[i] >= 0 && this.tags[i] === this.tags[j] ? 1 : 0;
        const k = this.kernel.fromDot((row[j] as number) + same, this.norms[j] as number, this.norms[i] as number);
        A[i * n + j] = k + (i === j ? this.ridge : 0);
      }
    }
    const inv = new Float64Array(n * n);
    if (!invertSPD(A, n, inv)) return { inverse: Number.POSITIVE_INFINITY, weights: Number.POSITIVE_INFINITY };
    let dq = 0;
    let mq = 0;
    let da = 0;
    let ma = 0;
    for (let i = 0; i < n; i++) {
      let ai = 0;
      for (let j = 0; j < n; j++) {
        const q = inv[i * n + j] as number;
        ai += q * (this.v[j] as number);
        mq = Math.max(mq, Math.abs(q));
        if (j >= i) dq = Math.max(dq, Math.abs(q - (this.Q[i * this.cap + j] as number)));
      }
      ma = Math.max(ma, Math.abs(ai));
      da = Math.max(da, Math.abs(ai - (this.a[i] as number)));
    }
    return { inverse: dq / mq, weights: ma > 0 ? da / ma : da };
  }

  /** The full symmetric (K + ridge I)^-1 as an n x n row-major array (tests, diagnostics). */
  inverse(): Float64Array {
    const n = this.n;
    const out = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) {
        const q = this.Q[i * this.cap + j] as number;
        out[i * n + j] = q;
        out[j * n + i] = q;
      }
    }
    return out;
  }

  toJSON(): Json {
    const n = this.n;
    const packed = new Float64Array((n * (n + 1)) / 2);
    let k = 0;
    for (let i = 0; i < n; i++) for (let j = i; j < n; j++) packed[k++] = this.Q[i * this.cap + j] as number;
    return {
      n,
      cap: this.cap,
      X: encodeF64(this.X.subarray(0, n * this.d)),
      norms: encodeF64(this.norms.subarray(0, n)),
      tags: Array.from(this.tags.subarray(0, n)),
      v: encodeF64(this.v.subarray(0, n)),
      a: encodeF64(this.a.subarray(0, n)),
      Q: encodeF64(packed),
      slack: this.refreshSlack,
    };
  }

  static fromJSON(json: Json, d: number, kernel: DotKernel, ridge: number, counter?: OpCounter): ExactKrr {
    const o = readObject(json, "regression state");
    const n = readInt(o, "n");
    const cap = readInt(o, "cap", 1);
    // The live capacity is at most max(initial capacity <= 4096, 1.5 n + 16): reject anything larger
    // before allocating it.
    if (cap < n || cap > Math.max(MAX_INITIAL_CAPACITY, 2 * n + 16)) {
      throw new RouteKitError(
        ErrorCode.SnapshotCorrupt,
        `kernel regression capacity ${cap} is invalid for ${n} points`,
      );
    }
    const X = readF64(o.X, "X", n * d);
    const norms = readF64(o.norms, "norms", n);
    const v = readF64(o.v, "v", n);
    const a = readF64(o.a, "a", n);
    const packed = readF64(o.Q, "Q", (n * (n + 1)) / 2);
    const tags = o.tags;
    if (
      !Array.isArray(tags) ||
      tags.length !== n ||
      !tags.every((t) => Number.isSafeInteger(t) && (t as number) >= -1)
    ) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, "kernel regression tags must be n integers >= -1");
    }
    const s = new ExactKrr(d, kernel, ridge, cap, counter);
    s.X.set(X);
    s.norms.set(norms);
    s.v.set(v);
    s.a.set(a);
    s.tags.set(tags as number[]);
    // Squared norms are kept as computed from the rows (plus 1 for a one-hot tag): recompute and compare.
    for (let i = 0; i < n; i++) {
      let q = 0;
      for (let j = 0; j < d; j++) q += (X[i * d + j] as number) * (X[i * d + j] as number);
      if ((tags[i] as number) >= 0) q += 1;
      if (q !== norms[i]) snapshotCorrupt(`norms[${i}]`, "the squared norm of its row");
    }
    s.refreshSlack = readNumber(o, "slack", (v) => v >= REFRESH_SLACK, `a number >= ${REFRESH_SLACK}`);
    let k = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i; j < n; j++) {
        const q = packed[k++] as number;
        // The inverse of K + ridge I has a positive diagonal.
        if (i === j && !(q > 0)) snapshotCorrupt(`Q[${i}, ${i}]`, "positive");
        s.Q[i * cap + j] = q;
      }
    }
    // a = Q v, kept by incremental updates and reset to Q v by every rebuild: |a_i| <= sum_j |Q_ij| |v_j| <=
    // rowAbs_i max_j |v_j| for the stored (symmetric) Q, whatever its drift from the exact inverse. The factor 2
    // covers the rounding of a against Q v (relative 1e-16 per update, far below it), the absolute 1e-300 the
    // subnormal range, where rounding is absolute. No squares: |Q|_F |v|_2 underflowed to 0 for rewards near
    // 1e-170, and real snapshots were refused.
    const rowAbs = new Float64Array(n);
    let vMax = 0;
    k = 0;
    for (let i = 0; i < n; i++) {
      vMax = Math.max(vMax, Math.abs(v[i] as number));
      for (let j = i; j < n; j++) {
        const q = Math.abs(packed[k++] as number);
        rowAbs[i] += q;
        if (j !== i) rowAbs[j] += q;
      }
    }
    for (let i = 0; i < n; i++) {
      // vMax 0: every reward 0, where a stays 0 (and Infinity * 0 would be no bound).
      const aMax = (vMax === 0 ? 0 : 2 * (rowAbs[i] as number) * vMax) + 1e-300;
      if (!(Math.abs(a[i] as number) <= aMax)) {
        snapshotInvalid(
          `a[${i}]`,
          a[i] as number,
          `a = Q v is within 2 sum_j |Q[${i}, j]| max_j |v_j| + 1e-300 = ${aMax} (Q the stored inverse, v the rewards)`,
        );
      }
    }
    s.n = n;
    return s;
  }
}

function copyInto(dst: Float64Array, src: Float64Array, n: number): Float64Array {
  dst.set(src.subarray(0, n));
  return dst;
}
