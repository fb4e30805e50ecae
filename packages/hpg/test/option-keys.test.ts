import { isRouteKitError, type PolicyBase, type Snapshot } from "@routekit/core";
import { checkUnknownOptionKey } from "@routekit/core/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  BASELINE_OPTION_KEYS,
  type BaselineOptions,
  type DENSE_MIRROR_ITERATE_OPTION_KEYS,
  DenseMirrorIterate,
  type DenseMirrorIterateOptions,
  EUCLIDEAN_PG_OPTION_KEYS,
  EuclideanPg,
  type EuclideanPgOptions,
  EXP3_OPTION_KEYS,
  Exp3,
  type Exp3Options,
  HPG_OPTION_KEYS,
  Hpg,
  type HpgOptions,
  LOG_LINEAR_PG_OPTION_KEYS,
  type LOW_RANK_ROUTER_OPTION_KEYS,
  LogLinearPg,
  type LogLinearPgOptions,
  type LowRankRouterOptions,
  type MIRROR_ITERATE_OPTION_KEYS,
  MirrorIterate,
  type MirrorIterateOptions,
  PARAMETER_FREE_HPG_OPTION_KEYS,
  ParameterFreeHpg,
  type ParameterFreeHpgOptions,
  type ROUTER_OPTION_KEYS,
  type RouterOptions,
  UniformRouter,
} from "../src/index.js";

it("each key list names exactly the keys of its options type", () => {
  expectTypeOf<(typeof ROUTER_OPTION_KEYS)[number]>().toEqualTypeOf<keyof RouterOptions>();
  expectTypeOf<(typeof LOW_RANK_ROUTER_OPTION_KEYS)[number]>().toEqualTypeOf<keyof LowRankRouterOptions>();
  expectTypeOf<(typeof HPG_OPTION_KEYS)[number]>().toEqualTypeOf<keyof HpgOptions>();
  expectTypeOf<(typeof EUCLIDEAN_PG_OPTION_KEYS)[number]>().toEqualTypeOf<keyof EuclideanPgOptions>();
  expectTypeOf<(typeof PARAMETER_FREE_HPG_OPTION_KEYS)[number]>().toEqualTypeOf<keyof ParameterFreeHpgOptions>();
  expectTypeOf<(typeof BASELINE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof BaselineOptions>();
  expectTypeOf<(typeof EXP3_OPTION_KEYS)[number]>().toEqualTypeOf<keyof Exp3Options>();
  expectTypeOf<(typeof LOG_LINEAR_PG_OPTION_KEYS)[number]>().toEqualTypeOf<keyof LogLinearPgOptions>();
  expectTypeOf<(typeof MIRROR_ITERATE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof MirrorIterateOptions>();
  expectTypeOf<(typeof DENSE_MIRROR_ITERATE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof DenseMirrorIterateOptions>();
});

function refusal(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    if (isRouteKitError(e)) return e;
    throw e;
  }
  throw new Error("accepted");
}

const base = { arms: ["a", "b"], contextDim: 3, seed: 1 };
type Case = [
  string,
  (o: unknown) => PolicyBase,
  (s: Snapshot) => PolicyBase,
  Record<string, unknown>,
  readonly string[],
];
const CASES: Case[] = [
  ["Hpg", (o) => new Hpg(o as never), Hpg.fromJSON, { ...base, stepSize: 0.1 }, HPG_OPTION_KEYS],
  [
    "EuclideanPg",
    (o) => new EuclideanPg(o as never),
    EuclideanPg.fromJSON,
    { ...base, radius: 1 },
    EUCLIDEAN_PG_OPTION_KEYS,
  ],
  [
    "ParameterFreeHpg",
    (o) => new ParameterFreeHpg(o as never),
    ParameterFreeHpg.fromJSON,
    { ...base, initialWealth: 2 },
    PARAMETER_FREE_HPG_OPTION_KEYS,
  ],
  [
    "UniformRouter",
    (o) => new UniformRouter(o as never),
    UniformRouter.fromJSON,
    { ...base, horizon: 100 },
    BASELINE_OPTION_KEYS,
  ],
  ["Exp3", (o) => new Exp3(o as never), Exp3.fromJSON, { ...base, gamma: 0.2 }, EXP3_OPTION_KEYS],
  [
    "LogLinearPg",
    (o) => new LogLinearPg(o as never),
    LogLinearPg.fromJSON,
    { ...base, stepSize: 0.1 },
    LOG_LINEAR_PG_OPTION_KEYS,
  ],
];

describe.each(CASES)("%s", (name, construct, restore, baseOptions, keys) => {
  it("refuses unknown and misspelt option keys with INVALID_ARGUMENT", () => {
    expect(checkUnknownOptionKey({ name, construct, restore, baseOptions })).toBeGreaterThan(3);
  });
  it("accepts every optional listed key set to undefined (the default)", () => {
    for (const k of keys) {
      if (k === "arms" || k === "contextDim") continue;
      expect(() => construct({ ...baseOptions, [k]: undefined }), k).not.toThrow();
    }
  });
});

it("MirrorIterate and DenseMirrorIterate refuse unknown keys", () => {
  const o = { dim: 3, beta: 0.5, radius: 2 };
  expect(() => new MirrorIterate({ ...o, maxRank: undefined })).not.toThrow();
  expect(refusal(() => new MirrorIterate({ ...o, maxrank: 2 } as never)).message).toContain(
    'MirrorIterate: unknown option "maxrank" (did you mean "maxRank"?)',
  );
  expect(() => new DenseMirrorIterate(o)).not.toThrow();
  expect(refusal(() => new DenseMirrorIterate({ ...o, radious: 2 } as never)).code).toBe("INVALID_ARGUMENT");
});

it('README: an unknown option key, e.g. `stepsize`, is INVALID_ARGUMENT with "did you mean"', () => {
  const e = refusal(() => new Hpg({ ...base, stepsize: 0.1 } as HpgOptions));
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('unknown option "stepsize" (did you mean "stepSize"?)');
});
