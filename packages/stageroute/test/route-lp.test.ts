import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { costLcb, fRad, rewardUcb } from "../src/bounds.js";
import { BreakpointSolver } from "../src/route-breakpoints.js";
import { RouteSolver, sampleIndex } from "../src/route-lp.js";
import { bruteRoute, highsRoute } from "./brute.js";
import { loadHighs } from "./mip.js";

describe("confidence bounds (gamma = 0.2)", () => {
  const g = 0.2;
  it("f_rad and the paper's eqs. 4-5", () => {
    expect(fRad(0.25, 4, g)).toBeCloseTo(0.161803399, 9);
    expect(rewardUcb(0.75, 3, g, "mean", 1)).toBeCloseTo(0.573606798, 9);
    expect(rewardUcb(0.6 * 99, 99, g, "mean", 1)).toBeCloseTo(0.673282032, 9);
    expect(costLcb(1.5, 3, g, "mean", 0.1, 0.1, 1)).toBe(0.1);
    expect(costLcb(0.5 * 99, 99, g, "mean", 0.1, 0.1, 1)).toBeCloseTo(0.432754447, 9);
  });
  it("an unplayed model is maximally optimistic: UCB = 1, LCB = c1", () => {
    expect(rewardUcb(0, 0, g, "mean", 1)).toBe(1);
    expect(costLcb(0, 0, g, "mean", 0.1, 0.1, 50)).toBe(0.1);
  });
  it("the shrunk estimator divides by N + 1", () => {
    expect(rewardUcb(0.75, 3, g, "shrunk", 1)).toBeCloseTo(0.75 / 4 + 2 * fRad(0.75 / 4, 4, g), 12);
  });
});

describe("RouteSolver fixtures", () => {
  const solver = new RouteSolver(4);
  const p = new Float64Array(4);
  const u = [0.9, 0.5, 0.2];
  const c = [1, 0.3, 0.1];
  const a = [0.4, 1, 1];
  it("budget tight", () => {
    expect(solver.solve(u, c, a, 3, 0.5, p)).toBe("ok");
    expect(solver.value).toBeCloseTo(4.3 / 7, 12);
    expect([...p.slice(0, 3)].map((x) => Number(x.toFixed(10)))).toEqual([
      Number((2 / 7).toFixed(10)),
      Number((5 / 7).toFixed(10)),
      0,
    ]);
  });
  it("budget slack", () => {
    expect(solver.solve(u, c, a, 3, 0.7, p)).toBe("ok");
    expect(solver.value).toBeCloseTo(0.66, 12);
    expect(p[0]).toBeCloseTo(0.4, 12);
    expect(p[1]).toBeCloseTo(0.6, 12);
    expect(solver.cost).toBeCloseTo(0.58, 12);
  });
  it("budget infeasible: the cheapest fill", () => {
    expect(solver.solve(u, c, a, 3, 0.05, p)).toBe("infeasible-budget");
    expect([...p.slice(0, 3)]).toEqual([0, 0, 1]);
  });
  it("four models", () => {
    expect(solver.solve([0.8, 0.6, 0.7, 0.3], [0.9, 0.2, 0.5, 0.05], [0.5, 0.5, 0.5, 0.5], 4, 0.3, p)).toBe("ok");
    expect(solver.value).toBeCloseTo(0.6055556, 7);
    expect(p[0]).toBe(0);
    expect(p[1]).toBeCloseTo(0.5, 12);
    expect(p[2]).toBeCloseTo(7 / 18, 12);
    expect(p[3]).toBeCloseTo(1 / 9, 12);
  });
  it("caps summing below 1", () => {
    expect(solver.solve([0.5, 0.5], [1, 1], [0.4, 0.4], 2, 5, p)).toBe("infeasible-mass");
  });
});

/** Random instance with values rounded to one decimal (forces ties in rewards, costs, ratios). */
function instance(rng: Rng, tieHeavy: boolean) {
  const n = 1 + rng.int(7);
  const r = (x: number) => (tieHeavy ? Math.round(x * 10) / 10 : x);
  const u = Array.from({ length: n }, () => r(rng.uniform()));
  const c = Array.from({ length: n }, () => r(0.05 + rng.uniform()));
  const a = Array.from({ length: n }, () => (rng.uniform() < 0.3 ? 1 : Math.max(0.1, r(rng.uniform()))));
  const b = r(0.05 + rng.uniform() * 0.8);
  return { n, u, c, a, b };
}

function checkFeasible(p: Float64Array, c: number[], a: number[], b: number, status: string) {
  let sum = 0;
  let cost = 0;
  for (let i = 0; i < c.length; i++) {
    expect(p[i]).toBeGreaterThanOrEqual(0);
    expect(p[i] as number).toBeLessThanOrEqual((a[i] as number) + 1e-9);
    sum += p[i] as number;
    cost += (p[i] as number) * (c[i] as number);
  }
  expect(Math.abs(sum - 1)).toBeLessThan(1e-9);
  if (status === "ok") expect(cost).toBeLessThanOrEqual(b + 1e-9);
}

describe("RouteSolver against vertex enumeration and HiGHS", () => {
  it("10,000 random instances (half tie-heavy) agree with vertex enumeration", () => {
    const rng = Rng.fromSeed(7);
    const solver = new RouteSolver(2);
    const p = new Float64Array(8);
    let infeasible = 0;
    for (let k = 0; k < 10_000; k++) {
      const { n, u, c, a, b } = instance(rng, k % 2 === 0);
      const mass = a.reduce((x, y) => x + y, 0);
      const st = solver.solve(u, c, a, n, b, p);
      if (mass < 1 - 1e-12) {
        expect(st).toBe("infeasible-mass");
        continue;
      }
      const ref = bruteRoute(u, c, a, b);
      if (ref === undefined) {
        infeasible++;
        expect(st).toBe("infeasible-budget");
      } else {
        expect(st).toBe("ok");
        expect(Math.abs(solver.value - ref)).toBeLessThan(1e-9);
      }
      checkFeasible(p, c, a, b, st);
    }
    expect(infeasible).toBeGreaterThan(100);
  });

  it("3,000 tie-heavy instances agree with HiGHS", async () => {
    const highs = await loadHighs();
    const rng = Rng.fromSeed(11);
    const solver = new RouteSolver();
    const p = new Float64Array(8);
    let compared = 0;
    for (let k = 0; k < 3000; k++) {
      const { n, u, c, a, b } = instance(rng, true);
      const st = solver.solve(u, c, a, n, b, p);
      if (st === "infeasible-mass") continue;
      const ref = highsRoute(highs, u, c, a, b);
      if (ref === undefined) expect(st).toBe("infeasible-budget");
      else {
        expect(st).toBe("ok");
        expect(Math.abs(solver.value - ref)).toBeLessThan(1e-7);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1500);
  });

  it("2,000 larger instances (8-40 models, many dominated ones, some ties) agree with HiGHS", async () => {
    // Larger pools exercise dropping dominated models (whose dominators' caps carry all traffic) and
    // the breakpoint search over many points; DeployOPT solves routing LPs of this size.
    const highs = await loadHighs();
    const rng = Rng.fromSeed(23);
    const solver = new RouteSolver(4);
    const p = new Float64Array(40);
    let compared = 0;
    for (let k = 0; k < 2000; k++) {
      const n = 8 + rng.int(33);
      const r = (x: number) => (k % 3 === 0 ? Math.round(x * 20) / 20 : x);
      const u = Array.from({ length: n }, () => r(0.3 + 0.7 * rng.uniform()));
      const c = Array.from({ length: n }, () => r(0.1 + 2.9 * rng.uniform()));
      const a = Array.from({ length: n }, (_, i) =>
        i === 0 && k % 2 === 0 ? 1 : k % 4 === 1 ? 0.4 : r(0.05 + 0.5 * rng.uniform()),
      );
      const b = 0.3 + 1.2 * rng.uniform();
      const st = solver.solve(u, c, a, n, b, p);
      if (st === "infeasible-mass") continue;
      checkFeasible(p, c, a, b, st);
      const ref = highsRoute(highs, u, c, a, b);
      if (ref === undefined) expect(st).toBe("infeasible-budget");
      else {
        expect(st).toBe("ok");
        expect(Math.abs(solver.value - ref)).toBeLessThan(1e-7);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("a solver reused across slowly changing bounds gives bit for bit the result of a fresh one", () => {
    const rng = Rng.fromSeed(17);
    const warm = new RouteSolver(10);
    const p = new Float64Array(10);
    const q = new Float64Array(10);
    let checked = 0;
    for (let run = 0; run < 200; run++) {
      const n = 2 + rng.int(9);
      const u = Array.from({ length: n }, () => rng.uniform());
      const c = Array.from({ length: n }, () => 0.05 + rng.uniform());
      const a = Array.from({ length: n }, () => (rng.uniform() < 0.3 ? 1 : 0.2 + 0.5 * rng.uniform()));
      const b = 0.2 + 0.5 * rng.uniform();
      for (let step = 0; step < 50; step++) {
        // One model's bounds move a little, as after one feedback (sometimes onto a tie).
        const i = rng.int(n);
        u[i] =
          step % 7 === 0
            ? (u[(i + 1) % n] as number)
            : Math.min(1, Math.max(0, (u[i] as number) + 0.02 * (rng.uniform() - 0.5)));
        c[i] = Math.max(0.01, (c[i] as number) + 0.02 * (rng.uniform() - 0.5));
        const s1 = warm.solve(u, c, a, n, b, p);
        const v1 = warm.value;
        const s2 = new RouteSolver(n).solve(u, c, a, n, b, q);
        expect(s1).toBe(s2);
        expect([...p.subarray(0, n)]).toEqual([...q.subarray(0, n)]);
        if (s1 === "ok") expect(Math.abs(v1 - (bruteRoute(u, c, a, b) as number))).toBeLessThan(1e-9);
        checked++;
      }
    }
    expect(checked).toBe(10_000);
  });

  it("120,000 random instances (ties, collinear triples, DeployOPT-sized pools) match the exact breakpoint search's objective", () => {
    // The Newton solver and the breakpoint search (its fallback, the solver of 0.x) must agree on the
    // status and on the optimal value; the routings may differ only where the optimum is not unique.
    const rng = Rng.fromSeed(29);
    const fast = new RouteSolver(4);
    const exact = new BreakpointSolver(4);
    const p = new Float64Array(40);
    const q = new Float64Array(40);
    let compared = 0;
    let differ = 0;
    const differByMode = [0, 0, 0, 0, 0, 0];
    let worst = 0;
    let infeasible = 0;
    let statusDiffer = 0;
    for (let k = 0; k < 120_000; k++) {
      const mode = k % 6;
      // 0 plain, 1 rounded to 0.1 (ties everywhere), 2 collinear triples with equal costs and rewards,
      // 3 rewards on one line in cost (every model tied at one multiplier), 4-5 DeployOPT's 20-40 models
      // with caps 0.02-0.12 (5 rounded).
      const big = mode >= 4;
      const n = big ? 20 + rng.int(21) : 1 + rng.int(12);
      const r = (x: number) => (mode === 1 || mode === 5 ? Math.round(x * 10) / 10 : x);
      const u = Array.from({ length: n }, () => r(big ? 0.3 + 0.7 * rng.uniform() : rng.uniform()));
      const c = Array.from({ length: n }, () => r(big ? 0.1 + 2.9 * rng.uniform() : 0.05 + rng.uniform()));
      const a = Array.from({ length: n }, () =>
        big ? 0.02 + 0.1 * rng.uniform() : rng.uniform() < 0.3 ? 1 : Math.max(0.1, r(rng.uniform())),
      );
      const b = big ? 0.3 + 1.2 * rng.uniform() : r(0.05 + 0.8 * rng.uniform());
      if (mode === 2) {
        for (let j = 0; j + 2 < n; j += 3) {
          const t = rng.uniform();
          c[j + 2] = (c[j] as number) + t * ((c[j + 1] as number) - (c[j] as number));
          u[j + 2] = (u[j] as number) + t * ((u[j + 1] as number) - (u[j] as number));
        }
        if (n > 3) {
          c[n - 1] = c[0] as number;
          u[n - 2] = u[1] as number;
        }
      }
      if (mode === 3) {
        const slope = 0.5 + rng.uniform();
        for (let j = 0; j < n; j++)
          u[j] = 0.2 + slope * (c[j] as number) + (rng.uniform() < 0.5 ? 0 : 0.1 * rng.uniform());
      }
      const st = fast.solve(u, c, a, n, b, p);
      if (st !== exact.solve(u, c, a, n, b, q)) statusDiffer++;
      if (st !== "ok") continue;
      // Feasibility (checked by hand: an expect per entry would dominate the run time).
      let sum = 0;
      let cost = 0;
      let d = 0;
      for (let i = 0; i < n; i++) {
        const v = p[i] as number;
        if (!(v >= 0 && v <= (a[i] as number) + 1e-12)) infeasible++;
        sum += v;
        cost += v * (c[i] as number);
        d = Math.max(d, Math.abs(v - (q[i] as number)));
      }
      if (Math.abs(sum - 1) > 1e-12 || cost > b + 1e-12 * Math.max(1, b)) infeasible++;
      const gap = Math.abs(fast.value - exact.value) / Math.max(1e-300, Math.abs(exact.value));
      if (gap > worst) worst = gap;
      if (d > 1e-9) {
        differ++;
        differByMode[mode] = (differByMode[mode] as number) + 1;
      }
      compared++;
    }
    expect(statusDiffer).toBe(0);
    expect(infeasible).toBe(0);
    expect(worst).toBeLessThanOrEqual(1e-12);
    expect(compared).toBeGreaterThan(70_000);
    // Routings differ only in the tie-heavy modes, never on the plain random ones (unique optimum).
    expect(differByMode[0]).toBe(0);
    expect(differByMode[4]).toBe(0);
    expect(differ).toBeLessThan(compared / 20);
    expect(fast.fallbacks).toBe(0);
    console.log(
      `Newton vs breakpoint search: ${compared} solved instances, routings differ (> 1e-9) on ${differ} (by mode ${differByMode.join("/")}), largest relative objective gap ${worst.toExponential(2)}`,
    );
  });

  it("when the Newton iteration hits its step cap, the solve falls back to the exact breakpoint search", () => {
    class Capped extends RouteSolver {
      protected override stepCap(): number {
        return 0;
      }
    }
    const rng = Rng.fromSeed(31);
    const capped = new Capped(4);
    const exact = new BreakpointSolver(4);
    const p = new Float64Array(12);
    const q = new Float64Array(12);
    let fellBack = 0;
    for (let k = 0; k < 3000; k++) {
      const { n, u, c, a, b } = instance(rng, k % 2 === 0);
      const before = capped.fallbacks;
      const st = capped.solve(u, c, a, n, b, p);
      expect(st).toBe(exact.solve(u, c, a, n, b, q));
      if (capped.fallbacks > before) {
        fellBack++;
        expect([...p.subarray(0, n)]).toEqual([...q.subarray(0, n)]);
        expect(capped.value).toBe(exact.value);
      }
    }
    expect(fellBack).toBeGreaterThan(300);
  });

  it("sampling never picks a zero entry and follows the distribution", () => {
    const p = new Float64Array([0, 0.25, 0, 0.75]);
    expect(sampleIndex(p, 4, 0)).toBe(1);
    expect(sampleIndex(p, 4, 0.2499)).toBe(1);
    expect(sampleIndex(p, 4, 0.25)).toBe(3);
    expect(sampleIndex(p, 4, 0.999999999)).toBe(3);
    expect(sampleIndex(new Float64Array([0.5, 0.5 - 1e-15, 0]), 3, 1 - 1e-16)).toBe(1);
  });
});
