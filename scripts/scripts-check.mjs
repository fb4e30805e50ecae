#!/usr/bin/env node
// Every `node <file>` in a package's scripts names a file that exists (a build output under dist/ is left to
// the build), and every published package has a `bench` script: `pnpm bench` runs them all through turbo and
// stops at the first that fails, so one missing file breaks every package's benchmark after it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const problems = [];
let checked = 0;
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group))) {
    const dir = join(root, group, name);
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    const scripts = pkg.scripts ?? {};
    // A package's benchmark is part of what it publishes (README: "pnpm bench"); a private test harness has none.
    if (!pkg.private && !scripts.bench) problems.push(`${group}/${name}: no "bench" script`);
    for (const [script, command] of Object.entries(scripts)) {
      for (const part of command.split(/&&|\|\||;/)) {
        const words = part.trim().split(/\s+/);
        if (words[0] !== "node") continue;
        const first = words.slice(1).find((w) => !w.startsWith("-"));
        // The script and the scripts it is given to run (environments' bench/all.mjs runs the .mjs files named).
        const targets = words.slice(1).filter((w) => w === first || w.endsWith(".mjs"));
        for (const target of targets) {
          if (target.startsWith("dist/")) continue;
          checked++;
          if (!existsSync(join(dir, target)))
            problems.push(`${group}/${name}: script "${script}" runs ${target}, which does not exist`);
        }
      }
    }
  }
}
if (problems.length > 0) {
  console.error(`package scripts: ${problems.length} problem(s)\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`package scripts: ${checked} node targets exist; every published package has a bench script`);
