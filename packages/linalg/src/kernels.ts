import { dot } from "./dispatch.js";

/**
 * A positive-definite kernel on R^d. `eval` reads x[xo..xo+d) and y[yo..yo+d) so callers can
 * evaluate against rows of a history matrix without slicing.
 */
export interface Kernel {
  readonly name: string;
  eval(x: Float64Array, y: Float64Array, d: number, xo?: number, yo?: number): number;
  /** k(x, x). */
  diag(x: Float64Array, d: number, xo?: number): number;
}

/** Squared Euclidean distance between x[xo..] and y[yo..]. */
export function sqDist(x: Float64Array, y: Float64Array, d: number, xo = 0, yo = 0): number {
  let s = 0;
  for (let i = 0; i < d; i++) {
    const t = (x[xo + i] as number) - (y[yo + i] as number);
    s += t * t;
  }
  return s;
}

/** RBF kernel exp(-||x - y||^2 / (2 sigma^2)); k(x,x) = 1. */
export function rbfKernel(sigma: number): Kernel {
  const c = -1 / (2 * sigma * sigma);
  return {
    name: `rbf(sigma=${sigma})`,
    eval: (x, y, d, xo = 0, yo = 0) => Math.exp(c * sqDist(x, y, d, xo, yo)),
    diag: () => 1,
  };
}

/** Polynomial kernel (gamma x.y + c)^degree; the paper's poly3 is degree 3, c = 1. */
export function polynomialKernel(gamma: number, c = 1, degree = 3): Kernel {
  return {
    name: `poly(gamma=${gamma},c=${c},degree=${degree})`,
    eval: (x, y, d, xo = 0, yo = 0) => (gamma * dot(x, y, d, xo, yo) + c) ** degree,
    diag: (x, d, xo = 0) => (gamma * dot(x, x, d, xo, xo) + c) ** degree,
  };
}

/** Linear kernel x.y. */
export function linearKernel(): Kernel {
  return {
    name: "linear",
    eval: (x, y, d, xo = 0, yo = 0) => dot(x, y, d, xo, yo),
    diag: (x, d, xo = 0) => dot(x, x, d, xo, xo),
  };
}
