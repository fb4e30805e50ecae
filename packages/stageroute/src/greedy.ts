/**
 * The UCB/LCB-ratio greedy baseline of the paper (Section 6): at each stage boundary deploy the
 * min(M_max, pool) models with the highest UCB(reward) / LCB(cost), ties at random (seeded); route
 * every query with the same routing LP and fallback as StageRoute. Where the top models' caps cannot
 * carry all traffic, a model is passed over for the next one that keeps that possible.
 */
import { makeSnapshot, type Rng, readSnapshot, rejectUnknownOptions, restoring, type Snapshot } from "@routekit/core";
import { greedyByRatio } from "./cap-greedy.js";
import {
  configFromJson,
  restoreSolver,
  STAGE_POLICY_OPTION_KEYS,
  type StagePolicyOptions,
  type StageRestoreOptions,
} from "./options.js";
import { readStageSnapshot, type StageArm, StagePolicyBase } from "./stage-policy.js";
import { STAGE_SNAPSHOT_VERSION } from "./stageroute.js";

export type RatioGreedyOptions = StagePolicyOptions;

export class RatioGreedy extends StagePolicyBase {
  static readonly kind = "stageroute/ratio-greedy";
  readonly kind = RatioGreedy.kind;

  constructor(options: RatioGreedyOptions) {
    rejectUnknownOptions(options, STAGE_POLICY_OPTION_KEYS, RatioGreedy.kind);
    super(options, RatioGreedy.kind);
    this.addStageArms(options);
  }

  protected chooseDeployment(rng: Rng): { deployed: StageArm[]; status: string; method: string } {
    const states = this.table.states;
    const n = states.length;
    const s = Math.min(this.config.maxDeployed, n);
    const order = this.poolOrder(rng);
    const util = new Float64Array(n);
    const caps = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const st = states[i] as StageArm;
      util[i] = st.lcb > 0 ? st.ucb / st.lcb : st.ucb > 0 ? Number.POSITIVE_INFINITY : 0;
      caps[i] = st.maxShare;
    }
    const byUtil = Array.from(order).sort((x, y) => {
      const d = (util[y] as number) - (util[x] as number);
      return Number.isNaN(d) || d === 0 ? 0 : d;
    });
    const chosen = greedyByRatio(byUtil, caps, s);
    chosen.sort((x, y) => x - y);
    return { deployed: chosen.map((i) => states[i] as StageArm), status: "ok", method: "ucb-lcb-ratio" };
  }

  toJSON(): Snapshot {
    return makeSnapshot(RatioGreedy.kind, STAGE_SNAPSHOT_VERSION, this.stageState());
  }

  /** Restores a snapshot; an external `deploySolver` (a function) must be passed again in `options`. */
  static fromJSON(snapshot: unknown, options?: StageRestoreOptions): RatioGreedy {
    const st = readSnapshot(snapshot, RatioGreedy.kind, STAGE_SNAPSHOT_VERSION);
    // Outside `restoring`: a missing solver is the caller's option problem, not a corrupt snapshot.
    const deploySolver = restoreSolver(RatioGreedy.kind, st.config, options);
    return restoring(RatioGreedy.kind, () => {
      const options = configFromJson(st.config);
      const snap = readStageSnapshot(st, options.maxDeployed);
      const p = new RatioGreedy({
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

export { greedyByRatio };
