/**
 * Outside audit (mnlaudit): the exported LP helpers with plain-JavaScript misuse. Each test failed before its fix
 * (a TypeError or RangeError, an unknown option key ignored, a NaN tolerance or threshold accepted).
 */
import { ErrorCode, RouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { crossCheckAssortmentLP, solveAssortmentLP } from "../src/index.js";

async function codeOf(f: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await f();
  } catch (e) {
    return e instanceof RouteKitError ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

const lp = solveAssortmentLP as (...args: unknown[]) => Promise<unknown>;
const cross = crossCheckAssortmentLP as (options?: unknown) => Promise<unknown>;

describe("solveAssortmentLP refuses bad input with a RouteKitError", () => {
  it("v or r that is null, undefined, a string or an Int32Array is INVALID_ARGUMENT (was a TypeError or a guess)", async () => {
    for (const bad of [null, undefined, "12", 3, {}, new Int32Array([1, 2])]) {
      expect(await codeOf(() => lp(bad, [1, 0.5], 1, 1))).toBe(ErrorCode.InvalidArgument);
      expect(await codeOf(() => lp([1, 2], bad, 1, 1))).toBe(ErrorCode.InvalidArgument);
    }
  });

  it("options that are null or not an object, an unknown key, or a supportThreshold that is not a number in [0, 1] are refused", async () => {
    expect(await codeOf(() => lp([1, 2], [1, 0.5], 1, 1, null))).toBe(ErrorCode.InvalidArgument);
    expect(await codeOf(() => lp([1, 2], [1, 0.5], 1, 1, { supportTreshold: 0.1 }))).toBe(ErrorCode.InvalidArgument);
    expect(await codeOf(() => lp([1, 2], [1, 0.5], 1, 1, { supportThreshold: "0.1" }))).toBe(ErrorCode.InvalidArgument);
    expect(await codeOf(() => lp([1, 2], [1, 0.5], 1, 1, { supportThreshold: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(await codeOf(() => lp([1, 2], [1, 0.5], 1, 1, { supportThreshold: -1 }))).toBe(ErrorCode.OutOfRange);
    expect(await codeOf(() => lp([1, 2], [1, 0.5], 1, 1, { supportThreshold: 2 }))).toBe(ErrorCode.OutOfRange);
  });

  it("copies v before its checks and solves the copy: a getter cannot hand the LP a value the checks did not see", async () => {
    // The check and the copy read v_0 (1); any later read would give NaN. The LP used to read v again after its
    // checks, four times, and solved a model with NaN in it.
    let reads = 0;
    const v = new Proxy([1, 2], {
      get(t, k, r) {
        if (k === "0") return reads++ < 2 ? 1 : Number.NaN;
        return Reflect.get(t, k, r);
      },
    });
    const res = (await lp(v, [1, 0.5], 1, 1)) as { items: number[]; objective: number; revenue: number };
    expect(res.items).toEqual([0]);
    expect(res.objective).toBeCloseTo(0.5, 12);
    expect(res.revenue).toBeCloseTo(0.5, 12);
  });
});

describe("crossCheckAssortmentLP refuses bad options with a RouteKitError", () => {
  it("null or a non-object is INVALID_ARGUMENT (was a TypeError); an unknown key is INVALID_ARGUMENT naming it (was ignored: 500 instances ran)", async () => {
    expect(await codeOf(() => cross(null))).toBe(ErrorCode.InvalidArgument);
    expect(await codeOf(() => cross(5))).toBe(ErrorCode.InvalidArgument);
    await expect(cross({ instancess: 3 })).rejects.toThrow(/instancess/);
  });

  it("tolerance NaN is NON_FINITE and a negative one OUT_OF_RANGE (NaN counted every instance as agreeing)", async () => {
    expect(await codeOf(() => cross({ instances: 1, tolerance: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(await codeOf(() => cross({ instances: 1, tolerance: -1 }))).toBe(ErrorCode.OutOfRange);
    expect(await codeOf(() => cross({ instances: 1, tolerance: "1e-7" }))).toBe(ErrorCode.InvalidArgument);
  });

  it("maxItems above 2^20 is OUT_OF_RANGE (1e10 threw a RangeError allocating the workspace)", async () => {
    expect(await codeOf(() => cross({ instances: 1, maxItems: 1e10 }))).toBe(ErrorCode.OutOfRange);
  });
});
