import { encodeF64, type Json, readF64, readInt, readObject } from "@routekit/core";
import {
  allocF64,
  axpy,
  dot,
  quadFormUpper,
  setScaledIdentity,
  shermanMorrisonWithU,
  symvUpper,
} from "@routekit/linalg";
import type { OpCounter } from "./krr.js";

/**
 * Ridge regression in a fixed F-dimensional feature space (one arm of RFF-UCB):
 * Ainv = (Phi^T Phi + ridge I)^-1 in the upper triangle, theta = Ainv b kept by
 * theta += u (s - phi.theta) / (1 + phi.u) with u = Ainv phi (the same u as Sherman-Morrison's),
 * b = sum s phi (kept for checks; never double-counts the first reward, unlike the reference code).
 * Constant time per round: O(F^2) per query and per update.
 */
export class RidgeArm {
  n = 0;
  /** Bumped on every update; a decision's cached u is valid only for the version it was made at. */
  version = 0;
  readonly Ainv: Float64Array;
  readonly theta: Float64Array;
  readonly b: Float64Array;

  constructor(
    readonly F: number,
    readonly ridge: number,
    readonly counter?: OpCounter,
  ) {
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

  /** u = Ainv phi. */
  solve(phi: Float64Array, u: Float64Array): void {
    if (this.counter) this.counter.ops += this.F * this.F;
    symvUpper(this.Ainv, this.F, phi, u);
  }

  /** Adds (phi, s) given u = Ainv phi for the current state. */
  update(phi: Float64Array, s: number, u: Float64Array): void {
    const F = this.F;
    const err = s - dot(phi, this.theta, F);
    const denom = shermanMorrisonWithU(this.Ainv, F, phi, u);
    axpy(err / denom, u, this.theta, F);
    axpy(s, phi, this.b, F);
    if (this.counter) this.counter.ops += (F * (F + 1)) / 2 + 4 * F;
    this.n++;
    this.version++;
  }

  toJSON(): Json {
    const F = this.F;
    const packed = new Float64Array((F * (F + 1)) / 2);
    let k = 0;
    for (let i = 0; i < F; i++) for (let j = i; j < F; j++) packed[k++] = this.Ainv[i * F + j] as number;
    return {
      n: this.n,
      version: this.version,
      Ainv: encodeF64(packed),
      theta: encodeF64(this.theta),
      b: encodeF64(this.b),
    };
  }

  static fromJSON(json: Json, F: number, ridge: number, counter?: OpCounter): RidgeArm {
    const o = readObject(json, "ridge state");
    const n = readInt(o, "n");
    const version = readInt(o, "version");
    const packed = readF64(o.Ainv, "Ainv", (F * (F + 1)) / 2);
    const theta = readF64(o.theta, "theta", F);
    const b = readF64(o.b, "b", F);
    const r = new RidgeArm(F, ridge, counter);
    r.theta.set(theta);
    r.b.set(b);
    let k = 0;
    for (let i = 0; i < F; i++) {
      for (let j = 0; j < i; j++) r.Ainv[i * F + j] = 0;
      for (let j = i; j < F; j++) r.Ainv[i * F + j] = packed[k++] as number;
    }
    r.n = n;
    r.version = version;
    return r;
  }
}
