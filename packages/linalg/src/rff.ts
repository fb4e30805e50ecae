import { gemv } from "./dispatch.js";

/**
 * Random Fourier features for the RBF kernel (Rahimi & Recht):
 * omega_j ~ N(0, sigma^-2 I_d), j = 1..D, drawn once.
 *
 * - `"paired"` (default, the paper's eq. 1): phi(y) = D^-1/2 [cos(W y); sin(W y)], 2D features,
 *   phi(y).phi(y) = 1 exactly.
 * - `"phase"` (the paper's footnote 2): phi(y) = sqrt(2/D) cos(W y + b), b_j ~ U[0, 2 pi), D features.
 *
 * Frequencies come from a caller-supplied standard-normal source so linalg stays free of RNG policy.
 */
export class RandomFourierFeatures {
  /** D x d frequency matrix, row-major. */
  readonly W: Float64Array;
  /** Phases (phase form only). */
  readonly phase: Float64Array;
  readonly dim: number;
  readonly numFeatures: number;
  private readonly proj: Float64Array;

  constructor(
    readonly inputDim: number,
    readonly frequencies: number,
    readonly sigma: number,
    normal: () => number,
    readonly form: "paired" | "phase" = "paired",
    uniform: () => number = Math.random,
  ) {
    this.W = new Float64Array(frequencies * inputDim);
    for (let i = 0; i < this.W.length; i++) this.W[i] = normal() / sigma;
    this.phase = new Float64Array(form === "phase" ? frequencies : 0);
    for (let j = 0; j < this.phase.length; j++) this.phase[j] = 2 * Math.PI * uniform();
    this.numFeatures = form === "paired" ? 2 * frequencies : frequencies;
    this.dim = this.numFeatures;
    this.proj = new Float64Array(frequencies);
  }

  /** Writes phi(y) into out (numFeatures values). No allocation. */
  map(y: Float64Array, out: Float64Array): Float64Array {
    const D = this.frequencies;
    gemv(this.W, D, this.inputDim, y, this.proj);
    if (this.form === "paired") {
      const s = 1 / Math.sqrt(D);
      for (let j = 0; j < D; j++) {
        const p = this.proj[j] as number;
        out[j] = s * Math.cos(p);
        out[D + j] = s * Math.sin(p);
      }
    } else {
      const s = Math.sqrt(2 / D);
      for (let j = 0; j < D; j++) out[j] = s * Math.cos((this.proj[j] as number) + (this.phase[j] as number));
    }
    return out;
  }
}
