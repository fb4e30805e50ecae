/**
 * Seeded statistical checks on the paper's 15-model simulation (10 seeds, T = 10^4, the
 * arena2025-paper configuration). Thresholds are the paper's claims with the margins of the
 * reference implementation's measurements (seeds 0-9: StageRoute regret 17 / 28 / 59 / 35 / 0.6 and
 * greedy 350 / 338 / 311 / 1664 at (L, M_max) = (250,6) / (500,6) / (1000,6) / (500,3) / (500,10)).
 */
import { describe, expect, it } from "vitest";
import { arenaRuns, mean, pairedT } from "./helpers.js";

const SEEDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
/** OPT* = sum_k L V(b, M_tau_k) for M_max >= 6 and for M_max = 3 (the paper's benchmark, unclamped means). */
const OPT6 = 6300.9;
const OPT3 = 6153.4;
/** One-sided p < 0.01 for a paired t-test with 9 degrees of freedom. */
const T_CRIT_9DF = 2.821;

const runs = new Map<string, ReturnType<typeof arenaRuns>>();
function get(L: number, M: number) {
  const key = `${L}/${M}`;
  let r = runs.get(key);
  if (!r) {
    r = arenaRuns(L, M, SEEDS);
    runs.set(key, r);
  }
  return r;
}

describe("ArenaSim 2025 (arena2025-paper, 10 seeds)", () => {
  it("near oracle: mean pseudo-reward >= 0.98 OPT* at L = 250, M_max = 6", () => {
    const { sr } = get(250, 6);
    const reward = mean(sr.map((r) => r.reward));
    console.log(
      `L=250 M=6: StageRoute reward ${reward.toFixed(1)} (OPT* ${OPT6}), regret ${mean(sr.map((r) => r.regret)).toFixed(1)}`,
    );
    expect(reward).toBeGreaterThanOrEqual(0.98 * OPT6);
    expect(Math.abs(mean(sr.map((r) => r.regret)) - (OPT6 - reward))).toBeLessThan(1);
  });

  it("beats greedy with p < 0.01 at (250,6), (500,6), (1000,6), (500,3); largest margin at M_max = 3", () => {
    const margins: number[] = [];
    for (const [L, M] of [
      [250, 6],
      [500, 6],
      [1000, 6],
      [500, 3],
    ] as const) {
      const { sr, greedy } = get(L, M);
      const a = sr.map((r) => r.regret);
      const b = greedy.map((r) => r.regret);
      const t = pairedT(a, b);
      console.log(
        `L=${L} M=${M}: regret StageRoute ${mean(a).toFixed(1)} greedy ${mean(b).toFixed(1)} (t = ${t.toFixed(1)})`,
      );
      expect(mean(a)).toBeLessThan(mean(b));
      expect(t).toBeLessThan(-T_CRIT_9DF);
      margins.push(mean(b) - mean(a));
    }
    expect(margins[3]).toBeGreaterThan(Math.max(...margins.slice(0, 3)));
  });

  it("interval effect: mean regret non-decreasing in L = 250, 500, 1000 at M_max = 6", () => {
    const r = [250, 500, 1000].map((L) => mean(get(L, 6).sr.map((x) => x.regret)));
    console.log(`regret by L: ${r.map((x) => x.toFixed(1)).join(" / ")}`);
    expect(r[0]).toBeLessThanOrEqual(r[1] as number);
    expect(r[1]).toBeLessThanOrEqual(r[2] as number);
  });

  it("capacity effect: regret at M_max = 10 <= M_max = 6 <= M_max = 3 (L = 500)", () => {
    const r = [10, 6, 3].map((M) => mean(get(500, M).sr.map((x) => x.regret)));
    console.log(`regret by M_max 10/6/3: ${r.map((x) => x.toFixed(1)).join(" / ")}`);
    expect(r[0]).toBeLessThanOrEqual(r[1] as number);
    expect(r[1]).toBeLessThanOrEqual(r[2] as number);
  });

  it("budget: average realised cost <= 1.05 b in every configuration", () => {
    for (const [key, r] of runs) {
      const c = mean(r.sr.map((x) => x.avgCost));
      console.log(`${key}: StageRoute average cost ${c.toFixed(3)} (b = 2)`);
      for (const x of r.sr) expect(x.avgCost).toBeLessThanOrEqual(1.05 * 2);
    }
    expect(runs.size).toBeGreaterThanOrEqual(5);
  });

  it("near oracle everywhere: mean regret <= 1.5% of OPT* at (250,6), (500,6), (1000,6), (500,3), (500,10)", () => {
    // The spec's headline: StageRoute's reward stays within 0.1-0.9% of the oracle's in every simulation config
    // (the independent rebuild: regret 17.1 / 28.0 / 58.7 / 34.5 / 0.6). Measured here: 19.2 / 31.1 / 56.9 / 38.3 /
    // 6.2, at most 0.90% (L = 1000); 1.5% leaves 1.6x headroom. A stage clock one feedback off (deploying at
    // learned + 1 = kL) still passed the 0.98 OPT* check at L = 250 with regret 113.6 (1.8%), 223.5 / 393.0 /
    // 221.2 / 198.0 elsewhere (3.1-6.2%).
    for (const [L, M] of [
      [250, 6],
      [500, 6],
      [1000, 6],
      [500, 3],
      [500, 10],
    ] as const) {
      const share = mean(get(L, M).sr.map((r) => r.regret)) / (M === 3 ? OPT3 : OPT6);
      console.log(`L=${L} M=${M}: StageRoute mean regret ${(100 * share).toFixed(2)}% of OPT*`);
      expect(share).toBeLessThanOrEqual(0.015);
    }
  });

  it("padding matters: the literal DeployOPT support (fillSlots: false) at L = 1000 does worse than greedy", () => {
    const literal = arenaRuns(1000, 6, SEEDS, { fillSlots: false }).sr.map((r) => r.regret);
    const padded = get(1000, 6);
    console.log(
      `L=1000 M=6: fillSlots false ${mean(literal).toFixed(1)}, padded ${mean(padded.sr.map((r) => r.regret)).toFixed(1)}`,
    );
    expect(mean(literal)).toBeGreaterThan(mean(padded.greedy.map((r) => r.regret)));
    expect(
      pairedT(
        padded.sr.map((r) => r.regret),
        literal,
      ),
    ).toBeLessThan(-T_CRIT_9DF);
  });
});
