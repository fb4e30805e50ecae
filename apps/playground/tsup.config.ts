import { defineConfig } from "tsup";
import { keepNamesOptions } from "../../tsup.shared";

// cli: the `routekit` bin (dist/cli.js, ESM with its shebang); index: the programmatic API;
// worker-plan: imported by core's worker threads to rebuild an experiment from its JSON spec.
export default defineConfig({
  entry: { index: "src/index.ts", cli: "src/cli.ts", "worker-plan": "src/worker-plan.ts" },
  format: ["esm", "cjs"],
  dts: { entry: { index: "src/index.ts", "worker-plan": "src/worker-plan.ts" } },
  sourcemap: true,
  clean: true,
  target: "node20",
  // Class and function names as written, with tree shaking kept for bundlers that read dist (see tsup.shared.ts).
  ...keepNamesOptions,
  shims: true,
});
