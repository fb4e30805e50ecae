import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // Class and function names as written (esbuild otherwise names self-referencing classes `_Name`).
  keepNames: true,
});
