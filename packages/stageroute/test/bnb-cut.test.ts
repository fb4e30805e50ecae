import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { SubsetSearch } from "../src/branch.js";
import type { DeployResult } from "../src/deploy.js";
import { SELECT_MAX } from "../src/route-fill.js";
import { SubsetLp } from "../src/subset-lp.js";
import { expectSame, pool, shuffled, solverWith } from "./pools.js";

/**
 * The branch-and-bound as before it cut subtrees that cannot carry all traffic or meet the budget
 * (src/branch.ts at 4200e89), verbatim but for the class name and the imports. The new search must
 * return the same deployment bit for bit and compute the same bounds, in the same order, at every node
 * outside the subtrees it cut.
 */
interface SubsetResult {
  value: number;
  weights: Float64Array;
}

class ReferenceSubsetSearch {
  private readonly lp = new SubsetLp();
  private perm = new Int32Array(0);
  private idx = new Int32Array(0);
  private bestIdx = new Int32Array(0);
  private bestP = new Float64Array(0);
  private base = new Float64Array(0);
  /** Positions 0..n-1 by cost (ties by position), sorted once per search: every bound ranks its LP's models from it. */
  private byCost = new Int32Array(0);
  /** Each position's index in the current bound's LP (valid where `mark` equals `stamp`). */
  private slot = new Int32Array(0);
  private mark = new Float64Array(0);
  private stamp = 0;
  /** The current LP's cost order, up to where its cheapest fill places all traffic. */
  private cord = new Int32Array(0);
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
    this.byCost = new Int32Array(m);
    this.slot = new Int32Array(m);
    this.mark = new Float64Array(m);
    this.cord = new Int32Array(m);
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
  ): SubsetResult | undefined {
    this.grow(n);
    this.nodes = 0;
    let uMax = Number.NEGATIVE_INFINITY;
    let uMin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      uMax = Math.max(uMax, u[i] as number);
      uMin = Math.min(uMin, u[i] as number);
    }
    this.muScale = Math.max(uMax - uMin, 1e-6) / 8;
    const byCost = Array.from({ length: n }, (_, i) => i).sort((x, y) => (c[x] as number) - (c[y] as number) || x - y);
    for (let i = 0; i < n; i++) this.byCost[i] = byCost[i] as number;
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
    const { idx, perm, base, slot, mark, cord } = this;
    const { su, sc, sa, sp, route } = this.lp;
    const stamp = ++this.stamp;
    const f = k + 1;
    let m = 0;
    for (let q = 0; q < f; q++) {
      const i = idx[q] as number;
      mark[i] = stamp;
      slot[i] = m;
      base[m] = u[i] as number;
      sc[m] = c[i] as number;
      sa[m++] = a[i] as number;
    }
    for (let r = j + 1; r < n; r++) {
      const i = perm[r] as number;
      mark[i] = stamp;
      slot[i] = m;
      base[m] = u[i] as number;
      sc[m] = c[i] as number;
      sa[m++] = a[i] as number;
    }
    const left = s - f;
    const ranked = m > SELECT_MAX;
    // mu prices the row sum_{free} d / alpha <= left (each free model adds at most 1): any mu >= 0 bounds.
    const at = (mu: number): number => {
      for (let q = 0; q < m; q++) su[q] = q < f ? (base[q] as number) : (base[q] as number) - mu / (sa[q] as number);
      const len = ranked ? this.costPrefix(c, n, stamp) : 0;
      if (route.solve(su, sc, sa, m, b, sp, ranked ? cord : undefined, len) !== "ok") return Number.NEGATIVE_INFINITY;
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

  /**
   * Ranks the current LP's models (positions marked with `stamp`, LP index `slot`) into `cord` by cost,
   * then higher reward `su`, then LP index (the order `sortByCost` gives), from the pool's one cost sort:
   * each run of equal costs is ranked by insertion. Stops after the run in which the cheapest fill
   * places all traffic (its remainder tracked exactly as `settle` does); returns how many are ranked.
   */
  private costPrefix(c: Float64Array, n: number, stamp: number): number {
    const { byCost, mark, slot, cord } = this;
    const { su, sa } = this.lp;
    let len = 0;
    let rem = 1;
    let r = 0;
    while (r < n && rem > 0) {
      const i = byCost[r++] as number;
      if (mark[i] !== stamp) continue;
      const cost = c[i] as number;
      const start = len;
      cord[len++] = slot[i] as number;
      for (; r < n; r++) {
        const k = byCost[r] as number;
        if ((c[k] as number) !== cost) break;
        if (mark[k] !== stamp) continue;
        const q = slot[k] as number;
        const uq = su[q] as number;
        let p = len++;
        while (p > start) {
          const w = cord[p - 1] as number;
          const uw = su[w] as number;
          if (uq > uw || (uq === uw && q < w)) {
            cord[p] = w;
            p--;
          } else break;
        }
        cord[p] = q;
      }
      for (let t = start; t < len && rem > 0; t++) {
        const av = sa[cord[t] as number] as number;
        rem -= av < rem ? av : rem;
      }
    }
    return len;
  }
}

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
    let want: DeployResult | undefined;
    let wantErr: unknown;
    try {
      want = refSolver.solve(u, c, a, n, b, s, order);
    } catch (e) {
      wantErr = e;
    }
    if (wantErr !== undefined) {
      expect(() => curSolver.solve(u, c, a, n, b, s, order)).toThrow((wantErr as Error).message);
    } else {
      const got = curSolver.solve(u, c, a, n, b, s, order);
      expectSame(got, want as DeployResult);
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
      const shape = (["rate", "small", "mixed"] as const)[k % 3] as "rate" | "small" | "mixed";
      const n = shape === "mixed" ? 13 + rng.int(60) : 13 + rng.int(22);
      const s = 2 + rng.int(shape === "mixed" ? 5 : 4);
      const kind = Math.floor(k / 3) % 4;
      const { u, c, a } = pool(rng, n, kind, shape);
      // Budgets from below the cheapest reach (budget-relaxed) to slack.
      const b = [0.02, 0.3, 0.6, 1, 1.5, 3][rng.int(6)] as number;
      const order = shuffled(rng, n);
      const want = compare(0, u, c, a, n, b, s, order);
      if (want === undefined) continue;
      const key = `${shape} ${want.method}/${want.status}`;
      methods.set(key, (methods.get(key) ?? 0) + 1);
      if (want.status === "budget-relaxed") {
        // Budgets at the edge: the smallest reachable cost itself and a few ulps on either side, where
        // the cheapest sets just pass or just fail the routing LP's budget test.
        const edge = want.budget;
        for (const e of [edge, edge * (1 - 1e-12), edge * (1 - 2e-12), edge * (1 + 4 * Number.EPSILON)]) {
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
