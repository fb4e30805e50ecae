export * from "./presets.js";
export * from "./prompt-pool.js";
