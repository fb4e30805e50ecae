export * from "./cascade.js";
export * from "./environment.js";
export * from "./featurizer.js";
export * from "./json-keys.js";
export * from "./order.js";
export * from "./table.js";
