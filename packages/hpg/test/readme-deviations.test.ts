/**
 * Two sentences of the README's "Deviations from the paper" that no other test checked: EXP3's reward map
 * (r + 1) / 2, and parameter-free HPG's cap of a late bet at half the current wealth.
 */
import { describe, expect, it } from "vitest";
import { Exp3, ParameterFreeHpg } from "../src/index.js";

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
