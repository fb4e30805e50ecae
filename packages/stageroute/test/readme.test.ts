import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ArmDecision, Rng } from "@routekit/core";
import { describe, expect, it, vi } from "vitest";
import { DeploySolver, RouteSolver, StageOracle, StageRoute, type StageRouteOptions } from "../src/index.js";
import { arenaRuns, mean, routerBenchRuns, routerBenchSetup } from "./helpers.js";

/** The README's ts blocks, in order. */
function tsBlocks(): string[] {
  const md = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  return [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((b) => b[1] as string);
}

/** The README's fuller example (the one with a model released mid-run). */
function fullerBlock(): string {
  const b = tsBlocks().find((c) => c.includes('router.addArm("new-model")'));
  if (b === undefined) throw new Error("README has no fuller example");
  return b;
}

/**
 * The README's fuller example as written (it imports "@routekit/stageroute", the public entry point),
 * wrapped in a function of a seed for its `Math.random` coin flips; `extra` lines are added to the options.
 */
function example(name: string, extra = ""): string {
  const [, , body] = /^((?:import[^\n]*\n)+)([\s\S]*)$/.exec(fullerBlock()) as RegExpExecArray;
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

describe("README opening example", () => {
  // Its printed output is checked as pasted by packages/conformance/test/readme-examples.test.ts; here, its comment:
  // the pair it prints is the best one for $0.002 a query (DeployOPT on the true means picks it).
  it("prints the pair the oracle deploys for those means, within the budget", () => {
    const first = tsBlocks()[0] as string;
    expect(first).toContain("// prints:\n// [ 'medium', 'large' ] 0.0020");
    const means = {
      small: { reward: 0.55, cost: 0.0005 },
      medium: { reward: 0.7, cost: 0.0015 },
      large: { reward: 0.85, cost: 0.004 },
    };
    const oracle = new StageOracle({
      arms: Object.keys(means),
      budget: 0.002,
      maxDeployed: 2,
      stageLength: 500,
      means,
    });
    expect(oracle.deployedArms).toEqual(["medium", "large"]);
  });
});

type Example = (seed: number) => { router: import("../src/index.js").StageRoute; logged: unknown[][] };

describe("README example", () => {
  it("runs as written; its output and the frequencies quoted below it are what 200 seeded runs give", async () => {
    const md = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    const imports = (/^((?:import[^\n]*\n)+)/.exec(fullerBlock()) as RegExpExecArray)[1] as string;
    expect(imports).toBe('import { StageRoute } from "@routekit/stageroute";\n');
    const file = fileURLToPath(new URL("./readme-example.generated.ts", import.meta.url));
    writeFileSync(file, `${imports}${example("asWritten")}${example("fivePulls", "  initialPulls: 5,\n")}`);
    try {
      const mod = (await import(file)) as { asWritten: Example; fivePulls: Example };
      /** Runs printing the comment's output; the others must have "large" or "new-model" missing, spend below b. */
      let withoutNew = 0;
      const promised = (f: Example) => {
        let n = 0;
        for (let k = 1; k <= 200; k++) {
          const { router, logged } = f(k * 7919);
          const [deployed, avgCost] = logged[0] as [string[], number];
          expect(router.stats("large").maxShare).toBe(0.5);
          expect(deployed.length).toBeLessThanOrEqual(2);
          expect(avgCost).toBeLessThanOrEqual(1.05 * 0.002);
          if (deployed.join() === "large,new-model" && avgCost >= 0.95 * 0.002) n++;
          else {
            expect(deployed.join()).not.toBe("large,new-model");
            expect(avgCost).toBeLessThan(0.002);
            if (!deployed.includes("new-model")) withoutNew++;
          }
        }
        return n;
      };
      const text = md.replace(/\s+/g, " ");
      const runs = /Of 200 runs \(with seeded coin flips, in `test\/readme.test.ts`\), (\d+) printed/.exec(text);
      expect(promised(mod.asWritten)).toBe(Number(runs?.[1]));
      expect(text).toContain('"medium" or "small" took the place of "large" (once of "new-model")');
      expect(withoutNew).toBe(1);
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
    expect(round(greedy)).toEqual(quoted(" and greedy"));
    expect(round(literal)).toEqual(quoted("with the literal support, the simulation's regret is"));
    expect(round(library)).toEqual(quoted("the library default gives other numbers there (regret"));
    const [opt6, opt3] = [opt[0] as number, opt[3] as number];
    for (const i of [1, 2, 4]) expect(opt[i]).toBeCloseTo(opt6, 6);
    expect(text).toContain(`against OPT* = ${opt6.toFixed(1)} (${opt3.toFixed(1)} for M_max = 3)`);
    expect(text).toContain(`average cost ${Math.min(...cost).toFixed(2)}-${Math.max(...cost).toFixed(2)} (b = 2)`);
  });

  it("RouterBench surrogate: average and paced spend, paced within 0.2% of b T, raw units overspend", () => {
    const { T } = routerBenchSetup();
    // The runs of statistical-budget.test.ts (memoised: seeds 0..n-1, the same seeded runs).
    const spend = (extra: Partial<StageRouteOptions>, n: number) =>
      routerBenchRuns(extra, n).map((r) => r.avgCost / 0.0002);
    const avg = mean(spend({}, 10));
    const paced = spend({ budgetMode: "paced", horizon: T }, 10);
    const raw = mean(spend({ costUnit: 1 }, 3));
    expect(text).toContain(`${avg.toFixed(2)} b average mode, ${Math.max(...paced).toFixed(4)} b paced`);
    for (const p of paced) expect(Math.abs(p - 1)).toBeLessThanOrEqual(0.002);
    expect(text).toContain("ends within 0.2% of b T");
    expect(text).toContain(`the router spends far above b (${raw.toFixed(1)} b in RouteKit's seeded test`);
  });
});

function errCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code ?? `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("README HiGHS example", () => {
  it("runs as written (unbundled) and prints what its comment says", async () => {
    const block = tsBlocks().find((c) => c.includes('from "@routekit/stageroute/highs"'));
    if (block === undefined) throw new Error("README has no HiGHS example");
    const md = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    // The conformance harness runs its esbuild bundles from a temporary folder, where no highs is installed: a fragment there.
    expect(md).toContain("<!-- fragment: needs highs unbundled");
    const at = block.split("\n").indexOf("// prints:");
    const promised = block
      .split("\n")
      .slice(at + 1)
      .filter((l) => l.startsWith("// "))
      .map((l) => l.slice(3));
    const file = fileURLToPath(new URL("./readme-highs.generated.ts", import.meta.url));
    writeFileSync(file, block);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await import(file);
      expect(log.mock.calls.map((c) => c.map(String).join(" "))).toEqual(promised);
    } finally {
      log.mockRestore();
      rmSync(file, { force: true });
    }
  }, 120_000);
});

describe("README promises (options table, errors, how it works)", () => {
  const req = { arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 10 };
  const snap = (p: StageRoute) => JSON.stringify(p.toJSON());

  it("defaults as in the options table; arms may be empty; the range ends are accepted", () => {
    const c = new StageRoute(req).config;
    expect(c).toMatchObject({
      maxShareDefault: 1,
      exploration: 0.2,
      minCost: 0,
      maxCost: Number.POSITIVE_INFINITY,
      costUnit: 1,
      costUnitMode: "budget",
      priorReward: 1,
      priorCost: 0,
      initialPulls: 1,
      estimator: "mean",
      fillSlots: true,
      tieBreak: "random",
      enumLimit: 50_000,
      searchNodeLimit: Number.POSITIVE_INFINITY,
      deploySolver: null,
      budgetMode: "average",
      horizon: 0,
    });
    expect(new StageRoute({ ...req, budget: 0.25 }).config.costUnit).toBe(0.25);
    expect(new StageRoute({ ...req, minCost: 0.3 }).config.priorCost).toBe(0.3);
    expect((new StageRoute(req).toJSON().state as { maxPending: number }).maxPending).toBe(100_000);
    expect(new StageRoute({ ...req, arms: [] }).arms).toEqual([]);
    for (const o of [
      { budget: 1e-100 },
      { costUnit: 1e-100 },
      { maxShare: 1 },
      { maxShare: 0.5 },
      { exploration: 0 },
      { maxDeployed: 1 },
      { stageLength: 1 },
      { budgetMode: "paced" as const, horizon: 1 },
    ]) {
      const p = new StageRoute({ ...req, ...o });
      expect(errCode(() => p.update(p.select(), { reward: 1, cost: 1e-100 }))).toBeUndefined();
    }
  });

  it("integer options: both ends of the documented ranges are accepted, one step outside is OUT_OF_RANGE", () => {
    for (const [name, lo, hi] of [
      ["maxDeployed", 1, 65_536],
      ["stageLength", 1, 2 ** 53 - 1],
      ["initialPulls", 1, 1e6],
      ["enumLimit", 0, 1e8],
      ["searchNodeLimit", 1, 2 ** 53 - 1],
    ] as const) {
      expect(text).toContain(`| \`${name}\``);
      for (const v of [lo, hi]) expect(errCode(() => new StageRoute({ ...req, [name]: v }))).toBeUndefined();
      for (const v of [lo - 1, hi + 1, lo + 0.5]) {
        expect(errCode(() => new StageRoute({ ...req, [name]: v }))).toBe("OUT_OF_RANGE");
      }
    }
    expect(text).toContain("M_max, an integer in [1, 65536]");
    expect(text).toContain("L, an integer in [1, 2^53 - 1]");
    expect(text).toContain("an integer in [1, 10^6] (1 = the paper)");
    expect(text).toContain("integer in [0, 10^8]: DeployOPT enumerates");
    expect(text).toContain("| `searchNodeLimit` | Infinity | integer in [1, 2^53 - 1]: most nodes");
  });

  it("maxShare: a record leaves unnamed models at 1; addArm(id, { maxShare }) sets a model's own cap", () => {
    const p = new StageRoute({ ...req, maxShare: { a: 0.5 } });
    expect([p.stats("a").maxShare, p.stats("b").maxShare]).toEqual([0.5, 1]);
    p.addArm("c", { maxShare: 0.25 });
    expect(p.stats("c").maxShare).toBe(0.25);
  });

  it("seed defaults to 0 and rng wins over seed", () => {
    const arms = (p: StageRoute) => Array.from({ length: 50 }, () => p.select().arm).join();
    expect(arms(new StageRoute(req))).toBe(arms(new StageRoute({ ...req, seed: 0 })));
    expect(arms(new StageRoute({ ...req, seed: 5, rng: Rng.fromSeed(9) }))).toBe(
      arms(new StageRoute({ ...req, seed: 9 })),
    );
  });

  it("maxPending: the oldest pending decision is dropped beyond it", () => {
    const p = new StageRoute({ ...req, maxPending: 2 });
    const [d1, d2, d3] = [p.select(), p.select(), p.select()];
    expect(errCode(() => p.update(d1, { reward: 1, cost: 0.5 }))).toBe("DECISION_EXPIRED");
    p.update(d2, { reward: 1, cost: 0.5 });
    p.update(d3, { reward: 1, cost: 0.5 });
  });

  it("removeArm that leaves caps unable to carry all traffic: INFEASIBLE_BUDGET, nothing changes", () => {
    const p = new StageRoute({ ...req, arms: ["a", "b", "c"], maxShare: 0.5 });
    p.update(p.select(), { reward: 1, cost: 0.5 });
    p.removeArm("c");
    const before = snap(p);
    expect(errCode(() => p.removeArm("a"))).toBe("INFEASIBLE_BUDGET");
    expect(snap(p)).toBe(before);
  });

  it("removeArm on a pool that already cannot carry all traffic is allowed (a mistaken addArm can be undone)", () => {
    const p = new StageRoute({ ...req, arms: [], maxDeployed: 2 });
    p.addArm("a", { maxShare: 0.4 });
    p.addArm("b", { maxShare: 0.4 }); // meant 0.6: 0.8 cannot carry all traffic
    expect(errCode(() => p.select())).toBe("INFEASIBLE_BUDGET");
    p.removeArm("b");
    expect(p.arms).toEqual(["a"]);
    p.addArm("b", { maxShare: 0.6 });
    p.update(p.select(), { reward: 1, cost: 0.5 });
    expect(p.deployedArms).toEqual(["a", "b"]);
    // Now feasible: a removal that would make it infeasible is refused again, and changes nothing.
    const before = snap(p);
    expect(errCode(() => p.removeArm("b"))).toBe("INFEASIBLE_BUDGET");
    expect(snap(p)).toBe(before);
    // An infeasible pool through maxDeployed: three caps of 0.4 with two slots; any one can go.
    const q = new StageRoute({ ...req, arms: [], maxDeployed: 2 });
    for (const id of ["x", "y", "z"]) q.addArm(id, { maxShare: 0.4 });
    q.removeArm("y");
    expect(q.arms).toEqual(["x", "z"]);
    q.removeArm("x");
    expect(q.arms).toEqual(["z"]);
    expect(errCode(() => q.removeArm("z"))).toBe("LAST_ARM");
  });

  it("feedback for a removed model is accepted and ignored (update and learn)", () => {
    const p = new StageRoute({ ...req, arms: ["c", "a", "b"], maxDeployed: 3, stageLength: 2, maxShare: { c: 0.5 } });
    const ds = Array.from({ length: 30 }, () => p.select());
    const gone = ds.find((d) => d.arm === "c") as ArmDecision;
    const record = p.decisionRecord(gone);
    p.removeArm("c");
    const before = p.toJSON().state as Record<string, unknown>;
    p.update(gone, { reward: 1, cost: 0.5 });
    p.learn({ ...record, feedback: { reward: 1, cost: 0.5 } });
    const after = p.toJSON().state as Record<string, unknown>;
    // Only the ledger (the settled decision) changed: no statistics, no stage clock.
    expect(JSON.stringify({ ...after, ledger: null })).toBe(JSON.stringify({ ...before, ledger: null }));
    expect(p.rounds).toBe(0);
  });

  it("a model added before any feedback of the stage that just began joins it at once; later ones wait", () => {
    const p = new StageRoute({ ...req, maxDeployed: 3, stageLength: 4 });
    for (let t = 0; t < 4; t++) p.update(p.select(), { reward: 0.5, cost: 0.5 });
    p.addArm("c");
    expect(p.deployedArms).toContain("c");
    p.update(p.select(), { reward: 0.5, cost: 0.5 });
    p.addArm("d");
    expect(p.deployedArms).not.toContain("d");
  });

  it("initialPulls: a model keeps its prior bounds for that many plays", () => {
    const p = new StageRoute({ ...req, initialPulls: 3, minCost: 0.1 });
    const learnA = () =>
      p.learn({
        v: 1,
        kind: "log",
        protocol: "arm",
        id: "x",
        decision: { arm: "a", context: null },
        feedback: { reward: 0, cost: 0.9 },
      });
    learnA();
    learnA();
    expect([p.stats("a").ucb, p.stats("a").lcb]).toEqual([1, 0.1]);
    learnA();
    expect(p.stats("a").ucb).toBeLessThan(1);
    expect(p.stats("a").lcb).toBeGreaterThan(0.1);
    expect(p.stats("a")).toMatchObject({ plays: 3, meanReward: 0, maxShare: 1 });
    expect(p.stats("a").meanCost).toBeCloseTo(0.9, 12);
  });

  it("RouteOPT ties: by cost, then reward, then arrival order", () => {
    const s = new RouteSolver(4);
    const out = new Float64Array(4);
    s.solve([0.5, 0.5], [0.2, 0.1], [1, 1], 2, 1, out);
    expect([...out.slice(0, 2)]).toEqual([0, 1]);
    s.solve([0.5, 0.5, 0.5], [0.1, 0.1, 0.1], [1, 1, 1], 3, 1, out);
    expect([...out.slice(0, 3)]).toEqual([1, 0, 0]);
  });

  it("DeployOPT takes the relaxation whenever maxDeployed >= floor(1 / min cap) + 2 (500 random pools)", () => {
    const rng = Rng.fromSeed(4);
    const solver = new DeploySolver(0);
    for (let t = 0; t < 500; t++) {
      const n = 4 + rng.int(12);
      const u = Array.from({ length: n }, () => Math.round(rng.uniform() * 10) / 10);
      const c = Array.from({ length: n }, () => 0.05 + Math.round(rng.uniform() * 10) / 10);
      const a = Array.from({ length: n }, () => [0.25, 0.34, 0.5, 1][rng.int(4)] as number);
      const s = Math.floor(1 / Math.min(...a)) + 2;
      if (s > n) continue;
      const order = Int32Array.from({ length: n }, (_, i) => i);
      expect(solver.solve(u, c, a, n, 0.2 + rng.uniform() * 0.6, s, order).method).toBe("relaxation");
    }
  });

  it("a budget below every model's cost: DeployOPT relaxes it, routing falls back to the cheapest fill and counts it", () => {
    const p = new StageRoute({ ...req, budget: 0.1, minCost: 0.2, costUnit: 1 });
    expect(p.deployment?.status).toBe("budget-relaxed");
    const before = p.fallbackRounds;
    p.update(p.select(), { reward: 1, cost: 0.3 });
    expect(p.fallbackRounds).toBe(before + 1);
    const o = new StageOracle({
      ...req,
      budget: 0.1,
      means: { a: { reward: 1, cost: 0.5 }, b: { reward: 0, cost: 0.2 } },
    });
    expect(o.deployment?.status).toBe("budget-relaxed");
    expect(o.routing()).toEqual({ b: 1 });
  });

  it("routing() changes nothing", () => {
    const p = new StageRoute({ ...req, budget: 0.1, minCost: 0.2, costUnit: 1 });
    const before = [snap(p), p.fallbackRounds, p.routeStatus];
    p.routing();
    expect([snap(p), p.fallbackRounds, p.routeStatus]).toEqual(before);
  });

  it("no LP or MIP library at run time: the package depends on RouteKit packages only", () => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
    expect(Object.keys(pkg.dependencies).every((d: string) => d.startsWith("@routekit/"))).toBe(true);
  });
});
