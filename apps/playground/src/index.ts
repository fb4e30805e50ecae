/**
 * The RouteKit playground as a library: the same commands as the `routekit` CLI, returning results.
 */
export {
  aggregateSeries,
  type BandPoint,
  METRICS,
  type Metric,
  meanPickShare,
  pickShareSeries,
  type SharePoint,
} from "./aggregate.js";
export {
  type CommandResult,
  type CommonOptions,
  type CompareOptions,
  compare,
  findScenario,
  REPLAY_DEFAULT_POLICIES,
  type ReplayOptions,
  replay,
  runGroup,
  runScenario,
  scenarioSpec,
} from "./api.js";
export { type CompareConfig, CompareConfigSchema, configToSpec, parseCompareConfig } from "./config.js";
export { CliFailure, UsageError } from "./errors.js";
export {
  EVALUATE_ESTIMATORS,
  type EvaluateEstimator,
  type EvaluateOptions,
  type EvaluateResult,
  evaluate,
  formatEvaluation,
  restoreOptionsFor,
} from "./evaluate.js";
export type { LogIssue } from "./event-log.js";
export { type ExecuteOptions, execute } from "./execute.js";
export {
  type GroupFiles,
  type GroupMember,
  type GroupPoint,
  type GroupResult,
  groupFigureSpec,
  type ScenarioSelection,
  scenarioGroups,
  selectScenarios,
  writeGroupOutputs,
} from "./group.js";
export { type CliIo, main } from "./main.js";
export { type RunOutput, type WrittenFiles, writeOutputs } from "./output.js";
export {
  locateFont,
  metricSpec,
  panelSpec,
  pickShareRoundsSpec,
  pickShareSpec,
  pickTitle,
  renderSvg,
  svgToPng,
} from "./plot.js";
export {
  checkReferences,
  REFERENCE_METRICS,
  type ReferenceCheck,
  type ReferenceMetric,
  type ReferenceValue,
  referenceZ,
  VERDICT_RULE,
  Z_LIMIT,
} from "./reference.js";
export * from "./registry/index.js";
export { buildExperimentFrom, preparePolicy, prepareSpec, type RunSpec, resolveSpec } from "./spec.js";
export { type TrainIssue, type TrainOptions, type TrainResult, train, writeSnapshot } from "./train.js";
