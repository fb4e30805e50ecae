export * from "./links.js";
export * from "./loss.js";
export * from "./weitzman.js";
