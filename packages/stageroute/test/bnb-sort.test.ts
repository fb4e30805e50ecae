import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import type { DeployResult } from "../src/deploy.js";
import { SubsetLp } from "../src/subset-lp.js";
import { expectSame, pool, shuffled, solverWith } from "./pools.js";

/**
 * The branch-and-bound as before 0.1.1 (src/branch.ts at 72dc086), verbatim: every LP bound's routing LP
 * sorts its models by cost (route.solve without a cost order). The new search ranks them from one sort of
 * the pool per search; the bounds, the nodes visited and the result must not change by a bit.
 */
class ReferenceSubsetSearch {
  private readonly lp = new SubsetLp();
  private perm = new Int32Array(0);
  private idx = new Int32Array(0);
  private bestIdx = new Int32Array(0);
  private bestP = new Float64Array(0);
  private base = new Float64Array(0);
  private slope = 0;
  private muScale = 1;
  private incumbent = Number.NEGATIVE_INFINITY;
  private threshold = Number.POSITIVE_INFINITY;
  private found = false;
  private foundValue = Number.NaN;
  /** Nodes bounded in the last search (diagnostics for tests and benches). */
  nodes = 0;

  private grow(n: number): void {
    this.lp.grow(n);
    if (this.perm.length >= n) return;
    const m = Math.max(n, 16);
    this.base = new Float64Array(m);
    this.perm = new Int32Array(m);
    this.idx = new Int32Array(m);
    this.bestIdx = new Int32Array(m);
    this.bestP = new Float64Array(m);
  }

  /**
   * Best s-subset of models 0..n-1 (positions in the caller's enumeration order) under budget b; undefined
   * when no s-subset meets b. `relaxed` holds the relaxation's weights over the same positions.
   */
  solve(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    relaxed: ArrayLike<number>,
  ): { value: number; weights: Float64Array } | undefined {
    this.grow(n);
    this.nodes = 0;
    let uMax = Number.NEGATIVE_INFINITY;
    let uMin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      uMax = Math.max(uMax, u[i] as number);
      uMin = Math.min(uMin, u[i] as number);
    }
    this.muScale = Math.max(uMax - uMin, 1e-6) / 8;
    // Phase 1: the optimal value, exploring promising models first.
    const perm = this.perm;
    const order = Array.from({ length: n }, (_, i) => i).sort(
      (x, y) => (relaxed[y] as number) - (relaxed[x] as number) || (u[y] as number) - (u[x] as number) || x - y,
    );
    for (let i = 0; i < n; i++) perm[i] = order[i] as number;
    this.incumbent = Number.NEGATIVE_INFINITY;
    this.threshold = Number.POSITIVE_INFINITY;
    this.found = false;
    this.descend(u, c, a, n, b, s, 0, 0, false);
    if (!this.found) return undefined;
    // Phase 2: the first subset in enumeration order that attains it.
    for (let i = 0; i < n; i++) perm[i] = i;
    this.threshold = this.incumbent - 1e-12;
    this.found = false;
    this.descend(u, c, a, n, b, s, 0, 0, true);
    if (!this.found) return undefined;
    const weights = new Float64Array(n);
    for (let j = 0; j < s; j++) weights[this.bestIdx[j] as number] = this.bestP[j] as number;
    return { value: this.foundValue, weights };
  }

  /** Depth-first over subsets (positions perm[start..n)); `first`: stop at the first leaf >= threshold. */
  private descend(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    k: number,
    start: number,
    first: boolean,
  ): boolean {
    const { lp, idx, perm } = this;
    const last = n - (s - k);
    for (let j = start; j <= last; j++) {
      idx[k] = perm[j] as number;
      if (k + 1 === s) {
        if (lp.solve(u, c, a, idx, s, b) !== "ok") continue;
        const v = lp.route.value;
        if (first ? v >= this.threshold : v > this.incumbent) {
          if (!first) this.incumbent = v;
          this.found = true;
          this.foundValue = v;
          for (let q = 0; q < s; q++) {
            this.bestIdx[q] = idx[q] as number;
            this.bestP[q] = lp.sp[q] as number;
          }
          if (first) return true;
        }
        continue;
      }
      // The 1e-13 absorbs the rounding of a bound that equals a completion's value.
      const cut = first ? this.threshold - 1e-13 - Number.MIN_VALUE : this.incumbent + 1e-13;
      const bound = this.bound(u, c, a, n, b, s, k, j, cut);
      if (first ? bound + 1e-13 < this.threshold : bound - 1e-13 <= this.incumbent) continue;
      if (this.descend(u, c, a, n, b, s, k + 1, j + 1, first)) return true;
    }
    return false;
  }

  /**
   * Upper bound on completions of idx[0..k] by s - k - 1 more of positions perm[j+1..n) (index j already
   * in idx[k]); -Infinity when none is feasible. Stops early once the bound cannot pass `cut`.
   */
  private bound(
    u: Float64Array,
    c: Float64Array,
    a: Float64Array,
    n: number,
    b: number,
    s: number,
    k: number,
    j: number,
    cut: number,
  ): number {
    this.nodes++;
    const { idx, perm, base } = this;
    const { su, sc, sa, sp, route } = this.lp;
    const f = k + 1;
    let m = 0;
    for (let q = 0; q < f; q++) {
      const i = idx[q] as number;
      base[m] = u[i] as number;
      sc[m] = c[i] as number;
      sa[m++] = a[i] as number;
    }
    for (let r = j + 1; r < n; r++) {
      const i = perm[r] as number;
      base[m] = u[i] as number;
      sc[m] = c[i] as number;
      sa[m++] = a[i] as number;
    }
    const left = s - f;
    // mu prices the row sum_{free} d / alpha <= left (each free model adds at most 1): any mu >= 0 bounds.
    const at = (mu: number): number => {
      for (let q = 0; q < m; q++) su[q] = q < f ? (base[q] as number) : (base[q] as number) - mu / (sa[q] as number);
      if (route.solve(su, sc, sa, m, b, sp) !== "ok") return Number.NEGATIVE_INFINITY;
      let used = 0;
      for (let q = f; q < m; q++) used += (sp[q] as number) / (sa[q] as number);
      this.slope = left - used;
      return route.value + mu * left;
    };
    let best = at(0);
    if (best <= cut || this.slope >= -1e-12) return best;
    let lo = 0;
    let hi = this.muScale;
    for (let it = 0; it < 40; it++) {
      const v = at(hi);
      if (v < best) best = v;
      if (best <= cut || this.slope >= -1e-12) break;
      lo = hi;
      hi *= 2;
    }
    if (best <= cut || this.slope < -1e-12) return best;
    for (let it = 0; it < 12; it++) {
      const mid = (lo + hi) / 2;
      const v = at(mid);
      if (v < best) best = v;
      if (best <= cut) return best;
      if (Math.abs(this.slope) <= 1e-12) break;
      if (this.slope < 0) lo = mid;
      else hi = mid;
    }
    return best;
  }
}

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
    const ref = new ReferenceSubsetSearch();
    const cur = new SubsetSearch();
    // The sort alone: without the feasibility cuts (test/bnb-cut.test.ts), which visit fewer nodes.
    cur.feasibilityCuts = false;
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
      let want: DeployResult | undefined;
      let wantErr: unknown;
      try {
        want = refSolver.solve(u, c, a, n, b, s, order);
      } catch (e) {
        wantErr = e;
      }
      if (wantErr !== undefined) {
        expect(() => curSolver.solve(u, c, a, n, b, s, order)).toThrow((wantErr as Error).message);
        continue;
      }
      const got = curSolver.solve(u, c, a, n, b, s, order);
      expectSame(got, want as DeployResult);
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
    const ref = new ReferenceSubsetSearch();
    const cur = new SubsetSearch();
    // The sort alone: without the feasibility cuts (test/bnb-cut.test.ts), which visit fewer nodes.
    cur.feasibilityCuts = false;
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
