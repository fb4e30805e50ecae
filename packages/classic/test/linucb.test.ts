import { type ArmDecision, Rng } from "@routekit/core";
import { choleskyFactor, choleskySolve } from "@routekit/linalg";
import { describe, expect, it } from "vitest";
import { LinUCBDisjoint, LinUCBShared } from "../src/index.js";

/** Dense ridge model rebuilt from scratch: A = lambda I + sum z z^T, b = sum r z. */
class DirectRidge {
  A: Float64Array;
  b: Float64Array;
  constructor(
    public n: number,
    readonly lambda: number,
  ) {
    this.A = new Float64Array(n * n);
    for (let i = 0; i < n; i++) this.A[i * n + i] = lambda;
    this.b = new Float64Array(n);
  }
  /** Grows to n2 coordinates (new ones start at lambda e_j). */
  grow(n2: number): void {
    const A = new Float64Array(n2 * n2);
    for (let i = 0; i < n2; i++) A[i * n2 + i] = this.lambda;
    for (let i = 0; i < this.n; i++) for (let j = 0; j < this.n; j++) A[i * n2 + j] = this.A[i * this.n + j] as number;
    const b = new Float64Array(n2);
    b.set(this.b);
    this.A = A;
    this.b = b;
    this.n = n2;
  }
  add(z: Float64Array, r: number): void {
    const n = this.n;
    for (let i = 0; i < n; i++) {
      this.b[i] = (this.b[i] as number) + r * (z[i] as number);
      for (let j = 0; j < n; j++)
        this.A[i * n + j] = (this.A[i * n + j] as number) + (z[i] as number) * (z[j] as number);
    }
  }
  solve(v: Float64Array): Float64Array {
    const L = new Float64Array(this.n * this.n);
    expect(choleskyFactor(this.A, this.n, L)).toBe(true);
    const out = new Float64Array(this.n);
    choleskySolve(L, this.n, v, out);
    return out;
  }
  ucb(z: Float64Array, alpha: number): number {
    const theta = this.solve(this.b);
    const u = this.solve(z);
    let m = 0;
    let q = 0;
    for (let i = 0; i < this.n; i++) {
      m += (theta[i] as number) * (z[i] as number);
      q += (u[i] as number) * (z[i] as number);
    }
    return m + alpha * Math.sqrt(q);
  }
}

/** The policy's pick must reach the best direct score (ties are broken at random). */
function expectBest(scores: number[], arms: string[], picked: string): void {
  const best = Math.max(...scores);
  const mine = scores[arms.indexOf(picked)] as number;
  expect(best - mine).toBeLessThan(1e-9 * (1 + Math.abs(best)));
}

function maxRelErr(a: Float64Array, b: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++)
    m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)) / (1 + Math.abs(b[i] as number)));
  return m;
}

describe("LinUCBDisjoint", () => {
  it("matches per-arm ridge regression rebuilt from scratch, with late and out-of-order feedback", () => {
    const d = 5;
    const alpha = 0.8;
    const ridge = 0.5;
    const arms = ["a", "b", "c"];
    const p = new LinUCBDisjoint({ arms, contextDim: d, exploration: alpha, ridge, seed: 1 });
    const direct = new Map(arms.map((a) => [a, new DirectRidge(d, ridge)]));
    const rng = Rng.fromSeed(2);
    const pending: { dec: ArmDecision; x: Float64Array }[] = [];
    for (let t = 0; t < 400; t++) {
      const x = rng.fillNormal(new Float64Array(d));
      const scores = arms.map((a) => (direct.get(a) as DirectRidge).ucb(x, alpha));
      const dec = p.select(x);
      expectBest(scores, arms, dec.arm);
      pending.push({ dec, x });
      // Feedback for a random pending decision, sometimes several: u reuse and recompute paths.
      const k = rng.int(3);
      for (let j = 0; j < k && pending.length > 0; j++) {
        const [done] = pending.splice(rng.int(pending.length), 1);
        const { dec: dd, x: xx } = done as { dec: ArmDecision; x: Float64Array };
        const r = xx[arms.indexOf(dd.arm)] as number;
        p.update(dd, { reward: r });
        (direct.get(dd.arm) as DirectRidge).add(xx, r);
      }
    }
    for (const a of arms) {
      const dr = direct.get(a) as DirectRidge;
      expect(maxRelErr(p.theta(a), dr.solve(dr.b))).toBeLessThan(1e-9);
    }
  });

  it("learns each arm's weight vector", () => {
    const d = 3;
    const p = new LinUCBDisjoint({ arms: ["a", "b"], contextDim: d, seed: 3 });
    const w = { a: [1, 0, -1], b: [0, 1, 0.5] };
    const rng = Rng.fromSeed(5);
    for (let t = 0; t < 2000; t++) {
      const x = rng.fillNormal(new Float64Array(d));
      const dec = p.select(x);
      const ww = w[dec.arm as "a" | "b"];
      p.update(dec, { reward: ww[0]! * x[0]! + ww[1]! * x[1]! + ww[2]! * x[2]! + 0.05 * rng.normal() });
    }
    for (const a of ["a", "b"] as const) {
      const th = p.theta(a);
      for (let i = 0; i < d; i++) expect(Math.abs((th[i] as number) - w[a][i]!)).toBeLessThan(0.05);
    }
  });
});

describe("LinUCBShared", () => {
  it("matches one ridge model on [x; one-hot] rebuilt from scratch, across capacity growth", () => {
    const d = 4;
    const alpha = 1.3;
    const ridge = 2;
    const arms = ["a", "b", "c"];
    const p = new LinUCBShared({ arms, contextDim: d, exploration: alpha, ridge, maxArms: 2, seed: 4 });
    expect(p.capacity).toBe(4);
    const slots = new Map(arms.map((a, i) => [a, i]));
    const direct = new DirectRidge(d + arms.length, ridge);
    const rng = Rng.fromSeed(6);
    const pending: { dec: ArmDecision; x: Float64Array }[] = [];
    const z = (x: Float64Array, arm: string): Float64Array => {
      const out = new Float64Array(direct.n);
      out.set(x);
      out[d + (slots.get(arm) as number)] = 1;
      return out;
    };
    for (let t = 0; t < 400; t++) {
      if (t === 150 || t === 200 || t === 250) {
        const id = `n${t}`;
        p.addArm(id);
        arms.push(id);
        slots.set(id, slots.size);
        direct.grow(direct.n + 1);
      }
      if (t === 300) {
        p.removeArm("b");
        arms.splice(arms.indexOf("b"), 1);
      }
      const x = rng.fillNormal(new Float64Array(d));
      const scores = arms.map((a) => direct.ucb(z(x, a), alpha));
      const dec = p.select(x);
      expectBest(scores, arms, dec.arm);
      pending.push({ dec, x });
      const k = rng.int(3);
      for (let j = 0; j < k && pending.length > 0; j++) {
        const [done] = pending.splice(rng.int(pending.length), 1);
        const { dec: dd, x: xx } = done as { dec: ArmDecision; x: Float64Array };
        const r = (xx[0] as number) + (dd.arm === "a" ? 0.5 : 0) + 0.1 * rng.normal();
        p.update(dd, { reward: r });
        if (arms.includes(dd.arm)) direct.add(z(xx, dd.arm), r);
      }
    }
    expect(p.capacity).toBe(8);
    expect(maxRelErr(p.theta(), direct.solve(direct.b))).toBeLessThan(1e-9);
  });

  it("cannot represent context-dependent rankings (the per-arm model can)", () => {
    // Arm a pays x0, arm b pays -x0: a shared linear model plus offsets sees no difference.
    const d = 2;
    const rng = Rng.fromSeed(11);
    const shared = new LinUCBShared({ arms: ["a", "b"], contextDim: d, seed: 1 });
    const disjoint = new LinUCBDisjoint({ arms: ["a", "b"], contextDim: d, seed: 1 });
    const right = { shared: 0, disjoint: 0 };
    for (let t = 0; t < 3000; t++) {
      const x = rng.fillNormal(new Float64Array(d));
      const best = (x[0] as number) > 0 ? "a" : "b";
      for (const [name, p] of [
        ["shared", shared],
        ["disjoint", disjoint],
      ] as const) {
        const dec = p.select(x);
        if (t >= 2000 && dec.arm === best) right[name]++;
        p.update(dec, { reward: (dec.arm === "a" ? 1 : -1) * (x[0] as number) });
      }
    }
    expect(right.disjoint / 1000).toBeGreaterThan(0.95);
    expect(right.shared / 1000).toBeLessThan(0.7);
  });
});
