import {
  checkNumber,
  describe,
  ErrorCode,
  type NumberRange,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import type { PromptPoolConfig } from "./prompt-pool.js";

const WHERE = "PromptPoolEnvironment";
const FINITE: NumberRange = {};
const NON_NEGATIVE: NumberRange = { min: 0 };
const POSITIVE: NumberRange = { min: 0, openMin: true };
const COUNT: NumberRange = { min: 1, integer: true };

/** `v` (when given) as a number in `range`, named `WHERE field` (INVALID_ARGUMENT, NON_FINITE or OUT_OF_RANGE). */
function optionalNumber(v: unknown, field: string, range: NumberRange): void {
  if (v !== undefined) checkNumber(v, `${WHERE} ${field}`, range);
}

/** A nested object of the config: an object with only the `keys` named. */
function nested(v: unknown, field: string, keys: readonly string[]): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${WHERE} ${field} must be an object, got ${describe(v)}`);
  }
  rejectUnknownOptions(v, keys, `${WHERE} ${field}`);
  return v as Record<string, unknown>;
}

function ids(v: unknown, field: string): void {
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string" || s === "")) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${WHERE} ${field} must be an array of non-empty strings`);
  }
}

/**
 * The fields of a prompt-pool configuration that shape its prompts and scores: a NaN, infinite or negative
 * spread, noise, contrast or kernel width used to flow into every context and score (NaN rewards, NaN
 * regret references) instead of being refused. Counts, arrivals and the mean table are checked by the
 * constructor itself.
 */
export function checkPromptPoolConfig(c: PromptPoolConfig): void {
  if (typeof c.name !== "string") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${WHERE} name must be a string, got ${describe(c.name)}`);
  }
  ids(c.arms, "arms");
  ids(c.categories, "categories");
  const layout = c.layout as unknown as Record<string, unknown> | undefined;
  const type = layout !== null && typeof layout === "object" ? layout.type : undefined;
  if (type === "categories") {
    nested(layout, "layout", ["type", "rho", "tau"]);
    checkNumber(layout?.rho, `${WHERE} layout.rho`, FINITE);
  } else if (type === "sudoku") {
    nested(layout, "layout", ["type", "lambda", "tau"]);
    checkNumber(layout?.lambda, `${WHERE} layout.lambda`, FINITE);
  } else {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${WHERE} layout must be { type: "categories", rho, tau } or { type: "sudoku", lambda, tau }, got ${describe(layout)}`,
    );
  }
  checkNumber(layout?.tau, `${WHERE} layout.tau`, NON_NEGATIVE);
  const noise = c.noise as unknown as Record<string, unknown> | undefined;
  const kind = noise !== null && typeof noise === "object" ? noise.type : undefined;
  if (kind === "gaussian") {
    nested(noise, "noise", ["type", "sd"]);
    checkNumber(noise?.sd, `${WHERE} noise.sd`, NON_NEGATIVE);
  } else if (kind === "bernoulli" || kind === "bounded") {
    nested(noise, "noise", ["type"]);
  } else {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${WHERE} noise must be { type: "gaussian", sd }, { type: "bernoulli" } or { type: "bounded" }, got ${describe(noise)}`,
    );
  }
  if (c.clip !== undefined && typeof c.clip !== "boolean") {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${WHERE} clip must be a boolean, got ${describe(c.clip)}`);
  }
  if (c.perPrompt !== undefined) {
    const p = nested(c.perPrompt, "perPrompt", ["amplitude", "centers", "sigma"]);
    checkNumber(p.amplitude, `${WHERE} perPrompt.amplitude`, FINITE);
    optionalNumber(p.centers, "perPrompt.centers", COUNT);
    optionalNumber(p.sigma, "perPrompt.sigma", POSITIVE);
  }
  if (c.realizable !== undefined) {
    const r = nested(c.realizable, "realizable", ["centers", "sigma", "norm"]);
    optionalNumber(r.centers, "realizable.centers", COUNT);
    optionalNumber(r.sigma, "realizable.sigma", POSITIVE);
    optionalNumber(r.norm, "realizable.norm", NON_NEGATIVE);
  }
  optionalNumber(c.contrast, "contrast", NON_NEGATIVE);
  if (c.categoryStarts !== undefined) {
    if (!Array.isArray(c.categoryStarts)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `${WHERE} categoryStarts must be an array of rounds`);
    }
    c.categoryStarts.forEach((s, k) => {
      checkNumber(s, `${WHERE} categoryStarts[${k}]`, { min: 0, integer: true });
    });
  }
}
