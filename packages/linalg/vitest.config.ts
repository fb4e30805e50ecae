import { defineConfig } from "vitest/config";
import { sharedTestConfig } from "../../vitest.shared";

// --expose-gc lets test/wasm.test.ts check that garbage-collected allocF64 blocks are reclaimed.
export default defineConfig(sharedTestConfig({ execArgv: ["--expose-gc"] }));
