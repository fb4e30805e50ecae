import { describe, expect, it } from "vitest";
import { LogLinearPg } from "../src/index.js";

describe("outside audit: LogLinearPg at the top of its step-size range", () => {
  it("a step size near the largest double keeps every coefficient finite: select never fails, snapshots read back", () => {
    for (const stepSize of [1e308, Number.MAX_VALUE, 1e200]) {
      const p = new LogLinearPg({ arms: ["a", "b", "c"], contextDim: 2, stepSize, seed: 4 });
      for (let t = 0; t < 40; t++) {
        const q = t % 3 === 0 ? [1, 0] : t % 3 === 1 ? [-0.6, 0.8] : [0, -1];
        const d = p.select(q); // threw NUMERICAL ("no positive entry") once a coefficient was Infinity
        p.update(d, { reward: t % 2 === 0 ? 1 : -1 });
        const probs = p.probabilities([0.6, 0.8]);
        expect(probs.every((v) => v >= 0 && v <= 1)).toBe(true);
        expect(Math.abs(probs.reduce((s, v) => s + v, 0) - 1)).toBeLessThan(1e-12);
      }
      const json = JSON.stringify(p.toJSON());
      expect(JSON.stringify(LogLinearPg.fromJSON(JSON.parse(json)).toJSON())).toBe(json);
    }
  });
});
