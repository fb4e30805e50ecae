/**
 * Confidence radii of COSMOS.
 *
 * `theory`: the paper's explicit constants. Index radius with a known reward (Proposition 4.4 in its
 * appendix form, eq. 51):
 *   K = 144/(kappa mu1) + 2 min{2 iota, Cpsi dB} + 6,  Q = ceil(log2(1 + n min{9 iota^2, dB^2 Cpsi^2})),
 *   Gamma* = m log(1 + 2 dB Cpsi T) + log(Q + 1) + log(6 A T / delta),
 *   B* = sqrt((8/(3 kappa mu1)) K Gamma* + 40/(3 kappa mu1) + 1/3 + eta1 dB^2).
 * With an unknown reward (Proposition 11.2 and the proof of Theorem 5.5, taking the larger of the two
 * logarithms the paper writes in each place):
 *   Gamma = m log(1 + 2 dB Cpsi T) + log(2Q + 2) + log(6 A T / delta),
 *   C = (4 / min{1, muLow}^2) (gamma0 sqrt(d log(1 + t Cphi^2 / eta0) + 2 log(6 / delta)) + sqrt(eta0) alpha)^2,
 *   B = sqrt((4/(kappa mu1)) K Gamma + 20/(kappa mu1) + 1/2 + eta1 dB^2) + (2 sqrt2 L_G / (kappa mu1)) sqrt(C S),
 * with S = <Phi^-1, P_a> the box's queried reward features measured in the reward design's inverse.
 * Reward radius (eq. 61): beta_t = (2 / min{1, muLow}) (gamma0 sqrt(d log(1 + t Cphi^2/eta0) + 2 log(2/delta)) + sqrt(eta0) alpha).
 *
 * `scaled`: the same shapes with the constants replaced by scale knobs (the theory constants keep every
 * box queried for about 10^6 rounds):
 *   B = s sqrt(m log T + log(A T / delta)) [+ sPlug sqrt((d log t + log(1/delta)) S)],
 *   beta_t = sMu sqrt(d log(1 + t / eta0) + 2 log(2 / delta)).
 */

export interface TheoryConstants {
  /** kappa of the local-mass assumption (Assumption 4.1). */
  readonly kappa: number;
  /** mu1 = inf Lambda' over the index range. */
  readonly mu1: number;
  /** iota-bar = sup |psi . rho|. */
  readonly iota: number;
  /** Bound on ||psi(x)||. */
  readonly psiBound: number;
  /** Diameter of the index parameter ball (2 R). */
  readonly diameter: number;
  /** Bound on ||phi(x, omega)|| (unknown reward only). */
  readonly phiBound: number;
  /** inf G' over the reward range (unknown reward only). */
  readonly muLow: number;
  /** Lipschitz constant of G. */
  readonly lipschitzG: number;
  /** Reward bound gamma0 (rewards in [0, gamma0]). */
  readonly gamma0: number;
  /** Bound alpha-bar on ||theta*|| (finite in theory mode for an unknown reward). */
  readonly alpha: number;
}

export interface RadiusInputs {
  /** Index dimension m, reward dimension d, number of boxes A. */
  readonly m: number;
  readonly d: number;
  readonly A: number;
  /** Horizon T used in the logarithms. */
  readonly T: number;
  /** Current period t (>= 1). */
  readonly t: number;
  readonly delta: number;
  /** Index ridge eta1 and reward ridge eta0. */
  readonly eta1: number;
  readonly eta0: number;
}

/** Theory index radius B*_at (known reward) or B_at (unknown reward, with S = <Phi^-1, P_a>). */
export function theoryIndexRadius(c: TheoryConstants, r: RadiusInputs, n: number, known: boolean, S: number): number {
  const km = c.kappa * c.mu1;
  // mu1 underflows to 0 when the index range reaches Lambda's flat tails (e.g. the linear link with a
  // large ball): the assumption fails and the radius is infinite (sigma~ = 1 for every box).
  if (!(km > 0)) return Number.POSITIVE_INFINITY;
  const K = 144 / km + 2 * Math.min(2 * c.iota, c.psiBound * c.diameter) + 6;
  const Q = Math.ceil(
    Math.log2(1 + n * Math.min(9 * c.iota * c.iota, c.diameter * c.diameter * c.psiBound * c.psiBound)),
  );
  const base = r.m * Math.log(1 + 2 * c.diameter * c.psiBound * r.T) + Math.log((6 * r.A * r.T) / r.delta);
  const ridgeTerm = r.eta1 * c.diameter * c.diameter;
  if (known) {
    const gamma = base + Math.log(Q + 1);
    return Math.sqrt((8 / (3 * km)) * K * gamma + 40 / (3 * km) + 1 / 3 + ridgeTerm);
  }
  const gamma = base + Math.log(2 * Q + 2);
  const lead = Math.sqrt((4 / km) * K * gamma + 20 / km + 0.5 + ridgeTerm);
  const ml = Math.min(1, c.muLow);
  const inner =
    c.gamma0 * Math.sqrt(r.d * Math.log(1 + (r.t * c.phiBound * c.phiBound) / r.eta0) + 2 * Math.log(6 / r.delta)) +
    Math.sqrt(r.eta0) * c.alpha;
  const C = (4 / (ml * ml)) * inner * inner;
  return S > 0 ? lead + ((2 * Math.SQRT2 * c.lipschitzG) / km) * Math.sqrt(C * S) : lead;
}

/** Theory reward radius beta_t (eq. 61). */
export function theoryRewardRadius(c: TheoryConstants, r: RadiusInputs): number {
  const ml = Math.min(1, c.muLow);
  return (
    (2 / ml) *
    (c.gamma0 * Math.sqrt(r.d * Math.log(1 + (r.t * c.phiBound * c.phiBound) / r.eta0) + 2 * Math.log(2 / r.delta)) +
      Math.sqrt(r.eta0) * c.alpha)
  );
}

/** Scaled index radius: s sqrt(m log T + log(A T / delta)) [+ sPlug sqrt((d log t + log(1/delta)) S)]. */
export function scaledIndexRadius(
  r: RadiusInputs,
  scale: number,
  scalePlugIn: number,
  known: boolean,
  S: number,
): number {
  const lead = times(scale, Math.sqrt(Math.max(r.m * Math.log(r.T) + Math.log((r.A * r.T) / r.delta), 0)));
  if (known || !(S > 0)) return lead;
  return lead + times(scalePlugIn, Math.sqrt(Math.max((r.d * Math.log(r.t) + Math.log(1 / r.delta)) * S, 0)));
}

/**
 * s x, with a zero scale giving 0 even when x is +Infinity (a confidence near the smallest double makes
 * the logarithms infinite; scale 0 means no radius at all).
 */
function times(s: number, x: number): number {
  return s === 0 ? 0 : s * x;
}

/** Scaled reward radius: sMu sqrt(d log(1 + t / eta0) + 2 log(2 / delta)). */
export function scaledRewardRadius(r: RadiusInputs, scale: number): number {
  return times(scale, Math.sqrt(r.d * Math.log(1 + r.t / r.eta0) + 2 * Math.log(2 / r.delta)));
}
