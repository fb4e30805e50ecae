import { isRouteKitError } from "@routekit/core";
import { arenaSim2025, routerBenchSurrogate } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { stageValue } from "../src/oracle-value.js";

describe("the benchmark V(b, M_tau) on the paper's environments", () => {
  it("ArenaSim 2025 (min-max rewards, b = 2): every stage value of the reference table", () => {
    const at = (maxDeployed: number) => {
      const env = arenaSim2025({ oracle: stageValue, maxDeployed, stageLength: 1000 });
      return (k: number) => env.stageOptimum(k).value;
    };
    const v3 = at(3);
    const v6 = at(6);
    const v10 = at(10);
    expect(v3(6)).toBeCloseTo(0.3608, 4);
    expect(v6(6)).toBeCloseTo(0.3847, 4);
    expect(v3(7)).toBeCloseTo(0.5238, 4);
    expect(v6(7)).toBeCloseTo(0.5429, 4);
    for (const v of [v3, v6, v10]) expect(v(10)).toBeCloseTo(0.6127, 4);
    for (const v of [v3, v6, v10]) {
      expect(v(11)).toBeCloseTo(0.7217, 4);
      expect(v(12)).toBeCloseTo(0.7217, 4);
    }
    expect(v3(14)).toBeCloseTo(0.7217, 4);
    expect(v6(13)).toBeCloseTo(0.7326, 4);
    expect(v6(14)).toBeCloseTo(0.7326, 4);
    expect(v3(15)).toBeCloseTo(0.7217, 4);
    expect(v6(15)).toBeCloseTo(0.7661, 4);
    expect(v10(15)).toBeCloseTo(v6(15), 12);
    // OPT* = sum over stages of L V: 6300.9 (M_max >= 6) and 6153.4 (M_max = 3), the same for L = 250/500/1000.
    for (const L of [250, 500, 1000]) {
      for (const [m, ref] of [
        [6, 6300.9],
        [3, 6153.4],
      ] as const) {
        const env = arenaSim2025({ oracle: stageValue, maxDeployed: m, stageLength: L });
        let opt = 0;
        for (let t = 0; t < 10_000; t += L) opt += L * env.stageOptimum(env.poolSizeAt(t)).value;
        expect(Math.abs(opt - ref)).toBeLessThan(0.1);
      }
    }
  });

  it("ArenaSim 2025 optimal mixes at t = 1 and t = 9001 (M_max = 6)", () => {
    const env = arenaSim2025({ oracle: stageValue });
    const w6 = env.stageOptimum(6).weights;
    // {GPT-4o .153, Yi .047, o1-mini .4, R1 .4}
    expect(w6[0]).toBeCloseTo(0.153, 3);
    expect(w6[2]).toBeCloseTo(0.047, 3);
    expect(w6[3]).toBeCloseTo(0.4, 9);
    expect(w6[5]).toBeCloseTo(0.4, 9);
    const w15 = env.stageOptimum(15).weights;
    // {Flash .052, v3 .4, Maverick .4, Gemini-2.5-Pro .148}
    expect(w15[6]).toBeCloseTo(0.052, 3);
    expect(w15[9]).toBeCloseTo(0.4, 9);
    expect(w15[10]).toBeCloseTo(0.4, 9);
    expect(w15[14]).toBeCloseTo(0.148, 3);
  });

  it("RouterBench table means at b = 0.0002: 0.5424 / 0.5543 / 0.5638 for M_max 3 and 6", () => {
    for (const maxDeployed of [3, 6]) {
      const env = routerBenchSurrogate({ oracle: stageValue, maxDeployed });
      for (const k of [5, 6, 7]) expect(env.stageOptimum(k).value).toBeCloseTo(0.5424, 4);
      for (const k of [8, 9]) expect(env.stageOptimum(k).value).toBeCloseTo(0.5543, 4);
      for (const k of [10, 11]) expect(env.stageOptimum(k).value).toBeCloseTo(0.5638, 4);
    }
  });

  it("V = 0 when no routing meets the budget or the caps", () => {
    expect(stageValue([0.9], [3], [1], 2, 1).value).toBe(0);
    expect(stageValue([0.9, 0.8], [1, 1], [0.4, 0.4], 2, 2).value).toBe(0);
  });

  it("hostile input is a typed error, never a NaN value, a TypeError or a hang", () => {
    const code = (fn: () => unknown): string => {
      try {
        const r = fn() as { value: number };
        return `returned ${r.value}`;
      } catch (e) {
        return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
      }
    };
    // Before: V = NaN, a TypeError, or a silent answer over the lists as far as they went.
    expect(code(() => stageValue([Number.NaN], [0], [1], 1, 1))).toBe("NON_FINITE");
    expect(code(() => stageValue(null as never, [1], [1], 1, 1))).toBe("INVALID_ARGUMENT");
    expect(code(() => stageValue("ab" as never, [1, 2], [1, 1], 3, 2))).toBe("INVALID_ARGUMENT");
    expect(code(() => stageValue([0.5, 0.7], [1], [1, 1], 1, 1))).toBe("DIMENSION_MISMATCH");
    expect(code(() => stageValue([0.5, 0.7], [1, 2], [Number.NaN, 1], 3, 2))).toBe("NON_FINITE");
    expect(code(() => stageValue([0.5, 0.7], [1, 2], [-1, 2], 3, 2))).toBe("OUT_OF_RANGE");
    expect(code(() => stageValue([5, 0.7], [1, 2], [1, 1], 3, 2))).toBe("OUT_OF_RANGE");
    expect(code(() => stageValue([0.5, 0.7], [-1, 2], [1, 1], 3, 2))).toBe("OUT_OF_RANGE");
    expect(code(() => stageValue([0.5, 0.7], [1, 2], [1, 1], Number.NaN, 2))).toBe("NON_FINITE");
    expect(code(() => stageValue([0.5, 0.7], [1, 2], [1, 1], -1, 2))).toBe("OUT_OF_RANGE");
    expect(code(() => stageValue([0.5], [1], [1], 1, 0))).toBe("OUT_OF_RANGE");
    // A fractional maxDeployed looped forever in the subset enumeration.
    expect(code(() => stageValue([0.5, 0.7], [1, 2], [1, 1], 1.5, 1.5))).toBe("OUT_OF_RANGE");
    // Both ends stay valid: no budget row, a budget of 0, a maxDeployed above the pool, Float32Array lists.
    expect(stageValue([0.5, 0.7], [1, 2], [1, 1], Number.POSITIVE_INFINITY, 1).value).toBe(0.7);
    expect(stageValue([0.5, 0.7], [0, 2], [1, 1], 0, 1).value).toBe(0.5);
    expect(stageValue([0.5, 0.7], [1, 2], [1, 1], 1.5, 1e9).value).toBe(0.6);
    const f32 = stageValue(Float32Array.of(0.5, 0.7), Float32Array.of(1, 2), Float32Array.of(1, 1), 1.5, 2);
    const f64 = stageValue(Float64Array.from(Float32Array.of(0.5, 0.7)), [1, 2], [1, 1], 1.5, 2);
    expect(f32.value).toBe(f64.value);
  });
});
