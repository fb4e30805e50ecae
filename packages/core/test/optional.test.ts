import { describe, expect, it } from "vitest";
import { callDefaultExport, isRouteKitError, optionalDependency } from "../src/index.js";

describe("optionalDependency", () => {
  it("loads once, memoises, and accepts an injected value", async () => {
    let imports = 0;
    const dep = optionalDependency<{ x: number }>({
      name: "fake",
      purpose: "the test",
      importer: async () => {
        imports++;
        return { default: async () => ({ x: 7 }) };
      },
      init: callDefaultExport,
    });
    expect(dep.get()).toBeUndefined();
    const [a, b] = await Promise.all([dep.load(), dep.load()]);
    expect(a).toBe(b);
    expect(a.x).toBe(7);
    expect(await dep.load()).toBe(a);
    expect(imports).toBe(1);
    dep.set({ x: 1 });
    expect(dep.get()?.x).toBe(1);
    dep.set(undefined);
    expect((await dep.load()).x).toBe(7);
    expect(imports).toBe(2);
  });

  it("turns a failed import into MISSING_DEPENDENCY with an install hint, and retries", async () => {
    let fail = true;
    const dep = optionalDependency<number>({
      name: "not-installed-pkg",
      purpose: "the widget",
      importer: async () => {
        if (fail) throw new Error("Cannot find package");
        return 3;
      },
    });
    const e = await dep.load().catch((x: unknown) => x);
    expect(isRouteKitError(e, "MISSING_DEPENDENCY")).toBe(true);
    expect(String((e as Error).message)).toContain("npm install not-installed-pkg");
    expect(String((e as Error).message)).toContain("the widget");
    fail = false;
    expect(await dep.load()).toBe(3);
  });

  it("an installed dependency whose init fails says so, without the misleading install hint", async () => {
    let fail = true;
    const dep = optionalDependency<number>({
      name: "highs",
      purpose: "the assortment LP",
      importer: async () => ({}),
      init: () => {
        if (fail) throw new RangeError("WebAssembly.instantiate(): Out of memory");
        return 5;
      },
    });
    const e = await dep.load().catch((x: unknown) => x);
    expect(isRouteKitError(e, "MISSING_DEPENDENCY")).toBe(true);
    expect(String((e as Error).message)).toBe(
      'the assortment LP: the optional dependency "highs" is installed but failed to load: WebAssembly.instantiate(): Out of memory',
    );
    fail = false;
    expect(await dep.load()).toBe(5);
  });

  it("a real missing module rejects with MISSING_DEPENDENCY", async () => {
    const spec = "routekit-no-such-module-for-this-test";
    const dep = optionalDependency({ name: spec, purpose: "x", importer: () => import(/* @vite-ignore */ spec) });
    const e = await dep.load().catch((x: unknown) => x);
    expect(isRouteKitError(e, "MISSING_DEPENDENCY")).toBe(true);
  });
});
