import { defineConfig } from "tsup";
import { keepNamesOptions } from "../../tsup.shared";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // Class and function names as written, with tree shaking kept for bundlers that read dist (see tsup.shared.ts).
  ...keepNamesOptions,
});
