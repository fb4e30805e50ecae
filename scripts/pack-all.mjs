#!/usr/bin/env node
// The last step before `changeset publish`: pack every publishable package into dist-packs/.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const out = join(root, "dist-packs");
mkdirSync(out, { recursive: true });
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group))) {
    const dir = join(root, group, name);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (pkg.private) continue;
    execFileSync("npx", ["-y", "pnpm@10", "pack", "--pack-destination", out], { cwd: dir, stdio: "inherit" });
  }
}
console.log(`packed into ${out}; publish with: npx -y pnpm@10 changeset publish`);
