export { type BasePolicyOptions, CLASSIC_SNAPSHOT_VERSION } from "./base.js";
export { type ArmStats, CountingPolicy, type CountState } from "./counting.js";
export { EpsilonGreedy, type EpsilonGreedyOptions } from "./epsilon-greedy.js";
export { LinUCBDisjoint, type LinUCBDisjointOptions } from "./linucb-disjoint.js";
export { LinUCBShared, type LinUCBSharedOptions } from "./linucb-shared.js";
export { OneArmOracle, type OneArmOracleOptions } from "./oracle.js";
export { RandomPolicy, type RandomPolicyOptions } from "./random.js";
export {
  ThompsonBernoulli,
  type ThompsonBernoulliOptions,
  ThompsonGaussian,
  type ThompsonGaussianOptions,
} from "./thompson.js";
export { UCB1, type UCB1Options } from "./ucb1.js";
