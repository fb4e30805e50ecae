// `@routekit/stageroute/highs` bundled with esbuild, `highs` NOT marked external, run by a child node process from
// a temporary folder (no node_modules, no highs.wasm): what the README's "Bundlers" paragraph promises.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "..", "src", "highs.ts");
const wasm = join(dirname(createRequire(import.meta.url).resolve("highs")), "highs.wasm");

/** `@routekit/stageroute/highs` is this package's source, as in the other tests; `highs` resolves from here. */
const self: Plugin = {
  name: "stageroute-highs-source",
  setup(b) {
    b.onResolve({ filter: /^@routekit\/stageroute\/highs$/ }, () => ({ path: source }));
  },
};

/**
 * A bundler that inlines `highs` into the entry (as one that folded the specifier's constant would): the dynamic
 * import of the variable becomes an import of the literal "highs", which esbuild then bundles.
 */
const inlineHighs: Plugin = {
  name: "inline-highs",
  setup(b) {
    b.onLoad({ filter: /src[\\/]highs\.ts$/ }, () => {
      const text = readFileSync(source, "utf8");
      const folded = text.replace(/import\(\/\*[^)]*\*\/\s*highsSpecifier\)/, 'import("highs")');
      if (folded === text) throw new Error("highs.ts: the dynamic import of highsSpecifier was not found");
      return { contents: folded, loader: "ts" };
    });
  },
};

/** Prints the outcome as JSON: the solver's answer, or the error's name, code and message. */
const report = `
const problem = { n: 2, reward: [0.5, 0.9], cost: [0.1, 1], cap: [1, 1], budget: 0.5, slots: 1 };
try {
  console.log(JSON.stringify({ solved: (await load()).solve(problem) }));
} catch (e) {
  console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message }));
}`;

/** Bundles `entry` (ESM for Node, highs not external) into a fresh temporary folder and runs it there. */
async function bundleAndRun(entry: string, plugins: Plugin[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "stageroute-highs-bundle-"));
  const outfile = join(dir, "bundle.mjs");
  await build({
    stdin: { contents: entry + report, resolveDir: here, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    plugins: [self, ...plugins],
    logLevel: "error",
  });
  const { stdout } = await promisify(execFile)(process.execPath, [outfile], {
    cwd: dir,
    env: { ...process.env, ...env },
    timeout: 20_000,
  });
  return { code: readFileSync(outfile, "utf8"), out: JSON.parse(stdout) };
}

const FIX =
  'from a bundle: keep "highs" external and installed where the bundle runs, or pass { highs } that you loaded ' +
  '(the default export of "highs", called with { locateFile: () => "/path/to/highs.wasm" })';

describe("@routekit/stageroute/highs in an esbuild bundle (highs not external), run away from node_modules", () => {
  it("the bundle leaves highs to run time; where none is reachable: MISSING_DEPENDENCY naming the fixes", async () => {
    const entry = `import { highsDeploySolver } from "@routekit/stageroute/highs";
      const load = () => highsDeploySolver();`;
    const { code, out } = await bundleAndRun(entry, []);
    expect(code).not.toMatch(/instantiateWasm/); // no HiGHS (Emscripten) code inside: it imports "highs" when first called
    expect(out.name).toBe("RouteKitError");
    expect(out.code).toBe("MISSING_DEPENDENCY");
    expect(out.message).toMatch(
      /^@routekit\/stageroute\/highs \(DeployOPT by HiGHS\) needs the optional dependency "highs" \(npm install highs\): Cannot find package 'highs' imported from [^\n]*bundle\.mjs[\s\S]*; from a bundle: /,
    );
    expect(out.message.endsWith(FIX)).toBe(true);
  }, 20_000);

  it("inlined by the bundler, highs is away from its highs.wasm: MISSING_DEPENDENCY (installed but failed to load) naming the fixes", async () => {
    const entry = `import { highsDeploySolver } from "@routekit/stageroute/highs";
      const load = () => highsDeploySolver();`;
    const { code, out } = await bundleAndRun(entry, [inlineHighs]);
    expect(code).toMatch(/instantiateWasm/); // HiGHS (Emscripten) code inside
    expect(out.code).toBe("MISSING_DEPENDENCY");
    expect(out.message).toMatch(
      /^@routekit\/stageroute\/highs \(DeployOPT by HiGHS\): the optional dependency "highs" is installed but failed to load: .*highs\.wasm.*; /,
    );
    expect(out.message.endsWith(FIX)).toBe(true);
  }, 20_000);

  it("with { highs } loaded by the application (locateFile: its highs.wasm), the bundle solves", async () => {
    const entry = `import highsLoader from "highs";
      import { highsDeploySolver } from "@routekit/stageroute/highs";
      const load = async () => highsDeploySolver({ highs: await highsLoader({ locateFile: () => process.env.HIGHS_WASM }) });`;
    const { out } = await bundleAndRun(entry, [], { HIGHS_WASM: wasm });
    // Model 1 costs 1 > budget 0.5: one slot, model 0.
    expect(out).toEqual({ solved: [0] });
  }, 20_000);
});
