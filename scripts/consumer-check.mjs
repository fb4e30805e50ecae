#!/usr/bin/env node
// A consumer project of ONE algorithm package, as a user gets it from npm: the tarballs of `@routekit/classic`
// and of its @routekit dependencies are installed into an empty project, which then
//   - type-checks a TypeScript file strictly under `bundler` resolution with the libraries' .d.ts checked too
//     (skipLibCheck false), and under `node16` as ESM and as CJS;
//   - bundles it with esbuild for the browser and runs the bundle with browser-like globals only (no Node);
//   - bundles it for Node as ESM and as CJS and runs both.
// Run after `turbo run build`. Usage: node scripts/consumer-check.mjs [package] (default @routekit/classic).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { runBrowserLike } from "./browser-check.mjs";

const root = resolve(import.meta.dirname, "..");
const target = process.argv[2] ?? "@routekit/classic";
const dirs = Object.fromEntries(
  readdirSync(join(root, "packages")).map((p) => {
    const dir = join(root, "packages", p);
    return [JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, dir];
  }),
);
// The package and its @routekit dependencies, transitively.
const needed = new Set();
const visit = (name) => {
  if (needed.has(name)) return;
  needed.add(name);
  const pkg = JSON.parse(readFileSync(join(dirs[name], "package.json"), "utf8"));
  for (const dep of Object.keys(pkg.dependencies ?? {})) if (dep.startsWith("@routekit/")) visit(dep);
};
visit(target);

const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
const work = mkdtempSync(join(tmpdir(), "routekit-consumer-"));
const packs = join(work, "packs");
mkdirSync(packs);
const tarballs = {};
for (const name of needed) {
  const out = run("npx", ["-y", "pnpm@10", "pack", "--pack-destination", packs], dirs[name]).trim().split("\n").pop();
  tarballs[name] = out.startsWith("/") ? out : join(packs, out);
}
const app = join(work, "app");
mkdirSync(app);
const files = Object.fromEntries(Object.entries(tarballs).map(([n, t]) => [n, `file:${t}`]));
writeFileSync(
  join(app, "package.json"),
  JSON.stringify({ name: "consumer", version: "0.0.0", private: true, dependencies: files, overrides: files }, null, 2),
);
run(
  "npm",
  ["install", "--no-audit", "--no-fund", "--loglevel=error", "typescript@~5.9.3", "@types/node@^20", "esbuild@0.27.7"],
  app,
);
console.log(`consumer: installed ${[...needed].join(", ")} from their tarballs`);

const source = `import { LinUCBDisjoint, type LinUCBDisjointOptions } from "@routekit/classic";
import { isRouteKitError, type Snapshot } from "@routekit/core";

const options: LinUCBDisjointOptions = { arms: ["small", "large"], contextDim: 2, seed: 7 };
const policy = new LinUCBDisjoint(options);
for (let t = 0; t < 40; t++) {
  const d = policy.select(new Float64Array([t % 2, 1]));
  policy.update(d, { reward: d.arm === "large" ? 1 : 0 });
}
const snap: Snapshot = policy.toJSON();
const again = LinUCBDisjoint.fromJSON(JSON.parse(JSON.stringify(snap)));
let typed = false;
try {
  again.select(new Float64Array([1]));
} catch (e) {
  typed = isRouteKitError(e, "DIMENSION_MISMATCH");
}
if (!typed) throw new Error("expected a typed DIMENSION_MISMATCH");
const msg = \`consumer ok: \${again.arms.join(",")}\`;
const g = globalThis as { report?: (m: string) => void };
if (typeof g.report === "function") g.report(msg);
else console.log(msg);
`;
writeFileSync(join(app, "consumer.ts"), source);
writeFileSync(join(app, "consumer.mts"), source);
writeFileSync(join(app, "consumer.cts"), source);
const tsconfig = (name, compilerOptions, file) =>
  writeFileSync(
    join(app, name),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, ...compilerOptions },
      files: [file],
    }),
  );
tsconfig(
  "tsconfig.bundler.json",
  { module: "esnext", moduleResolution: "bundler", target: "es2022", lib: ["es2022", "dom"], types: [] },
  "consumer.ts",
);
tsconfig(
  "tsconfig.esm.json",
  { module: "node16", moduleResolution: "node16", target: "es2022", types: ["node"] },
  "consumer.mts",
);
tsconfig(
  "tsconfig.cjs.json",
  { module: "node16", moduleResolution: "node16", target: "es2022", types: ["node"] },
  "consumer.cts",
);
for (const t of ["tsconfig.bundler.json", "tsconfig.esm.json", "tsconfig.cjs.json"]) {
  try {
    run("npx", ["tsc", "-p", t], app);
  } catch (e) {
    throw new Error(`strict types (${t}) failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}
console.log(
  "consumer types ok: strict; bundler, node16 ESM and node16 CJS; library .d.ts checked (skipLibCheck false)",
);

const esbuild = await import(pathToFileURL(join(app, "node_modules", "esbuild", "lib", "main.js")).href);
const browser = await esbuild.build({
  entryPoints: [join(app, "consumer.ts")],
  bundle: true,
  platform: "browser",
  format: "iife",
  write: false,
  logLevel: "silent",
});
const messages = await runBrowserLike(browser.outputFiles[0].text);
if (!messages.some((m) => m.startsWith("consumer ok"))) throw new Error("the browser bundle reported nothing");
console.log(
  `consumer browser bundle ok (${(browser.outputFiles[0].text.length / 1024).toFixed(0)} KiB, run with no Node globals)`,
);
for (const format of ["esm", "cjs"]) {
  const outfile = join(app, `consumer.node.${format === "esm" ? "mjs" : "cjs"}`);
  await esbuild.build({
    entryPoints: [join(app, "consumer.ts")],
    bundle: true,
    platform: "node",
    format,
    outfile,
    logLevel: "silent",
  });
  const out = run("node", [outfile], app);
  if (!out.startsWith("consumer ok")) throw new Error(`the Node ${format} bundle printed ${JSON.stringify(out)}`);
  console.log(`consumer Node ${format.toUpperCase()} bundle ok`);
}
rmSync(work, { recursive: true, force: true });
console.log(
  `consumer-check: ${target} installs from its tarball and builds for the browser and Node (ESM, CJS) with strict types`,
);
