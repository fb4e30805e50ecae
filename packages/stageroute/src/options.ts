/**
 * Options shared by StageRoute and its baselines, read once with core's option readers into a frozen
 * configuration that the snapshot keeps in full.
 */
import {
  ARM_POLICY_OPTION_KEYS,
  type ArmPolicyOptions,
  booleanOption,
  checkNumber,
  ErrorCode,
  enumOption,
  type Json,
  numberOption,
  optionKeys,
  RouteKitError,
  readEnum,
  readNumber,
  readObject,
  rejectUnknownOptions,
  requiredNumber,
  snapshotCorrupt,
} from "@routekit/core";
import type { Estimator } from "./bounds.js";
import { checkDeploySolver, type ExternalDeploySolver } from "./external.js";

export type BudgetMode = "average" | "paced";
export type TieBreak = "random" | "index";

/** Options of every stage-wise policy (StageRoute, the UCB/LCB-ratio greedy, the oracle). */
export interface StagePolicyOptions extends ArmPolicyOptions {
  /** Average cost per query allowed, b > 0 (in the units of the reported costs). Required. */
  readonly budget: number;
  /** Most models deployed at once, M_max >= 1. Required. */
  readonly maxDeployed: number;
  /** Rounds (selects) per stage L >= 1: the deployed set is re-chosen every L selects. Required. */
  readonly stageLength: number;
  /**
   * Cap on each model's share of traffic, alpha_m in (0, 1]: one number for every model, or a record by
   * model id (models it does not name get 1). Default 1. `addArm(id, { maxShare })` overrides it per model.
   */
  readonly maxShare?: number | Readonly<Record<string, number>>;
  /** Confidence parameter gamma of f_rad(v, n) = sqrt(gamma v / n) + gamma / n (default 0.2, the paper's experiments). */
  readonly exploration?: number;
  /** Known lower bound c1 >= 0 of a query's cost (default 0); cost bounds are clamped to [c1, c2]. */
  readonly minCost?: number;
  /** Known upper bound c2 >= c1 of a query's cost (default Infinity). */
  readonly maxCost?: number;
  /**
   * Unit costs are divided by before statistics and LPs: "budget" (default) measures costs in budgets
   * (costUnit = b), or a number in [1e-100, budget * 1e100] (1 = raw units as reported, c2 = the theory's [0, 1] scale).
   */
  readonly costUnit?: number | "budget";
  /** Reward mean assumed for a model with fewer than `initialPulls` plays (default 1: maximal optimism). */
  readonly priorReward?: number;
  /** Cost mean assumed for such a model (default minCost: maximal optimism). */
  readonly priorCost?: number;
  /** Plays a model gets counted as unexplored (prior bounds) (default 1, the paper). */
  readonly initialPulls?: number;
  /** "mean" (default): SR / N; "shrunk": SR / (N + 1) (the paper's App. B). */
  readonly estimator?: Estimator;
  /** Pad the deployed set to min(maxDeployed, pool) models (default true; false: exactly DeployOPT's support). */
  readonly fillSlots?: boolean;
  /** Which of several equally good deployments wins: "random" (default, seeded) or "index" (arrival order). */
  readonly tieBreak?: TieBreak;
  /** DeployOPT enumerates every subset when there are at most this many (default 50,000), else uses branch-and-bound. */
  readonly enumLimit?: number;
  /**
   * Most search-tree nodes (leaves, cut and bounded prefixes) DeployOPT's branch-and-bound examines at one
   * stage boundary, over all its searches (default Infinity: no limit). Beyond it the boundary deploys the best
   * subset found so far, or a feasible fallback, and `deployment.status` is "node-limit". Counted in nodes, not
   * time, so replicas stay identical.
   */
  readonly searchNodeLimit?: number;
  /**
   * An exact solver DeployOPT asks instead of running its branch-and-bound (beyond `enumLimit` subsets),
   * e.g. `await highsDeploySolver()` from "@routekit/stageroute/highs". Snapshots record its `name`; pass it
   * again to `fromJSON`.
   */
  readonly deploySolver?: ExternalDeploySolver;
  /** "average" (default, the paper): budget b per query in the LP; "paced": spend what is left over the rounds left. */
  readonly budgetMode?: BudgetMode;
  /** Planned number of rounds T (required by budgetMode "paced"). */
  readonly horizon?: number;
}

/** The option keys of {@link StagePolicyOptions}. */
export const STAGE_POLICY_OPTION_KEYS = optionKeys<StagePolicyOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "budget",
  "maxDeployed",
  "stageLength",
  "maxShare",
  "exploration",
  "minCost",
  "maxCost",
  "costUnit",
  "priorReward",
  "priorCost",
  "initialPulls",
  "estimator",
  "fillSlots",
  "tieBreak",
  "enumLimit",
  "searchNodeLimit",
  "deploySolver",
  "budgetMode",
  "horizon",
]);

/** The validated configuration (costs still in reported units). */
export interface StageConfig {
  readonly budget: number;
  readonly maxDeployed: number;
  readonly stageLength: number;
  readonly maxShareDefault: number;
  readonly maxShareByArm: Readonly<Record<string, number>>;
  readonly exploration: number;
  readonly minCost: number;
  readonly maxCost: number;
  /** The unit chosen ("budget" resolved to b). */
  readonly costUnit: number;
  readonly costUnitMode: "budget" | "number";
  readonly priorReward: number;
  readonly priorCost: number;
  readonly initialPulls: number;
  readonly estimator: Estimator;
  readonly fillSlots: boolean;
  readonly tieBreak: TieBreak;
  readonly enumLimit: number;
  /** Infinity when not given. */
  readonly searchNodeLimit: number;
  /** The external solver's name, or null (the solver itself is the policy's, not the configuration's). */
  readonly deploySolver: string | null;
  readonly budgetMode: BudgetMode;
  /** 0 when not given. */
  readonly horizon: number;
}

const positiveShare = { min: 0, openMin: true, max: 1 } as const;
/**
 * Floor of `budget` and of a numeric `costUnit`: costs are divided by the unit before they enter the
 * statistics, so a unit near the smallest double would turn every ordinary cost into Infinity. At 1e-100
 * any cost up to 1e200 stays finite, far beyond a real price list.
 */
export const MIN_COST_UNIT = 1e-100;
const unitRange = { min: MIN_COST_UNIT } as const;

function shareRecord(v: unknown): { def: number; byArm: Record<string, number> } {
  if (v === undefined) return { def: 1, byArm: {} };
  if (typeof v === "number") return { def: checkNumber(v, "option maxShare", positiveShare), byArm: {} };
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      "option maxShare must be a number in (0, 1] or a record { [arm]: number in (0, 1] }",
    );
  }
  const byArm: Record<string, number> = Object.create(null);
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    byArm[k] = checkNumber(x, `option maxShare["${k}"]`, positiveShare);
  }
  return { def: 1, byArm };
}

/**
 * Costs enter the statistics and the LPs divided by the cost unit: a cost bound that overflows there
 * would turn every bound into Infinity or NaN, so it is out of range (OUT_OF_RANGE).
 */
function inUnits(v: number, name: string, unit: number): void {
  if (!Number.isFinite(v / unit)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `option ${name} (${v}) divided by the cost unit (${unit}) is not a finite number: costs are measured in cost units`,
    );
  }
}

/** Reads and validates the stage options (throws INVALID_ARGUMENT, NON_FINITE or OUT_OF_RANGE). */
export function readStageOptions(o: Record<string, unknown>): StageConfig {
  const budget = requiredNumber(o, "budget", unitRange);
  const maxDeployed = requiredNumber(o, "maxDeployed", { integer: true, min: 1, max: 1 << 16 });
  const stageLength = requiredNumber(o, "stageLength", { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER });
  const shares = shareRecord(o.maxShare);
  const exploration = numberOption(o, "exploration", 0.2, { min: 0 });
  const minCost = numberOption(o, "minCost", 0, { min: 0 });
  let maxCost = Number.POSITIVE_INFINITY;
  if (o.maxCost !== undefined && o.maxCost !== Number.POSITIVE_INFINITY) {
    maxCost = checkNumber(o.maxCost, "option maxCost", { min: minCost });
  }
  const cu = o.costUnit;
  let costUnit = budget;
  let costUnitMode: "budget" | "number" = "budget";
  if (cu !== undefined && cu !== "budget") {
    if (typeof cu === "string") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option costUnit must be "budget" or a number >= 1e-100, got "${cu}"`,
      );
    }
    costUnit = checkNumber(cu, "option costUnit", unitRange);
    costUnitMode = "number";
    // The budget in cost units gets the same floor as the budget itself: below it (1e-100 / 1e250 is 0)
    // the routing LPs would see a budget of 0 and costs rounded to 0. The bound is the documented
    // b * 1e100 as computed (b / (b * 1e100) can round a hair below 1e-100, e.g. for b = 3; still far from 0).
    if (!(costUnit <= budget * 1e100)) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `option costUnit must be at most budget * 1e100 (= ${budget * 1e100}), got ${costUnit}: the budget in cost units must stay >= 1e-100`,
      );
    }
  }
  const priorReward = numberOption(o, "priorReward", 1, { min: 0, max: 1 });
  const priorCost = numberOption(o, "priorCost", minCost, { min: 0 });
  inUnits(minCost, "minCost", costUnit);
  inUnits(priorCost, "priorCost", costUnit);
  const initialPulls = numberOption(o, "initialPulls", 1, { integer: true, min: 1, max: 1_000_000 });
  const estimator = enumOption(o, "estimator", ["mean", "shrunk"] as const, "mean");
  const fillSlots = booleanOption(o, "fillSlots", true);
  const tieBreak = enumOption(o, "tieBreak", ["random", "index"] as const, "random");
  const enumLimit = numberOption(o, "enumLimit", 50_000, { integer: true, min: 0, max: 1e8 });
  const searchNodeLimit =
    o.searchNodeLimit === Number.POSITIVE_INFINITY
      ? Number.POSITIVE_INFINITY
      : numberOption(o, "searchNodeLimit", Number.POSITIVE_INFINITY, {
          integer: true,
          min: 1,
          max: Number.MAX_SAFE_INTEGER,
        });
  const deploySolver = checkDeploySolver(o.deploySolver)?.name ?? null;
  const budgetMode = enumOption(o, "budgetMode", ["average", "paced"] as const, "average");
  const horizon = numberOption(o, "horizon", 0, { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER });
  if (budgetMode === "paced" && horizon === 0) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      'budgetMode "paced" needs option horizon (the planned number of rounds)',
    );
  }
  Object.freeze(shares.byArm);
  return Object.freeze({
    budget,
    maxDeployed,
    stageLength,
    maxShareDefault: shares.def,
    maxShareByArm: shares.byArm,
    exploration,
    minCost,
    maxCost,
    costUnit,
    costUnitMode,
    priorReward,
    priorCost,
    initialPulls,
    estimator,
    fillSlots,
    tieBreak,
    enumLimit,
    searchNodeLimit,
    deploySolver,
    budgetMode,
    horizon,
  });
}

/** The configuration as options again (what a snapshot stores and fromJSON passes back). */
export function configToJson(c: StageConfig): Record<string, Json> {
  return {
    budget: c.budget,
    maxDeployed: c.maxDeployed,
    stageLength: c.stageLength,
    maxShareDefault: c.maxShareDefault,
    maxShareByArm: { ...c.maxShareByArm },
    exploration: c.exploration,
    minCost: c.minCost,
    maxCost: Number.isFinite(c.maxCost) ? c.maxCost : null,
    costUnit: c.costUnitMode === "budget" ? "budget" : c.costUnit,
    priorReward: c.priorReward,
    priorCost: c.priorCost,
    initialPulls: c.initialPulls,
    estimator: c.estimator,
    fillSlots: c.fillSlots,
    tieBreak: c.tieBreak,
    enumLimit: c.enumLimit,
    // Written only when set: a snapshot of a policy without them is byte for byte the one earlier versions wrote
    // (the committed conformance fixtures restore and write themselves again).
    ...(Number.isFinite(c.searchNodeLimit) ? { searchNodeLimit: c.searchNodeLimit } : {}),
    ...(c.deploySolver !== null ? { deploySolver: c.deploySolver } : {}),
    budgetMode: c.budgetMode,
    horizon: c.horizon === 0 ? null : c.horizon,
  };
}

/** The keys of a snapshot's configuration (see {@link configToJson}). */
const CONFIG_JSON_KEYS = [
  "budget",
  "maxDeployed",
  "stageLength",
  "maxShareDefault",
  "maxShareByArm",
  "exploration",
  "minCost",
  "maxCost",
  "costUnit",
  "priorReward",
  "priorCost",
  "initialPulls",
  "estimator",
  "fillSlots",
  "tieBreak",
  "enumLimit",
  "searchNodeLimit",
  "deploySolver",
  "budgetMode",
  "horizon",
] as const satisfies readonly (keyof ReturnType<typeof configToJson> & string)[];

/**
 * Reads a snapshot's configuration back into constructor options (throws SNAPSHOT_CORRUPT on a wrong type).
 * The external solver is not in it: {@link restoreSolver} checks the one passed to fromJSON against the name.
 */
export function configFromJson(json: Json | undefined): Omit<StagePolicyOptions, "arms" | "deploySolver"> {
  const o = readObject(json, '"config"');
  rejectUnknownOptions(o, CONFIG_JSON_KEYS, '"config"');
  const shares = readObject(o.maxShareByArm, '"config.maxShareByArm"');
  const byArm: Record<string, number> = Object.create(null);
  for (const [k, v] of Object.entries(shares)) {
    if (typeof v !== "number") snapshotCorrupt(`config.maxShareByArm["${k}"]`, "a number");
    byArm[k] = v as number;
  }
  const def = readNumber(o, "maxShareDefault");
  // The options give either one cap for every model or a record (unnamed models then get 1).
  if (Object.keys(byArm).length > 0 && def !== 1) snapshotCorrupt('"config.maxShareDefault"', "1 next to a cap record");
  const maxCost = o.maxCost === null ? undefined : readNumber(o, "maxCost");
  const costUnit = o.costUnit === "budget" ? "budget" : readNumber(o, "costUnit");
  const horizon = o.horizon === null ? undefined : readNumber(o, "horizon");
  // Absent: no limit (configToJson writes no key then, and snapshots written before the option existed have none).
  // null is no value configToJson writes: it restored as "no limit" without a word.
  const searchNodeLimit = o.searchNodeLimit === undefined ? undefined : o.searchNodeLimit;
  if (searchNodeLimit !== undefined && (typeof searchNodeLimit !== "number" || !Number.isFinite(searchNodeLimit)))
    snapshotCorrupt('"config.searchNodeLimit"', "an integer >= 1 (absent: no limit)");
  return {
    budget: readNumber(o, "budget"),
    maxDeployed: readNumber(o, "maxDeployed"),
    stageLength: readNumber(o, "stageLength"),
    maxShare: Object.keys(byArm).length > 0 ? byArm : def,
    exploration: readNumber(o, "exploration"),
    minCost: readNumber(o, "minCost"),
    ...(maxCost === undefined ? {} : { maxCost }),
    costUnit,
    priorReward: readNumber(o, "priorReward"),
    priorCost: readNumber(o, "priorCost"),
    initialPulls: readNumber(o, "initialPulls"),
    estimator: readEnum(o, "estimator", ["mean", "shrunk"] as const),
    fillSlots:
      o.fillSlots === true ? true : o.fillSlots === false ? false : snapshotCorrupt('"config.fillSlots"', "a boolean"),
    tieBreak: readEnum(o, "tieBreak", ["random", "index"] as const),
    enumLimit: readNumber(o, "enumLimit"),
    ...(searchNodeLimit === undefined ? {} : { searchNodeLimit: searchNodeLimit as number }),
    budgetMode: readEnum(o, "budgetMode", ["average", "paced"] as const),
    ...(horizon === undefined ? {} : { horizon }),
  };
}

/** What `fromJSON` takes besides the snapshot: the functions a snapshot cannot hold. */
export interface StageRestoreOptions {
  /** The external DeployOPT solver the snapshot's policy used (its `name` must match the snapshot's). */
  readonly deploySolver?: ExternalDeploySolver;
}

/** The keys of {@link StageRestoreOptions}. */
export const STAGE_RESTORE_OPTION_KEYS = optionKeys<StageRestoreOptions>()(["deploySolver"]);

/**
 * The external solver to restore a snapshot with: the one given, which must carry the name the snapshot
 * recorded (`config.deploySolver`); none when the snapshot recorded none. INVALID_ARGUMENT otherwise (an
 * option problem, not a corrupt snapshot), and SNAPSHOT_CORRUPT when the recorded name is not a string.
 */
export function restoreSolver(
  kind: string,
  config: Json | undefined,
  options: unknown,
): ExternalDeploySolver | undefined {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${kind} fromJSON options must be an object { deploySolver? }`);
  }
  rejectUnknownOptions(
    options as Record<string, unknown> | undefined,
    STAGE_RESTORE_OPTION_KEYS,
    `${kind} fromJSON`,
    true,
  );
  const given = checkDeploySolver(
    (options as StageRestoreOptions | undefined)?.deploySolver,
    "fromJSON option deploySolver",
  );
  const o = readObject(config, '"config"');
  // Absent: the built-in search (configToJson writes no key then); null is no value it writes.
  const name = o.deploySolver;
  if (name !== undefined && typeof name !== "string")
    snapshotCorrupt('"config.deploySolver"', "a solver name (absent: the built-in search)");
  if (name === undefined) {
    if (given !== undefined) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `this ${kind} snapshot used the built-in DeployOPT search, but fromJSON was given deploySolver "${given.name}": a restore keeps the snapshot's configuration`,
      );
    }
    return undefined;
  }
  if (given === undefined) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `this ${kind} snapshot used the external DeployOPT solver "${name}": pass it again, fromJSON(snapshot, { deploySolver })` +
        (name === "highs" ? ' with deploySolver = await highsDeploySolver() from "@routekit/stageroute/highs"' : ""),
    );
  }
  if (given.name !== name) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `this ${kind} snapshot used the external DeployOPT solver "${name}", but fromJSON was given "${given.name}"`,
    );
  }
  return given;
}
