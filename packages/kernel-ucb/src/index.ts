export type { ArmPrediction, KernelPolicyOptions } from "./base.js";
export { KERNEL_POLICY_OPTION_KEYS, MAX_RIDGE, MIN_RIDGE } from "./base.js";
export {
  drawFeatures,
  effectiveParameters,
  type FeatureConfig,
  MAX_FREQUENCIES,
  type RffVariant,
} from "./features.js";
export { DotKernel, KERNEL_SPEC_KEYS, type KernelSpec, type ResolvedKernel, toLinalgKernel } from "./kernel.js";
export { KERNEL_UCB_OPTION_KEYS, KernelUcb, type KernelUcbOptions } from "./kernel-ucb.js";
export { ExactKrr, LARGE_CAPACITY, MAX_INITIAL_CAPACITY, type OpCounter } from "./krr.js";
export { type Exploration, resolveExploration, SCORE_TRANSFORM_KEYS, type ScoreTransform } from "./options.js";
export { PAK_UCB_OPTION_KEYS, PakUcb, type PakUcbOptions } from "./pak-ucb.js";
export { RFF_UCB_OPTION_KEYS, RffUcb, type RffUcbOptions } from "./rff-ucb.js";
export { RidgeArm } from "./ridge.js";
export {
  type ExploreChoice,
  type StageQuery,
  SUP_OPTION_KEYS,
  SupBase,
  type SupOptions,
  type SupRoundTrace,
} from "./sup-base.js";
export { SUP_PAK_UCB_OPTION_KEYS, SupPakUcb, type SupPakUcbOptions } from "./sup-pak-ucb.js";
export {
  paperBias1,
  paperBias2,
  paperFrequencySchedule,
  RffStage,
  type Schedule,
  type ScheduleInput,
  SUP_RFF_UCB_OPTION_KEYS,
  type SupRffSchedules,
  SupRffUcb,
  type SupRffUcbOptions,
} from "./sup-rff-ucb.js";
export * from "./theory.js";
