/**
 * The hypentropy regulariser of Ghai, Hazan & Singer (2020) and its spectral (matrix) lifting, as used
 * by HPG (Dai, Golrezaei & Jaillet, "Policy Regret for Embedding Model Routing", Eq. 13, Lemmas 9-10).
 * Natural logs throughout; beta > 0.
 *
 * Scalar: phi(x) = x asinh(x / beta) - sqrt(x^2 + beta^2); phi'(x) = asinh(x / beta) is the mirror map,
 * its inverse is beta sinh(y); phi''(x) = 1 / sqrt(x^2 + beta^2); the conjugate is phi*(y) = beta cosh(y).
 * Matrix: Phi(X) = sum_i phi(lambda_i(X)), grad Phi(X) = U asinh(Lambda / beta) U^T, and its inverse
 * U beta sinh(Gamma) U^T, for X = U Lambda U^T. The dense matrix functions here are O(d^3) references.
 */
import { symmetricEigen } from "@routekit/linalg";

/** phi_beta(x) = x asinh(x / beta) - sqrt(x^2 + beta^2). */
export function hypentropy(x: number, beta: number): number {
  return x * Math.asinh(x / beta) - Math.hypot(x, beta);
}

/** The mirror map phi_beta'(x) = asinh(x / beta). */
export function mirrorMap(x: number, beta: number): number {
  return Math.asinh(x / beta);
}

/** The inverse mirror map (phi_beta')^-1(y) = beta sinh(y). */
export function inverseMirrorMap(y: number, beta: number): number {
  return beta * Math.sinh(y);
}

/** phi_beta''(x) = 1 / sqrt(x^2 + beta^2). */
export function hypentropyCurvature(x: number, beta: number): number {
  return 1 / Math.hypot(x, beta);
}

/** The Fenchel conjugate phi_beta*(y) = beta cosh(y). */
export function hypentropyConjugate(y: number, beta: number): number {
  return beta * Math.cosh(y);
}

/** Bregman divergence D(x || y) = phi(x) - phi(y) - asinh(y / beta) (x - y), >= 0. */
export function hypentropyBregman(x: number, y: number, beta: number): number {
  return hypentropy(x, beta) - hypentropy(y, beta) - Math.asinh(y / beta) * (x - y);
}

/** Applies f to the spectrum of the symmetric d x d row-major X: U f(Lambda) U^T (dense, O(d^3)). */
export function spectralMap(X: Float64Array, d: number, f: (lambda: number) => number): Float64Array {
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
export function matrixHypentropy(X: Float64Array, d: number, beta: number): number {
  const { values } = symmetricEigen(X, d);
  let s = 0;
  for (let i = 0; i < d; i++) s += hypentropy(values[i] as number, beta);
  return s;
}

/** grad Phi_beta(X) = U asinh(Lambda / beta) U^T. */
export function matrixMirrorMap(X: Float64Array, d: number, beta: number): Float64Array {
  return spectralMap(X, d, (l) => Math.asinh(l / beta));
}

/** (grad Phi_beta)^-1(Y) = U beta sinh(Gamma) U^T. */
export function matrixInverseMirrorMap(Y: Float64Array, d: number, beta: number): Float64Array {
  return spectralMap(Y, d, (g) => beta * Math.sinh(g));
}

/** D_Phi(X || Y) = Phi(X) - Phi(Y) - <grad Phi(Y), X - Y>_F. */
export function matrixBregman(X: Float64Array, Y: Float64Array, d: number, beta: number): number {
  const G = matrixMirrorMap(Y, d, beta);
  let inner = 0;
  for (let i = 0; i < d * d; i++) inner += (G[i] as number) * ((X[i] as number) - (Y[i] as number));
  return matrixHypentropy(X, d, beta) - matrixHypentropy(Y, d, beta) - inner;
}

/** Nuclear norm sum_i |lambda_i| of symmetric X. */
export function nuclearNorm(X: Float64Array, d: number): number {
  const { values } = symmetricEigen(X, d);
  let s = 0;
  for (let i = 0; i < d; i++) s += Math.abs(values[i] as number);
  return s;
}
