export { type BasePolicyOptions, CLASSIC_SNAPSHOT_VERSION } from "./base.js";
export { type ArmStats, CountingPolicy, type CountState } from "./counting.js";
export { EPSILON_GREEDY_OPTION_KEYS, EpsilonGreedy, type EpsilonGreedyOptions } from "./epsilon-greedy.js";
export { LINUCB_DISJOINT_OPTION_KEYS, LinUCBDisjoint, type LinUCBDisjointOptions } from "./linucb-disjoint.js";
export { LINUCB_SHARED_OPTION_KEYS, LinUCBShared, type LinUCBSharedOptions } from "./linucb-shared.js";
export { ONE_ARM_ORACLE_OPTION_KEYS, OneArmOracle, type OneArmOracleOptions } from "./oracle.js";
export { RANDOM_POLICY_OPTION_KEYS, RandomPolicy, type RandomPolicyOptions } from "./random.js";
export {
  THOMPSON_BERNOULLI_OPTION_KEYS,
  THOMPSON_GAUSSIAN_OPTION_KEYS,
  ThompsonBernoulli,
  type ThompsonBernoulliOptions,
  ThompsonGaussian,
  type ThompsonGaussianOptions,
} from "./thompson.js";
export { UCB1, UCB1_OPTION_KEYS, type UCB1Options } from "./ucb1.js";
