import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import type { DeployResult } from "../src/deploy.js";
import { drawCase, edgeBudgets, pool, shuffled, solveBoth, solverWith } from "./pools.js";
import { ReferenceSubsetSearch, type SubsetResult } from "./reference-search.js";

interface Traced {
  idx: Int32Array;
  bound: (...args: unknown[]) => number;
  descend: (...args: unknown[]) => boolean;
  solve: (...args: unknown[]) => SubsetResult | undefined;
  shortOfMass?: (...args: unknown[]) => boolean;
  overBudget?: (...args: unknown[]) => boolean;
}

/**
 * Records every LP bound a search computes (node key: search call, phase, chosen prefix; and value, in
 * order) and every subtree it cuts (node key).
 */
function trace(search: object): { bounds: [string, number][]; cuts: Set<string> } {
  const log = { bounds: [] as [string, number][], cuts: new Set<string>() };
  const s = search as unknown as Traced;
  let call = 0;
  let phase = false;
  const key = (k: number): string => `${call}/${phase ? 2 : 1}:${Array.from(s.idx.subarray(0, k + 1)).join(",")}`;
  const solve = s.solve;
  s.solve = function (this: unknown, ...args: unknown[]) {
    call++;
    return solve.apply(this, args);
  };
  const descend = s.descend;
  s.descend = function (this: unknown, ...args: unknown[]) {
    phase = args[8] as boolean;
    return descend.apply(this, args);
  };
  const bound = s.bound;
  s.bound = function (this: unknown, ...args: unknown[]): number {
    const v = bound.apply(this, args);
    log.bounds.push([key(args[6] as number), v]);
    return v;
  };
  for (const name of ["shortOfMass", "overBudget"] as const) {
    const f = s[name];
    if (f === undefined) continue;
    s[name] = function (this: unknown, ...args: unknown[]): boolean {
      const cut = f.apply(this, args);
      // shortOfMass(a, n, s, k, j), overBudget(c, a, n, b, s, k, j)
      if (cut) log.cuts.add(key(args[name === "shortOfMass" ? 3 : 5] as number));
      return cut;
    };
  }
  return log;
}

/** The reference's bounds are the new search's, in order, but for nodes inside a subtree the new one cut. */
function expectSameOutsideCuts(ref: [string, number][], cur: [string, number][], cuts: Set<string>): number {
  let q = 0;
  let skipped = 0;
  for (const [k, v] of ref) {
    const next = cur[q];
    if (next !== undefined && next[0] === k) {
      expect(Object.is(next[1], v)).toBe(true);
      q++;
      continue;
    }
    // Not bounded by the new search: some prefix of its key (itself included) was cut.
    const [head, list] = k.split(":") as [string, string];
    const parts = list.split(",");
    let inCut = false;
    for (let p = 1; p <= parts.length && !inCut; p++) inCut = cuts.has(`${head}:${parts.slice(0, p).join(",")}`);
    expect(inCut, `bound at ${k} missing but not cut`).toBe(true);
    skipped++;
  }
  expect(q).toBe(cur.length);
  return skipped;
}

describe("branch-and-bound cuts of subtrees that cannot carry all traffic or meet the budget", () => {
  const ref = new ReferenceSubsetSearch();
  const cur = new SubsetSearch();
  // Every bound in full, to compare its value (test/bnb-shortcuts.test.ts compares the decisions with them on).
  cur.boundShortcuts = false;
  const refLog = trace(ref);
  const curLog = trace(cur);
  const stats = { refNodes: 0, curNodes: 0, skipped: 0, cuts: 0 };

  /** Solves with both searches and compares; the reference's result (undefined when it throws). */
  function compare(
    enumLimit: number,
    u: number[],
    c: number[],
    a: number[],
    n: number,
    b: number,
    s: number,
    order: Int32Array,
  ): DeployResult | undefined {
    const refSolver = solverWith(ref, enumLimit);
    const curSolver = solverWith(cur, enumLimit);
    const want = solveBoth(
      () => refSolver.solve(u, c, a, n, b, s, order),
      () => curSolver.solve(u, c, a, n, b, s, order),
    );
    if (want !== undefined) {
      stats.skipped += expectSameOutsideCuts(refLog.bounds, curLog.bounds, curLog.cuts);
      stats.refNodes += refLog.bounds.length;
      stats.curNodes += curLog.bounds.length;
      stats.cuts += curLog.cuts.size;
    }
    refLog.bounds.length = 0;
    curLog.bounds.length = 0;
    curLog.cuts.clear();
    return want;
  }

  it("the same deployments bit for bit, and the same bounds outside the cut subtrees, on 1,200 random pools of 13-72 models with ties and near-ties", () => {
    const rng = Rng.fromSeed("bnb-cut");
    const methods = new Map<string, number>();
    for (let k = 0; k < 1200; k++) {
      const { shape, n, s, u, c, a, b, order } = drawCase(
        rng,
        k,
        (shape) => (shape === "mixed" ? 13 + rng.int(60) : 13 + rng.int(22)),
        (shape) => 2 + rng.int(shape === "mixed" ? 5 : 4),
      );
      const want = compare(0, u, c, a, n, b, s, order);
      if (want === undefined) continue;
      const key = `${shape} ${want.method}/${want.status}`;
      methods.set(key, (methods.get(key) ?? 0) + 1);
      if (want.status === "budget-relaxed") {
        for (const e of edgeBudgets(want.budget)) {
          const w = compare(0, u, c, a, n, e, s, order);
          if (w !== undefined) methods.set(`edge ${w.status}`, (methods.get(`edge ${w.status}`) ?? 0) + 1);
        }
      }
    }
    expect(methods.get("rate branch-and-bound/budget-relaxed") ?? 0).toBeGreaterThan(100);
    expect(methods.get("rate branch-and-bound/ok") ?? 0).toBeGreaterThan(100);
    expect(methods.get("small branch-and-bound/ok") ?? 0).toBeGreaterThan(100);
    expect(methods.get("mixed branch-and-bound/ok") ?? 0).toBeGreaterThan(100);
    expect(methods.get("edge ok") ?? 0).toBeGreaterThan(100);
    expect(methods.get("edge budget-relaxed") ?? 0).toBeGreaterThan(40);
    expect(stats.cuts).toBeGreaterThan(10_000);
    expect(stats.skipped).toBeGreaterThan(100_000);
  });

  it("the same deployments on the sweep's rate-limited shape: 4 pools of 50 models, caps 0.05 (one in ten 0.5), M_max 4 and 6", () => {
    const rng = Rng.fromSeed("bnb-cut-rate");
    for (let k = 0; k < 4; k++) {
      const n = 50;
      const { u, c, a } = pool(rng, n, k, "rate");
      const order = shuffled(rng, n);
      const want = compare(50_000, u, c, a, n, k < 2 ? 1 : 2.5, k % 2 === 0 ? 4 : 6, order);
      expect(want?.method).toBe("branch-and-bound");
    }
  });
});
