/**
 * What StageRoute and its baselines share: per-model statistics kept for the whole run (never reset at
 * stage boundaries, kept while a model is not deployed), the stage clock, the deployed set, routing by
 * the exact routing LP over the deployed set with the infeasibility fallback, sampling, the budget
 * modes and the snapshot. Subclasses choose the deployed set at each stage boundary.
 *
 * The stage clock counts learned feedbacks (update or learn of a live model): a new stage starts each
 * time the count reaches a multiple of L, and the deployed set is chosen then, from the statistics
 * learned so far. With feedback right after each query (the paper's setting) this is exactly the
 * paper's schedule (queries 1, L + 1, 2L + 1, ... start a stage); with late feedback a stage is L
 * feedbacks long. Because deployment is a function of what was learned, in order, replicas that learn
 * the same event stream deploy the same models (their own selection state is only the rng and the
 * pending decisions). A model added with `addArm` joins the pool at once and can be deployed from the
 * next boundary, or at once when no feedback has arrived since the current stage began.
 */
import {
  type ArmBaseSnapshot,
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmState,
  checkCountTotal,
  checkNumber,
  ErrorCode,
  field,
  type Json,
  type LedgerCodec,
  optionKeys,
  Rng,
  type RngState,
  RouteKitError,
  readArmBaseState,
  readInt,
  readNumber,
  readObject,
  readOptions,
  rejectUnknownOptions,
  snapshotCorrupt,
  snapshotInvalid,
} from "@routekit/core";
import { costLcb, rewardUcb } from "./bounds.js";
import { DeploySolver, topCapSum } from "./deploy.js";
import { checkDeploySolver } from "./external.js";
import { configToJson, readStageOptions, type StageConfig, type StagePolicyOptions } from "./options.js";
import { carriesAllTraffic } from "./route-fill.js";
import { RouteSolver, type RouteStatus, sampleIndex } from "./route-lp.js";

/** Per-model statistics (costs in cost units) and its cached bounds. */
/** The keys of `addArm`'s options. */
export const ADD_ARM_OPTION_KEYS = optionKeys<{ readonly maxShare?: number }>()(["maxShare"]);

export interface StageArm extends ArmState {
  readonly id: string;
  readonly maxShare: number;
  /** Plays with feedback. */
  n: number;
  /** Sum of rewards. */
  sr: number;
  /** Sum of costs / costUnit. */
  sc: number;
  /** Cached reward UCB and cost LCB (cost units). */
  ucb: number;
  lcb: number;
}

/** A pending decision: the chosen model's uid and the probability it was drawn with. */
export interface StagePayload {
  readonly uid: number;
  readonly propensity: number;
}

const codec: LedgerCodec<StagePayload> = {
  encode: (p) => [p.uid, p.propensity],
  decode: (json) => {
    if (
      !Array.isArray(json) ||
      json.length !== 2 ||
      !Number.isSafeInteger(json[0]) ||
      (json[0] as number) < 0 ||
      typeof json[1] !== "number" ||
      !((json[1] as number) > 0 && (json[1] as number) <= 1)
    ) {
      snapshotCorrupt("ledger payload", "[arm uid, propensity in (0, 1]]");
    }
    return { uid: json[0] as number, propensity: json[1] as number };
  },
};

/** Validates a snapshot's ledger payload and returns its uid. */
export function payloadUid(json: Json): number {
  return codec.decode(json).uid;
}

/** What a stage-boundary decision produced, for inspection. */
export interface DeploymentInfo {
  /** Stage index k (0-based) the deployment was made for. */
  readonly stage: number;
  /** Deployed model ids. */
  readonly deployed: readonly string[];
  /**
   * "ok", "budget-relaxed" (no set met the budget under the bounds), "node-limit" (the search stopped at
   * `searchNodeLimit`: the set may not be optimal, and its budget may be relaxed too) or the baseline's own rule.
   */
  readonly status: string;
  /**
   * How DeployOPT found its set ("relaxation", "enumeration", "branch-and-bound", "external": the
   * `deploySolver`, "fallback": picked under the caps after the node limit), or the baseline's rule.
   */
  readonly method: string;
  /** DeployOPT's optimal value (the optimistic reward rate of the deployment), when the rule has one. */
  readonly value?: number;
}

export abstract class StagePolicyBase extends ArmPolicyBase<StageArm, StagePayload> {
  readonly config: StageConfig;
  protected readonly deploySolver: DeploySolver;
  protected readonly routeSolver: RouteSolver;
  /** Feedbacks learned so far (the stage clock). */
  protected learned = 0;
  /** `learned` when the current deployment was made (see atStageStart). */
  protected deployedAt = 0;
  /** Deployed models (live states), at most maxDeployed. */
  protected deployed: StageArm[] = [];
  /** Random stream of deployment tie-breaks: learned state (it advances only at deployments). */
  protected deployRng: Rng;
  /** Costs received so far (reported units), for the paced budget. */
  protected spent = 0;
  protected deployments = 0;
  protected lastDeployment: DeploymentInfo | undefined;
  protected depU = new Float64Array(8);
  protected depL = new Float64Array(8);
  protected depA = new Float64Array(8);
  protected depP = new Float64Array(8);
  /** Routing rounds served by the fallback since construction or restore (selection diagnostics, not snapshotted). */
  protected fallbacks = 0;
  /** Deployments whose search stopped at searchNodeLimit, since construction or restore (not snapshotted). */
  protected nodeLimited = 0;
  /** Deployments where the external solver failed and the built-in search ran, since construction or restore. */
  protected solverFailures = 0;
  private lastSolverError: string | undefined;
  private lastStatus: RouteStatus = "ok";

  protected constructor(options: StagePolicyOptions, what: string) {
    super(options, codec, 0, what);
    const o = readOptions(options, what);
    this.config = readStageOptions(o);
    this.deploySolver = new DeploySolver(
      this.config.enumLimit,
      this.config.searchNodeLimit,
      checkDeploySolver(o.deploySolver),
    );
    this.routeSolver = new RouteSolver(Math.min(this.config.maxDeployed, 64));
    this.deployRng = this.rng.fork("stageroute/deploy");
  }

  /** Checks that the initial arms can carry all traffic (INFEASIBLE_BUDGET otherwise), adds them and deploys. */
  protected addStageArms(options: StagePolicyOptions): void {
    const ids = options.arms;
    if (ids.length > 0) {
      const caps = ids.map((id) => this.shareOf(id));
      this.checkCapacity(caps, caps.length);
    }
    this.initialising = true;
    try {
      this.addInitialArms(options);
    } finally {
      this.initialising = false;
    }
    this.deploy();
  }

  private initialising = false;

  // ------------------------------------------------------------ arms

  /**
   * Adds a model; `maxShare` overrides the option's cap for it. It can be deployed from the next stage
   * boundary (at once when no feedback has arrived since the current stage began).
   */
  override addArm(id: string, options?: { readonly maxShare?: number }): void {
    if (options !== undefined && (options === null || typeof options !== "object")) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "addArm options must be an object { maxShare? }");
    }
    rejectUnknownOptions(options, ADD_ARM_OPTION_KEYS, "addArm", true);
    const share =
      options?.maxShare === undefined
        ? undefined
        : checkNumber(options.maxShare, "maxShare", { min: 0, openMin: true, max: 1 });
    this.pendingShare = share;
    try {
      super.addArm(id);
    } finally {
      this.pendingShare = undefined;
    }
    if (!this.initialising && (this.deployed.length === 0 || this.atStageStart())) this.deploy();
  }

  /**
   * Whether no feedback has arrived since the current stage began (its deployment was made at the boundary
   * itself, not re-chosen mid-stage after a removal): a model added now joins the stage at once.
   */
  private atStageStart(): boolean {
    return this.learned === this.deployedAt && this.learned % this.config.stageLength === 0;
  }

  private pendingShare: number | undefined;
  /** Id of the arm being added (set by checkAddable, which runs just before createArm). */
  private adding = "";

  protected shareOf(id: string): number {
    // Own keys only: an arm named "__proto__" or "constructor" must not read Object.prototype's members.
    const byArm = this.config.maxShareByArm;
    return Object.hasOwn(byArm, id) ? (byArm[id] as number) : this.config.maxShareDefault;
  }

  protected createArm(uid: number): StageArm {
    const id = this.adding;
    return this.makeArm(id, uid, this.pendingShare ?? this.shareOf(id), 0, 0, 0);
  }

  protected makeArm(id: string, uid: number, maxShare: number, n: number, sr: number, sc: number): StageArm {
    const a: StageArm = { id, uid, maxShare, n, sr, sc, ucb: 0, lcb: 0 };
    this.refreshBounds(a);
    return a;
  }

  protected override checkAddable(id: string): void {
    this.checkNewArm(id);
    this.adding = id;
  }

  /** Extra checks of a new arm (the oracle needs its true means). */
  protected checkNewArm(_id: string): void {}

  /**
   * A removal must not make a pool that can carry all traffic unable to: INFEASIBLE_BUDGET then. A pool that
   * already cannot (e.g. after adding models with small caps) loses nothing by a removal, which is allowed, so a
   * mistaken `addArm` can be undone.
   */
  protected override checkRemovable(id: string): void {
    const state = this.table.get(id);
    const all = this.table.states.map((s) => s.maxShare);
    if (!this.canCarry(all)) return;
    const caps: number[] = [];
    for (const s of this.table.states) if (s !== state) caps.push(s.maxShare);
    this.checkCapacity(caps, caps.length);
  }

  /** Whether some maxDeployed of these caps sum to 1 (an empty pool carries nothing). */
  private canCarry(caps: readonly number[]): boolean {
    const n = caps.length;
    return n > 0 && topCapSum(caps, n, Math.min(this.config.maxDeployed, n)) >= 1 - 1e-12;
  }

  protected override onRemoved(state: StageArm): void {
    const i = this.deployed.indexOf(state);
    if (i < 0) return;
    this.deployed.splice(i, 1);
    // The remaining deployed models keep routing unless they can no longer carry all traffic.
    let mass = 0;
    for (const s of this.deployed) mass += s.maxShare;
    if (!carriesAllTraffic(mass, this.deployed.length)) this.deploy();
    else this.afterDeploy();
  }

  /** Throws INFEASIBLE_BUDGET when no maxDeployed of these caps sum to 1. */
  protected checkCapacity(caps: readonly number[], n: number): void {
    if (n === 0) return;
    const s = Math.min(this.config.maxDeployed, n);
    if (topCapSum(caps, n, s) < 1 - 1e-12) {
      throw new RouteKitError(
        ErrorCode.InfeasibleBudget,
        `no ${s} of the ${n} models have capacity caps (maxShare) summing to 1, so traffic cannot be routed: ` +
          "raise maxShare or maxDeployed",
        { models: n, maxDeployed: this.config.maxDeployed },
      );
    }
  }

  // ------------------------------------------------------------ bounds

  /** Recomputes a model's cached UCB and LCB from its statistics. */
  protected refreshBounds(a: StageArm): void {
    const c = this.config;
    const unit = c.costUnit;
    const n = a.n >= c.initialPulls ? a.n : 0;
    a.ucb = rewardUcb(a.sr, n, c.exploration, c.estimator, c.priorReward);
    a.lcb = costLcb(a.sc, n, c.exploration, c.estimator, c.priorCost / unit, c.minCost / unit, c.maxCost / unit);
  }

  // ------------------------------------------------------------ deployment

  /** Chooses the deployed set from the current pool (no-op while the pool cannot carry all traffic). */
  protected deploy(): void {
    const n = this.table.size;
    if (n === 0) {
      this.deployed = [];
      return;
    }
    const caps = this.table.states.map((s) => s.maxShare);
    if (topCapSum(caps, n, Math.min(this.config.maxDeployed, n)) < 1 - 1e-12) {
      this.deployed = [];
      return;
    }
    const next = this.chooseDeployment(this.deployRng);
    if (next.status === "node-limit") this.nodeLimited++;
    if (next.solverError !== undefined) {
      this.solverFailures++;
      this.lastSolverError = next.solverError;
    }
    this.deployed = next.deployed;
    this.deployedAt = this.learned;
    this.deployments++;
    // Frozen: `deployment` hands this object out, and it is part of the snapshot.
    this.lastDeployment = Object.freeze({
      stage: Math.floor(this.learned / this.config.stageLength),
      deployed: Object.freeze(next.deployed.map((s) => s.id)),
      status: next.status,
      method: next.method,
      ...(next.value === undefined ? {} : { value: next.value }),
    });
    const k = this.deployed.length;
    if (this.depP.length < k) {
      const m = Math.max(k, this.depP.length * 2);
      this.depU = new Float64Array(m);
      this.depL = new Float64Array(m);
      this.depA = new Float64Array(m);
      this.depP = new Float64Array(m);
    }
    this.afterDeploy();
  }

  /** Called after the deployed set changed (the oracle fixes its routing here). */
  protected afterDeploy(): void {}

  /** The deployed set for the stage starting now, from learned state; draws tie-breaks from `rng` only. */
  protected abstract chooseDeployment(rng: Rng): {
    deployed: StageArm[];
    status: string;
    method: string;
    value?: number;
    solverError?: string;
  };

  /** The pool's models in a tie-break order: arrival order, or a seeded shuffle. */
  protected poolOrder(rng: Rng): Int32Array {
    const n = this.table.size;
    const order = Int32Array.from({ length: n }, (_, i) => i);
    if (this.config.tieBreak === "random") {
      for (let i = n - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        const t = order[i] as number;
        order[i] = order[j] as number;
        order[j] = t;
      }
    }
    return order;
  }

  // ------------------------------------------------------------ selection

  /** The budget of this round's routing LP, in cost units. */
  protected roundBudget(): number {
    const c = this.config;
    if (c.budgetMode === "average" || this.learned >= c.horizon) return c.budget / c.costUnit;
    const left = (c.budget * c.horizon - this.spent) / (c.horizon - this.learned);
    return (left > 0 ? left : 0) / c.costUnit;
  }

  protected choose(): ArmDecision {
    if (this.deployed.length === 0) {
      // Only when the pool cannot carry all traffic (deployment runs whenever the arms change).
      const caps = this.table.states.map((s) => s.maxShare);
      this.checkCapacity(caps, caps.length);
      throw new RouteKitError(ErrorCode.InvalidState, "no model is deployed");
    }
    const k = this.route();
    // Routing always fills a deployed set that carries all traffic; if it ever gave no positive probability, the
    // sampler's -1 would surface as a TypeError. Checked before the draw, so the random stream stays where it was.
    let routed = false;
    for (let i = 0; i < k && !routed; i++) routed = (this.depP[i] as number) > 0;
    if (!routed) {
      throw new RouteKitError(
        ErrorCode.Numerical,
        `routing gave no model of the deployed set (${k} models) a positive probability`,
      );
    }
    const j = sampleIndex(this.depP, k, this.rng.uniform());
    const state = this.deployed[j] as StageArm;
    const propensity = this.depP[j] as number;
    const id = this.ledger.issue({ uid: state.uid, propensity });
    return { id, arm: state.id, propensity };
  }

  /** Writes this round's routing over the deployed set into depP; returns the deployed count. */
  protected route(): number {
    const dep = this.deployed;
    const k = dep.length;
    const u = this.depU;
    const l = this.depL;
    const a = this.depA;
    for (let j = 0; j < k; j++) {
      const s = dep[j] as StageArm;
      u[j] = s.ucb;
      l[j] = s.lcb;
      a[j] = s.maxShare;
    }
    const st = this.routeSolver.solve(u, l, a, k, this.roundBudget(), this.depP);
    this.lastStatus = st;
    if (st === "infeasible-budget") this.fallbacks++;
    return k;
  }

  // ------------------------------------------------------------ feedback

  protected override readonly costRequired = true;

  protected override checkReward(reward: number): void {
    if (!(reward >= 0 && reward <= 1)) {
      throw new RouteKitError(ErrorCode.OutOfRange, `feedback.reward must be in [0, 1], got ${reward}`);
    }
  }

  protected applyFeedback(state: StageArm, _payload: StagePayload, feedback: ArmFeedback): void {
    const cost = feedback.cost as number;
    const sc = state.sc + cost / this.config.costUnit;
    const spent = this.spent + cost;
    if (!Number.isFinite(sc) || !Number.isFinite(spent)) {
      throw new RouteKitError(ErrorCode.OutOfRange, `feedback.cost ${cost} overflows the cost statistics`);
    }
    state.n++;
    state.sr += feedback.reward;
    state.sc = sc;
    this.spent = spent;
    this.refreshBounds(state);
    this.learned++;
    if (this.learned % this.config.stageLength === 0) this.deploy();
  }

  /**
   * `learn` refuses what `update` refuses, as INVALID_EVENT (the rule for every refused event): that includes a
   * cost whose sum in cost units overflows, which applyFeedback finds (OUT_OF_RANGE from `update`).
   */
  override learn(event: ArmEvent): void {
    try {
      super.learn(event);
    } catch (e) {
      if (e instanceof RouteKitError && e.code === ErrorCode.OutOfRange) {
        throw new RouteKitError(ErrorCode.InvalidEvent, `event ${e.message}`);
      }
      throw e;
    }
  }

  protected uidOf(payload: StagePayload): number {
    return payload.uid;
  }

  protected override eventPropensity(payload: StagePayload): number {
    return payload.propensity;
  }

  protected payloadFromEvent(event: ArmEvent, state: StageArm): StagePayload {
    return { uid: state.uid, propensity: event.decision.propensity ?? 1 };
  }

  // ------------------------------------------------------------ inspection

  /** Feedbacks learned so far (the stage clock). */
  get rounds(): number {
    return this.learned;
  }

  /** Index (0-based) of the current stage. */
  get stage(): number {
    return this.lastDeployment?.stage ?? 0;
  }

  /** Ids of the models deployed in the current stage. */
  get deployedArms(): string[] {
    return this.deployed.map((s) => s.id);
  }

  /** Rounds routed by the cheapest-fill fallback (no routing of the deployed set met the budget) since construction or restore. */
  get fallbackRounds(): number {
    return this.fallbacks;
  }

  /**
   * Stage boundaries (and re-deployments after a removal) whose DeployOPT search stopped at
   * `searchNodeLimit` (`deployment.status === "node-limit"`) since construction or restore.
   */
  get nodeLimitBoundaries(): number {
    return this.nodeLimited;
  }

  /**
   * Deployments where the `deploySolver` threw or answered a subset the routing LP rejected, so that the
   * built-in search ran instead, since construction or restore; `lastSolverFailure` says why.
   */
  get solverFallbacks(): number {
    return this.solverFailures;
  }

  /** The message of the last external-solver failure counted by `solverFallbacks`. */
  get lastSolverFailure(): string | undefined {
    return this.lastSolverError;
  }

  /** Costs received so far (reported units). */
  get totalCost(): number {
    return this.spent;
  }

  /** The last stage-boundary decision. */
  get deployment(): DeploymentInfo | undefined {
    return this.lastDeployment;
  }

  /** Status of the last routing LP. */
  get routeStatus(): RouteStatus {
    return this.lastStatus;
  }

  /** A model's statistics and bounds (costs in reported units); the means are NaN before its first play. */
  stats(id: string): {
    plays: number;
    meanReward: number;
    meanCost: number;
    ucb: number;
    lcb: number;
    maxShare: number;
  } {
    const s = this.table.get(id);
    const unit = this.config.costUnit;
    return {
      plays: s.n,
      meanReward: s.n > 0 ? s.sr / s.n : Number.NaN,
      meanCost: s.n > 0 ? (s.sc / s.n) * unit : Number.NaN,
      ucb: s.ucb,
      lcb: s.lcb * unit,
      maxShare: s.maxShare,
    };
  }

  /** The routing distribution the next select samples from (empty while nothing is deployed). Changes nothing. */
  routing(): Record<string, number> {
    const out: Record<string, number> = Object.create(null);
    const fallbacks = this.fallbacks;
    const status = this.lastStatus;
    const k = this.route();
    for (let j = 0; j < k; j++) out[(this.deployed[j] as StageArm).id] = this.depP[j] as number;
    this.fallbacks = fallbacks;
    this.lastStatus = status;
    return out;
  }

  // ------------------------------------------------------------ snapshots

  protected encodeArm(s: StageArm): Record<string, Json> {
    return { maxShare: s.maxShare, n: s.n, sr: s.sr, sc: s.sc };
  }

  /** The snapshot state: options, the base (rng, ledger, arms with statistics) and the learned stage state. */
  protected stageState(): Record<string, Json> {
    return {
      config: configToJson(this.config),
      ...this.baseState(),
      learned: this.learned,
      deployedAt: this.deployedAt,
      deployed: this.deployed.map((s) => s.uid),
      deployRng: this.deployRng.toJSON() as unknown as Json,
      spent: this.spent,
      deployments: this.deployments,
      lastDeployment: (this.lastDeployment ?? null) as unknown as Json,
    };
  }

  /** Loads a snapshot validated by {@link readStageSnapshot} into a policy built with no arms and the snapshot's options. */
  protected restoreStage(snap: StageSnapshot): void {
    const ids = new Map<number, string>();
    for (const a of snap.base.arms) ids.set(a.uid, a.id);
    this.restoreBase(snap.base, (d, uid) => this.makeArm(ids.get(uid) as string, uid, d.maxShare, d.n, d.sr, d.sc));
    this.learned = snap.learned;
    this.deployedAt = snap.deployedAt;
    this.deployed = snap.deployed.map((uid) => this.stateOfUid(uid) as StageArm);
    this.deployRng = snap.deployRng;
    this.spent = snap.spent;
    this.deployments = snap.deployments;
    this.lastDeployment = snap.lastDeployment;
    const k = this.deployed.length;
    if (this.depP.length < k) {
      this.depU = new Float64Array(k);
      this.depL = new Float64Array(k);
      this.depA = new Float64Array(k);
      this.depP = new Float64Array(k);
    }
    if (k > 0) this.afterDeploy();
  }
}

/** A stage policy's validated snapshot state. */
export interface StageSnapshot {
  readonly base: ArmBaseSnapshot<{ maxShare: number; n: number; sr: number; sc: number }>;
  readonly learned: number;
  readonly deployedAt: number;
  readonly deployed: readonly number[];
  readonly deployRng: Rng;
  readonly spent: number;
  readonly deployments: number;
  readonly lastDeployment: DeploymentInfo | undefined;
}

/** Reads and validates a stage policy's snapshot state (SNAPSHOT_CORRUPT naming the bad field). */
export function readStageSnapshot(st: Record<string, Json>, maxDeployed: number): StageSnapshot {
  // contextDim is whatever the options gave (a context of that length is required by select and ignored).
  const base = readArmBaseState(st, {
    arm: (a) => {
      const n = readInt(a, "n");
      return {
        maxShare: readNumber(a, "maxShare", (v) => v > 0 && v <= 1, "a number in (0, 1]"),
        n,
        sr: readNumber(a, "sr", (v) => v >= 0 && v <= n, `a reward sum in [0, n = ${n}]`),
        sc: readNumber(a, "sc", (v) => v >= 0 && (n > 0 || v === 0), "a cost sum >= 0 (0 without plays)"),
      };
    },
    payload: (json) => payloadUid(json),
  });
  const live = new Set(base.arms.map((a) => a.uid));
  const dep = field(st, "deployed", "array");
  if (dep.length > maxDeployed) snapshotCorrupt('"deployed"', `at most maxDeployed (${maxDeployed}) arm uids`);
  const seen = new Set<number>();
  const deployed: number[] = [];
  for (let i = 0; i < dep.length; i++) {
    const u = dep[i];
    if (typeof u !== "number" || !live.has(u) || seen.has(u))
      snapshotCorrupt(`deployed[${i}]`, "the uid of a live arm, listed once");
    seen.add(u as number);
    deployed.push(u as number);
  }
  // Routing needs a deployed set whose caps carry all traffic; deployment leaves it empty only while
  // the pool cannot.
  const caps = base.arms.map((a) => a.data.maxShare);
  const capOf = new Map(base.arms.map((a) => [a.uid, a.data.maxShare]));
  let mass = 0;
  for (const u of deployed) mass += capOf.get(u) as number;
  const canCarry = caps.length > 0 && topCapSum(caps, caps.length, Math.min(maxDeployed, caps.length)) >= 1 - 1e-12;
  // The deployed order's sum, within the rounding of another order (see carriesAllTraffic): deployment tests the
  // largest caps largest first, so a set it made may fall an ulp short of 1 - 1e-12 here.
  if (canCarry ? !carriesAllTraffic(mass, deployed.length) : deployed.length > 0) {
    snapshotCorrupt(
      '"deployed"',
      canCarry ? "models whose caps (maxShare) sum to 1" : "empty while no models can carry all traffic",
    );
  }
  const learned = readInt(st, "learned");
  // Every feedback a live arm counted was learned (a removed arm takes its count away, so <=, not =).
  let counted = 0;
  for (const a of base.arms) counted += a.data.n;
  checkCountTotal(counted, learned, "arms[].n", '"learned"');
  const deployedAt = readInt(st, "deployedAt", 0, learned);
  const deployRng = Rng.fromJSON(readObject(st.deployRng, '"deployRng"') as unknown as RngState);
  const spent = readNumber(st, "spent", (v) => v >= 0, "a number >= 0");
  const deployments = readInt(st, "deployments");
  let lastDeployment: DeploymentInfo | undefined;
  const ld = st.lastDeployment;
  if (ld !== null) {
    const o = readObject(ld, '"lastDeployment"');
    const arms = field(o, "deployed", "array");
    if (!arms.every((a) => typeof a === "string" && a.length > 0))
      snapshotCorrupt("lastDeployment.deployed", "arm ids");
    const value = o.value === undefined ? undefined : readNumber(o, "value");
    lastDeployment = Object.freeze({
      stage: readInt(o, "stage"),
      deployed: Object.freeze([...(arms as string[])]),
      status: field(o, "status", "string"),
      method: field(o, "method", "string"),
      ...(value === undefined ? {} : { value }),
    });
  }
  if (deployed.length > 0 && lastDeployment === undefined)
    snapshotCorrupt('"lastDeployment"', "present when models are deployed");
  if (lastDeployment !== undefined) {
    // Written by a deployment, which counts itself, at stage floor(deployedAt / stageLength) <= deployedAt.
    if (deployments < 1) snapshotInvalid('"deployments"', deployments, "at least 1 once a deployment was made");
    if (lastDeployment.stage > deployedAt) {
      snapshotInvalid(
        "lastDeployment.stage",
        lastDeployment.stage,
        `a deployment's stage is at most the feedback count it was made at (deployedAt = ${deployedAt})`,
      );
    }
  }
  return { base, learned, deployedAt, deployed, deployRng, spent, deployments, lastDeployment };
}
