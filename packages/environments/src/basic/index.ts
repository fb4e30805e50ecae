export {
  LINEAR_ARRIVAL_KEYS,
  LINEAR_CONTEXTUAL_BANDIT_OPTION_KEYS,
  type LinearArrival,
  LinearContextualBandit,
  type LinearContextualBanditOptions,
} from "./linear.js";
export { STOCHASTIC_BANDIT_OPTION_KEYS, StochasticBandit, type StochasticBanditOptions } from "./stochastic.js";
