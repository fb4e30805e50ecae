import { defineConfig } from "tsup";
import { keepNamesOptions } from "../../tsup.shared";

// main: the sidecar server (`routekit-gateway`); simulate-cli: a load generator playing the clients and
// the models; index: the pieces, for tests and for reuse.
export default defineConfig({
  entry: { index: "src/index.ts", main: "src/main.ts", "simulate-cli": "src/simulate-cli.ts" },
  format: ["esm"],
  dts: { entry: { index: "src/index.ts" } },
  sourcemap: true,
  clean: true,
  target: "node20",
  // Class and function names as written, with tree shaking kept for bundlers that read dist (see tsup.shared.ts).
  ...keepNamesOptions,
});
