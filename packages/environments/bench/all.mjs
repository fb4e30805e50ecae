// Runs the benchmark scripts named on the command line one after another, each in its own node process with this
// process's node flags (e.g. --expose-gc), and exits 1 when any of them failed, after running all of them: with
// `a && b` a failing first script kept the second from running. Arguments that are not `.mjs` files are passed on
// to every script (`pnpm bench -- --quick`). Plain node, so `pnpm bench` behaves the same under any shell.
// Usage: node --expose-gc bench/all.mjs bench/run.mjs bench/replay-csv.mjs [flags...]
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const args = process.argv.slice(2);
const scripts = args.filter((a) => a.endsWith(".mjs"));
const flags = args.filter((a) => !a.endsWith(".mjs"));
if (scripts.length === 0) {
  console.error("usage: node bench/all.mjs <script.mjs>... [flags]");
  process.exit(2);
}
const failed = [];
for (const script of scripts) {
  const r = spawnSync(process.execPath, [...process.execArgv, resolve(script), ...flags], { stdio: "inherit" });
  if (r.status !== 0)
    failed.push(`${script} (${r.error?.message ?? (r.signal ? `signal ${r.signal}` : `exit ${r.status}`)})`);
}
if (failed.length > 0) {
  console.error(`bench: ${failed.length} of ${scripts.length} script(s) failed: ${failed.join(", ")}`);
  process.exit(1);
}
