/**
 * StageRoute (Li & Li, "Keeping Up with the Models: Online Deployment and Routing of LLMs at Scale",
 * Algorithm 1). At each stage boundary DeployOPT picks at most M_max models from the pool by the
 * optimistic bounds (reward UCB, cost LCB); every query then solves RouteOPT over the deployed models
 * with the freshest bounds and samples a model from its solution.
 */
import { makeSnapshot, type Rng, readSnapshot, rejectUnknownOptions, restoring, type Snapshot } from "@routekit/core";
import type { DeployResult } from "./deploy.js";
import {
  configFromJson,
  restoreSolver,
  STAGE_POLICY_OPTION_KEYS,
  type StagePolicyOptions,
  type StageRestoreOptions,
} from "./options.js";
import { readStageSnapshot, type StageArm, StagePolicyBase } from "./stage-policy.js";

/** Snapshot layout version of the stage policies. */
export const STAGE_SNAPSHOT_VERSION = 1;

export type StageRouteOptions = StagePolicyOptions;

export class StageRoute extends StagePolicyBase {
  static readonly kind = "stageroute/stageroute";
  readonly kind = StageRoute.kind;

  constructor(options: StageRouteOptions) {
    rejectUnknownOptions(options, STAGE_POLICY_OPTION_KEYS, StageRoute.kind);
    super(options, StageRoute.kind);
    this.addStageArms(options);
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
    const s = Math.min(this.config.maxDeployed, n);
    const u = new Float64Array(n);
    const l = new Float64Array(n);
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const st = states[i] as StageArm;
      u[i] = st.ucb;
      l[i] = st.lcb;
      a[i] = st.maxShare;
    }
    const order = this.poolOrder(rng);
    // A deploySolver is user code running in the middle of a call: calls back into the policy are refused.
    this.callback = "deploySolver.solve";
    let res: DeployResult;
    try {
      res = this.deploySolver.solve(u, l, a, n, this.config.budget / this.config.costUnit, s, order);
    } finally {
      this.callback = undefined;
    }
    const chosen = new Set(res.support);
    if (this.config.fillSlots && chosen.size < s) {
      // Pad with the highest UCB, then the fewest plays, then the tie-break order.
      const rank = new Int32Array(n);
      for (let r = 0; r < n; r++) rank[order[r] as number] = r;
      const rest = [...Array(n).keys()].filter((i) => !chosen.has(i));
      rest.sort((x, y) => {
        const sx = states[x] as StageArm;
        const sy = states[y] as StageArm;
        return sy.ucb - sx.ucb || sx.n - sy.n || (rank[x] as number) - (rank[y] as number);
      });
      for (const i of rest) {
        if (chosen.size >= s) break;
        chosen.add(i);
      }
    }
    const deployed: StageArm[] = [];
    for (let i = 0; i < n; i++) if (chosen.has(i)) deployed.push(states[i] as StageArm);
    return { deployed, status: res.status, method: res.method, value: res.value, solverError: res.solverError };
  }

  toJSON(): Snapshot {
    return makeSnapshot(StageRoute.kind, STAGE_SNAPSHOT_VERSION, this.stageState());
  }

  /** Restores a snapshot; an external `deploySolver` (a function) must be passed again in `options`. */
  static fromJSON(snapshot: unknown, options?: StageRestoreOptions): StageRoute {
    const st = readSnapshot(snapshot, StageRoute.kind, STAGE_SNAPSHOT_VERSION);
    // Outside `restoring`: a missing solver is the caller's option problem, not a corrupt snapshot.
    const deploySolver = restoreSolver(StageRoute.kind, st.config, options);
    return restoring(StageRoute.kind, () => {
      const options = configFromJson(st.config);
      const snap = readStageSnapshot(st, options.maxDeployed);
      const p = new StageRoute({
        arms: [],
        ...options,
        ...(deploySolver === undefined ? {} : { deploySolver }),
        contextDim: snap.base.contextDim,
        maxPending: snap.base.maxPending,
      });
      p.restoreStage(snap);
      return p;
    });
  }
}
