#!/usr/bin/env node
// Proves that every publishable package installs on its own from its tarball into an empty Node
// project and imports from ESM and CommonJS, types included, exactly as a user would get it from npm; every
// entry's exported classes and functions keep their names in both (see scripts/export-names.mjs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { misnamedExports } from "./export-names.mjs";

const root = resolve(import.meta.dirname, "..");
const dirs = ["packages", "apps"].flatMap((d) => readdirSync(join(root, d)).map((p) => join(root, d, p)));
const pkgs = dirs
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ pkg }) => !pkg.private);

const PNPM = ["-y", "pnpm@10"];

/** Every file a package's manifest points at (main, module, types, bin, each export condition). */
function entryFiles(pkg) {
  const out = [];
  const walk = (v) => {
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object") for (const w of Object.values(v)) walk(w);
  };
  walk([pkg.main, pkg.module, pkg.types, pkg.bin, pkg.exports]);
  return out.filter((f) => f.startsWith("./") || !f.includes(":")).filter((f) => !f.includes("*"));
}
// A package packed before it is built ships a tarball without dist/, and the imports below then fail far from
// the cause: build what is missing first (a filtered `pnpm test` builds only its own packages).
const unbuilt = pkgs.filter(({ dir, pkg }) => entryFiles(pkg).some((f) => !existsSync(join(dir, f))));
if (unbuilt.length > 0) {
  const filters = unbuilt.map(({ pkg }) => `--filter=${pkg.name}`);
  console.log(`building first (entry files missing): ${unbuilt.map(({ pkg }) => pkg.name).join(", ")}`);
  // through pnpm, so turbo finds its package manager also when this script is run with plain node
  execFileSync("npx", [...PNPM, "exec", "turbo", "run", "build", ...filters, "--output-logs=errors-only"], {
    cwd: root,
    stdio: "inherit",
  });
}

const work = mkdtempSync(join(tmpdir(), "routekit-pack-"));
const packs = join(work, "packs");
mkdirSync(packs);
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

const tarballs = {};
for (const { dir, pkg } of pkgs) {
  const out = run("npx", [...PNPM, "pack", "--pack-destination", packs], dir)
    .trim()
    .split("\n")
    .pop();
  tarballs[pkg.name] = out.startsWith("/") ? out : join(packs, out);
  console.log(`packed ${pkg.name} -> ${tarballs[pkg.name].split("/").pop()}`);
}

const app = join(work, "app");
mkdirSync(app);
// Overrides point every @routekit dependency at its local tarball: nothing is published yet.
const overrides = Object.fromEntries(Object.entries(tarballs).map(([n, t]) => [n, `file:${t}`]));
writeFileSync(
  join(app, "package.json"),
  JSON.stringify(
    { name: "pack-check-app", version: "0.0.0", private: true, dependencies: overrides, overrides },
    null,
    2,
  ),
);
run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "typescript@~5.9.3", "@types/node@^20"], app);

// Every entry point: the packages and their subpath exports (e.g. @routekit/stageroute/highs, which must import
// without its optional peer dependency `highs` installed: it loads HiGHS only when called), but for subpaths that
// are their optional peer's own helpers and import it at once.
const NEEDS_OPTIONAL_PEER = new Set(["@routekit/core/testing"]); // fast-check
const names = pkgs.flatMap(({ pkg }) => [
  pkg.name,
  ...Object.keys(pkg.exports ?? {})
    .filter((k) => k !== "." && !k.endsWith(".json"))
    .map((k) => pkg.name + k.slice(1))
    .filter((n) => !NEEDS_OPTIONAL_PEER.has(n)),
]);
const ident = (n) => n.replace(/^@routekit\//, "rk_").replace(/[-/]/g, "_");
// Each entry's exported classes and functions must keep their names (scripts/export-names.mjs): the check's
// source is written into both files, which run in the scratch project against the installed tarballs.
const namesCheck = `${misnamedExports.toString()}
const misnamed = [];
const checkNames = (label, m) => misnamed.push(...misnamedExports(label, m).problems);
const reportNames = (format) => {
  if (misnamed.length > 0) throw new Error(format + " exports renamed by the build:\\n" + misnamed.join("\\n"));
};`;
writeFileSync(
  join(app, "esm.mjs"),
  `${names.map((n) => `import * as ${ident(n)} from "${n}";`).join("\n")}
${namesCheck}
const mods = { ${names.map((n) => `"${n}": ${ident(n)}`).join(", ")} };
for (const [n, m] of Object.entries(mods)) if (Object.keys(m).length === 0) throw new Error(n + " has no ESM exports");
for (const [n, m] of Object.entries(mods)) checkNames(n + " (ESM)", m);
reportNames("ESM");
console.log("esm ok (names kept):", Object.entries(mods).map(([n, m]) => n + "(" + Object.keys(m).length + ")").join(" "));
`,
);
writeFileSync(
  join(app, "cjs.cjs"),
  `const names = ${JSON.stringify(names)};
${namesCheck}
for (const n of names) {
  const m = require(n);
  if (Object.keys(m).length === 0) throw new Error(n + " has no CJS exports");
  checkNames(n + " (CJS)", m);
}
reportNames("CJS");
console.log("cjs ok (names kept):", names.length, "entry points");
`,
);
// Types: a strict TypeScript file importing every package, checked under node16 resolution both as ESM and CJS.
const tsImports = names.map((n) => `import * as ${ident(n)} from "${n}";`).join("\n");
const tsUse = `export const all = [${names.map(ident).join(", ")}];\n`;
writeFileSync(join(app, "types.mts"), `${tsImports}\n${tsUse}`);
writeFileSync(join(app, "types.cts"), `${tsImports}\n${tsUse}`);
writeFileSync(
  join(app, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      module: "node16",
      moduleResolution: "node16",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
    },
    files: ["types.mts", "types.cts"],
  }),
);
process.stdout.write(run("node", ["esm.mjs"], app));
process.stdout.write(run("node", ["cjs.cjs"], app));
run("npx", ["tsc", "-p", "tsconfig.json"], app);
console.log("types ok: ESM and CJS declaration files resolve under node16");
rmSync(work, { recursive: true, force: true });
console.log(
  `pack-check: ${pkgs.length} packages install, and their ${names.length} entry points import (ESM + CJS) and type-check, from their tarballs`,
);
