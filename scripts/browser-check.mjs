#!/usr/bin/env node
// Browser/edge check: every publishable library package (everything but the Node CLI) is bundled with esbuild
// for `--platform=browser` from an entry that imports it (for the algorithm packages, an entry that builds one
// policy, plays 60 rounds and round-trips a snapshot), and the bundle is run in a fresh V8 context that has only
// browser-like globals: no `process`, `require`, `Buffer` or Node built-in modules. A Node built-in reached from
// the entry fails the bundle ("Could not resolve"), a Node global touched at run time fails the run.
// Run from the repository root after `turbo run build`; exits 1 with one line per failing package.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Entries that exercise one policy of each algorithm package (others get a plain import of every export). */
export const POLICY_ENTRIES = {
  "@routekit/classic": `import { LinUCBDisjoint } from "@routekit/classic";
const p = new LinUCBDisjoint({ arms: ["a", "b", "c"], contextDim: 3, seed: 1 });
let x = 0.1;
for (let t = 0; t < 60; t++) {
  x = (x * 9301 + 0.49297) % 1;
  const d = p.select(new Float64Array([x, 1 - x, 0.5]));
  p.update(d, { reward: d.arm === "b" ? x : 1 - x });
}
const again = LinUCBDisjoint.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
if (JSON.stringify(again.toJSON()) !== JSON.stringify(p.toJSON())) throw new Error("snapshot round trip differs");
report("LinUCBDisjoint: 60 rounds, snapshot round trip ok");`,
  "@routekit/stageroute": `import { StageRoute } from "@routekit/stageroute";
const p = new StageRoute({ arms: ["a", "b", "c"], budget: 1, maxDeployed: 2, stageLength: 10, maxShare: 0.6, seed: 1 });
let x = 0.1;
for (let t = 0; t < 60; t++) {
  x = (x * 9301 + 0.49297) % 1;
  if (t === 25) p.addArm("d");
  const d = p.select();
  p.update(d, { reward: d.arm === "b" ? x : 1 - x, cost: d.arm === "a" ? 2 : 0.5 });
}
const again = StageRoute.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
if (JSON.stringify(again.toJSON()) !== JSON.stringify(p.toJSON())) throw new Error("snapshot round trip differs");
report("StageRoute: 60 rounds with an arrival, snapshot round trip ok (highs not bundled)");`,
  "@routekit/kernel-ucb": `import { RffUcb } from "@routekit/kernel-ucb";
const p = new RffUcb({ arms: ["a", "b"], contextDim: 3, frequencies: 16, seed: 1 });
let x = 0.1;
for (let t = 0; t < 60; t++) {
  x = (x * 9301 + 0.49297) % 1;
  const d = p.select(new Float64Array([x, 1 - x, 0.5]));
  p.update(d, { reward: d.arm === "b" ? x : 1 - x });
}
const again = RffUcb.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
if (JSON.stringify(again.toJSON()) !== JSON.stringify(p.toJSON())) throw new Error("snapshot round trip differs");
report("RffUcb: 60 rounds, snapshot round trip ok");`,
  "@routekit/hpg": `import { Hpg } from "@routekit/hpg";
const p = new Hpg({ arms: ["a", "b", "c"], contextDim: 3, horizon: 100, normalizeContext: true, seed: 1 });
let x = 0.1;
for (let t = 0; t < 60; t++) {
  x = (x * 9301 + 0.49297) % 1;
  const d = p.select(new Float64Array([x, 1 - x, 0.5]));
  p.update(d, { reward: d.arm === "b" ? x : 1 - x });
}
const again = Hpg.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
if (JSON.stringify(again.toJSON()) !== JSON.stringify(p.toJSON())) throw new Error("snapshot round trip differs");
report("Hpg: 60 rounds, snapshot round trip ok");`,
  "@routekit/mnl": `import { OfuMnlPlus } from "@routekit/mnl";
let p;
try { p = new OfuMnlPlus({ contextDim: 3, maxSize: 2 }); } catch { p = new OfuMnlPlus({ dim: 3, maxSize: 2 }); }
let x = 0.1;
for (let t = 0; t < 60; t++) {
  const f = new Float64Array(12);
  for (let i = 0; i < 12; i++) { x = (x * 9301 + 0.49297) % 1; f[i] = x - 0.5; }
  const d = p.select({ features: f, numItems: 4, maxSize: 2 });
  p.update(d, { choice: d.items[0] ?? null });
}
const again = OfuMnlPlus.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
if (JSON.stringify(again.toJSON()) !== JSON.stringify(p.toJSON())) throw new Error("snapshot round trip differs");
report("OfuMnlPlus: 60 rounds, snapshot round trip ok");`,
};

/** Runs IIFE code in a new V8 context with browser-like globals only; resolves to the messages it reported. */
export async function runBrowserLike(code) {
  const vm = await import("node:vm");
  const messages = [];
  const sandbox = {
    console: { log: () => {}, warn: () => {}, error: () => {} },
    report: (m) => messages.push(String(m)),
    TextEncoder,
    TextDecoder,
    WebAssembly,
    URL,
    atob,
    btoa,
    performance: { now: () => performance.now() },
    crypto: { getRandomValues: (a) => crypto.getRandomValues(a) },
    queueMicrotask,
    setTimeout,
    clearTimeout,
  };
  sandbox.globalThis = sandbox;
  sandbox.self = sandbox;
  sandbox.window = sandbox;
  vm.runInNewContext(code, sandbox, { timeout: 60_000 });
  for (const name of ["process", "require", "Buffer", "module", "__dirname"]) {
    if (name in sandbox && !["console", "report"].includes(name)) throw new Error(`the bundle defined ${name}`);
  }
  return messages;
}

/** Bundles `entry` (code) for the browser from `cwd` (where the packages resolve) and runs it. */
export async function bundleAndRun(entry, cwd, esbuildModule) {
  const esbuild = esbuildModule ?? (await import("esbuild"));
  const out = await esbuild.build({
    stdin: { contents: entry, resolveDir: cwd, loader: "js" },
    bundle: true,
    platform: "browser",
    format: "iife",
    write: false,
    logLevel: "silent",
  });
  const code = out.outputFiles[0].text;
  const messages = await runBrowserLike(code);
  return { bytes: code.length, messages };
}

/** Node-only packages (a Redis client, worker threads): documented as such, not bundled for the browser. */
const NODE_ONLY = new Set(["@routekit/replicate"]);

function browserPackages(root) {
  return readdirSync(join(root, "packages"))
    .map((p) => join(root, "packages", p))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ pkg }) => !pkg.private && !NODE_ONLY.has(pkg.name));
}

async function main() {
  const root = resolve(import.meta.dirname, "..");
  const failures = [];
  for (const { pkg } of browserPackages(root)) {
    const entry =
      POLICY_ENTRIES[pkg.name] ??
      `import * as m from "${pkg.name}";\nreport(Object.keys(m).length + " exports imported");`;
    try {
      // Resolve from the playground, which depends on every library package (workspace links to their dist).
      const { bytes, messages } = await bundleAndRun(entry, join(root, "apps", "playground"));
      if (messages.length === 0) throw new Error("the entry ran but reported nothing");
      console.log(`browser ok: ${pkg.name} (${(bytes / 1024).toFixed(0)} KiB): ${messages.join("; ")}`);
    } catch (e) {
      const msg = (e.errors?.length ? e.errors.map((x) => x.text).join("; ") : e.message).replace(/\s+/g, " ");
      failures.push(`${pkg.name}: ${msg}`);
      console.log(`browser FAILED: ${pkg.name}: ${msg}`);
    }
  }
  if (failures.length > 0) {
    console.log(`browser-check: ${failures.length} package(s) do not bundle or run in a browser-like context`);
    process.exit(1);
  }
  console.log("browser-check: every library package bundles for the browser and runs without Node globals");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
