/**
 * The builds keep names: every exported class and function of every built entry point (ESM and CJS, subpaths and
 * apps included) has `.name` equal to its export name (scripts/export-names.mjs). esbuild renames a class that
 * refers to itself (`var UCB1 = class _UCB1`) unless the build sets keepNames; and keepNames' statement-level
 * `__name(...)` calls carry a pure mark, without which bundlers reading dist no longer tree-shake (tsup.shared.ts).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { misnamedExports } from "../../../scripts/export-names.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
type Check = (label: string, mod: Record<string, unknown>) => { checked: number; problems: string[] };
const check = misnamedExports as Check;

describe("export names", () => {
  it("flags a class esbuild renamed, and one whose base class it renamed", () => {
    const Base = class _Base {};
    const Renamed = class _Renamed extends Base {};
    class Kept extends Base {}
    const r = check("m", { Renamed, Kept, plain: () => 1, value: 3 });
    expect(r.checked).toBe(3);
    expect(r.problems).toEqual([
      'm: export Renamed is named "_Renamed"',
      'm: export Renamed extends a class named "_Base"',
      'm: export Kept extends a class named "_Base"',
    ]);
  });

  it("every built entry point, ESM and CJS, exports its classes and functions under their own names, tree-shakably", () => {
    // A child process: Node's own ESM and CJS loaders read the builds, as a user's project would.
    const out = execFileSync(process.execPath, ["scripts/export-names.mjs"], { cwd: root, encoding: "utf8" });
    expect(out).toMatch(/export-names: \d+ exported functions and classes of \d+ built modules keep their names/);
  });
});
