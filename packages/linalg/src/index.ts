export { axpy, gemvT, scal, setScaledIdentity, symmetrizeUpper } from "./blas.js";
export { allocF64, dot, gemv, quadFormUpper, symvUpper, syrUpper } from "./dispatch.js";
export * from "./inverse.js";
export * from "./kernels.js";
export * from "./rff.js";
export * from "./softmax.js";
