/**
 * COSMOS options: reading, defaults, and their snapshot form.
 */
import { assertInRange, assertInt, assertPositive, ErrorCode, type Json, RouteKitError } from "@routekit/core";
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
  rewardParameter?: readonly number[] | null;
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
   * "exact" (default): refit after every episode (known reward: the boxes just queried; learned
   * reward: theta-hat and every box, as the paper does). "geometric": refit a box when its sample count
   * has grown by `refitGrowth` since its last fit and theta-hat when the reward count has, so the
   * amortised per-episode cost stays flat (a deviation from the paper).
   */
  refit?: "exact" | "geometric";
  /** Growth factor of the geometric schedule (default 1.2, > 1). */
  refitGrowth?: number;
  /** Newton iterations per fit (default 50). */
  maxIter?: number;
  /** Open episodes kept waiting for feedback (default 100,000). */
  maxPending?: number;
}

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

function bad(msg: string): never {
  throw new RouteKitError(ErrorCode.InvalidArgument, msg);
}

function oneOf<T extends string>(v: unknown, what: string, values: readonly T[], dflt: T): T {
  if (v === undefined) return dflt;
  if (typeof v !== "string" || !(values as readonly string[]).includes(v))
    bad(`${what} must be one of ${values.map((x) => JSON.stringify(x)).join(", ")}, got ${String(v)}`);
  return v as T;
}

function bool(v: unknown, what: string, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v !== "boolean") bad(`${what} must be a boolean, got ${String(v)}`);
  return v;
}

/** Positive number or +Infinity. */
function bound(v: unknown, what: string, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v !== "number" || Number.isNaN(v)) bad(`${what} must be a number > 0 or Infinity`);
  if (v === Number.POSITIVE_INFINITY) return v;
  assertPositive(v, what);
  return v;
}

export function readCosmosOptions(o: CosmosOptions): CosmosConfig {
  if (o === null || typeof o !== "object") bad("options must be an object");
  if (!Array.isArray(o.arms) || o.arms.length === 0) bad("arms must be a non-empty array of box ids");
  const seen = new Set<string>();
  for (const a of o.arms) {
    if (typeof a !== "string" || a.length === 0) bad(`arms must hold non-empty strings, got ${String(a)}`);
    if (seen.has(a)) throw new RouteKitError(ErrorCode.DuplicateArm, `arms lists "${a}" twice`);
    seen.add(a);
  }
  assertInt(o.contextDim, "contextDim", 0, 1 << 16);
  assertInt(o.outputDim, "outputDim", 1, 1 << 16);
  const rewardIntercept = bool(o.rewardIntercept, "rewardIntercept", false);
  const indexIntercept = bool(o.indexIntercept, "indexIntercept", true);
  if (!indexIntercept && o.contextDim === 0) bad("contextDim 0 needs indexIntercept: true (psi would be empty)");
  const d = o.outputDim + (rewardIntercept ? 1 : 0);
  let rewardParameter: number[] | null = null;
  if (o.rewardParameter !== undefined && o.rewardParameter !== null) {
    if (!Array.isArray(o.rewardParameter)) bad("rewardParameter must be an array of numbers");
    if (o.rewardParameter.length !== d)
      throw new RouteKitError(
        ErrorCode.DimensionMismatch,
        `rewardParameter has length ${o.rewardParameter.length}, expected ${d} (outputDim${rewardIntercept ? " + 1" : ""})`,
      );
    for (const [i, v] of o.rewardParameter.entries()) {
      if (typeof v !== "number") bad(`rewardParameter[${i}] must be a number`);
      if (!Number.isFinite(v)) throw new RouteKitError(ErrorCode.NonFinite, `rewardParameter[${i}] must be finite`);
    }
    rewardParameter = [...o.rewardParameter];
  }
  const known = rewardParameter !== null;
  const linkKnee = o.linkKnee ?? 0.9;
  assertInRange(linkKnee, "linkKnee", 0, 1, { min: true, max: true });
  const ridge = o.ridge ?? 1;
  assertPositive(ridge, "ridge");
  const indexRidge = o.indexRidge ?? 1;
  assertPositive(indexRidge, "indexRidge");
  const exploration = o.exploration ?? (known ? 0.5 : 0.25);
  assertInRange(exploration, "exploration", 0, Number.MAX_VALUE);
  const explorationPlugIn = o.explorationPlugIn ?? exploration;
  assertInRange(explorationPlugIn, "explorationPlugIn", 0, Number.MAX_VALUE);
  const explorationReward = o.explorationReward ?? exploration;
  assertInRange(explorationReward, "explorationReward", 0, Number.MAX_VALUE);
  const radiusMode = oneOf(o.radiusMode, "radiusMode", ["scaled", "theory"] as const, "scaled");
  const m = o.contextDim + (indexIntercept ? 1 : 0);
  let theory: CosmosConfig["theory"] = null;
  const rewardBound = bound(o.rewardBound, "rewardBound", Number.POSITIVE_INFINITY);
  if (radiusMode === "theory") {
    const t = o.theory;
    if (t === null || t === undefined || typeof t !== "object")
      bad('radiusMode "theory" needs theory: { kappa, ... } (the local-mass constant of the environment)');
    assertInRange(t.kappa, "theory.kappa", 0, 1, { min: true });
    const psiBound = t.psiBound ?? Math.sqrt(m);
    assertPositive(psiBound, "theory.psiBound");
    const phiBound = t.phiBound ?? Math.sqrt(d);
    assertPositive(phiBound, "theory.phiBound");
    const rewardMax = t.rewardMax ?? 1;
    assertPositive(rewardMax, "theory.rewardMax");
    if (!known && rewardBound === Number.POSITIVE_INFINITY)
      bad('radiusMode "theory" with a learned reward needs a finite rewardBound (alpha in the reward radius)');
    theory = { kappa: t.kappa, psiBound, phiBound, rewardMax };
  }
  let horizon: number | null = null;
  if (o.horizon !== undefined && o.horizon !== null) {
    assertInt(o.horizon, "horizon", 2, Number.MAX_SAFE_INTEGER);
    horizon = o.horizon;
  }
  let confidence: number | null = null;
  if (o.confidence !== undefined && o.confidence !== null) {
    assertInRange(o.confidence, "confidence", 0, 1, { min: true, max: true });
    confidence = o.confidence;
  }
  const refitGrowth = o.refitGrowth ?? 1.2;
  assertInRange(refitGrowth, "refitGrowth", 1, 1e6, { min: true });
  const maxIter = o.maxIter ?? 50;
  assertInt(maxIter, "maxIter", 1, 10_000);
  const maxPending = o.maxPending ?? 100_000;
  assertInt(maxPending, "maxPending", 1, Number.MAX_SAFE_INTEGER);
  return {
    arms: [...o.arms],
    contextDim: o.contextDim,
    outputDim: o.outputDim,
    rewardParameter,
    rewardLink: oneOf(o.rewardLink, "rewardLink", ["identity", "logistic"] as const, "identity"),
    indexLink: oneOf(o.indexLink, "indexLink", ["tanh", "logistic", "linear"] as const, "tanh"),
    linkKnee,
    indexIntercept,
    rewardIntercept,
    indexBound: bound(o.indexBound, "indexBound", 3),
    rewardBound,
    ridge,
    indexRidge,
    radiusMode,
    exploration,
    explorationPlugIn,
    explorationReward,
    theory,
    horizon,
    confidence,
    refit: oneOf(o.refit, "refit", ["exact", "geometric"] as const, "exact"),
    refitGrowth,
    maxIter,
    maxPending,
  };
}

/** JSON form of a config (Infinity bounds as the string "Infinity"). */
export function cosmosConfigToJSON(c: CosmosConfig): Json {
  const inf = (v: number): Json => (v === Number.POSITIVE_INFINITY ? "Infinity" : v);
  return {
    ...c,
    arms: [...c.arms],
    rewardParameter: c.rewardParameter ? [...c.rewardParameter] : null,
    indexBound: inf(c.indexBound),
    rewardBound: inf(c.rewardBound),
    theory: c.theory ? { ...c.theory } : null,
  } as unknown as Json;
}

export function cosmosConfigFromJSON(j: Json | undefined): CosmosConfig {
  if (j === null || typeof j !== "object" || Array.isArray(j))
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "config" must be an object');
  const o = { ...(j as Record<string, unknown>) };
  for (const k of ["indexBound", "rewardBound"]) if (o[k] === "Infinity") o[k] = Number.POSITIVE_INFINITY;
  try {
    return readCosmosOptions(o as unknown as CosmosOptions);
  } catch (e) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot options are invalid: ${(e as Error).message}`);
  }
}
