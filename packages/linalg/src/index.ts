export { addRowsScalar, axpy, gemvT, scal, setScaledIdentity, symmetrizeUpper } from "./blas.js";
export * from "./decompositions.js";
export {
  addRows,
  allocF32,
  allocF64,
  allocF64From,
  dot,
  dotAtTo,
  dotTo,
  freeF64,
  gemv,
  isInWasmMemory,
  type LinalgBackend,
  type LinalgMemoryStats,
  linalgBackend,
  linalgMemoryStats,
  quadFormUpper,
  quadFormUpperTo,
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
  quadFormMirror32To,
  roundToF32,
  syrUpperMirrored,
  syrUpperMirroredAt,
  syrUpperMirroredScalar,
} from "./mirror32.js";
export * from "./rff.js";
export * from "./secular.js";
export * from "./softmax.js";
export { topKIndices, topKIndicesAmong, topKThreshold } from "./top-k.js";
