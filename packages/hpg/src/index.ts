export * from "./coin.js";
export * from "./dense.js";
export * from "./hpg.js";
export * from "./hypentropy.js";
export * from "./mirror.js";
export * from "./router.js";
export * from "./threshold.js";
