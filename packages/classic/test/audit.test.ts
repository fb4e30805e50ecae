/**
 * Outside audit (session 7): inputs the earlier tests did not try. Each test failed before its fix.
 */
import { ErrorCode, isRouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { LinUCBDisjoint, LinUCBShared } from "../src/index.js";

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (e) {
    return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("LinUCB: every accepted contextDim gives a snapshot that serialises", () => {
  it("a ridge side above 4096 is OUT_OF_RANGE (at 8192 one arm's A^-1 is 683 MB of base64: toJSON threw an untyped Error)", () => {
    expect(codeOf(() => new LinUCBDisjoint({ arms: ["a"], contextDim: 4097 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new LinUCBDisjoint({ arms: ["a"], contextDim: 8192 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new LinUCBShared({ arms: ["a"], contextDim: 4096, maxArms: 1 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new LinUCBShared({ arms: ["a"], contextDim: 4032, maxArms: 65 }))).toBe(ErrorCode.OutOfRange);
    const shared = new LinUCBShared({ arms: ["a"], contextDim: 4094, maxArms: 1 });
    shared.addArm("b"); // grows to 2 slots: 4096 features
    expect(codeOf(() => shared.addArm("c"))).toBe(ErrorCode.OutOfRange); // would grow to 4098
    expect(shared.arms).toEqual(["a", "b"]);
  });

  it("LinUCBShared takes every arm that fits in contextDim + slots <= 4096 (doubling refused arms that fit)", () => {
    // contextDim 4093, maxArms 1: slots 1 -> 2 -> 3 fit (4096 features); doubling 2 -> 4 made the third addArm
    // OUT_OF_RANGE although the README's bound allows it. Growth now stops at the bound.
    const p = new LinUCBShared({ arms: ["a"], contextDim: 4093, maxArms: 1, seed: 3 });
    p.addArm("b");
    p.addArm("c");
    expect(p.capacity).toBe(3);
    expect(codeOf(() => p.addArm("d"))).toBe(ErrorCode.OutOfRange);
    expect(p.arms).toEqual(["a", "b", "c"]);
    const x = new Float64Array(4093).fill(1 / 64);
    for (let i = 0; i < 3; i++) p.update(p.select(x), { reward: i / 2 });
    const pending = p.select(x);
    const text = JSON.stringify(p.toJSON());
    const q = LinUCBShared.fromJSON(JSON.parse(text));
    expect(JSON.stringify(q.toJSON())).toBe(text);
    expect(q.capacity).toBe(3);
    q.update(pending, { reward: 1 });
    p.update(pending, { reward: 1 });
    expect(q.select(x)).toEqual(p.select(x));
  });

  it("at the largest contextDim (4096) a one-arm LinUCBDisjoint snapshot stringifies and restores bit-exactly", () => {
    const d = 4096;
    const p = new LinUCBDisjoint({ arms: ["a"], contextDim: d, seed: 1 });
    const x = new Float64Array(d).fill(1 / 64);
    p.update(p.select(x), { reward: 0.5 });
    const text = JSON.stringify(p.toJSON());
    expect(text.length).toBeLessThan(2 ** 29 - 24);
    const q = LinUCBDisjoint.fromJSON(JSON.parse(text));
    expect(Array.from(q.theta("a"))).toEqual(Array.from(p.theta("a")));
  });
});
