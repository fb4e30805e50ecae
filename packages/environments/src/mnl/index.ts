/**
 * Contextual MNL assortment environments (the setup of Section 6 of Lee & Oh, "Nearly Minimax Optimal
 * Regret for Multinomial Logistic Bandit"): N items with features redrawn every
 * round, a hidden parameter w*, an outside option of attraction v0, uniform or U(0,1) revenues.
 */
import {
  type AssortmentEnvironment,
  type AssortmentQuery,
  assertInt,
  assertPositive,
  describe,
  ErrorCode,
  optionKeys,
  type Rng,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import { dot, topKIndices } from "@routekit/linalg";

/**
 * An exact assortment solver max_{|S| <= K} sum_S r_i e^{u_i} / (v0 + sum_S e^{u_i}) used as the oracle
 * under non-uniform revenues, e.g. `optimalAssortment` from @routekit/mnl. Injected because
 * @routekit/environments depends only on core and linalg.
 */
export type AssortmentOracle = (
  utilities: Float64Array,
  revenues: Float64Array,
  n: number,
  K: number,
  v0: number,
) => readonly number[];

export interface ContextualMnlOptions {
  /** Items per round N (default 100). */
  numItems?: number;
  /** Feature dimension d (default 5). */
  contextDim?: number;
  /** Assortment capacity K (default 5). */
  maxSize?: number;
  /** Outside-option attraction v0 (default 1; the paper's Fig. I.2 uses K/5). */
  v0?: number;
  /** "uniform": r = 1 (revenues omitted from the query); "nonuniform": r ~ U(0,1) i.i.d. each round. */
  rewards?: "uniform" | "nonuniform";
  /**
   * "clipped-normal" (the paper): x ~ N(0, I_d), each coordinate clipped to [-1/sqrt(d), 1/sqrt(d)];
   * "uniform": x ~ U[-1/sqrt(d), 1/sqrt(d)]^d.
   */
  features?: "clipped-normal" | "uniform";
  /** Required for non-uniform revenues. */
  oracle?: AssortmentOracle;
  name?: string;
}

/** The option keys of {@link ContextualMnlOptions}. */
export const CONTEXTUAL_MNL_OPTION_KEYS = optionKeys<ContextualMnlOptions>()([
  "numItems",
  "contextDim",
  "maxSize",
  "v0",
  "rewards",
  "features",
  "oracle",
  "name",
]);

/**
 * The paper's synthetic environment. Per round: fresh features (and revenues), the oracle assortment
 * under w*, and MNL choices. Randomness: `reset(rng)` forks "parameter" (w* ~ U[-1/sqrt(d), 1/sqrt(d)]^d),
 * "features" and "choices", so every policy run on one seed sees the same w* and item sequence.
 * The returned query's arrays are reused by the next `next()` call.
 */
export class ContextualMnlEnvironment implements AssortmentEnvironment {
  readonly name: string;
  readonly contextDim: number;
  readonly numItems: number;
  readonly maxSize: number;
  readonly v0: number;
  readonly rewards: "uniform" | "nonuniform";
  readonly featureDist: "clipped-normal" | "uniform";
  private readonly oracle: AssortmentOracle | undefined;
  private readonly wStar: Float64Array;
  private readonly features: Float64Array;
  private readonly revenues: Float64Array;
  private readonly utilities: Float64Array;
  private readonly weights: Float64Array;
  /**
   * This round's oracle assortment (its first `oracleSize` slots of min(K, N), rewritten every round): the top-K by
   * utility under uniform revenues, best first, else a checked copy of what the injected oracle returned.
   */
  private readonly oracleItems: Int32Array;
  private featureRng: Rng | undefined;
  private choiceRng: Rng | undefined;
  private oracleSize = 0;
  private oracleValue = 0;
  /** The injected oracle's output check: the stamp of the check that last saw each item (no clearing per round). */
  private readonly oracleSeen: Float64Array;
  private oracleStamp = 0;
  private round = -1;

  constructor(options: ContextualMnlOptions = {}) {
    rejectUnknownOptions(options, CONTEXTUAL_MNL_OPTION_KEYS, "ContextualMnlEnvironment", true);
    this.numItems = options.numItems ?? 100;
    this.contextDim = options.contextDim ?? 5;
    this.maxSize = options.maxSize ?? 5;
    this.v0 = options.v0 ?? 1;
    assertInt(this.numItems, "numItems", 1, 1 << 20);
    assertInt(this.contextDim, "contextDim", 1, 4096);
    assertInt(this.maxSize, "maxSize", 1, 1 << 20);
    assertPositive(this.v0, "v0");
    this.rewards = options.rewards ?? "uniform";
    this.featureDist = options.features ?? "clipped-normal";
    if (this.rewards !== "uniform" && this.rewards !== "nonuniform")
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `rewards must be "uniform" or "nonuniform", got ${this.rewards}`,
      );
    if (this.featureDist !== "clipped-normal" && this.featureDist !== "uniform")
      throw new RouteKitError(ErrorCode.InvalidArgument, `features must be "clipped-normal" or "uniform"`);
    this.oracle = options.oracle;
    if (this.rewards === "nonuniform" && typeof this.oracle !== "function") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "non-uniform revenues need an exact assortment oracle: pass { oracle: optimalAssortment } from @routekit/mnl",
      );
    }
    this.name =
      options.name ??
      `mnl-contextual(N=${this.numItems},d=${this.contextDim},K=${this.maxSize},v0=${this.v0},${this.rewards})`;
    this.wStar = new Float64Array(this.contextDim);
    this.features = new Float64Array(this.numItems * this.contextDim);
    this.revenues = new Float64Array(this.numItems).fill(1);
    this.utilities = new Float64Array(this.numItems);
    this.weights = new Float64Array(this.maxSize + 1);
    this.oracleItems = new Int32Array(Math.min(this.maxSize, this.numItems));
    this.oracleSeen = new Float64Array(this.oracle === undefined ? 0 : this.numItems);
  }

  /** The hidden parameter (a copy). */
  get parameter(): Float64Array {
    return this.wStar.slice();
  }

  /** True utilities x_i . w* of the current round (a copy). */
  get trueUtilities(): Float64Array {
    return this.utilities.slice();
  }

  /** The oracle assortment of the current round (a copy). */
  get oracleAssortment(): readonly number[] {
    return Array.from({ length: this.oracleSize }, (_, j) => this.oracleItems[j] as number);
  }

  reset(rng: Rng): void {
    const b = 1 / Math.sqrt(this.contextDim);
    const pr = rng.fork("parameter");
    for (let k = 0; k < this.contextDim; k++) this.wStar[k] = pr.uniformIn(-b, b);
    this.featureRng = rng.fork("features");
    this.choiceRng = rng.fork("choices");
    this.round = -1;
  }

  next(t: number): AssortmentQuery {
    const fr = this.featureRng;
    if (!fr) throw new RouteKitError(ErrorCode.InvalidState, "call reset(rng) before next()");
    const d = this.contextDim;
    const n = this.numItems;
    const b = 1 / Math.sqrt(d);
    const f = this.features;
    for (let i = 0; i < n * d; i++) {
      const x = this.featureDist === "uniform" ? fr.uniformIn(-b, b) : fr.normal();
      f[i] = x > b ? b : x < -b ? -b : x;
    }
    if (this.rewards === "nonuniform") for (let i = 0; i < n; i++) this.revenues[i] = fr.uniform();
    for (let i = 0; i < n; i++) this.utilities[i] = dot(f, this.wStar, d, i * d, 0);
    if (this.rewards === "uniform") {
      // The top-K by utility, best first, ties to the lower index: the order the full sort gave (so the oracle
      // revenue sums in the same order), without sorting all N items.
      this.oracleSize = topKIndices(this.utilities, n, this.maxSize, this.oracleItems);
    } else {
      const items = (this.oracle as AssortmentOracle)(this.utilities, this.revenues, n, this.maxSize, this.v0);
      this.oracleSize = this.copyOracleItems(items);
    }
    this.oracleValue = this.revenueOf(this.oracleItems, this.oracleSize);
    this.round = t;
    return {
      features: f,
      numItems: n,
      maxSize: this.maxSize,
      ...(this.rewards === "nonuniform" ? { revenues: this.revenues } : {}),
    };
  }

  /**
   * Checks the injected oracle's assortment and copies it into `oracleItems` (its size returned). Unchecked, an index out
   * of range made the oracle revenue NaN and every regret with it; kept by reference, an oracle reusing its output
   * buffer (or a caller writing to the array) changed the round's reference after the fact.
   */
  private copyOracleItems(items: unknown): number {
    const bad = (why: string): never => {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option oracle (the assortment solver) returned ${why}; expected an array of at most ${this.maxSize} distinct item indices in [0, ${this.numItems})`,
      );
    };
    if (items === null || typeof items !== "object" || typeof (items as ArrayLike<unknown>).length !== "number")
      bad(`${describe(items)}, not an array`);
    const xs = items as ArrayLike<unknown>;
    const size = xs.length;
    if (size > this.oracleItems.length) bad(`${size} items`);
    const stamp = ++this.oracleStamp;
    for (let j = 0; j < size; j++) {
      const i = xs[j];
      if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i >= this.numItems)
        bad(`item ${describe(i)} at position ${j}`);
      if (this.oracleSeen[i as number] === stamp) bad(`item ${i} twice`);
      this.oracleSeen[i as number] = stamp;
      this.oracleItems[j] = i as number;
    }
    return size;
  }

  private checkItems(items: readonly number[]): void {
    if (this.round < 0) throw new RouteKitError(ErrorCode.InvalidState, "call next() before evaluating assortments");
    if (!Array.isArray(items) || items.length > this.maxSize) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `an assortment is an array of at most ${this.maxSize} items`);
    }
    for (let j = 0; j < items.length; j++) {
      const i = items[j] as number;
      if (!Number.isInteger(i) || i < 0 || i >= this.numItems)
        throw new RouteKitError(ErrorCode.OutOfRange, `item ${describe(i)} is not in [0, ${this.numItems})`);
      for (let k = 0; k < j; k++)
        if (items[k] === i) throw new RouteKitError(ErrorCode.InvalidArgument, `item ${i} is offered twice`);
    }
  }

  /** R(S) of the first `size` entries of `items`. */
  private revenueOf(items: ArrayLike<number>, size: number): number {
    if (size === 0) return 0;
    const u = this.utilities;
    let m = Math.log(this.v0);
    for (let j = 0; j < size; j++) {
      const i = items[j] as number;
      if ((u[i] as number) > m) m = u[i] as number;
    }
    let num = 0;
    let den = this.v0 * Math.exp(-m);
    for (let j = 0; j < size; j++) {
      const i = items[j] as number;
      const e = Math.exp((u[i] as number) - m);
      den += e;
      num += (this.revenues[i] as number) * e;
    }
    return num / den;
  }

  /** Choice probabilities of offering `items`: entry j for items[j], the last entry for the outside option. */
  choiceProbabilities(items: readonly number[]): Float64Array {
    this.checkItems(items);
    const out = new Float64Array(items.length + 1);
    let den = this.v0;
    for (let j = 0; j < items.length; j++) {
      out[j] = Math.exp(this.utilities[items[j] as number] as number);
      den += out[j] as number;
    }
    out[items.length] = this.v0;
    for (let j = 0; j <= items.length; j++) out[j] = (out[j] as number) / den;
    return out;
  }

  expectedRevenue(items: readonly number[]): number {
    this.checkItems(items);
    return this.revenueOf(items, items.length);
  }

  oracleRevenue(): number {
    if (this.round < 0) throw new RouteKitError(ErrorCode.InvalidState, "call next() first");
    return this.oracleValue;
  }

  choose(items: readonly number[]): number | null {
    this.checkItems(items);
    const cr = this.choiceRng as Rng;
    const k = items.length;
    const w = this.weights;
    // |x.w*| <= 1, so e^u cannot overflow.
    for (let j = 0; j < k; j++) w[j] = Math.exp(this.utilities[items[j] as number] as number);
    w[k] = this.v0;
    const c = cr.categorical(w, k + 1);
    return c === k ? null : (items[c] as number);
  }
}
