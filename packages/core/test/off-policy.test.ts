/**
 * Off-policy evaluation on simulated logs with a known ground truth: four context types, three arms with linear mean
 * rewards plus Gaussian noise, a softmax (or uniform) logging policy with known propensities, and targets whose true
 * value is computed exactly over the four types.
 */
import { describe, expect, it } from "vitest";
import {
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmPolicyOptions,
  type ArmState,
  ErrorCode,
  estimateOffPolicy,
  isRouteKitError,
  makeSnapshot,
  meanStd,
  type OffPolicyResult,
  type ReplayResult,
  Rng,
  RouteKitError,
  replayEvaluate,
  type Snapshot,
} from "../src/index.js";
import { normalCdf, normalQuantile } from "../src/normal.js";

const ARMS = ["small", "medium", "large"];
const TYPES = [
  [1, 0, 0],
  [1, 1, 0],
  [1, 0, 1],
  [1, 1, 1],
];
const THETA = [
  [0.5, 0, 0],
  [0.2, 0.5, -0.1],
  [0.3, -0.2, 0.5],
];
const NOISE = 0.3;

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

/** True mean reward of arm index a on context x. */
const mu = (a: number, x: ArrayLike<number>) => dot(THETA[a] as number[], x);

function softmax(logits: number[]): number[] {
  const m = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - m));
  const s = e.reduce((x, y) => x + y, 0);
  return e.map((v) => v / s);
}

/** Logging policy: context-dependent softmax that mostly avoids the best arm (propensities 0.1 to 0.6). */
const logging = (x: ArrayLike<number>) => softmax([1, 1.2 * (x[2] as number), 1.2 * (x[1] as number)]);
const uniform = () => [1 / 3, 1 / 3, 1 / 3];
/** Stochastic target: softmax of 4 x the true means. */
const targetProbs = (x: ArrayLike<number>) => softmax(ARMS.map((_, a) => 4 * mu(a, x)));
const target = (arm: string, x: Float64Array | undefined) =>
  targetProbs(x as Float64Array)[ARMS.indexOf(arm)] as number;
/** Deterministic target: the best arm. */
const best = (x: ArrayLike<number>) => {
  let b = 0;
  for (let a = 1; a < ARMS.length; a++) if (mu(a, x) > mu(b, x)) b = a;
  return b;
};
const trueModel = (arm: string, x: Float64Array | undefined) => mu(ARMS.indexOf(arm), x as Float64Array);

const TRUE_VALUE =
  TYPES.reduce(
    (s, x) =>
      s +
      dot(
        targetProbs(x),
        [0, 1, 2].map((a) => mu(a, x)),
      ),
    0,
  ) / 4;
const BEST_VALUE = TYPES.reduce((s, x) => s + mu(best(x), x), 0) / 4; // 0.65

function simulateLog(seed: string, n: number, logger: (x: ArrayLike<number>) => number[]): ArmEvent[] {
  const rng = Rng.fromSeed(seed);
  const out: ArmEvent[] = [];
  for (let t = 0; t < n; t++) {
    const x = TYPES[rng.int(TYPES.length)] as number[];
    const p = logger(x);
    const a = rng.categorical(p);
    const reward = mu(a, x) + rng.normal(0, NOISE);
    out.push({
      v: 1,
      kind: "test/logger",
      protocol: "arm",
      id: `d${t}`,
      decision: { arm: ARMS[a] as string, context: [...x], propensity: p[a] as number },
      feedback: { reward },
    });
  }
  return out;
}

interface Summary {
  mean: number;
  se: number;
  sd: number;
  coverage: number;
}

function summarise(results: readonly OffPolicyResult[], truth: number): Summary {
  const m = meanStd(results.map((r) => r.estimate));
  const covered = results.filter((r) => r.lower <= truth && truth <= r.upper).length;
  return { mean: m.mean, se: m.se, sd: m.std, coverage: covered / results.length };
}

const REPS = 200;
const N = 1000;
const logs = Array.from({ length: REPS }, (_, i) => simulateLog(`a-${i}`, N, logging));

describe("normalQuantile", () => {
  it("inverts normalCdf", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(normalQuantile(0.5)).toBe(0);
    for (const p of [1e-300, 1e-10, 0.001, 0.02425, 0.3, 0.9, 0.999999]) {
      expect(Math.abs(normalCdf(normalQuantile(p)) - p) / p).toBeLessThan(1e-12);
    }
    for (const p of [1e-10, 0.001, 0.02425, 0.3]) expect(normalQuantile(1 - p)).toBeCloseTo(-normalQuantile(p), 5);
    expect(normalQuantile(0)).toBeNaN();
    expect(normalQuantile(1)).toBeNaN();
  });
});

describe("estimateOffPolicy: IPS, SNIPS and DR on simulated logs", () => {
  const ips = logs.map((e) => estimateOffPolicy(e, { target }));
  const snips = logs.map((e) => estimateOffPolicy(e, { target, estimator: "snips" }));
  const dr = logs.map((e) => estimateOffPolicy(e, { target, estimator: "dr", rewardModel: trueModel }));
  const drConst = logs.map((e) => estimateOffPolicy(e, { target, estimator: "dr", rewardModel: () => 0.5 }));
  const all = [
    ["ips", ips],
    ["snips", snips],
    ["dr", dr],
    ["dr-const", drConst],
  ] as const;

  it("the simulation is a real off-policy problem: the logged mean reward is far from the target's value", () => {
    expect(TRUE_VALUE).toBeCloseTo(0.5702, 4);
    const logged = meanStd(logs.flatMap((e) => e.map((x) => x.feedback?.reward as number)));
    expect(TRUE_VALUE - logged.mean).toBeGreaterThan(0.1); // 0.412
  });

  it("IPS, SNIPS and DR (true or constant reward model) are unbiased: mean over 200 logs within 3 s.e. of the truth", () => {
    // Measured (200 logs x 1000 events): IPS 0.5729 ± 0.0023, SNIPS 0.5715 ± 0.0013, DR 0.5709 ± 0.0011,
    // DR(constant 0.5) 0.5719 ± 0.0013; truth 0.5702 (|z| <= 1.8 for every estimator over 5 sets of 200 seeds).
    for (const [name, rs] of all) {
      const s = summarise(rs, TRUE_VALUE);
      expect(Math.abs(s.mean - TRUE_VALUE), `${name}: ${s.mean} ± ${s.se}`).toBeLessThan(3 * s.se);
    }
  });

  it("the nominal 95% interval covers the truth in 90-99% of the logs", () => {
    // Measured coverage over these 200 logs: IPS 0.93, SNIPS 0.92, DR 0.925, DR(constant) 0.92 (0.92-0.975 over 5
    // sets of 200 seeds: the normal approximation is slightly optimistic at weights up to 5.2 and n = 1000).
    for (const [name, rs] of all) {
      const c = summarise(rs, TRUE_VALUE).coverage;
      expect(c, name).toBeGreaterThanOrEqual(0.9);
      expect(c, name).toBeLessThanOrEqual(0.99);
    }
    // A 50% interval is narrower and covers about half the time.
    const half = logs.slice(0, 100).map((e) => estimateOffPolicy(e, { target, level: 0.5 }));
    const c50 = summarise(half, TRUE_VALUE).coverage;
    expect(c50).toBeGreaterThan(0.35);
    expect(c50).toBeLessThan(0.65);
  });

  it("DR with the true reward model has lower variance than IPS (and SNIPS), in the spread and the reported s.e.", () => {
    const sIps = summarise(ips, TRUE_VALUE).sd;
    const sDr = summarise(dr, TRUE_VALUE).sd;
    expect(sDr).toBeLessThan(0.6 * sIps); // measured 0.49 (0.43-0.49 over 5 seed sets)
    expect(sDr).toBeLessThan(summarise(snips, TRUE_VALUE).sd);
    expect(summarise(snips, TRUE_VALUE).sd).toBeLessThan(sIps); // measured 0.0177 against 0.0327
    expect(meanStd(dr.map((r) => r.se)).mean).toBeLessThan(0.6 * meanStd(ips.map((r) => r.se)).mean);
    // Each reported s.e. estimates the spread of its estimator over logs.
    for (const rs of [ips, dr]) {
      const ratio = meanStd(rs.map((r) => r.se)).mean / summarise(rs, TRUE_VALUE).sd;
      expect(ratio).toBeGreaterThan(0.85);
      expect(ratio).toBeLessThan(1.15);
    }
  });

  it("ignoring the logging propensities is biased (the test can fail): a uniform fallback misses by > 5 s.e.", () => {
    const strip = (e: ArmEvent[]) =>
      e.map((x) => ({ ...x, decision: { arm: x.decision.arm, context: x.decision.context } }));
    const wrong = logs.slice(0, 100).map((e) => estimateOffPolicy(strip(e), { target, fallbackPropensity: 1 / 3 }));
    const s = summarise(wrong, TRUE_VALUE);
    expect(Math.abs(s.mean - TRUE_VALUE)).toBeGreaterThan(5 * s.se);
    expect(wrong[0]?.missingPropensity).toBe(N);
  });

  it("reports n, weights, effective sample size and missing propensities", () => {
    const e = logs[0] as ArmEvent[];
    const r = ips[0] as OffPolicyResult;
    const w = e.map(
      (x) => target(x.decision.arm, Float64Array.from(x.decision.context ?? [])) / (x.decision.propensity as number),
    );
    const sw = w.reduce((a, b) => a + b, 0);
    const sw2 = w.reduce((a, b) => a + b * b, 0);
    expect(r.n).toBe(N);
    expect(r.estimator).toBe("ips");
    expect(r.level).toBe(0.95);
    expect(r.maxWeight).toBe(Math.max(...w));
    expect(r.effectiveSampleSize).toBeCloseTo((sw * sw) / sw2, 9);
    expect(r.effectiveSampleSize).toBeLessThan(N);
    expect(r.missingPropensity).toBe(0);
    expect(r.clipped).toBe(0);
    expect(r.estimate).toBeCloseTo(w.reduce((s, wi, i) => s + wi * (e[i]?.feedback?.reward as number), 0) / N, 12);
    expect(r.upper - r.estimate).toBeCloseTo(1.959963984540054 * r.se, 12);
    expect(r.estimate - r.lower).toBeCloseTo(1.959963984540054 * r.se, 12);
    const s = snips[0] as OffPolicyResult;
    expect(s.estimate).toBeCloseTo(w.reduce((a, wi, i) => a + wi * (e[i]?.feedback?.reward as number), 0) / sw, 12);
  });

  it("clipping caps the weights, counts them, and raises the effective sample size", () => {
    const e = logs[1] as ArmEvent[];
    const full = estimateOffPolicy(e, { target });
    const clip = full.maxWeight / 2;
    const c = estimateOffPolicy(e, { target, clip });
    expect(c.maxWeight).toBe(clip);
    expect(c.clipped).toBeGreaterThan(0);
    expect(c.effectiveSampleSize).toBeGreaterThan(full.effectiveSampleSize);
    expect(estimateOffPolicy(e, { target, clip: full.maxWeight }).clipped).toBe(0);
  });

  it("the three target forms agree: a function, per-event probabilities, and the picks of a deterministic target", () => {
    const e = logs[2] as ArmEvent[];
    const ctx = (x: ArmEvent) => x.decision.context as number[];
    const fn = estimateOffPolicy(e, { target });
    const arr = estimateOffPolicy(e, { target: e.map((x) => target(x.decision.arm, Float64Array.from(ctx(x)))) });
    expect(arr).toEqual(fn);
    // A deterministic target: its probability of the logged arm is 1[pick = logged arm], exactly.
    const det = (arm: string, x: Float64Array | undefined) => (ARMS[best(x as Float64Array)] === arm ? 1 : 0);
    const picks = e.map((x) => ARMS[best(ctx(x))] as string);
    for (const estimator of ["ips", "snips"] as const) {
      expect(estimateOffPolicy(e, { target: { picks }, estimator })).toEqual(
        estimateOffPolicy(e, { target: det, estimator }),
      );
    }
    const drP = estimateOffPolicy(e, { target: { picks }, estimator: "dr", rewardModel: trueModel });
    const drF = estimateOffPolicy(e, { target: det, estimator: "dr", rewardModel: trueModel });
    expect(drP.estimate).toBeCloseTo(drF.estimate, 12);
  });

  it("per-event probabilities may be a Float64Array or a Float32Array (a model runtime's output), as every vector input", () => {
    const e = logs[3] as ArmEvent[];
    const probs = e.map((x) => target(x.decision.arm, Float64Array.from(x.decision.context as number[])));
    for (const estimator of ["ips", "snips"] as const) {
      const plain = estimateOffPolicy(e, { target: probs, estimator });
      expect(estimateOffPolicy(e, { target: Float64Array.from(probs), estimator })).toEqual(plain);
      // A Float32Array is read exactly: the same as its float32 values in a plain array.
      expect(estimateOffPolicy(e, { target: Float32Array.from(probs), estimator })).toEqual(
        estimateOffPolicy(e, { target: probs.map(Math.fround), estimator }),
      );
    }
    // Its entries are checked as a plain array's, naming the event; other typed arrays are refused as elsewhere.
    const bad = Float32Array.from(probs);
    bad[7] = Number.NaN;
    const nan = codeOf(() => estimateOffPolicy(e, { target: bad }));
    expect([nan.code, nan.index]).toEqual([ErrorCode.NonFinite, 7]);
    bad[7] = 2;
    expect(codeOf(() => estimateOffPolicy(e, { target: bad })).code).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => estimateOffPolicy(e, { target: new Float64Array(3) })).code).toBe(ErrorCode.DimensionMismatch);
    const int8 = codeOf(() => estimateOffPolicy(e, { target: new Int8Array(e.length) as never }));
    expect(int8.code).toBe(ErrorCode.InvalidArgument);
    expect(int8.message).toContain("Float32Array");
    const dr = codeOf(() =>
      estimateOffPolicy(e, { target: Float32Array.from(probs), estimator: "dr", rewardModel: trueModel }),
    );
    expect(dr.code).toBe(ErrorCode.InvalidArgument);
    expect(dr.message).toContain("estimator dr needs the target's probability of every arm");
  });

  it("sampled picks of a randomized target (indicator 1[pick = logged]) are unbiased too; 1[pick = logged]/propensity is not", () => {
    const rng = Rng.fromSeed("picks");
    const res = logs.map((e) => {
      const picks = e.map((x) => ARMS[rng.categorical(targetProbs(x.decision.context as number[]))] as string);
      return estimateOffPolicy(e, { target: { picks }, estimator: "dr", rewardModel: trueModel });
    });
    const s = summarise(res, TRUE_VALUE);
    expect(Math.abs(s.mean - TRUE_VALUE)).toBeLessThan(3 * s.se);
    expect(s.coverage).toBeGreaterThanOrEqual(0.9);
    // Dividing the indicator by the target's propensity of its pick estimates 1[pi(a|x) > 0], not pi(a|x): biased.
    const wrong = meanStd(
      logs.slice(0, 50).map((e) => {
        let s = 0;
        for (const x of e) {
          const p = targetProbs(x.decision.context as number[]);
          const a = rng.categorical(p);
          if (ARMS[a] === x.decision.arm)
            s += (x.feedback?.reward as number) / (p[a] as number) / (x.decision.propensity as number);
        }
        return s / e.length;
      }),
    );
    expect(Math.abs(wrong.mean - TRUE_VALUE)).toBeGreaterThan(5 * wrong.se);
  });
});

// ---------------------------------------------------------------- replay

interface Counts extends ArmState {
  n: number;
  sum: number;
}

/**
 * A test policy: with `theta`, the fixed argmax of x . theta_a (it never changes its choices); without, epsilon-greedy
 * on per-arm means (a learner; context-free). Rewards above 100 are refused (OUT_OF_RANGE).
 */
class TestPolicy extends ArmPolicyBase<Counts, number> {
  readonly kind = "test/policy";
  private readonly theta: number[][] | undefined;
  private readonly epsilon: number;
  constructor(options: ArmPolicyOptions & { theta?: number[][]; epsilon?: number }) {
    super(options, { encode: (u) => u, decode: (j) => j as number }, options.theta ? 3 : 0);
    this.theta = options.theta;
    this.epsilon = options.epsilon ?? 0.1;
    this.addInitialArms(options);
  }
  protected createArm(uid: number): Counts {
    return { uid, n: 0, sum: 0 };
  }
  protected choose(x: Float64Array | undefined) {
    const k = this.table.size;
    let i = 0;
    if (this.theta) {
      for (let a = 1; a < k; a++)
        if (dot(this.theta[a] as number[], x as Float64Array) > dot(this.theta[i] as number[], x as Float64Array))
          i = a;
    } else if (this.rng.uniform() < this.epsilon) {
      i = this.rng.int(k);
    } else {
      let bv = -Infinity;
      for (let a = 0; a < k; a++) {
        const s = this.table.states[a] as Counts;
        const v = s.n > 0 ? s.sum / s.n : Infinity;
        if (v > bv) {
          bv = v;
          i = a;
        }
      }
    }
    return { id: this.ledger.issue((this.table.states[i] as Counts).uid), arm: this.table.ids[i] as string };
  }
  protected applyFeedback(state: Counts, _p: number, fb: ArmFeedback): void {
    state.n++;
    state.sum += fb.reward;
  }
  protected override checkReward(r: number): void {
    if (r > 100) throw new RouteKitError(ErrorCode.OutOfRange, `reward must be <= 100, got ${r}`);
  }
  protected uidOf(p: number): number {
    return p;
  }
  protected payloadFromEvent(_e: ArmEvent, state: Counts): number {
    return state.uid;
  }
  protected encodeArm(s: Counts) {
    return { n: s.n, sum: s.sum };
  }
  toJSON(): Snapshot {
    return makeSnapshot(this.kind, 1, this.baseState());
  }
}

/** The online average reward of a fresh policy over T rounds of the simulated environment. */
function online(policy: TestPolicy, T: number, seed: string): number {
  const rng = Rng.fromSeed(seed);
  let sum = 0;
  for (let t = 0; t < T; t++) {
    const x = Float64Array.from(TYPES[rng.int(TYPES.length)] as number[]);
    const d = policy.select(x);
    const r = mu(ARMS.indexOf(d.arm), x) + rng.normal(0, NOISE);
    policy.update(d, { reward: r });
    sum += r;
  }
  return sum / T;
}

describe("replayEvaluate (Li, Chu, Langford & Wang 2011)", () => {
  const uniformLogs = Array.from({ length: 200 }, (_, i) => simulateLog(`replay-${i}`, 600, uniform));

  it("on uniform logs it matches the online value of a fixed policy, settles every decision, covers the truth", () => {
    const rs: ReplayResult[] = uniformLogs.map((e, i) => {
      const p = new TestPolicy({ arms: ARMS, theta: THETA, seed: i });
      const r = replayEvaluate(e, p);
      expect(p.pendingDecisions).toBe(0);
      return r;
    });
    const s = summarise(rs, BEST_VALUE);
    // Measured over 200 logs of 600 events: 0.6513 ± 0.0014 (truth 0.65), coverage 0.95; 200 of 600 events match.
    expect(Math.abs(s.mean - BEST_VALUE)).toBeLessThan(3 * s.se);
    expect(s.coverage).toBeGreaterThanOrEqual(0.9);
    expect(s.coverage).toBeLessThanOrEqual(0.99);
    const matched = meanStd(rs.map((r) => r.matched)).mean;
    expect(matched / 600).toBeGreaterThan(0.3);
    expect(matched / 600).toBeLessThan(0.37);
    expect(rs[0]?.effectiveSampleSize).toBeCloseTo(rs[0]?.matched as number, 9);
  });

  it("a learning policy's replay matches its online average reward over as many rounds as were matched", () => {
    const replayed: number[] = [];
    const live: number[] = [];
    uniformLogs.forEach((e, i) => {
      const r = replayEvaluate(e, new TestPolicy({ arms: ARMS, seed: i, epsilon: 0.2 }));
      replayed.push(r.estimate);
      live.push(online(new TestPolicy({ arms: ARMS, seed: i, epsilon: 0.2 }), r.matched, `online-${i}`));
    });
    const a = meanStd(replayed);
    const b = meanStd(live);
    // Measured over 200 logs: replay 0.4695 ± 0.0021, online 0.4735 ± 0.0020 (z = 1.4; over 3 other sets of 100
    // seeds the difference was -0.0003, -0.0064 and +0.0026, never beyond 2 combined s.e.).
    expect(Math.abs(a.mean - b.mean)).toBeLessThan(3 * Math.hypot(a.se, b.se));
    expect(a.std / b.std).toBeGreaterThan(0.7);
    expect(a.std / b.std).toBeLessThan(1.4);
  });

  it("on non-uniform logs the 1/propensity weights remove the bias that plain matching has", () => {
    const softLogs = logs.slice(0, 100);
    const weighted = softLogs.map((e, i) => replayEvaluate(e, new TestPolicy({ arms: ARMS, theta: THETA, seed: i })));
    const s = summarise(weighted, BEST_VALUE);
    // Measured over 100 logs: weighted 0.6518 ± 0.0024 (truth 0.65), unweighted 0.5882 ± 0.0019.
    expect(Math.abs(s.mean - BEST_VALUE)).toBeLessThan(3 * s.se);
    expect(weighted[0]?.effectiveSampleSize).toBeLessThan(weighted[0]?.matched as number);
    const strip = (e: ArmEvent[]) =>
      e.map((x) => ({ ...x, decision: { arm: x.decision.arm, context: x.decision.context } }));
    const plain = softLogs.map((e, i) =>
      replayEvaluate(strip(e), new TestPolicy({ arms: ARMS, theta: THETA, seed: i }), { fallbackPropensity: 0.5 }),
    );
    const sp = summarise(plain, BEST_VALUE);

    expect(Math.abs(sp.mean - BEST_VALUE)).toBeGreaterThan(5 * sp.se);
    expect(plain[0]?.missingPropensity).toBe(N);
  });
});

// ---------------------------------------------------------------- errors

function codeOf(fn: () => unknown): { code: string; message: string; index: unknown } {
  try {
    fn();
  } catch (e) {
    if (!isRouteKitError(e)) throw e;
    return { code: e.code, message: e.message, index: e.details?.index };
  }
  throw new Error("did not throw");
}

describe("errors: typed, before anything is computed, the policy untouched", () => {
  const base = simulateLog("errors", 6, logging);
  const edit = (i: number, f: (e: Record<string, unknown> & { decision: Record<string, unknown> }) => void) => {
    const copy = JSON.parse(JSON.stringify(base)) as (Record<string, unknown> & {
      decision: Record<string, unknown>;
    })[];
    f(copy[i] as Record<string, unknown> & { decision: Record<string, unknown> });
    return copy as unknown as ArmEvent[];
  };
  const badLogs: [string, ArmEvent[], string][] = [
    ["missing propensity", edit(3, (e) => delete e.decision.propensity), ErrorCode.InvalidEvent],
    ["propensity 0", edit(3, (e) => (e.decision.propensity = 0)), ErrorCode.InvalidEvent],
    ["propensity 1.5", edit(3, (e) => (e.decision.propensity = 1.5)), ErrorCode.InvalidEvent],
    ["NaN reward", edit(3, (e) => (e.feedback = { reward: Number.NaN })), ErrorCode.InvalidEvent],
    ["NaN context", edit(3, (e) => (e.decision.context = [1, Number.NaN, 0])), ErrorCode.InvalidEvent],
    ["wrong context length", edit(3, (e) => (e.decision.context = [1, 0])), ErrorCode.InvalidEvent],
    ["no context", edit(3, (e) => (e.decision.context = null)), ErrorCode.InvalidEvent],
    ["no feedback", edit(3, (e) => delete e.feedback), ErrorCode.InvalidEvent],
    ["schema version 2", edit(3, (e) => (e.v = 2)), ErrorCode.InvalidEvent],
    ["not an object", edit(3, (e) => Object.assign(e, { decision: "small" })), ErrorCode.InvalidEvent],
  ];

  it.each(badLogs)(
    "a log with %s: the estimators and replay name event 3, the policy is untouched",
    (_n, log, code) => {
      for (const estimator of ["ips", "snips"] as const) {
        const e = codeOf(() => estimateOffPolicy(log, { target, estimator }));
        expect(e.code).toBe(code);
        expect(e.index).toBe(3);
        expect(e.message).toMatch(/^events\[3\]: /);
      }
      expect(codeOf(() => estimateOffPolicy(log, { target, estimator: "dr", rewardModel: trueModel })).code).toBe(code);
      const p = new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 });
      p.select(Float64Array.from([1, 0, 0])); // a pending decision of the caller's, kept
      const before = JSON.stringify(p.toJSON());
      const e = codeOf(() => replayEvaluate(log, p));
      expect(e.code).toBe(code);
      expect(e.index).toBe(3);
      expect(JSON.stringify(p.toJSON())).toBe(before);
    },
  );

  it("the replayed policy's arms and context length must fit the log; a non-policy is refused", () => {
    const extra = new TestPolicy({ arms: [...ARMS, "xl"], theta: [...THETA, [0, 0, 0]], seed: 1 });
    const before = JSON.stringify(extra.toJSON());
    expect(codeOf(() => replayEvaluate(base, extra)).code).toBe(ErrorCode.UnknownArm);
    expect(JSON.stringify(extra.toJSON())).toBe(before);
    // A context-free policy ignores the contexts; a contextual one needs its own length.
    expect(replayEvaluate(simulateLog("cf", 60, uniform), new TestPolicy({ arms: ARMS, seed: 1 })).n).toBe(60);
    const wrongDim = new TestPolicy({
      arms: ARMS,
      contextDim: 2,
      theta: [
        [1, 0],
        [0, 1],
        [1, 1],
      ],
      seed: 1,
    });
    const w0 = JSON.stringify(wrongDim.toJSON());
    const e = codeOf(() => replayEvaluate(base, wrongDim));
    expect([e.code, e.index]).toEqual([ErrorCode.InvalidEvent, 0]);
    expect(e.message).toMatch(/2 numbers \(the policy's contextDim\), got 3 numbers/);
    expect(JSON.stringify(wrongDim.toJSON())).toBe(w0);
    for (const notPolicy of [null, {}, { protocol: "arm" }, "ucb1"]) {
      expect(codeOf(() => replayEvaluate(base, notPolicy as never)).code).toBe(ErrorCode.InvalidArgument);
    }
    const p = new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 });
    const p0 = JSON.stringify(p.toJSON());
    expect(codeOf(() => replayEvaluate(base, p, { clp: 2 } as never)).message).toMatch(/did you mean "clip"/);
    expect(codeOf(() => replayEvaluate(base, p, { level: 1 })).code).toBe(ErrorCode.OutOfRange);
    expect(JSON.stringify(p.toJSON())).toBe(p0);
  });

  it("an update the policy refuses is rethrown with the event's index, and its decision is not left pending", () => {
    const log = simulateLog("refused", 30, uniform).map((e, i) =>
      i === 20 ? { ...e, feedback: { reward: 1000 } } : e,
    );
    // Make event 20 a match for the fixed policy.
    const x = log[20]?.decision.context as number[];
    (log[20] as { decision: { arm: string } }).decision.arm = ARMS[best(x)] as string;
    const p = new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 });
    const e = codeOf(() => replayEvaluate(log, p));
    expect([e.code, e.index]).toEqual([ErrorCode.OutOfRange, 20]);
    expect(p.pendingDecisions).toBe(0);
  });

  it("a context the policy's select refuses is rethrown with the event's index, nothing left pending", () => {
    // e.g. an HPG router refusing a logged query of norm above 1: the error named no event (no index, no prefix).
    const log = simulateLog("select-refused", 30, uniform);
    const p = new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 });
    const select = p.select.bind(p);
    let calls = 0;
    p.select = (context) => {
      if (++calls === 12) throw new RouteKitError(ErrorCode.OutOfRange, "the query must have norm <= 1, got 2");
      return select(context);
    };
    const e = codeOf(() => replayEvaluate(log, p));
    expect([e.code, e.index, e.message]).toEqual([
      ErrorCode.OutOfRange,
      11,
      "events[11]: the query must have norm <= 1, got 2",
    ]);
    expect(p.pendingDecisions).toBe(0);
  });

  it("no match is NUMERICAL, not NaN", () => {
    const log = simulateLog("nomatch", 20, uniform).map((e) => {
      const x = e.decision.context as number[];
      return { ...e, decision: { ...e.decision, arm: ARMS[(best(x) + 1) % 3] as string } };
    });
    const p = new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 });
    expect(codeOf(() => replayEvaluate(log, p)).code).toBe(ErrorCode.Numerical);
    expect(p.pendingDecisions).toBe(0);
    const never = () => 0;
    expect(codeOf(() => estimateOffPolicy(log, { target: never, estimator: "snips" })).code).toBe(ErrorCode.Numerical);
    expect(estimateOffPolicy(log, { target: never }).estimate).toBe(0);
  });

  it("extreme but finite logs: a result is finite or NUMERICAL (tiny propensities, huge rewards), clip rescues it", () => {
    const log = simulateLog("extreme", 40, uniform);
    const tiny = (p: number) =>
      log.map((e, i) => (i === 3 ? { ...e, decision: { ...e.decision, propensity: p } } : e)) as ArmEvent[];
    const always = (arm: string) => (arm === (log[3] as ArmEvent).decision.arm ? 1 : 0);
    const finite = (r: OffPolicyResult) =>
      [r.estimate, r.se, r.lower, r.upper, r.effectiveSampleSize, r.maxWeight].every(Number.isFinite);
    for (const p of [1e-300, 5e-324]) {
      // IPS at w = 1e300: the mean of w r is finite and, since meanStd scales a sum that overflows, so is its
      // standard error (the squared deviations overflowed: NUMERICAL before). At 5e-324 the weight itself is
      // Infinity: NUMERICAL. SNIPS divides by sum w: finite at 1e300 (the self-normalised mean is then that
      // event's reward), undefined at an infinite weight.
      if (p === 1e-300) expect(finite(estimateOffPolicy(tiny(p), { target: always }))).toBe(true);
      else {
        const e = codeOf(() => estimateOffPolicy(tiny(p), { target: always }));
        expect([e.code, e.message]).toEqual([ErrorCode.Numerical, expect.stringContaining("option clip")]);
      }
      if (p === 1e-300) expect(finite(estimateOffPolicy(tiny(p), { target: always, estimator: "snips" }))).toBe(true);
      else
        expect(codeOf(() => estimateOffPolicy(tiny(p), { target: always, estimator: "snips" })).code).toBe(
          ErrorCode.Numerical,
        );
      const clipped = estimateOffPolicy(tiny(p), { target: always, clip: 100 });
      expect(finite(clipped)).toBe(true);
      expect([clipped.maxWeight, clipped.clipped]).toEqual([100, 1]);
    }
    // Weights near 1e299 do not overflow the effective sample size: it is computed from scaled weights.
    const big = estimateOffPolicy(tiny(1e-299), { target: always, estimator: "snips" });
    expect(big.effectiveSampleSize).toBeCloseTo(1, 12);
    const huge = log.map((e) => ({ ...e, feedback: { reward: 1e308 } })) as ArmEvent[];
    // Rewards of 1e308: the sum overflowed (NUMERICAL before); meanStd's scaled path gives the finite mean.
    const hugeIps = estimateOffPolicy(huge, { target: () => 1 / 3 });
    expect(finite(hugeIps)).toBe(true);
    expect(hugeIps.estimate / 1e308).toBeCloseTo(1, 12);
  });

  it("self-normalised estimates (SNIPS, replay) do not depend on the weights' scale: weights near 1e300 give the estimate and se of ordinary ones (they were NUMERICAL)", () => {
    const log = simulateLog("scale", 60, uniform);
    const at = (p: number) => log.map((e) => ({ ...e, decision: { ...e.decision, propensity: p } })) as ArmEvent[];
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));
    const target = (arm: string) => (arm === ARMS[0] ? 0.7 : 0.15);
    const ref = estimateOffPolicy(at(1 / 3), { target, estimator: "snips" });
    for (const p of [1e-300, 1e-305, 2 ** -1022]) {
      const r = estimateOffPolicy(at(p), { target, estimator: "snips" });
      expect([close(r.estimate, ref.estimate), close(r.se, ref.se)], `snips at propensity ${p}`).toEqual([true, true]);
      expect(r.effectiveSampleSize).toBeCloseTo(ref.effectiveSampleSize, 9);
      const replayRef = replayEvaluate(at(1 / 3), new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 }));
      const replay = replayEvaluate(at(p), new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 }));
      expect(replay.matched).toBe(replayRef.matched);
      expect([close(replay.estimate, replayRef.estimate), close(replay.se, replayRef.se)], `replay at ${p}`).toEqual([
        true,
        true,
      ]);
    }
    // Rewards near the largest double: the self-normalised mean of one event is its reward (its w r overflowed).
    const huge = [{ ...(log[0] as ArmEvent), feedback: { reward: 1e308 } }] as ArmEvent[];
    const one = estimateOffPolicy(huge, { target: () => 1, estimator: "snips" });
    expect([one.estimate, one.se]).toEqual([1e308, 0]);
    // The usual path keeps its bits: no rescaling when nothing overflows.
    expect(estimateOffPolicy(at(1 / 3), { target, estimator: "snips" })).toEqual(ref);
  });

  it("the target and the reward model: thrown errors, NaN, values out of range, wrong forms, unknown arms", () => {
    const at = (fn: () => unknown) => {
      const e = codeOf(fn);
      return [e.code, e.index];
    };
    const nanAt2 = (arm: string, x: Float64Array | undefined, i: number) => (i === 2 ? Number.NaN : target(arm, x));
    expect(at(() => estimateOffPolicy(base, { target: nanAt2 }))).toEqual([ErrorCode.NonFinite, 2]);
    const throwsAt4 = (arm: string, x: Float64Array | undefined, i: number) => {
      if (i === 4) throw new Error("model server down");
      return target(arm, x);
    };
    const thrown = codeOf(() => estimateOffPolicy(base, { target: throwsAt4 }));
    expect([thrown.code, thrown.index]).toEqual([ErrorCode.InvalidArgument, 4]);
    expect(thrown.message).toMatch(/^events\[4\]: target\(".*", context\) threw: model server down/);
    const typed = () => {
      throw new RouteKitError(ErrorCode.DimensionMismatch, "x has length 3, expected 2");
    };
    expect(at(() => estimateOffPolicy(base, { target: typed }))).toEqual([ErrorCode.DimensionMismatch, 0]);
    expect(at(() => estimateOffPolicy(base, { target: () => 1.5 }))).toEqual([ErrorCode.OutOfRange, 0]);
    expect(at(() => estimateOffPolicy(base, { target: () => -0.1 }))).toEqual([ErrorCode.OutOfRange, 0]);
    expect(at(() => estimateOffPolicy(base, { target: () => "0.5" as unknown as number }))).toEqual([
      ErrorCode.InvalidArgument,
      0,
    ]);
    expect(at(() => estimateOffPolicy(base, { target: [0.5, 0.5, Number.NaN, 0, 0, 0] }))).toEqual([
      ErrorCode.NonFinite,
      2,
    ]);
    expect(codeOf(() => estimateOffPolicy(base, { target: [0.5, 0.5] })).code).toBe(ErrorCode.DimensionMismatch);
    expect(codeOf(() => estimateOffPolicy(base, { target: { picks: ["small"] } })).code).toBe(
      ErrorCode.DimensionMismatch,
    );
    const picks = base.map(() => "small");
    picks[5] = "xl";
    expect(at(() => estimateOffPolicy(base, { target: { picks } }))).toEqual([ErrorCode.UnknownArm, 5]);
    const others = ARMS.filter((a) => a !== base[0]?.decision.arm);
    expect(at(() => estimateOffPolicy(base, { target, arms: others }))).toEqual([ErrorCode.UnknownArm, 0]);
    // An explicit empty list names no arm: every logged arm is outside it (it was read as "not given" and passed).
    expect(at(() => estimateOffPolicy(base, { target, arms: [] }))).toEqual([ErrorCode.UnknownArm, 0]);
    expect(at(() => replayEvaluate(base, new TestPolicy({ arms: ARMS, theta: THETA, seed: 1 }), { arms: [] }))).toEqual(
      [ErrorCode.UnknownArm, 0],
    );
    for (const t of [undefined, null, "small", 0.5, { picks: "small" }]) {
      expect(codeOf(() => estimateOffPolicy(base, { target: t as never })).code).toBe(ErrorCode.InvalidArgument);
    }
    // DR: needs a reward model and the probability of every arm; they must sum to 1; predictions must be finite.
    expect(codeOf(() => estimateOffPolicy(base, { target, estimator: "dr" })).code).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => estimateOffPolicy(base, { target, rewardModel: trueModel })).code).toBe(
      ErrorCode.InvalidArgument,
    );
    expect(
      codeOf(() => estimateOffPolicy(base, { target: base.map(() => 0.5), estimator: "dr", rewardModel: trueModel }))
        .code,
    ).toBe(ErrorCode.InvalidArgument);
    expect(at(() => estimateOffPolicy(base, { target: () => 0.4, estimator: "dr", rewardModel: trueModel }))).toEqual([
      ErrorCode.OutOfRange,
      0,
    ]);
    const infAt1 = (arm: string, x: Float64Array | undefined, i: number) => (i === 1 ? Infinity : trueModel(arm, x));
    expect(at(() => estimateOffPolicy(base, { target, arms: ARMS, estimator: "dr", rewardModel: infAt1 }))).toEqual([
      ErrorCode.NonFinite,
      1,
    ]);
  });

  it("options and the events array", () => {
    const bad: [unknown, string][] = [
      [{ target, clip: 0 }, ErrorCode.OutOfRange],
      [{ target, clip: Number.NaN }, ErrorCode.NonFinite],
      [{ target, level: 0 }, ErrorCode.OutOfRange],
      [{ target, level: "95%" }, ErrorCode.InvalidArgument],
      [{ target, fallbackPropensity: 0 }, ErrorCode.OutOfRange],
      [{ target, fallbackPropensity: 1.01 }, ErrorCode.OutOfRange],
      [{ target, estimator: "SNIPS" }, ErrorCode.InvalidArgument],
      [{ target, arms: "small" }, ErrorCode.InvalidArgument],
      [{ target, estimatr: "dr" }, ErrorCode.InvalidArgument],
      [null, ErrorCode.InvalidArgument],
    ];
    for (const [o, code] of bad)
      expect(codeOf(() => estimateOffPolicy(base, o as never)).code, JSON.stringify(o)).toBe(code);
    expect(codeOf(() => estimateOffPolicy(base, { target, estimatr: "dr" } as never)).message).toMatch(
      /unknown option "estimatr" \(did you mean "estimator"\?\)/,
    );
    expect(codeOf(() => estimateOffPolicy([], { target })).code).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => estimateOffPolicy("log" as never, { target })).code).toBe(ErrorCode.InvalidArgument);
    // Both ends of the documented ranges work.
    expect(estimateOffPolicy(base, { target, fallbackPropensity: 1, level: 1e-9, clip: 1e-9 }).maxWeight).toBe(1e-9);
  });

  it("a target value that is not a finite number names its event once (the message said events[0]: events[0]:)", () => {
    const e = codeOf(() => estimateOffPolicy(logs[0] as ArmEvent[], { target: () => "0.5" as unknown as number }));
    expect(e.code).toBe(ErrorCode.InvalidArgument);
    expect(e.index).toBe(0);
    expect(e.message).toMatch(/^events\[0\]: target\("[a-z]+", context\) must be a finite number/);
    const r = codeOf(() =>
      estimateOffPolicy(logs[0] as ArmEvent[], { target: () => 0.5, estimator: "dr", rewardModel: () => Number.NaN }),
    );
    expect(r.code).toBe(ErrorCode.NonFinite);
    expect(r.message).not.toContain("events[0]: events[0]");
  });

  it("a level just below 1 gives a finite interval (it was NUMERICAL: (1 + level) / 2 rounded to 1, z = Infinity)", () => {
    const level = 1 - 2 ** -53; // 0.9999999999999999, the largest level in (0, 1)
    const z = -normalQuantile((1 - level) / 2); // about 8.29
    expect(z).toBeGreaterThan(8);
    expect(z).toBeLessThan(8.5);
    for (const estimator of ["ips", "snips"] as const) {
      const r = estimateOffPolicy(logs[0] as ArmEvent[], { target, estimator, level });
      expect(r.se).toBeGreaterThan(0);
      expect(r.upper - r.estimate).toBeCloseTo(z * r.se, 12);
      expect(r.estimate - r.lower).toBeCloseTo(z * r.se, 12);
    }
    const replay = replayEvaluate(logs[0] as ArmEvent[], new TestPolicy({ arms: ARMS, seed: 1, epsilon: 0.2 }), {
      level,
    });
    expect(Number.isFinite(replay.upper) && replay.upper > replay.estimate).toBe(true);
    // The usual levels keep their z: 1.959963984540054 at 0.95.
    const r95 = estimateOffPolicy(logs[0] as ArmEvent[], { target });
    expect((r95.upper - r95.estimate) / r95.se).toBeCloseTo(1.959963984540054, 12);
  });

  it("a hostile event (throwing getter) is INVALID_EVENT; the caller's code is not trusted twice", () => {
    const log = [...base];
    log[1] = {
      ...base[1],
      get decision(): never {
        throw new Error("boom");
      },
    } as unknown as ArmEvent;
    expect(codeOf(() => estimateOffPolicy(log, { target }))).toMatchObject({ code: ErrorCode.InvalidEvent, index: 1 });
    const entry = [...base];
    Object.defineProperty(entry, 2, {
      get(): never {
        throw new Error("boom");
      },
    });
    expect(codeOf(() => estimateOffPolicy(entry, { target }))).toMatchObject({
      code: ErrorCode.InvalidEvent,
      index: 2,
    });
    const lengthless = new Proxy(base, {
      get(t, k) {
        if (k === "length") throw new Error("no length");
        return Reflect.get(t, k);
      },
    });
    expect(codeOf(() => estimateOffPolicy(lengthless, { target })).code).toBe(ErrorCode.InvalidArgument);
  });
});
