import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import { type DeployResult, DeploySolver } from "../src/deploy.js";
import { drawCase, edgeBudgets, solveBoth } from "./pools.js";

interface Traced {
  idx: Int32Array;
  bound: (...args: unknown[]) => number;
  descend: (...args: unknown[]) => boolean;
}

/** Records every bound a search computes: node key (phase and chosen prefix), value and the cut it was computed against. */
function trace(search: SubsetSearch): [string, number, number][] {
  const log: [string, number, number][] = [];
  const s = search as unknown as Traced;
  let phase = false;
  const descend = s.descend;
  s.descend = function (this: unknown, ...args: unknown[]) {
    phase = args[8] as boolean;
    return descend.apply(this, args);
  };
  const bound = s.bound;
  s.bound = function (this: unknown, ...args: unknown[]): number {
    const v = bound.apply(this, args);
    const k = args[6] as number;
    log.push([`${phase ? 2 : 1}:${Array.from(s.idx.subarray(0, k + 1)).join(",")}`, v, args[8] as number]);
    return v;
  };
  return log;
}

/** A DeploySolver whose searches (the branch-and-bound and the improvement phase's) bound with or without the shortcuts. */
function solver(
  shortcuts: boolean,
  enumLimit: number,
  nodeLimit: number,
): { d: DeploySolver; log: [string, number, number][] } {
  const d = new DeploySolver(enumLimit, nodeLimit);
  const inner = d as unknown as { search: SubsetSearch; narrow: SubsetSearch };
  for (const key of ["search", "narrow"] as const) {
    const s = new SubsetSearch();
    s.boundShortcuts = shortcuts;
    inner[key] = s;
  }
  return { d, log: trace(inner.search) };
}

describe("branch-and-bound bounds computed only as far as their cut decisions need", () => {
  it("the same nodes, decisions, node-limit stops and deployments, bit for bit, on 600 random pools with ties and near-ties, and at budgets a few ulps from the smallest reachable cost", () => {
    const rng = Rng.fromSeed("bnb-shortcuts");
    let bounds = 0;
    let differ = 0;
    let limited = 0;
    let edges = 0;
    const methods = new Map<string, number>();
    /** Solves with and without the shortcuts and compares; the deployment (undefined when both throw). */
    function compare(
      u: number[],
      c: number[],
      a: number[],
      n: number,
      b: number,
      s: number,
      order: Int32Array,
      nodeLimit: number,
    ): DeployResult | undefined {
      const on = solver(true, 0, nodeLimit);
      const off = solver(false, 0, nodeLimit);
      const want = solveBoth(
        () => off.d.solve(u, c, a, n, b, s, order),
        () => on.d.solve(u, c, a, n, b, s, order),
      );
      if (want === undefined) return undefined;
      expect([on.d.nodes, on.d.visits, on.d.improveEvals]).toEqual([off.d.nodes, off.d.visits, off.d.improveEvals]);
      expect(on.log.length).toBe(off.log.length);
      for (let q = 0; q < off.log.length; q++) {
        const [key, v, cut] = off.log[q] as [string, number, number];
        const [gotKey, gotV, gotCut] = on.log[q] as [string, number, number];
        expect(gotKey).toBe(key);
        expect(Object.is(gotCut, cut)).toBe(true);
        if (Object.is(gotV, v)) continue;
        // A shortened bound lands on the same side of its cut as the full one.
        differ++;
        expect([key, gotV <= cut]).toEqual([key, v <= cut]);
      }
      bounds += off.log.length;
      if (want.status === "node-limit") limited++;
      return want;
    }
    for (let k = 0; k < 600; k++) {
      // Up to 8 slots on the rate-limited shape, where the multiplier search runs longest.
      const { shape, n, s, u, c, a, b, order } = drawCase(
        rng,
        k,
        (shape) => (shape === "rate" ? 20 + rng.int(20) : 13 + rng.int(30)),
        (shape) => 2 + rng.int(shape === "rate" ? 7 : 5),
      );
      // Every fifth pool under a node limit: the searches must stop at the same node.
      const nodeLimit = k % 5 === 4 ? 50 + rng.int(2000) : Number.POSITIVE_INFINITY;
      const want = compare(u, c, a, n, b, s, order, nodeLimit);
      if (want === undefined) continue;
      if (want.status === "budget-relaxed" && k % 2 === 0) {
        for (const e of edgeBudgets(want.budget)) {
          compare(u, c, a, n, e, s, order, nodeLimit);
          edges++;
        }
      }
      const m = `${shape} ${want.method}/${want.status}`;
      methods.set(m, (methods.get(m) ?? 0) + 1);
    }
    expect(methods.get("rate branch-and-bound/ok") ?? 0).toBeGreaterThan(50);
    expect(methods.get("rate branch-and-bound/budget-relaxed") ?? 0).toBeGreaterThan(30);
    expect(methods.get("small branch-and-bound/ok") ?? 0).toBeGreaterThan(80);
    expect(methods.get("mixed branch-and-bound/ok") ?? 0).toBeGreaterThan(50);
    expect(limited).toBeGreaterThan(10);
    expect(edges).toBeGreaterThan(150);
    expect(bounds).toBeGreaterThan(400_000);
    // The shortcuts engage on a good share of the bounds.
    expect(differ).toBeGreaterThan(bounds / 10);
  });
});
