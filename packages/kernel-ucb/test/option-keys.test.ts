import { isRouteKitError, type PolicyBase, type Snapshot } from "@routekit/core";
import { checkUnknownOptionKey, resealSnapshot } from "@routekit/core/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  DotKernel,
  type KERNEL_POLICY_OPTION_KEYS,
  type KERNEL_SPEC_KEYS,
  KERNEL_UCB_OPTION_KEYS,
  type KernelPolicyOptions,
  type KernelSpec,
  KernelUcb,
  type KernelUcbOptions,
  PAK_UCB_OPTION_KEYS,
  PakUcb,
  type PakUcbOptions,
  RFF_UCB_OPTION_KEYS,
  RffUcb,
  type RffUcbOptions,
  type SCORE_TRANSFORM_KEYS,
  type ScoreTransform,
  type SUP_OPTION_KEYS,
  SUP_PAK_UCB_OPTION_KEYS,
  SUP_RFF_UCB_OPTION_KEYS,
  type SupOptions,
  SupPakUcb,
  type SupPakUcbOptions,
  SupRffUcb,
  type SupRffUcbOptions,
} from "../src/index.js";

it("each key list names exactly the keys of its options type", () => {
  expectTypeOf<(typeof KERNEL_POLICY_OPTION_KEYS)[number]>().toEqualTypeOf<keyof KernelPolicyOptions>();
  expectTypeOf<(typeof SUP_OPTION_KEYS)[number]>().toEqualTypeOf<keyof SupOptions>();
  expectTypeOf<(typeof KERNEL_UCB_OPTION_KEYS)[number]>().toEqualTypeOf<keyof KernelUcbOptions>();
  expectTypeOf<(typeof PAK_UCB_OPTION_KEYS)[number]>().toEqualTypeOf<keyof PakUcbOptions>();
  expectTypeOf<(typeof RFF_UCB_OPTION_KEYS)[number]>().toEqualTypeOf<keyof RffUcbOptions>();
  expectTypeOf<(typeof SUP_PAK_UCB_OPTION_KEYS)[number]>().toEqualTypeOf<keyof SupPakUcbOptions>();
  expectTypeOf<(typeof SUP_RFF_UCB_OPTION_KEYS)[number]>().toEqualTypeOf<keyof SupRffUcbOptions>();
  expectTypeOf<(typeof SCORE_TRANSFORM_KEYS)[number]>().toEqualTypeOf<keyof ScoreTransform>();
  expectTypeOf<(typeof KERNEL_SPEC_KEYS.poly)[number]>().toEqualTypeOf<keyof Extract<KernelSpec, { type: "poly" }>>();
});

type Case = [
  string,
  (o: unknown) => PolicyBase,
  (s: Snapshot) => PolicyBase,
  Record<string, unknown>,
  readonly string[],
];
const base = { arms: ["a", "b"], contextDim: 3 };
const sup = { ...base, horizon: 64 };
const CASES: Case[] = [
  ["KernelUcb", (o) => new KernelUcb(o as never), KernelUcb.fromJSON, { ...base, ridge: 2 }, KERNEL_UCB_OPTION_KEYS],
  ["PakUcb", (o) => new PakUcb(o as never), PakUcb.fromJSON, { ...base, confidence: 0.1 }, PAK_UCB_OPTION_KEYS],
  ["RffUcb", (o) => new RffUcb(o as never), RffUcb.fromJSON, { ...base, frequencies: 8 }, RFF_UCB_OPTION_KEYS],
  ["SupPakUcb", (o) => new SupPakUcb(o as never), SupPakUcb.fromJSON, { ...sup, stages: 2 }, SUP_PAK_UCB_OPTION_KEYS],
  [
    "SupRffUcb",
    (o) => new SupRffUcb(o as never),
    SupRffUcb.fromJSON,
    { ...sup, maxFrequencies: 6 },
    SUP_RFF_UCB_OPTION_KEYS,
  ],
];

function refusal(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    if (isRouteKitError(e)) return e;
    throw e;
  }
  throw new Error("accepted");
}

describe.each(CASES)("%s", (name, construct, restore, baseOptions, keys) => {
  it("refuses unknown and misspelt option keys with INVALID_ARGUMENT", () => {
    expect(checkUnknownOptionKey({ name, construct, restore, baseOptions })).toBeGreaterThan(3);
  });
  it("accepts every optional listed key set to undefined (the default)", () => {
    for (const k of keys) {
      if (k === "arms" || k === "contextDim" || (k === "horizon" && name.startsWith("Sup"))) continue;
      expect(() => construct({ ...baseOptions, [k]: undefined }), k).not.toThrow();
    }
  });
  it("refuses an unknown key in scoreTransform, and in a snapshot's scoreTransform", () => {
    const e = refusal(() => construct({ ...baseOptions, scoreTransform: { scale: 2, ofset: 1 } }));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toContain('option scoreTransform: unknown option "ofset" (did you mean "offset"?)');
    const snap = JSON.parse(JSON.stringify(construct(baseOptions).toJSON()));
    snap.state.scoreTransform.extra = 1;
    const s = refusal(() => restore(resealSnapshot(snap)));
    expect(s.code).toBe("SNAPSHOT_CORRUPT");
    expect(s.message).toContain('unknown option "extra"');
  });
});

describe("kernel specs", () => {
  it("refuse keys of another kernel type or typos, in options, DotKernel and snapshots", () => {
    const e = refusal(() => new PakUcb({ ...base, kernel: { type: "rbf", sigma: 1, gamma: 2 } as never }));
    expect(e.code).toBe("INVALID_ARGUMENT");
    expect(e.message).toContain('unknown option "gamma"; known options: type, sigma');
    expect(refusal(() => new DotKernel({ type: "poly", gamma: 1, degre: 2 } as never)).message).toContain(
      'did you mean "degree"?',
    );
    expect(() => new KernelUcb({ ...base, kernel: { type: "poly", gamma: 1, c: undefined } })).not.toThrow();
    const snap = JSON.parse(JSON.stringify(new PakUcb(base).toJSON()));
    snap.state.kernel.extra = 1;
    const r = refusal(() => PakUcb.fromJSON(resealSnapshot(snap)));
    expect(r.code).toBe("SNAPSHOT_CORRUPT");
    expect(r.message).toContain('unknown option "extra"');
  });
});

it("README: an unknown option key, e.g. `exploraton`, is INVALID_ARGUMENT naming the near miss", () => {
  const e = refusal(() => new PakUcb({ ...base, exploraton: 1 } as PakUcbOptions));
  expect(e.code).toBe("INVALID_ARGUMENT");
  expect(e.message).toContain('unknown option "exploraton" (did you mean "exploration"?)');
  const k = refusal(() => new PakUcb({ ...base, kernel: { type: "rbf", sigma: 1, simga: 2 } as never }));
  expect(k.message).toContain('did you mean "sigma"?');
});
