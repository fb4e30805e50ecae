import type { StagePolicyOptions } from "./options.js";

/**
 * Named option sets. `arena2025-paper` is the configuration of the paper's 15-model simulation
 * (Section 6.1): budget 2 in $ per 1M output tokens, raw cost units, known cost range [0.1, 50],
 * gamma 0.2, padded deployments. Spread it into the options with your arms, maxDeployed and stageLength.
 */
export const STAGE_PRESETS = {
  "arena2025-paper": {
    budget: 2,
    costUnit: 1,
    minCost: 0.1,
    maxCost: 50,
    exploration: 0.2,
    fillSlots: true,
  },
} as const satisfies Record<string, Omit<StagePolicyOptions, "arms" | "maxDeployed" | "stageLength">>;
