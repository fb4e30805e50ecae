import { isRouteKitError, makeSnapshot, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { type DeployResult, DeploySolver } from "../src/deploy.js";
import { StageRoute, type StageRouteOptions } from "../src/index.js";
import { expectFeasible, expectRoutable, expectSame, poised, pool, shuffled } from "./pools.js";

describe("DeploySolver with a node limit", () => {
  it("below the limit: bit for bit the unlimited result; one node short: node-limit, a feasible subset no better than the optimum (300 random pools)", () => {
    const rng = Rng.fromSeed("node-limit");
    const seen = new Map<string, number>();
    for (let k = 0; k < 300; k++) {
      const shape = (["rate", "small", "mixed"] as const)[k % 3] as "rate" | "small" | "mixed";
      const n = 13 + rng.int(20);
      const s = 2 + rng.int(4);
      const { u, c, a } = pool(rng, n, Math.floor(k / 3) % 4, shape);
      const b = [0.02, 0.3, 0.6, 1, 1.5][rng.int(5)] as number;
      const order = shuffled(rng, n);
      const free = new DeploySolver(0);
      let want: DeployResult;
      try {
        want = free.solve(u, c, a, n, b, s, order);
      } catch (e) {
        // No s caps sum to 1: the limit changes nothing about that.
        expect(() => new DeploySolver(0, 1).solve(u, c, a, n, b, s, order)).toThrow((e as Error).message);
        continue;
      }
      const nodes = free.visits;
      const atLimit = new DeploySolver(0, Math.max(nodes, 1));
      expectSame(atLimit.solve(u, c, a, n, b, s, order), want);
      expect(atLimit.visits).toBe(nodes);
      expect(atLimit.nodes).toBe(free.nodes);
      if (nodes === 0) continue;
      for (const limit of [1, Math.ceil(nodes / 2), nodes - 1]) {
        if (limit < 1) continue;
        const d = new DeploySolver(0, limit);
        const got = d.solve(u, c, a, n, b, s, order);
        expect(d.visits).toBeLessThanOrEqual(limit);
        expect(got.status).toBe("node-limit");
        expectFeasible(got, u, c, a, s);
        // No subset beats the optimum under the same budget.
        if (got.budget === want.budget) expect(got.value).toBeLessThanOrEqual(want.value + 1e-12);
        if (want.status === "ok") expect(got.budget).toBeGreaterThanOrEqual(b);
        const key = `${want.status} -> ${got.method}${got.budget === b ? "" : " (budget relaxed)"}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        // Deterministic: the same input stops at the same node with the same subset.
        expectSame(new DeploySolver(0, limit).solve(u, c, a, n, b, s, order), got);
      }
    }
    // Every path is exercised: an incumbent kept, the fallback picks, within and beyond b.
    expect(seen.get("ok -> branch-and-bound") ?? 0).toBeGreaterThan(50);
    expect(seen.get("ok -> fallback") ?? 0).toBeGreaterThan(20);
    expect(seen.get("budget-relaxed -> branch-and-bound (budget relaxed)") ?? 0).toBeGreaterThan(20);
    expect(
      (seen.get("budget-relaxed -> fallback (budget relaxed)") ?? 0) +
        (seen.get("ok -> fallback (budget relaxed)") ?? 0),
    ).toBeGreaterThan(5);
  });

  it("phase 2 cut short keeps phase 1's optimum: the optimal value, possibly another subset", () => {
    const rng = Rng.fromSeed("node-limit-phase2");
    let optimalAtLimit = 0;
    for (let k = 0; k < 60; k++) {
      const n = 20 + rng.int(15);
      const { u, c, a } = pool(rng, n, 0, "mixed");
      const order = shuffled(rng, n);
      const free = new DeploySolver(0);
      const want = free.solve(u, c, a, n, 1.5, 4, order);
      if (want.method !== "branch-and-bound" || want.status !== "ok") continue;
      const got = new DeploySolver(0, free.visits - 1).solve(u, c, a, n, 1.5, 4, order);
      expect(got.status).toBe("node-limit");
      if (Math.abs(got.value - want.value) <= 1e-12) optimalAtLimit++;
    }
    expect(optimalAtLimit).toBeGreaterThan(20);
  });
});

describe("StageRoute option searchNodeLimit", () => {
  it("a boundary that hits it: status node-limit, counted, routable within budget; the snapshot keeps both", () => {
    // 50 models, M_max 16, caps 0.05 / 0.5: the unlimited search bounds about 710,000 nodes here.
    // 20,000 search-tree nodes find a subset (its incumbent) before the limit.
    const p = StageRoute.fromJSON(poised(50, 16, { searchNodeLimit: 20_000 }));
    expect(p.config.searchNodeLimit).toBe(20_000);
    expect(p.nodeLimitBoundaries).toBe(0);
    p.update(p.select(), { reward: 0.5, cost: 0.5 });
    expect(p.deployment?.status).toBe("node-limit");
    expect(p.deployment?.method).toBe("branch-and-bound");
    expect(p.nodeLimitBoundaries).toBe(1);
    expect(p.deployedArms.length).toBeLessThanOrEqual(16);
    const snap = p.toJSON();
    expectRoutable(StageRoute.fromJSON(snap));
    const config = (snap.state as { config: Record<string, unknown> }).config;
    expect(config.searchNodeLimit).toBe(20_000);
    expect((snap.state as { lastDeployment: { status: string } }).lastDeployment.status).toBe("node-limit");
    const again = StageRoute.fromJSON(JSON.parse(JSON.stringify(snap)));
    expect(JSON.stringify(again.toJSON())).toBe(JSON.stringify(snap));
    expect(again.deployment?.status).toBe("node-limit");
    // Counted since construction or restore, like fallbackRounds.
    expect(again.nodeLimitBoundaries).toBe(0);
    expect(again.config.searchNodeLimit).toBe(20_000);
  });

  it("a limit of 1 on a budget-relaxed boundary (500 models, M_max 4): the fallback subset, routable", () => {
    const p = StageRoute.fromJSON(poised(500, 4, { searchNodeLimit: 1 }));
    p.update(p.select(), { reward: 0.5, cost: 0.5 });
    expect(p.deployment?.status).toBe("node-limit");
    expect(p.deployment?.method).toBe("fallback");
    expect(p.nodeLimitBoundaries).toBe(1);
    let caps = 0;
    for (const id of p.deployedArms) caps += p.stats(id).maxShare;
    expect(caps).toBeGreaterThanOrEqual(1 - 1e-12);
  });

  it("never reached: every deployment and the whole state bit for bit as without it (2,000 rounds, branch-and-bound at every boundary)", () => {
    const n = 16;
    const rng = Rng.fromSeed("never-reached");
    const quality = Array.from({ length: n }, () => rng.uniform());
    const arms = quality.map((_, i) => `m${i}`);
    const maxShare: Record<string, number> = {};
    arms.forEach((a, i) => {
      maxShare[a] = i % 5 === 0 ? 0.5 : 0.1;
    });
    const opts: StageRouteOptions = {
      arms,
      budget: 1,
      maxDeployed: 4,
      stageLength: 25,
      maxShare,
      enumLimit: 0,
      seed: 3,
    };
    const plain = new StageRoute(opts);
    const limited = new StageRoute({ ...opts, searchNodeLimit: 1e9 });
    const methods = new Set<string>();
    const coin = Rng.fromSeed("coins");
    for (let t = 0; t < 2000; t++) {
      const d1 = plain.select();
      const d2 = limited.select();
      expect(d2).toEqual(d1);
      const i = Number(d1.arm.slice(1));
      const fb = {
        reward: coin.uniform() < (quality[i] as number) ? 1 : 0,
        cost: 0.2 + 2 * (quality[i] as number) ** 2,
      };
      plain.update(d1, fb);
      limited.update(d2, fb);
      expect(limited.deployment).toEqual(plain.deployment);
      methods.add(plain.deployment?.method ?? "");
    }
    expect(methods.has("branch-and-bound")).toBe(true);
    expect(limited.nodeLimitBoundaries).toBe(0);
    const a = plain.toJSON().state as { config: Record<string, unknown> };
    const b = limited.toJSON().state as { config: Record<string, unknown> };
    expect(b.config.searchNodeLimit).toBe(1e9);
    expect("searchNodeLimit" in a.config).toBe(false); // unset: not written, as before the option existed
    delete b.config.searchNodeLimit;
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("validation: a positive safe integer or Infinity; 0, negative, fractional OUT_OF_RANGE, NaN NON_FINITE, a string INVALID_ARGUMENT; nothing built", () => {
    const req = { arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 10 };
    const code = (v: unknown): string | undefined => {
      try {
        new StageRoute({ ...req, searchNodeLimit: v as number });
        return undefined;
      } catch (e) {
        if (isRouteKitError(e)) return e.code;
        throw e;
      }
    };
    for (const v of [1, 1000, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY, undefined])
      expect(code(v)).toBeUndefined();
    for (const v of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NEGATIVE_INFINITY]) {
      expect(code(v), String(v)).toBe(v === Number.NEGATIVE_INFINITY ? "NON_FINITE" : "OUT_OF_RANGE");
    }
    expect(code(Number.NaN)).toBe("NON_FINITE");
    expect(code("100")).toBe("INVALID_ARGUMENT");
    expect(new StageRoute(req).config.searchNodeLimit).toBe(Number.POSITIVE_INFINITY);
    const unlimited = new StageRoute({ ...req, searchNodeLimit: Number.POSITIVE_INFINITY }).toJSON().state as {
      config: Record<string, unknown>;
    };
    expect("searchNodeLimit" in unlimited.config).toBe(false);
  });

  it("a snapshot written before the option existed (no searchNodeLimit, no deploySolver in its config) restores with no limit", () => {
    const p = new StageRoute({ arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 10 });
    const st = structuredClone(p.toJSON().state) as { config: Record<string, unknown> };
    delete st.config.searchNodeLimit;
    delete st.config.deploySolver;
    const old = makeSnapshot(StageRoute.kind, 1, st as never);
    const q = StageRoute.fromJSON(old);
    expect(q.config.searchNodeLimit).toBe(Number.POSITIVE_INFINITY);
    expect(q.config.deploySolver).toBe(null);
    // A bad value in a snapshot is SNAPSHOT_CORRUPT.
    st.config.searchNodeLimit = 0;
    expect(() => StageRoute.fromJSON(makeSnapshot(StageRoute.kind, 1, st as never))).toThrow(
      expect.objectContaining({ code: "SNAPSHOT_CORRUPT" }),
    );
  });
});
