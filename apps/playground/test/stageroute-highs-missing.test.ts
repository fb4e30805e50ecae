// Without `highs` installed (its import mocked to fail), deploySolver=highs is the CLI's typed failure: one line on
// stderr naming the package, exit 1, no stack trace, before any run starts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";

vi.doMock("highs", () => {
  throw new Error("Cannot find package 'highs'");
});
// Test files may share a worker: leave the real highs to the files after this one.
afterAll(() => {
  vi.doUnmock("highs");
  vi.resetModules();
});

it("--param stageroute.deploySolver=highs without highs: exit 1 and MISSING_DEPENDENCY's one-line message", async () => {
  // Fresh modules: another test file in this worker may have loaded HiGHS through them already.
  vi.resetModules();
  const { runCli } = await import("./run-cli.js");
  const r = await runCli([
    "compare",
    ...["--env", "arena-sim-2025", "--policies", "stageroute", "--param", "stageroute.deploySolver=highs"],
    ...["--seeds", "1", "--horizon", "10", "--workers", "1", "--no-plots", "--out", "/nonexistent/never-written"],
  ]);
  expect(r.code).toBe(1);
  expect(r.out).toBe("");
  expect(r.err.split("\n")).toHaveLength(2); // one line
  // The message the README quotes (up to its "..."), then the loader's reason and the fixes for a bundle.
  const readme = readFileSync(join(__dirname, "..", "README.md"), "utf8").replace(/\s*\n\s*/g, " ");
  const quoted = /exits 1 before any run with one line: `([^`]*)\.\.\.`/.exec(readme)?.[1] as string;
  expect(quoted).toBe(
    'routekit: @routekit/stageroute/highs (DeployOPT by HiGHS) needs the optional dependency "highs" (npm install highs): ',
  );
  expect(r.err.startsWith(quoted)).toBe(true);
  expect(r.err).toMatch(
    /; from a bundle: keep "highs" external and installed where the bundle runs, or pass \{ highs \}/,
  );
});

it("a program that builds deploySolver=highs without awaiting prepare gets bad usage saying so, not a crash", async () => {
  vi.resetModules();
  const { registry } = await import("../src/registry/index.js");
  const { buildExperimentFrom } = await import("../src/spec.js");
  const spec = {
    environment: { name: "arena-sim-2025", params: {} },
    policies: [{ label: "s", policy: "stageroute", params: { deploySolver: "highs" } }],
    seeds: [0],
    horizon: 10,
    points: 2,
  };
  expect(() => buildExperimentFrom(registry, spec)).toThrow(
    expect.objectContaining({
      name: "UsageError",
      message: expect.stringMatching(/needs HiGHS loaded first: await prepareSpec/),
    }),
  );
});
