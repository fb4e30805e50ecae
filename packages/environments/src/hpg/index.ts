/**
 * Embedding-model routing environments (Dai, Golrezaei & Jaillet, "Policy Regret for Embedding Model Routing"): the
 * planted log-quadratic environment, the two-tower retrieval environment, the offline class fit
 * (Table 2 analogue) and the online metrics (linearized regret, policy regret, oracle gap).
 */
export * from "./class-fit.js";
export {
  normalize,
  orthonormalRows,
  queryNearSubspace,
  ROUTING_ENVIRONMENT_OPTION_KEYS,
  RoutingEnvironment,
  type RoutingEnvironmentOptions,
} from "./common.js";
export * from "./experiment.js";
export * from "./planted.js";
export * from "./two-tower.js";
