/**
 * README (output files, pick-share-rounds.svg/.png): "windows are merged to at most 40 per panel for readability";
 * the CSV keeps every checkpoint. A merged window's share is the round-weighted mean of the windows it merges.
 */
import { describe, expect, it } from "vitest";
import type { SharePoint } from "../src/aggregate.js";
import { pickShareRoundsSpec } from "../src/plot.js";

function shares(checkpoints: number, policies: string[], arms: string[]): SharePoint[] {
  const out: SharePoint[] = [];
  for (const policy of policies)
    for (const [a, arm] of arms.entries())
      for (let i = 1; i <= checkpoints; i++) {
        // Uneven windows (the last is shorter, as with checkpoints(horizon, points)) and shares that vary.
        const t = Math.min(i * 7, checkpoints * 7 - 3);
        out.push({ policy, arm, t, mean: a === 0 ? (i % 3) / 3 : 1 - (i % 3) / 3, se: 0.01 });
      }
  return out;
}

const plotted = (points: readonly SharePoint[]) =>
  (pickShareRoundsSpec(points, "test") as unknown as { data: { values: SharePoint[] } }).data.values;

describe("pick-share-rounds: at most 40 windows per panel", () => {
  it("200 checkpoints per (policy, arm) become at most 40 round-weighted windows; 40 or fewer stay as they are", () => {
    const raw = shares(200, ["ucb1", "random"], ["a", "b"]);
    const shown = plotted(raw);
    for (const policy of ["ucb1", "random"])
      for (const arm of ["a", "b"]) {
        const mine = shown.filter((p) => p.policy === policy && p.arm === arm);
        expect(mine.length).toBeGreaterThan(1);
        expect(mine.length).toBeLessThanOrEqual(40);
        expect(mine.at(-1)?.t).toBe(200 * 7 - 3); // the run's end is kept
        // Round-weighted: the merged windows' shares times their rounds add up to the raw total of picks.
        const rawPicks = raw
          .filter((p) => p.policy === policy && p.arm === arm)
          .reduce((s, p, i, xs) => s + p.mean * (p.t - (i > 0 ? (xs[i - 1] as SharePoint).t : 0)), 0);
        const merged = mine.reduce((s, p, i) => s + p.mean * (p.t - (i > 0 ? (mine[i - 1] as SharePoint).t : 0)), 0);
        expect(merged).toBeCloseTo(rawPicks, 9);
      }
    const few = shares(40, ["ucb1"], ["a"]);
    expect(plotted(few)).toEqual(few);
  });
});
