/**
 * Per-box learner state of COSMOS: the box's queried samples (index features psi_s, reward features
 * phi_s, reward mu_s used in the index loss, cost c_s), the index design V_a(eta1) = eta1 I + sum psi psi^T
 * and its inverse kept by Sherman-Morrison (recomputed from V_a by Cholesky every INVERSE_REFRESH
 * samples, so rounding does not accumulate over long runs, and whenever it loses a positive diagonal:
 * {@link updateInverse}), the outer-product sum P_a = sum phi_s phi_s^T
 * (for the plug-in radius), and rho-hat.
 */
import {
  checkDiagonal,
  checkNumber,
  ErrorCode,
  encodeF64,
  type Json,
  MAX_RIDGE_DIM,
  RouteKitError,
  readF64,
  readInt,
  readObject,
} from "@routekit/core";
import { checkCosts } from "./episodes.js";
import { RIDGE_RANGE } from "./options.js";
import { RowStore, updateInverse } from "./reward.js";

export class BoxState {
  readonly psi: RowStore;
  /** Reward features of each sample (kept only when the reward is learned). */
  readonly phi: RowStore;
  readonly mu: RowStore;
  readonly cost: RowStore;
  /** Upper triangle of V_a = eta1 I + sum psi psi^T. */
  readonly V: Float64Array;
  readonly Vinv: Float64Array;
  readonly P: Float64Array;
  readonly rho: Float64Array;
  /** Samples at the last index fit. */
  fittedN = 0;
  private readonly u: Float64Array;
  private readonly L: Float64Array;

  constructor(
    readonly m: number,
    readonly d: number,
    readonly keepPhi: boolean,
    ridge: number,
  ) {
    // The building block is exported: checked as IndexSolver and RewardModel check theirs (a negative or huge
    // dimension was a RangeError from the typed-array constructor, a zero ridge an infinite inverse).
    checkNumber(m, "index dimension m", { integer: true, min: 1, max: MAX_RIDGE_DIM + 1 });
    checkNumber(d, "reward dimension d", { integer: true, min: 1, max: MAX_RIDGE_DIM + 1 });
    if (typeof keepPhi !== "boolean")
      throw new RouteKitError(ErrorCode.InvalidArgument, "keepPhi must be a boolean (whether the reward is learned)");
    checkNumber(ridge, "ridge", RIDGE_RANGE);
    this.psi = new RowStore(m);
    this.phi = new RowStore(keepPhi ? d : 0, keepPhi ? 16 : 1);
    this.mu = new RowStore(1);
    this.cost = new RowStore(1);
    this.V = new Float64Array(m * m);
    this.Vinv = new Float64Array(m * m);
    for (let i = 0; i < m; i++) {
      this.V[i * m + i] = ridge;
      this.Vinv[i * m + i] = 1 / ridge;
    }
    this.L = new Float64Array(m * m);
    this.P = new Float64Array(keepPhi ? d * d : 0);
    this.rho = new Float64Array(m);
    this.u = new Float64Array(m);
  }

  get n(): number {
    return this.cost.n;
  }

  /** Appends one queried sample and updates V, V^-1 and P. */
  add(psi: Float64Array, phi: Float64Array, mu: number, cost: number): void {
    this.psi.push(psi);
    if (this.keepPhi) {
      this.phi.push(phi);
      const d = this.d;
      for (let i = 0; i < d; i++)
        for (let j = i; j < d; j++)
          this.P[i * d + j] = (this.P[i * d + j] as number) + (phi[i] as number) * (phi[j] as number);
    }
    this.mu.pushValue(mu);
    this.cost.pushValue(cost);
    const m = this.m;
    for (let i = 0; i < m; i++)
      for (let j = i; j < m; j++)
        this.V[i * m + j] = (this.V[i * m + j] as number) + (psi[i] as number) * (psi[j] as number);
    updateInverse(this.V, m, this.Vinv, psi, this.n, this.L, this.u);
  }

  /** ||psi||_{V^-1}. */
  width(psi: Float64Array): number {
    const m = this.m;
    let s = 0;
    for (let i = 0; i < m; i++) {
      const pi = psi[i] as number;
      s += (this.Vinv[i * m + i] as number) * pi * pi;
      for (let j = i + 1; j < m; j++) s += 2 * (this.Vinv[i * m + j] as number) * pi * (psi[j] as number);
    }
    return Math.sqrt(s > 0 ? s : 0);
  }

  toJSON(): Json {
    return {
      n: this.n,
      fittedN: this.fittedN,
      psi: encodeF64(this.psi.view()),
      phi: encodeF64(this.phi.view()),
      mu: encodeF64(this.mu.view()),
      cost: encodeF64(this.cost.view()),
      V: encodeF64(this.V),
      Vinv: encodeF64(this.Vinv),
      P: encodeF64(this.P),
      rho: encodeF64(this.rho),
    };
  }

  static fromJSON(j: Json | undefined, what: string, m: number, d: number, keepPhi: boolean, ridge: number): BoxState {
    const o = readObject(j, what);
    const n = readInt(o, "n");
    const fittedN = readInt(o, "fittedN", 0, n);
    const b = new BoxState(m, d, keepPhi, ridge);
    const psi = readF64(o.psi, `${what}.psi`, n * m);
    const phi = readF64(o.phi, `${what}.phi`, keepPhi ? n * d : 0);
    const mu = readF64(o.mu, `${what}.mu`, n);
    const cost = readF64(o.cost, `${what}.cost`, n);
    checkCosts(cost, `${what}.cost`);
    for (let s = 0; s < n; s++) {
      b.psi.push(psi, s * m);
      if (keepPhi) b.phi.push(phi, s * d);
      b.mu.pushValue(mu[s] as number);
      b.cost.pushValue(cost[s] as number);
    }
    b.V.set(readF64(o.V, `${what}.V`, m * m));
    b.Vinv.set(readF64(o.Vinv, `${what}.Vinv`, m * m));
    // V = indexRidge I + sum psi psi^T: each update adds a square to the diagonal. V^-1 keeps a positive diagonal
    // (updateInverse recomputes it when Sherman-Morrison loses one).
    checkDiagonal(b.V, m, `${what}.V`, `V = indexRidge I + sum psi psi^T has a diagonal >= indexRidge (${ridge})`, {
      min: ridge,
    });
    checkDiagonal(b.Vinv, m, `${what}.Vinv`, "an inverse Gram matrix has a positive diagonal", {
      min: 0,
      openMin: true,
    });
    b.P.set(readF64(o.P, `${what}.P`, keepPhi ? d * d : 0));
    b.rho.set(readF64(o.rho, `${what}.rho`, m));
    b.fittedN = fittedN;
    return b;
  }
}
