export * from "./base.js";
export * from "./glm.js";
export * from "./uniform.js";
