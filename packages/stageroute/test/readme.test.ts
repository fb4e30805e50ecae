import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { routerBenchSurrogate } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { StageRoute, type StageRouteOptions, stageValue } from "../src/index.js";
import { arenaRuns, mean, run } from "./helpers.js";

/**
 * The README's first ts block as written (it imports "@routekit/stageroute", the public entry point),
 * wrapped in a function of a seed for its `Math.random` coin flips; `extra` lines are added to the options.
 */
function example(name: string, extra = ""): string {
  const md = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const m = /```ts\n([\s\S]*?)```/.exec(md);
  if (!m) throw new Error("README has no ts example");
  const [, , body] = /^((?:import[^\n]*\n)+)([\s\S]*)$/.exec(m[1] as string) as RegExpExecArray;
  if (extra !== "" && !(body as string).includes("  seed: 1,\n")) throw new Error("README example has no seed option");
  const seeded = [
    `export function ${name}(seed: number) {`,
    "let s = seed;",
    "const Math = Object.assign(Object.create(globalThis.Math), {",
    "  random: () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648),",
    "});",
    "const logged: unknown[][] = [];",
    "const console = { log: (...a: unknown[]) => logged.push(a) };",
  ].join("\n");
  return `${seeded}\n${(body as string).replace("  seed: 1,\n", `  seed: 1,\n${extra}`)}\nreturn { router, logged };\n}\n`;
}

type Example = (seed: number) => { router: import("../src/index.js").StageRoute; logged: unknown[][] };

describe("README example", () => {
  it("runs as written; its output and the frequencies quoted below it are what 200 seeded runs give", async () => {
    const md = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    const imports = (/```ts\n((?:import[^\n]*\n)+)/.exec(md) as RegExpExecArray)[1] as string;
    expect(imports).toBe('import { StageRoute } from "@routekit/stageroute";\n');
    const file = fileURLToPath(new URL("./readme-example.generated.ts", import.meta.url));
    writeFileSync(file, `${imports}${example("asWritten")}${example("fivePulls", "  initialPulls: 5,\n")}`);
    try {
      const mod = (await import(file)) as { asWritten: Example; fivePulls: Example };
      const promised = (f: Example) => {
        let n = 0;
        for (let k = 1; k <= 200; k++) {
          const { router, logged } = f(k * 7919);
          const [deployed, avgCost] = logged[0] as [string[], number];
          expect(router.stats("large").maxShare).toBe(0.5);
          expect(deployed.length).toBeLessThanOrEqual(2);
          expect(avgCost).toBeLessThanOrEqual(1.05 * 0.002);
          if (deployed.join() === "large,new-model" && avgCost >= 0.95 * 0.002) n++;
        }
        return n;
      };
      const text = md.replace(/\s+/g, " ");
      const runs = /Of 200 runs \(with seeded coin flips, in `test\/readme.test.ts`\), (\d+) printed/.exec(text);
      expect(promised(mod.asWritten)).toBe(Number(runs?.[1]));
      expect(text).toContain("With `initialPulls: 5` added to the options, all 200 runs printed");
      expect(promised(mod.fivePulls)).toBe(200);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

/** The README with every run of whitespace made one space (sentences wrap across lines). */
const text = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8").replace(/\s+/g, " ");
/** The numbers of the first "a / b / c ..." list after `prefix`. */
function quoted(prefix: string): number[] {
  const at = text.indexOf(prefix);
  if (at < 0) throw new Error(`README has no "${prefix}"`);
  const m = /(\d+(?:\.\d+)?(?: \/ \d+(?:\.\d+)?)+)/.exec(text.slice(at + prefix.length));
  if (!m) throw new Error(`no number list after "${prefix}"`);
  return (m[1] as string).split(" / ").map(Number);
}

describe("README numbers (seeded: every quoted number is what the runs give, rounded as printed)", () => {
  const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const CONF = [
    [250, 6],
    [500, 6],
    [1000, 6],
    [500, 3],
    [500, 10],
  ] as const;
  const meanOf = (xs: readonly { regret: number }[]) => mean(xs.map((r) => r.regret));

  it("arena2025-paper: StageRoute, greedy, the literal support, the library's cost unit; OPT*; average cost", () => {
    const sr: number[] = [];
    const greedy: number[] = [];
    const literal: number[] = [];
    const library: number[] = [];
    const cost: number[] = [];
    const opt: number[] = [];
    for (const [L, M] of CONF) {
      const r = arenaRuns(L, M, SEEDS);
      sr.push(meanOf(r.sr));
      greedy.push(meanOf(r.greedy));
      cost.push(mean(r.sr.map((x) => x.avgCost)));
      // Pseudo-regret + the chosen models' means = OPT* (the same for every seed: the arrivals are fixed).
      opt.push((r.sr[0]?.regret ?? 0) + (r.sr[0]?.reward ?? 0));
      literal.push(meanOf(arenaRuns(L, M, SEEDS, { fillSlots: false }).sr));
      library.push(meanOf(arenaRuns(L, M, SEEDS, { costUnit: "budget" }).sr));
    }
    const round = (xs: number[]) => xs.map((x) => Math.round(x));
    expect(round(sr)).toEqual(
      quoted(
        "Seeded tests (`test/statistical*.test.ts`, seeds 0-9, T = 10^4, `arena2025-paper`): StageRoute pseudo-regret",
      ),
    );
    expect(round(sr)).toEqual(quoted("worse than greedy at L = 1000; padded,"));
    expect(round(greedy.slice(0, 4))).toEqual(quoted(" and greedy"));
    expect(round(literal)).toEqual(quoted("with the literal support, the simulation's regret is"));
    expect(round(library)).toEqual(quoted("the library default gives other numbers there (regret"));
    const [opt6, opt3] = [opt[0] as number, opt[3] as number];
    for (const i of [1, 2, 4]) expect(opt[i]).toBeCloseTo(opt6, 6);
    expect(text).toContain(`against OPT* = ${opt6.toFixed(1)} (${opt3.toFixed(1)} for M_max = 3)`);
    expect(text).toContain(`average cost ${Math.min(...cost).toFixed(2)}-${Math.max(...cost).toFixed(2)} (b = 2)`);
  });

  it("RouterBench surrogate: average and paced spend, paced within 0.2% of b T, raw units overspend", () => {
    const T = 36_497;
    const env = routerBenchSurrogate({ oracle: stageValue, maxDeployed: 6, stageLength: 500 });
    const options: StageRouteOptions = {
      arms: env.initialArms,
      budget: 0.0002,
      maxDeployed: 6,
      stageLength: 500,
      maxShare: env.maxShares,
      minCost: 1e-5,
      maxCost: 0.05,
    };
    const spend = (extra: Partial<StageRouteOptions>, n: number) =>
      SEEDS.slice(0, n).map(
        (s) => run(env, (rng) => new StageRoute({ ...options, ...extra, rng }), T, s).avgCost / 0.0002,
      );
    const avg = mean(spend({}, 10));
    const paced = spend({ budgetMode: "paced", horizon: T }, 10);
    const raw = mean(spend({ costUnit: 1 }, 3));
    expect(text).toContain(`${avg.toFixed(2)} b average mode, ${Math.max(...paced).toFixed(4)} b paced`);
    for (const p of paced) expect(Math.abs(p - 1)).toBeLessThanOrEqual(0.002);
    expect(text).toContain("ends within 0.2% of b T");
    expect(text).toContain(`the router spends far above b (${raw.toFixed(1)} b in RouteKit's seeded test`);
  });
});
