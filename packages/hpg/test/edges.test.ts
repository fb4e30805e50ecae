/**
 * Edge inputs found by an adversarial audit: integer options beyond 2^53, option values at the far end
 * of their documented ranges, and queries whose squared norm under- or overflows.
 */
import { ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { EuclideanPg, Hpg, ParameterFreeHpg } from "../src/index.js";
import { unitVector } from "./helpers.js";
import { type AnyRouter, routers } from "./policies.js";

const ARMS = ["a", "b", "c"];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(isRouteKitError(e), String(e)).toBe(true);
    return (e as { code: string }).code;
  }
  return undefined;
}

function run(p: AnyRouter, rounds: number, d: number, seed = 2): void {
  const rng = Rng.fromSeed(seed);
  for (let t = 0; t < rounds; t++) {
    const dec = p.select(unitVector(rng, d));
    p.update(dec, { reward: 2 * rng.uniform() - 1 });
  }
}

describe.each(routers)("%s: integer options", (_name, make, restore) => {
  it("a horizon above 2^53 - 1 is OUT_OF_RANGE; the largest safe one snapshots and restores", () => {
    const mk = make as (o: Record<string, unknown>) => AnyRouter;
    expect(codeOf(() => mk({ arms: ARMS, contextDim: 4, horizon: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => mk({ arms: ARMS, contextDim: 4, horizon: 1e308 }))).toBe(ErrorCode.OutOfRange);
    const p = mk({ arms: ARMS, contextDim: 4, horizon: Number.MAX_SAFE_INTEGER, seed: 1 });
    run(p, 20, 4);
    const text = JSON.stringify(p.toJSON());
    expect(JSON.stringify(restore(JSON.parse(text)).toJSON())).toBe(text);
  });
});

describe.each([
  ["hpg", Hpg],
  ["parameter-free", ParameterFreeHpg],
  ["euclidean-pg", EuclideanPg],
] as const)("%s: maxRank and reorthEvery", (_name, C) => {
  it("above 2^53 - 1 are OUT_OF_RANGE; the largest safe values snapshot and restore", () => {
    for (const k of ["maxRank", "reorthEvery"]) {
      expect(codeOf(() => new C({ arms: ARMS, contextDim: 4, [k]: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
      const p = new C({ arms: ARMS, contextDim: 4, [k]: Number.MAX_SAFE_INTEGER, seed: 1 });
      run(p as unknown as AnyRouter, 20, 4);
      const text = JSON.stringify(p.toJSON());
      expect(JSON.stringify((C.fromJSON(JSON.parse(text)) as { toJSON(): unknown }).toJSON())).toBe(text);
    }
  });
});
