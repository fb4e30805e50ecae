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
        // Other subpath entries (`/node`, `/highs`) are one source file each.
        { find: /^@routekit\/([a-z-]+)\/([a-z-]+)$/, replacement: `${root}packages/$1/src/$2.ts` },
        { find: /^@routekit\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
      ],
    },
    test: {
      include: ["test/**/*.test.ts"],
      // Hang guards, not speed checks (speed lives in benchmarks): the longest default-timeout tests take 35-43 s
      // in a clean CI run on 2 cores, and a 60 s guard failed one (74 s) when the machine carried a second job.
      testTimeout: 240_000,
      hookTimeout: 240_000,
      // The test files of a package share one worker's module graph instead of a fresh process each: on a 2-core
      // machine that is about a third less CPU for a package of small files (startup and re-imports), and a memo
      // at module level is shared between files. Tests must not leave global state behind (each package's suite
      // passes in this mode; a file that needs a fresh process can set `isolate: true` in its package config).
      isolate: false,
      // The JSON report is what scripts/test-all.mjs sums into the closing "N passed, N failed" line.
      reporters: ["default", "json"],
      outputFile: { json: ".vitest-report.json" },
      ...extra,
    },
  };
}
