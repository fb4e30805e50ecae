export * from "./presets.js";
export * from "./staged.js";
