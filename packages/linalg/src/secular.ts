/**
 * Eigendecomposition of a diagonal-plus-rank-one symmetric matrix K = diag(delta) + rho v v^T by the
 * secular equation (Bunch, Nielsen & Sorensen 1978), with deflation of negligible v_i and of (nearly)
 * equal delta_i by Givens rotations, roots by a bracketed two-pole rational iteration in shifted coordinates (each root is measured
 * from its nearer pole, as in LAPACK dlaed4), and eigenvectors from Gu & Eisenstat's (1994) recomputed
 * v-hat so they come out orthogonal to working precision. O(n^2) (plus O(n^2) to assemble Q).
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
  /** Root-finding steps taken by the last call (a diagnostic: a few per root). */
  iterations: number;
}

export function secularWorkspace(capacity: number): SecularWorkspace {
  return {
    capacity,
    order: new Int32Array(capacity),
    d: new Float64Array(capacity),
    z: new Float64Array(capacity),
    origin: new Float64Array(capacity),
    tau: new Float64Array(2 * capacity),
    zhat: new Float64Array(capacity),
    keep: new Int32Array(capacity),
    kept: new Uint8Array(capacity),
    basis: new Float64Array(capacity * capacity),
    dk: new Float64Array(capacity),
    wz: new Float64Array(capacity),
    iterations: 0,
  };
}

const EPS = 2.220446049250313e-16;

/**
 * Eigenpairs of diag(delta[0..n)) + rho v v^T: `values` receives the eigenvalues and `Q` (n x n,
 * row-major) the eigenvectors as columns (Q[i * n + j] = entry i of eigenvector j).
 */
export function diagonalPlusRankOneEigen(
  delta: ArrayLike<number>,
  v: ArrayLike<number>,
  rho: number,
  n: number,
  Q: Float64Array,
  values: Float64Array,
  ws: SecularWorkspace,
): void {
  ws.iterations = 0;
  const sign = rho < 0 ? -1 : 1;
  const r = Math.abs(rho);
  const { order, d, z, basis } = ws;
  // Sort sign * delta ascending (work with rho > 0).
  // Insertion sort of the indices by sign * delta (n is small).
  for (let i = 0; i < n; i++) {
    const key = sign * (delta[i] as number);
    let j = i - 1;
    while (j >= 0 && sign * (delta[order[j] as number] as number) > key) {
      order[j + 1] = order[j] as number;
      j--;
    }
    order[j + 1] = i;
  }
  let dmax = 0;
  let zz = 0;
  for (let i = 0; i < n; i++) {
    const o = order[i] as number;
    d[i] = sign * (delta[o] as number);
    z[i] = v[o] as number;
    dmax = Math.max(dmax, Math.abs(d[i] as number));
    zz += (z[i] as number) ** 2;
  }
  // basis: columns are the current (rotated) coordinate vectors, in original indices.
  basis.fill(0, 0, n * n);
  for (let i = 0; i < n; i++) basis[(order[i] as number) * n + i] = 1;
  const tol = 8 * EPS * Math.max(dmax, r * zz, Number.MIN_VALUE);
  const zn = Math.sqrt(zz);
  // Deflation.
  const keep = ws.keep;
  let m = 0;
  let last = -1;
  // While no Givens rotation has been applied, `basis` is the permutation matrix of `order` and the
  // eigenvectors are assembled in O(m) per column instead of O(n m).
  let rotated = false;
  for (let i = 0; i < n; i++) {
    if (r * Math.abs(z[i] as number) * zn <= tol) {
      z[i] = 0;
      continue;
    }
    if (last >= 0 && (d[i] as number) - (d[last] as number) <= tol) {
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
      rotated = true;
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
    values[col] = sign * (d[i] as number);
    for (let row = 0; row < n; row++) Q[row * n + col] = basis[row * n + i] as number;
    col++;
  }
  if (m === 0) return;
  // Secular roots over the kept indices.
  let steps = 0;
  const { origin, tau, zhat, dk, wz } = ws;
  for (let u = 0; u < m; u++) {
    const i = keep[u] as number;
    const zi = z[i] as number;
    dk[u] = d[i] as number;
    wz[u] = r * zi * zi;
  }
  for (let j = 0; j < m; j++) {
    const dj = d[keep[j] as number] as number;
    let o: number;
    let lo: number;
    let hi: number;
    if (j < m - 1) {
      const dn = d[keep[j + 1] as number] as number;
      const gap = dn - dj;
      if (secularValue(dk, wz, m, dj, gap / 2) >= 0) {
        o = dj;
        lo = 0;
        hi = gap / 2;
      } else {
        o = dn;
        lo = -gap / 2;
        hi = 0;
      }
    } else {
      o = dj;
      lo = 0;
      hi = r * zz;
      while (secularValue(dk, wz, m, o, hi) < 0) hi *= 2;
    }
    // Safeguarded by the bracket [lo, hi] (a step leaving it bisects instead). Between two poles the
    // step solves the two-pole model of f (the terms of the poles below and above matched in value and
    // slope at t, "middle way" of Li 1994, as LAPACK dlaed4 does), which converges in a few steps from
    // the midpoint; past the last pole, the one-pole model A + B / (-tau) (the pole at the origin).
    // Relative precision of tau is what the eigenvectors need; stop there.
    const inner = j < m - 1;
    const dLo = dj - o;
    const dHi = inner ? (d[keep[j + 1] as number] as number) - o : 0;
    let t = 0.5 * (lo + hi);
    for (let it = 0; it < 200; it++) {
      steps++;
      let fv = 1;
      let fdLo = 0;
      let fdHi = 0;
      // Poles up to j, then above j (the same order of additions into fv as one loop).
      for (let u = 0; u <= j; u++) {
        const q = 1 / ((dk[u] as number) - o - t);
        const w = (wz[u] as number) * q;
        fv += w;
        fdLo += w * q;
      }
      for (let u = j + 1; u < m; u++) {
        const q = 1 / ((dk[u] as number) - o - t);
        const w = (wz[u] as number) * q;
        fv += w;
        fdHi += w * q;
      }
      if (fv === 0) break;
      if (fv < 0) lo = t;
      else hi = t;
      if (hi - lo <= 4 * EPS * Math.max(Math.abs(lo), Math.abs(hi))) {
        t = 0.5 * (lo + hi);
        break;
      }
      const fd = fdLo + fdHi;
      let next: number;
      if (inner) {
        const a = dLo - t;
        const b = dHi - t;
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
      // Converged: the step is below rounding. (Checked before the bracket test: at the root the step
      // often lands exactly on the bracket end that t itself just became, which must not bisect.)
      if (next === t || Math.abs(next - t) <= 2 * EPS * Math.abs(t)) {
        if (next > lo && next < hi) t = next;
        break;
      }
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      t = next;
    }
    origin[j] = o;
    tau[j] = t;
  }
  ws.iterations = steps;
  // Gu-Eisenstat: zhat_i^2 = prod_j (lambda_j - d_i) / (rho prod_{j != i} (d_j - d_i)).
  for (let u = 0; u < m; u++) {
    const i = keep[u] as number;
    const di = dk[u] as number;
    let p = ((origin[u] as number) - di + (tau[u] as number)) / r;
    for (let w = 0; w < m; w++) {
      if (w === u) continue;
      p *= ((origin[w] as number) - di + (tau[w] as number)) / ((dk[w] as number) - di);
    }
    const zi = z[i] as number;
    zhat[u] = (zi < 0 ? -1 : 1) * Math.sqrt(Math.max(p, 0));
  }
  for (let j = 0; j < m; j++) {
    let big = 0;
    const oj = origin[j] as number;
    const tj = tau[j] as number;
    for (let u = 0; u < m; u++) {
      const x = (zhat[u] as number) / ((dk[u] as number) - oj - tj);
      tau[m + u] = x;
      big = Math.max(big, Math.abs(x));
    }
    // Scale by the largest entry before the norm, so tiny gaps (entries near 1e250) cannot overflow it.
    let nn = 0;
    for (let u = 0; u < m; u++) {
      const x = (tau[m + u] as number) / big;
      tau[m + u] = x;
      nn += x * x;
    }
    const inv = 1 / Math.sqrt(nn);
    values[col] = sign * ((origin[j] as number) + (tau[j] as number));
    if (rotated) {
      for (let row = 0; row < n; row++) {
        let s = 0;
        for (let u = 0; u < m; u++) s += (basis[row * n + (keep[u] as number)] as number) * (tau[m + u] as number);
        Q[row * n + col] = s * inv;
      }
    } else {
      // basis column i is e_{order[i]}; Q was zeroed above. The same products as the general loop
      // (one nonzero term per row), so the same bits.
      for (let u = 0; u < m; u++) Q[(order[keep[u] as number] as number) * n + col] = (tau[m + u] as number) * inv;
    }
    col++;
  }
}

/** 1 + sum_u wz[u] / (dk[u] - o - t): the secular function in shifted coordinates (no closure: no allocation per call). */
function secularValue(dk: Float64Array, wz: Float64Array, m: number, o: number, t: number): number {
  let s = 1;
  for (let u = 0; u < m; u++) s += (wz[u] as number) / ((dk[u] as number) - o - t);
  return s;
}
