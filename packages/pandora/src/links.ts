/**
 * The two known link functions of COSMOS (Belloni, Chen and Wei, "Online Pandora's Box for Contextual
 * LLM Cascading", Sections 4 and 5):
 * - the index link Lambda: R -> [-1, 1], sigma*_a(x) = Lambda(rho_a . psi(x)), with its derivative, inverse
 *   and antiderivative (the index loss is written with the antiderivative);
 * - the reward link G: R -> [0, 1], mu*(x, omega) = G(theta* . phi(x, omega)), with its derivative and
 *   antiderivative (the GLM log-likelihood is written with the antiderivative).
 */
import { checkNumber, ErrorCode, RouteKitError } from "@routekit/core";

/** Index link names: `tanh`; `logistic` = 2 sigmoid(s) - 1 = tanh(s / 2); `linear` = identity with tanh tails. */
export type IndexLinkName = "tanh" | "logistic" | "linear";
/** Reward link names: `identity` (linear reward, ridge regression) or `logistic`. */
export type RewardLinkName = "identity" | "logistic";

export interface IndexLink {
  readonly name: IndexLinkName;
  /** Lambda(s). */
  value(s: number): number;
  /** Lambda'(s). */
  derivative(s: number): number;
  /** Lambda^-1(y) for y in (-1, 1); +-Infinity at +-1 and beyond. */
  inverse(y: number): number;
  /** The antiderivative int_0^s Lambda(u) du. */
  integral(s: number): number;
  /** Lipschitz constant of Lambda (sup Lambda'). */
  readonly lipschitz: number;
}

/** log cosh(s), stable for large |s|. */
export function logCosh(s: number): number {
  const a = Math.abs(s);
  return a + Math.log1p(Math.exp(-2 * a)) - Math.LN2;
}

/** Clamp of an atanh argument to +-(1 - 1e-12) is NOT applied here: atanh(+-1) = +-Infinity is wanted. */
function atanhExact(y: number): number {
  if (y >= 1) return Number.POSITIVE_INFINITY;
  if (y <= -1) return Number.NEGATIVE_INFINITY;
  return Math.atanh(y);
}

const TANH: IndexLink = {
  name: "tanh",
  value: Math.tanh,
  derivative: (s) => {
    const t = Math.tanh(s);
    return 1 - t * t;
  },
  inverse: atanhExact,
  integral: logCosh,
  lipschitz: 1,
};

const LOGISTIC: IndexLink = {
  name: "logistic",
  value: (s) => Math.tanh(s / 2),
  derivative: (s) => {
    const t = Math.tanh(s / 2);
    return 0.5 * (1 - t * t);
  },
  inverse: (y) => 2 * atanhExact(y),
  // int_0^s tanh(u/2) du = 2 log cosh(s/2) (= 2 softplus(s) - s - 2 log 2).
  integral: (s) => 2 * logCosh(s / 2),
  lipschitz: 0.5,
};

/**
 * "Linear with tanh tails" with knee b in (0, 1): Lambda(s) = s for |s| <= b and
 * sign(s) (b + (1 - b) tanh((|s| - b) / (1 - b))) beyond; C^1, 1-Lipschitz, onto (-1, 1). This is the
 * linear index of the paper's remark with a smooth flattening to +-1.
 */
export function linearTailsLink(knee = 0.9): IndexLink {
  checkNumber(knee, "knee", { min: 0, max: 1, openMin: true, openMax: true });
  const b = knee;
  const w = 1 - b;
  return {
    name: "linear",
    value: (s) => {
      const a = Math.abs(s);
      if (a <= b) return s;
      const v = b + w * Math.tanh((a - b) / w);
      return s < 0 ? -v : v;
    },
    derivative: (s) => {
      const a = Math.abs(s);
      if (a <= b) return 1;
      const t = Math.tanh((a - b) / w);
      return 1 - t * t;
    },
    inverse: (y) => {
      const a = Math.abs(y);
      if (a <= b) return y;
      if (a >= 1) return y < 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
      const v = b + w * Math.atanh((a - b) / w);
      return y < 0 ? -v : v;
    },
    integral: (s) => {
      const a = Math.abs(s);
      if (a <= b) return (s * s) / 2;
      return (b * b) / 2 + b * (a - b) + w * w * logCosh((a - b) / w);
    },
    lipschitz: 1,
  };
}

/** The index link by name (`linear` takes its knee, default 0.9). */
export function indexLink(name: IndexLinkName, knee = 0.9): IndexLink {
  if (name === "tanh") return TANH;
  if (name === "logistic") return LOGISTIC;
  if (name === "linear") return linearTailsLink(knee);
  throw new RouteKitError(
    ErrorCode.InvalidArgument,
    `index link must be "tanh", "logistic" or "linear", got ${JSON.stringify(String(name))}`,
  );
}

export interface RewardLink {
  readonly name: RewardLinkName;
  /** G(z). */
  value(z: number): number;
  /** G'(z). */
  derivative(z: number): number;
  /** The antiderivative (the GLM log-partition b(z), b' = G). */
  integral(z: number): number;
  /** Lipschitz constant of G. */
  readonly lipschitz: number;
}

function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

const IDENTITY_G: RewardLink = {
  name: "identity",
  value: (z) => z,
  derivative: () => 1,
  integral: (z) => (z * z) / 2,
  lipschitz: 1,
};

const LOGISTIC_G: RewardLink = {
  name: "logistic",
  value: sigmoid,
  derivative: (z) => {
    const p = sigmoid(z);
    return p * (1 - p);
  },
  integral: softplus,
  lipschitz: 0.25,
};

export function rewardLink(name: RewardLinkName): RewardLink {
  if (name === "identity") return IDENTITY_G;
  if (name === "logistic") return LOGISTIC_G;
  throw new RouteKitError(
    ErrorCode.InvalidArgument,
    `reward link must be "identity" or "logistic", got ${JSON.stringify(String(name))}`,
  );
}

/** Clip to [0, 1] (a plug-in reward from an identity link can leave the range of mu*). */
export function clip01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
