/**
 * Dense reference of one model's HPG step (paper Eq. 14 in the two-step form of Eq. 30), used by the
 * tests to check {@link MirrorIterate}: keep the mirror matrix Y dense, add rho q q^T, take a full
 * symmetric eigendecomposition (ml-matrix through @routekit/linalg), soft-threshold the spectrum by the
 * hypentropy threshold, rebuild. O(d^3) per step: for small d only.
 */
import { optionKeys, rejectUnknownOptions, type VectorInput } from "@routekit/core";
import { symmetricEigen } from "@routekit/linalg";
import {
  checkStep,
  MAX_STEP_WEIGHT,
  readIterateOptions,
  readQuery,
  type StepInput,
  scaledScore,
} from "./iterate-options.js";
import { betaSinh, hypentropyProjectUnchecked } from "./threshold-core.js";

/** Options of {@link DenseMirrorIterate}. */
export interface DenseMirrorIterateOptions {
  dim: number;
  beta: number;
  radius: number;
  maxRank?: number;
}

/** The option keys of {@link DenseMirrorIterateOptions}. */
export const DENSE_MIRROR_ITERATE_OPTION_KEYS = optionKeys<DenseMirrorIterateOptions>()([
  "dim",
  "beta",
  "radius",
  "maxRank",
]);

export class DenseMirrorIterate {
  readonly dim: number;
  readonly beta: number;
  readonly radius: number;
  readonly maxRank: number;
  /** Mirror matrix Y (dim x dim, row-major). */
  readonly Y: Float64Array;
  /** Primal iterate W = beta sinh(Y) (spectral). */
  readonly W: Float64Array;
  lastThreshold = 0;
  private readonly scratch: Float64Array;
  /** The checked copy of a query that is not a Float64Array (or whose squared norm overflows: scaled). */
  private readonly query: Float64Array;
  private readonly stepInput: StepInput = { q: new Float64Array(0), rho: 0 };

  constructor(options: DenseMirrorIterateOptions) {
    rejectUnknownOptions(options, DENSE_MIRROR_ITERATE_OPTION_KEYS, "DenseMirrorIterate");
    const o = readIterateOptions(options, "DenseMirrorIterate");
    this.dim = o.dim;
    this.beta = o.beta;
    this.radius = o.radius;
    this.maxRank = Math.min(o.maxRank, o.dim);
    this.Y = new Float64Array(this.dim * this.dim);
    this.W = new Float64Array(this.dim * this.dim);
    this.scratch = new Float64Array(this.dim);
    this.query = new Float64Array(this.dim);
  }

  /**
   * q^T W q; q is checked and a huge q scaled as by `MirrorIterate.score` (INVALID_ARGUMENT, DIMENSION_MISMATCH,
   * NON_FINITE; NUMERICAL when the value exceeds the largest double).
   */
  score(query: VectorInput): number {
    const q = readQuery(query, this.dim, this.query);
    const v = this.quad(q);
    if (Number.isFinite(v)) return v;
    return scaledScore(q, this.dim, this.query, (u) => this.quad(u));
  }

  private quad(q: Float64Array): number {
    const d = this.dim;
    let s = 0;
    for (let a = 0; a < d; a++) {
      let r = 0;
      for (let b = 0; b < d; b++) r += (this.W[a * d + b] as number) * (q[b] as number);
      s += (q[a] as number) * r;
    }
    return s;
  }

  /**
   * One step Y <- Y + rho q q^T, then the projection (and the rank cap); q and rho are checked as by
   * `MirrorIterate.step`, and a q whose squared norm overflows is scaled the same way (the step saturates the ball).
   */
  step(query: VectorInput, rho: number): void {
    const { q, rho: r0 } = checkStep(query, this.dim, rho, this.query, this.stepInput);
    const d = this.dim;
    // The dense eigensolver overflows on entries near the largest double (it threw a TypeError): a weight
    // rho |q|^2 above MAX_STEP_WEIGHT, which saturates the ball anyway, is capped there.
    let q2 = 0;
    for (let a = 0; a < d; a++) q2 += (q[a] as number) * (q[a] as number);
    const r = Math.abs(r0) * q2 > MAX_STEP_WEIGHT ? (r0 > 0 ? MAX_STEP_WEIGHT : -MAX_STEP_WEIGHT) / q2 : r0;
    for (let a = 0; a < d; a++)
      for (let b = 0; b < d; b++)
        this.Y[a * d + b] = (this.Y[a * d + b] as number) + r * (q[a] as number) * (q[b] as number);
    const { values, vectors } = symmetricEigen(this.Y, d);
    const gamma = Float64Array.from(values);
    this.lastThreshold = hypentropyProjectUnchecked(gamma, d, this.beta, this.radius, this.scratch);
    if (this.maxRank < d) {
      const order = Array.from({ length: d }, (_, i) => i).sort(
        (x, y) => Math.abs(gamma[y] as number) - Math.abs(gamma[x] as number),
      );
      for (let r = this.maxRank; r < d; r++) gamma[order[r] as number] = 0;
    }
    this.Y.fill(0);
    this.W.fill(0);
    for (let k = 0; k < d; k++) {
      const g = gamma[k] as number;
      if (g === 0) continue;
      const l = betaSinh(this.beta, g);
      for (let a = 0; a < d; a++) {
        const va = vectors[a * d + k] as number;
        for (let b = 0; b < d; b++) {
          const vv = va * (vectors[b * d + k] as number);
          this.Y[a * d + b] = (this.Y[a * d + b] as number) + g * vv;
          this.W[a * d + b] = (this.W[a * d + b] as number) + l * vv;
        }
      }
    }
  }
}
