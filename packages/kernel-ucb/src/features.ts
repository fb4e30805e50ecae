import { assertInRange, assertInt, ErrorCode, type Rng, RouteKitError } from "@routekit/core";
import { RandomFourierFeatures } from "@routekit/linalg";

/**
 * Random-feature conventions for the RBF kernel (spec P4, §3.5):
 * - `"paper"` (default): phi(y) = D^-1/2 [cos(W y); sin(W y)], 2D features, ||phi|| = 1 (eq. 1).
 * - `"cosBias"`: phi(y) = sqrt(2/D) cos(W y + b), D features (the paper's footnote 2; the reference
 *   code's first version). Higher variance; ||phi||^2 only about 1.
 * - `"repo2D"`: the reference code's HEAD features [cos(2 pi W y); sin(2 pi W y)] without 1/sqrt(D).
 *   They give exactly the paper's RFF-UCB with bandwidth sigma / (2 pi) and ridge alpha / D, which is
 *   how it is implemented here (same mu and sigma, checked in the tests).
 */
export type RffVariant = "paper" | "cosBias" | "repo2D";

export interface FeatureConfig {
  readonly contextDim: number;
  /** RBF bandwidth sigma as given by the user. */
  readonly sigma: number;
  /** Number of frequencies D. */
  readonly frequencies: number;
  readonly variant: RffVariant;
  /** Ridge alpha as given by the user. */
  readonly alpha: number;
}

export function checkFeatures(c: FeatureConfig): void {
  assertInRange(c.sigma, "sigma", 1e-6, 1e6);
  assertInt(c.frequencies, "frequencies", 1, 4096);
  if (c.variant !== "paper" && c.variant !== "cosBias" && c.variant !== "repo2D") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `rffVariant must be "paper", "cosBias" or "repo2D", got ${String(c.variant)}`,
    );
  }
}

/** The bandwidth and ridge the learner actually uses for a variant (repo2D rescales both). */
export function effectiveParameters(c: FeatureConfig): { sigma: number; alpha: number } {
  if (c.variant === "repo2D") return { sigma: c.sigma / (2 * Math.PI), alpha: c.alpha / c.frequencies };
  return { sigma: c.sigma, alpha: c.alpha };
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
