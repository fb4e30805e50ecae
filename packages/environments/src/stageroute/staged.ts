/**
 * A streaming pool of models with rewards, costs and capacity caps, for budget-constrained routing
 * with stage-wise deployment (StageRoute, Li & Li, "Keeping Up with the Models"). Models arrive at
 * fixed rounds; the regret reference is the stage-wise clairvoyant oracle of the paper:
 * V(b, M_{tau_k}) = the best routing over at most `maxDeployed` of the models available at the start
 * of the round's stage, under the budget and the caps (an LP with a cardinality constraint, solved by
 * an injected exact solver such as `stageValue` from @routekit/stageroute; @routekit/environments
 * depends only on core and linalg).
 */
import {
  type ArmEnvironment,
  type ArmFeedback,
  type ArmRound,
  describe,
  ErrorCode,
  optionKeys,
  type Rng,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import { checkNumber, checkRound, needReset, unknownArm } from "../basic/common.js";

/** One model of the pool. */
export interface StagedModel {
  readonly id: string;
  /** Mean reward mu in [0, 1] (before any noise clamp; see the README on clamped Gaussian noise). */
  readonly reward: number;
  /** Mean cost per query E[c] > 0 (the noise keeps this mean, up to the [minCost, maxCost] clamp). */
  readonly cost: number;
  /** Cap on the model's share of traffic, in (0, 1]. */
  readonly maxShare: number;
  /** First round (0-based) at which the model is available (default 0). */
  readonly arrival?: number;
}

/** The option keys of {@link StagedModel}. */
export const STAGED_MODEL_KEYS = optionKeys<StagedModel>()(["id", "reward", "cost", "maxShare", "arrival"]);

/**
 * Exact value of the stage problem max_p sum mu p s.t. sum c p <= budget, sum p = 1, 0 <= p <= caps,
 * |supp p| <= maxDeployed; returns the value and an optimal p (all zeros and value 0 when infeasible).
 */
export type StageValueSolver = (
  rewards: Float64Array,
  costs: Float64Array,
  caps: Float64Array,
  budget: number,
  maxDeployed: number,
) => { readonly value: number; readonly weights: ArrayLike<number> };

/** Slack of the solver checks: an LP solver's weights and value are exact only up to its tolerances. */
const SOLVER_TOL = 1e-6;

/**
 * Refuses a stage solver's output that is no routing of the k models (INVALID_ARGUMENT naming the option): it became
 * every round's regret reference unchecked, so a NaN value or too short a weights array gave NaN regrets or wrong
 * isOptimal answers. A routing: k finite weights (the first k of a longer buffer) in [0, 1] summing to 1 (all 0 with
 * value 0: infeasible), at most maxDeployed of them positive, and value = sum of reward x weight. Caps and budget
 * are left to the solver (test solvers ignore them).
 */
function checkSolverOutput(got: unknown, mu: Float64Array, k: number, maxDeployed: number): void {
  const bad = (why: string): never => {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `option oracle (the stage solver) returned ${why} for a pool of ${k} models; expected { value, weights }: a routing of the pool and its value`,
    );
  };
  if (got === null || typeof got !== "object") bad(`${describe(got)}, not an object`);
  const { value, weights } = got as { value: unknown; weights: unknown };
  if (typeof value !== "number" || !Number.isFinite(value)) bad(`value ${describe(value)}, not a finite number`);
  const w = weights as ArrayLike<unknown> | null | undefined;
  if (w === null || typeof w !== "object" || typeof w.length !== "number") bad("weights that are not an array");
  const ws = w as ArrayLike<unknown>;
  // A longer array is a solver's reused buffer (sized for the largest pool): its first k entries are read.
  if (!(ws.length >= k)) bad(`${ws.length} weights`);
  let sum = 0;
  let deployed = 0;
  let expected = 0;
  for (let i = 0; i < k; i++) {
    const x = ws[i];
    if (typeof x !== "number" || !(x >= -SOLVER_TOL && x <= 1 + SOLVER_TOL))
      bad(`weights[${i}] = ${describe(x)}, not a number in [0, 1]`);
    const p = x as number;
    sum += p;
    // The threshold isOptimal uses: a model above it counts as deployed.
    if (p > 1e-12) deployed++;
    expected += p * (mu[i] as number);
  }
  const infeasible = deployed === 0 && value === 0;
  if (!infeasible && Math.abs(sum - 1) > SOLVER_TOL) bad(`weights summing to ${sum}, not 1 (nor all 0 with value 0)`);
  if (deployed > maxDeployed) bad(`${deployed} positive weights, more than maxDeployed = ${maxDeployed}`);
  if (Math.abs((value as number) - expected) > SOLVER_TOL)
    bad(`value ${value}, but its weights give sum of reward x weight = ${expected}`);
}

export type RewardNoise = "gaussian" | "bernoulli";
export type CostNoise = "gaussian" | "lognormal" | "fixed";

export interface StagedCostBanditOptions {
  readonly models: readonly StagedModel[];
  /** Average cost per query allowed (the oracle's budget b). */
  readonly budget: number;
  /** Rounds per stage L of the oracle (the deployment interval of the policies compared). */
  readonly stageLength: number;
  /** Most models the oracle may use at once (M_max). */
  readonly maxDeployed: number;
  /** Exact stage-problem solver, e.g. `stageValue` from @routekit/stageroute. */
  readonly oracle: StageValueSolver;
  /** "gaussian" (default): clamp(mu + N(0, rewardSd^2), 0, 1); "bernoulli": 1 with probability mu. */
  readonly rewardNoise?: RewardNoise;
  /** Reward noise sd for "gaussian" (default 0.1). */
  readonly rewardSd?: number;
  /**
   * "gaussian" (default): clamp(c (1 + N(0, costSd^2)), minCost, maxCost); "lognormal":
   * clamp(c LogNormal(-costSd^2 / 2, costSd), minCost, maxCost) (mean c before the clamp); "fixed": c.
   */
  readonly costNoise?: CostNoise;
  /** Cost noise sd (default 0.1). */
  readonly costSd?: number;
  /** Known cost bounds c1 <= c2 used to clamp realised costs (default 0 and +Infinity). */
  readonly minCost?: number;
  readonly maxCost?: number;
  readonly name?: string;
}

/** The option keys of {@link StagedCostBanditOptions}. */
export const STAGED_COST_BANDIT_OPTION_KEYS = optionKeys<StagedCostBanditOptions>()([
  "models",
  "budget",
  "stageLength",
  "maxDeployed",
  "oracle",
  "rewardNoise",
  "rewardSd",
  "costNoise",
  "costSd",
  "minCost",
  "maxCost",
  "name",
]);

/**
 * The environment of budget-constrained routing over an arriving pool. Each model draws its rewards
 * and costs from its own stream (fork `model:<id>` of the reset rng, indexed by call), so adding a model
 * never shifts another model's draws and every policy on one seed sees common random numbers.
 */
export class StagedCostBandit implements ArmEnvironment {
  readonly name: string;
  readonly contextDim = 0;
  readonly initialArms: readonly string[];
  readonly budget: number;
  readonly stageLength: number;
  readonly maxDeployed: number;
  readonly rewardNoise: RewardNoise;
  readonly costNoise: CostNoise;
  readonly rewardSd: number;
  readonly costSd: number;
  readonly minCost: number;
  readonly maxCost: number;
  protected readonly ids: string[];
  protected readonly mu: Float64Array;
  protected readonly price: Float64Array;
  protected readonly caps: Float64Array;
  /** Arrival round of each model (a Float64Array: rounds past 2^31 stay exact, an Int32Array wrapped them). */
  protected readonly arrivalOf: Float64Array;
  private readonly index = new Map<string, number>();
  private readonly oracle: StageValueSolver;
  private streams: Rng[] = [];
  private ready = false;
  private t = 0;
  private live = 0;
  /** Models announced so far (the initial ones count): next(t) announces the rest as their arrival round is reached. */
  private announced = 0;
  /** Oracle value and weights per pool size (the pool only grows), computed lazily; the weights are a copy. */
  private readonly cache = new Map<number, { readonly value: number; readonly weights: Float64Array }>();

  constructor(options: StagedCostBanditOptions) {
    rejectUnknownOptions(options, STAGED_COST_BANDIT_OPTION_KEYS, "StagedCostBandit");
    if (options === null || typeof options !== "object" || !Array.isArray(options.models)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "options.models must be an array of models");
    }
    if (options.models.length === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "options.models is empty");
    if (typeof options.oracle !== "function") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "option oracle must be a stage-problem solver (e.g. stageValue from @routekit/stageroute)",
      );
    }
    this.oracle = options.oracle;
    this.budget = checkNumber(options.budget, "option budget", (v) => v > 0, "a finite number > 0");
    this.stageLength = checkNumber(
      options.stageLength,
      "option stageLength",
      (v) => Number.isInteger(v) && v >= 1,
      "an integer >= 1",
    );
    this.maxDeployed = checkNumber(
      options.maxDeployed,
      "option maxDeployed",
      (v) => Number.isInteger(v) && v >= 1,
      "an integer >= 1",
    );
    this.rewardNoise = options.rewardNoise ?? "gaussian";
    if (this.rewardNoise !== "gaussian" && this.rewardNoise !== "bernoulli") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option rewardNoise must be "gaussian" or "bernoulli", got ${String(this.rewardNoise)}`,
      );
    }
    this.costNoise = options.costNoise ?? "gaussian";
    if (!["gaussian", "lognormal", "fixed"].includes(this.costNoise)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option costNoise must be "gaussian", "lognormal" or "fixed", got ${String(this.costNoise)}`,
      );
    }
    this.rewardSd = checkNumber(options.rewardSd ?? 0.1, "option rewardSd", (v) => v >= 0, "a finite number >= 0");
    this.costSd = checkNumber(options.costSd ?? 0.1, "option costSd", (v) => v >= 0, "a finite number >= 0");
    this.minCost = checkNumber(options.minCost ?? 0, "option minCost", (v) => v >= 0, "a finite number >= 0");
    const maxCost = options.maxCost ?? Number.POSITIVE_INFINITY;
    if (typeof maxCost !== "number" || Number.isNaN(maxCost) || !(maxCost >= this.minCost)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option maxCost must be a number >= minCost, got ${String(maxCost)}`,
      );
    }
    this.maxCost = maxCost;
    const n = options.models.length;
    this.ids = [];
    this.mu = new Float64Array(n);
    this.price = new Float64Array(n);
    this.caps = new Float64Array(n);
    this.arrivalOf = new Float64Array(n);
    options.models.forEach((m, i) => {
      if (m === null || typeof m !== "object" || typeof m.id !== "string" || m.id.length === 0) {
        throw new RouteKitError(ErrorCode.InvalidArgument, `models[${i}] must have a non-empty string id`);
      }
      rejectUnknownOptions(m, STAGED_MODEL_KEYS, `models[${i}]`);
      if (this.index.has(m.id)) throw new RouteKitError(ErrorCode.DuplicateArm, `models lists "${m.id}" twice`);
      this.index.set(m.id, i);
      this.ids.push(m.id);
      this.mu[i] = checkNumber(m.reward, `models[${i}].reward`, (v) => v >= 0 && v <= 1, "in [0, 1]");
      this.price[i] = checkNumber(m.cost, `models[${i}].cost`, (v) => v > 0, "a finite number > 0");
      this.caps[i] = checkNumber(m.maxShare, `models[${i}].maxShare`, (v) => v > 0 && v <= 1, "in (0, 1]");
      const a = checkNumber(
        m.arrival ?? 0,
        `models[${i}].arrival`,
        (v) => Number.isInteger(v) && v >= 0,
        "an integer >= 0",
      );
      if (i > 0 && a < (this.arrivalOf[i - 1] as number)) {
        throw new RouteKitError(ErrorCode.InvalidArgument, "models must be listed in arrival order");
      }
      this.arrivalOf[i] = a;
    });
    this.initialArms = this.ids.filter((_, i) => this.arrivalOf[i] === 0);
    if (this.initialArms.length === 0) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "at least one model must be available at round 0 (arrival 0)");
    }
    this.name = options.name ?? `staged-cost(${n} models)`;
  }

  /** Every model of the pool (arrived or not) with its parameters, in arrival order. */
  get models(): StagedModel[] {
    return this.ids.map((id, i) => ({
      id,
      reward: this.mu[i] as number,
      cost: this.price[i] as number,
      maxShare: this.caps[i] as number,
      arrival: this.arrivalOf[i] as number,
    }));
  }

  /** Capacity caps by model id (for a policy's `maxShare` option). */
  get maxShares(): Record<string, number> {
    // fromEntries defines own properties: an id such as "__proto__" is a key like any other.
    return Object.fromEntries(this.ids.map((id, i) => [id, this.caps[i] as number]));
  }

  reset(rng: Rng): void {
    this.streams = this.ids.map((id) => rng.fork(`model:${id}`));
    this.onReset(rng);
    this.cache.clear();
    this.ready = true;
    this.t = 0;
    this.live = this.initialArms.length;
    this.announced = this.live;
  }

  /** Hook for environments whose means depend on the seed (called before the first round). */
  protected onReset(_rng: Rng): void {}

  next(t: number): ArmRound {
    needReset(this.ready, this.name);
    checkRound(t, `${this.name}: the round t given to next(t)`);
    let live = 0;
    while (live < this.ids.length && (this.arrivalOf[live] as number) <= t) live++;
    // Going back before an announced model's arrival would take it out of the pool while policies hold it (every
    // pull of it UNKNOWN_ARM) and it would never be announced again: refused, the environment left as it was.
    if (live < this.announced) {
      throw new RouteKitError(
        ErrorCode.InvalidState,
        `${this.name}: round ${t} is before the arrival of model "${this.ids[live]}" (round ${this.arrivalOf[live]}), already announced (the last round given was ${this.t}); call reset to start again`,
      );
    }
    this.t = t;
    this.live = live;
    // Every model arrived by t and not yet announced, in arrival order: a caller skipping rounds (next(5) after
    // next(1)) never heard of a model due at round 3, though it was live. Round by round this is t's own arrivals.
    if (live <= this.announced) return { context: undefined };
    const arrivals = this.ids.slice(this.announced, live);
    this.announced = live;
    return { context: undefined, arrivals };
  }

  private at(arm: string): number {
    const i = this.index.get(arm);
    if (i === undefined || i >= this.live) throw unknownArm(arm, this.ids.slice(0, this.live));
    return i;
  }

  expectedReward(arm: string): number {
    needReset(this.ready, this.name);
    return this.mu[this.at(arm)] as number;
  }

  expectedCost(arm: string): number {
    needReset(this.ready, this.name);
    return this.price[this.at(arm)] as number;
  }

  /** Number of models in the oracle's pool for round t: those available at the start of t's stage. */
  poolSizeAt(t: number): number {
    // NaN compared false with every arrival and gave a pool of 0.
    checkRound(t, `${this.name}: the round t given to poolSizeAt(t)`);
    const start = Math.floor(t / this.stageLength) * this.stageLength;
    let k = 0;
    while (k < this.ids.length && (this.arrivalOf[k] as number) <= start) k++;
    return k;
  }

  /**
   * The oracle's value V(b, pool) and weights for a pool of the first k models: a copy (writing to it changes no
   * regret reference).
   */
  stageOptimum(k: number): { value: number; weights: ArrayLike<number> } {
    // NaN or 1.5 made empty or truncated pools (slice(0, NaN) is empty) and cached them under that key.
    checkNumber(
      k,
      "stageOptimum(k)",
      (v) => Number.isInteger(v) && v >= 1 && v <= this.ids.length,
      `an integer in [1, ${this.ids.length}]`,
    );
    const v = this.optimum(k);
    return { value: v.value, weights: v.weights.slice() };
  }

  private optimum(k: number): { readonly value: number; readonly weights: Float64Array } {
    let v = this.cache.get(k);
    if (v === undefined) {
      const got = this.oracle(
        this.mu.slice(0, k),
        this.price.slice(0, k),
        this.caps.slice(0, k),
        this.budget,
        this.maxDeployed,
      );
      checkSolverOutput(got, this.mu, k, this.maxDeployed);
      // The solver's weights are copied: a solver may reuse its output buffer from one call to the next.
      const weights = new Float64Array(k);
      for (let i = 0; i < k; i++) weights[i] = got.weights[i] as number;
      v = { value: got.value, weights };
      this.cache.set(k, v);
    }
    return v;
  }

  oracleReward(): number {
    needReset(this.ready, this.name);
    return this.optimum(this.poolSizeAt(this.t)).value;
  }

  /** The best model available at round 0 whose mean cost fits the budget (the cheapest one if none does). */
  bestFixedArm(): string {
    needReset(this.ready, this.name);
    let best = -1;
    let cheapest = 0;
    for (let i = 0; i < this.initialArms.length; i++) {
      if ((this.price[i] as number) < (this.price[cheapest] as number)) cheapest = i;
      if ((this.price[i] as number) <= this.budget && (best < 0 || (this.mu[i] as number) > (this.mu[best] as number)))
        best = i;
    }
    return this.ids[best < 0 ? cheapest : best] as string;
  }

  bestFixedReward(): number {
    return this.mu[this.index.get(this.bestFixedArm()) as number] as number;
  }

  /** Whether `arm` carries traffic in the oracle's routing for this round's stage. */
  isOptimal(arm: string): boolean {
    needReset(this.ready, this.name);
    const i = this.at(arm);
    const k = this.poolSizeAt(this.t);
    return i < k && (this.optimum(k).weights[i] as number) > 1e-12;
  }

  pull(arm: string): ArmFeedback {
    needReset(this.ready, this.name);
    const i = this.at(arm);
    const r = this.streams[i] as Rng;
    const mu = this.mu[i] as number;
    let reward: number;
    if (this.rewardNoise === "bernoulli") reward = r.uniform() < mu ? 1 : 0;
    else {
      const x = mu + this.rewardSd * r.normal();
      reward = x < 0 ? 0 : x > 1 ? 1 : x;
    }
    const c = this.price[i] as number;
    let cost = c;
    if (this.costNoise === "gaussian") cost = c * (1 + this.costSd * r.normal());
    else if (this.costNoise === "lognormal")
      cost = c * Math.exp(-0.5 * this.costSd * this.costSd + this.costSd * r.normal());
    cost = cost < this.minCost ? this.minCost : cost > this.maxCost ? this.maxCost : cost;
    return { reward, cost };
  }
}
