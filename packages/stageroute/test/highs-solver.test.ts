import { isRouteKitError, Rng } from "@routekit/core";
import { beforeAll, describe, expect, it } from "vitest";
import { type DeployResult, DeploySolver } from "../src/deploy.js";
import { deployMipText, type HighsInstance, highsDeploySolver } from "../src/highs.js";
import { type DeployProblem, type ExternalDeploySolver, StageOracle, StageRoute } from "../src/index.js";
import { expectRoutable, poised, pool, shuffled } from "./pools.js";

let highs: ExternalDeploySolver;
beforeAll(async () => {
  highs = await highsDeploySolver();
});

function bits(x: Float64Array): string {
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString("hex");
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (isRouteKitError(e)) return e.code;
    throw e;
  }
}

/** Routing weights within the caps summing to 1 over at most s models, within the result's budget. */
function expectFeasible(r: DeployResult, c: number[], a: number[], s: number): void {
  let mass = 0;
  let cost = 0;
  for (const i of r.support) {
    mass += r.weights[i] as number;
    cost += (r.weights[i] as number) * (c[i] as number);
    expect(r.weights[i] as number).toBeLessThanOrEqual((a[i] as number) * (1 + 1e-12));
  }
  expect(r.support.length).toBeLessThanOrEqual(s);
  expect(Math.abs(mass - 1)).toBeLessThan(1e-9);
  expect(cost).toBeLessThanOrEqual(r.budget + 1e-9 * Math.max(1, Math.abs(r.budget)));
}

const rel = (x: number, y: number) => Math.abs(x - y) / Math.max(1, Math.abs(y));

describe("highsDeploySolver against the built-in exact search", () => {
  it("the same status and, within 1e-9 relative, the same budget and value on 360 random pools (rate-limited, small and mixed caps; ties, near-ties, duplicates; budget-relaxed)", () => {
    const rng = Rng.fromSeed("highs-agree");
    const seen = new Map<string, number>();
    let differentSubset = 0;
    for (let k = 0; k < 360; k++) {
      const shape = (["rate", "small", "mixed"] as const)[k % 3] as "rate" | "small" | "mixed";
      const n = 13 + rng.int(25);
      const s = 2 + rng.int(5);
      const { u, c, a } = pool(rng, n, Math.floor(k / 3) % 4, shape);
      const b = [0.02, 0.3, 0.6, 1, 1.5, 3][rng.int(6)] as number;
      const order = shuffled(rng, n);
      let want: DeployResult;
      try {
        want = new DeploySolver(0).solve(u, c, a, n, b, s, order);
      } catch (e) {
        expect(() => new DeploySolver(0, Number.POSITIVE_INFINITY, highs).solve(u, c, a, n, b, s, order)).toThrow(
          (e as Error).message,
        );
        continue;
      }
      const ext = new DeploySolver(0, Number.POSITIVE_INFINITY, highs);
      const got = ext.solve(u, c, a, n, b, s, order);
      expect(got.solverError).toBeUndefined();
      expect(got.status).toBe(want.status);
      expect(rel(got.budget, want.budget)).toBeLessThanOrEqual(1e-9);
      expect(rel(got.value, want.value)).toBeLessThanOrEqual(1e-9);
      expectFeasible(got, c, a, s);
      expect(got.method).toBe(want.method === "branch-and-bound" ? "external" : want.method);
      // The built-in search was not run at all.
      expect(ext.nodes).toBe(0);
      if (got.support.join() !== want.support.join()) differentSubset++;
      // Deterministic: the same input gives the same subset and weights.
      const again = new DeploySolver(0, Number.POSITIVE_INFINITY, highs).solve(u, c, a, n, b, s, order);
      expect(again.support).toEqual(got.support);
      expect(bits(again.weights)).toBe(bits(got.weights));
      const key = `${shape} ${want.method}/${want.status}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    for (const shape of ["rate", "small", "mixed"]) {
      expect(seen.get(`${shape} branch-and-bound/ok`) ?? 0, shape).toBeGreaterThan(30);
    }
    expect(seen.get("rate branch-and-bound/budget-relaxed") ?? 0).toBeGreaterThan(15);
    // Ties: HiGHS need not return the subset the enumeration order keeps (the README says so).
    expect(differentSubset).toBeGreaterThan(0);
  });

  it("100 models, M_max 16, rate-limited caps: the HiGHS path finishes, and no worse than a node-limited search", () => {
    const p = StageRoute.fromJSON(poised(100, 16, { deploySolver: "highs" }), { deploySolver: highs });
    p.update(p.select(), { reward: 0.5, cost: 0.5 });
    expect(p.deployment?.method).toBe("external");
    expect(p.deployment?.status).toBe("ok");
    expect(p.solverFallbacks).toBe(0);
    expectRoutable(StageRoute.fromJSON(p.toJSON(), { deploySolver: highs }));
    const q = StageRoute.fromJSON(poised(100, 16, { searchNodeLimit: 500 }));
    q.update(q.select(), { reward: 0.5, cost: 0.5 });
    expect(q.deployment?.status).toBe("node-limit");
    expect(p.deployment?.value as number).toBeGreaterThanOrEqual((q.deployment?.value as number) - 1e-12);
  });

  it("budget-relaxed through the policy (50 models, M_max 4, rate-limited): HiGHS and the built-in search agree", () => {
    const p = StageRoute.fromJSON(poised(50, 4, { deploySolver: "highs" }), { deploySolver: highs });
    const q = StageRoute.fromJSON(poised(50, 4));
    p.update(p.select(), { reward: 0.5, cost: 0.5 });
    q.update(q.select(), { reward: 0.5, cost: 0.5 });
    expect(q.deployment?.status).toBe("budget-relaxed");
    expect(p.deployment?.status).toBe("budget-relaxed");
    expect(p.deployment?.method).toBe("external");
    expect(rel(p.deployment?.value as number, q.deployment?.value as number)).toBeLessThanOrEqual(1e-9);
  });

  it("replicas with the same seed that learn the same stream deploy the same models", () => {
    const opts = {
      arms: Array.from({ length: 14 }, (_, i) => `m${i}`),
      budget: 1,
      maxDeployed: 3,
      stageLength: 20,
      maxShare: 0.4,
      enumLimit: 0,
      seed: 5,
      deploySolver: highs,
    };
    const a = new StageRoute(opts);
    const b = new StageRoute(opts);
    const coin = Rng.fromSeed("replicas");
    const methods = new Set<string>();
    for (let t = 0; t < 600; t++) {
      const d = a.select();
      const i = Number(d.arm.slice(1));
      const fb = { reward: coin.uniform() < i / 14 ? 1 : 0, cost: 0.1 + (i / 7) ** 2 };
      const event = a.decisionRecord(d);
      a.update(d, fb);
      b.learn({ ...event, feedback: fb });
      expect(b.deployment).toEqual(a.deployment);
      methods.add(a.deployment?.method ?? "");
    }
    expect(methods.has("external")).toBe(true);
  });
});

describe("the deploySolver option and snapshots", () => {
  const req = { arms: ["a", "b", "c"], budget: 1, maxDeployed: 2, stageLength: 10, maxShare: 0.6 };

  it("the snapshot records the solver's name; fromJSON requires the solver again, of that name", () => {
    const p = new StageRoute({ ...req, deploySolver: highs });
    expect(p.config.deploySolver).toBe("highs");
    const snap = JSON.parse(JSON.stringify(p.toJSON()));
    expect(snap.state.config.deploySolver).toBe("highs");
    let msg = "";
    try {
      StageRoute.fromJSON(snap);
    } catch (e) {
      expect(isRouteKitError(e) && e.code).toBe("INVALID_ARGUMENT");
      msg = (e as Error).message;
    }
    expect(msg).toContain('external DeployOPT solver "highs"');
    expect(msg).toContain("highsDeploySolver()");
    const other: ExternalDeploySolver = { name: "my-mip", solve: () => null };
    expect(code(() => StageRoute.fromJSON(snap, { deploySolver: other }))).toBe("INVALID_ARGUMENT");
    expect(code(() => StageRoute.fromJSON(snap, { deploySolver: {} as never }))).toBe("INVALID_ARGUMENT");
    expect(code(() => StageRoute.fromJSON(snap, { deplySolver: highs } as never))).toBe("INVALID_ARGUMENT");
    const again = StageRoute.fromJSON(snap, { deploySolver: highs });
    expect(JSON.stringify(again.toJSON())).toBe(JSON.stringify(snap));
    // A snapshot of the built-in search refuses a solver (a restore keeps the snapshot's configuration).
    const plain = new StageRoute(req).toJSON();
    expect(code(() => StageRoute.fromJSON(plain, { deploySolver: highs }))).toBe("INVALID_ARGUMENT");
    expect(() => StageRoute.fromJSON(plain, {})).not.toThrow();
    // The oracle and the greedy take it the same way.
    const means = { a: { reward: 0.5, cost: 0.5 }, b: { reward: 0.7, cost: 2 }, c: { reward: 0.1, cost: 0.1 } };
    const o = new StageOracle({ ...req, means, deploySolver: highs });
    expect(code(() => StageOracle.fromJSON(o.toJSON()))).toBe("INVALID_ARGUMENT");
    expect(JSON.stringify(StageOracle.fromJSON(o.toJSON(), { deploySolver: highs }).toJSON())).toBe(
      JSON.stringify(o.toJSON()),
    );
  });

  it("a deploySolver without a name or a solve function is INVALID_ARGUMENT", () => {
    for (const bad of [null, 1, {}, { name: "", solve: () => null }, { name: "x" }, { name: 3, solve: () => null }]) {
      expect(code(() => new StageRoute({ ...req, deploySolver: bad as never }))).toBe("INVALID_ARGUMENT");
    }
  });

  it("any exact solver plugs in: an enumeration behind the protocol gives the built-in values", () => {
    const enumerate: ExternalDeploySolver = {
      name: "enumerate",
      solve(p: DeployProblem) {
        // The whole problem, in its own order: the subset's support (padded models carry no weight).
        const order = Int32Array.from({ length: p.n }, (_, i) => i);
        try {
          return new DeploySolver(1e8).solve(p.reward, p.cost, p.cap, p.n, p.budget, p.slots, order).support;
        } catch {
          return null;
        }
      },
    };
    const rng = Rng.fromSeed("protocol");
    let compared = 0;
    for (let k = 0; k < 60; k++) {
      const n = 12 + rng.int(6);
      const { u, c, a } = pool(rng, n, k % 4, k % 2 === 0 ? "rate" : "mixed");
      const order = shuffled(rng, n);
      const b = [0.3, 1, 1.5][k % 3] as number;
      let want: DeployResult;
      try {
        want = new DeploySolver(0).solve(u, c, a, n, b, 3, order);
      } catch {
        continue;
      }
      const got = new DeploySolver(0, Number.POSITIVE_INFINITY, enumerate).solve(u, c, a, n, b, 3, order);
      expect(got.status).toBe(want.status);
      expect(rel(got.value, want.value)).toBeLessThanOrEqual(1e-12);
      if (want.method === "branch-and-bound") compared++;
    }
    expect(compared).toBeGreaterThan(20);
  });
});

describe("an external solver that fails", () => {
  /** A policy at a boundary of branch-and-bound with `solver`, and the same one without it. */
  function pair(solver: ExternalDeploySolver) {
    const ext = StageRoute.fromJSON(poised(30, 4, { deploySolver: solver.name, enumLimit: 0 }), {
      deploySolver: solver,
    });
    const plain = StageRoute.fromJSON(poised(30, 4, { enumLimit: 0 }));
    ext.update(ext.select(), { reward: 0.5, cost: 0.5 });
    plain.update(plain.select(), { reward: 0.5, cost: 0.5 });
    return { ext, plain };
  }

  it("throws, answers out of range, too many models or a subset over budget: the built-in search decides, counted, with the reason", () => {
    const cases: [ExternalDeploySolver, string][] = [
      [
        {
          name: "thrower",
          solve: () => {
            throw new Error("license expired");
          },
        },
        "license expired",
      ],
      [{ name: "range", solve: (p) => [p.n] }, "not a distinct model index"],
      [{ name: "dup", solve: () => [0, 0] }, "not a distinct model index"],
      [{ name: "many", solve: (p) => Array.from({ length: p.slots + 1 }, (_, i) => i) }, "at most 4 model indices"],
      [{ name: "shape", solve: () => "0,1" as never }, "at most 4 model indices"],
      [{ name: "dear", solve: (p) => dearest(p) }, "routing LP is infeasible"],
    ];
    for (const [solver, why] of cases) {
      const { ext, plain } = pair(solver);
      expect(ext.solverFallbacks, solver.name).toBe(1);
      expect(ext.lastSolverFailure).toContain(why);
      expect(ext.deployment).toEqual(plain.deployment);
      expect(ext.deployment?.method).toBe("branch-and-bound");
      const a = ext.toJSON().state as { config: Record<string, unknown> };
      const b = plain.toJSON().state as { config: Record<string, unknown> };
      a.config.deploySolver = null;
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    }
  });

  it("HiGHS ending on any status but Optimal or Infeasible: NUMERICAL from the solver, the built-in search at the boundary", async () => {
    const stalled: HighsInstance = { solve: () => ({ Status: "Time limit reached", Columns: {} }) };
    const solver = await highsDeploySolver({ highs: stalled });
    const p: DeployProblem = {
      n: 2,
      reward: new Float64Array([0.5, 0.6]),
      cost: new Float64Array([1, 2]),
      cap: new Float64Array([1, 1]),
      budget: 1.5,
      slots: 1,
    };
    expect(code(() => solver.solve(p))).toBe("NUMERICAL");
    const { ext, plain } = pair(solver);
    expect(ext.solverFallbacks).toBe(1);
    expect(ext.lastSolverFailure).toContain('status "Time limit reached"');
    expect(ext.deployment).toEqual(plain.deployment);
  });

  it("the MIP text: signs, no budget row for an infinite budget, caps as bounds and linking rows", () => {
    const text = deployMipText({
      n: 2,
      reward: new Float64Array([-0.25, 0.5]),
      cost: new Float64Array([0.25, 3]),
      cap: new Float64Array([0.5, 1]),
      budget: Number.POSITIVE_INFINITY,
      slots: 1,
    });
    expect(text).toContain("obj: -0.25 d0 + 0.5 d1");
    expect(text).not.toContain("budget:");
    expect(text).toContain("cap0: d0 - 0.5 y0 <= 0");
    expect(text).toContain("card: y0 + y1 <= 1");
    expect(text).toContain(" 0 <= d0 <= 0.5");
  });
});

/** The `slots` dearest models: over budget on the pools above. */
function dearest(p: DeployProblem): number[] {
  return Array.from({ length: p.n }, (_, i) => i)
    .sort((x, y) => (p.cost[y] as number) - (p.cost[x] as number))
    .slice(0, p.slots);
}
