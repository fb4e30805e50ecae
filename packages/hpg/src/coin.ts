/**
 * One-dimensional coin betting through Online Newton Steps (Cutkosky & Orabona 2018, "Black-Box
 * Reductions for Parameter-free Online Learning in Banach Spaces", Algorithm 1), the magnitude learner
 * of parameter-free HPG (paper Appendix E.2). Losses are linear, g in [-1, 1]:
 *   bet z_t = v_t Wealth_{t-1};  Wealth_t = Wealth_{t-1} - g_t z_t;
 *   zeta = g / (1 - g v);  A_t = A_{t-1} + zeta^2;  v_{t+1} = clip(v_t - C zeta / A_t, -1/2, 1/2),
 * with C = 2 / (2 - ln 3), A_0 = 1 and v_1 = 0 (so the first bet is 0). Because |g| <= 1 and |v| <= 1/2,
 * the wealth stays positive: Wealth_t >= Wealth_{t-1} / 2.
 */

import { checkNumber } from "@routekit/core";

/** The ONS constant 2 / (2 - ln 3). */
export const COIN_ONS_CONSTANT = 2 / (2 - Math.log(3));

export class CoinBetting {
  /** Current wealth (starts at the initial wealth epsilon). */
  wealth: number;
  /** Betting fraction v in [-1/2, 1/2]. */
  fraction = 0;
  /** Running 1 + sum zeta^2. */
  curvature = 1;

  /** `initialWealth` must be a finite number > 0 (RouteKitError otherwise). */
  constructor(initialWealth = 1) {
    this.wealth = checkNumber(initialWealth, "initialWealth", { min: 0, openMin: true });
  }

  /** The current bet z = v Wealth. */
  bet(): number {
    return this.fraction * this.wealth;
  }

  /**
   * Feeds the loss gradient g in [-1, 1] for the bet `z` that was played, |z| <= wealth / 2 (what `bet()`
   * returns at most; a late bet must be capped so). Outside these ranges the wealth could turn negative,
   * so they throw OUT_OF_RANGE (non-numbers INVALID_ARGUMENT, NaN or +-Infinity NON_FINITE) and change nothing.
   */
  update(g: number, z: number): void {
    checkNumber(g, "g", { min: -1, max: 1 });
    checkNumber(z, "z", { min: -0.5 * this.wealth, max: 0.5 * this.wealth });
    const v = this.fraction;
    this.wealth -= g * z;
    const zeta = g / (1 - g * v);
    this.curvature += zeta * zeta;
    const next = v - (COIN_ONS_CONSTANT * zeta) / this.curvature;
    this.fraction = next > 0.5 ? 0.5 : next < -0.5 ? -0.5 : next;
  }
}
