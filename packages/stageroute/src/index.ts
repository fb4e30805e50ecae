export { costLcb, type Estimator, fRad, rewardUcb } from "./bounds.js";
export { binomialCapped, type DeployMethod, type DeployResult, DeploySolver, type DeployStatus } from "./deploy.js";
export type { DeployProblem, ExternalDeploySolver } from "./external.js";
export { RatioGreedy, type RatioGreedyOptions } from "./greedy.js";
export {
  type BudgetMode,
  STAGE_POLICY_OPTION_KEYS,
  type StageConfig,
  type StagePolicyOptions,
  type StageRestoreOptions,
  type TieBreak,
} from "./options.js";
export { STAGE_ORACLE_MEAN_KEYS, STAGE_ORACLE_OPTION_KEYS, StageOracle, type StageOracleOptions } from "./oracle.js";
export { stageValue } from "./oracle-value.js";
export { STAGE_PRESETS } from "./presets.js";
export { RouteSolver, type RouteStatus, SUPPORT_EPS, sampleIndex } from "./route-lp.js";
export { ADD_ARM_OPTION_KEYS, type DeploymentInfo, type StageArm, StagePolicyBase } from "./stage-policy.js";
export { STAGE_SNAPSHOT_VERSION, StageRoute, type StageRouteOptions } from "./stageroute.js";
