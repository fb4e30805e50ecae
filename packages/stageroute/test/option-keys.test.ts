import { isRouteKitError, type PolicyBase, type Snapshot } from "@routekit/core";
import { checkUnknownOptionKey, resealSnapshot } from "@routekit/core/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type ADD_ARM_OPTION_KEYS,
  RatioGreedy,
  type STAGE_ORACLE_MEAN_KEYS,
  STAGE_ORACLE_OPTION_KEYS,
  STAGE_POLICY_OPTION_KEYS,
  StageOracle,
  type StageOracleOptions,
  type StagePolicyOptions,
  StageRoute,
  type StageRouteOptions,
} from "../src/index.js";

it("each key list names exactly the keys of its options type", () => {
  expectTypeOf<(typeof STAGE_POLICY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof StagePolicyOptions>();
  expectTypeOf<(typeof STAGE_ORACLE_OPTION_KEYS)[number]>().toEqualTypeOf<keyof StageOracleOptions>();
  expectTypeOf<(typeof STAGE_ORACLE_MEAN_KEYS)[number]>().toEqualTypeOf<"reward" | "cost">();
  expectTypeOf<(typeof ADD_ARM_OPTION_KEYS)[number]>().toEqualTypeOf<
    keyof NonNullable<Parameters<StageRoute["addArm"]>[1]>
  >();
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

const base = { arms: ["a", "b"], budget: 1, maxDeployed: 2, stageLength: 5, seed: 1 };
const means = { a: { reward: 0.5, cost: 0.5 }, b: { reward: 0.7, cost: 2 }, c: { reward: 0.1, cost: 0.1 } };
type Case = [
  string,
  (o: unknown) => PolicyBase,
  (s: Snapshot) => PolicyBase,
  Record<string, unknown>,
  readonly string[],
];
const CASES: Case[] = [
  ["StageRoute", (o) => new StageRoute(o as never), StageRoute.fromJSON, base, STAGE_POLICY_OPTION_KEYS],
  ["RatioGreedy", (o) => new RatioGreedy(o as never), RatioGreedy.fromJSON, base, STAGE_POLICY_OPTION_KEYS],
  [
    "StageOracle",
    (o) => new StageOracle(o as never),
    StageOracle.fromJSON,
    { ...base, means },
    STAGE_ORACLE_OPTION_KEYS,
  ],
];

describe.each(CASES)("%s", (name, construct, restore, baseOptions, keys) => {
  it("refuses unknown and misspelt option keys with INVALID_ARGUMENT", () => {
    expect(checkUnknownOptionKey({ name, construct, restore, baseOptions })).toBeGreaterThan(3);
  });
  it("accepts every optional listed key set to undefined (the default)", () => {
    const required = ["arms", "budget", "maxDeployed", "stageLength", "means"];
    for (const k of keys) {
      if (required.includes(k)) continue;
      expect(() => construct({ ...baseOptions, [k]: undefined }), k).not.toThrow();
    }
  });
  it("a snapshot whose config has an unknown key is SNAPSHOT_CORRUPT naming it", () => {
    const snap = JSON.parse(JSON.stringify(construct(baseOptions).toJSON()));
    expect(() => restore(resealSnapshot(snap))).not.toThrow();
    snap.state.config.stagelength = 5;
    const e = refusal(() => restore(resealSnapshot(snap)));
    expect(e.code).toBe("SNAPSHOT_CORRUPT");
    expect(e.message).toContain('unknown option "stagelength"');
  });
  it("a snapshot whose config.searchNodeLimit or config.deploySolver is null is SNAPSHOT_CORRUPT (no limit and the built-in search are written as an absent key)", () => {
    const snap = JSON.parse(JSON.stringify(construct(baseOptions).toJSON()));
    expect(snap.state.config).not.toHaveProperty("searchNodeLimit");
    expect(snap.state.config).not.toHaveProperty("deploySolver");
    for (const key of ["searchNodeLimit", "deploySolver"]) {
      const bad = JSON.parse(JSON.stringify(snap));
      bad.state.config[key] = null;
      // null restored as "no limit" (or the built-in search): a value toJSON never writes.
      const e = refusal(() => restore(resealSnapshot(bad)));
      expect(e.code, key).toBe("SNAPSHOT_CORRUPT");
      expect(e.message, key).toContain(`config.${key}`);
    }
    const limited = JSON.parse(JSON.stringify(construct({ ...baseOptions, searchNodeLimit: 7 }).toJSON()));
    expect(restore(resealSnapshot(limited)).toJSON()).toEqual(limited);
  });
  it("addArm refuses an unknown key in its options, state unchanged", () => {
    const p = construct(baseOptions) as StageRoute;
    const before = JSON.stringify(p.toJSON());
    const e = refusal(() => p.addArm("c", { maxshare: 0.5 } as never));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toContain('addArm: unknown option "maxshare" (did you mean "maxShare"?)');
    expect(JSON.stringify(p.toJSON())).toBe(before);
    p.addArm("c", { maxShare: undefined });
    expect(p.arms).toContain("c");
  });
});

it("a per-arm maxShare record accepts any model id; a means entry with an unknown key is refused", () => {
  expect(() => new StageRoute({ ...base, maxShare: { stepSize: 1, a: 0.9 } })).not.toThrow();
  const e = refusal(
    () => new StageOracle({ ...base, means: { ...means, a: { reward: 0.5, cost: 1, costs: 2 } } as never }),
  );
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('option means["a"]: unknown option "costs" (did you mean "cost"?)');
  const snap = JSON.parse(JSON.stringify(new StageOracle({ ...base, means }).toJSON()));
  snap.state.means.a.extra = 1;
  expect(refusal(() => StageOracle.fromJSON(resealSnapshot(snap))).code).toBe("SNAPSHOT_CORRUPT");
});

it('README: an unknown option key, e.g. `stagelength`, is INVALID_ARGUMENT with "did you mean"', () => {
  const { stageLength: _s, ...rest } = base;
  const e = refusal(() => new StageRoute({ ...rest, stagelength: 5 } as unknown as StageRouteOptions));
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('unknown option "stagelength" (did you mean "stageLength"?)');
});
