import { allocF64, gemv } from "./dispatch.js";

/**
 * Random Fourier features for the RBF kernel (Rahimi & Recht):
 * omega_j ~ N(0, sigma^-2 I_d), j = 1..D, drawn once.
 *
 * - `"paired"` (default, the paper's eq. 1): phi(y) = D^-1/2 [cos(W y); sin(W y)], 2D features,
 *   phi(y).phi(y) = 1 exactly.
 * - `"phase"` (the paper's footnote 2): phi(y) = sqrt(2/D) cos(W y + b), b_j ~ U[0, 2 pi), D features.
 *
 * Frequencies come from a caller-supplied standard-normal source so linalg stays free of RNG policy.
 * Phases come from `uniform` (values in [0, 1)) when given, otherwise from the same normal source as
 * b = pi + atan2(z1, z2), which is exactly uniform on (0, 2 pi] for independent standard normals z1, z2: the
 * features are a deterministic function of the normal stream (no Math.random).
 * W and the projection scratch are placed by `allocF64`, so `map` runs the SIMD gemv when `y` is too.
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
    uniform?: () => number,
  ) {
    this.W = allocF64(frequencies * inputDim);
    for (let i = 0; i < this.W.length; i++) this.W[i] = normal() / sigma;
    this.phase = new Float64Array(form === "phase" ? frequencies : 0);
    for (let j = 0; j < this.phase.length; j++) {
      this.phase[j] = uniform !== undefined ? 2 * Math.PI * uniform() : Math.PI + Math.atan2(normal(), normal());
    }
    this.numFeatures = form === "paired" ? 2 * frequencies : frequencies;
    this.dim = this.numFeatures;
    this.proj = allocF64(frequencies);
  }

  /** An independent copy: the same frequencies and phases in buffers of its own. */
  copy(): RandomFourierFeatures {
    const c = new RandomFourierFeatures(
      this.inputDim,
      this.frequencies,
      this.sigma,
      () => 0,
      this.form,
      () => 0,
    );
    c.W.set(this.W);
    c.phase.set(this.phase);
    return c;
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
