import { type ArmDecision, ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  EpsilonGreedy,
  LinUCBDisjoint,
  LinUCBShared,
  OneArmOracle,
  RandomPolicy,
  ThompsonBernoulli,
  ThompsonGaussian,
  UCB1,
} from "../src/index.js";
import { expectRejects } from "./helpers.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("options", () => {
  it("are validated with typed errors", () => {
    const arms = ["a", "b"];
    expect(code(() => new EpsilonGreedy({ arms, epsilon: 1.5 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new EpsilonGreedy({ arms, decay: "log" as never }))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => new UCB1({ arms, exploration: -1 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new UCB1({ arms, exploration: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(code(() => new UCB1({ arms, contextDim: -1 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new UCB1({ arms: "ab" as never }))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => new UCB1({ arms: ["a", "a"] }))).toBe(ErrorCode.DuplicateArm);
    expect(code(() => new ThompsonBernoulli({ arms, priorAlpha: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new ThompsonGaussian({ arms, noiseVariance: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new LinUCBDisjoint({ arms, contextDim: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new LinUCBDisjoint({ arms, contextDim: 3, ridge: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new LinUCBShared({ arms, contextDim: 3, maxArms: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new OneArmOracle({ arms, arm: "z" }))).toBe(ErrorCode.UnknownArm);
  });
});

describe("RandomPolicy", () => {
  it("picks uniformly with propensity 1/K", () => {
    const p = new RandomPolicy({ arms: ["a", "b", "c", "d"], seed: 3 });
    const counts = new Map<string, number>();
    const n = 8000;
    for (let t = 0; t < n; t++) {
      const d = p.select();
      expect(d.propensity).toBe(0.25);
      counts.set(d.arm, (counts.get(d.arm) ?? 0) + 1);
      p.update(d, { reward: 1 });
    }
    // Binomial(8000, 1/4): sd ~ 38.7; 5 sd margin.
    for (const c of counts.values()) expect(Math.abs(c - n / 4)).toBeLessThan(5 * 38.7);
  });
});

describe("EpsilonGreedy", () => {
  it("reports the exact probability of each pick", () => {
    const p = new EpsilonGreedy({ arms: ["a", "b", "c", "d"], epsilon: 0.3, seed: 5 });
    // Give a and b the same best mean (a tie) and c, d lower ones.
    for (const [arm, r] of [
      ["a", 1],
      ["b", 1],
      ["c", 0],
      ["d", 0.5],
    ] as const) {
      let d: ArmDecision;
      do {
        d = p.select();
        if (d.arm !== arm) p.update(d, { reward: arm === "a" || arm === "b" ? 0 : 1 });
      } while (d.arm !== arm);
      p.update(d, { reward: r });
    }
    // Now freeze the statistics: select without updating.
    const stats = ["a", "b", "c", "d"].map((a) => p.armStats(a).mean);
    const best = Math.max(...stats);
    const ties = stats.filter((m) => m === best).length;
    const expected = stats.map((m) => 0.3 / 4 + (m === best ? 0.7 / ties : 0));
    const n = 20000;
    const counts = [0, 0, 0, 0];
    for (let t = 0; t < n; t++) {
      const d = p.select();
      const i = ["a", "b", "c", "d"].indexOf(d.arm);
      expect(d.propensity).toBeCloseTo(expected[i] as number, 14);
      counts[i]++;
    }
    expect(expected.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 14);
    for (let i = 0; i < 4; i++) {
      const q = expected[i] as number;
      expect(Math.abs((counts[i] as number) - n * q)).toBeLessThan(5 * Math.sqrt(n * q * (1 - q)));
    }
  });

  it("tries arms without feedback first and decays epsilon as min(1, eps K / t)", () => {
    const p = new EpsilonGreedy({ arms: ["a", "b", "c"], epsilon: 0, seed: 1 });
    const first = new Set<string>();
    for (let t = 0; t < 3; t++) {
      const d = p.select();
      first.add(d.arm);
      p.update(d, { reward: 0.5 });
    }
    expect(first.size).toBe(3);
    const q = new EpsilonGreedy({ arms: ["a", "b", "c"], epsilon: 2 / 3, decay: "1/t", seed: 1 });
    expect(q.currentEpsilon).toBe(1);
    for (let t = 1; t <= 10; t++) {
      expect(q.currentEpsilon).toBeCloseTo(Math.min(1, 2 / t), 14);
      q.update(q.select(), { reward: 0 });
    }
  });
});

describe("UCB1", () => {
  it("plays each arm once, then argmax of mean + c sqrt(ln t / n)", () => {
    const c = 0.7;
    const p = new UCB1({ arms: ["a", "b", "c"], exploration: c, seed: 2 });
    const rng = Rng.fromSeed(4);
    const n = new Map<string, number>();
    const sum = new Map<string, number>();
    const firstThree = new Set<string>();
    for (let t = 0; t < 300; t++) {
      const d = p.select();
      if (t < 3) firstThree.add(d.arm);
      else {
        let best = "";
        let bv = Number.NEGATIVE_INFINITY;
        for (const a of ["a", "b", "c"]) {
          const na = n.get(a) as number;
          const v = (sum.get(a) as number) / na + c * Math.sqrt(Math.log(t) / na);
          if (v > bv) {
            bv = v;
            best = a;
          }
        }
        expect(d.arm).toBe(best);
      }
      const r = d.arm === "b" ? rng.uniform() : 0.4 * rng.uniform();
      n.set(d.arm, (n.get(d.arm) ?? 0) + 1);
      sum.set(d.arm, (sum.get(d.arm) ?? 0) + r);
      p.update(d, { reward: r });
    }
    expect(firstThree.size).toBe(3);
  });

  it("gives the same state whatever order late feedback arrives in", () => {
    const a = new UCB1({ arms: ["x", "y", "z"], seed: 9 });
    const b = new UCB1({ arms: ["x", "y", "z"], seed: 9 });
    const da = Array.from({ length: 50 }, () => a.select());
    const db = Array.from({ length: 50 }, () => b.select());
    expect(db.map((d) => d.arm)).toEqual(da.map((d) => d.arm));
    const reward = (i: number) => (i * 7919) % 2;
    for (let i = 0; i < 50; i++) a.update(da[i] as ArmDecision, { reward: reward(i) });
    for (let i = 49; i >= 0; i--) b.update(db[i] as ArmDecision, { reward: reward(i) });
    expect(JSON.stringify(b.toJSON())).toBe(JSON.stringify(a.toJSON()));
  });
});

describe("Thompson sampling", () => {
  it("Beta-Bernoulli: fractional counts or the Bernoulli trick; rewards outside [0, 1] rejected", () => {
    const f = new ThompsonBernoulli({ arms: ["a"], fractionalRewards: "fractional" });
    for (const r of [0.25, 0.5, 1, 0]) f.update(f.select(), { reward: r });
    expect(f.armStats("a")).toEqual({ n: 4, sum: 1.75, mean: 0.4375 });
    const b = new ThompsonBernoulli({ arms: ["a"], seed: 3 });
    for (let i = 0; i < 4000; i++) b.update(b.select(), { reward: 0.3 });
    const s = b.armStats("a");
    expect(Number.isInteger(s.sum)).toBe(true);
    expect(Math.abs(s.mean - 0.3)).toBeLessThan(5 * Math.sqrt(0.21 / 4000));
    const d = b.select();
    expectRejects(b, () => b.update(d, { reward: 1.01 }), ErrorCode.OutOfRange);
    expectRejects(b, () => b.update(d, { reward: -0.01 }), ErrorCode.OutOfRange);
  });

  it("Beta-Bernoulli samples follow the posterior", () => {
    // With one arm against a known constant arm the pick frequency is P(Beta(a, b) > theta).
    const p = new ThompsonBernoulli({ arms: ["a", "b"], priorAlpha: 3, priorBeta: 1, seed: 8 });
    // Prior means 0.75 for both: P(a wins) = 1/2.
    let wins = 0;
    const n = 10000;
    for (let t = 0; t < n; t++) if (p.select().arm === "a") wins++;
    expect(Math.abs(wins - n / 2)).toBeLessThan(5 * Math.sqrt(n / 4));
  });

  it("Gaussian posterior is the conjugate normal update", () => {
    const p = new ThompsonGaussian({ arms: ["a", "b"], priorMean: 1, priorVariance: 4, noiseVariance: 0.5 });
    const rs = [0.2, 0.9, -0.3];
    for (const r of rs) {
      let d: ArmDecision;
      do {
        d = p.select();
        if (d.arm !== "a") p.update(d, { reward: 0 });
      } while (d.arm !== "a");
      p.update(d, { reward: r });
    }
    const prec = 1 / 4 + 3 / 0.5;
    const post = p.posterior("a");
    expect(post.variance).toBeCloseTo(1 / prec, 14);
    expect(post.mean).toBeCloseTo((1 / 4 + (0.2 + 0.9 - 0.3) / 0.5) / prec, 14);
  });
});

describe("OneArmOracle", () => {
  it("always plays its arm with propensity 1", () => {
    const p = new OneArmOracle({ arms: ["a", "b", "c"], arm: "b" });
    for (let t = 0; t < 20; t++) {
      const d = p.select();
      expect(d).toMatchObject({ arm: "b", propensity: 1 });
      p.update(d, { reward: t });
    }
    expect(p.armStats("b").n).toBe(20);
  });
});
