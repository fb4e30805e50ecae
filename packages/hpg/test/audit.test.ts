import { describe, expect, it } from "vitest";
import { EuclideanPg, Hpg, LogLinearPg } from "../src/index.js";

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

describe("outside audit: the radius bounds how sharply HPG and Euclidean PG route", () => {
  it("probabilities differ by at most e^(2 tau |q|^2): slightly above e^(2 tau) for a query kept as is at norm 1 + 1e-9", () => {
    for (const Router of [Hpg, EuclideanPg]) {
      const radius = 0.5;
      const p = new Router({ arms: ["a", "b", "c"], contextDim: 3, radius, stepSize: 5, seed: 1 });
      const q = [0, 0.6, 0.8 * (1 + 1e-9)]; // |q|^2 = 1 + 1.28e-9, inside the 1e-9 norm slack: used as is
      const qq = 0.36 + 0.64 * (1 + 1e-9) ** 2;
      let worst = 0;
      for (let t = 0; t < 400; t++) {
        const x = t % 2 ? [1, 0, 0] : q;
        const d = p.select(x);
        p.update(d, { reward: d.arm === "a" ? 1 : -1 });
        const pr = p.probabilities(q);
        worst = Math.max(worst, Math.log(Math.max(...pr) / Math.min(...pr)));
      }
      expect(worst, Router.kind).toBeLessThanOrEqual(2 * radius * qq * (1 + 1e-12));
      expect(worst, Router.kind).toBeGreaterThan(2 * radius); // the ball is reached: the old "e^(2 tau)" was exceeded
    }
  });
});
