/**
 * LinUCB on extreme but valid input (an outside numerics audit): with `ridge: 1e-8`, unit contexts and rewards
 * near 1e308 the updates were accepted (b and theta stay finite) but x.A^-1 b then overflowed to +-Infinity, the
 * scores became NaN and every later select threw NUMERICAL "every arm's score is NaN": valid input bricked the
 * policy. Scores are now computed robustly (scaled arithmetic on the rare path where one is not finite), so
 * select keeps working after every accepted update; refused updates leave the state as it was.
 */
import { type ArmPolicy, ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { LinUCBDisjoint, LinUCBShared } from "../src/index.js";

type Make = (o: { ridge?: number; exploration?: number; seed?: number }) => ArmPolicy & {
  toJSON(): unknown;
};

const MAKERS: readonly [string, Make][] = [
  ["LinUCBDisjoint", (o) => new LinUCBDisjoint({ arms: ["a", "b", "c"], contextDim: 3, ...o })],
  ["LinUCBShared", (o) => new LinUCBShared({ arms: ["a", "b", "c"], contextDim: 3, ...o })],
];

function unit(rng: Rng, d: number): Float64Array {
  const x = new Float64Array(d);
  let n = 0;
  for (let i = 0; i < d; i++) {
    x[i] = rng.normal();
    n += (x[i] as number) ** 2;
  }
  for (let i = 0; i < d; i++) x[i] = (x[i] as number) / Math.sqrt(n);
  return x;
}

const REWARDS = [1e308, -1e308, 1.7e308, -1.7e308, 1e300, -1e300, 1, -1, 0];

describe("LinUCB: select keeps working after any accepted update (extreme values)", () => {
  for (const [name, make] of MAKERS) {
    it(`${name}: ridge 1e-8, unit contexts, rewards of +-1e308 (select threw NUMERICAL before)`, () => {
      const p = make({ ridge: 1e-8, seed: 1 });
      // the audit's case: the same direction rewarded 1e308, then a nearby context
      const d1 = p.select(new Float64Array([1, 0, 0]));
      p.update(d1, { reward: 1e308 });
      const d2 = p.select(new Float64Array([Math.SQRT1_2, Math.SQRT1_2, 0]));
      expect(["a", "b", "c"]).toContain(d2.arm);
      const d3 = p.select(new Float64Array([0, 0, 1]));
      expect(["a", "b", "c"]).toContain(d3.arm);
    });

    for (const ridge of [1e-8, 1e-3, 1]) {
      for (const exploration of [0, 1, 1e300]) {
        it(`${name}: ridge ${ridge}, exploration ${exploration}: 300 fuzzed steps, every select works, refusals change nothing`, () => {
          const rng = Rng.fromSeed(ridge * 1e9 + exploration + 17);
          const p = make({ ridge, exploration, seed: 3 });
          let accepted = 0;
          for (let t = 0; t < 300; t++) {
            const scale = rng.bernoulli(0.2) ? 10 ** rng.int(154) : 1;
            const x = unit(rng, 3).map((v) => v * scale);
            const d = p.select(x); // must not throw
            expect(["a", "b", "c"]).toContain(d.arm);
            const reward = rng.bernoulli(0.7)
              ? (REWARDS[rng.int(REWARDS.length)] as number)
              : rng.normal() * 10 ** rng.int(308);
            const before = JSON.stringify(p.toJSON());
            try {
              p.update(d, { reward });
              accepted++;
            } catch (e) {
              expect(isRouteKitError(e, ErrorCode.Numerical)).toBe(true);
              // refused: nothing learned (the decision stays pending; the state is exactly as it was)
              expect(JSON.stringify(p.toJSON())).toBe(before);
              p.discard(d);
            }
          }
          expect(accepted).toBeGreaterThan(50);
          // the state reached restores and keeps selecting
          const Ctor = p.constructor as unknown as { fromJSON(s: unknown): ArmPolicy };
          const q = Ctor.fromJSON(JSON.parse(JSON.stringify(p.toJSON())));
          expect(["a", "b", "c"]).toContain(q.select(new Float64Array([1, 0, 0])).arm);
        });
      }
    }

    it(`${name}: a context near the largest admissible norm with ridge 1e-8 and exploration 0 selects (0 * Infinity was NaN)`, () => {
      const p = make({ ridge: 1e-8, exploration: 0, seed: 2 });
      const x = new Float64Array([1e154, 0, 0]);
      expect(["a", "b", "c"]).toContain(p.select(x).arm);
    });
  }
});
