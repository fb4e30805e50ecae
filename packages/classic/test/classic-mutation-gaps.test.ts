/**
 * Tests added by a targeted mutation-testing pass: each one fails on a mutant the rest of the suite let
 * survive (named in the test), and passes on the code as it is.
 */
import { ErrorCode } from "@routekit/core";
import { thrownCode as codeOf } from "@routekit/core/testing";
import { describe, expect, it } from "vitest";
import { EpsilonGreedy, LinUCBShared, ThompsonGaussian, UCB1 } from "../src/index.js";

describe("counting policies: a reward that would overflow the arm's sum", () => {
  // Mutant: the overflow guard of CountingPolicy.applyFeedback removed (the second reward was accepted and the
  // arm's sum became Infinity).
  for (const make of [
    () => new UCB1({ arms: ["a"], seed: 1 }),
    () => new EpsilonGreedy({ arms: ["a"], seed: 1 }),
    () => new ThompsonGaussian({ arms: ["a"], seed: 1 }),
  ]) {
    const name = make().kind;
    it(`${name}: is NUMERICAL, changes nothing, and the policy still restores`, () => {
      const p = make();
      p.update(p.select(), { reward: 1e308 });
      const d = p.select();
      const before = JSON.stringify(p.toJSON());
      expect(codeOf(() => p.update(d, { reward: 1e308 }))).toBe(ErrorCode.Numerical);
      expect(JSON.stringify(p.toJSON())).toBe(before);
      expect(p.armStats("a")).toEqual({ n: 1, sum: 1e308, mean: 1e308 });
      // The refused feedback left the decision pending: a reward that fits is still taken.
      p.update(d, { reward: -1e308 });
      expect(p.armStats("a")).toEqual({ n: 2, sum: 0, mean: 0 });
      expect(() => (p.constructor as typeof UCB1).fromJSON(p.toJSON())).not.toThrow();
    });
  }
});

describe("EpsilonGreedy: the propensity of a pick shared by tied greedy arms", () => {
  // Mutant: the greedy share (1 - epsilon) not divided by the number of tied greedy arms (the propensity of a
  // pick among three untried arms was 0.8 instead of 1/3 at epsilon 0.3).
  it("is epsilon / K + (1 - epsilon) / ties, and the propensities of the K arms sum to 1", () => {
    const eps = 0.3;
    const p = new EpsilonGreedy({ arms: ["a", "b", "c"], epsilon: eps, seed: 3 });
    // No feedback yet: all three arms are greedy (+Infinity), so every pick has probability 1/3.
    for (let i = 0; i < 5; i++) expect(p.select().propensity).toBeCloseTo(1 / 3, 12);
    // Means a = b = 1 > c = 0: a and b tie for the greedy pick.
    const fed = new Set<string>();
    const want: Record<string, number> = { a: 1, b: 1, c: 0 };
    for (let i = 0; i < 200 && fed.size < 3; i++) {
      const d = p.select();
      if (fed.has(d.arm)) continue;
      p.update(d, { reward: want[d.arm] as number });
      fed.add(d.arm);
    }
    expect(fed.size).toBe(3);
    const seen: Record<string, number> = {};
    for (let i = 0; i < 300; i++) {
      const d = p.select();
      seen[d.arm] = d.propensity as number;
    }
    expect(seen.a).toBeCloseTo(eps / 3 + (1 - eps) / 2, 12);
    expect(seen.b).toBeCloseTo(eps / 3 + (1 - eps) / 2, 12);
    expect(seen.c).toBeCloseTo(eps / 3, 12);
    expect((seen.a as number) + (seen.b as number) + (seen.c as number)).toBeCloseTo(1, 12);
  });
});

describe("ThompsonGaussian: posterior when priorVariance / noiseVariance * n overflows", () => {
  // Mutant: the overflow branch's variance noiseVariance / n written as noiseVariance (the data-dominated
  // posterior N(sum / n, noise / n) did not narrow with n).
  it("is N(sum / n, noiseVariance / n)", () => {
    const p = new ThompsonGaussian({ arms: ["a"], priorVariance: 1e300, noiseVariance: 1e-300, seed: 5 });
    const rewards = [1, 2, 3, 6];
    for (const r of rewards) p.update(p.select(), { reward: r });
    const post = p.posterior("a");
    expect(post.mean).toBe(3);
    expect(post.variance).toBe(1e-300 / 4);
  });
});

describe("LinUCBShared: a refused update leaves the feature scratch clean", () => {
  // Mutant: the catch of applyFeedback no longer resets z[j] = 0, so the one-hot entry of the refused arm stayed
  // set and the next update of another arm learned on [x; e_a + e_b] instead of [x; e_b].
  it("the next update of another arm learns exactly what it learns without the refused one", () => {
    const make = () => new LinUCBShared({ arms: ["a", "b"], contextDim: 2, seed: 7 });
    const p = make();
    const q = make();
    const x = new Float64Array([1, 0]);
    const d1 = p.select(x);
    const rec = p.decisionRecord(d1);
    p.update(d1, { reward: 1.7e308 });
    q.learn({ ...rec, feedback: { reward: 1.7e308 } });
    expect(Array.from(p.theta())).toEqual(Array.from(q.theta()));
    // The same arm again with a reward of the other sign: theta += coef u overflows, NUMERICAL, nothing applied.
    const d2 = p.select(x);
    expect(d2.arm).toBe(d1.arm);
    const before = JSON.stringify(p.toJSON().state);
    expect(codeOf(() => p.update(d2, { reward: -1.7e308 }))).toBe(ErrorCode.Numerical);
    expect(JSON.stringify(p.toJSON().state)).toBe(before);
    // Then feedback for the other arm, on both policies.
    const other = d1.arm === "a" ? "b" : "a";
    for (const [ctx, reward] of [
      [[0.3, 0.7], 1],
      [[1, 1], 0.5],
    ] as const) {
      const event = { ...rec, decision: { ...rec.decision, arm: other, context: [...ctx] }, feedback: { reward } };
      p.learn(event);
      q.learn(event);
      expect(Array.from(p.theta())).toEqual(Array.from(q.theta()));
    }
  });
});
