export { addRowsScalar, axpy, gemvT, scal, setScaledIdentity, symmetrizeUpper } from "./blas.js";
export * from "./decompositions.js";
export {
  addRows,
  allocF32,
  allocF64,
  allocF64From,
  dot,
  freeF64,
  gemv,
  isInWasmMemory,
  type LinalgBackend,
  type LinalgMemoryStats,
  linalgBackend,
  linalgMemoryStats,
  quadFormUpper,
  symvQuadUpper,
  symvUpper,
  syrUpper,
} from "./dispatch.js";
export * from "./eigen-update.js";
export * from "./inverse.js";
export * from "./kernels.js";
export {
  mirror32Length,
  mirrorUpper,
  paddedLength,
  quadFormMirror32,
  quadFormMirror32Scalar,
  roundToF32,
  syrUpperMirrored,
  syrUpperMirroredScalar,
} from "./mirror32.js";
export * from "./rff.js";
export * from "./secular.js";
export * from "./softmax.js";
