import { describe, expect, it } from "vitest";
import {
  decodeF64,
  ErrorCode,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  RouteKitError,
  readSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
} from "../src/index.js";

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RouteKitError);
    return (e as RouteKitError).code;
  }
  return undefined;
}

/** The raw 64-bit patterns of a Float64Array. */
function bits(a: Float64Array): bigint[] {
  return [...new BigUint64Array(a.buffer, a.byteOffset, a.length)];
}

/** Float64Array holding awkward values, including a NaN with a custom payload written as raw bits. */
function awkward(): Float64Array {
  const a = new Float64Array(12);
  a.set([0, -0, 5e-324, 2.2250738585072009e-308, -4.9e-322, 1e308, -1.7976931348623157e308, Math.PI]);
  a[8] = Number.POSITIVE_INFINITY;
  a[9] = Number.NEGATIVE_INFINITY;
  const dv = new DataView(a.buffer);
  dv.setBigUint64(10 * 8, 0x7ff8_dead_beef_0001n, true); // quiet NaN, payload 0xdeadbeef0001
  dv.setBigUint64(11 * 8, 0xfff0_0000_0000_0abcn, true); // negative NaN with a small payload
  return a;
}

describe("encodeF64 / decodeF64", () => {
  it("restores every bit: -0, subnormals, 1e308, infinities and NaN payloads", () => {
    const a = awkward();
    const back = decodeF64(encodeF64(a), "theta", a.length);
    expect(bits(back)).toEqual(bits(a));
    expect(Object.is(back[1], -0)).toBe(true);
    expect(back[2]).toBe(5e-324);
    expect(back[5]).toBe(1e308);
  });

  it("survives the full envelope through JSON text", () => {
    const a = awkward();
    const snap = makeSnapshot("test/thing", 3, { theta: encodeF64(a), n: 7, nested: { list: [1, "x", null] } });
    const text = JSON.stringify(snap);
    const state = readSnapshot(JSON.parse(text), "test/thing", 3);
    expect(bits(decodeF64(state.theta, "theta", 12))).toEqual(bits(a));
    expect(state.n).toBe(7);
    expect(state.nested).toEqual({ list: [1, "x", null] });
  });

  it("encodes only a view's own elements (subarray with a byte offset), and the empty array", () => {
    const a = new Float64Array([1, 2, 3, 4]);
    expect([...decodeF64(encodeF64(a.subarray(1, 3)), "v")]).toEqual([2, 3]);
    expect(decodeF64(encodeF64(new Float64Array(0)), "v", 0).length).toBe(0);
  });

  it("returns an aligned copy that does not alias anything", () => {
    const s = encodeF64(new Float64Array([1, 2]));
    const x = decodeF64(s, "v");
    const y = decodeF64(s, "v");
    x[0] = 9;
    expect(y[0]).toBe(1);
  });

  it("rejects non-strings, bad base64, truncated data and wrong lengths with SNAPSHOT_CORRUPT", () => {
    const good = encodeF64(new Float64Array([1, 2, 3]));
    const twelveBytes = Buffer.from(new Uint8Array(12)).toString("base64");
    const bad: [Json | undefined, number | undefined][] = [
      [undefined, undefined],
      [42, undefined],
      [null, undefined],
      [[1, 2], undefined],
      [twelveBytes, undefined], // 12 bytes: not a whole number of float64s
      [good.slice(0, -4), undefined], // cut in the middle of the data
      [good.slice(0, -1), undefined], // not a multiple of 4 characters
      [`@@@@${good}`, undefined], // characters outside the base64 alphabet
      ["!!!!!!!!!!!!", undefined],
      [good, 4], // length check
    ];
    for (const [v, len] of bad) expect(codeOf(() => decodeF64(v, "theta", len))).toBe(ErrorCode.SnapshotCorrupt);
  });
});

describe("snapshot envelope", () => {
  it("makeSnapshot writes the format tag and versions", () => {
    const s = makeSnapshot("classic/ucb1", 2, { a: 1 });
    expect(s).toEqual({
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_FORMAT_VERSION,
      kind: "classic/ucb1",
      kindVersion: 2,
      state: { a: 1 },
    });
  });

  it("readSnapshot rejects another kind, another version and anything that is not a snapshot", () => {
    const s = makeSnapshot("classic/ucb1", 2, { a: 1 });
    expect(readSnapshot(s, "classic/ucb1", 2)).toEqual({ a: 1 });
    expect(codeOf(() => readSnapshot(s, "classic/exp3", 2))).toBe(ErrorCode.SnapshotKind);
    expect(codeOf(() => readSnapshot(s, "classic/ucb1", 3))).toBe(ErrorCode.SnapshotVersion);
    expect(codeOf(() => readSnapshot({ ...s, version: 99 }, "classic/ucb1", 2))).toBe(ErrorCode.SnapshotVersion);
    for (const bad of [null, undefined, 1, "x", [], { ...s, format: "other" }, { state: {} }]) {
      expect(codeOf(() => readSnapshot(bad, "classic/ucb1", 2))).toBe(ErrorCode.SnapshotCorrupt);
    }
    for (const state of [null, [1], 3, "s"]) {
      expect(codeOf(() => readSnapshot({ ...s, state }, "classic/ucb1", 2))).toBe(ErrorCode.SnapshotCorrupt);
    }
  });

  it("field() type-checks each field kind", () => {
    const st: Record<string, Json> = { n: 1, s: "x", b: false, o: { k: 1 }, a: [1], z: null };
    expect(field(st, "n", "number")).toBe(1);
    expect(field(st, "s", "string")).toBe("x");
    expect(field(st, "b", "boolean")).toBe(false);
    expect(field(st, "o", "object")).toEqual({ k: 1 });
    expect(field(st, "a", "array")).toEqual([1]);
    const wrong: [string, "number" | "string" | "boolean" | "object" | "array"][] = [
      ["s", "number"],
      ["missing", "string"],
      ["n", "boolean"],
      ["a", "object"],
      ["z", "object"],
      ["o", "array"],
    ];
    for (const [name, type] of wrong) expect(codeOf(() => field(st, name, type))).toBe(ErrorCode.SnapshotCorrupt);
  });
});
