/**
 * What StageRoute and its baselines share: per-model statistics kept for the whole run (never reset at
 * stage boundaries, kept while a model is not deployed), the stage clock, the deployed set, routing by
 * the exact routing LP over the deployed set with the infeasibility fallback, sampling, the budget
 * modes and the snapshot. Subclasses choose the deployed set at each stage boundary.
 *
 * Stage boundaries are driven by the policy's own select counter: selects 0, L, 2L, ... start a stage.
 * A model added with `addArm` joins the pool at once but can be deployed only from the next boundary.
 */
import {
  type ArmBaseSnapshot,
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmState,
  checkNumber,
  type DecisionRef,
  ErrorCode,
  field,
  type Json,
  type LedgerCodec,
  Rng,
  RouteKitError,
  readArmBaseState,
  readInt,
  readNumber,
  readObject,
  readOptions,
  snapshotCorrupt,
} from "@routekit/core";
import { costLcb, rewardUcb } from "./bounds.js";
import { DeploySolver, topCapSum } from "./deploy.js";
import { configToJson, readStageOptions, type StageConfig, type StagePolicyOptions } from "./options.js";
import { RouteSolver, type RouteStatus, sampleIndex } from "./route-lp.js";

/** Per-model statistics (costs in cost units) and its cached bounds. */
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
  /** "ok", "budget-relaxed" (no set met the budget under the bounds) or the baseline's own rule. */
  readonly status: string;
  /** How DeployOPT found its optimum ("relaxation", "enumeration", "mip"), or the baseline's rule. */
  readonly method: string;
  /** DeployOPT's optimal value (the optimistic reward rate of the deployment), when the rule has one. */
  readonly value?: number;
}

export abstract class StagePolicyBase extends ArmPolicyBase<StageArm, StagePayload> {
  readonly config: StageConfig;
  protected readonly deploySolver: DeploySolver;
  protected readonly routeSolver: RouteSolver;
  /** Selects so far (the stage clock). */
  protected round = 0;
  /** Deployed models (live states), at most maxDeployed. */
  protected deployed: StageArm[] = [];
  /** Whether the deployed set must be re-chosen before the next select (an arm was removed). */
  protected redeploy = false;
  /** Costs received so far (reported units), for the paced budget. */
  protected spent = 0;
  protected fallbacks = 0;
  protected deployments = 0;
  protected lastDeployment: DeploymentInfo | undefined;
  protected depU: Float64Array;
  protected depL: Float64Array;
  protected depA: Float64Array;
  protected depP: Float64Array;
  private lastStatus: RouteStatus = "ok";

  protected constructor(options: StagePolicyOptions, what: string) {
    super(options, codec, 0, what);
    const o = readOptions(options, what);
    this.config = readStageOptions(o);
    this.deploySolver = new DeploySolver(this.config.enumLimit);
    const m = this.config.maxDeployed;
    this.routeSolver = new RouteSolver(Math.min(m, 64));
    const cap = Math.min(m, 1024);
    this.depU = new Float64Array(cap);
    this.depL = new Float64Array(cap);
    this.depA = new Float64Array(cap);
    this.depP = new Float64Array(cap);
  }

  /** Checks that the initial arms can carry all traffic (INFEASIBLE_BUDGET otherwise), then adds them. */
  protected addStageArms(options: StagePolicyOptions): void {
    const ids = options.arms;
    if (ids.length > 0) {
      const caps = ids.map((id) => this.shareOf(id));
      this.checkCapacity(caps, caps.length);
    }
    this.addInitialArms(options);
  }

  // ------------------------------------------------------------ arms

  /** Adds a model; `maxShare` overrides the option's cap for it. It can be deployed from the next stage boundary. */
  override addArm(id: string, options?: { readonly maxShare?: number }): void {
    if (options !== undefined && (options === null || typeof options !== "object")) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "addArm options must be an object { maxShare? }");
    }
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
  }

  private pendingShare: number | undefined;

  protected shareOf(id: string): number {
    return this.config.maxShareByArm[id] ?? this.config.maxShareDefault;
  }

  protected createArm(uid: number): StageArm {
    const id = this.adding;
    const share = this.pendingShare ?? this.shareOf(id);
    return this.makeArm(id, uid, share, 0, 0, 0);
  }

  protected makeArm(id: string, uid: number, maxShare: number, n: number, sr: number, sc: number): StageArm {
    const a: StageArm = { id, uid, maxShare, n, sr, sc, ucb: 0, lcb: 0 };
    this.refreshBounds(a);
    return a;
  }

  /** Id of the arm being added (set by checkAddable, which runs just before createArm). */
  private adding = "";

  protected override checkAddable(id: string): void {
    this.checkNewArm(id);
    this.adding = id;
  }

  /** Extra checks of a new arm (the oracle needs its true means). */
  protected checkNewArm(_id: string): void {}

  protected override checkRemovable(id: string): void {
    const state = this.table.get(id);
    // After removal the live pool must still be able to carry all traffic.
    const caps: number[] = [];
    for (const s of this.table.states) if (s !== state) caps.push(s.maxShare);
    this.checkCapacity(caps, caps.length);
  }

  protected override onRemoved(state: StageArm): void {
    const i = this.deployed.indexOf(state);
    if (i < 0) return;
    this.deployed.splice(i, 1);
    // The remaining deployed models keep routing unless they can no longer carry all traffic.
    let mass = 0;
    for (const s of this.deployed) mass += s.maxShare;
    if (this.deployed.length === 0 || mass < 1 - 1e-12) this.redeploy = true;
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
    const explored = a.n >= c.initialPulls;
    const n = explored ? a.n : 0;
    a.ucb = rewardUcb(a.sr, n, c.exploration, c.estimator, c.priorReward);
    a.lcb = costLcb(a.sc, n, c.exploration, c.estimator, c.priorCost / unit, c.minCost / unit, c.maxCost / unit);
  }

  // ------------------------------------------------------------ selection

  /** The budget of this round's routing LP, in cost units. */
  protected roundBudget(): number {
    const c = this.config;
    if (c.budgetMode === "average" || this.round >= c.horizon) return c.budget / c.costUnit;
    const left = (c.budget * c.horizon - this.spent) / (c.horizon - this.round);
    return (left > 0 ? left : 0) / c.costUnit;
  }

  protected choose(): ArmDecision {
    const boundary = this.round % this.config.stageLength === 0;
    if (boundary || this.redeploy || this.deployed.length === 0) {
      // Validated and computed first (on a copy of the rng), committed only if nothing throws.
      const rng = Rng.fromJSON(this.rng.toJSON());
      const next = this.chooseDeployment(rng);
      this.rng = rng;
      this.deployed = next.deployed;
      this.redeploy = false;
      this.deployments++;
      this.lastDeployment = {
        stage: Math.floor(this.round / this.config.stageLength),
        deployed: next.deployed.map((s) => this.idOf(s)),
        status: next.status,
        method: next.method,
        ...(next.value === undefined ? {} : { value: next.value }),
      };
      this.afterDeploy();
    }
    const k = this.route();
    const x = this.rng.uniform();
    const j = sampleIndex(this.depP, k, x);
    const state = this.deployed[j] as StageArm;
    const propensity = this.depP[j] as number;
    this.round++;
    const id = this.ledger.issue({ uid: state.uid, propensity });
    return { id, arm: this.idOf(state), propensity };
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

  /** Called after the deployed set changed (the oracle fixes its routing here). */
  protected afterDeploy(): void {}

  /** The deployed set for the stage starting now (must not change the policy; `rng` is a copy to draw from). */
  protected abstract chooseDeployment(rng: Rng): {
    deployed: StageArm[];
    status: string;
    method: string;
    value?: number;
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

  protected idOf(state: StageArm): string {
    return state.id;
  }

  // ------------------------------------------------------------ feedback

  override update(decision: DecisionRef, feedback: ArmFeedback): void {
    this.ledger.get(decision);
    if (feedback !== null && typeof feedback === "object" && feedback.cost === undefined) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "feedback.cost is required: this policy learns costs");
    }
    super.update(decision, feedback);
  }

  override learn(event: ArmEvent): void {
    const f = (event as { feedback?: { cost?: unknown } } | null)?.feedback;
    if (f !== null && typeof f === "object" && f.cost === undefined) {
      throw new RouteKitError(ErrorCode.InvalidEvent, "event feedback.cost is required: this policy learns costs");
    }
    super.learn(event);
  }

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

  /** Selects made so far. */
  get rounds(): number {
    return this.round;
  }

  /** Index (0-based) of the current stage: the stage of the last select. */
  get stage(): number {
    return this.round === 0 ? 0 : Math.floor((this.round - 1) / this.config.stageLength);
  }

  /** Ids of the models deployed in the current stage. */
  get deployedArms(): string[] {
    return this.deployed.map((s) => this.idOf(s));
  }

  /** Rounds routed by the cheapest-fill fallback because no routing of the deployed set met the budget. */
  get fallbackRounds(): number {
    return this.fallbacks;
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

  /** A model's statistics and bounds (costs in reported units). */
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

  /**
   * The routing distribution the next select would sample from, if no stage boundary intervenes
   * (an empty record before the first select). Changes nothing.
   */
  routing(): Record<string, number> {
    const out: Record<string, number> = {};
    if (this.deployed.length === 0 || this.redeploy) return out;
    const fallbacks = this.fallbacks;
    const status = this.lastStatus;
    const p = this.depP.slice();
    const k = this.route();
    for (let j = 0; j < k; j++) out[this.idOf(this.deployed[j] as StageArm)] = this.depP[j] as number;
    this.depP.set(p);
    this.fallbacks = fallbacks;
    this.lastStatus = status;
    return out;
  }

  // ------------------------------------------------------------ snapshots

  protected encodeArm(s: StageArm): Record<string, Json> {
    return { maxShare: s.maxShare, n: s.n, sr: s.sr, sc: s.sc };
  }

  protected stageState(): Record<string, Json> {
    return {
      config: configToJson(this.config),
      ...this.baseState(),
      round: this.round,
      deployed: this.deployed.map((s) => s.uid),
      redeploy: this.redeploy,
      spent: this.spent,
      fallbacks: this.fallbacks,
      deployments: this.deployments,
      lastDeployment: (this.lastDeployment ?? null) as unknown as Json,
    };
  }

  /** Loads a snapshot validated by {@link readStageSnapshot} into a policy built with no arms and the snapshot's options. */
  protected restoreStage(snap: StageSnapshot): void {
    const ids = new Map<number, string>();
    for (const a of snap.base.arms) ids.set(a.uid, a.id);
    this.restoreBase(snap.base, (d, uid) => this.makeArm(ids.get(uid) as string, uid, d.maxShare, d.n, d.sr, d.sc));
    this.round = snap.round;
    this.deployed = snap.deployed.map((uid) => this.stateOfUid(uid) as StageArm);
    this.redeploy = snap.redeploy;
    this.spent = snap.spent;
    this.fallbacks = snap.fallbacks;
    this.deployments = snap.deployments;
    this.lastDeployment = snap.lastDeployment;
    if (this.deployed.length > 0) this.afterDeploy();
  }
}

/** A stage policy's validated snapshot state. */
export interface StageSnapshot {
  readonly base: ArmBaseSnapshot<{ maxShare: number; n: number; sr: number; sc: number }>;
  readonly round: number;
  readonly deployed: readonly number[];
  readonly redeploy: boolean;
  readonly spent: number;
  readonly fallbacks: number;
  readonly deployments: number;
  readonly lastDeployment: DeploymentInfo | undefined;
}

/** Reads and validates a stage policy's snapshot state (SNAPSHOT_CORRUPT naming the bad field). */
export function readStageSnapshot(st: Record<string, Json>, maxDeployed: number): StageSnapshot {
  const base = readArmBaseState(st, {
    maxContextDim: 0,
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
  const round = readInt(st, "round");
  const redeploy = field(st, "redeploy", "boolean");
  const spent = readNumber(st, "spent", (v) => v >= 0, "a number >= 0");
  const fallbacks = readInt(st, "fallbacks", 0, round);
  const deployments = readInt(st, "deployments", 0, round);
  let lastDeployment: DeploymentInfo | undefined;
  const ld = st.lastDeployment;
  if (ld !== null) {
    const o = readObject(ld, '"lastDeployment"');
    const arms = field(o, "deployed", "array");
    if (!arms.every((a) => typeof a === "string" && a.length > 0))
      snapshotCorrupt("lastDeployment.deployed", "arm ids");
    const value = o.value === undefined ? undefined : readNumber(o, "value");
    lastDeployment = {
      stage: readInt(o, "stage"),
      deployed: arms as string[],
      status: field(o, "status", "string"),
      method: field(o, "method", "string"),
      ...(value === undefined ? {} : { value }),
    };
  }
  if (deployed.length > 0 && lastDeployment === undefined)
    snapshotCorrupt('"lastDeployment"', "present when models are deployed");
  return { base, round, deployed, redeploy, spent, fallbacks, deployments, lastDeployment };
}
