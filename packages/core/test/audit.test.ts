/**
 * Outside audit (session 7): unreadable lengths and unwritable snapshot fields are typed errors.
 */
import { describe, expect, it } from "vitest";
import { assertVector, ErrorCode, encodeF64, MAX_STRING_LENGTH, RouteKitError, readLength } from "../src/index.js";

const throwingLength = () =>
  new Proxy([1, 2, 3], {
    get(t, k, r) {
      if (k === "length") throw new Error("boom");
      return Reflect.get(t, k, r);
    },
  });

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof RouteKitError ? e.code : `untyped: ${String(e)}`;
  }
  return undefined;
}

describe("a proxy array whose length getter throws (it passes Array.isArray)", () => {
  it("readLength and assertVector give INVALID_ARGUMENT, not the proxy's own error", () => {
    expect(codeOf(() => readLength(throwingLength(), "x"))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => assertVector(throwingLength(), 3, "x"))).toBe(ErrorCode.InvalidArgument);
    expect(readLength([1, 2], "x")).toBe(2);
  });
});

describe("encodeF64 past JavaScript's string limit", () => {
  it("is INVALID_STATE (typed) instead of V8's own 'string too long' error; at the limit it encodes", () => {
    const tooBig = new Float64Array(Math.ceil(((MAX_STRING_LENGTH / 4) * 3) / 8) + 1); // lazily zeroed pages
    expect(codeOf(() => encodeF64(tooBig))).toBe(ErrorCode.InvalidState);
    expect(encodeF64(new Float64Array(3)).length).toBe(32);
  });
});
