/**
 * README sentences no other test checked: EXP3's reward map
 * (r + 1) / 2, parameter-free HPG's cap of a late bet at half the current wealth, and the norm slack of a query.
 */

import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { Exp3, Hpg, ParameterFreeHpg } from "../src/index.js";

interface ArmState {
  readonly id: string;
  readonly logWeight?: number;
  readonly coin?: string;
}
const arms = (p: { toJSON(): unknown }) => (p.toJSON() as { state: { arms: ArmState[] } }).state.arms;

describe("README: EXP3 maps rewards from [-1, 1] to [0, 1] with (r + 1) / 2", () => {
  it("the chosen model's log weight grows by gamma ((r + 1) / 2) / p / M, the others' not at all", () => {
    for (const reward of [-1, -0.5, 0, 0.25, 1]) {
      const r = new Exp3({ arms: ["a", "b", "c"], contextDim: 2, gamma: 0.3, seed: 4 });
      const d = r.select(Float64Array.of(0.6, 0.8));
      r.update(d, { reward });
      for (const s of arms(r)) {
        const expected = s.id === d.arm ? (0.3 * ((reward + 1) / 2 / (d.propensity as number))) / 3 : 0;
        expect(s.logWeight, `reward ${reward}, model ${s.id}`).toBe(expected);
      }
    }
  });
});

describe("README: parameter-free HPG caps a late bet at half the current wealth, so the wealth stays positive", () => {
  it("feedback for many decisions made at a high wealth, arriving after the wealth fell, is learned and keeps it > 0", () => {
    const wealth = (p: ParameterFreeHpg) =>
      arms(p).map(
        (s) => new Float64Array(Uint8Array.from(Buffer.from(s.coin as string, "base64")).buffer)[0] as number,
      );
    const p = new ParameterFreeHpg({ arms: ["a", "b"], contextDim: 2, seed: 3, horizon: 1000 });
    const q = Float64Array.of(1, 0);
    // Grow both coins' wealth and bets: "a" is right on q.
    for (let t = 0; t < 300; t++) {
      const d = p.select(q);
      p.update(d, { reward: d.arm === "a" ? 1 : -1 });
    }
    // Many decisions at that wealth, then their feedback reversed: every bet loses, the wealth falls below twice
    // the later bets, which the cap must absorb (an uncapped bet is OUT_OF_RANGE in CoinBetting.update).
    const pending = Array.from({ length: 400 }, () => p.select(q));
    // The bets played (decision.state.aux holds each model's inner score and bet).
    const bets = pending.flatMap((d) => {
      const aux = (p.decisionRecord(d).decision.state as { aux: number[] }).aux;
      return aux.filter((_, i) => i % 2 === 1).map(Math.abs);
    });
    for (const d of pending) p.update(d, { reward: d.arm === "a" ? -1 : 1 });
    const after = wealth(p);
    for (const w of after) expect(w).toBeGreaterThan(0);
    // Measured: bets up to 5.8 at a wealth of 11.65, final wealth 7.14: the late bets exceed half of it.
    expect(Math.max(...bets)).toBeGreaterThan(0.5 * Math.min(...after));
    const json = JSON.stringify(p.toJSON());
    expect(JSON.stringify(ParameterFreeHpg.fromJSON(JSON.parse(json)).toJSON())).toBe(json);
  });
});

describe("README options: normalizeContext false takes norms up to 1 + 1e-6 (scaled past 1 + 1e-9), rejects above", () => {
  it("(1 + d) e_1: as is for d = 5e-10, scaled onto e_1 for d = 9e-7, OUT_OF_RANGE with nothing changed for d = 1.1e-6", () => {
    const p = new Hpg({ arms: ["a", "b"], contextDim: 4, seed: 2, horizon: 500 });
    const rng = Rng.fromSeed(5);
    for (let t = 0; t < 200; t++) {
      const q = Float64Array.from({ length: 4 }, (_, i) => (i === 0 ? 1 : 0.3 * rng.normal()));
      let n = 0;
      for (const v of q) n += v * v;
      for (let i = 0; i < 4; i++) q[i] = (q[i] as number) / Math.sqrt(n);
      const d = p.select(q);
      p.update(d, { reward: d.arm === "a" ? 1 : 0 });
    }
    const along = (delta: number) => Float64Array.of(1 + delta, 0, 0, 0);
    const unit = Array.from(p.probabilities(along(0)));
    expect(unit[0]).toBeGreaterThan(0.6); // learned: the scores are not 0, so the norm shows in the probabilities
    expect(Array.from(p.probabilities(along(5e-10)))).not.toEqual(unit); // used as is
    expect(Array.from(p.probabilities(along(9e-7)))).toEqual(unit); // scaled onto the sphere, bit for bit
    const before = JSON.stringify(p.toJSON());
    for (const call of [() => p.select(along(1.1e-6)), () => p.probabilities(along(1.1e-6))]) {
      expect(call).toThrow(expect.objectContaining({ code: "OUT_OF_RANGE" }));
    }
    expect(JSON.stringify(p.toJSON())).toBe(before);
  });
});
