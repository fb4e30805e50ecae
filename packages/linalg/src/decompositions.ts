/**
 * Dense decompositions, wrapped from ml-matrix (Householder tridiagonalisation + implicit QL for the
 * symmetric eigenproblem, Golub-Kahan for the SVD): O(n^3), allocating, meant for set-up, tests and
 * periodic refreshes (e.g. a nuclear-norm projection every round at d <= ~100), not for inner loops.
 */
import { EigenvalueDecomposition, Matrix, SingularValueDecomposition } from "ml-matrix";

export interface SymmetricEigen {
  /** Eigenvalues, sorted descending. */
  readonly values: Float64Array;
  /**
   * n x n row-major; column k (entries vectors[i * n + k]) is the unit eigenvector of values[k], so
   * A = V diag(values) V^T. Each vector's largest-magnitude entry is made positive (a canonical sign).
   */
  readonly vectors: Float64Array;
}

/** Eigendecomposition of symmetric n x n A, reading its upper triangle (row stride ld). */
export function symmetricEigen(A: Float64Array, n: number, ld = n): SymmetricEigen {
  const M = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      const v = A[i * ld + j] as number;
      M.set(i, j, v);
      M.set(j, i, v);
    }
  }
  const e = new EigenvalueDecomposition(M, { assumeSymmetric: true });
  const raw = e.realEigenvalues;
  const V = e.eigenvectorMatrix;
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => (raw[b] as number) - (raw[a] as number));
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  for (let k = 0; k < n; k++) {
    const src = order[k] as number;
    values[k] = raw[src] as number;
    let big = 0;
    for (let i = 0; i < n; i++) {
      const v = V.get(i, src);
      if (Math.abs(v) > Math.abs(big)) big = v;
    }
    const sign = big < 0 ? -1 : 1;
    for (let i = 0; i < n; i++) vectors[i * n + k] = sign * V.get(i, src);
  }
  return { values, vectors };
}

export interface ThinSvd {
  /** min(rows, cols) singular values, sorted descending. */
  readonly values: Float64Array;
  /** rows x k row-major left singular vectors (columns), k = min(rows, cols). */
  readonly U: Float64Array;
  /** cols x k row-major right singular vectors (columns): A = U diag(values) V^T. */
  readonly V: Float64Array;
  readonly k: number;
}

/** Thin SVD of a rows x cols row-major A (row stride ld). */
export function svd(A: Float64Array, rows: number, cols: number, ld = cols): ThinSvd {
  const M = new Matrix(rows, cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) M.set(i, j, A[i * ld + j] as number);
  const d = new SingularValueDecomposition(M, { autoTranspose: true });
  const k = Math.min(rows, cols);
  const s = d.diagonal;
  const Um = d.leftSingularVectors;
  const Vm = d.rightSingularVectors;
  const order = Array.from({ length: k }, (_, i) => i).sort((a, b) => (s[b] as number) - (s[a] as number));
  const values = new Float64Array(k);
  const U = new Float64Array(rows * k);
  const V = new Float64Array(cols * k);
  for (let c = 0; c < k; c++) {
    const src = order[c] as number;
    values[c] = s[src] as number;
    for (let i = 0; i < rows; i++) U[i * k + c] = Um.get(i, src);
    for (let j = 0; j < cols; j++) V[j * k + c] = Vm.get(j, src);
  }
  return { values, U, V, k };
}
