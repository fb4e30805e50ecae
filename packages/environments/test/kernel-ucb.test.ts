import { Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  PromptPoolEnvironment,
  presetSampling,
  promptPool,
  promptPoolConfig,
  promptPoolPresets,
} from "../src/index.js";

const cos = (a: Float64Array, ao: number, b: Float64Array, bo: number, d: number) => {
  let s = 0;
  for (let i = 0; i < d; i++) s += (a[ao + i] as number) * (b[bo + i] as number);
  return s;
};

describe("prompt-pool environments (the offline benchmark presets)", () => {
  it("every preset builds, resets and plays a round in both sampling modes", () => {
    for (const preset of promptPoolPresets) {
      for (const sampling of ["fresh", "pool"] as const) {
        const env = promptPool(preset, { contextDim: 16, poolSize: 100, sampling });
        expect(env.sampling).toBe(sampling);
        env.reset(Rng.fromSeed(1));
        const r = env.next(0);
        expect(r.context?.length).toBe(16);
        for (const a of env.initialArms) {
          expect(Number.isFinite(env.pull(a).reward)).toBe(true);
          expect(env.expectedReward(a)).toBeLessThanOrEqual(env.oracleReward());
        }
        expect(env.initialArms).toContain(env.bestFixedArm());
        expect(Number.isFinite(env.bestFixedRealised())).toBe(true);
      }
    }
  });

  it("preset defaults follow the paper's experiments: code is a 164-task-per-family pool with 10 generations", () => {
    expect(presetSampling("llm-code")).toMatchObject({ sampling: "pool", poolSize: 328, generations: 10 });
    expect(presetSampling("llm-code-fig1")).toMatchObject({ sampling: "pool", poolSize: 328, generations: 10 });
    for (const p of [
      "llm-sudoku",
      "t2i-sd15-vs-pixart",
      "expert5",
      "swap",
      "expert5big",
      "nonstationary-arm",
    ] as const) {
      expect(presetSampling(p).sampling).toBe("fresh");
      expect(promptPoolConfig(p).generations).toBe(5);
    }
    const code = promptPool("llm-code", { contextDim: 8 });
    expect(code.poolSize).toBe(328);
    expect(code.generations).toBe(10);
    expect(promptPool("llm-code", { contextDim: 8, poolSize: 50, generations: 3, sampling: "fresh" }).sampling).toBe(
      "fresh",
    );
  });

  it("fresh mode: no prompt repeats, each round has its own generations; pull and the realised O2B share a draw", () => {
    const env = promptPool("swap", { contextDim: 8, poolSize: 50, sampling: "fresh" });
    env.reset(Rng.fromSeed(11));
    const seen = new Set<string>();
    let agree = 0;
    for (let t = 0; t < 300; t++) {
      const c = env.next(t).context as Float64Array;
      expect(env.currentPrompt).toBe(-1);
      seen.add(Array.from(c).join(","));
      const best = env.currentCategory === 0 ? "a" : "b";
      expect(env.expectedReward(best)).toBe(0.9);
      expect(env.isOptimal(best)).toBe(true);
      if (env.isOptimalRealised(best)) agree++;
      const fixed = env.bestFixedArm();
      expect(env.pull(fixed).reward).toBe(env.bestFixedRealised());
    }
    expect(seen.size).toBe(300);
    // With a gap of 0.8 and noise sd 0.1 the 5-generation best is the expected best in every round.
    expect(agree).toBe(300);
  });

  it("pool mode reports repeated prompts; fresh mode never repeats", () => {
    const env = promptPool("swap", { contextDim: 8, poolSize: 20, sampling: "pool" });
    env.reset(Rng.fromSeed(12));
    const seen = new Set<number>();
    let repeats = 0;
    for (let t = 0; t < 200; t++) {
      env.next(t);
      expect(env.seenBefore()).toBe(seen.has(env.currentPrompt));
      if (env.seenBefore()) repeats++;
      seen.add(env.currentPrompt);
    }
    expect(repeats).toBe(200 - seen.size);
    env.reset(Rng.fromSeed(12));
    env.next(0);
    expect(env.seenBefore()).toBe(false);
    const fresh = promptPool("swap", { contextDim: 8, poolSize: 20, sampling: "fresh" });
    fresh.reset(Rng.fromSeed(12));
    for (let t = 0; t < 50; t++) {
      fresh.next(t);
      expect(fresh.seenBefore()).toBe(false);
    }
  });

  it("invalid sampling is rejected", () => {
    expect(() => promptPool("swap", { sampling: "both" as never })).toThrow(/sampling/);
  });

  it("prompts are unit vectors with the designed cosines: within about 1/(1+tau^2), between about 0.5/(1+tau^2)", () => {
    const env = promptPool("expert5big", { contextDim: 256, poolSize: 500 });
    env.reset(Rng.fromSeed(2));
    const d = 256;
    let w = 0;
    let nw = 0;
    let b = 0;
    let nb = 0;
    for (let i = 0; i < 200; i++) {
      expect(Math.abs(cos(env.prompts, i * d, env.prompts, i * d, d) - 1)).toBeLessThan(1e-12);
      for (let j = i + 1; j < 200; j++) {
        const c = cos(env.prompts, i * d, env.prompts, j * d, d);
        if (env.category[i] === env.category[j]) {
          w += c;
          nw++;
        } else {
          b += c;
          nb++;
        }
      }
    }
    expect(w / nw).toBeGreaterThan(0.6);
    expect(w / nw).toBeLessThan(0.68);
    expect(b / nb).toBeGreaterThan(0.25);
    expect(b / nb).toBeLessThan(0.42);
  });

  it("same seed, same prompts and scores; contexts do not depend on what is pulled", () => {
    const a = promptPool("swap", { contextDim: 8, poolSize: 50, sampling: "pool" });
    const b = promptPool("swap", { contextDim: 8, poolSize: 50, sampling: "pool" });
    a.reset(Rng.fromSeed(3));
    b.reset(Rng.fromSeed(3));
    expect(a.table).toEqual(b.table);
    for (let t = 0; t < 30; t++) {
      const ca = Float64Array.from(a.next(t).context as Float64Array);
      const cb = Float64Array.from(b.next(t).context as Float64Array);
      expect(cb).toEqual(ca);
      a.pull("a");
      if (t % 3 === 0) b.pull("b");
    }
  });

  it("a reset with the stream key and settings of an earlier one reuses its draw: the same bits as drawing, in arrays of its own", () => {
    const bits = (a: Float64Array | Int32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (const sampling of ["pool", "fresh"] as const) {
      const cfg = promptPoolConfig("swap", { contextDim: 8, poolSize: 40, sampling, perPromptAmplitude: 0.1 });
      // Another name is another key: this one is drawn, whatever the cache holds.
      const drawn = new PromptPoolEnvironment({ ...cfg, name: `${cfg.name} (drawn apart)` });
      const first = new PromptPoolEnvironment(cfg);
      const reused = new PromptPoolEnvironment(cfg);
      drawn.reset(Rng.fromSeed(11));
      first.reset(Rng.fromSeed(11));
      // A caller writing to one environment's arrays changes no other environment's.
      first.prompts.fill(0);
      first.means.fill(0);
      first.table.fill(0);
      reused.reset(Rng.fromSeed(11));
      for (const k of ["prompts", "category", "means", "table", "sampleMeans"] as const) {
        expect(bits(reused[k]), `${sampling} ${k}`).toEqual(bits(drawn[k]));
        expect(reused[k]).not.toBe(drawn[k]);
      }
      // The streams after the draw (contexts, fresh prompts, generations) are where they were.
      expect(reused.bestFixedArm()).toBe(drawn.bestFixedArm());
      for (let t = 0; t < 40; t++) {
        const ca = Float64Array.from(drawn.next(t).context as Float64Array);
        expect(bits(reused.next(t).context as Float64Array)).toEqual(bits(ca));
        for (const arm of ["a", "b"]) {
          expect(reused.expectedReward(arm)).toBe(drawn.expectedReward(arm));
          expect(reused.pull(arm).reward).toBe(drawn.pull(arm).reward);
        }
        expect(reused.isOptimalRealised("a")).toBe(drawn.isOptimalRealised("a"));
      }
      // Another seed, another draw.
      reused.reset(Rng.fromSeed(12));
      expect(bits(reused.prompts)).not.toEqual(bits(drawn.prompts));
    }
    // The configuration is copied when the environment is built: a caller changing its object afterwards (here a
    // spread the checks would refuse) changes neither the draw nor the cache key.
    const cfg = promptPoolConfig("swap", { contextDim: 8, poolSize: 40 });
    const layout = { ...cfg.layout };
    const copied = new PromptPoolEnvironment({ ...cfg, layout });
    const plain = new PromptPoolEnvironment(cfg);
    (layout as { tau: number }).tau = Number.NaN;
    copied.reset(Rng.fromSeed(13));
    plain.reset(Rng.fromSeed(13));
    expect(bits(copied.table)).toEqual(bits(plain.table));
    expect(Object.isFrozen(copied.config.layout)).toBe(true);
  });

  it("swap: the expected best arm matches the category; OPR reference is the 5-generation mean", () => {
    const env = promptPool("swap", { contextDim: 8, poolSize: 100, sampling: "pool" });
    env.reset(Rng.fromSeed(4));
    for (let t = 0; t < 50; t++) {
      env.next(t);
      const best = env.currentCategory === 0 ? "a" : "b";
      expect(env.expectedReward(best)).toBe(0.9);
      expect(env.isOptimal(best)).toBe(true);
    }
    const N = env.poolSize;
    for (let i = 0; i < N; i++) {
      let s = 0;
      for (let r = 0; r < 5; r++) s += env.table[i * 5 + r] as number;
      expect(env.sampleMeans[i]).toBeCloseTo(s / 5, 12);
    }
    // Pool mode returns one of the prompt's pre-drawn generations; the best single arm's realised
    // score is the same generation index of its own row.
    for (let t = 50; t < 80; t++) {
      env.next(t);
      const i = env.currentPrompt;
      const got = env.pull("a").reward;
      const r = [0, 1, 2, 3, 4].filter((q) => env.table[i * 5 + q] === got);
      expect(r.length).toBeGreaterThan(0);
      const g = env.bestFixedArm() === "a" ? 0 : 1;
      const row = (g * N + i) * 5;
      expect(r.some((q) => env.table[row + q] === env.bestFixedRealised())).toBe(true);
    }
  });

  it("nonstationary-arm: the third model arrives at the given round; nonstationary-prompts adds categories", () => {
    const env = promptPool("nonstationary-arm", { contextDim: 8, poolSize: 60, arrivalRound: 10 });
    env.reset(Rng.fromSeed(5));
    expect(env.initialArms).toEqual(["sd-v1.5", "pixart-alpha"]);
    for (let t = 0; t < 10; t++) expect(env.next(t).arrivals).toBeUndefined();
    expect(() => env.pull("unidiffuser")).toThrow(/not live/);
    expect(env.next(10).arrivals).toEqual(["unidiffuser"]);
    expect(Number.isFinite(env.pull("unidiffuser").reward)).toBe(true);
    const np = promptPool("nonstationary-prompts", { contextDim: 8, poolSize: 60, categoryEvery: 100 });
    np.reset(Rng.fromSeed(6));
    const seen = new Set<number>();
    for (let t = 0; t < 100; t++) {
      np.next(t);
      seen.add(np.currentCategory);
    }
    expect([...seen].sort()).toEqual([0, 1]);
    for (let t = 100; t < 300; t++) {
      np.next(t);
      seen.add(np.currentCategory);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });

  it("realizable: bounded scores in [-1, 1]; Bernoulli presets give 0/1 scores; sudoku splits by difficulty", () => {
    const r = promptPool("realizable", { poolSize: 200, sampling: "pool" });
    r.reset(Rng.fromSeed(7));
    for (const s of r.table) expect(Math.abs(s)).toBeLessThanOrEqual(1);
    for (const m of r.means) expect(Math.abs(m)).toBeLessThanOrEqual(1);
    const c = promptPool("llm-sudoku", { contextDim: 32, poolSize: 200, sampling: "pool" });
    c.reset(Rng.fromSeed(8));
    for (const s of c.table) expect(s === 0 || s === 1).toBe(true);
    const hard = Array.from(c.category).filter((k) => k === 0).length;
    expect(hard / 200).toBeGreaterThan(0.4); // 15 of 26 blank counts are > 15
    expect(hard / 200).toBeLessThan(0.75);
  });
});
