import { describe, expect, it } from "vitest";
import {
  DecisionLedger,
  decodeF64,
  ErrorCode,
  encodeF64,
  Float64Pool,
  type Json,
  type LedgerCodec,
  type LedgerOptions,
  RouteKitError,
} from "../src/index.js";
import { errorCode } from "./error-code.js";

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RouteKitError);
    return (e as RouteKitError).code;
  }
  return undefined;
}

/** A number codec that records disposals. */
function numCodec(): LedgerCodec<number> & { disposed: number[] } {
  const disposed: number[] = [];
  return { disposed, encode: (p) => p, decode: (j) => j as number, dispose: (p) => disposed.push(p) };
}

/** Payloads are pooled context vectors, as a LinUCB-style policy keeps them. */
function vectorCodec(pool: Float64Pool): LedgerCodec<Float64Array> {
  return {
    encode: (x) => encodeF64(x),
    decode: (j) => {
      const x = decodeF64(j, "pending context", pool.length);
      const b = pool.acquire();
      b.set(x);
      return b;
    },
    dispose: (x) => pool.release(x),
  };
}

describe("DecisionLedger", () => {
  it("issues sequential ids and returns payloads by id or by decision object", () => {
    const l = new DecisionLedger(numCodec());
    expect(l.issue(10)).toBe("d0");
    expect(l.issue(11)).toBe("d1");
    expect(l.size).toBe(2);
    expect(l.issued).toBe(2);
    expect(l.get("d1")).toBe(11);
    expect(l.get({ id: "d0" })).toBe(10);
    expect(l.size).toBe(2); // get does not remove
  });

  it("accepts late and out-of-order feedback, once per decision", () => {
    const c = numCodec();
    const l = new DecisionLedger(c);
    const ids = [0, 1, 2, 3, 4].map((i) => l.issue(i * 10));
    for (const i of [3, 0, 4, 1]) {
      expect(l.get(ids[i] as string)).toBe(i * 10);
      l.settle(ids[i] as string);
    }
    expect(c.disposed).toEqual([30, 0, 40, 10]);
    expect(l.size).toBe(1);
    expect([...l.values()]).toEqual([20]);
    // Duplicates are refused with DECISION_ALREADY_USED.
    for (const i of [3, 0, 4, 1]) expect(codeOf(() => l.get(ids[i] as string))).toBe(ErrorCode.DecisionAlreadyUsed);
    // Settling twice is a no-op (the caller already validated with get).
    l.settle(ids[0] as string);
    expect(c.disposed.length).toBe(4);
    // A decision issued after others were settled still works.
    const late = l.issue(99);
    expect(late).toBe("d5");
    expect(l.get(ids[2] as string)).toBe(20);
  });

  it("refuses ids it never issued with UNKNOWN_DECISION", () => {
    const l = new DecisionLedger(numCodec(), { prefix: "q" });
    l.issue(1);
    const bad: unknown[] = [
      "q1",
      "q99",
      "d0",
      "q01",
      "q-1",
      "q0.0",
      "q",
      "",
      "q1e3",
      null,
      undefined,
      5,
      { id: 0 },
      {},
    ];
    for (const b of bad) expect(codeOf(() => l.get(b as string))).toBe(ErrorCode.UnknownDecision);
    expect(codeOf(() => l.settle("q5"))).toBe(ErrorCode.UnknownDecision);
    expect(l.get("q0")).toBe(1);
  });

  it("drops the oldest pending decision beyond maxPending (missing feedback) and reports DECISION_EXPIRED", () => {
    const c = numCodec();
    const l = new DecisionLedger(c, { maxPending: 3 });
    const ids = [0, 1, 2, 3, 4].map((i) => l.issue(i));
    expect(l.size).toBe(3);
    expect(c.disposed).toEqual([0, 1]);
    expect(codeOf(() => l.get(ids[0] as string))).toBe(ErrorCode.DecisionExpired);
    expect(codeOf(() => l.get(ids[1] as string))).toBe(ErrorCode.DecisionExpired);
    expect(l.get(ids[2] as string)).toBe(2);
    // Memory stays bounded however long feedback never comes.
    for (let i = 0; i < 1000; i++) l.issue(100 + i);
    expect(l.size).toBe(3);
    expect([...l.values()]).toEqual([1097, 1098, 1099]);
  });

  it("evicts the oldest pending, not the oldest issued, when some were settled", () => {
    const l = new DecisionLedger(numCodec(), { maxPending: 2 });
    const a = l.issue(0);
    const b = l.issue(1);
    l.settle(a);
    l.issue(2);
    expect(l.get(b)).toBe(1);
    l.issue(3); // evicts b
    expect(codeOf(() => l.get(b))).toBe(ErrorCode.DecisionExpired);
    expect([...l.values()]).toEqual([2, 3]);
  });

  it("idOf names the decision get resolved, without reading a getter id again; unknown ids throw as get does", () => {
    const l = new DecisionLedger(numCodec());
    const a = l.issue(1);
    l.issue(2);
    let reads = 0;
    const flipping = {
      get id(): string {
        reads++;
        return reads === 1 ? a : "d999";
      },
    };
    expect(l.get(flipping)).toBe(1);
    expect(l.idOf(flipping)).toBe(a);
    expect(reads).toBe(1);
    expect(l.idOf("d1")).toBe("d1");
    expect(l.idOf({ id: "d1" })).toBe("d1");
    expect(codeOf(() => l.idOf("d7"))).toBe(ErrorCode.UnknownDecision);
    expect(codeOf(() => l.idOf("d01"))).toBe(ErrorCode.UnknownDecision);
  });

  it("validates its options with the README's error-code rule (as a policy's maxPending option)", () => {
    // Was INVALID_ARGUMENT for all of these, and 10^9 was accepted: the rule says a finite number outside its
    // range or a fraction (the README's own example is maxPending: 0) is OUT_OF_RANGE, NaN is NON_FINITE.
    const cases: [unknown, string][] = [
      [0, ErrorCode.OutOfRange],
      [-1, ErrorCode.OutOfRange],
      [1.5, ErrorCode.OutOfRange],
      [10_000_001, ErrorCode.OutOfRange],
      [1e9, ErrorCode.OutOfRange],
      [Number.NaN, ErrorCode.NonFinite],
      [Number.POSITIVE_INFINITY, ErrorCode.NonFinite],
      ["3", ErrorCode.InvalidArgument],
    ];
    for (const [maxPending, code] of cases) {
      expect(
        codeOf(() => new DecisionLedger(numCodec(), { maxPending: maxPending as number })),
        String(maxPending),
      ).toBe(code);
    }
    expect(codeOf(() => new DecisionLedger(numCodec(), { prefix: 5 as unknown as string }))).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(codeOf(() => new DecisionLedger(numCodec(), null as unknown as object))).toBe(ErrorCode.InvalidArgument);
    expect(new DecisionLedger(numCodec(), { maxPending: 10_000_000, prefix: undefined }).issue(1)).toBe("d0");
    // A misspelt key was ignored (the default 100,000 stayed in force).
    expect(() => new DecisionLedger(numCodec(), { maxPendng: 5 } as LedgerOptions)).toThrow(
      /did you mean "maxPending"/,
    );
    expect(codeOf(() => new DecisionLedger(numCodec(), { maxPendng: 5 } as LedgerOptions))).toBe(
      ErrorCode.InvalidArgument,
    );
  });

  it("round-trips a snapshot with pending entries: ids, payloads, expired and used decisions", () => {
    const pool = new Float64Pool(3);
    const l = new DecisionLedger(vectorCodec(pool), { maxPending: 4 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(l.issue(pool.copyOf([i, -0, i / 3])));
    l.settle(ids[3] as string);
    const text = JSON.stringify(l.toJSON());

    const r = new DecisionLedger(vectorCodec(new Float64Pool(3)), { maxPending: 4 });
    r.loadJSON(JSON.parse(text) as Json);
    expect(JSON.stringify(r.toJSON())).toBe(text);
    expect(r.size).toBe(3);
    expect(r.issued).toBe(6);
    expect([...r.get(ids[5] as string)]).toEqual([5, -0, 5 / 3]);
    expect(Object.is(r.get(ids[2] as string)[1], -0)).toBe(true);
    expect(codeOf(() => r.get(ids[0] as string))).toBe(ErrorCode.DecisionExpired);
    expect(codeOf(() => r.get(ids[3] as string))).toBe(ErrorCode.DecisionAlreadyUsed);
    expect(codeOf(() => r.get("d6"))).toBe(ErrorCode.UnknownDecision);
    // Both continue identically.
    expect(r.issue(new Float64Array(3))).toBe(l.issue(new Float64Array(3)));
    expect(JSON.stringify(r.toJSON())).toBe(JSON.stringify(l.toJSON()));
  });

  it("loadJSON is all-or-nothing: a corrupt snapshot leaves the ledger unchanged", () => {
    const c = numCodec();
    const l = new DecisionLedger(c, { maxPending: 10 });
    l.issue(1);
    l.issue(2);
    const before = JSON.stringify(l.toJSON());
    const throwingCodec: LedgerCodec<number> = {
      encode: (p) => p,
      decode: (j) => {
        if (j === "bad") throw new RouteKitError(ErrorCode.SnapshotCorrupt, "bad payload");
        return j as number;
      },
    };
    const bad: Json[] = [
      null,
      [],
      { nextSeq: 3, lastEvicted: -1 },
      { nextSeq: "3", lastEvicted: -1, entries: [] },
      { nextSeq: 3, lastEvicted: -2, entries: [] },
      { nextSeq: 3, lastEvicted: 3, entries: [] },
      { nextSeq: -1, lastEvicted: -1, entries: [] },
      { nextSeq: 1.5, lastEvicted: -1, entries: [] },
      {
        nextSeq: 3,
        lastEvicted: -1,
        entries: [
          [0, 1],
          [5, 2],
        ],
      }, // seq >= nextSeq
      {
        nextSeq: 3,
        lastEvicted: -1,
        entries: [
          [1, 1],
          [0, 2],
        ],
      }, // not increasing
      {
        nextSeq: 3,
        lastEvicted: -1,
        entries: [
          [1, 1],
          [1, 2],
        ],
      }, // duplicate
      { nextSeq: 3, lastEvicted: 1, entries: [[1, 1]] }, // pending but already evicted
      { nextSeq: 3, lastEvicted: -1, entries: [[0, 1, 2]] },
      { nextSeq: 3, lastEvicted: -1, entries: [5] },
    ];
    for (const b of bad) {
      expect(codeOf(() => l.loadJSON(b))).toBe(ErrorCode.SnapshotCorrupt);
      expect(JSON.stringify(l.toJSON())).toBe(before);
    }
    const l2 = new DecisionLedger(throwingCodec);
    l2.issue(7);
    const before2 = JSON.stringify(l2.toJSON());
    expect(
      codeOf(() =>
        l2.loadJSON({
          nextSeq: 5,
          lastEvicted: -1,
          entries: [
            [0, 1],
            [1, "bad"],
          ],
        }),
      ),
    ).toBe(ErrorCode.SnapshotCorrupt);
    expect(JSON.stringify(l2.toJSON())).toBe(before2);
    expect(c.disposed).toEqual([]);
  });

  it("validateJSON checks a snapshot like loadJSON without building a ledger", () => {
    const l = new DecisionLedger(numCodec(), { maxPending: 3 });
    for (let i = 0; i < 5; i++) l.issue(i * 10);
    l.settle("d3");
    const seen: Json[] = [];
    DecisionLedger.validateJSON(l.toJSON(), (p) => {
      seen.push(p);
    });
    expect(seen).toEqual([20, 40]);
    const bad: Json[] = [
      null,
      { nextSeq: 3, lastEvicted: -1 },
      { nextSeq: 3, lastEvicted: 3, entries: [] },
      {
        nextSeq: 3,
        lastEvicted: -1,
        entries: [
          [1, 1],
          [0, 2],
        ],
      },
      { nextSeq: 3, lastEvicted: 1, entries: [[1, 1]] },
    ];
    for (const b of bad) expect(codeOf(() => DecisionLedger.validateJSON(b, () => {}))).toBe(ErrorCode.SnapshotCorrupt);
    const rejectOdd = (p: Json) => {
      if ((p as number) % 2 !== 0) throw new RouteKitError(ErrorCode.SnapshotCorrupt, "odd payload");
    };
    expect(
      codeOf(() => DecisionLedger.validateJSON({ nextSeq: 2, lastEvicted: -1, entries: [[0, 2]] }, rejectOdd)),
    ).toBe(undefined);
    expect(
      codeOf(() =>
        DecisionLedger.validateJSON(
          {
            nextSeq: 2,
            lastEvicted: -1,
            entries: [
              [0, 2],
              [1, 3],
            ],
          },
          rejectOdd,
        ),
      ),
    ).toBe(ErrorCode.SnapshotCorrupt);
  });

  it("loadJSON disposes the payloads it replaces and trims to its own maxPending", () => {
    const c = numCodec();
    const big = new DecisionLedger(numCodec(), { maxPending: 10 });
    for (let i = 0; i < 6; i++) big.issue(i);
    const small = new DecisionLedger(c, { maxPending: 4 });
    small.issue(100);
    small.loadJSON(big.toJSON());
    expect(c.disposed).toEqual([100, 0, 1]);
    expect(small.size).toBe(4);
    expect(codeOf(() => small.get("d1"))).toBe(ErrorCode.DecisionExpired);
    expect(small.get("d2")).toBe(2);
    small.issue(6);
    expect(small.size).toBe(4);
  });

  it("agrees with a plain map of pending decisions on a random mix of issue, get, settle and snapshots", () => {
    // The newest pending decision is kept outside the ledger's Map (and its id parsed once): ids, sizes,
    // errors, iteration order, evictions and snapshots must be as if every decision were in one map.
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (const maxPending of [1, 2, 3, 7]) {
      const c = numCodec();
      let l = new DecisionLedger(c, { maxPending });
      const model = new Map<number, number>();
      let lastEvicted = -1;
      let next = 0;
      for (let step = 0; step < 600; step++) {
        const op = rand(10);
        if (op < 4) {
          const id = l.issue(1000 + next);
          expect(id).toBe(`d${next}`);
          model.set(next, 1000 + next);
          if (model.size > maxPending) {
            const oldest = Math.min(...model.keys());
            model.delete(oldest);
            lastEvicted = oldest;
          }
          next++;
        } else if (op < 9 && next > 0) {
          // mostly the newest (the usual stream), sometimes an older or settled one
          const seq = op < 7 ? next - 1 : rand(next);
          const id = rand(2) === 0 ? `d${seq}` : { id: `d${seq}` };
          if (model.has(seq)) {
            expect(l.get(id)).toBe(model.get(seq));
            l.settle(id);
            model.delete(seq);
          } else {
            const want = seq <= lastEvicted ? ErrorCode.DecisionExpired : ErrorCode.DecisionAlreadyUsed;
            expect(codeOf(() => l.get(id))).toBe(want);
            l.settle(id); // a no-op
          }
        } else if (next > 0) {
          const copy = new DecisionLedger(numCodec(), { maxPending });
          copy.loadJSON(JSON.parse(JSON.stringify(l.toJSON())) as Json);
          expect(copy.toJSON()).toEqual(l.toJSON());
          l = copy;
        }
        expect(l.size).toBe(model.size);
        expect([...l.values()]).toEqual([...model.keys()].sort((a, b) => a - b).map((k) => model.get(k)));
        expect(codeOf(() => l.get(""))).toBe(ErrorCode.UnknownDecision);
        expect(codeOf(() => l.get(`d${next}`))).toBe(ErrorCode.UnknownDecision);
      }
    }
  });

  it("writes every id in canonical decimal, across the thousands it caches", () => {
    const starts = [0, 990, 1990, 9990, 99_990, 999_990, 123_456_789, 2 ** 31 - 5, 999_999_999_999_975];
    for (const start of starts) {
      const l = new DecisionLedger(numCodec());
      if (start > 0) l.loadJSON({ nextSeq: start, lastEvicted: start - 1, entries: [] });
      for (let seq = start; seq < start + 25; seq++) {
        const id = l.issue(seq);
        expect(id).toBe(`d${seq}`);
        expect(l.get(id)).toBe(seq);
        if (seq % 2 === 0) l.settle({ id });
      }
      expect(l.size).toBe(12 + (start % 2 === 0 ? 0 : 1));
    }
  });
});

describe("a reference that is no id", () => {
  it('says what it got (the message was "unknown decision id undefined")', () => {
    const l = new DecisionLedger(numCodec());
    l.issue(1);
    for (const [ref, shown] of [
      [0, "0"],
      [null, "null"],
      [{}, "an object"],
    ] as const) {
      let message = "";
      try {
        l.get(ref as never);
      } catch (e) {
        expect((e as RouteKitError).code).toBe(ErrorCode.UnknownDecision);
        message = (e as Error).message;
      }
      expect(message).toContain(`expected an id string or a decision { id }, got ${shown}`);
    }
  });
});

describe("sequence numbers stop at 10^15, the ids get can parse (15 digits)", () => {
  it("a ledger restored past 10^15 is SNAPSHOT_CORRUPT; issuing the 10^15-th id is INVALID_STATE, nothing changed", () => {
    // Before: nextSeq 10^15 + 10 loaded, and get of its own pending "d1000000000000001" was UNKNOWN_DECISION.
    const l = new DecisionLedger(numCodec());
    expect(codeOf(() => l.loadJSON({ nextSeq: 1e15 + 10, lastEvicted: -1, entries: [[1e15 + 1, 5]] }))).toBe(
      ErrorCode.SnapshotCorrupt,
    );
    l.loadJSON({ nextSeq: 1e15 - 1, lastEvicted: -1, entries: [[1e15 - 2, 5]] });
    const id = l.issue(6);
    expect(id).toBe("d999999999999999");
    expect(l.get("d999999999999998")).toBe(5);
    const before = JSON.stringify(l.toJSON());
    expect(codeOf(() => l.issue(7))).toBe(ErrorCode.InvalidState);
    expect(JSON.stringify(l.toJSON())).toBe(before);
    expect(l.get(`d${999_999_999_999_999}`)).toBe(6);
    l.loadJSON({ nextSeq: 1e15, lastEvicted: -1, entries: [] });
    expect(codeOf(() => l.issue(8))).toBe(ErrorCode.InvalidState);
  });
});

describe("a decision reference is read once (outside audit)", () => {
  it("get then settle with a ref whose id getter changes settles the decision that get returned", () => {
    const l = new DecisionLedger(numCodec(), { maxPending: 10 });
    const a = l.issue(1);
    l.issue(2);
    let reads = 0;
    const ref = {
      get id() {
        reads++;
        return reads === 1 ? a : "zzz";
      },
    };
    expect(l.get(ref)).toBe(1);
    l.settle(ref);
    expect(l.size).toBe(1);
    expect(codeOf(() => l.get(a))).toBe(ErrorCode.DecisionAlreadyUsed);
  });

  it("a ref whose id getter throws is INVALID_ARGUMENT", () => {
    const l = new DecisionLedger(numCodec(), { maxPending: 10 });
    l.issue(1);
    const ref = new Proxy({} as { id: string }, {
      get() {
        throw new Error("boom");
      },
    });
    expect(codeOf(() => l.get(ref))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => l.settle(ref))).toBe(ErrorCode.InvalidArgument);
    expect(l.size).toBe(1);
  });
});

describe("caller code that throws inside the ledger (outside audit, core 2026-11-27)", () => {
  const codec: LedgerCodec<number> = { encode: (x) => x, decode: (j) => j as number };
  it("an option getter that throws is INVALID_ARGUMENT naming it", () => {
    for (const key of ["maxPending", "prefix"]) {
      const options = Object.defineProperty({}, key, {
        enumerable: true,
        get() {
          throw new Error(`getter ${key}`);
        },
      }) as LedgerOptions;
      expect(() => new DecisionLedger(codec, options)).toThrow(
        expect.objectContaining({
          code: "INVALID_ARGUMENT",
          message: `DecisionLedger: reading option ${key} threw: getter ${key}`,
        }),
      );
    }
  });

  it("a codec whose decode throws a plain error on a snapshot's payload is SNAPSHOT_CORRUPT, the ledger unchanged", () => {
    const l = new DecisionLedger(codec);
    l.issue(1);
    l.issue(2);
    const json = l.toJSON();
    const strict = new DecisionLedger<number>({
      encode: (x) => x,
      decode: (j) => {
        if (j === 2) throw new TypeError("cannot read properties of undefined");
        return j as number;
      },
    });
    strict.issue(7);
    const before = JSON.stringify(strict.toJSON());
    expect(() => strict.loadJSON(json)).toThrow(
      expect.objectContaining({
        code: "SNAPSHOT_CORRUPT",
        message: "snapshot has a pending decision whose payload cannot be decoded: cannot read properties of undefined",
      }),
    );
    expect(JSON.stringify(strict.toJSON())).toBe(before);
    // The codec's own RouteKitError keeps its code.
    const typed = new DecisionLedger<number>({
      encode: (x) => x,
      decode: () => {
        throw new RouteKitError(ErrorCode.SnapshotVersion, "old payload");
      },
    });
    expect(() => typed.loadJSON(json)).toThrow(expect.objectContaining({ code: "SNAPSHOT_VERSION" }));
  });
});

describe("DecisionLedger codec check", () => {
  it("refuses a codec that is not an object with encode and decode functions, at construction", () => {
    const code = errorCode;
    // new DecisionLedger(null) was accepted; the first settle or snapshot threw a TypeError.
    const bad: unknown[] = [
      null,
      undefined,
      42,
      {},
      { encode: (p: number) => p },
      { encode: (p: number) => p, decode: "x" },
      { encode: (p: number) => p, decode: (j: Json) => j, dispose: 1 },
      {
        get encode(): never {
          throw new Error("getter");
        },
        decode: (j: Json) => j,
      },
    ];
    for (const c of bad) {
      expect(
        code(() => new DecisionLedger(c as LedgerCodec<number>)),
        String(c),
      ).toBe(ErrorCode.InvalidArgument);
    }
    const l = new DecisionLedger({ encode: (p: number) => p, decode: (j: Json) => j as number, dispose: undefined });
    expect(l.get(l.issue(3))).toBe(3);
  });
});
