/**
 * The paper's oracle: knows every model's true mean reward and cost. At each stage boundary it solves
 * DeployOPT with the true means (the stage problem V(b, M_tau) of the paper's benchmark) and routes
 * every query of the stage with that fixed optimal routing. Its expected reward per query is the
 * benchmark itself; it is the reference the paper's regret is measured against.
 */
import {
  checkNumber,
  describe,
  ErrorCode,
  type Json,
  makeSnapshot,
  optionKeys,
  type Rng,
  RouteKitError,
  readNumber,
  readObject,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import type { DeployResult } from "./deploy.js";
import {
  configFromJson,
  restoreSolver,
  STAGE_POLICY_OPTION_KEYS,
  type StagePolicyOptions,
  type StageRestoreOptions,
} from "./options.js";
import { readStageSnapshot, type StageArm, StagePolicyBase } from "./stage-policy.js";
import { STAGE_SNAPSHOT_VERSION } from "./stageroute.js";

export interface StageOracleOptions extends StagePolicyOptions {
  /** True mean reward (in [0, 1]) and mean cost (>= 0, reported units) of every model it may meet. */
  readonly means: Readonly<Record<string, { readonly reward: number; readonly cost: number }>>;
}

/** The keys of one model's entry in `means`. */
export const STAGE_ORACLE_MEAN_KEYS = optionKeys<StageOracleOptions["means"][string]>()(["reward", "cost"]);

/** The option keys of {@link StageOracleOptions}. */
export const STAGE_ORACLE_OPTION_KEYS = optionKeys<StageOracleOptions>()([...STAGE_POLICY_OPTION_KEYS, "means"]);

export class StageOracle extends StagePolicyBase {
  static readonly kind = "stageroute/oracle";
  readonly kind = StageOracle.kind;
  private readonly means: Map<string, { reward: number; cost: number }>;
  private fixed = new Float64Array(0);

  constructor(options: StageOracleOptions) {
    rejectUnknownOptions(options, STAGE_ORACLE_OPTION_KEYS, StageOracle.kind);
    super(options, StageOracle.kind);
    const m = readOptions(options, StageOracle.kind).means;
    if (m === null || typeof m !== "object" || Array.isArray(m)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "option means must be a record { [arm]: { reward, cost } }");
    }
    this.means = new Map();
    for (const [id, v] of Object.entries(m)) {
      if (v === null || typeof v !== "object") {
        throw new RouteKitError(ErrorCode.InvalidArgument, `option means["${id}"] must be { reward, cost }`);
      }
      rejectUnknownOptions(v, STAGE_ORACLE_MEAN_KEYS, `option means[${describe(id)}]`);
      this.means.set(id, {
        reward: checkNumber(v.reward, `option means["${id}"].reward`, { min: 0, max: 1 }),
        cost: checkNumber(v.cost, `option means["${id}"].cost`, { min: 0 }),
      });
    }
    this.addStageArms(options);
  }

  protected override checkNewArm(id: string): void {
    if (!this.means.has(id)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, `the oracle has no true means for arm "${id}" (option means)`);
    }
  }

  private truth(st: StageArm): { reward: number; cost: number } {
    return this.means.get(st.id) as { reward: number; cost: number };
  }

  protected chooseDeployment(rng: Rng): {
    deployed: StageArm[];
    status: string;
    method: string;
    value: number;
    solverError?: string;
  } {
    const states = this.table.states;
    const n = states.length;
    const unit = this.config.costUnit;
    const u = new Float64Array(n);
    const c = new Float64Array(n);
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const t = this.truth(states[i] as StageArm);
      u[i] = t.reward;
      c[i] = t.cost / unit;
      a[i] = (states[i] as StageArm).maxShare;
    }
    const s = Math.min(this.config.maxDeployed, n);
    const order = this.poolOrder(rng);
    // A deploySolver is user code running in the middle of a call: calls back into the policy are refused.
    this.callback = "deploySolver.solve";
    let res: DeployResult;
    try {
      res = this.deploySolver.solve(u, c, a, n, this.config.budget / unit, s, order);
    } finally {
      this.callback = undefined;
    }
    return {
      deployed: res.support.map((i) => states[i] as StageArm),
      status: res.status,
      method: res.method,
      value: res.value,
      solverError: res.solverError,
    };
  }

  /** Fixes the stage's routing: the routing LP over the deployed set with the true means. */
  protected override afterDeploy(): void {
    const dep = this.deployed;
    const k = dep.length;
    const unit = this.config.costUnit;
    if (this.fixed.length < k) this.fixed = new Float64Array(this.depP.length);
    for (let j = 0; j < k; j++) {
      const t = this.truth(dep[j] as StageArm);
      this.depU[j] = t.reward;
      this.depL[j] = t.cost / unit;
      this.depA[j] = (dep[j] as StageArm).maxShare;
    }
    this.routeSolver.solve(this.depU, this.depL, this.depA, k, this.config.budget / unit, this.fixed);
  }

  protected override route(): number {
    const k = this.deployed.length;
    for (let j = 0; j < k; j++) this.depP[j] = this.fixed[j] as number;
    return k;
  }

  toJSON(): Snapshot {
    const means: Record<string, Json> = Object.create(null);
    for (const [id, v] of this.means) means[id] = { reward: v.reward, cost: v.cost };
    return makeSnapshot(StageOracle.kind, STAGE_SNAPSHOT_VERSION, { means, ...this.stageState() });
  }

  /** Restores a snapshot; an external `deploySolver` (a function) must be passed again in `options`. */
  static fromJSON(snapshot: unknown, options?: StageRestoreOptions): StageOracle {
    const st = readSnapshot(snapshot, StageOracle.kind, STAGE_SNAPSHOT_VERSION);
    // Outside `restoring`: a missing solver is the caller's option problem, not a corrupt snapshot.
    const deploySolver = restoreSolver(StageOracle.kind, st.config, options);
    return restoring(StageOracle.kind, () => {
      const options = configFromJson(st.config);
      const mj = readObject(st.means, '"means"');
      const means: Record<string, { reward: number; cost: number }> = Object.create(null);
      for (const [id, v] of Object.entries(mj)) {
        const o = readObject(v, `means["${id}"]`);
        rejectUnknownOptions(o, STAGE_ORACLE_MEAN_KEYS, `means[${describe(id)}]`);
        means[id] = { reward: readNumber(o, "reward"), cost: readNumber(o, "cost") };
      }
      const snap = readStageSnapshot(st, options.maxDeployed);
      for (const a of snap.base.arms) {
        if (!Object.hasOwn(means, a.id)) snapshotCorrupt(`means["${a.id}"]`, "the true means of every live model");
      }
      const p = new StageOracle({
        arms: [],
        ...options,
        ...(deploySolver === undefined ? {} : { deploySolver }),
        means,
        contextDim: snap.base.contextDim,
        maxPending: snap.base.maxPending,
      });
      p.restoreStage(snap);
      return p;
    });
  }
}
