export * from "./features.js";
export * from "./kernel.js";
export * from "./kernel-ucb.js";
export * from "./krr.js";
export * from "./options.js";
export * from "./pak-ucb.js";
export * from "./rff-ucb.js";
export * from "./ridge.js";
export { argmaxRandomTies, pickUnvisited } from "./select.js";
