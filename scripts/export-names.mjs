#!/usr/bin/env node
// Every exported function and class of every built entry point (each package's and app's `exports`, ESM and CJS,
// and the gateway example's dist/index.js) has `.name` equal to its export name, and no class on an exported
// class's prototype chain has a `_`-prefixed name. esbuild renames a class that refers to itself
// (`var UCB1 = class _UCB1`) unless the build keeps names: `console.log(policy)`, `constructor.name` and stack
// traces then said `_UCB1`. Also: no entry holds a statement-level `__name(...)` call without a pure mark (it
// would stop bundlers that read dist from tree shaking, see tsup.shared.ts). Run from the repository root after
// `turbo run build`; exits 1 with one line per problem.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Problems with the names of module `mod`'s exports (`label` names the entry in the messages): a function whose
 * `.name` differs from its export name, or a class whose prototype chain holds a `_`-prefixed class name.
 * Self-contained (scripts/pack-check.mjs writes its source into the files it runs in a scratch project).
 */
export function misnamedExports(label, mod) {
  const out = [];
  let checked = 0;
  for (const [key, value] of Object.entries(mod)) {
    if (typeof value !== "function" || key === "default") continue;
    checked++;
    if (value.name !== key) out.push(`${label}: export ${key} is named "${value.name}"`);
    for (let base = Object.getPrototypeOf(value); typeof base === "function" && base !== Function.prototype; ) {
      if (/^_[A-Za-z]/.test(base.name)) out.push(`${label}: export ${key} extends a class named "${base.name}"`);
      base = Object.getPrototypeOf(base);
    }
  }
  return { checked, problems: out };
}

/** The built entry points of the packages and apps under `root`: { name, esm, cjs? } with absolute file paths. */
export function builtEntries(root) {
  const entries = [];
  for (const group of ["packages", "apps"]) {
    for (const p of readdirSync(join(root, group))) {
      const dir = join(root, group, p);
      if (!existsSync(join(dir, "package.json"))) continue;
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
        if (target === null || typeof target !== "object") continue;
        const file = (cond) => (typeof cond === "string" ? cond : cond?.default);
        const esm = file(target.import);
        const cjs = file(target.require);
        entries.push({
          name: pkg.name + sub.slice(1),
          esm: esm === undefined ? undefined : join(dir, esm),
          cjs: cjs === undefined ? undefined : join(dir, cjs),
        });
      }
    }
  }
  // The gateway example is private and has no `exports`: its pieces (dist/index.js, ESM only) are still built.
  const gateway = join(root, "apps", "gateway-example", "dist", "index.js");
  entries.push({ name: "@routekit/gateway-example (dist/index.js)", esm: gateway });
  return entries;
}

/** Imports every entry of `root`'s builds (ESM and CJS) and checks their names; a missing build is a problem. */
export async function checkExportNames(root) {
  const require = createRequire(import.meta.url);
  const problems = [];
  let checked = 0;
  let modules = 0;
  for (const e of builtEntries(root)) {
    for (const [format, file] of [
      ["ESM", e.esm],
      ["CJS", e.cjs],
    ]) {
      if (file === undefined) continue;
      if (!existsSync(file)) {
        problems.push(`${e.name} (${format}): ${file} is not built (run turbo run build first)`);
        continue;
      }
      // keepNames' statement-level __name calls must carry a pure mark (tsup.shared.ts): without it a bundler
      // that reads dist keeps every function and class, and tree shaking is gone.
      const bare = readFileSync(file, "utf8").match(/^\s*__name\(.*$/m);
      if (bare !== null)
        problems.push(`${e.name} (${format}): "${bare[0].trim()}" has no pure mark (breaks tree shaking)`);
      const mod = format === "ESM" ? await import(pathToFileURL(file).href) : require(file);
      const r = misnamedExports(`${e.name} (${format})`, mod);
      if (r.checked === 0) problems.push(`${e.name} (${format}): no exported function to check`);
      checked += r.checked;
      modules++;
      problems.push(...r.problems);
    }
  }
  return { checked, modules, problems };
}

async function main() {
  const root = resolve(import.meta.dirname, "..");
  const { checked, modules, problems } = await checkExportNames(root);
  for (const p of problems) console.log(p);
  if (problems.length > 0) {
    console.log(`export-names: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log(`export-names: ${checked} exported functions and classes of ${modules} built modules keep their names`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
