/**
 * A full-information table of logged outcomes replayed as a cascade (Pandora's box) environment.
 *
 * Each round is one logged prompt. Opening a model ("querying a box") reveals that model's answer, whose one
 * output feature is its logged score (what a verifier or judge reports on the answer), and costs the model's
 * logged cost times `costWeight` (dollars into reward units). Deploying an answer earns its score. With
 * several logged rows for one (prompt, model), one is drawn per round, up front for every model (common
 * random numbers), and the model's reservation index is that of the rows' empirical distribution.
 *
 * The oracle is Weitzman's rule on those distributions: it opens models in decreasing true index and stops
 * once the best opened score reaches the next index, so the runner's regret compares a policy with the best
 * any cascade could do knowing every prompt's outcome distributions (with one row per cell: the best score
 * net of the cost of opening that model alone, max_a (s_a - c_a)).
 */
import {
  ErrorCode,
  indexDiscrete,
  optionKeys,
  type Rng,
  RouteKitError,
  readOptions,
  rejectUnknownOptions,
} from "@routekit/core";
import { CascadeEnvironmentBase } from "../pandora/base.js";
import { PromptOrder, type ReplayOrder } from "./order.js";
import type { ReplayTable } from "./table.js";

export interface CascadeReplayOptions {
  /** Environment name in results. Default "replay-cascade". */
  readonly name?: string;
  /** Prompt order, as in the arm replay: "shuffle" (default, a fresh permutation per pass) or "sequential". */
  readonly order?: ReplayOrder;
  /**
   * Reward units per unit of the logged cost (default 1: costs are already in reward units). Every weighted
   * cost must be > 0 (a free model's reservation index is unbounded) and at most 1e6 (what the cascade
   * policies accept); keep them below 1, the scale of a score.
   */
  readonly costWeight?: number;
}

/** The option keys of {@link CascadeReplayOptions}. */
export const CASCADE_REPLAY_OPTION_KEYS = optionKeys<CascadeReplayOptions>()(["name", "order", "costWeight"]);

export class CascadeReplayEnvironment extends CascadeEnvironmentBase {
  readonly name: string;
  /** The link COSMOS uses by default for its reservation-index model (true indices lie in [-1, 1]). */
  readonly indexLink = "tanh" as const;
  /** The deployed answer's reward is its output feature, the score: G = identity, theta* = (1). */
  readonly rewardLink = "identity" as const;
  private readonly table: ReplayTable;
  private readonly prompts: PromptOrder;
  private readonly costWeight: number;
  /** True reservation index of every (prompt, model) cell. */
  private readonly cellIndex: Float64Array;
  private prompt = -1;

  constructor(table: ReplayTable, options: CascadeReplayOptions = {}) {
    rejectUnknownOptions(options, CASCADE_REPLAY_OPTION_KEYS, "CascadeReplayEnvironment", true);
    if (!table || table.numPrompts < 1 || table.models.length < 1) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "a cascade replay needs at least one prompt and one model");
    }
    if (!table.hasCost) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "a cascade replay needs a cost column: the price of asking each model is what a cascade trades against quality",
      );
    }
    const w = readOptions(options, "CascadeReplayEnvironment").costWeight ?? 1;
    if (typeof w !== "number" || !Number.isFinite(w) || !(w > 0)) {
      throw new RouteKitError(ErrorCode.OutOfRange, `costWeight must be a finite number > 0, got ${String(w)}`);
    }
    super(table.models, table.dim, 1);
    this.name = options.name ?? "replay-cascade";
    this.table = table;
    this.costWeight = w;
    this.prompts = new PromptOrder(table.numPrompts, options.order ?? "shuffle");
    this.cellIndex = cellIndices(table, w);
  }

  indexParameters(): number[][] {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      "a replay has no parametric reservation index (pandora-oracle cannot run on it); its regret is already measured against Weitzman's rule on the logged outcomes",
    );
  }

  rewardParameter(): number[] {
    return [1];
  }

  override reset(rng: Rng): void {
    super.reset(rng);
    this.prompts.reset(rng.fork("order"));
    this.prompt = -1;
  }

  override next(t: number): { readonly context: Float64Array } {
    this.prompt = this.prompts.at(t);
    return super.next(t);
  }

  /** Index in the table of the current round's prompt. */
  get currentPrompt(): number {
    return this.prompt;
  }

  /** Passes over the table so far, counting the current one. */
  get passes(): number {
    return this.prompts.passes;
  }

  /** The logged score of the deployed answer (deterministic given the drawn row). */
  override reward(arm: string): number {
    return this.expectedReward(arm);
  }

  protected drawContext(_rng: Rng): void {
    const d = this.table.dim;
    this.context.set(this.table.contexts.subarray(this.prompt * d, (this.prompt + 1) * d));
  }

  protected drawOutputs(rng: Rng): void {
    const t = this.table;
    const M = t.models.length;
    for (let a = 0; a < M; a++) {
      const c = this.prompt * M + a;
      const start = t.sampleStart[c] as number;
      const count = (t.sampleStart[c + 1] as number) - start;
      const k = count === 1 ? start : start + rng.int(count);
      const score = t.sampleScore[k] as number;
      (this.features[a] as Float64Array)[0] = score;
      this.rewards[a] = score;
      this.costs[a] = this.costWeight * (t.sampleCost[k] as number);
      this.indices[a] = this.cellIndex[c] as number;
      this.meanRewards[a] = t.meanScore[c] as number;
      this.meanCosts[a] = this.costWeight * (t.meanCost[c] as number);
    }
  }
}

/**
 * What the cascade policies (`@routekit/pandora`) accept: a cost of at most 1e6 reward units and a context of
 * squared norm at most 1e100. A table outside these is refused up front, with its rows, rather than failing
 * the policies mid-run.
 */
const MAX_COST = 1e6;
const MAX_SQUARED_NORM = 1e100;
/** Problems of a cascade replay's table named in its error. */
const LISTED = 5;

/** "line N: " for a row's file line, as the parse errors name rows; nothing for a table built by hand. */
function lineOf(line: number | undefined): string {
  return line !== undefined && line > 0 ? `line ${line}: ` : "";
}

/** Weitzman's reservation index of each cell's empirical (score) distribution at its mean weighted cost. */
function cellIndices(t: ReplayTable, w: number): Float64Array {
  const cells = t.numPrompts * t.models.length;
  const out = new Float64Array(cells);
  // The first LISTED problems are named, the rest counted ("and N more"): a table with many stopped at five, unsaid.
  const problems: string[] = [];
  let count = 0;
  const problem = (message: string) => {
    if (count++ < LISTED) problems.push(message);
  };
  for (let p = 0; p < t.numPrompts; p++) {
    let s = 0;
    for (let i = p * t.dim; i < (p + 1) * t.dim; i++) s += (t.contexts[i] as number) ** 2;
    if (!(s <= MAX_SQUARED_NORM))
      problem(
        `${lineOf(t.promptLines[p])}prompt ${p + 1}: the context has squared norm ${s}, above ${MAX_SQUARED_NORM} (rescale the embeddings)`,
      );
  }
  for (let c = 0; c < cells; c++) {
    const start = t.sampleStart[c] as number;
    const end = t.sampleStart[c + 1] as number;
    for (let k = start; k < end; k++) {
      const where = () =>
        `${lineOf(t.sampleLine?.[k])}prompt ${Math.floor(c / t.models.length) + 1}, model "${t.models[c % t.models.length]}"`;
      const s = t.sampleScore[k] as number;
      if (!(s >= 0 && s <= 1)) problem(`${where()}: score ${s} is outside [0, 1]`);
      const cost = w * (t.sampleCost[k] as number);
      if (!(cost > 0)) problem(`${where()}: cost ${t.sampleCost[k]} is not > 0`);
      else if (!(cost <= MAX_COST))
        problem(`${where()}: cost ${t.sampleCost[k]} (x costWeight ${w} = ${cost}) is above ${MAX_COST}`);
    }
    if (count > 0) continue;
    const n = end - start;
    out[c] = indexDiscrete(
      t.sampleScore.subarray(start, end),
      new Float64Array(n).fill(1 / n),
      w * (t.meanCost[c] as number),
    );
  }
  if (count > 0) {
    const more = count > LISTED ? `; and ${count - LISTED} more` : "";
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `a cascade replay needs scores in [0, 1] (the reward of a deployed answer), costs in (0, ${MAX_COST}] (after costWeight) and contexts of squared norm <= ${MAX_SQUARED_NORM}: ${problems.join("; ")}${more}`,
    );
  }
  return out;
}
