import { fileURLToPath } from "node:url";
import type { UserConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * Tests import sibling packages from source, so a change in `linalg` is seen by
 * `kernel-ucb`'s tests without rebuilding. Published builds still go through dist.
 */
export function sharedTestConfig(extra: UserConfig["test"] = {}): UserConfig {
  return {
    resolve: {
      alias: [
        { find: /^@routekit\/([a-z-]+)\/testing$/, replacement: `${root}packages/$1/src/testing/index.ts` },
        { find: /^@routekit\/([a-z-]+)\/node$/, replacement: `${root}packages/$1/src/node.ts` },
        { find: /^@routekit\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
      ],
    },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      // The JSON report is what scripts/test-all.mjs sums into the closing "N passed, N failed" line.
      reporters: ["default", "json"],
      outputFile: { json: ".vitest-report.json" },
      ...extra,
    },
  };
}
