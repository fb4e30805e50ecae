// An outside tester's probes of the README's promises: each test here failed before its fix.
import { type ArmPolicy, learnedState, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { family } from "./family.js";

const learned = (p: ArmPolicy) => JSON.stringify(learnedState(p.toJSON()));

describe.each(family)("$name: a reward of -0", (m) => {
  it("update equals learn of the event read back from JSON (which writes -0 as 0), bit for bit", () => {
    const a = m.make({ arms: ["a", "b"], seed: 1 });
    const b = m.make({ arms: ["a", "b"], seed: 1 });
    const rng = Rng.fromSeed(3);
    for (let t = 0; t < 40; t++) {
      const d = a.select(new Float64Array([rng.normal(), rng.normal(), rng.normal()]));
      // -0 is what a score computed as 0 * x, or -(0), or rounded from a tiny negative number can be.
      const fb = { reward: t % 3 === 0 ? -0 : rng.uniform(), cost: t % 2 === 0 ? -0 : 1 };
      const event = JSON.parse(JSON.stringify({ ...a.decisionRecord(d), feedback: fb }));
      a.update(d, fb);
      b.learn(event);
    }
    expect(learned(b)).toBe(learned(a));
  });
});
