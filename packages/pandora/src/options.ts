/**
 * COSMOS options: reading, defaults, and their snapshot form.
 */
import {
  armsOption,
  booleanOption,
  checkNumber,
  copyNumbers,
  ErrorCode,
  enumOption,
  isFloatArray,
  type Json,
  MAX_RIDGE_DIM,
  maxPendingOption,
  numberOption,
  optionKeys,
  type Rng,
  RouteKitError,
  readLength,
  readOptions,
  rejectUnknownOptions,
  requiredNumber,
  type VectorInput,
} from "@routekit/core";
import { MAX_SQUARED_NORM } from "./episodes.js";
import type { IndexLinkName, RewardLinkName } from "./links.js";

export interface TheoryOptions {
  /** kappa of the paper's local-mass assumption (Assumption 4.1): required in theory mode. */
  kappa: number;
  /** Bound on ||psi(x)|| (default sqrt(m): contexts in [-1, 1]^dx plus the intercept). */
  psiBound?: number;
  /** Bound on ||phi(x, omega)|| (default sqrt(d)). */
  phiBound?: number;
  /** Rewards lie in [0, rewardMax] (gamma0; default 1). */
  rewardMax?: number;
}

/** The option keys of {@link TheoryOptions}. */
export const THEORY_OPTION_KEYS = optionKeys<TheoryOptions>()(["kappa", "psiBound", "phiBound", "rewardMax"]);

export interface CosmosOptions {
  /** Box (model) ids; index ties go to the earlier id. */
  arms: readonly string[];
  /** Length of the request context x. */
  contextDim: number;
  /** Length of each box's output features (the reward features phi = output features). */
  outputDim: number;
  /**
   * Known reward parameter theta* (length outputDim, plus 1 with rewardIntercept): the reward is then
   * mu*(x, omega) = G(theta* . phi) and is not learned (the paper's Section 4). Omit it to learn the reward
   * (Section 5). Default: omitted.
   */
  rewardParameter?: VectorInput | null;
  /** Reward link G: "identity" (default) or "logistic". */
  rewardLink?: RewardLinkName;
  /** Index link Lambda: "tanh" (default), "logistic" (tanh(s/2)) or "linear" (identity with tanh tails). */
  indexLink?: IndexLinkName;
  /** Knee b of the "linear" index link (default 0.9). */
  linkKnee?: number;
  /** Prepend 1 to the context for the index features psi (default true). */
  indexIntercept?: boolean;
  /** Prepend 1 to the output features for the reward features phi (default false). */
  rewardIntercept?: boolean;
  /** Radius R of the index parameter ball (default 3). */
  indexBound?: number;
  /** Radius alpha of the reward parameter ball (default Infinity: no projection). */
  rewardBound?: number;
  /** Reward ridge eta0 (default 1). */
  ridge?: number;
  /** Index-design ridge eta1 (only widens V; it does not regularise rho-hat) (default 1). */
  indexRidge?: number;
  /** "scaled" (default) or "theory" (the paper's constants; needs `theory`). */
  radiusMode?: "scaled" | "theory";
  /** Scale s of the index radius in scaled mode (default 0.5 with a known reward, 0.25 with a learned one). */
  exploration?: number;
  /** Scale of the plug-in term of the index radius (learned reward; default = exploration). */
  explorationPlugIn?: number;
  /** Scale of the reward radius beta_t (learned reward; default = exploration). */
  explorationReward?: number;
  /** Constants for theory mode. */
  theory?: TheoryOptions | null;
  /** Planned horizon T in the logarithms (default: none, the current period t is used: anytime). */
  horizon?: number | null;
  /** Failure probability delta (default 1/T with a known reward, 1/sqrt(T) with a learned one). */
  confidence?: number | null;
  /**
   * "geometric" (default): refit a box's index when its sample count has grown by `refitGrowth` since its
   * last fit, and theta-hat (then every box) when the reward count has, so the amortised per-episode cost
   * stays flat in t (a deviation from the paper: the index loss sums over a box's whole history and has no
   * finite sufficient statistics, so an exact refit costs O(n_a)). "exact": refit after every episode as
   * the paper does (known reward: the boxes just queried, each over its history: O(t) per episode;
   * learned reward: theta-hat and every box: O(t) per episode, O(T^2) in total).
   */
  refit?: "exact" | "geometric";
  /** Growth factor of the geometric schedule (default 1.2, > 1). */
  refitGrowth?: number;
  /** Newton iterations per fit (default 50). */
  maxIter?: number;
  /** Open episodes kept waiting for feedback (default 100,000). */
  maxPending?: number;
  /** Seed of the policy's random stream (default 0). COSMOS draws nothing from it: see `rng`. */
  seed?: number | string;
  /** The policy's random stream (wins over `seed`); kept in snapshots as the per-replica `rng` field. */
  rng?: Rng;
}

/** The option keys of {@link CosmosOptions}. */
export const COSMOS_OPTION_KEYS = optionKeys<CosmosOptions>()([
  "arms",
  "contextDim",
  "outputDim",
  "rewardParameter",
  "rewardLink",
  "indexLink",
  "linkKnee",
  "indexIntercept",
  "rewardIntercept",
  "indexBound",
  "rewardBound",
  "ridge",
  "indexRidge",
  "radiusMode",
  "exploration",
  "explorationPlugIn",
  "explorationReward",
  "theory",
  "horizon",
  "confidence",
  "refit",
  "refitGrowth",
  "maxIter",
  "maxPending",
  "seed",
  "rng",
]);

export interface CosmosConfig {
  readonly arms: readonly string[];
  readonly contextDim: number;
  readonly outputDim: number;
  readonly rewardParameter: readonly number[] | null;
  readonly rewardLink: RewardLinkName;
  readonly indexLink: IndexLinkName;
  readonly linkKnee: number;
  readonly indexIntercept: boolean;
  readonly rewardIntercept: boolean;
  readonly indexBound: number;
  readonly rewardBound: number;
  readonly ridge: number;
  readonly indexRidge: number;
  readonly radiusMode: "scaled" | "theory";
  readonly exploration: number;
  readonly explorationPlugIn: number;
  readonly explorationReward: number;
  readonly theory: { kappa: number; psiBound: number; phiBound: number; rewardMax: number } | null;
  readonly horizon: number | null;
  readonly confidence: number | null;
  readonly refit: "exact" | "geometric";
  readonly refitGrowth: number;
  readonly maxIter: number;
  readonly maxPending: number;
}

/**
 * Range of the ridges (reward eta0, index eta1), as for LinUCB: each inverse starts at I / ridge and its first
 * rank-one update squares that, so a ridge near the smallest double turns the state into Infinity and NaN.
 */
export const RIDGE_RANGE = { min: 1e-8, max: 1e8 } as const;

/**
 * A parameter vector given as an option (theta*, a true rho): an array of `length` finite numbers whose
 * squared norm is at most {@link MAX_SQUARED_NORM}, like the contexts and features it multiplies, so
 * their dot product cannot overflow.
 */
export function parameterVector(v: unknown, length: number, what: string, lengthHint = ""): number[] {
  // A Float64Array or Float32Array too, as every vector input (its values are kept as a plain array).
  if (!Array.isArray(v) && !isFloatArray(v)) bad(`option ${what} must be an array of numbers`);
  // Each length and entry read once, a getter or proxy that throws INVALID_ARGUMENT (it escaped as its own Error).
  const n = readLength(v, `option ${what}`);
  if (n !== length)
    throw new RouteKitError(
      ErrorCode.DimensionMismatch,
      `option ${what} has length ${n}, expected ${length}${lengthHint}`,
    );
  const copy = new Float64Array(length);
  copyNumbers(v, copy, length, `option ${what}`);
  const out = Array.from(copy, (x, i) => checkNumber(x, `option ${what}[${i}]`));
  let s = 0;
  for (const x of out) s += x * x;
  if (!(s <= MAX_SQUARED_NORM))
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `option ${what} has squared norm ${s}, expected <= ${MAX_SQUARED_NORM} (rescale it)`,
    );
  return out;
}

function bad(msg: string): never {
  throw new RouteKitError(ErrorCode.InvalidArgument, msg);
}

/** A positive number or Infinity (a ball radius; Infinity: no ball). */
function bound(o: Record<string, unknown>, name: string, fallback: number): number {
  const v = o[name];
  if (v === undefined || v === null) return fallback;
  if (v === Number.POSITIVE_INFINITY) return v;
  return numberOption(o, name, fallback, { min: 0, openMin: true });
}

export function readCosmosOptions(options: CosmosOptions): CosmosConfig {
  rejectUnknownOptions(options, COSMOS_OPTION_KEYS, "COSMOS");
  const o = readOptions(options, "COSMOS");
  const arms = armsOption(o);
  if (arms.length === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "option arms must name at least one box");
  const contextDim = requiredNumber(o, "contextDim", { integer: true, min: 0, max: MAX_RIDGE_DIM });
  const outputDim = requiredNumber(o, "outputDim", { integer: true, min: 1, max: MAX_RIDGE_DIM });
  const rewardIntercept = booleanOption(o, "rewardIntercept", false);
  const indexIntercept = booleanOption(o, "indexIntercept", true);
  if (!indexIntercept && contextDim === 0) bad("contextDim 0 needs indexIntercept: true (psi would be empty)");
  const d = outputDim + (rewardIntercept ? 1 : 0);
  let rewardParameter: number[] | null = null;
  const rp = o.rewardParameter;
  if (rp !== undefined && rp !== null) {
    rewardParameter = parameterVector(rp, d, "rewardParameter", ` (outputDim${rewardIntercept ? " + 1" : ""})`);
  }
  const known = rewardParameter !== null;
  const exploration = numberOption(o, "exploration", known ? 0.5 : 0.25, { min: 0 });
  const radiusMode = enumOption(o, "radiusMode", ["scaled", "theory"] as const, "scaled");
  const m = contextDim + (indexIntercept ? 1 : 0);
  const rewardBound = bound(o, "rewardBound", Number.POSITIVE_INFINITY);
  // The theory constants are read (and kept in snapshots) whenever given; only radiusMode "theory" uses them.
  let theory: CosmosConfig["theory"] = null;
  if (o.theory !== null && o.theory !== undefined) {
    rejectUnknownOptions(o.theory, THEORY_OPTION_KEYS, "option theory");
    const t = readOptions(o.theory, "theory");
    const kappa = requiredNumber(t, "kappa", { min: 0, max: 1, openMin: true });
    const psiBound = numberOption(t, "psiBound", Math.sqrt(m), { min: 0, openMin: true });
    const phiBound = numberOption(t, "phiBound", Math.sqrt(d), { min: 0, openMin: true });
    const rewardMax = numberOption(t, "rewardMax", 1, { min: 0, openMin: true });
    theory = { kappa, psiBound, phiBound, rewardMax };
  }
  if (radiusMode === "theory") {
    if (theory === null)
      bad('radiusMode "theory" needs option theory: { kappa, ... } (the local-mass constant of the environment)');
    if (!known && rewardBound === Number.POSITIVE_INFINITY)
      bad('radiusMode "theory" with a learned reward needs a finite rewardBound (alpha in the reward radius)');
  }
  const horizon = o.horizon === null ? undefined : numberOption(o, "horizon", undefined, { integer: true, min: 2 });
  const confidence =
    o.confidence === null
      ? undefined
      : numberOption(o, "confidence", undefined, { min: 0, max: 1, openMin: true, openMax: true });
  return {
    arms,
    contextDim,
    outputDim,
    rewardParameter,
    rewardLink: enumOption(o, "rewardLink", ["identity", "logistic"] as const, "identity"),
    indexLink: enumOption(o, "indexLink", ["tanh", "logistic", "linear"] as const, "tanh"),
    linkKnee: numberOption(o, "linkKnee", 0.9, { min: 0, max: 1, openMin: true, openMax: true }),
    indexIntercept,
    rewardIntercept,
    indexBound: bound(o, "indexBound", 3),
    rewardBound,
    ridge: numberOption(o, "ridge", 1, RIDGE_RANGE),
    indexRidge: numberOption(o, "indexRidge", 1, RIDGE_RANGE),
    radiusMode,
    exploration,
    explorationPlugIn: numberOption(o, "explorationPlugIn", exploration, { min: 0 }),
    explorationReward: numberOption(o, "explorationReward", exploration, { min: 0 }),
    theory,
    horizon: horizon ?? null,
    confidence: confidence ?? null,
    refit: enumOption(o, "refit", ["exact", "geometric"] as const, "geometric"),
    refitGrowth: numberOption(o, "refitGrowth", 1.2, { min: 1, max: 1e6, openMin: true }),
    maxIter: numberOption(o, "maxIter", 50, { integer: true, min: 1, max: 10_000 }),
    maxPending: maxPendingOption(o),
  };
}

/** JSON form of a config (Infinity bounds as the string "Infinity"). */
export function cosmosConfigToJSON(c: CosmosConfig): Json {
  const inf = (v: number): Json => (v === Number.POSITIVE_INFINITY ? "Infinity" : v);
  const { arms: _arms, ...rest } = c;
  return {
    ...rest,
    rewardParameter: c.rewardParameter ? [...c.rewardParameter] : null,
    indexBound: inf(c.indexBound),
    rewardBound: inf(c.rewardBound),
    theory: c.theory ? { ...c.theory } : null,
  } as unknown as Json;
}

/** Reads a snapshot's config (which omits the arms: the snapshot's live arm list is passed in). */
export function cosmosConfigFromJSON(j: Json | undefined, arms: readonly string[]): CosmosConfig {
  if (j === null || typeof j !== "object" || Array.isArray(j))
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "config" must be an object');
  const o: Record<string, unknown> = { ...(j as Record<string, unknown>), arms };
  for (const k of ["indexBound", "rewardBound"]) if (o[k] === "Infinity") o[k] = Number.POSITIVE_INFINITY;
  let config: CosmosConfig;
  try {
    config = readCosmosOptions(o as unknown as CosmosOptions);
  } catch (e) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot options are invalid: ${(e as Error).message}`);
  }
  requireStoredForm(cosmosConfigToJSON(config), j);
  return config;
}

/**
 * A snapshot's config must be exactly what `toJSON` writes: the options reader fills a missing or null
 * field with its default, which would restore a damaged snapshot as a different policy, so the config
 * read back is serialised again and compared field by field with what was given.
 */
export function requireStoredForm(expected: Json, given: Json): void {
  const where = firstDifference(expected, given, "config");
  if (where !== null)
    throw new RouteKitError(
      ErrorCode.SnapshotCorrupt,
      `snapshot field "${where}" is missing or not in the form toJSON writes`,
    );
}

function firstDifference(a: unknown, b: unknown, path: string): string | null {
  if (Object.is(a, b)) return null;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return path;
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  for (const k of kb) if (!Object.hasOwn(a as object, k)) return `${path}.${k}`;
  if (ka.length !== kb.length) return `${path}.${ka.find((k) => !Object.hasOwn(b as object, k))}`;
  for (const k of ka) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    if (d !== null) return d;
  }
  return null;
}
