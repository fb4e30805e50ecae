/**
 * Regression tests for defects an outside numerics audit found in core (each failed on the code before its fix):
 * meanStd overflowing on finite input, logLogSlope and checkpoints accepting bad arguments, the runner recording
 * NaN regret and leaking a throwing onProgress untyped, makeSnapshot writing non-finite numbers as null, and the
 * off-policy standard error of a single event.
 */
import { describe, expect, it } from "vitest";
import {
  type ArmDecision,
  type ArmEnvironment,
  type ArmEvent,
  type ArmFeedback,
  type ArmPolicy,
  type ArmRound,
  checkpoints,
  DecisionLedger,
  type DecisionRef,
  ErrorCode,
  EVENT_VERSION,
  type Experiment,
  estimateOffPolicy,
  isRouteKitError,
  logLogSlope,
  makeSnapshot,
  meanStd,
  Rng,
  type RouteKitError,
  runExperiment,
} from "../src/index.js";

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

function codeOf(f: () => unknown): string | undefined {
  const e = caught(f);
  if (e === undefined) return undefined;
  return isRouteKitError(e) ? e.code : `untyped: ${String(e)}`;
}

/** The formula meanStd used before the fix, to prove ordinary inputs keep their bits. */
function oldMeanStd(xs: readonly number[]): { mean: number; std: number; se: number } {
  const n = xs.length;
  if (n === 0) return { mean: Number.NaN, std: Number.NaN, se: Number.NaN };
  let m = 0;
  for (const x of xs) m += x;
  m /= n;
  let v = 0;
  for (const x of xs) v += (x - m) * (x - m);
  const std = n > 1 ? Math.sqrt(v / (n - 1)) : 0;
  return { mean: m, std, se: std / Math.sqrt(n) };
}

describe("meanStd on finite input near the largest double", () => {
  it("[1e308, 1e308] has mean 1e308 and std 0 (the sum overflowed: NaN)", () => {
    expect(meanStd([1e308, 1e308])).toEqual({ mean: 1e308, std: 0, se: 0 });
  });

  it("values of both signs near the limit give a finite mean and the exact std when it is representable", () => {
    const m = meanStd([1e308, -1e308, 1e308, -1e308]);
    expect(m.mean).toBe(0);
    // sample std: sqrt(4 * 1e616 / 3) = 1.1547e308, representable
    expect(m.std / (1e308 * Math.sqrt(4 / 3))).toBeCloseTo(1, 12);
    expect(m.se).toBeCloseTo(m.std / 2, -295);
    const big = meanStd([1.5e308, 1.7e308, 1.6e308]);
    expect(big.mean / 1.6e308).toBeCloseTo(1, 14);
    expect(big.std / 1e307).toBeCloseTo(1, 12);
  });

  it("a std past the largest double is Infinity, never NaN", () => {
    const m = meanStd([1.7e308, -1.7e308]);
    expect(m.mean).toBe(0);
    expect(m.std).toBe(Number.POSITIVE_INFINITY);
    expect(m.se / 1.7e308).toBeCloseTo(1, 12); // |x1 - x2| / 2
  });

  it("ordinary inputs keep the bits of the former formula", () => {
    const rng = Rng.fromSeed(7);
    for (let k = 0; k < 500; k++) {
      const n = 1 + rng.int(40);
      const scale = 10 ** (rng.int(40) - 20);
      const xs = Array.from({ length: n }, () => scale * rng.normal(rng.normal(), 1 + rng.int(5)));
      expect(meanStd(xs)).toEqual(oldMeanStd(xs));
    }
    expect(meanStd([1, 2, 3, 4])).toEqual(oldMeanStd([1, 2, 3, 4]));
  });

  it("a non-number entry or a non-array is INVALID_ARGUMENT (a string was concatenated)", () => {
    expect(codeOf(() => meanStd([1, "2" as unknown as number]))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => meanStd("12" as unknown as number[]))).toBe(ErrorCode.InvalidArgument);
  });
});

describe("logLogSlope arguments", () => {
  it("x and y of different lengths are DIMENSION_MISMATCH (the extra points were ignored)", () => {
    const e = caught(() => logLogSlope([1, 2, 3], [1, 2]));
    expect(isRouteKitError(e, ErrorCode.DimensionMismatch)).toBe(true);
    expect(codeOf(() => logLogSlope([1, 2], [1, 2, 4]))).toBe(ErrorCode.DimensionMismatch);
  });

  it("a constant x is INVALID_ARGUMENT (it gave rounding noise: the slope is undefined)", () => {
    // before: (n sxy - sx sy) / (n sxx - sx^2) with a denominator of pure rounding
    expect(codeOf(() => logLogSlope([3, 3, 3], [1, 2, 5]))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => logLogSlope([0.1, 0.1, 0.1, 0.1, 0.1], [1, 2, 3, 4, 5]))).toBe(ErrorCode.InvalidArgument);
    // usable points at one x only (the others skipped) are degenerate too
    expect(codeOf(() => logLogSlope([7, 7, 9], [1, 2, 0]))).toBe(ErrorCode.InvalidArgument);
  });

  it("non-arrays and non-number entries are INVALID_ARGUMENT; fewer than two usable points stay NaN (the README)", () => {
    expect(codeOf(() => logLogSlope("12" as unknown as number[], [1, 2]))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => logLogSlope([1, 2], [1, "2" as unknown as number]))).toBe(ErrorCode.InvalidArgument);
    expect(Number.isNaN(logLogSlope([1, 2], [1, 0]))).toBe(true);
    expect(logLogSlope([1, 2, 4], [1, 2, 4])).toBe(1);
  });
});

describe("checkpoints arguments", () => {
  it("a horizon that is not an integer >= 1 is a typed error ([-1] before)", () => {
    expect(codeOf(() => checkpoints(-1, 2))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => checkpoints(0, 2))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => checkpoints(2.5, 2))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => checkpoints(Number.NaN, 2))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => checkpoints(Number.POSITIVE_INFINITY, 2))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => checkpoints("10" as unknown as number, 2))).toBe(ErrorCode.InvalidArgument);
  });

  it("points that are not an integer >= 0 are a typed error; 0 keeps meaning the horizon alone", () => {
    expect(codeOf(() => checkpoints(10, -1))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => checkpoints(10, 1.5))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => checkpoints(10, Number.NaN))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => checkpoints(10, "3" as unknown as number))).toBe(ErrorCode.InvalidArgument);
    expect(checkpoints(7, 0)).toEqual([7]);
    expect(checkpoints(10, 4)).toEqual([3, 5, 8, 10]);
  });
});

// ---------------------------------------------------------------- runner

/** Two known arms "a" (mean 1) and "b" (mean 0.5); `nanFor` makes expectedReward NaN for that arm. */
class TwoArms implements ArmEnvironment {
  readonly name = "two-arms";
  readonly contextDim = 0;
  readonly initialArms = ["a", "b"];
  constructor(private readonly nanFor?: string) {}
  reset(_rng: Rng): void {}
  next(_t: number): ArmRound {
    return { context: undefined };
  }
  expectedReward(arm: string): number {
    if (arm === this.nanFor) return Number.NaN;
    return ({ a: 1, b: 0.5 } as Record<string, number>)[arm] as number; // undefined for an arm it does not know
  }
  expectedCost(_arm: string): number {
    return 0;
  }
  oracleReward(): number {
    return 1;
  }
  bestFixedArm(): string {
    return "a";
  }
  bestFixedReward(): number {
    return 1;
  }
  isOptimal(arm: string): boolean {
    return arm === "a";
  }
  pull(arm: string): ArmFeedback {
    return { reward: arm === "a" ? 1 : 0 };
  }
}

/** Picks `arms[t % arms.length]`. */
class Cycle implements ArmPolicy {
  readonly kind = "test/cycle";
  readonly protocol = "arm" as const;
  readonly contextDim = 0;
  private t = 0;
  private readonly ledger = new DecisionLedger<string>({ encode: (p) => p, decode: (j) => j as string });
  constructor(readonly arms: string[]) {}
  get pendingDecisions(): number {
    return this.ledger.size;
  }
  addArm(id: string): void {
    this.arms.push(id);
  }
  removeArm(id: string): void {
    this.arms.splice(this.arms.indexOf(id), 1);
  }
  select(): ArmDecision {
    const arm = this.arms[this.t++ % this.arms.length] as string;
    return { id: this.ledger.issue(arm), arm };
  }
  update(decision: DecisionRef, _feedback: ArmFeedback): void {
    this.ledger.get(decision);
    this.ledger.settle(decision);
  }
  decisionRecord(decision: DecisionRef): ArmEvent {
    const arm = this.ledger.get(decision);
    const id = typeof decision === "string" ? decision : decision.id;
    return { v: EVENT_VERSION, kind: this.kind, protocol: "arm", id, decision: { arm, context: null } };
  }
  learn(_event: ArmEvent): void {}
  discard(decision: DecisionRef): void {
    this.ledger.get(decision);
    this.ledger.settle(decision);
  }
  toJSON() {
    return makeSnapshot(this.kind, 1, { t: this.t });
  }
}

function experiment(arms: string[], nanFor?: string): Experiment<"arm"> {
  return {
    protocol: "arm",
    environment: () => new TwoArms(nanFor),
    policies: [{ label: "cycler", create: () => new Cycle([...arms]) }],
    seeds: [1],
    horizon: 10,
  };
}

describe("runner: a pick the environment cannot value", () => {
  it("an arm the environment does not know is INVALID_STATE naming the policy, the round and the arm (NaN regret before)", () => {
    const e = caught(() => runExperiment(experiment(["a", "b", "ghost"])));
    expect(isRouteKitError(e, ErrorCode.InvalidState)).toBe(true);
    const err = e as RouteKitError;
    expect(err.message).toContain('"cycler"');
    expect(err.message).toContain('"ghost"');
    expect(err.message).toContain("round 3");
    expect(err.details).toMatchObject({ policy: "cycler", round: 3, arm: "ghost" });
  });

  it("expectedReward returning NaN is INVALID_STATE naming the arm", () => {
    const e = caught(() => runExperiment(experiment(["a", "b"], "b")));
    expect(isRouteKitError(e, ErrorCode.InvalidState)).toBe(true);
    expect((e as RouteKitError).details).toMatchObject({ policy: "cycler", round: 2, arm: "b" });
  });

  it("valid runs are unchanged (finite regret)", () => {
    const r = runExperiment(experiment(["a", "b"]));
    expect(r.runs[0]?.final.regret).toBe(2.5);
  });
});

describe("runner: a throwing onProgress", () => {
  it("becomes a RouteKitError (INVALID_ARGUMENT) that keeps the original as cause", () => {
    const boom = new Error("bar broke");
    const e = caught(() =>
      runExperiment(experiment(["a", "b"]), {
        onProgress: () => {
          throw boom;
        },
      }),
    );
    expect(isRouteKitError(e, ErrorCode.InvalidArgument)).toBe(true);
    expect((e as RouteKitError).message).toContain("onProgress threw: bar broke");
    expect((e as Error).cause).toBe(boom);
  });
});

// ---------------------------------------------------------------- makeSnapshot

describe("makeSnapshot refuses non-finite numbers", () => {
  it("NaN, Infinity and -Infinity are NON_FINITE naming the path (they were written as null)", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const e = caught(() =>
        makeSnapshot("test/x", 1, {
          arms: [
            { id: "a", mean: 1 },
            { id: "b", mean: bad },
          ],
        }),
      );
      expect(isRouteKitError(e, ErrorCode.NonFinite)).toBe(true);
      expect((e as RouteKitError).message).toContain("state.arms[1].mean");
      expect((e as RouteKitError).details).toMatchObject({ path: "state.arms[1].mean" });
    }
    expect(codeOf(() => makeSnapshot("test/x", 1, { n: Number.NaN }))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => makeSnapshot("test/x", 1, { null: [[1, Number.NaN]] }))).toBe(ErrorCode.NonFinite);
  });

  it("finite states, nulls and strings containing null are written as before", () => {
    const s = makeSnapshot("test/x", 1, { a: null, b: "null", c: [1, -0, 5e-324, 1.7e308], d: { e: true } });
    expect(s.state).toEqual({ a: null, b: "null", c: [1, -0, 5e-324, 1.7e308], d: { e: true } });
    expect(s.checksum).toMatch(/^[0-9a-f]{16}$/);
  });
});

// ---------------------------------------------------------------- off-policy

describe("off-policy standard error of a single event", () => {
  it("is 0 by design (no spread can be estimated from one event), for every estimator", () => {
    const events: ArmEvent[] = [
      {
        v: EVENT_VERSION,
        kind: "test/log",
        protocol: "arm",
        id: "d0",
        decision: { arm: "a", context: null, propensity: 0.5 },
        feedback: { reward: 1 },
      },
    ];
    for (const estimator of ["ips", "snips", "dr"] as const) {
      const r = estimateOffPolicy(events, {
        target: () => 1,
        estimator,
        arms: ["a"],
        ...(estimator === "dr" ? { rewardModel: () => 0.5 } : {}),
      });
      expect(r.n).toBe(1);
      expect(r.se).toBe(0);
      expect(r.lower).toBe(r.estimate);
      expect(r.upper).toBe(r.estimate);
    }
  });
});
