/** Random DeployOPT inputs and checks shared by the branch-and-bound, node-limit and external-solver tests. */
import { makeSnapshot, Rng, type Snapshot } from "@routekit/core";
import { expect } from "vitest";
import { type DeployResult, DeploySolver } from "../src/deploy.js";
import { StageRoute } from "../src/index.js";

export function shuffled(rng: Rng, n: number): Int32Array {
  const o = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = o[i] as number;
    o[i] = o[j] as number;
    o[j] = t;
  }
  return o;
}

/**
 * A pool where better models cost more. Caps: `rate` 0.05 with one model in ten (at random) 0.5, as on
 * rate-limited pools; `small` from {0.05, 0.1, 0.25, 0.5}; `mixed` from {0.1, 0.2, 0.25, 1/3, 0.5}, one
 * model at 1; a list: drawn from it as `mixed` is. Values: kind 0 continuous; 1 on a coarse grid (exact ties); 2 near-ties (a few ulps apart);
 * 3 duplicated models (identical cost, reward and cap).
 */
export function pool(rng: Rng, n: number, kind: number, caps: "rate" | "small" | "mixed" | readonly number[]) {
  const x = Array.from({ length: n }, () => rng.uniform());
  let u = x.map((v) => 0.2 + 0.7 * v + 0.05 * rng.uniform());
  let c = x.map((v) => 0.05 + 3 * v * v + 0.1 * rng.uniform());
  const small = [0.05, 0.1, 0.25, 0.5];
  const mixed = typeof caps === "string" ? [0.1, 0.2, 0.25, 1 / 3, 0.5] : caps;
  const a = Array.from({ length: n }, (_, i) =>
    caps === "rate"
      ? rng.uniform() < 0.1
        ? 0.5
        : 0.05
      : caps === "small"
        ? (small[rng.int(small.length)] as number)
        : i === 1
          ? 1
          : (mixed[rng.int(mixed.length)] as number),
  );
  if (kind === 1) {
    u = u.map((v) => Math.round(v * 8) / 8);
    c = c.map((v) => Math.round(v * 6) / 6);
  } else if (kind === 2) {
    const base = c[0] as number;
    const ub = u[0] as number;
    for (let i = 0; i < n; i++) {
      if (rng.uniform() < 0.5) c[i] = base * (1 + (rng.int(5) - 2) * Number.EPSILON);
      if (rng.uniform() < 0.5) u[i] = ub * (1 + (rng.int(5) - 2) * Number.EPSILON);
    }
  } else if (kind === 3) {
    for (let i = 2; i < n; i++) {
      if (rng.uniform() < 0.4) {
        const j = rng.int(i);
        u[i] = u[j] as number;
        c[i] = c[j] as number;
        a[i] = a[j] as number;
      }
    }
  }
  return { u, c, a };
}

type Shape = "rate" | "small" | "mixed";

/**
 * The k-th random DeployOPT case of the branch-and-bound comparisons: caps by k mod 3, values by k / 3 mod 4 (see
 * `pool`), `size` and `slots` models and slots drawn for the shape, a budget from below the cheapest reach
 * (budget-relaxed) to slack, and a shuffled enumeration order (rng drawn in that order).
 */
export function drawCase(rng: Rng, k: number, size: (shape: Shape) => number, slots: (shape: Shape) => number) {
  const shape = (["rate", "small", "mixed"] as const)[k % 3] as Shape;
  const n = size(shape);
  const s = slots(shape);
  const { u, c, a } = pool(rng, n, Math.floor(k / 3) % 4, shape);
  const b = [0.02, 0.3, 0.6, 1, 1.5, 3][rng.int(6)] as number;
  return { shape, n, s, u, c, a, b, order: shuffled(rng, n) };
}

/**
 * Budgets at the edge of a budget-relaxed deployment's `budget` (the smallest reachable cost): itself and a few
 * ulps on either side, where the cheapest sets just pass or just fail the routing LP's budget test.
 */
export function edgeBudgets(budget: number): number[] {
  return [budget, budget * (1 - 1e-12), budget * (1 - 2e-12), budget * (1 + 4 * Number.EPSILON)];
}

/**
 * A StageRoute one feedback before a stage boundary over a pool with learned statistics (better models cost
 * more): `rate` caps 0.05, one in ten 0.5, as in the bench's sweep. `config` is merged into the snapshot's.
 */
export function poised(n: number, s: number, config: Record<string, unknown> = {}): Snapshot {
  const rng = Rng.fromSeed(`sweep-${n}-${s}`);
  const L = 200;
  const arms = Array.from({ length: n }, (_, i) => `m${i}`);
  const q = arms.map(() => rng.uniform());
  const maxShare: Record<string, number> = {};
  arms.forEach((a, i) => {
    maxShare[a] = (q[i] as number) > 0.9 ? 0.5 : 0.05;
  });
  const p = new StageRoute({ arms, budget: 1, maxDeployed: s, stageLength: L, maxShare, seed: 1 });
  const snap = p.toJSON();
  const st = structuredClone(snap.state) as Record<string, unknown> & {
    arms: { n: number; sr: number; sc: number }[];
    config: Record<string, unknown>;
  };
  let counted = 0;
  st.arms.forEach((a, i) => {
    const x = q[i] as number;
    a.n = 5 + rng.int(200);
    a.sr = a.n * (0.2 + 0.7 * x) * (0.9 + 0.1 * rng.uniform());
    a.sc = a.n * (0.05 + 3 * x * x + 0.1 * rng.uniform());
    counted += a.n;
  });
  // At least the arms' counts (restore refuses fewer), one short of a stage boundary: the next feedback ends it.
  st.learned = Math.ceil((counted + 1) / L) * L - 1;
  Object.assign(st.config, config);
  return makeSnapshot(snap.kind, snap.kindVersion, st as never);
}

/** The deployed set carries all traffic and the routing the next query samples from meets the budget. */
export function expectRoutable(p: StageRoute): void {
  let caps = 0;
  for (const id of p.deployedArms) caps += p.stats(id).maxShare;
  expect(caps).toBeGreaterThanOrEqual(1 - 1e-12);
  const r = p.routing();
  let mass = 0;
  let cost = 0;
  for (const [id, w] of Object.entries(r)) {
    mass += w;
    cost += w * p.stats(id).lcb;
  }
  expect(Math.abs(mass - 1)).toBeLessThan(1e-9);
  expect(cost).toBeLessThanOrEqual(p.config.budget * (1 + 1e-9));
  // The next query's routing LP meets the budget (not the cheapest-fill fallback).
  const fallbacks = p.fallbackRounds;
  p.select();
  expect(p.routeStatus).toBe("ok");
  expect(p.fallbackRounds).toBe(fallbacks);
}

/** Bits of a Float64Array as hex: equal strings mean equal values, -0 and NaN payloads included. */
export function bits(x: Float64Array): string {
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString("hex");
}

/** Two deployments agree bit for bit: method, status, value, budget, support and weights. */
export function expectSame(got: DeployResult, want: DeployResult): void {
  expect(got.method).toBe(want.method);
  expect(got.status).toBe(want.status);
  expect(Object.is(got.value, want.value)).toBe(true);
  expect(Object.is(got.budget, want.budget)).toBe(true);
  expect(got.support).toEqual(want.support);
  expect(bits(got.weights)).toBe(bits(want.weights));
}

/**
 * Runs the reference solve `want` and the solve under test `got`: when the reference throws, `got` must throw the
 * same message (undefined); otherwise both deployments must agree bit for bit (the reference's returned).
 */
export function solveBoth(want: () => DeployResult, got: () => DeployResult): DeployResult | undefined {
  let ref: DeployResult;
  try {
    ref = want();
  } catch (e) {
    expect(got).toThrow((e as Error).message);
    return undefined;
  }
  expectSame(got(), ref);
  return ref;
}

/** A DeploySolver whose branch-and-bound is `search` (a reference version of it, or a recording one). */
export function solverWith(search: object, enumLimit: number): DeploySolver {
  const d = new DeploySolver(enumLimit);
  (d as unknown as { search: object }).search = search;
  return d;
}

/** A deployment routes all traffic over at most s models within the caps and within its budget. */
export function expectFeasible(r: DeployResult, u: number[], c: number[], a: number[], s: number): void {
  let mass = 0;
  let capSum = 0;
  let cost = 0;
  let value = 0;
  for (const i of r.support) {
    const w = r.weights[i] as number;
    expect(w).toBeGreaterThan(0);
    expect(w).toBeLessThanOrEqual((a[i] as number) * (1 + 1e-12));
    mass += w;
    capSum += a[i] as number;
    cost += w * (c[i] as number);
    value += w * (u[i] as number);
  }
  expect(r.support.length).toBeLessThanOrEqual(s);
  expect(capSum).toBeGreaterThanOrEqual(1 - 1e-12);
  expect(Math.abs(mass - 1)).toBeLessThan(1e-9);
  expect(cost).toBeLessThanOrEqual(r.budget + 1e-9 * Math.max(1, Math.abs(r.budget)));
  expect(Math.abs(value - r.value)).toBeLessThan(1e-9);
}
