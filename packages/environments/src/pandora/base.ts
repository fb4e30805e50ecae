/**
 * Shared machinery of the cascade (Pandora's box) environments: per request, every box's potential
 * output is drawn up front (common random numbers: the policy and the Weitzman oracle see the same
 * draws) and hidden behind `query`. The oracle opens boxes in decreasing true index order and stops as
 * soon as the best opened reward is >= the next index (Weitzman's rule), so `oracleUtility` is the
 * realised utility of the optimal policy on the same draws, and the runner's per-round
 * regret (oracle utility - policy utility) is an unbiased estimate of the paper's pseudo-regret.
 */
import { type CascadeEnvironment, ErrorCode, type Rng, RouteKitError } from "@routekit/core";
import { needReset, unknownArm } from "../basic/common.js";

/** What a box's output is worth, for reporting and for the reference policies. */
export interface CascadeTruth {
  /** psi(x) = (1, x): index features. */
  readonly indexFeatures: Float64Array;
  /** True reservation index sigma*_a(x) per box. */
  readonly indices: Float64Array;
  /** mu*(x, omega_a) of each box's drawn output. */
  readonly rewards: Float64Array;
  /** Realised cost of each box's drawn output. */
  readonly costs: Float64Array;
  /** E[mu*(x, omega_a) | x] per box. */
  readonly meanRewards: Float64Array;
  /** E[c_a | x] per box. */
  readonly meanCosts: Float64Array;
}

export abstract class CascadeEnvironmentBase implements CascadeEnvironment {
  abstract readonly name: string;
  /** Index link of the true reservation index: sigma*_a(x) = Lambda(rho_a . (1, x)). */
  abstract readonly indexLink: "linear" | "tanh";
  /** Reward link: mu*(x, omega) = G(theta* . omega). */
  abstract readonly rewardLink: "identity" | "logistic";
  /** The true index parameter rho_a per box (in initialArms order). */
  abstract indexParameters(): number[][];
  /** The true reward parameter theta*. */
  abstract rewardParameter(): number[];
  readonly contextDim: number;
  readonly initialArms: readonly string[];
  /** Length of each box's output features (phi = omega). */
  readonly outputDim: number;
  protected readonly context: Float64Array;
  protected readonly psi: Float64Array;
  protected readonly features: Float64Array[];
  /**
   * What `query` returns: a copy of the box's features, one reused buffer per box rewritten on every query. It
   * returned `features` itself, so a policy writing to a vector changed what later queries of that box showed.
   */
  private readonly shown: Float64Array[];
  protected readonly indices: Float64Array;
  protected readonly rewards: Float64Array;
  protected readonly costs: Float64Array;
  protected readonly meanRewards: Float64Array;
  protected readonly meanCosts: Float64Array;
  private readonly armIndex = new Map<string, number>();
  private readonly order: number[];
  private contextRng: Rng | undefined;
  private outputRng: Rng | undefined;
  private rewardRng: Rng | undefined;
  private oracleValue = 0;
  private oracleQueryCount = 0;
  private ready = false;

  protected constructor(arms: readonly string[], contextDim: number, outputDim: number) {
    this.initialArms = Object.freeze([...arms]);
    this.contextDim = contextDim;
    this.outputDim = outputDim;
    const A = arms.length;
    for (const [i, a] of arms.entries()) this.armIndex.set(a, i);
    this.context = new Float64Array(contextDim);
    this.psi = new Float64Array(contextDim + 1);
    this.features = arms.map(() => new Float64Array(outputDim));
    this.shown = arms.map(() => new Float64Array(outputDim));
    this.indices = new Float64Array(A);
    this.rewards = new Float64Array(A);
    this.costs = new Float64Array(A);
    this.meanRewards = new Float64Array(A);
    this.meanCosts = new Float64Array(A);
    this.order = arms.map((_, i) => i);
  }

  /** Draws the context x into this.context (psi is filled by the base). */
  protected abstract drawContext(rng: Rng): void;
  /**
   * Fills, for the current context, every box's output features, mu*, realised cost, true index and
   * conditional means.
   */
  protected abstract drawOutputs(rng: Rng): void;

  reset(rng: Rng): void {
    this.contextRng = rng.fork("contexts");
    this.outputRng = rng.fork("outputs");
    this.rewardRng = rng.fork("rewards");
    this.ready = true;
  }

  next(_t: number): { readonly context: Float64Array } {
    needReset(this.ready, this.name);
    this.drawContext(this.contextRng as Rng);
    this.psi[0] = 1;
    this.psi.set(this.context, 1);
    this.drawOutputs(this.outputRng as Rng);
    // Weitzman's policy on the drawn outputs.
    const idx = this.indices;
    const order = this.order;
    order.sort((a, b) => (idx[b] as number) - (idx[a] as number) || a - b);
    let best = Number.NEGATIVE_INFINITY;
    let paid = 0;
    let k = 0;
    for (; k < order.length; k++) {
      const a = order[k] as number;
      paid += this.costs[a] as number;
      if ((this.rewards[a] as number) > best) best = this.rewards[a] as number;
      const nextIndex = k + 1 < order.length ? (idx[order[k + 1] as number] as number) : Number.NEGATIVE_INFINITY;
      if (best >= nextIndex) break;
    }
    this.oracleValue = best - paid;
    this.oracleQueryCount = k + 1;
    return { context: this.context };
  }

  private box(arm: string): number {
    needReset(this.ready, this.name);
    const i = this.armIndex.get(arm);
    if (i === undefined) throw unknownArm(arm, this.initialArms);
    return i;
  }

  query(arm: string): { readonly features: Float64Array; readonly cost: number } {
    const i = this.box(arm);
    const shown = this.shown[i] as Float64Array;
    shown.set(this.features[i] as Float64Array);
    return { features: shown, cost: this.costs[i] as number };
  }

  expectedReward(arm: string): number {
    return this.rewards[this.box(arm)] as number;
  }

  reward(arm: string): number {
    const p = this.rewards[this.box(arm)] as number;
    return (this.rewardRng as Rng).uniform() < p ? 1 : 0;
  }

  oracleUtility(): number {
    needReset(this.ready, this.name);
    return this.oracleValue;
  }

  /** Boxes the oracle opened this round. */
  oracleQueries(): number {
    return this.oracleQueryCount;
  }

  /** This round's ground truth (copies). */
  truth(): CascadeTruth {
    return {
      indexFeatures: this.psi.slice(),
      indices: this.indices.slice(),
      rewards: this.rewards.slice(),
      costs: this.costs.slice(),
      meanRewards: this.meanRewards.slice(),
      meanCosts: this.meanCosts.slice(),
    };
  }

  /** Realised utility this round of opening only the box with the best E[mu - c | x] (one-shot oracle). */
  oneShotUtility(): number {
    let best = 0;
    let bestV = Number.NEGATIVE_INFINITY;
    for (let a = 0; a < this.indices.length; a++) {
      const v = (this.meanRewards[a] as number) - (this.meanCosts[a] as number);
      if (v > bestV) {
        bestV = v;
        best = a;
      }
    }
    return (this.rewards[best] as number) - (this.costs[best] as number);
  }

  /** Realised utility this round of opening every box and deploying the best. */
  queryAllUtility(): number {
    let best = Number.NEGATIVE_INFINITY;
    let paid = 0;
    for (let a = 0; a < this.indices.length; a++) {
      paid += this.costs[a] as number;
      if ((this.rewards[a] as number) > best) best = this.rewards[a] as number;
    }
    return best - paid;
  }
}

export function checkArms(arms: readonly string[] | undefined, fallback: readonly string[]): string[] {
  const a = arms ?? fallback;
  if (
    !Array.isArray(a) ||
    a.length !== fallback.length ||
    new Set(a).size !== a.length ||
    a.some((x) => typeof x !== "string" || x === "")
  )
    throw new RouteKitError(ErrorCode.InvalidArgument, `arms must be ${fallback.length} distinct non-empty ids`);
  return [...a];
}
