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
  type MnlCommonOptions,
  type MnlPolicyBase,
} from "./base.js";
export {
  type MleBaselineConfig,
  type MleBaselineOptions,
  type MleBaselinePreset,
  type MleMnlPolicy,
  mleBaselineAlpha,
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
  OfuMnlPlus,
  type OfuMnlPlusConfig,
  type OfuMnlPlusOptions,
  type OfuMnlPreset,
  type OfuMnlPresetSettings,
  ofuMnlPreset,
} from "./ofu-mnl-plus.js";
