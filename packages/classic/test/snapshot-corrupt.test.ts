/**
 * fromJSON validates every snapshot field before constructing anything: out-of-range sizes,
 * non-safe counts, non-finite or inconsistent Float64 data, unknown enums and bad arm ids throw
 * SNAPSHOT_CORRUPT (never a RangeError, never a policy that fails later).
 */
import { ErrorCode, encodeF64, isRouteKitError, type Json, Rng, type Snapshot, snapshotChecksum } from "@routekit/core";
import { describe, expect, it } from "vitest";
import {
  EpsilonGreedy,
  LinUCBDisjoint,
  LinUCBShared,
  OneArmOracle,
  ThompsonBernoulli,
  ThompsonGaussian,
} from "../src/index.js";
import { CASES, D } from "./helpers.js";

type State = Record<string, Json>;
type Arm = Record<string, Json>;

function played<
  P extends { select(c?: Float64Array): { id: string }; update(d: { id: string }, f: { reward: number }): void },
>(p: P, dim: number): Snapshot {
  const rng = Rng.fromSeed("corrupt-history");
  const pend = [];
  for (let t = 0; t < 10; t++) pend.push(p.select(dim ? rng.fillNormal(new Float64Array(dim), 0, 0.5) : undefined));
  for (let t = 0; t < 7; t++) p.update(pend[t] as { id: string }, { reward: rng.uniform() < 0.5 ? 0 : 1 });
  return (p as unknown as { toJSON(): Snapshot }).toJSON();
}

/** A deep copy of `s` with `edit` applied to its state (checksum recomputed, so the field checks are reached). */
function mutate(s: Snapshot, edit: (st: State) => void): Snapshot {
  const c = JSON.parse(JSON.stringify(s)) as Snapshot & { state: State };
  edit(c.state);
  return { ...c, checksum: snapshotChecksum(c.kind, c.kindVersion, c.state) };
}

function expectCorrupt(restore: (s: Snapshot) => unknown, s: Snapshot): void {
  let err: unknown;
  try {
    restore(s);
  } catch (e) {
    err = e;
  }
  expect(err, "fromJSON must throw").toBeDefined();
  expect(isRouteKitError(err, ErrorCode.SnapshotCorrupt), String(err)).toBe(true);
}

const arms = (st: State) => st.arms as Arm[];
const entries = (st: State) => (st.ledger as { entries: [number, Json][] }).entries;

describe("snapshot sizes and counts", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s: contextDim, maxPending, nextUid, uids", (_n, c) => {
    const s = played(c.create(["a", "b", "c"], 3), c.contextDim);
    expect(c.restore(s).toJSON()).toEqual(s);
    for (const bad of [2 ** 53, 1e308, Number.POSITIVE_INFINITY, -1, 0.5, 1 << 20]) {
      expectCorrupt(
        c.restore,
        mutate(s, (st) => (st.contextDim = bad)),
      );
      expectCorrupt(
        c.restore,
        mutate(s, (st) => (st.maxPending = bad === 1 << 20 ? 0 : bad)),
      );
      expectCorrupt(
        c.restore,
        mutate(s, (st) => (st.nextUid = bad === 1 << 20 ? 1 : bad)),
      );
      expectCorrupt(
        c.restore,
        mutate(s, (st) => ((arms(st)[0] as Arm).uid = bad === 1 << 20 ? 99 : bad)),
      );
    }
    expectCorrupt(
      c.restore,
      mutate(s, (st) => ((arms(st)[1] as Arm).uid = (arms(st)[0] as Arm).uid as number)),
    );
    expectCorrupt(
      c.restore,
      mutate(s, (st) => ((arms(st)[1] as Arm).id = "a")),
    );
    expectCorrupt(
      c.restore,
      mutate(s, (st) => ((arms(st)[1] as Arm).id = "")),
    );
    expectCorrupt(
      c.restore,
      mutate(s, (st) => entries(st).push([1e6, null])),
    );
  });
});

describe("counting policies", () => {
  const stats = (n: number, sum: number) => encodeF64(Float64Array.of(n, sum));
  it("ThompsonGaussian: a huge contextDim is rejected, not loaded to fail on select", () => {
    const s = played(new ThompsonGaussian({ arms: ["a", "b"], seed: 1 }), 0);
    expectCorrupt(
      ThompsonGaussian.fromJSON,
      mutate(s, (st) => (st.contextDim = 1e308)),
    );
    expectCorrupt(
      ThompsonGaussian.fromJSON,
      mutate(s, (st) => (st.noiseVariance = 0)),
    );
    expectCorrupt(
      ThompsonGaussian.fromJSON,
      mutate(s, (st) => (st.priorMean = "0")),
    );
  });
  it("per-arm counts are integers >= 0 with finite sums; observations cover them", () => {
    const s = played(new EpsilonGreedy({ arms: ["a", "b"], seed: 1, decay: "1/t" }), 0);
    for (const bad of [stats(0.5, 0), stats(-1, 0), stats(2 ** 53, 0), stats(1, Number.NaN), stats(1, Infinity)]) {
      expectCorrupt(
        EpsilonGreedy.fromJSON,
        mutate(s, (st) => ((arms(st)[0] as Arm).stats = bad)),
      );
    }
    expectCorrupt(
      EpsilonGreedy.fromJSON,
      mutate(s, (st) => ((arms(st)[0] as Arm).stats = encodeF64(Float64Array.of(1)))),
    );
    expectCorrupt(
      EpsilonGreedy.fromJSON,
      mutate(s, (st) => (st.observations = 0)),
    );
    expectCorrupt(
      EpsilonGreedy.fromJSON,
      mutate(s, (st) => (st.decay = "1/t^2")),
    );
    expectCorrupt(
      EpsilonGreedy.fromJSON,
      mutate(s, (st) => (st.epsilon = 2)),
    );
  });
  it("ThompsonBernoulli: successes lie in [0, n] (whole numbers with the Bernoulli trick)", () => {
    const s = played(new ThompsonBernoulli({ arms: ["a", "b"], seed: 1 }), 0);
    for (const bad of [stats(2, 3), stats(2, -1), stats(2, 0.5)]) {
      expectCorrupt(
        ThompsonBernoulli.fromJSON,
        mutate(s, (st) => ((arms(st)[0] as Arm).stats = bad)),
      );
    }
    expectCorrupt(
      ThompsonBernoulli.fromJSON,
      mutate(s, (st) => (st.fractionalRewards = "other")),
    );
    const f = mutate(s, (st) => {
      st.fractionalRewards = "fractional";
      (arms(st)[0] as Arm).stats = stats(2, 0.5);
    });
    expect(ThompsonBernoulli.fromJSON(f).armStats("a").sum).toBe(0.5);
  });
  it("OneArmOracle: nextUid must be a safe integer, the arm a non-empty id", () => {
    const s = played(new OneArmOracle({ arms: ["a", "b"], arm: "b", seed: 1 }), 0);
    expectCorrupt(
      OneArmOracle.fromJSON,
      mutate(s, (st) => (st.nextUid = 2 ** 53)),
    );
    expectCorrupt(
      OneArmOracle.fromJSON,
      mutate(s, (st) => (st.arm = "")),
    );
    // Infinity cannot come from JSON text but can from a JS object handed to fromJSON.
    const inf = mutate(s, () => {});
    (inf.state as State).nextUid = Number.POSITIVE_INFINITY;
    expectCorrupt(OneArmOracle.fromJSON, inf);
    expectCorrupt(
      OneArmOracle.fromJSON,
      mutate(s, (st) => (entries(st)[0]![1] = 7)),
    );
  });
});

describe("LinUCB", () => {
  it("LinUCBDisjoint: contextDim 2^53 throws SNAPSHOT_CORRUPT, not a RangeError", () => {
    const s = played(new LinUCBDisjoint({ arms: ["a", "b"], contextDim: D, seed: 1 }), D);
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (st.contextDim = 2 ** 53)),
    );
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (st.contextDim = D + 1)),
    );
    const Ainv = new Float64Array(D * D);
    for (let i = 0; i < D; i++) Ainv[i * D + i] = 1;
    const withAinv = (a: Float64Array) => mutate(s, (st) => ((arms(st)[0] as Arm).Ainv = encodeF64(a)));
    expect(() => LinUCBDisjoint.fromJSON(withAinv(Ainv))).not.toThrow();
    expectCorrupt(LinUCBDisjoint.fromJSON, withAinv(Ainv.map((v, i) => (i === 1 ? Number.NaN : v))));
    // A diagonal entry of 0 is reachable (rounding cancels it, see clampInverseDiagonal); a negative one is not.
    expect(() => LinUCBDisjoint.fromJSON(withAinv(Ainv.map((v, i) => (i === D + 1 ? 0 : v))))).not.toThrow();
    expectCorrupt(LinUCBDisjoint.fromJSON, withAinv(Ainv.map((v, i) => (i === D + 1 ? -1e-300 : v))));
    expectCorrupt(LinUCBDisjoint.fromJSON, withAinv(Ainv.subarray(0, D)));
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => ((arms(st)[0] as Arm).b = encodeF64(new Float64Array(D + 1)))),
    );
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => ((arms(st)[0] as Arm).version = -1)),
    );
    const payload = (st: State) => entries(st)[0]![1] as Record<string, Json>;
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (payload(st).x = encodeF64(new Float64Array(D - 1)))),
    );
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (payload(st).u = encodeF64(new Float64Array(D).fill(Infinity)))),
    );
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (payload(st).uid = 1e308)),
    );
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (payload(st).version = -3)),
    );
    expectCorrupt(
      LinUCBDisjoint.fromJSON,
      mutate(s, (st) => (st.ridge = 0)),
    );
  });
  it("LinUCBShared: maxArms, capacity, slots and matrices agree", () => {
    const s = played(new LinUCBShared({ arms: ["a", "b", "c"], contextDim: D, maxArms: 2, seed: 1 }), D);
    expect((s.state as State).capacity).toBe(4);
    expect(LinUCBShared.fromJSON(s).toJSON()).toEqual(s);
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.maxArms = 2 ** 53)),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.capacity = 2 ** 53)),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.capacity = 3)),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.slotsUsed = 5)),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.slotsUsed = 2)),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => ((arms(st)[1] as Arm).slot = (arms(st)[0] as Arm).slot as number)),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.theta = encodeF64(new Float64Array(D + 4).fill(Number.NaN)))),
    );
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (st.Ainv = encodeF64(new Float64Array((D + 4) ** 2).fill(-1)))),
    );
    const payload = (st: State) => entries(st)[0]![1] as Record<string, Json>;
    expectCorrupt(
      LinUCBShared.fromJSON,
      mutate(s, (st) => (payload(st).u = encodeF64(new Float64Array(D + 5)))),
    );
  });
});

describe("constructor bounds match the snapshot readers", () => {
  it("rejects sizes no snapshot could restore with typed errors", () => {
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isRouteKitError(e) ? e.code : String(e);
      }
      return "no error";
    };
    expect(codeOf(() => new LinUCBDisjoint({ arms: [], contextDim: 2 ** 53 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new LinUCBShared({ arms: [], contextDim: D, maxArms: 2 ** 40 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new EpsilonGreedy({ arms: [], contextDim: 1e308 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new EpsilonGreedy({ arms: [], maxPending: 1e300 }))).toBe(ErrorCode.OutOfRange);
  });
});
