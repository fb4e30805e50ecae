import { describe, expect, it } from "vitest";
import {
  ArmTable,
  assertFinite,
  assertId,
  assertInRange,
  assertInt,
  assertPositive,
  assertVector,
  copyNumbers,
  DecisionLedger,
  describe as describeValue,
  ErrorCode,
  errorText,
  isRouteKitError,
  Rng,
  RouteKitError,
  readOptions,
  readSnapshot,
  readVectorInto,
} from "../src/index.js";
import { deserializeError, serializeError } from "../src/node.js";

function thrown(f: () => unknown): RouteKitError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RouteKitError);
    return e as RouteKitError;
  }
  throw new Error("expected a RouteKitError, nothing was thrown");
}

describe("ErrorCode", () => {
  it("keeps its published codes (a code never changes meaning)", () => {
    expect(ErrorCode).toEqual({
      InvalidArgument: "INVALID_ARGUMENT",
      DimensionMismatch: "DIMENSION_MISMATCH",
      NonFinite: "NON_FINITE",
      OutOfRange: "OUT_OF_RANGE",
      UnknownArm: "UNKNOWN_ARM",
      DuplicateArm: "DUPLICATE_ARM",
      LastArm: "LAST_ARM",
      NoArms: "NO_ARMS",
      UnknownDecision: "UNKNOWN_DECISION",
      DecisionAlreadyUsed: "DECISION_ALREADY_USED",
      DecisionExpired: "DECISION_EXPIRED",
      EmptyAssortment: "EMPTY_ASSORTMENT",
      InvalidChoice: "INVALID_CHOICE",
      InfeasibleBudget: "INFEASIBLE_BUDGET",
      InvalidState: "INVALID_STATE",
      InvalidEvent: "INVALID_EVENT",
      MissingDependency: "MISSING_DEPENDENCY",
      Unavailable: "UNAVAILABLE",
      Numerical: "NUMERICAL",
      SnapshotVersion: "SNAPSHOT_VERSION",
      SnapshotKind: "SNAPSHOT_KIND",
      SnapshotCorrupt: "SNAPSHOT_CORRUPT",
    });
  });

  // INVALID_STATE (abort) is covered in runner.test.ts; EMPTY_ASSORTMENT, INVALID_CHOICE, INFEASIBLE_BUDGET
  // and NUMERICAL are raised by policies, UNAVAILABLE by @routekit/replicate (its edges test), not by core.
  it("each code core can raise is raised by the documented call", () => {
    const table = new ArmTable<number>();
    table.add("a", 0);
    const ledger = new DecisionLedger<number>({ encode: (p) => p, decode: (j) => j as number }, { maxPending: 1 });
    const d0 = ledger.issue(0);
    const d1 = ledger.issue(1);
    ledger.settle(d1);
    const cases: [ErrorCode, () => unknown][] = [
      [ErrorCode.InvalidArgument, () => assertId("", "arm id")],
      [ErrorCode.DimensionMismatch, () => assertVector(new Float64Array(2), 3, "context")],
      [ErrorCode.NonFinite, () => assertFinite(Number.NaN, "reward")],
      [ErrorCode.OutOfRange, () => assertInRange(2, "revenue", 0, 1)],
      [ErrorCode.UnknownArm, () => table.get("zz")],
      [ErrorCode.DuplicateArm, () => table.add("a", 1)],
      [ErrorCode.LastArm, () => table.remove("a")],
      [ErrorCode.NoArms, () => new ArmTable().checkNotEmpty()],
      [ErrorCode.UnknownDecision, () => ledger.get("d7")],
      [ErrorCode.DecisionAlreadyUsed, () => ledger.get(d1)],
      [ErrorCode.DecisionExpired, () => ledger.get(d0)],
      [ErrorCode.SnapshotCorrupt, () => readSnapshot({}, "k", 1)],
      [ErrorCode.SnapshotKind, () => readSnapshot({ format: "routekit/snapshot", version: 1, kind: "x" }, "k", 1)],
      [ErrorCode.SnapshotVersion, () => readSnapshot({ format: "routekit/snapshot", version: 2 }, "k", 1)],
    ];
    for (const [code, f] of cases) expect(thrown(f).code).toBe(code);
  });
});

describe("RouteKitError", () => {
  it("is an Error with a stable code, a name and optional details", () => {
    const e = new RouteKitError(ErrorCode.OutOfRange, "x must be in [0, 1], got 2", { value: 2 });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("RouteKitError");
    expect(e.code).toBe("OUT_OF_RANGE");
    expect(e.message).toBe("x must be in [0, 1], got 2");
    expect(e.details).toEqual({ value: 2 });
    expect(new RouteKitError(ErrorCode.Numerical, "m").details).toBeUndefined();
  });

  it("isRouteKitError narrows by type and optionally by code", () => {
    const e = new RouteKitError(ErrorCode.NoArms, "none");
    expect(isRouteKitError(e)).toBe(true);
    expect(isRouteKitError(e, ErrorCode.NoArms)).toBe(true);
    expect(isRouteKitError(e, ErrorCode.LastArm)).toBe(false);
    expect(isRouteKitError(new Error("x"))).toBe(false);
    expect(isRouteKitError({ code: "NO_ARMS", name: "RouteKitError" })).toBe(false);
    expect(isRouteKitError(undefined)).toBe(false);
  });

  it("crosses a thread boundary (serialize -> structuredClone -> deserialize) with every code intact", () => {
    for (const code of Object.values(ErrorCode)) {
      const e = new RouteKitError(code, `m-${code}`, { n: 1, arr: [1, 2] });
      const back = deserializeError(structuredClone(serializeError(e)));
      expect(back).toBeInstanceOf(RouteKitError);
      expect((back as RouteKitError).code).toBe(code);
      expect(back.message).toBe(`m-${code}`);
      expect((back as RouteKitError).details).toEqual({ n: 1, arr: [1, 2] });
    }
    const plain = deserializeError(serializeError(new TypeError("boom")));
    expect(plain).not.toBeInstanceOf(RouteKitError);
    expect(plain.name).toBe("TypeError");
    expect(plain.message).toBe("boom");
    // An unknown code is not promoted to a RouteKitError.
    const fake = deserializeError({ name: "RouteKitError", message: "m", code: "NOT_A_CODE" });
    expect(fake).not.toBeInstanceOf(RouteKitError);
    // Details that cannot be cloned are dropped, not fatal.
    const s = serializeError(new RouteKitError(ErrorCode.Numerical, "m", { f: () => 1 }));
    expect(s.details).toBeUndefined();
    expect(serializeError("str").message).toBe("str");
  });
});

describe("validation helpers", () => {
  it("assertFinite: NON_FINITE for NaN and +-Infinity, INVALID_ARGUMENT for non-numbers", () => {
    expect(() => assertFinite(0, "x")).not.toThrow();
    expect(() => assertFinite(-1e308, "x")).not.toThrow();
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const e = thrown(() => assertFinite(v as number, "reward"));
      expect(e.code).toBe(ErrorCode.NonFinite);
      expect(e.message).toContain("reward");
    }
    for (const v of ["1", undefined, null, {}]) {
      const e = thrown(() => assertFinite(v as number, "reward"));
      expect(e.code).toBe(ErrorCode.InvalidArgument);
      expect(e.message).toContain("reward");
    }
  });

  it("assertVector: INVALID_ARGUMENT, DIMENSION_MISMATCH (with details), NON_FINITE (with index)", () => {
    expect(() => assertVector(new Float64Array([1, 2]), 2, "x")).not.toThrow();
    expect(() => assertVector([1, 2], 2, "x")).not.toThrow();
    expect(thrown(() => assertVector("ab", 2, "x")).code).toBe(ErrorCode.InvalidArgument);
    // Float32Array (embedding models' output) is accepted; other typed arrays are not.
    expect(() => assertVector(new Float32Array(2), 2, "x")).not.toThrow();
    expect(thrown(() => assertVector(new Float32Array([0, Number.NaN]), 2, "x")).code).toBe(ErrorCode.NonFinite);
    expect(thrown(() => assertVector(new Float32Array(3), 2, "x")).code).toBe(ErrorCode.DimensionMismatch);
    expect(thrown(() => assertVector(new Int8Array(2), 2, "x")).code).toBe(ErrorCode.InvalidArgument);
    expect(thrown(() => assertVector(new Int8Array(2), 2, "x")).message).toContain("got a typed array");
    expect(thrown(() => assertVector(undefined, 2, "x")).code).toBe(ErrorCode.InvalidArgument);
    const dim = thrown(() => assertVector(new Float64Array(3), 2, "context"));
    expect(dim.code).toBe(ErrorCode.DimensionMismatch);
    expect(dim.details).toEqual({ expected: 2, actual: 3 });
    const nf = thrown(() => assertVector(new Float64Array([0, Number.NaN]), 2, "x"));
    expect(nf.code).toBe(ErrorCode.NonFinite);
    expect(nf.details).toEqual({ index: 1 });
    // A string where a number is needed is the wrong type (the error rule), not a non-finite number.
    expect(thrown(() => assertVector([1, "2"], 2, "x")).code).toBe(ErrorCode.InvalidArgument);
    expect(thrown(() => assertVector([1, Object.create(null)], 2, "x")).message).toBe(
      "x[1] must be a number, got an object",
    );
  });

  it("copyNumbers reads each entry once and refuses anything but numbers (no silent coercion)", () => {
    const dst = new Float64Array(3);
    copyNumbers([1, -0, 2.5], dst, 3, "x");
    expect(Array.from(dst)).toEqual([1, -0, 2.5]);
    for (const bad of ["3", null, true, [0.5], undefined, 10n, Symbol("s"), Object.create(null)]) {
      const before = Float64Array.of(7, 7, 7);
      const e = thrown(() => copyNumbers([0, bad], before, 2, "context"));
      expect(e.code).toBe(ErrorCode.InvalidArgument);
      expect(e.details).toEqual({ index: 1 });
    }
    let reads = 0;
    const src = new Proxy([1, 2], {
      get: (t, k) => {
        if (k !== "0") return Reflect.get(t, k);
        reads++;
        return reads === 1 ? 1 : "x";
      },
    });
    copyNumbers(src, dst, 2, "x");
    expect(reads).toBe(1);
  });

  it("describe never runs the value's own code", () => {
    const thrower = {
      toString() {
        throw new Error("ran");
      },
    };
    expect(describeValue(thrower)).toBe("an object");
    expect(describeValue(Object.create(null))).toBe("an object");
    expect(describeValue(Symbol("s"))).toBe("a symbol");
    expect(describeValue(10n)).toBe("10n (a bigint)");
    expect(describeValue(() => 1)).toBe("a function");
    expect(describeValue(new Float32Array(2))).toBe("a typed array");
    expect(describeValue("x".repeat(50))).toBe(JSON.stringify(`${"x".repeat(40)}...`));
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    expect(describeValue(revoked.proxy)).toBe("an object");
  });

  it("assertInt: INVALID_ARGUMENT for non-numbers, NON_FINITE for NaN/Infinity, OUT_OF_RANGE for fractions and outside [min, max]", () => {
    expect(() => assertInt(3, "k", 1, 3)).not.toThrow();
    expect(thrown(() => assertInt("3" as unknown as number, "k")).code).toBe(ErrorCode.InvalidArgument);
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(thrown(() => assertInt(v, "k")).code).toBe(ErrorCode.NonFinite);
    expect(thrown(() => assertInt(1.5, "k")).code).toBe(ErrorCode.OutOfRange);
    expect(thrown(() => assertInt(0, "k", 1)).code).toBe(ErrorCode.OutOfRange);
    expect(thrown(() => assertInt(4, "k", 1, 3)).code).toBe(ErrorCode.OutOfRange);
  });

  it("assertInRange: closed and open ends", () => {
    expect(() => assertInRange(0, "p", 0, 1)).not.toThrow();
    expect(() => assertInRange(1, "p", 0, 1)).not.toThrow();
    expect(thrown(() => assertInRange(0, "p", 0, 1, { min: true })).code).toBe(ErrorCode.OutOfRange);
    expect(thrown(() => assertInRange(1, "p", 0, 1, { max: true })).code).toBe(ErrorCode.OutOfRange);
    expect(thrown(() => assertInRange(1, "p", 0, 1, { max: true })).message).toContain("[0, 1)");
    expect(thrown(() => assertInRange(Number.NaN, "p", 0, 1)).code).toBe(ErrorCode.NonFinite);
  });

  it("assertPositive: OUT_OF_RANGE for <= 0, NON_FINITE for NaN", () => {
    expect(() => assertPositive(1e-300, "eta")).not.toThrow();
    expect(thrown(() => assertPositive(0, "eta")).code).toBe(ErrorCode.OutOfRange);
    expect(thrown(() => assertPositive(-1, "eta")).code).toBe(ErrorCode.OutOfRange);
    expect(thrown(() => assertPositive(Number.NaN, "eta")).code).toBe(ErrorCode.NonFinite);
  });

  it("assertId: INVALID_ARGUMENT unless a non-empty string", () => {
    expect(() => assertId("gpt", "arm id")).not.toThrow();
    for (const v of ["", 1, null, undefined, {}])
      expect(thrown(() => assertId(v, "arm id")).code).toBe("INVALID_ARGUMENT");
  });

  it("Rng.fromSeed rejects NaN with INVALID_ARGUMENT", () => {
    expect(thrown(() => Rng.fromSeed(Number.NaN)).code).toBe(ErrorCode.InvalidArgument);
  });
});

describe("readVectorInto", () => {
  it("copies each entry once, writes -0 as 0, widens Float32Array, and validates the copy", () => {
    const dst = new Float64Array(3);
    expect(Array.from(readVectorInto([1, -0, 2], 3, dst, "x"))).toEqual([1, 0, 2]);
    expect(Object.is(dst[1], 0)).toBe(true);
    expect(Array.from(readVectorInto(Float32Array.of(0.1, 2, -0), 3, dst, "x"))).toEqual([Math.fround(0.1), 2, 0]);
    let reads = 0;
    const flaky = new Proxy([1, 2, 3], {
      get(t, k, r) {
        if (k === "1") return reads++ === 0 ? 2 : Number.NaN; // valid when checked, NaN if read again
        return Reflect.get(t, k, r);
      },
    });
    expect(Array.from(readVectorInto(flaky, 3, dst, "x"))).toEqual([1, 2, 3]);
    expect(reads).toBe(1);
    expect(thrown(() => readVectorInto([1, Number.NaN, 2], 3, dst, "x")).code).toBe(ErrorCode.NonFinite);
    expect(thrown(() => readVectorInto([1, 2], 3, dst, "x")).code).toBe(ErrorCode.DimensionMismatch);
    expect(thrown(() => readVectorInto([1, "2", 3], 3, dst, "x")).code).toBe(ErrorCode.InvalidArgument);
    expect(thrown(() => readVectorInto(Int32Array.of(1, 2, 3), 3, dst, "x")).code).toBe(ErrorCode.InvalidArgument);
  });

  it("copies into the first dim entries of a longer buffer, and names a too-short buffer, not the input", () => {
    // Before: a buffer of 4 for dim 3 was DIMENSION_MISMATCH "x has length 4, expected 3" (x was right), and a
    // buffer of 2 dropped the third entry and said "x has length 2".
    const long = Float64Array.of(9, 9, 9, 9);
    expect(Array.from(readVectorInto([1, -0, 2], 3, long, "x"))).toEqual([1, 0, 2, 9]);
    expect(Array.from(readVectorInto(Float64Array.of(3, 4, 5), 3, long, "x"))).toEqual([3, 4, 5, 9]);
    expect(thrown(() => readVectorInto([1, Number.NaN, 2], 3, long, "x")).code).toBe(ErrorCode.NonFinite);
    const short = Float64Array.of(7, 7);
    const e = thrown(() => readVectorInto([1, 2, 3], 3, short, "x"));
    expect(e.code).toBe(ErrorCode.InvalidArgument);
    expect(e.message).toMatch(/at least 3 entries to copy x into/);
    expect(Array.from(short)).toEqual([7, 7]);
  });
});

describe("isRouteKitError and instanceof never throw (outside audit, core 2026-11-27)", () => {
  it("a thrown proxy whose get trap throws, or a revoked one, is not a RouteKitError", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
      },
    );
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const e of [hostile, revoked]) {
      // Both threw (the trap's Error, a TypeError) from inside the catch blocks that test for a RouteKitError.
      expect(isRouteKitError(e)).toBe(false);
      expect(isRouteKitError(e, "INVALID_ARGUMENT")).toBe(false);
      expect(e instanceof RouteKitError).toBe(false);
    }
    expect(isRouteKitError(new RouteKitError(ErrorCode.InvalidArgument, "x"), "INVALID_ARGUMENT")).toBe(true);
  });
});

describe("errorText never throws (outside audit, core 2026-11-27)", () => {
  it("a revoked proxy, a proxy whose traps throw and an Error whose message getter throws give a text", () => {
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const trapping = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error("proto");
        },
      },
    );
    const badMessage = Object.defineProperty(new Error("x"), "message", {
      get() {
        throw new Error("message");
      },
    });
    for (const e of [revoked, trapping, badMessage]) expect(typeof errorText(e)).toBe("string");
    expect(errorText(new Error("plain"))).toBe("plain");
    // Through an option getter that throws a revoked proxy: typed, not a TypeError.
    const o = readOptions(
      Object.defineProperty({}, "seed", {
        get() {
          throw revoked;
        },
      }),
      "Thing",
    );
    expect(() => o.seed).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
