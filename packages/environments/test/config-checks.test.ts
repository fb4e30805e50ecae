// Configurations that used to be accepted and then produced NaN contexts, NaN rewards or a problem of another size.
import { isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  LinearContextualBandit,
  type PromptPoolConfig,
  PromptPoolEnvironment,
  promptPool,
  promptPoolConfig,
  StochasticBandit,
} from "../src/index.js";

function code(make: () => unknown): string | undefined {
  try {
    make();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("prompt-pool configurations are checked before anything is drawn", () => {
  it("a NaN, infinite or negative spread, noise, contrast or kernel width is a typed error naming the field", () => {
    const overrides: [Record<string, unknown>, string, string][] = [
      [{ tau: Number.NaN }, "NON_FINITE", "layout.tau"],
      [{ tau: -1 }, "OUT_OF_RANGE", "layout.tau"],
      [{ tau: Number.POSITIVE_INFINITY }, "NON_FINITE", "layout.tau"],
      [{ rho: Number.NaN }, "NON_FINITE", "layout.rho"],
      [{ noiseSd: Number.NaN }, "NON_FINITE", "noise.sd"],
      [{ noiseSd: -0.1 }, "OUT_OF_RANGE", "noise.sd"],
      [{ contrast: Number.NaN }, "NON_FINITE", "contrast"],
      [{ contrast: -2 }, "OUT_OF_RANGE", "contrast"],
      [{ perPromptAmplitude: Number.NaN }, "NON_FINITE", "perPrompt.amplitude"],
    ];
    for (const [o, want, field] of overrides) {
      let err: unknown;
      try {
        promptPool(o.perPromptAmplitude === undefined ? "expert5" : "t2i-sd15-vs-pixart", o);
      } catch (e) {
        err = e;
      }
      expect(isRouteKitError(err) ? err.code : String(err), JSON.stringify(o)).toBe(want);
      expect((err as Error).message).toContain(field);
    }
    const base = promptPoolConfig("expert5");
    const configs: [Partial<Record<keyof PromptPoolConfig, unknown>>, string][] = [
      [{ layout: { type: "categories", rho: 1, tau: 0.5, extra: 1 } }, "INVALID_ARGUMENT"],
      [{ layout: { type: "bogus" } }, "INVALID_ARGUMENT"],
      [{ noise: { type: "bogus" } }, "INVALID_ARGUMENT"],
      [{ noise: { type: "gaussian", sd: Number.NaN } }, "NON_FINITE"],
      [{ perPrompt: { amplitude: 0.1, sigma: 0 } }, "OUT_OF_RANGE"],
      [{ perPrompt: { amplitude: 0.1, centers: 0 } }, "OUT_OF_RANGE"],
      [{ perPrompt: { amplitud: 0.1 } }, "INVALID_ARGUMENT"],
      [{ realizable: { norm: Number.NaN } }, "NON_FINITE"],
      [{ realizable: { sigma: -1 } }, "OUT_OF_RANGE"],
      [{ categoryStarts: [0, 1.5, 0, 0, 0] }, "OUT_OF_RANGE"],
      [{ categoryStarts: [0, -1, 0, 0, 0] }, "OUT_OF_RANGE"],
      [{ arms: ["a", ""] }, "INVALID_ARGUMENT"],
      [{ clip: "yes" }, "INVALID_ARGUMENT"],
    ];
    for (const [patch, want] of configs) {
      expect(
        code(() => new PromptPoolEnvironment({ ...base, ...patch } as PromptPoolConfig)),
        JSON.stringify(patch),
      ).toBe(want);
    }
  });

  it("every preset still builds, and its first round is finite", () => {
    for (const name of [
      "swap",
      "expert5",
      "t2i-sd15-vs-pixart",
      "llm-code",
      "llm-sudoku",
      "nonstationary-prompts",
      "realizable",
    ] as const) {
      const env = promptPool(name, { contextDim: 16, poolSize: 100 });
      env.reset(Rng.fromSeed(1));
      const r = env.next(0);
      expect(Array.from(r.context as Float64Array).every(Number.isFinite), name).toBe(true);
      const arm = env.initialArms[0] as string;
      expect(Number.isFinite(env.pull(arm).reward) && Number.isFinite(env.oracleReward()), name).toBe(true);
    }
  });
});

describe("a given k must agree with the arms the lists give", () => {
  it("StochasticBandit and LinearContextualBandit refuse a k that the lists contradict (it was ignored)", () => {
    expect(code(() => new StochasticBandit({ k: 3, means: [0.1, 0.2] }))).toBe("DIMENSION_MISMATCH");
    expect(code(() => new StochasticBandit({ k: 3, arms: ["a", "b"] }))).toBe("DIMENSION_MISMATCH");
    expect(code(() => new StochasticBandit({ k: "2" as never, means: [0.1, 0.2] }))).toBe("INVALID_ARGUMENT");
    expect(new StochasticBandit({ k: 2, means: [0.1, 0.2] }).initialArms).toEqual(["arm0", "arm1"]);
    expect(
      code(
        () =>
          new LinearContextualBandit({
            contextDim: 3,
            k: 3,
            thetas: [
              [1, 0, 0],
              [0, 1, 0],
            ],
          }),
      ),
    ).toBe("DIMENSION_MISMATCH");
    expect(code(() => new LinearContextualBandit({ contextDim: 3, k: 3, arms: ["a", "b"] }))).toBe(
      "DIMENSION_MISMATCH",
    );
    expect(new LinearContextualBandit({ contextDim: 3, k: 2, arms: ["a", "b"] }).initialArms).toEqual(["a", "b"]);
  });
});

describe("environments copy what they checked", () => {
  it("LinearContextualBandit: changing the caller's thetas after construction changes nothing", () => {
    const thetas = [
      [1, 0, 0],
      [0, 1, 0],
    ];
    const env = new LinearContextualBandit({ contextDim: 3, thetas });
    const same = new LinearContextualBandit({ contextDim: 3, thetas: thetas.map((t) => [...t]) });
    (thetas[0] as number[])[0] = Number.NaN;
    for (const e of [env, same]) e.reset(Rng.fromSeed(5));
    env.next(0);
    same.next(0);
    expect(env.expectedReward("arm0")).toBe(same.expectedReward("arm0"));
    expect(Number.isFinite(env.oracleReward())).toBe(true);
  });
});

describe("the basic bandits' reward scale", () => {
  it("noiseSd above 1e100 and Gaussian means beyond +-1e100 are OUT_OF_RANGE (a draw overflowed at the first pull)", () => {
    expect(code(() => new StochasticBandit({ rewards: "gaussian", noiseSd: 1e308 }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StochasticBandit({ rewards: "gaussian", means: [1e308, 0] }))).toBe("OUT_OF_RANGE");
    expect(code(() => new StochasticBandit({ rewards: "gaussian", means: [-1e101, 0] }))).toBe("OUT_OF_RANGE");
    expect(code(() => new LinearContextualBandit({ noiseSd: 1e101 }))).toBe("OUT_OF_RANGE");
    // Both ends of the range work: a run at them draws finite rewards.
    const k = new StochasticBandit({ rewards: "gaussian", noiseSd: 1e100, means: [1e100, -1e100] });
    k.reset(Rng.fromSeed(1));
    k.next(0);
    expect(Number.isFinite(k.pull("arm0").reward)).toBe(true);
    const lin = new LinearContextualBandit({ noiseSd: 1e100, contextDim: 2, mcSamples: 10 });
    lin.reset(Rng.fromSeed(1));
    lin.next(0);
    expect(Number.isFinite(lin.pull("arm0").reward)).toBe(true);
    expect(code(() => new StochasticBandit({ rewards: "gaussian", noiseSd: 0 }))).toBeUndefined();
  });
});
