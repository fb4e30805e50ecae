import { assertInRange, assertInt, ErrorCode, RouteKitError } from "@routekit/core";
import { type Kernel, linearKernel, polynomialKernel, rbfKernel } from "@routekit/linalg";

/**
 * A kernel given by name and parameters (JSON-safe, so it goes into snapshots and CLI params).
 * - rbf: exp(-||y - y'||^2 / (2 sigma^2)), the paper's "RBF" (its text calls sigma "gamma").
 * - poly: (gamma y.y' + c)^degree; the paper's poly3 is degree 3, c = 1, gamma in {5, 10}.
 * - linear: y.y' (PAK-UCB-lin = disjoint LinUCB).
 */
export type KernelSpec =
  | { readonly type: "rbf"; readonly sigma: number }
  | { readonly type: "poly"; readonly gamma: number; readonly c?: number; readonly degree?: number }
  | { readonly type: "linear" };

export function checkKernel(k: KernelSpec): void {
  if (k === null || typeof k !== "object") {
    throw new RouteKitError(ErrorCode.InvalidArgument, "kernel must be an object like { type: 'rbf', sigma: 1 }");
  }
  // Bounded so that kernel values on unit (or norm^2 <= 1e12) contexts cannot overflow.
  if (k.type === "rbf") assertInRange(k.sigma, "kernel.sigma", 1e-6, 1e6);
  else if (k.type === "poly") {
    assertInRange(k.gamma, "kernel.gamma", 0, 1e4, { min: true });
    assertInRange(k.c ?? 1, "kernel.c", 0, 1e4);
    assertInt(k.degree ?? 3, "kernel.degree", 1, 8);
  } else if (k.type !== "linear") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `kernel.type must be "rbf", "poly" or "linear", got ${String((k as { type: unknown }).type)}`,
    );
  }
}

/** The matching @routekit/linalg kernel (for single evaluations and cross-checks). */
export function toLinalgKernel(k: KernelSpec): Kernel {
  if (k.type === "rbf") return rbfKernel(k.sigma);
  if (k.type === "poly") return polynomialKernel(k.gamma, k.c ?? 1, k.degree ?? 3);
  return linearKernel();
}

/**
 * A dot-product form of the kernel: k(x, y) as a function of x.y, ||x||^2 and ||y||^2, so a whole
 * kernel row against a history matrix is one matrix-vector product (the SIMD gemv) plus a scalar
 * map, instead of n separate distance loops.
 */
export class DotKernel {
  private readonly kind: 0 | 1 | 2;
  private readonly rbfC: number;
  private readonly gamma: number;
  private readonly c: number;
  private readonly degree: number;

  constructor(readonly spec: KernelSpec) {
    checkKernel(spec);
    this.kind = spec.type === "rbf" ? 0 : spec.type === "poly" ? 1 : 2;
    this.rbfC = spec.type === "rbf" ? -1 / (2 * spec.sigma * spec.sigma) : 0;
    this.gamma = spec.type === "poly" ? spec.gamma : 1;
    this.c = spec.type === "poly" ? (spec.c ?? 1) : 0;
    this.degree = spec.type === "poly" ? (spec.degree ?? 3) : 1;
  }

  /** k(x, y) from x.y and the squared norms. */
  fromDot(dot: number, nx: number, ny: number): number {
    if (this.kind === 0) {
      const d2 = nx + ny - 2 * dot;
      return Math.exp(this.rbfC * (d2 > 0 ? d2 : 0));
    }
    if (this.kind === 1) return powInt(this.gamma * dot + this.c, this.degree);
    return dot;
  }

  /** k(y, y) from ||y||^2. */
  diag(n2: number): number {
    if (this.kind === 0) return 1;
    if (this.kind === 1) return powInt(this.gamma * n2 + this.c, this.degree);
    return n2;
  }

  /** Maps a row of dot products in place: out[i] = k(x_i, y) with x_i.y = out[i] + extra(i). */
  mapRow(out: Float64Array, n: number, norms: Float64Array, ny: number): void {
    if (this.kind === 0) {
      const c = this.rbfC;
      for (let i = 0; i < n; i++) {
        const d2 = (norms[i] as number) + ny - 2 * (out[i] as number);
        out[i] = Math.exp(c * (d2 > 0 ? d2 : 0));
      }
    } else if (this.kind === 1) {
      const g = this.gamma;
      const c = this.c;
      const p = this.degree;
      for (let i = 0; i < n; i++) out[i] = powInt(g * (out[i] as number) + c, p);
    }
  }
}

function powInt(x: number, p: number): number {
  if (p === 3) return x * x * x;
  if (p === 1) return x;
  if (p === 2) return x * x;
  return x ** p;
}
