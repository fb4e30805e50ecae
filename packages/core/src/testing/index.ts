/**
 * `@routekit/core/testing`: the shared property-based conformance harness (needs the optional peer
 * dependency fast-check). Every policy package can fuzz its policies against the protocol contract:
 *
 * ```ts
 * import { fuzzArmPolicy } from "@routekit/core/testing";
 * fuzzArmPolicy({ name: "ucb1", create: ({ seed, arms }) => new UCB1({ seed, arms }), restore: UCB1.fromJSON });
 * ```
 */
export {
  type ArmOp,
  type ArmPolicySpec,
  armOpArbitrary,
  type FuzzOptions,
  type FuzzProfile,
  fuzzArmPolicy,
  runArmScenario,
} from "./arm.js";
export {
  type AssortmentOp,
  type AssortmentPolicySpec,
  assortmentOpArbitrary,
  fuzzAssortmentPolicy,
  runAssortmentScenario,
} from "./assortment.js";
export {
  type CascadeOp,
  type CascadePolicySpec,
  cascadeOpArbitrary,
  fuzzCascadePolicy,
  runCascadeScenario,
} from "./cascade.js";
export {
  ContractViolation,
  checkState,
  expectOk,
  expectRejected,
  expectTolerated,
  fuzzScale,
  longHorizon,
  type StateHooks,
  Trace,
  thrownCode,
} from "./check.js";
export {
  type ConcurrencyOptions,
  checkBufferReuseArm,
  checkBufferReuseAssortment,
  checkBufferReuseCascade,
  checkConcurrentArm,
  checkConcurrentAssortment,
  checkConcurrentCascade,
} from "./concurrency.js";
export { checkHostileArm, checkHostileAssortment, checkHostileCascade, hostileValues } from "./hostile.js";
export {
  decodeAt,
  describeError,
  findNaNIn,
  findNonFinite,
  type NonFiniteHit,
  type ScanOptions,
  show,
  snapshotText,
  tryDecodeF64,
} from "./inspect.js";
export {
  checkArmsLackedRefusedAlike,
  checkLearnRefusesLikeUpdateArm,
  checkMalformedEventsRefusedAlike,
  type RenameEventArm,
  renameArmEverywhere,
} from "./learn-refusals.js";
export {
  type ConstructSpec,
  checkGetterContext,
  checkMisuse,
  checkOptionRanges,
  flakyArray,
  type NumericOptionRange,
  nextDouble,
  type OptionChoices,
  type OptionRange,
  type SmokeFeed,
  smokeRun,
} from "./misuse.js";
export { checkThrowingOptionGetter, checkUnknownOptionKey } from "./option-keys.js";
export {
  checkFloat32ContextsArm,
  checkFloat32FeaturesAssortment,
  checkHostileIds,
  checkLearnEqualsUpdateArm,
  checkLearnEqualsUpdateAssortment,
  checkMaxPendingArm,
  checkMaxPendingAssortment,
  checkMaxPendingCascade,
  checkMaxPendingRestore,
  checkReAddWithOpenEpisodes,
  checkReAddWithPending,
  HOSTILE_IDS,
} from "./properties.js";
export {
  absurdValueCorruptions,
  bitFlipCorruptions,
  type Corruption,
  checkCorruptions,
  checkRestoreFromForeignObjects,
  corruptSnapshot,
  outcomeText,
  resealSnapshot,
  type SnapshotEdit,
  tamperedRestoreOutcome,
  tamperedSnapshot,
} from "./snapshots.js";
