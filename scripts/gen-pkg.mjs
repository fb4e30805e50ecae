// One-off scaffolder kept for adding future packages with the same layout.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";

const [dir, name, desc, depsCsv = ""] = process.argv.slice(2);
const deps = Object.fromEntries(
  depsCsv
    .split(",")
    .filter(Boolean)
    .map((d) => [d, d.startsWith("@routekit/") ? "workspace:^" : "*"]),
);
mkdirSync(`${dir}/src`, { recursive: true });
mkdirSync(`${dir}/test`, { recursive: true });
mkdirSync(`${dir}/bench`, { recursive: true });
const pkg = {
  name,
  version: "0.1.0",
  description: desc,
  license: "MIT",
  type: "module",
  sideEffects: false,
  main: "./dist/index.cjs",
  module: "./dist/index.js",
  types: "./dist/index.d.ts",
  exports: {
    ".": {
      import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
      require: { types: "./dist/index.d.cts", default: "./dist/index.cjs" },
    },
    "./package.json": "./package.json",
  },
  files: ["dist", "README.md", "LICENSE"],
  engines: { node: ">=20" },
  scripts: {
    build: "tsup",
    typecheck: "tsc --noEmit -p tsconfig.json",
    test: "vitest run",
    bench: "node --expose-gc bench/run.mjs",
  },
  dependencies: deps,
  publishConfig: { access: "public" },
  keywords: ["bandits", "llm", "routing"],
};
if (!existsSync(`${dir}/package.json`)) writeFileSync(`${dir}/package.json`, JSON.stringify(pkg, null, 2) + "\n");
writeFileSync(
  `${dir}/tsconfig.json`,
  JSON.stringify(
    {
      extends: "../../tsconfig.base.json",
      compilerOptions: { rootDir: ".", noEmit: true },
      include: ["src", "test", "bench"],
    },
    null,
    2,
  ) + "\n",
);
writeFileSync(
  `${dir}/tsup.config.ts`,
  `import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
});
`,
);
writeFileSync(
  `${dir}/vitest.config.ts`,
  `import { defineConfig } from "vitest/config";
import { sharedTestConfig } from "../../vitest.shared";

export default defineConfig(sharedTestConfig());
`,
);
