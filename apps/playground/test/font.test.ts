/**
 * README (output files): "PNG text uses DejaVu Sans, Liberation Sans or Arial when found, or the font file named by
 * ROUTEKIT_FONT; without any font, a warning says PNG text may be missing (SVGs are unaffected)".
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compare } from "../src/api.js";
import { locateFont } from "../src/plot.js";

// Font files are hidden by patching node:fs itself and syncing its ESM exports (Node's documented way), not with
// vi.mock: the suite runs with isolate: false, so another file may have loaded node:fs (and plot.ts) unmocked first.
const cjsFs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
const realExistsSync = cjsFs.existsSync;
function hideFontFiles(): void {
  cjsFs.existsSync = (p) => !/\.(ttf|otf|ttc)$/i.test(String(p)) && realExistsSync(p);
  syncBuiltinESMExports();
}

const saved = process.env.ROUTEKIT_FONT;
afterEach(() => {
  if (saved === undefined) delete process.env.ROUTEKIT_FONT;
  else process.env.ROUTEKIT_FONT = saved;
  cjsFs.existsSync = realExistsSync;
  syncBuiltinESMExports();
});

describe("PNG fonts", () => {
  it("ROUTEKIT_FONT names the font file when it exists; otherwise a system font is looked for", () => {
    const dir = mkdtempSync(join(tmpdir(), "routekit-font-"));
    const file = join(dir, "mine.ttf");
    writeFileSync(file, "not really a font");
    process.env.ROUTEKIT_FONT = file;
    expect(locateFont()).toBe(file);
    process.env.ROUTEKIT_FONT = join(dir, "missing.ttf");
    const found = locateFont();
    expect(found).not.toBe(join(dir, "missing.ttf"));
    if (found !== undefined) expect(existsSync(found)).toBe(true);
  });

  it("without any font file the run warns that PNG text may be missing, and still writes SVGs and PNGs", async () => {
    delete process.env.ROUTEKIT_FONT;
    hideFontFiles();
    expect(locateFont()).toBeUndefined();
    const out = mkdtempSync(join(tmpdir(), "routekit-nofont-"));
    const res = await compare({
      environment: "k-armed",
      policies: ["random"],
      seeds: 1,
      horizon: 50,
      points: 10,
      workers: 1,
      out,
    });
    expect(res.files?.fontWarning).toMatch(/PNG text may be missing/);
    const plots = Object.values(res.files?.plots ?? {});
    expect(plots.length).toBeGreaterThan(0);
    for (const p of plots) {
      expect(p.svg).toMatch(/\.svg$/);
      expect(p.png).toMatch(/\.png$/);
    }
    // With --no-png nothing needs a font: no warning.
    const svgOnly = await compare({
      environment: "k-armed",
      policies: ["random"],
      seeds: 1,
      horizon: 50,
      points: 10,
      workers: 1,
      out: join(out, "svg"),
      png: false,
    });
    expect(svgOnly.files?.fontWarning).toBeUndefined();
  });
});
