/**
 * Every number a paper-003 scenario's reference or description states about its own set-up must be
 * what the scenario runs: embedding dimension (d = N), horizon (T = N), RBF bandwidth (sigma = X),
 * the seeds RouteKit numbers were measured on ("RouteKit ... N seeds") and the prompt pool size; and
 * every number it quotes about the environment exists in the preset: the paper's category means
 * ("dog 36.37 vs 37.24", "55.91% vs 13.84%", one pair per category, arms in order), the mean matrices of
 * the calibration panels, noise levels, expert means, generations, task counts, arrival and category rounds.
 */
import { type PromptPoolConfig, type PromptPoolPreset, promptPoolConfig } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { REFERENCE_METRICS } from "../src/reference.js";
import { calibrationTargets, kernelucbRegistry, rbfSigma } from "../src/registry/kernel-ucb.js";

const all = (re: RegExp, s: string) => [...s.matchAll(re)].map((m) => Number(m[1]));
const near = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol;
/** "x vs y" pairs of scores in percent or CLIPScore points (x100 of the preset's [0, 1] means). */
const pairs = (s: string) =>
  [...s.matchAll(/(\d+\.\d+)%? vs (\d+\.\d+)%?/g)].map((m) => [Number(m[1]) / 100, Number(m[2]) / 100] as const);
const column = (cfg: PromptPoolConfig, k: number) => cfg.means.map((row) => row[k] as number);

/** Checks every quoted environment number of one scenario against its preset; returns how many it checked. */
function checkQuotedNumbers(text: string, cfg: PromptPoolConfig): number {
  let checked = 0;
  const K = cfg.categories.length;
  const G = cfg.means.length;
  // Category pairs: the two arms' means on one category. Derived pairs (the best per-category choice
  // against the best single model) are the averages over categories of the column maxima / the best row.
  const perCatBest = Array.from({ length: K }, (_, k) => Math.max(...column(cfg, k)));
  const oracle = perCatBest.reduce((a, b) => a + b, 0) / K;
  const bestSingle = Math.max(...cfg.means.map((r) => r.reduce((a, b) => a + b, 0) / K));
  for (const [x, y] of pairs(text)) {
    const direct = Array.from({ length: K }, (_, k) => column(cfg, k)).some(
      (c) => G >= 2 && near(c[0] as number, x, 5e-7) && near(c[1] as number, y, 5e-7),
    );
    const derived = near(x, oracle, 5e-4 + 1e-9) && near(y, bestSingle, 5e-4 + 1e-9);
    expect(
      direct || derived,
      `"${x * 100} vs ${y * 100}" is not in the preset's means ${JSON.stringify(cfg.means)}`,
    ).toBe(true);
    checked++;
  }
  for (const m of text.matchAll(/\[\[([\d., [\]]+)\]\]/g)) {
    expect(JSON.parse(`[[${(m[1] as string).replace(/(^|[[,\s])\./g, (_, pre: string) => `${pre}0.`)}]]`)).toEqual(
      cfg.means,
    );
    checked++;
  }
  for (const sd of all(/noise (0?\.\d+)/g, text)) {
    expect(cfg.noise).toEqual({ type: "gaussian", sd });
    checked++;
  }
  for (const m of text.matchAll(/expert (0?\.\d+)[^)]*?(?:others|vs) (0?\.\d+)/g)) {
    const on = cfg.means.map((r, g) => r[g]);
    const off = cfg.means.flatMap((r, g) => r.filter((_, k) => k !== g));
    expect(new Set(on)).toEqual(new Set([Number(m[1])]));
    expect(new Set(off)).toEqual(new Set([Number(m[2])]));
    checked++;
  }
  for (const m of text.matchAll(/\((0?\.\d+) vs (0?\.\d+), noise/g)) {
    expect(new Set(cfg.means.map((r, g) => r[g]))).toEqual(new Set([Number(m[1])]));
    expect(cfg.means.flatMap((r, g) => r.filter((_, k) => k !== g))).toContain(Number(m[2]));
    checked++;
  }
  for (const n of all(/(\d+) generations/g, text)) {
    expect(n, "generations").toBe(cfg.generations);
    checked++;
  }
  for (const m of text.matchAll(/(\d+) x (\d+) tasks/g)) {
    expect(Number(m[1]) * Number(m[2]), "tasks in the pool").toBe(cfg.poolSize);
    expect(Number(m[1]), "task families").toBe(K);
    checked++;
  }
  for (const t of all(/joins at t = (\d+)/g, text)) {
    expect(Object.values(cfg.armArrivals ?? {})).toEqual([t]);
    checked++;
  }
  for (const n of all(/every (\d+) rounds/g, text)) {
    const starts = cfg.categoryStarts ?? [];
    expect(starts.filter((s) => s > 0)).toEqual(starts.filter((s) => s > 0).map((_, i) => (i + 1) * n));
    expect(starts.some((s) => s > 0)).toBe(true);
    checked++;
  }
  return checked;
}

describe("kernel-ucb scenario references match their configuration", () => {
  for (const sc of kernelucbRegistry.scenarios) {
    it(sc.name, () => {
      const text = `${sc.description} ${sc.reference ?? ""}`;
      const p = sc.environment.params ?? {};
      const cfg = promptPoolConfig(p.preset as PromptPoolPreset, {
        ...(Number(p.contextDim) > 0 ? { contextDim: Number(p.contextDim) } : {}),
        ...(Number(p.poolSize) > 0 ? { poolSize: Number(p.poolSize) } : {}),
        ...(p.sampling === "fresh" || p.sampling === "pool" ? { sampling: p.sampling } : {}),
        ...(Number(p.rho) > 0 ? { rho: Number(p.rho) } : {}),
      });
      // "separation rho = N" in the reference and "rho = N:" in the description name what the scenario runs
      // (other mentions of rho compare with other groups).
      const layout = cfg.layout as { rho?: number };
      for (const r of all(/(?:separation rho = |, rho = )(\d+(?:\.\d+)?)/g, text)) expect(layout.rho, "rho").toBe(r);
      for (const d of all(/\bd = (\d+)/g, text)) expect(d, `d in "${text}"`).toBe(cfg.contextDim);
      // The calibration targets (an independent implementation's OPR / regret) are results, not settings.
      checkQuotedNumbers(text.replace(/Targets:.*$/s, ""), cfg);
      for (const T of all(/\bT = (\d+)/g, text)) expect(T, `T in "${text}"`).toBe(sc.horizon);
      for (const n of all(/RouteKit[^.;]*?\b(\d+) seeds/g, text)) expect(n, "RouteKit seeds").toBe(sc.seeds);
      const sigmas = sc.policies
        .map((q) =>
          rbfSigma({ sigma: Number(q.params?.sigma ?? Number.NaN), bandwidth: q.params?.bandwidth ?? "sigma" }),
        )
        .filter(Number.isFinite);
      for (const s of all(/sigma = (\d+(?:\.\d+)?)/g, text)) expect(sigmas, `sigma ${s}`).toContain(s);
      // "a pool of N prompts" in the description names the pool the scenario samples.
      for (const n of all(/pool of (\d+) prompts/g, sc.description)) {
        expect(cfg.sampling).toBe("pool");
        expect(n).toBe(cfg.poolSize);
      }
      if (/fresh prompts|a new (?:prompt|puzzle) every round/i.test(text) && !/pool mode|fixed pool/i.test(text)) {
        expect(cfg.sampling, "fresh in the text").toBe("fresh");
      }
    });
  }
});

describe("structured reference numbers", () => {
  it("name a policy of the scenario, a summary metric and the reference's seeds, once per cell, as its text quotes them", () => {
    let cells = 0;
    for (const sc of kernelucbRegistry.scenarios) {
      const refs = sc.referenceValues ?? [];
      const labels = sc.policies.map((q) => q.label);
      const keys = refs.map((r) => `${r.policy}/${r.metric}`);
      expect(new Set(keys).size, sc.name).toBe(keys.length);
      for (const r of refs) {
        expect(labels, sc.name).toContain(r.policy);
        expect(REFERENCE_METRICS).toContain(r.metric);
        expect(Number.isInteger(r.seeds) && r.seeds >= 1).toBe(true);
        // the seed count and every value appear in the printed reference text
        expect(sc.reference ?? "").toContain(`mean of ${r.seeds} runs`);
        const quoted = String(r.value).replace(/^0\./, ".").replace(/^-0\./, "-.");
        expect(sc.reference ?? "", `${sc.name} ${r.policy} ${r.metric}`).toMatch(
          new RegExp(`(^|[^\\d])\\+?${quoted.replace(".", "\\.")}0*($|[^\\d])`),
        );
        cells++;
      }
    }
    // 4 calibration panels x 7 policies x (OPR, regret) + swap's PAK-UCB-RBF O2B, at rho = 1 and rho = 3
    expect(cells).toBe(2 * (4 * 7 * 2 + 1));
  });

  it("calibration cells parse as OPR / regret in lineup order, with an optional O2B", () => {
    const labels = ["a", "b"];
    expect(calibrationTargets(".50/801, .995/7.7 (O2B +.397)", labels)).toEqual([
      { policy: "a", metric: "opr", value: 0.5, seeds: 3, rounding: 0.005 },
      { policy: "a", metric: "regret", value: 801, seeds: 3, rounding: 0.5 },
      { policy: "b", metric: "opr", value: 0.995, seeds: 3, rounding: 0.0005 },
      { policy: "b", metric: "regret", value: 7.7, seeds: 3, rounding: 0.05 },
      { policy: "b", metric: "o2b", value: 0.397, seeds: 3, rounding: 0.0005 },
    ]);
    expect(() => calibrationTargets(".50/801", labels)).toThrow(/1 target cells for 2 policies/);
    expect(() => calibrationTargets(".50 801, .5/2", labels)).toThrow(/is not OPR\/regret/);
  });
});

describe("named RBF bandwidths", () => {
  it("sigma by default; the paper's image and LLM values by name; anything else rejected", () => {
    expect(rbfSigma({ sigma: 2, bandwidth: "sigma" })).toBe(2);
    expect(rbfSigma({ sigma: 2, bandwidth: "paper-image" })).toBe(5);
    expect(rbfSigma({ sigma: 2, bandwidth: "paper-llm" })).toBe(0.5);
    expect(() => rbfSigma({ sigma: 2, bandwidth: "median" })).toThrow(/bandwidth must be/);
  });
});
