import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  checkTriangular,
  decodeF64,
  ErrorCode,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  Rng,
  RouteKitError,
  readEnum,
  readF64,
  readId,
  readInt,
  readNumber,
  readObject,
  readSnapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
  snapshotChecksum,
  snapshotCorrupt,
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
      checksum: snapshotChecksum("classic/ucb1", 2, { a: 1 }),
    });
    expect(s.checksum).toMatch(/^[0-9a-f]{16}$/);
  });

  it("readSnapshot refuses a snapshot whose content no longer matches its checksum", () => {
    const theta = encodeF64(new Float64Array([0.25, -1.5, 3e-300]));
    const s = makeSnapshot("classic/ucb1", 2, { n: 3, theta, ids: ["a", "b"] });
    const text = JSON.stringify(s);
    expect(readSnapshot(JSON.parse(text), "classic/ucb1", 2)).toEqual(s.state);
    // Every single-bit flip of every character of the state text is caught (or breaks the JSON).
    const start = text.indexOf('"state":') + 8;
    const end = text.indexOf(',"checksum"');
    let checked = 0;
    for (let i = start; i < end; i++) {
      for (let bit = 0; bit < 7; bit++) {
        const flipped = `${text.slice(0, i)}${String.fromCharCode(text.charCodeAt(i) ^ (1 << bit))}${text.slice(i + 1)}`;
        let parsed: unknown;
        try {
          parsed = JSON.parse(flipped);
        } catch {
          continue;
        }
        if (JSON.stringify((parsed as { state: unknown }).state) === JSON.stringify(s.state)) continue; // e.g. whitespace
        expect(codeOf(() => readSnapshot(parsed, "classic/ucb1", 2))).toBe(ErrorCode.SnapshotCorrupt);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
    expect(codeOf(() => readSnapshot({ ...s, checksum: undefined }, "classic/ucb1", 2))).toBe(
      ErrorCode.SnapshotCorrupt,
    );
    expect(codeOf(() => readSnapshot({ ...s, state: { ...s.state, n: 4 } }, "classic/ucb1", 2))).toBe(
      ErrorCode.SnapshotCorrupt,
    );
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
    for (const state of [null, [1], 3, "s", { a: 2 }]) {
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

/** The SNAPSHOT_CORRUPT message `f` throws (fails if it throws nothing or another code). */
function corruptMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RouteKitError);
    expect((e as RouteKitError).code).toBe(ErrorCode.SnapshotCorrupt);
    return (e as RouteKitError).message;
  }
  throw new Error("expected SNAPSHOT_CORRUPT");
}

describe("snapshot field readers", () => {
  const st: Record<string, Json> = {
    n: 3,
    neg: -2,
    x: 0.5,
    big: 2 ** 53,
    frac: 1.5,
    s: "a",
    e: "",
    o: { k: 1 },
    a: [1],
    z: null,
  };

  it("snapshotCorrupt names the field and what was expected", () => {
    expect(corruptMessage(() => snapshotCorrupt('"n"', "an integer"))).toBe('snapshot field "n" must be an integer');
  });

  it("readObject accepts plain objects only", () => {
    expect(readObject(st.o, "o")).toEqual({ k: 1 });
    for (const v of [st.a, st.z, st.n, undefined]) {
      expect(corruptMessage(() => readObject(v, "arms[2]"))).toBe("snapshot field arms[2] must be an object");
    }
  });

  it("readInt accepts safe integers in [min, max]", () => {
    expect(readInt(st, "n")).toBe(3);
    expect(readInt(st, "neg", -2, 0)).toBe(-2);
    expect(readInt(st, "n", 3, 3)).toBe(3);
    for (const [name, min, max] of [
      ["neg", 0, 10],
      ["n", 4, 10],
      ["n", 0, 2],
      ["frac", 0, 10],
      ["big", 0, 2 ** 60],
      ["s", 0, 10],
      ["missing", 0, 10],
    ] as const) {
      expect(codeOf(() => readInt(st, name, min, max))).toBe(ErrorCode.SnapshotCorrupt);
    }
    expect(corruptMessage(() => readInt(st, "n", 0, 2))).toBe('snapshot field "n" must be an integer in [0, 2]');
  });

  it("readNumber accepts finite numbers satisfying the condition", () => {
    expect(readNumber(st, "x")).toBe(0.5);
    expect(readNumber(st, "x", (v) => v > 0, "> 0")).toBe(0.5);
    expect(corruptMessage(() => readNumber(st, "neg", (v) => v > 0, "a finite number > 0"))).toBe(
      'snapshot field "neg" must be a finite number > 0',
    );
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, "1", null]) {
      expect(codeOf(() => readNumber({ v } as Record<string, Json>, "v"))).toBe(ErrorCode.SnapshotCorrupt);
    }
  });

  it("readEnum and readId", () => {
    expect(readEnum(st, "s", ["a", "b"] as const)).toBe("a");
    expect(corruptMessage(() => readEnum(st, "s", ["b", "c"]))).toBe('snapshot field "s" must be one of "b", "c"');
    expect(codeOf(() => readEnum(st, "n", ["3"]))).toBe(ErrorCode.SnapshotCorrupt);
    expect(readId(st, "s")).toBe("a");
    for (const name of ["e", "n", "missing"]) expect(codeOf(() => readId(st, name))).toBe(ErrorCode.SnapshotCorrupt);
  });

  it("readF64 checks length, finiteness and the per-entry condition", () => {
    const enc = encodeF64(new Float64Array([1, 2, 3]));
    expect([...readF64(enc, "v")]).toEqual([1, 2, 3]);
    expect([...readF64(enc, "v", 3, (x) => x > 0)]).toEqual([1, 2, 3]);
    expect([...readF64(enc, "v", (n) => n % 3 === 0)]).toEqual([1, 2, 3]);
    expect(codeOf(() => readF64(enc, "v", 4))).toBe(ErrorCode.SnapshotCorrupt);
    expect(corruptMessage(() => readF64(enc, "v", (n) => n === 2))).toBe(
      "snapshot field v must be Float64 data of a consistent length",
    );
    expect(corruptMessage(() => readF64(enc, "arms[].b", 3, (_x, i) => i !== 1))).toBe(
      "snapshot field arms[].b[1] must be a valid finite value",
    );
    const nan = encodeF64(new Float64Array([0, Number.NaN]));
    expect(corruptMessage(() => readF64(nan, "w"))).toBe("snapshot field w[1] must be a valid finite value");
    expect(codeOf(() => readF64(encodeF64(new Float64Array([Number.NEGATIVE_INFINITY])), "w"))).toBe(
      ErrorCode.SnapshotCorrupt,
    );
    expect(codeOf(() => readF64(3, "w"))).toBe(ErrorCode.SnapshotCorrupt);
  });
});

describe("the README's snapshot example", () => {
  it("is a snapshot readSnapshot accepts: its checksum matches its content (the example had none, and kindVersion 2)", () => {
    const text = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const section = text.slice(text.indexOf("## Snapshots"));
    const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const snap = JSON.parse(block as string) as { kind: string; kindVersion: number; state: Json };
    const state = readSnapshot(snap, snap.kind, snap.kindVersion);
    const arms = state.arms as { stats: string }[];
    expect(Array.from(decodeF64(arms[0]?.stats, "stats", 2))).toEqual([1, 1]); // n = 1, sum = 1
    expect(Rng.fromJSON(state.rng as never).uniform()).toBeGreaterThanOrEqual(0);
    // Any edit of the state is caught by the checksum.
    const edited = JSON.parse(block as string) as { state: { observations: number } };
    edited.state.observations = 2;
    expect(codeOf(() => readSnapshot(edited, snap.kind, snap.kindVersion))).toBe(ErrorCode.SnapshotCorrupt);
  });
});

describe("makeSnapshot of a state JSON cannot write (outside audit, core 2026-11-27)", () => {
  it("a cycle, a bigint or a getter that throws is INVALID_ARGUMENT naming the kind, not a TypeError", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const getter = Object.defineProperty({}, "a", {
      enumerable: true,
      get() {
        throw new Error("getter a");
      },
    });
    for (const state of [cycle, { a: 1n }, getter]) {
      expect(() => makeSnapshot("my/policy", 1, state as never)).toThrow(
        expect.objectContaining({
          code: "INVALID_ARGUMENT",
          message: expect.stringMatching(/^cannot snapshot "my\/policy": the state is not JSON/),
        }),
      );
    }
  });
});

describe("checkTriangular", () => {
  // Row-major 3 x 3: lower-triangular except the (0, 2) entry.
  const m = [1, 0, 0.25, 2, 3, 0, 4, 5, 6];
  it("names the first non-zero entry on the side that must be 0, with its value and the rule", () => {
    expect(corruptMessage(() => checkTriangular(m, 3, "L", "above", "a factor is 0 above its diagonal"))).toBe(
      "snapshot field L[0, 2] is 0.25; a factor is 0 above its diagonal",
    );
    expect(corruptMessage(() => checkTriangular(m, 3, "H", "below", "upper only"))).toBe(
      "snapshot field H[1, 0] is 2; upper only",
    );
  });
  it("accepts a triangular matrix (also -0, and with a row stride)", () => {
    expect(() => checkTriangular([1, -0, 0, 2, 3, 0, 4, 5, 6], 3, "L", "above", "rule")).not.toThrow();
    expect(() => checkTriangular([1, 7, 9, 0, 3, 9], 2, "U", "below", "rule", 3)).not.toThrow();
  });
});
