import {
  checkNumber,
  describe,
  ErrorCode,
  MAX_CONTEXT_DIM,
  type NumberRange,
  Rng,
  RouteKitError,
} from "@routekit/core";
import { RandomFourierFeatures } from "@routekit/linalg";
import { MAX_RIDGE, MIN_RIDGE } from "./base.js";

/**
 * Random-feature conventions for the RBF kernel:
 * - `"paper"` (default): phi(y) = D^-1/2 [cos(W y); sin(W y)], 2D features, ||phi|| = 1 (the paper's eq. 1).
 * - `"cosBias"`: phi(y) = sqrt(2/D) cos(W y + b), D features (the paper's footnote 2; the reference
 *   code's first version). Higher variance; ||phi||^2 only about 1.
 * - `"repo2D"`: the reference code's HEAD features [cos(2 pi W y); sin(2 pi W y)] without 1/sqrt(D).
 *   They give exactly the paper's RFF-UCB with bandwidth sigma / (2 pi) and ridge / D, which is
 *   how it is implemented here (same mu and sigma, checked in the tests).
 */
export type RffVariant = "paper" | "cosBias" | "repo2D";

export const RFF_VARIANTS: readonly RffVariant[] = ["paper", "cosBias", "repo2D"];

/**
 * Largest number of frequencies D. Each arm keeps an F x F inverse (F = 2D features): at D = 1024 that
 * is 32 MB per arm in memory and 22 MB of base64 in a snapshot, so snapshots of many arms stay below
 * JavaScript's string limit (about 512 MB).
 */
export const MAX_FREQUENCIES = 1024;

export interface FeatureConfig {
  readonly contextDim: number;
  /** RBF bandwidth sigma as given by the user. */
  readonly sigma: number;
  /** Number of frequencies D. */
  readonly frequencies: number;
  readonly variant: RffVariant;
  /** Ridge as given by the user. */
  readonly ridge: number;
}

export const SIGMA_RANGE = { min: 1e-6, max: 1e6 } as const;
export const FREQUENCY_RANGE = { integer: true, min: 1, max: MAX_FREQUENCIES } as const;

/**
 * The frequency counts the feature helpers accept: the policies' cap (MAX_FREQUENCIES) bounds their F x F inverses,
 * not the feature map, which the tests draw at D = 5000 to compare with exact KRR.
 */
const ANY_FREQUENCIES = { integer: true, min: 1 } as const;

/**
 * Checks a feature configuration (option errors per core's rule); `frequencies` is the accepted range of D (the
 * policies': [1, MAX_FREQUENCIES]).
 */
export function checkFeatures(c: FeatureConfig, frequencies: NumberRange = FREQUENCY_RANGE): void {
  // The exported helpers take a config straight from the caller: a non-object, a contextDim or a ridge out of
  // range gave frequencies or a ridge of NaN / Infinity without an error.
  if (c === null || typeof c !== "object") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `a feature configuration must be an object { contextDim, sigma, frequencies, variant, ridge }, got ${describe(c)}`,
    );
  }
  checkNumber(c.contextDim, "option contextDim", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
  checkNumber(c.ridge, "option ridge", { min: MIN_RIDGE, max: MAX_RIDGE });
  checkNumber(c.sigma, "option sigma", SIGMA_RANGE);
  checkNumber(c.frequencies, "option frequencies", frequencies);
  if (!RFF_VARIANTS.includes(c.variant)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option rffVariant must be "paper", "cosBias" or "repo2D", got ${describe(c.variant)}`,
    );
  }
}

/** The bandwidth and ridge the learner actually uses for a variant (repo2D rescales both). */
export function effectiveParameters(c: FeatureConfig): { sigma: number; ridge: number } {
  checkFeatures(c, ANY_FREQUENCIES);
  if (c.variant === "repo2D") return { sigma: c.sigma / (2 * Math.PI), ridge: c.ridge / c.frequencies };
  return { sigma: c.sigma, ridge: c.ridge };
}

/** Draws the feature map once (frequencies from `rng`, normally the policy's "rff" fork). */
export function drawFeatures(c: FeatureConfig, rng: Rng): RandomFourierFeatures {
  if (!(rng instanceof Rng)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `drawFeatures needs an Rng from @routekit/core, got ${describe(rng)}`,
    );
  }
  const { sigma } = effectiveParameters(c);
  return new RandomFourierFeatures(
    c.contextDim,
    c.frequencies,
    sigma,
    () => rng.normal(),
    c.variant === "cosBias" ? "phase" : "paired",
    () => rng.uniform(),
  );
}

/**
 * Order-dependent fingerprint of a frequency matrix: snapshots store it instead of the matrix, which
 * is redrawn from the policy's random stream on restore, and a restore refuses features that differ.
 */
export function featureChecksum(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s = s * 1.0000001 + (a[i] as number);
  return s;
}
