import { checkNumber, describe, ErrorCode, type Rng, RouteKitError } from "@routekit/core";
import { RandomFourierFeatures } from "@routekit/linalg";

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

/** Checks a feature configuration (option errors per core's rule). */
export function checkFeatures(c: FeatureConfig): void {
  checkNumber(c.sigma, "option sigma", SIGMA_RANGE);
  checkNumber(c.frequencies, "option frequencies", FREQUENCY_RANGE);
  if (!RFF_VARIANTS.includes(c.variant)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option rffVariant must be "paper", "cosBias" or "repo2D", got ${describe(c.variant)}`,
    );
  }
}

/** The bandwidth and ridge the learner actually uses for a variant (repo2D rescales both). */
export function effectiveParameters(c: FeatureConfig): { sigma: number; ridge: number } {
  if (c.variant === "repo2D") return { sigma: c.sigma / (2 * Math.PI), ridge: c.ridge / c.frequencies };
  return { sigma: c.sigma, ridge: c.ridge };
}

/** Draws the feature map once (frequencies from `rng`, normally the policy's "rff" fork). */
export function drawFeatures(c: FeatureConfig, rng: Rng): RandomFourierFeatures {
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
