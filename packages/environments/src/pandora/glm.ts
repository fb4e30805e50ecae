/**
 * Env-B of the COSMOS implementation notes: a logistic (GLM) reward, a tanh reservation index, and mean
 * costs reverse-engineered so that Weitzman's equation holds exactly for the fitted index.
 *
 * Context x ~ U[-1, 1]^2, psi = (1, x1, x2). Box a's output omega ~ N(M_a psi, s^2 I_3), s = 0.5; reward
 * mu* = sigmoid(theta* . omega) with theta* = (1.5, -1, 0.5), observed as r ~ Bernoulli(mu*). M_a's first
 * row is v_a / 1.5 and rows 2 and 3 are e_a and 2 e_a with e_a = a (0.2, 0.1, -0.1), so theta*^T M_a = v_a
 * (v_1 = (-0.5, 0.5, 0), v_2 = (0.3, 0, 0.5), v_3 = (1.0, 0.2, -0.2)) and omega_2, omega_3 still depend on
 * the context. Z = theta* . omega ~ N(v_a . psi, s^2 |theta*|^2).
 * The index parameter rho_a is the least-squares fit of atanh(sigma*) on psi over a 41 x 41 grid of
 * [-1, 1]^2, where sigma* is the exact index for the target mean costs 0.01 / 0.04 / 0.12; the mean cost is
 * then defined as k_a(x) = E[(sigmoid(Z) - tanh(rho_a . psi))^+], so sigma*_a(x) = tanh(rho_a . psi(x))
 * exactly. Realised cost k_a(x) (0.5 + len) with len ~ U[0, 1] hidden.
 */
import { type Rng, readOptions, rejectUnknownOptions } from "@routekit/core";
import { CascadeEnvironmentBase, checkArms } from "./base.js";
import { PRESET_CASCADE_OPTION_KEYS, type PresetCascadeOptions } from "./uniform.js";

const THETA = [1.5, -1, 0.5] as const;
const S = 0.5;
const V = [
  [-0.5, 0.5, 0],
  [0.3, 0, 0.5],
  [1.0, 0.2, -0.2],
] as const;
const TARGET_COSTS = [0.01, 0.04, 0.12] as const;
const SD_Z = S * Math.hypot(...THETA);

// 8-point Gauss-Legendre on [-1, 1].
const GL_X = [
  -0.9602898564975363, -0.7966664774136267, -0.525532409916329, -0.1834346424956498, 0.1834346424956498,
  0.525532409916329, 0.7966664774136267, 0.9602898564975363,
];
const GL_W = [
  0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.362683783378362, 0.362683783378362, 0.3137066458778873,
  0.2223810344533745, 0.1012285362903763,
];

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/**
 * int_a^b f(u) phi(u) du for f(u) = sigmoid(mean + SD_Z u) - sigma by composite 8-point Gauss-Legendre (phi
 * the standard normal density). The integrand is written in, not passed as a closure: glmExcess runs per arm
 * and round, and the builds keep names, which would also wrap such a closure in a `__name` call.
 */
function integrateExcess(mean: number, sigma: number, a: number, b: number, panels: number): number {
  const h = (b - a) / panels;
  let s = 0;
  for (let i = 0; i < panels; i++) {
    const m = a + (i + 0.5) * h;
    for (let k = 0; k < 8; k++) {
      const u = m + (GL_X[k] as number) * (h / 2);
      s += (GL_W[k] as number) * (sigmoid(mean + SD_Z * u) - sigma) * Math.exp(-0.5 * u * u);
    }
  }
  return (s * h) / 2 / Math.sqrt(2 * Math.PI);
}

/**
 * E[(sigmoid(Z) - sigma)^+] for Z ~ N(mean, SD_Z^2), integrating from the kink z* = logit(sigma)
 * (the integrand is smooth there on), to about 1e-12.
 */
export function glmExcess(mean: number, sigma: number): number {
  if (sigma >= 1) return 0;
  if (sigma <= 0) return integrateExcess(mean, sigma, -10, 10, 40);
  const ustar = (Math.log(sigma / (1 - sigma)) - mean) / SD_Z;
  if (ustar >= 10) return 0;
  const a = Math.max(ustar, -10);
  return integrateExcess(mean, sigma, a, 10, 40);
}

/** P(sigmoid(Z) > sigma), the negative derivative of glmExcess in sigma. */
function glmTail(mean: number, sigma: number): number {
  if (sigma <= 0) return 1;
  if (sigma >= 1) return 0;
  const ustar = (Math.log(sigma / (1 - sigma)) - mean) / SD_Z;
  return 0.5 * erfcApprox(ustar / Math.SQRT2);
}

/** erfc with relative error < 1.2e-7 (Numerical Recipes' erfcc): only steers Newton steps here. */
function erfcApprox(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628288 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** The exact index for mean cost c: root of glmExcess(mean, s) = c, by safeguarded Newton. */
export function glmIndex(mean: number, c: number): number {
  let lo = -1;
  let hi = 1;
  let s = 0.5;
  for (let it = 0; it < 100; it++) {
    const g = glmExcess(mean, s) - c;
    if (g > 0) lo = s;
    else hi = s;
    const d = glmTail(mean, s);
    let ns = d > 0 ? s + g / d : Number.NaN;
    if (!(ns > lo && ns < hi)) ns = 0.5 * (lo + hi);
    if (Math.abs(ns - s) < 1e-13 || hi - lo < 1e-13) return ns;
    s = ns;
  }
  return s;
}

let fitted: number[][] | undefined;

/** rho_a by least squares of atanh(sigma*) on psi over the 41 x 41 grid (computed once, then cached). */
export function envBIndexParameters(): number[][] {
  if (fitted) return fitted.map((r) => [...r]);
  const out: number[][] = [];
  for (let a = 0; a < 3; a++) {
    const v = V[a] as readonly number[];
    // normal equations for 3 unknowns
    const XtX = new Float64Array(9);
    const Xty = new Float64Array(3);
    for (let i = 0; i <= 40; i++) {
      for (let j = 0; j <= 40; j++) {
        const p = [1, -1 + i / 20, -1 + j / 20];
        const mean = (v[0] as number) + (v[1] as number) * (p[1] as number) + (v[2] as number) * (p[2] as number);
        const y = Math.atanh(glmIndex(mean, TARGET_COSTS[a] as number));
        for (let r = 0; r < 3; r++) {
          Xty[r] = (Xty[r] as number) + (p[r] as number) * y;
          for (let c = 0; c < 3; c++) XtX[r * 3 + c] = (XtX[r * 3 + c] as number) + (p[r] as number) * (p[c] as number);
        }
      }
    }
    // the grid is symmetric: XtX is diagonal
    out.push([0, 1, 2].map((r) => (Xty[r] as number) / (XtX[r * 3 + r] as number)));
  }
  fitted = out;
  return out.map((r) => [...r]);
}

export class GlmCascadeEnvironment extends CascadeEnvironmentBase {
  readonly name: string;
  readonly indexLink = "tanh" as const;
  readonly rewardLink = "logistic" as const;
  private readonly rho: number[][];
  private readonly M: number[][][];

  constructor(options: PresetCascadeOptions = {}) {
    rejectUnknownOptions(options, PRESET_CASCADE_OPTION_KEYS, "envB", true);
    super(checkArms(readOptions(options, "envB", true).arms as string[] | undefined, ["box1", "box2", "box3"]), 2, 3);
    this.name = options.name ?? "pandora-env-b";
    this.rho = envBIndexParameters();
    this.M = V.map((v, i) => {
      const e = [0.2, 0.1, -0.1].map((x) => (i + 1) * x);
      return [v.map((x) => x / 1.5), e, e.map((x) => 2 * x)];
    });
  }

  indexParameters(): number[][] {
    return this.rho.map((r) => [...r]);
  }

  rewardParameter(): number[] {
    return [...THETA];
  }

  protected drawContext(rng: Rng): void {
    this.context[0] = rng.uniformIn(-1, 1);
    this.context[1] = rng.uniformIn(-1, 1);
  }

  protected drawOutputs(rng: Rng): void {
    const psi = this.psi;
    for (let a = 0; a < 3; a++) {
      const M = this.M[a] as number[][];
      const f = this.features[a] as Float64Array;
      let z = 0;
      for (let r = 0; r < 3; r++) {
        const row = M[r] as number[];
        f[r] =
          (row[0] as number) +
          (row[1] as number) * (psi[1] as number) +
          (row[2] as number) * (psi[2] as number) +
          S * rng.normal();
        z += (THETA[r] as number) * (f[r] as number);
      }
      const len = rng.uniform();
      const rho = this.rho[a] as number[];
      const sig = Math.tanh(
        (rho[0] as number) + (rho[1] as number) * (psi[1] as number) + (rho[2] as number) * (psi[2] as number),
      );
      const v = V[a] as readonly number[];
      const mean = (v[0] as number) + (v[1] as number) * (psi[1] as number) + (v[2] as number) * (psi[2] as number);
      const k = glmExcess(mean, sig);
      this.indices[a] = sig;
      this.rewards[a] = sigmoid(z);
      this.costs[a] = k * (0.5 + len);
      this.meanCosts[a] = k;
      this.meanRewards[a] = glmExcess(mean, 0);
    }
  }
}

/** Env-B with its default arm ids. */
export function envB(options: PresetCascadeOptions = {}): GlmCascadeEnvironment {
  return new GlmCascadeEnvironment(options);
}
