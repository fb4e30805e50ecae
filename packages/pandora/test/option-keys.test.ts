import { isRouteKitError, type PolicyBase, type Snapshot } from "@routekit/core";
import { checkUnknownOptionKey, resealSnapshot } from "@routekit/core/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type BASELINE_OPTION_KEYS,
  type BaselineOptions,
  COSMOS_OPTION_KEYS,
  Cosmos,
  type CosmosOptions,
  ONE_SHOT_OPTION_KEYS,
  OneShot,
  type OneShotOptions,
  QUERY_ALL_OPTION_KEYS,
  QueryAll,
  type QueryAllOptions,
  type THEORY_OPTION_KEYS,
  THRESHOLD_CASCADE_OPTION_KEYS,
  type TheoryOptions,
  ThresholdCascade,
  type ThresholdCascadeOptions,
  WEITZMAN_ORACLE_OPTION_KEYS,
  WeitzmanOracle,
  type WeitzmanOracleOptions,
} from "../src/index.js";

it("each key list names exactly the keys of its options type", () => {
  expectTypeOf<(typeof COSMOS_OPTION_KEYS)[number]>().toEqualTypeOf<keyof CosmosOptions>();
  expectTypeOf<(typeof THEORY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof TheoryOptions>();
  expectTypeOf<(typeof BASELINE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof BaselineOptions>();
  expectTypeOf<(typeof QUERY_ALL_OPTION_KEYS)[number]>().toEqualTypeOf<keyof QueryAllOptions>();
  expectTypeOf<(typeof THRESHOLD_CASCADE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof ThresholdCascadeOptions>();
  expectTypeOf<(typeof WEITZMAN_ORACLE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof WeitzmanOracleOptions>();
  expectTypeOf<(typeof ONE_SHOT_OPTION_KEYS)[number]>().toEqualTypeOf<keyof OneShotOptions>();
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

const base = { arms: ["a", "b"], contextDim: 2, outputDim: 2 };
const oracle = { ...base, rewardParameter: [0.5, 0.5], indexParameters: { a: [0, 1, 0], b: [0, 0, 1] } };
type Case = [
  string,
  (o: unknown) => PolicyBase,
  (s: Snapshot) => PolicyBase,
  Record<string, unknown>,
  readonly string[],
];
const CASES: Case[] = [
  ["Cosmos", (o) => new Cosmos(o as never), Cosmos.fromJSON, { ...base, ridge: 2 }, COSMOS_OPTION_KEYS],
  ["QueryAll", (o) => new QueryAll(o as never), QueryAll.fromJSON, { ...base, exploration: 1 }, QUERY_ALL_OPTION_KEYS],
  [
    "ThresholdCascade",
    (o) => new ThresholdCascade(o as never),
    ThresholdCascade.fromJSON,
    { ...base, threshold: 0.5 },
    THRESHOLD_CASCADE_OPTION_KEYS,
  ],
  [
    "WeitzmanOracle",
    (o) => new WeitzmanOracle(o as never),
    WeitzmanOracle.fromJSON,
    oracle,
    WEITZMAN_ORACLE_OPTION_KEYS,
  ],
  ["OneShot", (o) => new OneShot(o as never), OneShot.fromJSON, { ...base, ridge: 2 }, ONE_SHOT_OPTION_KEYS],
];

describe.each(CASES)("%s", (name, construct, restore, baseOptions, keys) => {
  it("refuses unknown and misspelt option keys with INVALID_ARGUMENT", () => {
    expect(checkUnknownOptionKey({ name, construct, restore, baseOptions })).toBeGreaterThan(3);
  });
  it("accepts every optional listed key set to undefined (the default)", () => {
    const required = ["arms", "contextDim", "outputDim", "indexParameters"];
    for (const k of keys) {
      if (required.includes(k) || (name === "WeitzmanOracle" && k === "rewardParameter")) continue;
      expect(() => construct({ ...baseOptions, [k]: undefined }), k).not.toThrow();
    }
  });
  it("a snapshot whose config has an unknown key is SNAPSHOT_CORRUPT naming it", () => {
    const snap = JSON.parse(JSON.stringify(construct(baseOptions).toJSON()));
    expect(() => restore(resealSnapshot(snap))).not.toThrow();
    snap.state.config.rigde = 1;
    const e = refusal(() => restore(resealSnapshot(snap)));
    expect(e.code).toBe("SNAPSHOT_CORRUPT");
    expect(e.message).toContain('unknown option "rigde"');
  });
});

it("theory constants: an unknown key is refused, in options and in a snapshot", () => {
  const theory = { kappa: 0.5, psiBound: 2 };
  expect(() => new Cosmos({ ...base, theory })).not.toThrow();
  const e = refusal(() => new Cosmos({ ...base, theory: { ...theory, kapa: 1 } as TheoryOptions }));
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('option theory: unknown option "kapa" (did you mean "kappa"?)');
  const snap = JSON.parse(JSON.stringify(new Cosmos({ ...base, theory }).toJSON()));
  snap.state.config.theory.extra = 1;
  expect(refusal(() => Cosmos.fromJSON(resealSnapshot(snap))).code).toBe("SNAPSHOT_CORRUPT");
});

it("indexParameters is keyed by model id: any id is accepted there", () => {
  const ip = { ...oracle.indexParameters, stepSize: [0, 0, 0] };
  expect(() => new WeitzmanOracle({ ...oracle, indexParameters: ip })).not.toThrow();
});

it('README: an unknown option key, e.g. `explorationplugin`, is INVALID_ARGUMENT with "did you mean"', () => {
  const e = refusal(() => new Cosmos({ ...base, explorationplugin: 1 } as CosmosOptions));
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('unknown option "explorationplugin" (did you mean "explorationPlugIn"?)');
});
