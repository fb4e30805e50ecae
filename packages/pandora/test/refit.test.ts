/**
 * Refit schedules. The index loss has no finite sufficient statistics, so an exact refit of a box reads
 * its whole history: the paper's schedule (refit: "exact") does work per request growing like t, the
 * default geometric schedule does flat amortised work. Counted in solver work (samples x Newton
 * iterations), not timed, so the check is deterministic. The geometric schedule changes the regret by
 * less than its seed-to-seed spread.
 */
import { Rng } from "@routekit/core";
import { envA } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { Cosmos, type CosmosOptions } from "../src/index.js";
import { ENV_A_ARMS, play } from "./helpers.js";

const T = 2000;
const base = { arms: ENV_A_ARMS, contextDim: 2, outputDim: 4, indexLink: "linear" as const, horizon: T };
const known = { ...base, rewardParameter: [1, 0, 0, 0], exploration: 0.5 };

/** Solver work per request over the doubling windows (t/2, t], t = T/4, T/2, T. */
function workPerRequest(options: CosmosOptions): number[] {
  const p = new Cosmos(options);
  const env = envA();
  env.reset(Rng.fromSeed(1));
  const ends = [T / 4, T / 2, T];
  const at = new Map<number, number>();
  for (let t = 0; t < T; t++) {
    const ep = p.begin(env.next(t).context);
    for (let s = p.next(ep); "query" in s; s = p.next(ep)) {
      const o = env.query(s.query);
      p.observe(ep, s.query, o.features, o.cost);
    }
    p.feedback(ep, env.reward(p.choose(ep)));
    at.set(t + 1, p.fitStats.sampleIterations);
  }
  return ends.map((b) => ((at.get(b) as number) - (at.get(b / 2) as number)) / (b / 2));
}

describe("refit schedules", () => {
  it("known reward: exact refits do work per request growing like t, the default (geometric) flat work", () => {
    expect(new Cosmos(known).config.refit).toBe("geometric");
    const exact = workPerRequest({ ...known, refit: "exact" });
    const geometric = workPerRequest(known);
    // t grows 4x from the first window to the last: flat work gives about 1x; exact refits read n_a samples
    // for each box opened, and n_a grows like t (about 4x, a bit less as fewer boxes get opened).
    expect((exact[2] as number) / (exact[0] as number)).toBeGreaterThan(2);
    expect((geometric[2] as number) / (geometric[0] as number)).toBeLessThan(1.5);
    expect(geometric[2] as number).toBeLessThan((exact[2] as number) / 20);
  });

  it("learned reward: the same shapes (exact refits every box every request)", () => {
    const learned = { ...base, exploration: 0.25 };
    const exact = workPerRequest({ ...learned, refit: "exact" });
    const geometric = workPerRequest({ ...learned, refit: "geometric" });
    expect((exact[2] as number) / (exact[0] as number)).toBeGreaterThan(2);
    expect((geometric[2] as number) / (geometric[0] as number)).toBeLessThan(1.5);
  });

  it("known reward on Env-A: geometric and exact refits differ in regret by less than the seed spread", () => {
    const final = (refit: "exact" | "geometric") =>
      [0, 1, 2].map((seed) => {
        const r = play(
          () => envA(),
          () => new Cosmos({ ...known, refit }),
          T,
          seed,
        ).series.regret;
        return r[r.length - 1] as number;
      });
    const e = final("exact");
    const g = final("geometric");
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(e.reduce((s, v) => s + (v - mean(e)) ** 2, 0) / (e.length - 1));
    expect(Math.abs(mean(g) - mean(e))).toBeLessThan(sd);
  });
});

describe("the README's counted bench columns (fits per request, Newton iterations per fit)", () => {
  it("reproduce on the bench's run (Env-A, seed 1, T = 4000): 0.029 / 2.8, 2.37 / 2.1, 3.00 / 2.1, 0.044 / 2.9", () => {
    const T4 = 4000;
    const b = { ...base, horizon: T4 };
    const k = { ...b, rewardParameter: [1, 0, 0, 0], exploration: 0.5 };
    const l = { ...b, exploration: 0.25 };
    const rows: [CosmosOptions, number, number][] = [
      [k, 0.029, 2.8],
      [{ ...k, refit: "exact" }, 2.37, 2.1],
      [{ ...l, refit: "exact" }, 3.0, 2.1],
      [{ ...l, refit: "geometric" }, 0.044, 2.9],
    ];
    for (const [options, fitsPerRequest, itsPerFit] of rows) {
      const p = new Cosmos(options);
      const env = envA();
      env.reset(Rng.fromSeed(1).fork("environment"));
      for (let t = 0; t < T4; t++) {
        const ep = p.begin(env.next(t).context);
        for (let s = p.next(ep); "query" in s; s = p.next(ep)) {
          const o = env.query(s.query);
          p.observe(ep, s.query, o.features, o.cost);
        }
        p.feedback(ep, env.reward(p.choose(ep)));
      }
      const { fits, newtonIterations } = p.fitStats;
      // The README prints the bench's values to the digits shown.
      const label = `${options.refit ?? "geometric"}, ${options.rewardParameter ? "known" : "learned"}`;
      expect((fits / T4).toFixed(fitsPerRequest < 1 ? 3 : 2), label).toBe(
        fitsPerRequest.toFixed(fitsPerRequest < 1 ? 3 : 2),
      );
      expect((newtonIterations / fits).toFixed(1), label).toBe(itsPerFit.toFixed(1));
    }
  }, 120_000);
});
