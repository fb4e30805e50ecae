export {
  assortmentRevenue,
  bruteForceAssortment,
  DinkelbachWorkspace,
  dinkelbachAssortment,
  optimalAssortment,
  topK,
} from "./assortment.js";
export {
  MAX_FEATURE_SQUARED_NORM,
  MAX_MNL_CONTEXT_DIM,
  MAX_MNL_SIZE,
  MNL_COMMON_OPTION_KEYS,
  type MnlCommonOptions,
  type MnlPolicyBase,
} from "./base.js";
export {
  MLE_BASELINE_OPTION_KEYS,
  type MleBaselineConfig,
  type MleBaselineOptions,
  type MleBaselinePreset,
  type MleMnlPolicy,
  mleBaselineAlpha,
  TS_MNL_OPTION_KEYS,
  TsMnl,
  type TsMnlOptions,
  UcbMnl,
} from "./baselines.js";
export { type BetaParams, type OfuMnlHyper, ofuMnlBeta, ofuMnlHyperparameters } from "./beta.js";
export {
  crossCheckAssortmentLP,
  type LpAssortmentResult,
  type LpCrossCheckReport,
  solveAssortmentLP,
} from "./lp.js";
export { mnlGradient, mnlLoss, mnlProbabilities, mnlRevenue } from "./model.js";
export {
  type BetaMode,
  OFU_MNL_PLUS_OPTION_KEYS,
  OfuMnlPlus,
  type OfuMnlPlusConfig,
  type OfuMnlPlusOptions,
  type OfuMnlPreset,
  type OfuMnlPresetSettings,
  ofuMnlPreset,
} from "./ofu-mnl-plus.js";
