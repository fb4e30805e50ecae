import { defineConfig } from "tsup";
import { keepNamesOptions } from "../../tsup.shared";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    node: "src/node.ts",
    worker: "src/worker.ts",
    "testing/index": "src/testing/index.ts",
  },
  external: ["fast-check"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  // import.meta.url in the CommonJS build, so the worker entry is found next to index.cjs.
  shims: true,
  target: "node20",
  // Class and function names as written, with tree shaking kept for bundlers that read dist (see tsup.shared.ts).
  ...keepNamesOptions,
});
