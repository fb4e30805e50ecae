export { type LinearArrival, LinearContextualBandit, type LinearContextualBanditOptions } from "./linear.js";
export { StochasticBandit, type StochasticBanditOptions } from "./stochastic.js";
