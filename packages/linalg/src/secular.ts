/**
 * Eigendecomposition of a diagonal-plus-rank-one symmetric matrix K = diag(delta) + rho v v^T by the
 * secular equation (Bunch, Nielsen & Sorensen 1978), with deflation of negligible v_i and of (nearly)
 * equal delta_i by Givens rotations, roots by a bracketed two-pole rational iteration in shifted coordinates (each root is measured
 * from its nearer pole, as in LAPACK dlaed4), and eigenvectors from Gu & Eisenstat's (1994) recomputed
 * v-hat so they come out orthogonal to working precision. O(n^2) (plus O(n^2) to assemble Q).
 *
 * Cost: each root takes a few evaluations of the secular function (m divisions each, m the undeflated
 * count); the evaluation that decides which pole a root is measured from is the first step's, and the
 * reciprocals 1 / (d_u - lambda_j) of the accepted evaluation are kept, so the eigenvectors need no
 * further division and v-hat only m (m - 1) / 2 (one per pair of poles).
 */

export interface SecularWorkspace {
  readonly capacity: number;
  order: Int32Array;
  d: Float64Array;
  z: Float64Array;
  origin: Float64Array;
  tau: Float64Array;
  zhat: Float64Array;
  keep: Int32Array;
  kept: Uint8Array;
  /** Column of the (rotated, sorted) identity each basis index maps to: n x n scratch. */
  basis: Float64Array;
  /** The kept poles d and weights rho z^2, contiguous for the root loops. */
  dk: Float64Array;
  wz: Float64Array;
  /** The kept poles shifted by the origin of the root being solved. */
  shifted: Float64Array;
  /** m x m: recip[j m + u] = 1 / (d_u - lambda_j) at the accepted root lambda_j (shifted coordinates). */
  recip: Float64Array;
  /** Row offset in Q of each kept index (unrotated case). */
  pos: Int32Array;
  /** Secular-function evaluations made by the last call (a diagnostic: a few per root). */
  iterations: number;
}

export function secularWorkspace(capacity: number): SecularWorkspace {
  return {
    capacity,
    order: new Int32Array(capacity),
    d: new Float64Array(capacity),
    z: new Float64Array(capacity),
    origin: new Float64Array(capacity),
    tau: new Float64Array(capacity),
    zhat: new Float64Array(capacity),
    keep: new Int32Array(capacity),
    kept: new Uint8Array(capacity),
    basis: new Float64Array(capacity * capacity),
    dk: new Float64Array(capacity),
    wz: new Float64Array(capacity),
    shifted: new Float64Array(capacity),
    recip: new Float64Array(capacity * capacity),
    pos: new Int32Array(capacity),
    iterations: 0,
  };
}

const EPS = 2.220446049250313e-16;

/**
 * In and out of {@link initialGuess} and {@link inverseNorm}: numbers passed through a typed array are not
 * boxed on the way (a call that is not inlined would allocate a heap number per argument and result).
 */
const IO = new Float64Array(2);

/** Layout of the eigenvectors written by {@link diagonalPlusRankOneEigen}. */
export type EigenvectorLayout = "columns" | "rows";

/**
 * Eigenpairs of diag(delta[0..n)) + rho v v^T: `values` receives the eigenvalues and `Q` (n x n,
 * row-major) the eigenvectors, as columns (Q[i * n + j] = entry i of eigenvector j) or, with
 * `layout` "rows", as rows (Q[j * n + i] = entry i of eigenvector j). Allocation-free (`ws` holds the
 * scratch; its capacity must be at least n).
 */
export function diagonalPlusRankOneEigen(
  delta: ArrayLike<number>,
  v: ArrayLike<number>,
  rho: number,
  n: number,
  Q: Float64Array,
  values: Float64Array,
  ws: SecularWorkspace,
  layout: EigenvectorLayout = "columns",
): void {
  ws.iterations = 0;
  const sign = rho < 0 ? -1 : 1;
  const { order, d, z, basis } = ws;
  // Row stride and column stride of eigenvector entries in Q: entry i of vector j is Q[i * rs + j * cs].
  const rs = layout === "rows" ? 1 : n;
  const cs = layout === "rows" ? n : 1;
  sortIndices(delta, sign, n, order);
  let dmax = 0;
  let zz = 0;
  for (let i = 0; i < n; i++) {
    const o = order[i] as number;
    const di = sign * (delta[o] as number);
    const zi = v[o] as number;
    d[i] = di;
    z[i] = zi;
    dmax = Math.max(dmax, Math.abs(di));
    zz += zi * zi;
  }
  const r0 = Math.abs(rho);
  // Work in units of 2^e ~ max(|delta|, |rho| |v|^2): multiplying by a power of two is exact, so every
  // comparison and root below is what it would be unscaled, but reciprocals of tiny gaps cannot overflow.
  const big = Math.max(dmax, r0 * zz, Number.MIN_VALUE);
  const e = Number.isFinite(big) ? Math.max(-1022, Math.min(1023, Math.floor(Math.log2(big)))) : 0;
  const down = 2 ** -e;
  const up = 2 ** e;
  for (let i = 0; i < n; i++) d[i] = (d[i] as number) * down;
  const r = r0 * down;
  const tol = 8 * EPS * Math.max(dmax * down, r * zz, Number.MIN_VALUE);
  const zn = Math.sqrt(zz);
  // Deflation. While no Givens rotation has been applied, the basis is the permutation of `order` and
  // is never written: the eigenvectors are assembled in O(m) per vector instead of O(n m).
  const keep = ws.keep;
  let m = 0;
  let last = -1;
  let rotated = false;
  for (let i = 0; i < n; i++) {
    if (r * Math.abs(z[i] as number) * zn <= tol) {
      z[i] = 0;
      continue;
    }
    if (last >= 0 && (d[i] as number) - (d[last] as number) <= tol) {
      if (!rotated) {
        // basis: columns are the current (rotated) coordinate vectors, in original indices.
        basis.fill(0, 0, n * n);
        for (let k = 0; k < n; k++) basis[(order[k] as number) * n + k] = 1;
        rotated = true;
      }
      // Rotate z_last into z_i: G = [[c, -s], [s, c]] on columns (last, i).
      const a = z[last] as number;
      const b = z[i] as number;
      const h = Math.hypot(a, b);
      const c = b / h;
      const s = a / h;
      for (let row = 0; row < n; row++) {
        const bl = basis[row * n + last] as number;
        const bi = basis[row * n + i] as number;
        basis[row * n + last] = c * bl - s * bi;
        basis[row * n + i] = s * bl + c * bi;
      }
      z[last] = 0;
      z[i] = h;
      m--; // `last` leaves the non-deflated set
    }
    keep[m++] = i;
    last = i;
  }
  // Deflated pairs: eigenvalue d_i, eigenvector basis column i.
  Q.fill(0, 0, n * n);
  let col = 0;
  const kept = ws.kept;
  kept.fill(0, 0, n);
  for (let t = 0; t < m; t++) kept[keep[t] as number] = 1;
  for (let i = 0; i < n; i++) {
    if (kept[i]) continue;
    values[col] = sign * ((d[i] as number) * up);
    if (rotated) for (let row = 0; row < n; row++) Q[row * rs + col * cs] = basis[row * n + i] as number;
    else Q[(order[i] as number) * rs + col * cs] = 1;
    col++;
  }
  if (m === 0) return;
  const { origin, tau, zhat, dk, wz, shifted: sh, recip: R } = ws;
  for (let u = 0; u < m; u++) {
    const i = keep[u] as number;
    const zi = z[i] as number;
    dk[u] = d[i] as number;
    wz[u] = r * zi * zi;
  }
  let evaluations = 0;
  for (let j = 0; j < m; j++) {
    const dj = dk[j] as number;
    const inner = j < m - 1;
    const row = j * m;
    // First point: the midpoint of (d_j, d_j+1), measured from d_j; past the last pole, d_j + rho |z|^2
    // (an upper bound of the root). Its sign decides the origin (the nearer pole) and the bracket, and
    // its terms give the initial guess. Then safeguarded steps, each from one evaluation of f at t.
    let o = dj;
    let t = inner ? 0.5 * ((dk[j + 1] as number) - dj) : r * zz;
    for (let u = 0; u < m; u++) sh[u] = (dk[u] as number) - o;
    let lo = 0;
    let hi = t;
    let first = true;
    for (let it = 0; it < 200; it++) {
      // f(t) = 1 + sum_u wz_u / (sh_u - t), its slopes split at the poles up to j and above j, and the
      // reciprocals 1 / (sh_u - t) kept in R's row j. (One evaluation site, written out: a helper
      // returning three numbers would box them.)
      evaluations++;
      let fLo = 0;
      let fdLo = 0;
      for (let u = 0; u <= j; u++) {
        const q = 1 / ((sh[u] as number) - t);
        R[row + u] = q;
        const w = (wz[u] as number) * q;
        fLo += w;
        fdLo += w * q;
      }
      let fHi = 0;
      let fdHi = 0;
      for (let u = j + 1; u < m; u++) {
        const q = 1 / ((sh[u] as number) - t);
        R[row + u] = q;
        const w = (wz[u] as number) * q;
        fHi += w;
        fdHi += w * q;
      }
      const fv = 1 + (fLo + fHi);
      if (fv === 0) break;
      if (first) {
        if (!inner && fv < 0) {
          // Rounding left f < 0 at the bound: move it out.
          lo = t;
          t *= 2;
          hi = t;
          continue;
        }
        first = false;
        IO[0] = t;
        IO[1] = fv;
        initialGuess(dk, wz, R, row, j, m, IO);
        t = IO[0] as number;
        if (inner && fv < 0) {
          // The root is nearer d_j+1: measure from there (the guess already is).
          o = dk[j + 1] as number;
          for (let u = 0; u < m; u++) sh[u] = (dk[u] as number) - o;
          lo = -hi;
          hi = 0;
        }
        if (!(t > lo && t < hi)) t = 0.5 * (lo + hi);
        continue;
      }
      if (fv < 0) lo = t;
      else hi = t;
      // Between two poles the step solves the two-pole model of f (the terms of the poles below and
      // above matched in value and slope at t, "middle way" of Li 1994, as LAPACK dlaed4 does); past the
      // last pole, the one-pole model A + B / (-tau) (the pole at the origin). The root accepted is the
      // point just evaluated (its reciprocals in R are the eigenvector's entries), once the next step is
      // below rounding of tau or the bracket is: tau to relative precision is what the eigenvectors need.
      const fd = fdLo + fdHi;
      let next: number;
      if (inner) {
        const a = (sh[j] as number) - t;
        const b = (sh[j + 1] as number) - t;
        const c = fv - a * fdLo - b * fdHi;
        const A = (a + b) * fv - a * b * fd;
        const B = a * b * fv;
        const disc = Math.sqrt(Math.abs(A * A - 4 * B * c));
        const eta = c === 0 ? B / A : A <= 0 ? (A - disc) / (2 * c) : (2 * B) / (A + disc);
        next = t + eta;
      } else {
        const Bm = fd * t * t;
        const Am = fv + Bm / t;
        next = t !== 0 ? Bm / Am : t - fv / fd;
      }
      if (next === t || Math.abs(next - t) <= 2 * EPS * Math.abs(t)) break;
      if (hi - lo <= 4 * EPS * Math.max(Math.abs(lo), Math.abs(hi))) break;
      t = next > lo && next < hi ? next : 0.5 * (lo + hi);
    }
    origin[j] = o;
    tau[j] = t;
  }
  ws.iterations = evaluations;
  // Gu-Eisenstat: zhat_i^2 = prod_j (lambda_j - d_i) / (rho prod_{j != i} (d_j - d_i)), one division
  // per pair of poles (the reciprocal serves both orders).
  for (let u = 0; u < m; u++) zhat[u] = ((origin[u] as number) - (dk[u] as number) + (tau[u] as number)) / r;
  for (let u = 0; u < m; u++) {
    const du = dk[u] as number;
    const ou = origin[u] as number;
    const tu = tau[u] as number;
    let pu = zhat[u] as number;
    for (let w = u + 1; w < m; w++) {
      const dw = dk[w] as number;
      const x = 1 / (dw - du);
      pu *= ((origin[w] as number) - du + (tau[w] as number)) * x;
      zhat[w] = (zhat[w] as number) * ((ou - dw + tu) * -x);
    }
    zhat[u] = pu;
  }
  // Signs from z, and a common scale (max |zhat| = 1) that leaves every eigenvector's direction as it is.
  let zmax = 0;
  for (let u = 0; u < m; u++) {
    const zu = Math.sqrt(Math.max(zhat[u] as number, 0));
    zhat[u] = (z[keep[u] as number] as number) < 0 ? -zu : zu;
    zmax = Math.max(zmax, zu);
  }
  const iz = zmax > 0 ? 1 / zmax : 1;
  const pos = ws.pos;
  for (let u = 0; u < m; u++) {
    zhat[u] = (zhat[u] as number) * iz;
    pos[u] = (order[keep[u] as number] as number) * rs;
  }
  for (let j = 0; j < m; j++) {
    const row = j * m;
    // Entries zhat_u / (d_u - lambda_j); in units of max(|delta|, rho |v|^2) with max |zhat| = 1 their
    // squares neither overflow nor underflow (the careful path below is a guard).
    let n0 = 0;
    let n1 = 0;
    let u = 0;
    for (; u + 1 < m; u += 2) {
      const x0 = (zhat[u] as number) * (R[row + u] as number);
      const x1 = (zhat[u + 1] as number) * (R[row + u + 1] as number);
      R[row + u] = x0;
      R[row + u + 1] = x1;
      n0 += x0 * x0;
      n1 += x1 * x1;
    }
    if (u < m) {
      const x0 = (zhat[u] as number) * (R[row + u] as number);
      R[row + u] = x0;
      n0 += x0 * x0;
    }
    const nn = n0 + n1;
    let s = 1 / Math.sqrt(nn);
    if (!(nn > 1e-280 && nn < 1e280)) {
      inverseNorm(R, row, m, IO);
      s = IO[0] as number;
    }
    values[col] = sign * (((origin[j] as number) + (tau[j] as number)) * up);
    const c = col * cs;
    if (rotated) {
      for (let i = 0; i < n; i++) {
        let acc = 0;
        for (let v = 0; v < m; v++) acc += (basis[i * n + (keep[v] as number)] as number) * (R[row + v] as number);
        Q[i * rs + c] = acc * s;
      }
    } else {
      // basis column i is e_{order[i]}; Q was zeroed above.
      for (let v = 0; v < m; v++) Q[(pos[v] as number) + c] = (R[row + v] as number) * s;
    }
    col++;
  }
}

/** out[0] = 1 / |x| for x = A[o .. o + m), scaled by its largest entry first (no square can overflow or underflow). */
function inverseNorm(A: Float64Array, o: number, m: number, out: Float64Array): void {
  let big = 0;
  for (let u = 0; u < m; u++) big = Math.max(big, Math.abs(A[o + u] as number));
  const ib = 1 / big;
  let nn = 0;
  for (let u = 0; u < m; u++) {
    const x = (A[o + u] as number) * ib;
    nn += x * x;
  }
  out[0] = ib / Math.sqrt(nn);
}

/**
 * LAPACK dlaed4's initial guess for root j from the evaluation f(t) = fv at the first point t (io[0] = t,
 * io[1] = fv; reciprocals 1 / (d_u - d_j - t) in R's row), into io[0]: the terms of the two nearest poles
 * kept exactly, the others frozen at their value there (C), and the quadratic in tau solved without
 * cancellation. Between d_j and d_j+1 it is measured from d_j when f(t) > 0 (the root below the midpoint
 * t), else from d_j+1; past the last pole, from d_j. May fall outside the bracket (the caller checks).
 */
function initialGuess(
  dk: Float64Array,
  wz: Float64Array,
  R: Float64Array,
  row: number,
  j: number,
  m: number,
  io: Float64Array,
): void {
  const t = io[0] as number;
  const fv = io[1] as number;
  if (m === 1) {
    io[0] = (wz[0] as number) / (fv - (wz[0] as number) * (R[row] as number));
    return;
  }
  const inner = j < m - 1;
  const i0 = inner ? j : j - 1; // the lower pole of the pair
  const w0 = wz[i0] as number;
  const w1 = wz[i0 + 1] as number;
  const C = fv - w0 * (R[row + i0] as number) - w1 * (R[row + i0 + 1] as number);
  if (inner && fv > 0) {
    // tau in (0, del / 2) from d_j (del = 2 t): C tau^2 - A tau + B = 0.
    const del = 2 * t;
    const A = C * del + w0 + w1;
    const B = w0 * del;
    const disc = Math.sqrt(Math.abs(A * A - 4 * B * C));
    io[0] = A > 0 ? (2 * B) / (A + disc) : (A - disc) / (2 * C);
  } else if (inner) {
    // tau in (-del / 2, 0) from d_j+1: C tau^2 + A tau - B = 0.
    const del = 2 * t;
    const A = C * del - w0 - w1;
    const B = w1 * del;
    const disc = Math.sqrt(Math.abs(A * A + 4 * B * C));
    io[0] = A < 0 ? (2 * B) / (A - disc) : -(A + disc) / (2 * C);
  } else {
    // tau > 0 from the last pole d_j, del = d_j - d_j-1: C tau^2 - A tau - B = 0.
    const del = (dk[j] as number) - (dk[j - 1] as number);
    const A = w0 + w1 - C * del;
    const B = w1 * del;
    const disc = Math.sqrt(Math.abs(A * A + 4 * B * C));
    io[0] = A <= 0 ? (2 * B) / (disc - A) : (A + disc) / (2 * C);
  }
}

/**
 * order[0..n) = the indices of delta sorted by sign * delta ascending, stable. An input sorted the other
 * way (an update of the opposite sign to the last one) is reversed in O(n); otherwise insertion sort
 * (n is small).
 */
function sortIndices(delta: ArrayLike<number>, sign: number, n: number, order: Int32Array): void {
  let descending = true;
  for (let i = 1; i < n && descending; i++) descending = sign * (delta[i] as number) < sign * (delta[i - 1] as number);
  if (descending) {
    for (let i = 0; i < n; i++) order[i] = n - 1 - i;
    return;
  }
  for (let i = 0; i < n; i++) {
    const key = sign * (delta[i] as number);
    let j = i - 1;
    while (j >= 0 && sign * (delta[order[j] as number] as number) > key) {
      order[j + 1] = order[j] as number;
      j--;
    }
    order[j + 1] = i;
  }
}
