/**
 * Every number a paper-003 scenario's reference or description states about its own set-up must be
 * what the scenario runs: embedding dimension (d = N), horizon (T = N), RBF bandwidth (sigma = X),
 * the seeds RouteKit numbers were measured on ("RouteKit ... N seeds") and the prompt pool size.
 */
import { type PromptPoolPreset, promptPoolConfig } from "@routekit/environments";
import { describe, expect, it } from "vitest";
import { kernelucbRegistry, rbfSigma } from "../src/registry/kernel-ucb.js";

const all = (re: RegExp, s: string) => [...s.matchAll(re)].map((m) => Number(m[1]));

describe("kernel-ucb scenario references match their configuration", () => {
  for (const sc of kernelucbRegistry.scenarios) {
    it(sc.name, () => {
      const text = `${sc.description} ${sc.reference ?? ""}`;
      const p = sc.environment.params ?? {};
      const cfg = promptPoolConfig(p.preset as PromptPoolPreset, {
        ...(Number(p.contextDim) > 0 ? { dim: Number(p.contextDim) } : {}),
        ...(Number(p.poolSize) > 0 ? { poolSize: Number(p.poolSize) } : {}),
        ...(p.sampling === "fresh" || p.sampling === "pool" ? { sampling: p.sampling } : {}),
      });
      for (const d of all(/\bd = (\d+)/g, text)) expect(d, `d in "${text}"`).toBe(cfg.dim);
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

describe("named RBF bandwidths", () => {
  it("sigma by default; the paper's image and LLM values by name; anything else rejected", () => {
    expect(rbfSigma({ sigma: 2, bandwidth: "sigma" })).toBe(2);
    expect(rbfSigma({ sigma: 2, bandwidth: "paper-image" })).toBe(5);
    expect(rbfSigma({ sigma: 2, bandwidth: "paper-llm" })).toBe(0.5);
    expect(() => rbfSigma({ sigma: 2, bandwidth: "median" })).toThrow(/bandwidth must be/);
  });
});
