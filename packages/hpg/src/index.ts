export * from "./coin.js";
export * from "./dense.js";
export * from "./hypentropy.js";
export * from "./mirror.js";
export * from "./threshold.js";
