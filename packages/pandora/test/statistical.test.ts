/**
 * Seeded statistical checks on Env-A (thresholds from the COSMOS implementation notes):
 * known-reward COSMOS (scale 0.5) has log-log regret slope <= 0.75 over the last doublings up to
 * T = 4000 and R_T / T decreasing (prototype: slope about 0.5, R = 24 / 40 / 63 / 88), and its 10-seed mean
 * lies near the notes' two reference runs; greedy (radius 0) grows linearly on the mean of 20 seeds up to
 * T = 8000 while COSMOS does not; the learned-reward
 * variant has R_T / T decreasing and slope < 1 over T in [2000, 8000] (seeds averaged); COSMOS beats the
 * one-shot (API-as-arm) baseline and query-all for large T; known-reward regret <= learned-reward regret at
 * the same scale.
 */
import { envA, envB } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { Cosmos, OneShot, QueryAll } from "../src/index.js";
import { ENV_A_ARMS, meanRegret, play, slopeBetween } from "./helpers.js";

const T = 4000;
const base = { arms: ENV_A_ARMS, contextDim: 2, outputDim: 4, indexLink: "linear" as const };

describe("regret on Env-A", () => {
  const knownRuns = [0, 1, 2].map((seed) =>
    play(
      () => envA(),
      () => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], exploration: 0.5, horizon: T }),
      T,
      seed,
    ),
  );
  const known = meanRegret(knownRuns);
  const t = knownRuns[0]?.series.t as number[];

  it("known reward, scale 0.5: slope <= 0.75 over [1000, 4000] and R_T / T decreasing", () => {
    expect(slopeBetween(t, known, 1000, 4000)).toBeLessThanOrEqual(0.75);
    for (let i = 1; i < t.length; i++)
      expect((known[i] as number) / (t[i] as number)).toBeLessThan((known[i - 1] as number) / (t[i - 1] as number));
  });

  it("known reward, scale 0.5, 10 seeds: R at T = 500 / 1000 / 2000 / 4000 near the implementation notes' runs", () => {
    // The notes' prototype gave 24 / 40 / 63 / 88 and their independent rebuild 27.1 / 42.9 / 62.3 / 84.4
    // (sd about 2 over 10 seeds): accept the span of the two widened by 2 sd at each checkpoint.
    const runs = Array.from({ length: 10 }, (_, seed) =>
      play(
        () => envA(),
        () => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], exploration: 0.5, horizon: T }),
        T,
        seed,
      ),
    );
    const r = meanRegret(runs);
    const tt = runs[0]?.series.t as number[];
    const at = (x: number) => r[tt.indexOf(x)] as number;
    const refs: [number, number, number][] = [
      [500, 24, 27.1],
      [1000, 40, 42.9],
      [2000, 62.3, 63],
      [4000, 84.4, 88],
    ];
    for (const [x, lo, hi] of refs) {
      expect(at(x)).toBeGreaterThanOrEqual(lo - 4);
      expect(at(x)).toBeLessThanOrEqual(hi + 4);
    }
    // log-log slope about 0.5 (the prototype's series itself gives 0.62, the rebuild's 0.55)
    const slope = slopeBetween(tt, r, 500, 4000);
    expect(slope).toBeGreaterThan(0.45);
    expect(slope).toBeLessThan(0.7);
  });

  it("COSMOS beats the one-shot baseline and query-all at T = 4000", () => {
    const oneShot = meanRegret(
      [0, 1].map((seed) =>
        play(
          () => envA(),
          () => new OneShot({ arms: ENV_A_ARMS, contextDim: 2, outputDim: 4 }),
          T,
          seed,
        ),
      ),
    );
    const all = meanRegret(
      [0, 1].map((seed) =>
        play(
          () => envA(),
          // QueryAll has no index model: it takes no indexLink (an unknown option is refused).
          () => new QueryAll({ arms: base.arms, contextDim: 2, outputDim: 4, rewardParameter: [1, 0, 0, 0] }),
          T,
          seed,
        ),
      ),
    );
    const last = known.length - 1;
    expect(known[last]).toBeLessThan(oneShot[last] as number);
    expect(known[last]).toBeLessThan(all[last] as number);
    // query-all pays the full gap 0.688 - 0.627 every round
    expect((all[last] as number) / T).toBeGreaterThan(0.05);
  });

  it("learned reward (geometric refits), scale 0.25: slope < 1 over [2000, 8000] and R_T / T decreasing", () => {
    const runs = [0, 1].map((seed) =>
      play(
        () => envA(),
        () => new Cosmos({ ...base, exploration: 0.25, horizon: 8000, refit: "geometric" }),
        8000,
        seed,
      ),
    );
    const r = meanRegret(runs);
    const tt = runs[0]?.series.t as number[];
    expect(slopeBetween(tt, r, 2000, 8000)).toBeLessThan(1);
    for (let i = 1; i < tt.length; i++)
      expect((r[i] as number) / (tt[i] as number)).toBeLessThan((r[i - 1] as number) / (tt[i - 1] as number));
  });

  it("greedy (radius 0) grows linearly over [4000, 8000] on the mean of 20 seeds, COSMOS (s = 0.5) does not", () => {
    // Greedy is bimodal across seeds (some stop opening a box and pay a constant gap per request, the rest
    // reach near-oracle play), so only a mean over many seeds at large T says anything.
    const mean = (s: number, seeds: number[]) =>
      meanRegret(
        seeds.map((seed) =>
          play(
            () => envA(),
            () => new Cosmos({ ...base, rewardParameter: [1, 0, 0, 0], exploration: s, horizon: 8000 }),
            8000,
            seed,
          ),
        ),
      );
    const greedy = mean(
      0,
      Array.from({ length: 20 }, (_, i) => i),
    );
    const cosmos = mean(0.5, [0, 1, 2]);
    const tt = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000];
    expect(slopeBetween(tt, greedy, 4000, 8000)).toBeGreaterThanOrEqual(0.75);
    expect(slopeBetween(tt, cosmos, 4000, 8000)).toBeLessThanOrEqual(0.75);
  });

  it("known-reward regret <= learned-reward regret at the same scale (0.5) at T = 4000, averaged over seeds", () => {
    const unknown = meanRegret(
      [0, 1, 2].map((seed) =>
        play(
          () => envA(),
          () => new Cosmos({ ...base, exploration: 0.5, horizon: T, refit: "geometric" }),
          T,
          seed,
        ),
      ),
    );
    const last = known.length - 1;
    expect(known[last]).toBeLessThanOrEqual(unknown[last] as number);
  });
});

describe("regret on Env-B (logistic reward, tanh index)", () => {
  it("known reward, scale 0.5 (geometric refits): slope <= 0.75 over [1000, 4000] and R_T / T decreasing", () => {
    const runs = [0, 1].map((seed) =>
      play(
        () => envB(),
        () =>
          new Cosmos({
            arms: ENV_A_ARMS,
            contextDim: 2,
            outputDim: 3,
            indexLink: "tanh",
            rewardLink: "logistic",
            rewardParameter: [1.5, -1, 0.5],
            exploration: 0.5,
            horizon: T,
            refit: "geometric",
          }),
        T,
        seed,
      ),
    );
    const r = meanRegret(runs);
    const tt = runs[0]?.series.t as number[];
    expect(slopeBetween(tt, r, 1000, 4000)).toBeLessThanOrEqual(0.75);
    for (let i = 1; i < tt.length; i++)
      expect((r[i] as number) / (tt[i] as number)).toBeLessThan((r[i - 1] as number) / (tt[i - 1] as number));
  });
});
