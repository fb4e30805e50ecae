/**
 * The hypentropy regulariser of Ghai, Hazan & Singer (2020) and its spectral (matrix) lifting, as used
 * by HPG (Dai, Golrezaei & Jaillet, "Policy Regret for Embedding Model Routing", Eq. 13, Lemmas 9-10).
 * Natural logs throughout; beta > 0.
 *
 * Scalar: phi(x) = x asinh(x / beta) - sqrt(x^2 + beta^2); phi'(x) = asinh(x / beta) is the mirror map,
 * its inverse is beta sinh(y); phi''(x) = 1 / sqrt(x^2 + beta^2); the conjugate is phi*(y) = beta cosh(y).
 * Matrix: Phi(X) = sum_i phi(lambda_i(X)), grad Phi(X) = U asinh(Lambda / beta) U^T, and its inverse
 * U beta sinh(Gamma) U^T, for X = U Lambda U^T. The dense matrix functions here are O(d^3) references.
 *
 * Every function checks its input first (core's rule): scalars finite numbers (NON_FINITE, INVALID_ARGUMENT),
 * beta a finite number > 0 (OUT_OF_RANGE), d an integer in [1, 65536], a matrix d x d finite numbers, row-major, as
 * a Float64Array, Float32Array or number[] (INVALID_ARGUMENT, DIMENSION_MISMATCH, NON_FINITE; only its upper
 * triangle is read: it is taken as symmetric). A result that overflows a double for valid arguments (sinh or cosh
 * of a mirror value above about 710, a Bregman divergence of values near the largest double) throws NUMERICAL
 * instead of returning +-Infinity or NaN. None of these runs in the routers' rounds.
 */
import { describe, ErrorCode, RouteKitError, type VectorInput } from "@routekit/core";
import { symmetricEigen } from "@routekit/linalg";
import { checkBeta, checkScalar, checkSide, finiteMatrix, finiteResult, readMatrix } from "./toolkit-checks.js";

/** phi_beta(x) = x asinh(x / beta) - sqrt(x^2 + beta^2). */
export function hypentropy(x: number, beta: number): number {
  const v = checkScalar(x, "x");
  const b = checkBeta(beta);
  return finiteResult(phi(v, b), "hypentropy(x, beta)");
}

function phi(x: number, beta: number): number {
  return x * Math.asinh(x / beta) - Math.hypot(x, beta);
}

/** The mirror map phi_beta'(x) = asinh(x / beta). */
export function mirrorMap(x: number, beta: number): number {
  const v = checkScalar(x, "x");
  const b = checkBeta(beta);
  return finiteResult(Math.asinh(v / b), "mirrorMap(x, beta)");
}

/** The inverse mirror map (phi_beta')^-1(y) = beta sinh(y). */
export function inverseMirrorMap(y: number, beta: number): number {
  const v = checkScalar(y, "y");
  const b = checkBeta(beta);
  return finiteResult(b * Math.sinh(v), "inverseMirrorMap(y, beta)");
}

/** phi_beta''(x) = 1 / sqrt(x^2 + beta^2). */
export function hypentropyCurvature(x: number, beta: number): number {
  const v = checkScalar(x, "x");
  const b = checkBeta(beta);
  return finiteResult(1 / Math.hypot(v, b), "hypentropyCurvature(x, beta)");
}

/** The Fenchel conjugate phi_beta*(y) = beta cosh(y). */
export function hypentropyConjugate(y: number, beta: number): number {
  const v = checkScalar(y, "y");
  const b = checkBeta(beta);
  return finiteResult(b * Math.cosh(v), "hypentropyConjugate(y, beta)");
}

/** Bregman divergence D(x || y) = phi(x) - phi(y) - asinh(y / beta) (x - y), >= 0. */
export function hypentropyBregman(x: number, y: number, beta: number): number {
  const u = checkScalar(x, "x");
  const v = checkScalar(y, "y");
  const b = checkBeta(beta);
  return finiteResult(phi(u, b) - phi(v, b) - Math.asinh(v / b) * (u - v), "hypentropyBregman(x, y, beta)");
}

/**
 * Applies f to the spectrum of the symmetric d x d row-major X: U f(Lambda) U^T (dense, O(d^3)). f must return a
 * finite number for every eigenvalue (NON_FINITE or INVALID_ARGUMENT otherwise).
 */
export function spectralMap(X: VectorInput, d: number, f: (lambda: number) => number): Float64Array {
  const n = checkSide(d);
  const A = readMatrix(X, n, "X");
  if (typeof f !== "function")
    throw new RouteKitError(ErrorCode.InvalidArgument, `f must be a function of one eigenvalue, got ${describe(f)}`);
  return finiteMatrix(
    spectral(A, n, (l) => checkScalar(f(l), "f(lambda)")),
    "spectralMap(X, d, f)",
  );
}

function spectral(X: Float64Array, d: number, f: (lambda: number) => number): Float64Array {
  const { values, vectors } = symmetricEigen(X, d);
  const out = new Float64Array(d * d);
  for (let k = 0; k < d; k++) {
    const fk = f(values[k] as number);
    if (fk === 0) continue;
    for (let i = 0; i < d; i++) {
      const a = fk * (vectors[i * d + k] as number);
      for (let j = 0; j < d; j++) out[i * d + j] = (out[i * d + j] as number) + a * (vectors[j * d + k] as number);
    }
  }
  return out;
}

/** Phi_beta(X) = sum_i phi_beta(lambda_i(X)) for symmetric X. */
export function matrixHypentropy(X: VectorInput, d: number, beta: number): number {
  const n = checkSide(d);
  const A = readMatrix(X, n, "X");
  return finiteResult(traceHypentropy(A, n, checkBeta(beta)), "matrixHypentropy(X, d, beta)");
}

function traceHypentropy(X: Float64Array, d: number, beta: number): number {
  const { values } = symmetricEigen(X, d);
  let s = 0;
  for (let i = 0; i < d; i++) s += phi(values[i] as number, beta);
  return s;
}

/** grad Phi_beta(X) = U asinh(Lambda / beta) U^T. */
export function matrixMirrorMap(X: VectorInput, d: number, beta: number): Float64Array {
  const n = checkSide(d);
  const A = readMatrix(X, n, "X");
  const b = checkBeta(beta);
  return finiteMatrix(
    spectral(A, n, (l) => Math.asinh(l / b)),
    "matrixMirrorMap(X, d, beta)",
  );
}

/** (grad Phi_beta)^-1(Y) = U beta sinh(Gamma) U^T. */
export function matrixInverseMirrorMap(Y: VectorInput, d: number, beta: number): Float64Array {
  const n = checkSide(d);
  const A = readMatrix(Y, n, "Y");
  const b = checkBeta(beta);
  return finiteMatrix(
    spectral(A, n, (g) => b * Math.sinh(g)),
    "matrixInverseMirrorMap(Y, d, beta)",
  );
}

/** D_Phi(X || Y) = Phi(X) - Phi(Y) - <grad Phi(Y), X - Y>_F. */
export function matrixBregman(X: VectorInput, Y: VectorInput, d: number, beta: number): number {
  const n = checkSide(d);
  const A = readMatrix(X, n, "X");
  const B = readMatrix(Y, n, "Y");
  const b = checkBeta(beta);
  const G = spectral(B, n, (l) => Math.asinh(l / b));
  let inner = 0;
  for (let i = 0; i < n * n; i++) inner += (G[i] as number) * ((A[i] as number) - (B[i] as number));
  return finiteResult(traceHypentropy(A, n, b) - traceHypentropy(B, n, b) - inner, "matrixBregman(X, Y, d, beta)");
}

/** Nuclear norm sum_i |lambda_i| of symmetric X. */
export function nuclearNorm(X: VectorInput, d: number): number {
  const n = checkSide(d);
  return finiteResult(nuclear(readMatrix(X, n, "X"), n), "nuclearNorm(X, d)");
}

function nuclear(X: Float64Array, d: number): number {
  const { values } = symmetricEigen(X, d);
  let s = 0;
  for (let i = 0; i < d; i++) s += Math.abs(values[i] as number);
  return s;
}
