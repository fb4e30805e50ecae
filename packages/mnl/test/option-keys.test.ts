import { isRouteKitError, type PolicyBase, type Snapshot } from "@routekit/core";
import { checkUnknownOptionKey, resealSnapshot } from "@routekit/core/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  MLE_BASELINE_OPTION_KEYS,
  type MleBaselineOptions,
  type MNL_COMMON_OPTION_KEYS,
  type MnlCommonOptions,
  OFU_MNL_PLUS_OPTION_KEYS,
  OfuMnlPlus,
  type OfuMnlPlusOptions,
  TS_MNL_OPTION_KEYS,
  TsMnl,
  type TsMnlOptions,
  UcbMnl,
} from "../src/index.js";

it("each key list names exactly the keys of its options type", () => {
  expectTypeOf<(typeof MNL_COMMON_OPTION_KEYS)[number]>().toEqualTypeOf<keyof MnlCommonOptions>();
  expectTypeOf<(typeof MLE_BASELINE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof MleBaselineOptions>();
  expectTypeOf<(typeof TS_MNL_OPTION_KEYS)[number]>().toEqualTypeOf<keyof TsMnlOptions>();
  expectTypeOf<(typeof OFU_MNL_PLUS_OPTION_KEYS)[number]>().toEqualTypeOf<keyof OfuMnlPlusOptions>();
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

type Case = [
  string,
  (o: unknown) => PolicyBase,
  (s: Snapshot) => PolicyBase,
  Record<string, unknown>,
  readonly string[],
];
const base = { contextDim: 3, maxSize: 2, seed: 1 };
const CASES: Case[] = [
  [
    "OfuMnlPlus",
    (o) => new OfuMnlPlus(o as never),
    OfuMnlPlus.fromJSON,
    { ...base, stepSize: 2 },
    OFU_MNL_PLUS_OPTION_KEYS,
  ],
  ["UcbMnl", (o) => new UcbMnl(o as never), UcbMnl.fromJSON, { ...base, ridge: 2 }, MLE_BASELINE_OPTION_KEYS],
  ["TsMnl", (o) => new TsMnl(o as never), TsMnl.fromJSON, { ...base, samples: 2 }, TS_MNL_OPTION_KEYS],
];

describe.each(CASES)("%s", (name, construct, restore, baseOptions, keys) => {
  it("refuses unknown and misspelt option keys with INVALID_ARGUMENT", () => {
    expect(checkUnknownOptionKey({ name, construct, restore, baseOptions })).toBeGreaterThan(3);
  });
  it("accepts every optional listed key set to undefined (the default)", () => {
    for (const k of keys) {
      if (k === "contextDim" || k === "maxSize") continue;
      expect(() => construct({ ...baseOptions, [k]: undefined }), k).not.toThrow();
    }
  });
  it("a snapshot with an unknown key in common or config is SNAPSHOT_CORRUPT naming it", () => {
    const snap = JSON.parse(JSON.stringify(construct(baseOptions).toJSON()));
    expect(() => restore(resealSnapshot(snap))).not.toThrow();
    for (const field of ["common", "config"]) {
      const bad = JSON.parse(JSON.stringify(snap));
      bad.state[field].stepsize = 1;
      const e = refusal(() => restore(resealSnapshot(bad)));
      expect(e.code).toBe("SNAPSHOT_CORRUPT");
      expect(e.message).toContain('unknown option "stepsize"');
    }
  });
});

it('README: an unknown option key, e.g. `stepsize`, is INVALID_ARGUMENT with "did you mean"', () => {
  const e = refusal(() => new OfuMnlPlus({ contextDim: 3, maxSize: 2, stepsize: 0.1 } as OfuMnlPlusOptions));
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('unknown option "stepsize" (did you mean "stepSize"?)');
  expect(() => new OfuMnlPlus({ contextDim: 3, maxSize: 2, stepSize: undefined })).not.toThrow();
});
