/**
 * Regression tests for defects an outside adversarial test found (each failed on the code before its fix).
 */
import { ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { OfuMnlPlus, solveAssortmentLP } from "../src/index.js";
import { setHighsSpecifierForTests } from "../src/lp.js";

describe("OFU-MNL+ with large features inside the documented bound (||x||^2 <= 1e100)", () => {
  for (const preset of ["practical", "paper"] as const) {
    it(`${preset}: no NUMERICAL on feature scales 1e15-1e49; estimate stays in the unit ball; snapshots restore`, () => {
      for (const scale of [1e15, 1e20, 1e30, 1e49]) {
        const p = new OfuMnlPlus({ contextDim: 5, maxSize: 4, preset });
        const rng = Rng.fromSeed(1);
        for (let t = 0; t < 60; t++) {
          const features = Float64Array.from({ length: 8 * 5 }, () => (scale * rng.normal()) / 3);
          const d = p.select({ features, numItems: 8, maxSize: 4 });
          p.update(d, { choice: rng.uniform() < 0.5 ? null : (d.items[0] as number) });
        }
        const w = p.weights;
        let n2 = 0;
        for (const v of w) n2 += v * v;
        expect(n2, `scale ${scale}`).toBeLessThanOrEqual(1 + 1e-12);
        const q = OfuMnlPlus.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
        expect(JSON.stringify(q.toJSON())).toBe(JSON.stringify(p.toJSON()));
      }
    });
  }
});

describe("highs is an optional, lazily loaded dependency", () => {
  it("a missing highs is MISSING_DEPENDENCY, and a later call with it present works", async () => {
    setHighsSpecifierForTests("highs-not-installed-for-this-test");
    let err: unknown;
    try {
      await solveAssortmentLP([1, 2], [0.5, 0.5], 1, 1);
    } catch (e) {
      err = e;
    }
    expect(isRouteKitError(err, ErrorCode.MissingDependency), String(err)).toBe(true);
    setHighsSpecifierForTests("highs");
    const r = await solveAssortmentLP([1, 2], [0.5, 0.5], 1, 1);
    expect(r.items).toEqual([1]);
  });

  it("a browser bundle (esbuild --bundle --platform=browser) of an entry importing only OfuMnlPlus has no highs and no Node built-ins, and runs", async () => {
    const out = await build({
      stdin: {
        contents: `import { OfuMnlPlus } from "../src/index.ts";
          const p = new OfuMnlPlus({ contextDim: 2, maxSize: 1 });
          const d = p.select({ features: new Float64Array([0.1, 0.2, -0.3, 0.4]), numItems: 2, maxSize: 1 });
          p.update(d, { choice: null });
          globalThis.__result = d.items.length;`,
        resolveDir: new URL(".", import.meta.url).pathname,
      },
      bundle: true,
      platform: "browser",
      format: "iife",
      write: false,
      logLevel: "error",
    });
    const code = out.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/highs\.wasm|require\("highs"\)|from "highs"/);
    expect(code).not.toMatch(/require\("(node:)?(fs|os|path|url|worker_threads)"\)/);
    const g = globalThis as { __result?: number };
    new Function(code)();
    expect(g.__result).toBe(1);
  }, 60_000);
});
