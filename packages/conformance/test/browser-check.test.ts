/**
 * The browser check (scripts/browser-check.mjs) must fail when a Node built-in or a Node global sneaks into a
 * bundle, and pass for a package that stays browser-safe.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { bundleAndRun, POLICY_ENTRIES } from "../../../scripts/browser-check.mjs";

const playground = fileURLToPath(new URL("../../../apps/playground/", import.meta.url));
type Run = (entry: string, cwd: string) => Promise<{ bytes: number; messages: string[] }>;
const run = bundleAndRun as Run;

describe("browser check", () => {
  it("refuses a bundle that imports a Node built-in", async () => {
    for (const mod of ["node:fs", "fs", "node:worker_threads", "os"]) {
      await expect(
        run(`import * as m from "${mod}"; report(String(Object.keys(m).length));`, playground),
      ).rejects.toThrow(/Could not resolve|Build failed/);
    }
  });
  it("refuses a bundle that touches process, Buffer or require at run time", async () => {
    await expect(run(`report(process.env.HOME ?? "none");`, playground)).rejects.toThrow(/process is not defined/);
    await expect(run(`report(Buffer.from("x").toString("base64"));`, playground)).rejects.toThrow(
      /Buffer is not defined/,
    );
    await expect(run(`report(typeof require("x"));`, playground)).rejects.toThrow(
      /require is not defined|Could not resolve/,
    );
  });
  it("bundles and runs a policy of @routekit/classic with browser globals only", async () => {
    const r = await run((POLICY_ENTRIES as Record<string, string>)["@routekit/classic"] as string, playground);
    expect(r.messages).toEqual(["LinUCBDisjoint: 60 rounds, snapshot round trip ok"]);
  });
});
