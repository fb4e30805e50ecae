import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runClassFit } from "../src/class-fit.js";
import { runCli } from "./run-cli.js";

const cli = (argv: string[]) => runCli(argv);

describe("routekit class-fit (Table 2 analogue)", () => {
  it("prints the table with one row per seed and the mean, and writes table.md and class-fit.json", async () => {
    const out = mkdtempSync(join(tmpdir(), "routekit-class-fit-"));
    const r = await cli(["class-fit", "--seeds", "2", "--queries", "300", "--iterations", "400", "--out", out]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\| seed \| Gap_const \| Gap_lin \| Gap_quad \|/);
    expect(r.out).toMatch(/^\| 0 \| /m);
    expect(r.out).toMatch(/^\| 1 \| /m);
    expect(r.out).toMatch(/^\| mean \| /m);
    expect(r.out).toMatch(/paper \(Amazon ESCI/);
    const md = readFileSync(join(out, "table.md"), "utf8");
    expect(r.out.startsWith(md.trimEnd())).toBe(true);
    const json = JSON.parse(readFileSync(join(out, "class-fit.json"), "utf8"));
    expect(json.rows).toHaveLength(2);
    expect(json.setup).toMatchObject({ contextDim: 16, models: 4, latentRank: 2, queries: 300, iterations: 400 });
  });

  it("reproduces the paper's ordering on the defaults' environment: Gap_const >= Gap_lin, and the quadratic class far below", () => {
    // One seed at the default size (d = 16, M = 4, s = 2, 1,000 queries, 1,500 Adam iterations).
    const r = runClassFit({ seeds: 1 });
    const g = r.mean;
    expect(g.constant).toBeGreaterThanOrEqual(g.linear);
    // "far below": the paper's lin -> quad reduction is 68%; ask for at least half.
    expect(g.quadratic).toBeLessThan(0.5 * g.linear);
    expect(r.ordered).toBe(true);
    // packages/hpg/README.md quotes this seed's held-out gaps (constant / log-linear / log-quadratic) to 4 decimals.
    const readme = readFileSync(new URL("../../../packages/hpg/README.md", import.meta.url), "utf8").replace(
      /\s+/g,
      " ",
    );
    expect(readme).toContain(
      `held-out gaps to the per-query oracle ${[g.constant, g.linear, g.quadratic].map((x) => x.toFixed(4)).join(" / ")} (constant / log-linear / log-quadratic)`,
    );
  });

  it("bad sizes are usage errors (exit 2)", async () => {
    const r = await cli(["class-fit", "--seeds", "0"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--seeds must be an integer >= 1/);
  });
});

describe("routekit class-fit size limits (README: beyond them is bad usage, exit 2, before any fitting)", () => {
  it("--queries above 10,000,000, --iterations above 1,000,000 and tables above 1e8 numbers exit 2 at once", async () => {
    const out = mkdtempSync(join(tmpdir(), "routekit-class-fit-limits-"));
    const cases: [string[], RegExp][] = [
      [["--queries", "10000001", "--dim", "1", "--models", "1", "--rank", "1"], /queries/],
      [["--iterations", "1000001"], /iterations/],
      // d = 16, M = 4: 2d + 1 + M + d(d + 1)/2 = 173 numbers per query; 600,000 queries is 1.04e8.
      [["--queries", "600000"], /1e8|100,000,000|numbers/],
    ];
    for (const [args, re] of cases) {
      const r = await cli(["class-fit", ...args, "--out", join(out, "x")]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err, args.join(" ")).toMatch(re);
      expect(r.out, args.join(" ")).toBe(""); // refused before any fitting: no table (was a 2 s wall-clock bound)
    }
    expect(readdirSync(out)).toEqual([]); // nothing written
  });
});
