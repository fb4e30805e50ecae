import { describe, expect, it } from "vitest";
import { ArmTable, ErrorCode, Float64Pool, ObjectPool, Rng, RouteKitError } from "../src/index.js";
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

describe("ArmTable", () => {
  it("keeps arms in insertion order with dense states", () => {
    const t = new ArmTable<{ n: number }>();
    t.add("gpt", { n: 1 });
    t.add("claude", { n: 2 });
    t.add("llama", { n: 3 });
    expect(t.size).toBe(3);
    expect(t.ids).toEqual(["gpt", "claude", "llama"]);
    expect(t.states.map((s) => s.n)).toEqual([1, 2, 3]);
    expect(t.indexOf("llama")).toBe(2);
    expect(t.get("claude").n).toBe(2);
    expect(t.has("gpt")).toBe(true);
    expect(t.find("nope")).toBeUndefined();
  });

  it("removes an arm, returns its state and re-indexes the rest", () => {
    const t = new ArmTable<number>();
    for (const [i, id] of ["a", "b", "c", "d"].entries()) t.add(id, i);
    expect(t.remove("b")).toBe(1);
    expect(t.ids).toEqual(["a", "c", "d"]);
    expect(t.states).toEqual([0, 2, 3]);
    expect(t.indexOf("c")).toBe(1);
    expect(t.indexOf("d")).toBe(2);
    expect(t.has("b")).toBe(false);
    expect(t.find("b")).toBeUndefined();
    t.add("b", 9); // re-adding goes to the end
    expect(t.ids).toEqual(["a", "c", "d", "b"]);
  });

  it("throws the documented codes and check* never mutates", () => {
    const t: ArmTable<number> = new ArmTable<number>();
    expect(codeOf(() => t.checkNotEmpty())).toBe(ErrorCode.NoArms);
    t.add("a", 0);
    expect(codeOf(() => t.checkAdd("a"))).toBe(ErrorCode.DuplicateArm);
    expect(codeOf(() => t.add("a", 1))).toBe(ErrorCode.DuplicateArm);
    expect(codeOf(() => t.checkAdd(""))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => t.checkAdd(7))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => t.indexOf("zz"))).toBe(ErrorCode.UnknownArm);
    expect(codeOf(() => t.get("zz"))).toBe(ErrorCode.UnknownArm);
    expect(codeOf(() => t.checkRemove("zz"))).toBe(ErrorCode.UnknownArm);
    // An id that is no string is a value of the wrong type (the error-code rule): INVALID_ARGUMENT.
    for (const bad of [5, null, undefined, {}]) {
      expect(codeOf(() => t.indexOf(bad as never))).toBe(ErrorCode.InvalidArgument);
      expect(codeOf(() => t.get(bad as never))).toBe(ErrorCode.InvalidArgument);
      expect(codeOf(() => t.checkRemove(bad as never))).toBe(ErrorCode.InvalidArgument);
    }
    expect(codeOf(() => t.checkRemove("a"))).toBe(ErrorCode.LastArm);
    expect(codeOf(() => t.remove("a"))).toBe(ErrorCode.LastArm);
    expect(t.ids).toEqual(["a"]);
    expect(t.states).toEqual([0]);
    t.checkAdd("b");
    expect(t.size).toBe(1);
  });

  it("names the live arms in UNKNOWN_ARM messages", () => {
    const t = new ArmTable<number>();
    t.add("x", 0);
    t.add("y", 0);
    expect(() => t.get("z")).toThrow('unknown arm "z" (arms: x, y)');
    const many = new ArmTable<number>();
    for (let i = 0; i < 10; i++) many.add(i === 0 ? "L".repeat(10_000) : `m${i}`, i);
    const message = (() => {
      try {
        many.get("zz");
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(message).toBe(`unknown arm "zz" (arms: ${"L".repeat(40)}..., m1, m2, m3, m4, m5, m6, m7 and 2 more)`);
  });
});

describe("Float64Pool", () => {
  it("reuses released buffers (no allocation in steady state)", () => {
    const p = new Float64Pool(4);
    const a = p.acquire();
    expect(a.length).toBe(4);
    p.release(a);
    expect(p.acquire()).toBe(a);
    const b = p.copyOf([1, 2, 3, 4, 5]);
    expect([...b]).toEqual([1, 2, 3, 4]);
    p.release(b);
    const c = p.copyOf(new Float64Array([9, 8, 7, 6]));
    expect(c).toBe(b);
    expect([...c]).toEqual([9, 8, 7, 6]);
  });

  it("ignores buffers of another length and caps the free list", () => {
    const p = new Float64Pool(2, 2);
    const foreign = new Float64Array(3);
    p.release(foreign);
    expect(p.acquire()).not.toBe(foreign);
    const bufs = [new Float64Array(2), new Float64Array(2), new Float64Array(2)];
    for (const b of bufs) p.release(b);
    // Only two kept (LIFO).
    expect(p.acquire()).toBe(bufs[1]);
    expect(p.acquire()).toBe(bufs[0]);
    const fresh = p.acquire();
    expect(bufs.some((b) => b === fresh)).toBe(false);
  });
});

describe("ObjectPool", () => {
  it("reuses released objects and keeps at most maxFree", () => {
    let made = 0;
    const p = new ObjectPool(() => ({ n: made++ }), 1);
    const a = p.acquire();
    const b = p.acquire();
    expect(made).toBe(2);
    expect(p.release(a)).toBe(true);
    expect(p.release(b)).toBe(false);
    expect(p.acquire()).toBe(a);
    expect(p.acquire()).not.toBe(b);
    expect(made).toBe(3);
  });
});

describe("ArmTable positions after many removals (outside audit, core 2026-11-27)", () => {
  it("every live id maps to its position and removed ids are unknown, through seeded churn of 2,000 arms", () => {
    const rng = Rng.fromSeed("arm-churn");
    const t = new ArmTable<number>();
    const live: string[] = [];
    let next = 0;
    for (let step = 0; step < 4000; step++) {
      if (live.length < 2 || rng.uniform() < 0.55) {
        const id = `m${next++}`;
        t.add(id, next);
        live.push(id);
      } else {
        const k = rng.int(live.length);
        const [id] = live.splice(k, 1);
        t.remove(id as string);
        expect(() => t.indexOf(id as string)).toThrow(expect.objectContaining({ code: "UNKNOWN_ARM" }));
      }
      if (step % 97 === 0) expect(live.map((id) => t.indexOf(id))).toEqual(live.map((_, j) => j));
    }
    expect([...t.ids]).toEqual(live);
    expect(live.map((id) => t.indexOf(id))).toEqual(live.map((_, j) => j));
  });
});

describe("pool constructors check their arguments", () => {
  it("Float64Pool and ObjectPool refuse a bad length, maxFree or factory at construction", () => {
    const code = errorCode;
    // new Float64Pool(-1) was accepted and threw a RangeError at the first acquire().
    expect(code(() => new Float64Pool(-1))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new Float64Pool(1.5))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new Float64Pool(Number.NaN))).toBe(ErrorCode.NonFinite);
    expect(code(() => new Float64Pool("4" as unknown as number))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => new Float64Pool(4, -1))).toBe(ErrorCode.OutOfRange);
    expect(code(() => new Float64Pool(4, 8, null as unknown as (n: number) => Float64Array))).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(code(() => new ObjectPool(null as unknown as () => object))).toBe(ErrorCode.InvalidArgument);
    expect(code(() => new ObjectPool(() => ({}), 0.5))).toBe(ErrorCode.OutOfRange);
    expect(new Float64Pool(0).acquire().length).toBe(0);
    expect(new Float64Pool(3, 0).acquire().length).toBe(3);
  });
});
