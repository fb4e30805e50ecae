import type { ArmEnvironment, ArmFeedback, ArmRound, Rng } from "@routekit/core";
import { ErrorCode, optionKeys, RouteKitError, rejectUnknownOptions } from "@routekit/core";
import { PromptOrder, type ReplayOrder } from "./order.js";
import type { ReplayTable } from "./table.js";

export interface ReplayEnvironmentOptions {
  /** Environment name in results. Default "replay". */
  readonly name?: string;
  /**
   * Prompt order: "shuffle" (default) plays a fresh seeded permutation of the prompts on every pass over
   * the table, "sequential" plays them in file order (cycling when the horizon exceeds the table).
   */
  readonly order?: ReplayOrder;
}

/** The option keys of {@link ReplayEnvironmentOptions}. */
export const REPLAY_ENVIRONMENT_OPTION_KEYS = optionKeys<ReplayEnvironmentOptions>()(["name", "order"]);

/**
 * Replays a full-information table of logged outcomes as an arm environment: each round is one logged prompt
 * (its featurized text or its embedding as the context), every model in the table is an arm, and pulling an arm
 * returns that model's logged score (and cost) for the prompt. With several logged rows for one (prompt, model),
 * a pull returns one of them uniformly at random and the expected reward is their mean.
 *
 * - oracle: the per-prompt best model (`oracleReward` = max over models of the prompt's mean score);
 * - best fixed arm: the model with the best mean score over all prompts (the one-arm oracle);
 * - isOptimal: the pick ties the per-prompt best score (to 1e-12).
 *
 * Prompts are shuffled per seed (the `order` stream of the rng given to `reset`) and reshuffled on every pass, so
 * the rounds are i.i.d.-like draws without replacement within a pass. No allocation per round: `next` returns the
 * same round object, with the prompt's context copied into the same buffer, and `pull` the same feedback object
 * every time (read them before the next call; writing to them changes neither the table nor later rounds).
 */
export class ReplayEnvironment implements ArmEnvironment {
  readonly name: string;
  readonly contextDim: number;
  readonly initialArms: readonly string[];
  private readonly table: ReplayTable;
  private readonly order: PromptOrder;
  private readonly armIndex = new Map<string, number>();
  private readonly views: Float64Array[];
  private readonly bestFixed: number;
  private readonly bestFixedMean: number;
  private readonly oracle: Float64Array;
  private readonly round: { context: Float64Array | undefined };
  /**
   * The round's context, copied from the table: it was a view of the table, so a caller writing to it changed the
   * table for every later round and every other environment built on it (the runner builds one per policy and seed).
   */
  private readonly contextBuf: Float64Array;
  // Reused across rounds (no allocation per round): read a pull's values before the next pull.
  private readonly feedback = { reward: 0 };
  private readonly feedbackWithCost = { reward: 0, cost: 0 };
  private noiseRng: Rng | undefined;
  private prompt = -1;

  constructor(table: ReplayTable, options: ReplayEnvironmentOptions = {}) {
    rejectUnknownOptions(options, REPLAY_ENVIRONMENT_OPTION_KEYS, "ReplayEnvironment", true);
    if (!table || table.numPrompts < 1 || table.models.length < 1) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "a replay environment needs at least one prompt and one model",
      );
    }
    this.table = table;
    this.name = options.name ?? "replay";
    this.order = new PromptOrder(table.numPrompts, options.order ?? "shuffle");
    this.contextDim = table.dim;
    this.initialArms = [...table.models];
    for (let i = 0; i < table.models.length; i++) this.armIndex.set(table.models[i] as string, i);
    const n = table.numPrompts;
    const M = table.models.length;
    this.views = Array.from({ length: n }, (_, p) => table.contexts.subarray(p * table.dim, (p + 1) * table.dim));
    this.oracle = new Float64Array(n);
    const means = new Float64Array(M);
    for (let p = 0; p < n; p++) {
      let best = Number.NEGATIVE_INFINITY;
      for (let m = 0; m < M; m++) {
        const s = table.meanScore[p * M + m] as number;
        means[m] = (means[m] as number) + s / n;
        if (s > best) best = s;
      }
      this.oracle[p] = best;
    }
    let bf = 0;
    for (let m = 1; m < M; m++) if ((means[m] as number) > (means[bf] as number)) bf = m;
    this.bestFixed = bf;
    this.bestFixedMean = means[bf] as number;
    this.round = { context: undefined };
    this.contextBuf = new Float64Array(table.dim);
  }

  /** Mean score of the best single model over all prompts. */
  get bestFixedMeanReward(): number {
    return this.bestFixedMean;
  }

  /** Mean over prompts of the per-prompt best score (what the oracle earns per round on average). */
  get oracleMeanReward(): number {
    const n = this.oracle.length;
    let s = 0;
    for (let p = 0; p < n; p++) s += this.oracle[p] as number;
    if (Number.isFinite(s)) return s / n;
    // The sum overflowed (scores near the largest double): the sum of x / n stays within the values' range.
    s = 0;
    for (let p = 0; p < n; p++) s += (this.oracle[p] as number) / n;
    return s;
  }

  reset(rng: Rng): void {
    this.order.reset(rng.fork("order"));
    this.noiseRng = rng.fork("noise");
    this.prompt = -1;
  }

  next(t: number): ArmRound {
    this.prompt = this.order.at(t);
    this.contextBuf.set(this.views[this.prompt] as Float64Array);
    this.round.context = this.contextBuf;
    return this.round;
  }

  /** Whether this round's prompt was already played in this run: every round after the first pass. */
  seenBefore(): boolean {
    return this.order.passes > 1;
  }

  /** Passes over the table so far, counting the current one (1 during the first pass). */
  get passes(): number {
    return this.order.passes;
  }

  /** Index of the current round's prompt in the table. */
  get currentPrompt(): number {
    return this.prompt;
  }

  private cell(arm: string): number {
    if (this.prompt < 0) throw new RouteKitError(ErrorCode.InvalidState, "call next(t) before querying a round");
    const m = this.armIndex.get(arm);
    if (m === undefined) {
      throw new RouteKitError(ErrorCode.UnknownArm, `unknown arm "${arm}" (models: ${this.table.models.join(", ")})`);
    }
    return this.prompt * this.table.models.length + m;
  }

  expectedReward(arm: string): number {
    return this.table.meanScore[this.cell(arm)] as number;
  }

  expectedCost(arm: string): number {
    return this.table.meanCost[this.cell(arm)] as number;
  }

  oracleReward(): number {
    if (this.prompt < 0) throw new RouteKitError(ErrorCode.InvalidState, "call next(t) before querying a round");
    return this.oracle[this.prompt] as number;
  }

  bestFixedArm(): string {
    if (this.noiseRng === undefined) {
      throw new RouteKitError(ErrorCode.InvalidState, `${this.name}: call reset(rng) before using the environment`);
    }
    return this.table.models[this.bestFixed] as string;
  }

  bestFixedReward(): number {
    if (this.prompt < 0) throw new RouteKitError(ErrorCode.InvalidState, "call next(t) before querying a round");
    return this.table.meanScore[this.prompt * this.table.models.length + this.bestFixed] as number;
  }

  isOptimal(arm: string): boolean {
    return this.expectedReward(arm) >= (this.oracle[this.prompt] as number) - 1e-12;
  }

  pull(arm: string): ArmFeedback {
    const c = this.cell(arm);
    const start = this.table.sampleStart[c] as number;
    const count = (this.table.sampleStart[c + 1] as number) - start;
    const k = count === 1 ? start : start + (this.noiseRng as Rng).int(count);
    if (this.table.hasCost) {
      this.feedbackWithCost.reward = this.table.sampleScore[k] as number;
      this.feedbackWithCost.cost = this.table.sampleCost[k] as number;
      return this.feedbackWithCost;
    }
    this.feedback.reward = this.table.sampleScore[k] as number;
    return this.feedback;
  }
}
