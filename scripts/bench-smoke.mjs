#!/usr/bin/env node
// Runs every benchmark script of every package and app in smoke mode: `node --expose-gc <script> --smoke` from
// the package's directory, two at a time, each with a timeout. --smoke runs a script's code paths on tiny sizes,
// checks no speed target and writes no results file, so this catches a benchmark that crashes (two did, unnoticed,
// until 2026-11-27) in seconds instead of the 8 minutes of `pnpm bench`. Needs the packages built (dist/).
// Every bench/*.mjs is a script unless HELPERS lists it; a script whose source never mentions --smoke fails here
// (add the flag rather than let it run full length). Exit code 0 exactly when every script exited 0.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
/** Per-script limit; the slowest takes about 5 s on an idle 2-core machine. */
const TIMEOUT_MS = 45_000;
const CONCURRENCY = 2;
/** bench/*.mjs files that are not scripts: modules the scripts import, or a child process they start. */
const HELPERS = new Set([
  "packages/mnl/bench/readme-runs.mjs", // the README-table scripts' shared runs and checks
  "packages/core/bench/trivial.mjs", // run.mjs's trivial environment and worker-pool module
  "packages/mnl/bench/large-d-rounds.mjs", // the large-d scripts' shared workload
  "packages/mnl/bench/ofu-steady.mjs", // ofuSteadyState, for run.mjs and ofu-loop.mjs
  "packages/replicate/bench/load.mjs", // one replica, forked by run.mjs (waits for its IPC messages)
  "packages/replicate/bench/policies.mjs", // the policies load.mjs replicates
  "packages/environments/bench/all.mjs", // runs the package's scripts in turn for `pnpm bench` (each is run here)
]);
/**
 * Scripts left out, with the reason. replicate's benches need a redis-server: each starts its own on a free port
 * (startRedisServer, as the package's tests do), which would otherwise try to install one with apt-get.
 */
const haveRedis = spawnSync("sh", ["-c", "command -v redis-server"], { stdio: "ignore" }).status === 0;
const SKIP = new Map(
  haveRedis
    ? []
    : ["packages/replicate/bench/run.mjs", "packages/replicate/bench/snapshot-write.mjs"].map((rel) => [
        rel,
        "no redis-server on PATH (the replicate tests install it)",
      ]),
);

/** The slowest scripts start first, so the two lanes end together. */
const FIRST = [
  "packages/kernel-ucb/bench/run.mjs",
  "packages/linalg/bench/run.mjs",
  "packages/stageroute/bench/run.mjs",
  "packages/replicate/bench/run.mjs",
  "packages/environments/bench/run.mjs",
];
const scripts = [];
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group)).sort()) {
    const dir = join(root, group, name);
    const bench = join(dir, "bench");
    if (!existsSync(join(dir, "package.json")) || !existsSync(bench)) continue;
    for (const file of readdirSync(bench).sort()) {
      const rel = `${group}/${name}/bench/${file}`;
      if (!file.endsWith(".mjs") || HELPERS.has(rel)) continue;
      if (SKIP.has(rel)) {
        console.log(`skip  ${rel}: ${SKIP.get(rel)}`);
        continue;
      }
      scripts.push({ rel, dir, file: `bench/${file}` });
    }
  }
}

const tail = (text, lines = 20) => text.trimEnd().split("\n").slice(-lines).join("\n");

function run(s) {
  if (!readFileSync(join(s.dir, s.file), "utf8").includes("--smoke"))
    return Promise.resolve({ ...s, ok: false, sec: 0, why: "has no --smoke flag", stderr: "" });
  const t0 = performance.now();
  return new Promise((done) => {
    // Its own process group, so a timeout also ends what it started (workers, a redis-server, child runs).
    const child = spawn(process.execPath, ["--expose-gc", s.file, "--smoke"], {
      cwd: s.dir,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b) => {
      stdout += b;
    });
    child.stderr.on("data", (b) => {
      stderr += b;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, TIMEOUT_MS);
    const finish = (code, signal, error) => {
      clearTimeout(timer);
      const sec = (performance.now() - t0) / 1000;
      const why = error
        ? `did not start: ${error.message}`
        : timedOut
          ? `timed out after ${TIMEOUT_MS / 1000} s`
          : code !== 0
            ? `exit ${code ?? signal}`
            : "";
      done({ ...s, ok: why === "", sec, why, stderr: stderr || tail(stdout) });
    };
    child.on("error", (e) => finish(null, null, e));
    child.on("close", finish);
  });
}

const rank = (s) => (FIRST.includes(s.rel) ? FIRST.indexOf(s.rel) : FIRST.length);
const started = performance.now();
const queue = [...scripts].sort((a, b) => rank(a) - rank(b));
const results = [];
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      const r = await run(s);
      results.push(r);
      console.log(`${r.ok ? "ok  " : "FAIL"}  ${r.sec.toFixed(1).padStart(5)} s  ${r.rel}${r.ok ? "" : `: ${r.why}`}`);
    }
  }),
);
const failed = results.filter((r) => !r.ok);
for (const r of failed) {
  console.log(`\n--- ${r.rel} (${r.why}), from ${relative(root, r.dir)}: node --expose-gc ${r.file} --smoke`);
  if (r.stderr) console.log(tail(r.stderr));
}
console.log(
  `\nbench smoke: ${results.length - failed.length} of ${results.length} scripts ran, ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s${failed.length ? `; failed: ${failed.map((r) => r.rel).join(", ")}` : ""}`,
);
process.exit(failed.length === 0 ? 0 : 1);
