export type { ArmPrediction, KernelPolicyOptions } from "./base.js";
export { MAX_RIDGE, MIN_RIDGE } from "./base.js";
export {
  drawFeatures,
  effectiveParameters,
  type FeatureConfig,
  MAX_FREQUENCIES,
  type RffVariant,
} from "./features.js";
export { DotKernel, type KernelSpec, type ResolvedKernel, toLinalgKernel } from "./kernel.js";
export { KernelUcb, type KernelUcbOptions } from "./kernel-ucb.js";
export { ExactKrr, LARGE_CAPACITY, MAX_INITIAL_CAPACITY, type OpCounter } from "./krr.js";
export { type Exploration, resolveExploration, type ScoreTransform } from "./options.js";
export { PakUcb, type PakUcbOptions } from "./pak-ucb.js";
export { RffUcb, type RffUcbOptions } from "./rff-ucb.js";
export { RidgeArm } from "./ridge.js";
export { type ExploreChoice, type StageQuery, SupBase, type SupOptions, type SupRoundTrace } from "./sup-base.js";
export { SupPakUcb, type SupPakUcbOptions } from "./sup-pak-ucb.js";
export {
  paperBias1,
  paperBias2,
  paperFrequencySchedule,
  RffStage,
  type Schedule,
  type ScheduleInput,
  SupRffUcb,
  type SupRffUcbOptions,
} from "./sup-rff-ucb.js";
export * from "./theory.js";
