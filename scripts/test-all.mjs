#!/usr/bin/env node
// The root `pnpm test`: lint, every package's typecheck and vitest run (through turbo), the packaging
// checks (tarballs, browser bundles, a consumer project), the docs build with warnings as errors and
// the README examples, and every benchmark script in smoke mode (scripts/bench-smoke.mjs). It ends with ONE
// plain line, `N passed, N failed`, so any CI can read the result:
// N counts every vitest test of every package plus one per other check (lint, each typecheck task, each
// packaging/docs step). A test task that failed without writing a vitest report counts as one failure.
// Exit code 0 exactly when nothing failed.
// For a quick local run: ROUTEKIT_TEST_FILTER=@routekit/classic (a turbo --filter) and
// ROUTEKIT_TEST_SKIP=pack,browser,consumer,docs,bench (steps to skip; skipped steps count neither way).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const dirs = ["packages", "apps"].flatMap((d) =>
  readdirSync(join(root, d))
    .map((p) => join(root, d, p))
    .filter((p) => existsSync(join(p, "package.json"))),
);
const REPORT = ".vitest-report.json";
let passed = 0;
let failed = 0;
const failures = [];
/** [step, seconds]: printed at the end, so the suite's time budget (well under 10 minutes) can be watched. */
const timings = [];
const started = performance.now();

const skip = new Set((process.env.ROUTEKIT_TEST_SKIP ?? "").split(",").filter(Boolean));
const filter = process.env.ROUTEKIT_TEST_FILTER;

function step(name, cmd, args, key = "") {
  if (skip.has(key)) {
    console.log(`\n> ${name}: skipped (ROUTEKIT_TEST_SKIP)`);
    return true;
  }
  console.log(`\n> ${name}: ${cmd} ${args.join(" ")}`);
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  timings.push([name, (performance.now() - t0) / 1000]);
  const ok = r.status === 0;
  if (ok) passed++;
  else {
    failed++;
    failures.push(name);
  }
  return ok;
}

/**
 * A step run beside others: its output is buffered and printed whole when it ends (so parallel steps do not
 * interleave), and it counts like {@link step}.
 */
function stepAsync(name, cmd, args, key = "") {
  if (skip.has(key)) {
    console.log(`\n> ${name}: skipped (ROUTEKIT_TEST_SKIP)`);
    return Promise.resolve(true);
  }
  const t0 = performance.now();
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => out.push(b));
    const finish = (status) => {
      timings.push([name, (performance.now() - t0) / 1000]);
      console.log(`\n> ${name}: ${cmd} ${args.join(" ")}`);
      process.stdout.write(Buffer.concat(out));
      if (status === 0) passed++;
      else {
        failed++;
        failures.push(name);
      }
      done(status === 0);
    };
    child.on("error", () => finish(1));
    child.on("close", (code) => finish(code));
  });
}

step("lint", "npx", ["biome", "check", "."]);
step("package scripts (node targets exist, a bench per published package)", "node", ["scripts/scripts-check.mjs"]);

for (const d of dirs) rmSync(join(d, REPORT), { force: true });
const runsDir = join(root, ".turbo", "runs");
const runsBefore = new Set(existsSync(runsDir) ? readdirSync(runsDir) : []);
console.log("\n> typecheck and test every package (turbo)");
// Three tasks at a time on 2 cores: the long test tasks (up to 2 minutes each) start sooner, so the run does not end
// with one long task alone on one core.
const turboArgs = ["turbo", "run", "typecheck", "test", "--concurrency=3", "--continue", "--summarize"];
if (filter) turboArgs.push(`--filter=${filter}`);
const turboStart = performance.now();
// Every build first: then all test tasks are ready together, so a long one (kernel-ucb's, 2 minutes) is not left
// waiting behind its package's build until the end of the run, where it would run on one core alone.
spawnSync("npx", ["-y", "pnpm@10", "exec", "turbo", "run", "build", "--concurrency=3", "--output-logs=errors-only"], {
  cwd: root,
  stdio: "inherit",
});
// Through pnpm: turbo looks for the package manager's binary on PATH, which `pnpm test` provides and a plain
// `node scripts/test-all.mjs` does not.
const turbo = spawnSync("npx", ["-y", "pnpm@10", "exec", ...turboArgs], {
  cwd: root,
  stdio: "inherit",
});
timings.push(["typecheck and test every package (turbo)", (performance.now() - turboStart) / 1000]);

// Task outcomes from turbo's run summary (the newest file written by this run).
const tasks = new Map();
const newRuns = existsSync(runsDir)
  ? readdirSync(runsDir)
      .filter((f) => f.endsWith(".json") && !runsBefore.has(f))
      .sort((a, b) => statSync(join(runsDir, a)).mtimeMs - statSync(join(runsDir, b)).mtimeMs)
  : [];
if (newRuns.length > 0) {
  const summary = JSON.parse(readFileSync(join(runsDir, newRuns[newRuns.length - 1]), "utf8"));
  for (const t of summary.tasks ?? []) tasks.set(t.taskId, t.execution?.exitCode ?? null);
}
if (tasks.size === 0) {
  failed++;
  failures.push(`turbo (exit ${turbo.status}, no run summary)`);
}
for (const d of dirs) {
  const name = JSON.parse(readFileSync(join(d, "package.json"), "utf8")).name;
  const typecheck = tasks.get(`${name}#typecheck`);
  if (typecheck !== undefined) {
    if (typecheck === 0) passed++;
    else {
      failed++;
      failures.push(`${name} typecheck`);
    }
  }
  const test = tasks.get(`${name}#test`);
  const file = join(d, REPORT);
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, "utf8"));
    passed += r.numPassedTests ?? 0;
    failed += r.numFailedTests ?? 0;
    if ((r.numFailedTests ?? 0) > 0) failures.push(`${name}: ${r.numFailedTests} failed tests`);
    // Files that failed to load (syntax errors, a crashing import) have no tests but fail the run.
    const broken = (r.testResults ?? []).filter(
      (f) => f.status === "failed" && (f.assertionResults ?? []).length === 0,
    );
    if (broken.length > 0) {
      failed += broken.length;
      failures.push(`${name}: ${broken.length} test files failed to run`);
    }
  } else if (test !== undefined && test !== 0) {
    failed++;
    failures.push(`${name} test (exit ${test}, no vitest report)`);
  }
}

// The packaging checks and the docs build read the built packages and write only to their own temporary
// directories (docs: docs-site/), so they run side by side: on 2 cores that saves about 40 s of the suite. The
// bench smoke step too: it reads the built dist/ and writes only to temporary paths (and packages' bench/, which
// no tarball includes).
await Promise.all([
  stepAsync("pack-check", "node", ["scripts/pack-check.mjs"], "pack").then(() =>
    stepAsync(
      "browser bundles (every library package, no Node built-ins or globals)",
      "node",
      ["scripts/browser-check.mjs"],
      "browser",
    ),
  ),
  stepAsync(
    "consumer project (one algorithm package's tarball: browser, Node ESM/CJS, strict types)",
    "node",
    ["scripts/consumer-check.mjs"],
    "consumer",
  ),
  stepAsync("docs (typedoc; typedoc.json treats warnings as errors)", "npx", ["typedoc"], "docs"),
  stepAsync(
    "bench smoke (every benchmark script with --smoke: tiny sizes, no targets)",
    "node",
    ["scripts/bench-smoke.mjs"],
    "bench",
  ),
]);

console.log("\nwall time per step:");
for (const [name, sec] of timings) console.log(`  ${sec.toFixed(1).padStart(6)} s  ${name}`);
console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  total`);
if (failures.length > 0) console.log(`\nfailed: ${failures.join("; ")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
