import {
  checkDiagonal,
  checkNumber,
  ErrorCode,
  encodeF64,
  type Json,
  RouteKitError,
  readF64,
  readInt,
  readObject,
  snapshotInvalid,
} from "@routekit/core";
import {
  allocF32,
  allocF64,
  axpy,
  dot,
  dotTo,
  freeF64,
  mirror32Length,
  mirrorUpper,
  paddedLength,
  quadFormMirror32,
  quadFormMirror32To,
  quadFormUpper,
  quadFormUpperTo,
  roundToF32,
  setScaledIdentity,
  shermanMorrisonWithU,
  shermanMorrisonWithUMirrored,
  symvUpper,
} from "@routekit/linalg";
import type { OpCounter } from "./krr.js";

/**
 * Scratch doubles of the per-round methods: [0] a mean or dot product, [1] a quadratic form, [2] the score
 * {@link RidgeArm.update} hands to {@link RidgeArm.updateAt}, [3] the squared norm of an update's phi. Doubles returned from (or passed to) calls V8 does
 * not inline are boxed into 16-byte heap numbers; typed-array slots hold them unboxed.
 */
const SLOT = new Float64Array(4);

/**
 * Ridge regression in a fixed F-dimensional feature space (one arm of RFF-UCB):
 * Ainv = (Phi^T Phi + ridge I)^-1 in the upper triangle, theta = Ainv b kept by
 * theta += u (s - phi.theta) / (1 + phi.u) with u = Ainv phi (the same u as Sherman-Morrison's),
 * b = sum s phi (kept for checks; never double-counts the first reward, unlike the reference code).
 * Constant time per round: O(F^2) per query and per update.
 *
 * Selection widths ({@link selectionVariance}) come from a Float32 mirror of Ainv (linalg's
 * `mirror32`: half the bytes, four lanes per instruction), rewritten from the Float64 master row by
 * row in each update, so the master, its drift and the snapshots are exactly what they were without
 * it. Every {@link MIRROR_CHECK_EVERY}th update, and every update of features the arm already knew well (see
 * {@link MIRROR_CHECK_COVERAGE}), compares the mirror's sigma with the master's on the update's own features; a
 * relative difference above {@link MIRROR_TOLERANCE} switches the arm to the Float64 form for good (an
 * ill-conditioned inverse: a tiny ridge, a very long run, a prompt seen over and over).
 */
export class RidgeArm {
  n = 0;
  /** Bumped on every update; a decision's cached u is valid only for the version it was made at. */
  version = 0;
  readonly Ainv: Float64Array;
  readonly theta: Float64Array;
  readonly b: Float64Array;
  /** False once a check found the mirror too coarse: selection then uses the Float64 form. */
  single = true;
  /** The Float32 mirror of Ainv (created at the first selection), and scratch for phi in f32. */
  private mirror: Float32Array | null = null;
  private phi32: Float32Array | null = null;

  constructor(
    readonly F: number,
    readonly ridge: number,
    readonly counter?: OpCounter,
  ) {
    // Exported building block: a ridge of 0 made Ainv infinite and every variance NaN (reported as 0).
    checkNumber(F, "RidgeArm F", { integer: true, min: 1 });
    checkNumber(ridge, "RidgeArm ridge", { min: 0, openMin: true });
    this.Ainv = allocF64(F * F);
    setScaledIdentity(this.Ainv, F, 1 / ridge);
    this.theta = allocF64(F);
    this.b = allocF64(F);
  }

  mean(phi: Float64Array): number {
    if (this.counter) this.counter.ops += this.F;
    return dot(this.theta, phi, this.F);
  }

  /**
   * sigma^2 = phi^T Ainv phi, clamped at 0. The paper's Algorithm 5 writes
   * ridge^-1/2 (1 - phi^T Ainv Phi^T Phi phi)^1/2, which equals this only when ||phi|| = 1; this form is
   * right for every feature convention.
   */
  variance(phi: Float64Array): number {
    if (this.counter) this.counter.ops += (this.F * (this.F + 1)) / 2;
    const q = quadFormUpper(this.Ainv, this.F, phi);
    return q > 0 ? q : 0;
  }

  /**
   * sigma^2 for selection: phi^T Ainv phi from the Float32 mirror (about 1e-7 relative to
   * {@link variance}; see the class notes), clamped at 0. `phi32` = linalg's roundToF32(phi).
   */
  selectionVariance(phi: Float64Array, phi32: Float32Array): number {
    if (!this.single) return this.variance(phi);
    if (this.counter) this.counter.ops += (this.F * (this.F + 1)) / 2;
    const q = quadFormMirror32(this.mirrorOf(), this.F, phi32, phi);
    return q > 0 ? q : 0;
  }

  /**
   * out[oi] = mean(phi) + e sqrt(selectionVariance(phi, phi32)) with e = es[ei], or mean(phi) when e = 0: a
   * selection index with the bits of those two methods, allocating nothing.
   */
  selectionScoreTo(
    phi: Float64Array,
    phi32: Float32Array,
    es: Float64Array,
    ei: number,
    out: Float64Array,
    oi: number,
  ): void {
    const F = this.F;
    if (this.counter) this.counter.ops += F;
    dotTo(this.theta, phi, F, SLOT, 0);
    const e = es[ei] as number;
    if (e === 0) {
      out[oi] = SLOT[0] as number;
      return;
    }
    if (this.counter) this.counter.ops += (F * (F + 1)) / 2;
    if (this.single) quadFormMirror32To(this.mirrorOf(), F, phi32, phi, SLOT, 1);
    else quadFormUpperTo(this.Ainv, F, phi, SLOT, 1);
    const q = SLOT[1] as number;
    out[oi] = (SLOT[0] as number) + e * Math.sqrt(q > 0 ? q : 0);
  }

  private mirrorOf(): Float32Array {
    if (this.mirror === null) {
      this.mirror = allocF32(mirror32Length(this.F));
      this.phi32 = allocF32(paddedLength(this.F));
      mirrorUpper(this.Ainv, this.F, this.mirror);
    }
    return this.mirror;
  }

  /** Every this many updates an arm checks its mirror (on the update's features). */
  static readonly MIRROR_CHECK_EVERY = 16;
  /**
   * An update whose phi^T Ainv phi (before it) is below this fraction of the prior's ||phi||^2 / ridge is checked
   * too. The error measured on a prompt seen over and over was about 7e-9 / fraction (ridge 1 and 0.1), so at 1/16
   * it is still near 1e-7, below the tolerance. Random prompts (d = 8 and d = 512, 1,000 of them, 5 arms, 3,000 and
   * 2,000 rounds) come below it in 1 of 2,949 updates and never: no extra cost there.
   */
  static readonly MIRROR_CHECK_COVERAGE = 1 / 16;
  /** Largest relative sigma difference a check accepts (a quarter of the 1e-6 the README promises). */
  static readonly MIRROR_TOLERANCE = 2.5e-7;

  private checkMirror(phi: Float64Array, M: Float32Array): void {
    const phi32 = roundToF32(phi, this.F, this.phi32 as Float32Array);
    quadFormMirror32To(M, this.F, phi32, phi, SLOT, 1);
    quadFormUpperTo(this.Ainv, this.F, phi, SLOT, 0);
    const q32 = SLOT[1] as number;
    const q64 = SLOT[0] as number;
    if (!(Math.abs(Math.sqrt(q32 > 0 ? q32 : 0) - Math.sqrt(q64)) <= RidgeArm.MIRROR_TOLERANCE * Math.sqrt(q64))) {
      this.dropMirror();
    }
  }

  private dropMirror(): void {
    this.single = false;
    if (this.mirror !== null) freeF64(this.mirror);
    if (this.phi32 !== null) freeF64(this.phi32);
    this.mirror = null;
    this.phi32 = null;
  }

  /** u = Ainv phi. */
  solve(phi: Float64Array, u: Float64Array): void {
    if (this.counter) this.counter.ops += this.F * this.F;
    symvUpper(this.Ainv, this.F, phi, u);
  }

  /** Adds (phi, s) given u = Ainv phi for the current state. */
  update(phi: Float64Array, s: number, u: Float64Array): void {
    SLOT[2] = s;
    this.updateAt(phi, SLOT, 2, u);
  }

  /** {@link update} with s = scores[si] (a double read from a typed array is not boxed). */
  updateAt(phi: Float64Array, scores: Float64Array, si: number, u: Float64Array): void {
    const F = this.F;
    const s = scores[si] as number;
    dotTo(phi, this.theta, F, SLOT, 0);
    const err = s - (SLOT[0] as number);
    const M = this.mirror;
    const denom =
      M === null ? shermanMorrisonWithU(this.Ainv, F, phi, u) : shermanMorrisonWithUMirrored(this.Ainv, F, phi, u, M);
    axpy(err / denom, u, this.theta, F);
    axpy(s, phi, this.b, F);
    if (this.counter) this.counter.ops += (F * (F + 1)) / 2 + 4 * F;
    this.n++;
    this.version++;
    // Checked whether or not this arm has selected yet (a replica that only learns events builds the
    // mirror here), so `single` depends on the updates alone. Every 16th update, and every update whose
    // features the arm already knew well: the mirror's relative error grows as phi^T Ainv phi falls below
    // ||phi||^2 / ridge, so a prompt learned 15 times out of 16 between two sampled checks was selected with a
    // sigma 9e-5 off at ridge 0.1 (denom - 1 is phi^T Ainv phi before this update: no extra pass over Ainv).
    if (!this.single) return;
    if (this.n % RidgeArm.MIRROR_CHECK_EVERY !== 0) {
      dotTo(phi, phi, F, SLOT, 3);
      if (!((denom - 1) * this.ridge < RidgeArm.MIRROR_CHECK_COVERAGE * (SLOT[3] as number))) return;
    }
    this.checkMirror(phi, this.mirrorOf());
  }

  toJSON(): Json {
    const F = this.F;
    const packed = new Float64Array((F * (F + 1)) / 2);
    let k = 0;
    for (let i = 0; i < F; i++) for (let j = i; j < F; j++) packed[k++] = this.Ainv[i * F + j] as number;
    const out: Record<string, Json> = {
      n: this.n,
      version: this.version,
      Ainv: encodeF64(packed),
      theta: encodeF64(this.theta),
      b: encodeF64(this.b),
    };
    // Written only once the arm left the Float32 mirror, so ordinary snapshots are unchanged.
    if (!this.single) out.single = false;
    return out;
  }

  static fromJSON(json: Json, F: number, ridge: number, counter?: OpCounter): RidgeArm {
    const o = readObject(json, "ridge state");
    const n = readInt(o, "n");
    const version = readInt(o, "version");
    const packed = readF64(o.Ainv, "Ainv", (F * (F + 1)) / 2);
    const theta = readF64(o.theta, "theta", F);
    const b = readF64(o.b, "b", F);
    let k: number;
    // Both are bumped by every update and by nothing else.
    if (version !== n) snapshotInvalid('"version"', version, `an arm's version equals its update count n (${n})`);
    // Ainv starts at I / ridge and each update subtracts u u^T / denom (denom >= 1), whose diagonal is >= 0 also after
    // rounding (a product of u_i with itself times a negative scale): every diagonal entry stays <= 1 / ridge, bit for
    // bit. It stays > 0 too: it is at least 1 / (ridge + n max phi_i^2) (|phi_i| <= sqrt(2 / D)), and rounding could
    // cancel it only after ridge / 2^-52 updates of one direction (10^11 and more at the smallest ridge, 1e-4).
    checkDiagonal(
      packed,
      F,
      "Ainv",
      `an inverse Gram matrix has a diagonal in (0, 1 / ridge = ${1 / ridge}]`,
      {
        min: 0,
        openMin: true,
        max: 1 / ridge,
      },
      { packed: true },
    );
    // Off the diagonal, |Ainv_ij| <= sqrt(Ainv_ii Ainv_jj) <= 1 / ridge in exact arithmetic (a positive definite
    // matrix); each update moves Ainv_ij by u_i u_j / denom, at most the mean of what it takes off the two diagonal
    // entries, so rounding cannot carry an entry past 1 / ridge by more than a few ulps per update: the 1e-6 slack
    // covers 10^9 updates. (Not the product bound: an ill-conditioned inverse sits near it, where rounding can cross.)
    const offMax = (1 / ridge) * (1 + 1e-6);
    k = 0;
    for (let i = 0; i < F; i++) {
      for (let j = i; j < F; j++, k++) {
        const q = packed[k] as number;
        if (j > i && !(Math.abs(q) <= offMax)) {
          snapshotInvalid(
            `Ainv[${i}, ${j}]`,
            q,
            `an inverse Gram matrix has entries within +-1 / ridge = ${1 / ridge}`,
          );
        }
      }
    }
    if (o.single !== undefined && o.single !== false) {
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, "ridge state field single must be false when present");
    }
    const r = new RidgeArm(F, ridge, counter);
    if (o.single === false) r.dropMirror();
    r.theta.set(theta);
    r.b.set(b);
    k = 0;
    for (let i = 0; i < F; i++) {
      for (let j = 0; j < i; j++) r.Ainv[i * F + j] = 0;
      for (let j = i; j < F; j++) r.Ainv[i * F + j] = packed[k++] as number;
    }
    r.n = n;
    r.version = version;
    return r;
  }
}
