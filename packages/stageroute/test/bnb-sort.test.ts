import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import { expectSame, pool, shuffled, solveBoth, solverWith } from "./pools.js";
import { ReferenceSubsetSearch } from "./reference-search.js";

type Bounded = { bound: (...args: unknown[]) => number };

/** Records every LP bound a search computes (value, in order). */
function recordBounds(search: object): number[] {
  const log: number[] = [];
  const s = search as unknown as Bounded;
  const orig = s.bound;
  s.bound = function (this: unknown, ...args: unknown[]): number {
    const v = orig.apply(this, args);
    log.push(v);
    return v;
  };
  return log;
}

/** The mixed caps these pools were drawn with (pools.ts's `pool` with this list draws them bit for bit). */
const CAPS = [0.1, 0.2, 0.2, 0.25, 1 / 3, 0.5];

describe("branch-and-bound bounds ranked from one cost sort per search match the per-LP sort they replaced", () => {
  it("the same bounds, nodes and deployments, bit for bit, on 600 random pools of 13-90 models with ties and near-ties", () => {
    const rng = Rng.fromSeed("bnb-sort");
    const ref = new ReferenceSubsetSearch(false);
    const cur = new SubsetSearch();
    // The sort alone: without the feasibility cuts (test/bnb-cut.test.ts), which visit fewer nodes, and
    // with every bound in full (test/bnb-shortcuts.test.ts).
    cur.feasibilityCuts = false;
    cur.boundShortcuts = false;
    const refLog = recordBounds(ref);
    const curLog = recordBounds(cur);
    const refSolver = solverWith(ref, 0);
    const curSolver = solverWith(cur, 0);
    const methods = new Map<string, number>();
    let bounds = 0;
    for (let k = 0; k < 600; k++) {
      const n = 13 + rng.int(78);
      const s = 2 + rng.int(5);
      const kind = k % 4;
      const { u, c, a } = pool(rng, n, kind, CAPS);
      // Budgets from below the cheapest reach (budget-relaxed) to slack.
      const b = [0.02, 0.3, 0.6, 1, 1.5, 3][rng.int(6)] as number;
      const order = shuffled(rng, n);
      const got = solveBoth(
        () => refSolver.solve(u, c, a, n, b, s, order),
        () => curSolver.solve(u, c, a, n, b, s, order),
      );
      if (got === undefined) continue;
      expect(cur.nodes).toBe(ref.nodes);
      expect(curLog.length).toBe(refLog.length);
      for (let i = 0; i < refLog.length; i++) expect(Object.is(curLog[i], refLog[i])).toBe(true);
      bounds += refLog.length;
      refLog.length = 0;
      curLog.length = 0;
      const key = `${got.method}/${got.status}`;
      methods.set(key, (methods.get(key) ?? 0) + 1);
    }
    expect(methods.get("branch-and-bound/ok") ?? 0).toBeGreaterThan(200);
    expect(methods.get("branch-and-bound/budget-relaxed") ?? 0).toBeGreaterThan(10);
    expect(bounds).toBeGreaterThan(50_000);
  });

  it("the same deployments and node counts on 6 pools of 300 models (caps 0.2, one 1.0, 5 slots; two tie-heavy)", () => {
    const rng = Rng.fromSeed("bnb-sort-large");
    const ref = new ReferenceSubsetSearch(false);
    const cur = new SubsetSearch();
    // The sort alone: without the feasibility cuts (test/bnb-cut.test.ts), which visit fewer nodes, and
    // with every bound in full (test/bnb-shortcuts.test.ts).
    cur.feasibilityCuts = false;
    cur.boundShortcuts = false;
    const refSolver = solverWith(ref, 50_000);
    const curSolver = solverWith(cur, 50_000);
    for (let k = 0; k < 6; k++) {
      const n = 300;
      const { u, c } = pool(rng, n, k % 3 === 2 ? 1 : k % 3 === 1 ? 3 : 0, CAPS);
      const a = Array.from({ length: n }, (_, i) => (i === 1 ? 1 : 0.2));
      const order = shuffled(rng, n);
      const want = refSolver.solve(u, c, a, n, 1, 5, order);
      const got = curSolver.solve(u, c, a, n, 1, 5, order);
      expect(want.method).toBe("branch-and-bound");
      expectSame(got, want);
      expect(cur.nodes).toBe(ref.nodes);
    }
  });
});
