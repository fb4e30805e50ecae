/**
 * Cascade baselines for COSMOS:
 * - {@link WeitzmanOracle}: Weitzman's index policy with the true index parameters and reward function;
 * - {@link QueryAll}: open every box, deploy the best (known or learned reward);
 * - {@link ThresholdCascade}: a fixed cheapest-first cascade that stops once an answer's reward reaches a
 *   threshold (FrugalGPT-like);
 * - {@link OneShot}: API-as-arm routing, one box per request, chosen by a per-box ridge regression of the
 *   utility r - c on psi(x) with an upper-confidence bonus (disjoint LinUCB).
 * The greedy COSMOS baseline is {@link Cosmos} with `exploration: 0`.
 */
import {
  armsOption,
  booleanOption,
  checkDiagonal,
  ErrorCode,
  encodeF64,
  enumOption,
  type Json,
  MAX_RIDGE_DIM,
  makeSnapshot,
  maxPendingOption,
  numberOption,
  optionKeys,
  type Rng,
  RouteKitError,
  readF64,
  readInt,
  readObject,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  requiredNumber,
  rngOption,
  type Snapshot,
  type VectorInput,
} from "@routekit/core";
import { CascadePolicyBase, type CascadeRecord } from "./episodes.js";
import { type IndexLink, type IndexLinkName, indexLink, type RewardLinkName, rewardLink } from "./links.js";
import { parameterVector, RIDGE_RANGE, requireStoredForm } from "./options.js";
import { RewardModel, updateInverse } from "./reward.js";

/** Options every baseline shares. */
export interface BaselineOptions {
  arms: readonly string[];
  contextDim: number;
  outputDim: number;
  /** Known reward parameter theta* (omit to learn the reward by ridge GLM from deployed outputs). */
  rewardParameter?: VectorInput | null;
  /** Reward link G (default "identity"). */
  rewardLink?: RewardLinkName;
  /** Prepend 1 to the output features (default false). */
  rewardIntercept?: boolean;
  /** Reward ridge eta0 (default 1). */
  ridge?: number;
  /** Open episodes kept waiting for feedback (default 100,000). */
  maxPending?: number;
  /** Seed of the policy's random stream (default 0; a baseline draws nothing, see `rng`). */
  seed?: number | string;
  /** The policy's random stream (wins over `seed`); kept in snapshots as the per-replica `rng` field. */
  rng?: Rng;
}

/** The option keys of {@link BaselineOptions}. */
export const BASELINE_OPTION_KEYS = optionKeys<BaselineOptions>()([
  "arms",
  "contextDim",
  "outputDim",
  "rewardParameter",
  "rewardLink",
  "rewardIntercept",
  "ridge",
  "maxPending",
  "seed",
  "rng",
]);

interface BaseConfig {
  arms: string[];
  contextDim: number;
  outputDim: number;
  rewardParameter: number[] | null;
  rewardLink: RewardLinkName;
  rewardIntercept: boolean;
  ridge: number;
  maxPending: number;
}

function readBase(o: Record<string, unknown>): BaseConfig {
  const arms = armsOption(o);
  if (arms.length === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "option arms must name at least one box");
  const contextDim = requiredNumber(o, "contextDim", { integer: true, min: 0, max: MAX_RIDGE_DIM });
  const outputDim = requiredNumber(o, "outputDim", { integer: true, min: 1, max: MAX_RIDGE_DIM });
  const rewardIntercept = booleanOption(o, "rewardIntercept", false);
  const d = outputDim + (rewardIntercept ? 1 : 0);
  let rewardParameter: number[] | null = null;
  const rp = o.rewardParameter;
  if (rp !== undefined && rp !== null) {
    rewardParameter = parameterVector(rp, d, "rewardParameter");
  }
  return {
    arms,
    contextDim,
    outputDim,
    rewardParameter,
    rewardLink: enumOption(o, "rewardLink", ["identity", "logistic"] as const, "identity"),
    rewardIntercept,
    ridge: numberOption(o, "ridge", 1, RIDGE_RANGE),
    maxPending: maxPendingOption(o),
  };
}

/** A config's snapshot form: everything but the arms (the snapshot keeps the live arm list). */
function withoutArms(c: { arms: string[] }): Json {
  const { arms: _arms, ...rest } = c;
  return rest as unknown as Json;
}

function configFromSnapshot<C>(
  s: Record<string, Json>,
  read: (o: Record<string, unknown>) => C,
  known: readonly string[],
): C {
  const c = readObject(s.config, '"config"');
  let config: C;
  try {
    // A snapshot's config holds every option but the arms and the random stream (kept apart).
    const keys = known.filter((k) => k !== "arms" && k !== "seed" && k !== "rng");
    rejectUnknownOptions(c, keys, '"config"');
    config = read({ ...c, arms: snapshotArms(s) });
  } catch (e) {
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, `snapshot options are invalid: ${(e as Error).message}`);
  }
  requireStoredForm(withoutArms(config as unknown as { arms: string[] }), c);
  return config;
}

function snapshotArms(s: Record<string, Json>): string[] {
  const arms = s.arms;
  if (
    !Array.isArray(arms) ||
    arms.length === 0 ||
    !arms.every((a) => typeof a === "string" && a !== "") ||
    new Set(arms).size !== arms.length
  )
    throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "arms" must be distinct non-empty ids');
  return arms as string[];
}

/** A baseline whose per-output reward is the known mu* or a learned point estimate (+ optional bonus). */
abstract class RewardBaseline extends CascadePolicyBase {
  protected readonly base: BaseConfig;
  protected reward: RewardModel;
  protected readonly bonus: number;
  private readonly phi: Float64Array;

  protected constructor(base: BaseConfig, bonus: number, rng: Rng) {
    super({ ...base, rng });
    this.base = base;
    this.bonus = bonus;
    const d = base.outputDim + (base.rewardIntercept ? 1 : 0);
    this.phi = new Float64Array(d);
    this.reward = new RewardModel(
      d,
      rewardLink(base.rewardLink),
      base.ridge,
      Number.POSITIVE_INFINITY,
      base.rewardParameter,
    );
  }

  protected toPhi(features: Float64Array): Float64Array {
    const off = this.base.rewardIntercept ? 1 : 0;
    if (off) this.phi[0] = 1;
    for (let i = 0; i < this.base.outputDim; i++) this.phi[off + i] = features[i] as number;
    return this.phi;
  }

  protected optimisticReward(features: Float64Array, beta: number): number {
    return this.reward.optimistic(this.toPhi(features), beta);
  }

  protected addBox(_id: string): void {}
  protected removeBox(_index: number): void {}

  protected learnRecord(r: CascadeRecord): void {
    if (this.reward.known) return;
    const chosen = r.queried.find((q) => q.arm === r.chosen);
    if (!chosen) return;
    this.reward.add(this.toPhi(chosen.features), r.reward);
    this.reward.fit();
  }

  protected stateJSON(): Record<string, Json> {
    return { arms: [...this.table.ids], reward: this.reward.toJSON(), ...this.replicaJSON() };
  }

  protected restoreState(s: Record<string, Json>): void {
    const reward = RewardModel.fromJSON(readObject(s.reward, '"reward"'), this.reward);
    this.restoreReplica(s);
    this.reward = reward;
  }
}

// ------------------------------------------------------------------------------------------ query-all

export interface QueryAllOptions extends BaselineOptions {
  /** Multiplier of the reward confidence width when the reward is learned (default 0: point estimate). */
  exploration?: number;
}

/** The option keys of {@link QueryAllOptions}. */
export const QUERY_ALL_OPTION_KEYS = optionKeys<QueryAllOptions>()([...BASELINE_OPTION_KEYS, "exploration"]);

function readQueryAll(o: Record<string, unknown>) {
  return { ...readBase(o), exploration: numberOption(o, "exploration", 0, { min: 0 }) };
}

/** Opens every box and deploys the best output. */
export class QueryAll extends RewardBaseline {
  static readonly kind = "pandora/query-all";
  readonly kind = QueryAll.kind;
  private readonly cfg: ReturnType<typeof readQueryAll>;

  constructor(options: QueryAllOptions) {
    rejectUnknownOptions(options, QUERY_ALL_OPTION_KEYS, "QueryAll");
    const o = readOptions(options, "QueryAll");
    const c = readQueryAll(o);
    super(c, c.exploration, rngOption(o));
    this.cfg = c;
    for (const a of c.arms) this.addArm(a);
  }

  protected plan(_context: Float64Array, sigma: Float64Array): number {
    sigma.fill(Number.POSITIVE_INFINITY, 0, this.table.size);
    return this.reward.known ? 0 : this.bonus;
  }

  toJSON(): Snapshot {
    return makeSnapshot(QueryAll.kind, 2, { config: withoutArms(this.cfg), ...this.stateJSON() });
  }

  static fromJSON(snapshot: Snapshot): QueryAll {
    const s = readSnapshot(snapshot, QueryAll.kind, 2);
    const c = configFromSnapshot(s, readQueryAll, QUERY_ALL_OPTION_KEYS);
    const p = new QueryAll({ ...c, arms: snapshotArms(s) });
    p.restoreState(s);
    return p;
  }
}

// ------------------------------------------------------------------------------------------ threshold

export interface ThresholdCascadeOptions extends BaselineOptions {
  /** Stop as soon as an opened output's reward is >= threshold (default 0.7). Boxes open in `arms` order. */
  threshold?: number;
}

/** The option keys of {@link ThresholdCascadeOptions}. */
export const THRESHOLD_CASCADE_OPTION_KEYS = optionKeys<ThresholdCascadeOptions>()([
  ...BASELINE_OPTION_KEYS,
  "threshold",
]);

function readThreshold(o: Record<string, unknown>) {
  return { ...readBase(o), threshold: numberOption(o, "threshold", 0.7) };
}

/**
 * A fixed cascade: open boxes in the order of `arms` (list the cheapest first) and stop once the best
 * opened output's reward (known, or the learned point estimate) is >= `threshold`; deploy the best.
 */
export class ThresholdCascade extends RewardBaseline {
  static readonly kind = "pandora/threshold";
  readonly kind = ThresholdCascade.kind;
  readonly threshold: number;
  private readonly cfg: ReturnType<typeof readThreshold>;

  constructor(options: ThresholdCascadeOptions) {
    rejectUnknownOptions(options, THRESHOLD_CASCADE_OPTION_KEYS, "ThresholdCascade");
    const o = readOptions(options, "ThresholdCascade");
    const c = readThreshold(o);
    super(c, 0, rngOption(o));
    this.cfg = c;
    this.threshold = c.threshold;
    for (const a of c.arms) this.addArm(a);
  }

  protected plan(_context: Float64Array, sigma: Float64Array): number {
    // Equal indices keep the arms order; the stopping rule "best >= next index" is the threshold test.
    sigma.fill(this.threshold, 0, this.table.size);
    return 0;
  }

  toJSON(): Snapshot {
    return makeSnapshot(ThresholdCascade.kind, 2, { config: withoutArms(this.cfg), ...this.stateJSON() });
  }

  static fromJSON(snapshot: Snapshot): ThresholdCascade {
    const s = readSnapshot(snapshot, ThresholdCascade.kind, 2);
    const c = configFromSnapshot(s, readThreshold, THRESHOLD_CASCADE_OPTION_KEYS);
    const p = new ThresholdCascade({ ...c, arms: snapshotArms(s) });
    p.restoreState(s);
    return p;
  }
}

// ------------------------------------------------------------------------------------------ oracle

export interface WeitzmanOracleOptions {
  arms: readonly string[];
  contextDim: number;
  outputDim: number;
  /** True index parameter rho_a per box: sigma*_a(x) = Lambda(rho_a . psi(x)). */
  indexParameters: Readonly<Record<string, VectorInput>>;
  /** True reward parameter theta*: mu* = G(theta* . phi). */
  rewardParameter: VectorInput;
  indexLink?: IndexLinkName;
  linkKnee?: number;
  indexIntercept?: boolean;
  rewardLink?: RewardLinkName;
  rewardIntercept?: boolean;
  maxPending?: number;
  /** Seed of the policy's random stream (default 0; a baseline draws nothing, see `rng`). */
  seed?: number | string;
  /** The policy's random stream (wins over `seed`); kept in snapshots as the per-replica `rng` field. */
  rng?: Rng;
}

/** The option keys of {@link WeitzmanOracleOptions}. */
export const WEITZMAN_ORACLE_OPTION_KEYS = optionKeys<WeitzmanOracleOptions>()([
  "arms",
  "contextDim",
  "outputDim",
  "indexParameters",
  "rewardParameter",
  "indexLink",
  "linkKnee",
  "indexIntercept",
  "rewardLink",
  "rewardIntercept",
  "maxPending",
  "seed",
  "rng",
]);

function readOracle(o: Record<string, unknown>) {
  const base = readBase(o);
  if (base.rewardParameter === null)
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      "option rewardParameter is required (the true reward parameter)",
    );
  const indexIntercept = booleanOption(o, "indexIntercept", true);
  const m = base.contextDim + (indexIntercept ? 1 : 0);
  const ip = readOptions(o.indexParameters, "indexParameters");
  // No prototype, so ids like "toString" or "__proto__" are plain own keys.
  const indexParameters: Record<string, number[]> = Object.create(null);
  for (const [arm, v] of Object.entries(ip)) indexParameters[arm] = parameterVector(v, m, `indexParameters.${arm}`);
  for (const a of base.arms)
    if (!Object.hasOwn(indexParameters, a))
      throw new RouteKitError(ErrorCode.InvalidArgument, `option indexParameters has no entry for "${a}"`);
  return {
    ...base,
    indexParameters,
    indexLink: enumOption(o, "indexLink", ["tanh", "logistic", "linear"] as const, "tanh"),
    linkKnee: numberOption(o, "linkKnee", 0.9, { min: 0, max: 1, openMin: true, openMax: true }),
    indexIntercept,
  };
}

/** Weitzman's optimal policy with the true parameters: the regret reference, learning nothing. */
export class WeitzmanOracle extends RewardBaseline {
  static readonly kind = "pandora/oracle";
  readonly kind = WeitzmanOracle.kind;
  private readonly cfg: ReturnType<typeof readOracle>;
  private readonly link: IndexLink;
  private readonly psi: Float64Array;

  constructor(options: WeitzmanOracleOptions) {
    rejectUnknownOptions(options, WEITZMAN_ORACLE_OPTION_KEYS, "WeitzmanOracle");
    const o = readOptions(options, "WeitzmanOracle");
    const c = readOracle(o);
    super(c, 0, rngOption(o));
    this.cfg = c;
    this.link = indexLink(c.indexLink, c.linkKnee);
    this.psi = new Float64Array(c.contextDim + (c.indexIntercept ? 1 : 0));
    for (const a of c.arms) this.addArm(a);
  }

  protected override addBox(id: string): void {
    if (!Object.hasOwn(this.cfg.indexParameters, id))
      throw new RouteKitError(ErrorCode.InvalidArgument, `box "${id}" has no index parameter (option indexParameters)`);
  }

  protected plan(context: Float64Array, sigma: Float64Array): number {
    const off = this.cfg.indexIntercept ? 1 : 0;
    if (off) this.psi[0] = 1;
    for (let i = 0; i < this.cfg.contextDim; i++) this.psi[off + i] = context[i] as number;
    const ids = this.table.ids;
    for (let a = 0; a < ids.length; a++) {
      const rho = this.cfg.indexParameters[ids[a] as string] as number[];
      let z = 0;
      for (let k = 0; k < rho.length; k++) z += (rho[k] as number) * (this.psi[k] as number);
      sigma[a] = this.link.value(z);
    }
    return 0;
  }

  toJSON(): Snapshot {
    return makeSnapshot(WeitzmanOracle.kind, 2, { config: withoutArms(this.cfg), ...this.stateJSON() });
  }

  static fromJSON(snapshot: Snapshot): WeitzmanOracle {
    const s = readSnapshot(snapshot, WeitzmanOracle.kind, 2);
    // The config also records the reward ridge the shared reader fills in (the oracle knows the reward: unused).
    const c = configFromSnapshot(s, readOracle, [...WEITZMAN_ORACLE_OPTION_KEYS, "ridge"]);
    const { ridge: _ridge, ...options } = c;
    const p = new WeitzmanOracle({ ...options, arms: snapshotArms(s) } as WeitzmanOracleOptions);
    p.restoreState(s);
    return p;
  }
}

// ------------------------------------------------------------------------------------------ one-shot

export interface OneShotOptions {
  arms: readonly string[];
  contextDim: number;
  outputDim: number;
  /** Multiplier alpha of the confidence width (default 0.5). */
  exploration?: number;
  /** Ridge lambda of the per-box regressions (default 1). */
  ridge?: number;
  /** Prepend 1 to the context (default true). */
  indexIntercept?: boolean;
  maxPending?: number;
  /** Seed of the policy's random stream (default 0; a baseline draws nothing, see `rng`). */
  seed?: number | string;
  /** The policy's random stream (wins over `seed`); kept in snapshots as the per-replica `rng` field. */
  rng?: Rng;
}

/** The option keys of {@link OneShotOptions}. */
export const ONE_SHOT_OPTION_KEYS = optionKeys<OneShotOptions>()([
  "arms",
  "contextDim",
  "outputDim",
  "exploration",
  "ridge",
  "indexIntercept",
  "maxPending",
  "seed",
  "rng",
]);

function readOneShot(o: Record<string, unknown>) {
  const arms = armsOption(o);
  if (arms.length === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "option arms must name at least one box");
  return {
    arms,
    contextDim: requiredNumber(o, "contextDim", { integer: true, min: 0, max: MAX_RIDGE_DIM }),
    outputDim: requiredNumber(o, "outputDim", { integer: true, min: 1, max: MAX_RIDGE_DIM }),
    exploration: numberOption(o, "exploration", 0.5, { min: 0 }),
    ridge: numberOption(o, "ridge", 1, RIDGE_RANGE),
    indexIntercept: booleanOption(o, "indexIntercept", true),
    maxPending: maxPendingOption(o),
  };
}

interface OneShotArm {
  /** Updates learned. */
  n: number;
  /** Upper triangle of A = ridge I + sum psi psi^T (A^-1 is kept by updateInverse). */
  A: Float64Array;
  Ainv: Float64Array;
  b: Float64Array;
}

/**
 * API-as-arm routing: each request opens exactly one box, the one with the highest upper confidence
 * bound on E[r - c | x] from a per-box ridge regression on psi(x) (disjoint LinUCB). It cannot cascade,
 * so it pays the gap between the best single box per context and Weitzman's policy on every request.
 */
export class OneShot extends CascadePolicyBase {
  static readonly kind = "pandora/one-shot";
  readonly kind = OneShot.kind;
  private readonly cfg: ReturnType<typeof readOneShot>;
  private readonly m: number;
  private states: OneShotArm[] = [];
  private readonly psi: Float64Array;
  private readonly u: Float64Array;
  private readonly L: Float64Array;

  constructor(options: OneShotOptions) {
    rejectUnknownOptions(options, ONE_SHOT_OPTION_KEYS, "OneShot");
    const o = readOptions(options, "OneShot");
    const c = readOneShot(o);
    super({ ...c, rng: rngOption(o) });
    this.cfg = c;
    this.m = c.contextDim + (c.indexIntercept ? 1 : 0);
    this.psi = new Float64Array(this.m);
    this.u = new Float64Array(this.m);
    this.L = new Float64Array(this.m * this.m);
    for (const a of c.arms) this.addArm(a);
  }

  private toPsi(context: ArrayLike<number>): Float64Array {
    const off = this.cfg.indexIntercept ? 1 : 0;
    if (off) this.psi[0] = 1;
    for (let i = 0; i < this.cfg.contextDim; i++) this.psi[off + i] = context[i] as number;
    return this.psi;
  }

  protected addBox(_id: string): void {
    const A = new Float64Array(this.m * this.m);
    const Ainv = new Float64Array(this.m * this.m);
    for (let i = 0; i < this.m; i++) {
      A[i * this.m + i] = this.cfg.ridge;
      Ainv[i * this.m + i] = 1 / this.cfg.ridge;
    }
    this.states.push({ n: 0, A, Ainv, b: new Float64Array(this.m) });
  }

  protected removeBox(index: number): void {
    this.states.splice(index, 1);
  }

  protected plan(context: Float64Array, sigma: Float64Array): number {
    const psi = this.toPsi(context);
    const m = this.m;
    let best = 0;
    let bestV = Number.NEGATIVE_INFINITY;
    for (let a = 0; a < this.states.length; a++) {
      const { Ainv, b } = this.states[a] as OneShotArm;
      let mean = 0;
      let w = 0;
      for (let i = 0; i < m; i++) {
        let row = 0;
        for (let j = 0; j < m; j++) row += (Ainv[i <= j ? i * m + j : j * m + i] as number) * (psi[j] as number);
        mean += row * (b[i] as number);
        w += row * (psi[i] as number);
      }
      const v = mean + this.cfg.exploration * Math.sqrt(w > 0 ? w : 0);
      if (v > bestV) {
        bestV = v;
        best = a;
      }
    }
    for (let a = 0; a < this.states.length; a++)
      sigma[a] = a === best ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    return 0;
  }

  protected optimisticReward(_features: Float64Array, _beta: number): number {
    return 0;
  }

  protected learnRecord(r: CascadeRecord): void {
    const i = this.table.find(r.chosen);
    if (i === undefined) return;
    const q = r.queried.find((x) => x.arm === r.chosen);
    // The chosen box was removed since the episode began: a box added again under its id learns nothing from it.
    if (!q || q.retired === true) return;
    const st = this.states[this.table.indexOf(r.chosen)] as OneShotArm;
    const psi = this.toPsi(r.context);
    const m = this.m;
    st.n++;
    for (let a = 0; a < m; a++)
      for (let b = a; b < m; b++)
        st.A[a * m + b] = (st.A[a * m + b] as number) + (psi[a] as number) * (psi[b] as number);
    updateInverse(st.A, m, st.Ainv, psi, st.n, this.L, this.u);
    const y = r.reward - q.cost;
    for (let k = 0; k < this.m; k++) st.b[k] = (st.b[k] as number) + y * (psi[k] as number);
  }

  toJSON(): Snapshot {
    return makeSnapshot(OneShot.kind, 2, {
      config: withoutArms(this.cfg),
      arms: [...this.table.ids],
      states: this.states.map((s) => ({ n: s.n, A: encodeF64(s.A), Ainv: encodeF64(s.Ainv), b: encodeF64(s.b) })),
      ...this.replicaJSON(),
    });
  }

  static fromJSON(snapshot: Snapshot): OneShot {
    const s = readSnapshot(snapshot, OneShot.kind, 2);
    const c = configFromSnapshot(s, readOneShot, ONE_SHOT_OPTION_KEYS);
    const p = new OneShot({ ...c, arms: snapshotArms(s) });
    if (!Array.isArray(s.states) || s.states.length !== p.states.length)
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "states" must hold one state per arm');
    const m = p.m;
    const states = s.states.map((j, i) => {
      const o = readObject(j, `states[${i}]`);
      const n = readInt(o, "n");
      const A = readF64(o.A, `states[${i}].A`, m * m);
      // A = ridge I + sum psi psi^T; its inverse keeps a positive diagonal (updateInverse recomputes it otherwise).
      checkDiagonal(A, m, `states[${i}].A`, `A = ridge I + sum psi psi^T has a diagonal >= ridge (${c.ridge})`, {
        min: c.ridge,
      });
      const Ainv = readF64(o.Ainv, `states[${i}].Ainv`, m * m);
      checkDiagonal(Ainv, m, `states[${i}].Ainv`, "an inverse Gram matrix has a positive diagonal", {
        min: 0,
        openMin: true,
      });
      return { n, A, Ainv, b: readF64(o.b, `states[${i}].b`, m) };
    });
    p.restoreReplica(s);
    p.states = states;
    return p;
  }
}
