/**
 * Seeded statistical checks on Env-A (thresholds from the COSMOS implementation notes):
 * known-reward COSMOS (scale 0.5) has log-log regret slope <= 0.75 over the last doublings up to
 * T = 4000 and R_T / T decreasing (prototype: slope about 0.5, R = 24 / 40 / 63 / 88); the learned-reward
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
          () => new QueryAll({ ...base, rewardParameter: [1, 0, 0, 0] }),
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
