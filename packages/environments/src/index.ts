export * from "./basic/index.js";
export * from "./hpg/index.js";
export * from "./kernel-ucb/index.js";
export * from "./mnl/index.js";
export * from "./pandora/index.js";
export * from "./replay/index.js";
export * from "./stageroute/index.js";
