import { ErrorCode, RouteKitError } from "./errors.js";
import { assertInt, describe } from "./validate.js";

/**
 * Per-round metrics recorded by the runner, downsampled to a fixed number of checkpoints so that
 * memory does not grow with the horizon.
 *
 * - regret: cumulative pseudo-regret, sum over rounds of (oracle expected value - chosen expected value)
 * - o2b: "outscore the best", running mean of (chosen expected reward - best single arm's expected reward)
 * - opr: optimal-pick ratio, fraction of rounds where the pick was optimal
 * - o2bRealised: running mean of (chosen arm's realised reward - the best single arm's realised reward
 *   on the same round), when the environment can say what the best single arm would have realised
 *   (`ArmEnvironment.bestFixedRealised`); NaN otherwise
 * - oprRealised: fraction of rounds where the pick was best by realised outcomes (for the prompt
 *   pools: the best mean over the prompt's generations, the paper-003 OPR protocol); NaN when the
 *   environment does not define it (`ArmEnvironment.isOptimalRealised`)
 * - reward / cost: cumulative realised reward and cost
 * - first pass: for environments that say whether a round's prompt was already seen in the run
 *   (`ArmEnvironment.seenBefore`), reward per round, O2B and OPR over the rounds whose prompt was
 *   unseen so far, and the share of repeated rounds; a policy that only recognises prompts it has
 *   been rewarded on scores well on repeats and no better than before on first passes
 * - usPerRound: mean wall time per round (select + update) since the previous checkpoint, in microseconds
 * - pickShare: per arm (or pick label), the fraction of rounds since the previous checkpoint in which it
 *   was picked; an arm first picked later has zeros before, so every array has one value per checkpoint
 */
export interface Series {
  /** Round counts (1-based) at which the series are sampled; the last is the horizon. */
  readonly t: number[];
  readonly regret: number[];
  readonly o2b: number[];
  readonly opr: number[];
  readonly o2bRealised: number[];
  readonly oprRealised: number[];
  readonly reward: number[];
  readonly cost: number[];
  readonly usPerRound: number[];
  /** Windowed pick share per arm, aligned with `t` (see above). */
  readonly pickShare?: Record<string, number[]>;
  /** Cascades: running mean of boxes opened per request, aligned with `t`. */
  readonly queriesPerRound?: number[];
  /** Cascades: per box, the share of requests since the previous checkpoint that opened it. */
  readonly queryShare?: Record<string, number[]>;
}

export interface FinalMetrics {
  readonly regret: number;
  readonly o2b: number;
  readonly opr: number;
  /** NaN when the environment does not define it (see the module docs). */
  readonly o2bRealised: number;
  /** NaN when the environment does not define it (see the module docs). */
  readonly oprRealised: number;
  readonly reward: number;
  readonly cost: number;
  /** Mean realised cost per round (budget use). */
  readonly costPerRound: number;
  /** Mean realised reward per round. */
  readonly rewardPerRound: number;
  /** Share of rounds whose prompt was seen before in the run (NaN when the environment does not say). */
  readonly repeatShare: number;
  /** Mean realised reward per round over the rounds whose prompt was unseen so far (NaN: see repeatShare). */
  readonly firstPassRewardPerRound: number;
  /** O2B over the rounds whose prompt was unseen so far (NaN: see repeatShare). */
  readonly firstPassO2b: number;
  /** OPR over the rounds whose prompt was unseen so far (NaN: see repeatShare). */
  readonly firstPassOpr: number;
  readonly usPerRound: number;
  /** Cascades: mean boxes opened per request. */
  readonly queriesPerRound?: number;
}

export interface RunResult {
  readonly policy: string;
  readonly seed: number;
  readonly horizon: number;
  readonly series: Series;
  readonly final: FinalMetrics;
  /** Fraction of rounds each arm was picked (arm protocols); item offer shares for assortments. */
  readonly pickShare: Record<string, number>;
  /** Cascades: fraction of requests in which each box was opened. */
  readonly queryShare?: Record<string, number>;
  readonly wallMs: number;
  /** Name of the environment the run played. */
  readonly environment?: string;
}

/**
 * Evenly spaced checkpoints 1..horizon with the horizon always included. `horizon` is an integer >= 1 and
 * `points` an integer >= 0 (0 or 1: the horizon alone); anything else is a typed error (a negative horizon
 * gave [-1]).
 */
export function checkpoints(horizon: number, points: number): number[] {
  assertInt(horizon, "checkpoints horizon", 1, Number.MAX_SAFE_INTEGER);
  assertInt(points, "checkpoints points", 0, Number.MAX_SAFE_INTEGER);
  const n = Math.max(1, Math.min(points, horizon));
  const out: number[] = [];
  for (let i = 1; i <= n; i++) {
    const t = Math.round((i * horizon) / n);
    if (out.length === 0 || t > (out[out.length - 1] as number)) out.push(t);
  }
  return out;
}

/** Accumulates one run's metrics; constant memory per round. */
export class MetricsRecorder {
  private readonly marks: number[];
  private nextMark = 0;
  private rounds = 0;
  private regret = 0;
  private o2bSum = 0;
  private optimal = 0;
  private o2bRealSum = 0;
  private o2bRealRounds = 0;
  private optimalReal = 0;
  private optimalRealRounds = 0;
  private known = 0;
  private repeats = 0;
  private firstReward = 0;
  private firstO2b = 0;
  private firstOptimal = 0;
  private reward = 0;
  private cost = 0;
  private timeSinceMark = 0;
  private roundsSinceMark = 0;
  private totalTime = 0;
  private readonly picks = new Map<string, number>();
  private readonly picksAtMark = new Map<string, number>();
  // Keyed by arm id: a Map for lookups and a null-prototype record (own properties only) for the series, so
  // ids such as "__proto__", "constructor" or "toString" are ordinary keys.
  private readonly shareRows = new Map<string, number[]>();
  private readonly shareSeries: Record<string, number[]> = Object.create(null);
  readonly series: Series = {
    t: [],
    regret: [],
    o2b: [],
    opr: [],
    o2bRealised: [],
    oprRealised: [],
    reward: [],
    cost: [],
    usPerRound: [],
    pickShare: this.shareSeries,
  };

  constructor(horizon: number, points = 200) {
    this.marks = checkpoints(horizon, points);
  }

  /**
   * Records one round. `ms` is the wall time spent inside the policy this round. `o2bRealised` and
   * `optimalRealised` are given by environments that define them (every round or never).
   */
  record(r: {
    regret: number;
    o2b: number;
    optimal: boolean;
    o2bRealised?: number;
    optimalRealised?: boolean;
    /** Whether this round's prompt was already seen in the run; omitted when the environment cannot say. */
    repeat?: boolean;
    reward: number;
    cost: number;
    pick?: string;
    ms: number;
  }): void {
    this.rounds++;
    this.regret += r.regret;
    this.o2bSum += r.o2b;
    if (r.optimal) this.optimal++;
    if (r.o2bRealised !== undefined) {
      this.o2bRealSum += r.o2bRealised;
      this.o2bRealRounds++;
    }
    if (r.optimalRealised !== undefined) {
      if (r.optimalRealised) this.optimalReal++;
      this.optimalRealRounds++;
    }
    if (r.repeat !== undefined) {
      this.known++;
      if (r.repeat) this.repeats++;
      else {
        this.firstReward += r.reward;
        this.firstO2b += r.o2b;
        if (r.optimal) this.firstOptimal++;
      }
    }
    this.reward += r.reward;
    this.cost += r.cost;
    this.timeSinceMark += r.ms;
    this.totalTime += r.ms;
    this.roundsSinceMark++;
    if (r.pick !== undefined) this.picks.set(r.pick, (this.picks.get(r.pick) ?? 0) + 1);
    if (this.rounds === this.marks[this.nextMark]) {
      const s = this.series;
      s.t.push(this.rounds);
      s.regret.push(this.regret);
      s.o2b.push(this.o2bSum / this.rounds);
      s.opr.push(this.optimal / this.rounds);
      s.o2bRealised.push(this.o2bRealRounds > 0 ? this.o2bRealSum / this.o2bRealRounds : Number.NaN);
      s.oprRealised.push(this.optimalRealRounds > 0 ? this.optimalReal / this.optimalRealRounds : Number.NaN);
      s.reward.push(this.reward);
      s.cost.push(this.cost);
      s.usPerRound.push((1000 * this.timeSinceMark) / this.roundsSinceMark);
      this.recordPickShares(s.t.length - 1);
      this.timeSinceMark = 0;
      this.roundsSinceMark = 0;
      this.nextMark++;
    }
  }

  private recordPickShares(markIndex: number): void {
    for (const [arm, count] of this.picks) {
      let row = this.shareRows.get(arm);
      if (row === undefined) {
        row = new Array<number>(markIndex).fill(0);
        this.shareRows.set(arm, row);
        ownKey(this.shareSeries, arm, row);
      }
      row.push((count - (this.picksAtMark.get(arm) ?? 0)) / this.roundsSinceMark);
      this.picksAtMark.set(arm, count);
    }
  }

  get roundsRecorded(): number {
    return this.rounds;
  }

  final(): FinalMetrics {
    const n = Math.max(1, this.rounds);
    return {
      regret: this.regret,
      o2b: this.o2bSum / n,
      opr: this.optimal / n,
      o2bRealised: this.o2bRealRounds > 0 ? this.o2bRealSum / this.o2bRealRounds : Number.NaN,
      oprRealised: this.optimalRealRounds > 0 ? this.optimalReal / this.optimalRealRounds : Number.NaN,
      reward: this.reward,
      cost: this.cost,
      costPerRound: this.cost / n,
      rewardPerRound: this.reward / n,
      repeatShare: this.known > 0 ? this.repeats / this.known : Number.NaN,
      firstPassRewardPerRound: this.firstMean(this.firstReward),
      firstPassO2b: this.firstMean(this.firstO2b),
      firstPassOpr: this.firstMean(this.firstOptimal),
      usPerRound: (1000 * this.totalTime) / n,
    };
  }

  private firstMean(sum: number): number {
    const first = this.known - this.repeats;
    return first > 0 ? sum / first : Number.NaN;
  }

  pickShare(): Record<string, number> {
    const out: Record<string, number> = Object.create(null);
    const n = Math.max(1, this.rounds);
    for (const [k, v] of this.picks) ownKey(out, k, v / n);
    return out;
  }
}

/** Sets `o[key] = value` as an own enumerable property, whatever the key (even "__proto__"). */
function ownKey<T>(o: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Mean, standard deviation and standard error of a sample. Finite entries give a finite mean and, unless the
 * true standard deviation passes the largest double (values near +-1.8e308 of both signs), a finite std and se:
 * the sums are formed as before and, only when one of them overflows, formed again over entries scaled by a
 * power of two (exact), so ordinary samples keep their bits. A NaN entry makes the result NaN (as documented);
 * a non-array or a non-number entry is INVALID_ARGUMENT.
 */
export function meanStd(xs: readonly number[]): { mean: number; std: number; se: number } {
  if (!Array.isArray(xs))
    throw new RouteKitError(ErrorCode.InvalidArgument, `meanStd needs an array of numbers, got ${describe(xs)}`);
  const n = xs.length;
  if (n === 0) return { mean: Number.NaN, std: Number.NaN, se: Number.NaN };
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i];
    if (typeof x !== "number") {
      throw new RouteKitError(ErrorCode.InvalidArgument, `meanStd: entry ${i} must be a number, got ${describe(x)}`, {
        index: i,
      });
    }
    m += x;
  }
  m /= n;
  let v = 0;
  for (const x of xs) v += (x - m) * (x - m);
  // One entry: std 0 when it is finite; a NaN or infinite one gives NaN (v is NaN), as two or more do. The n = 1
  // branch gave meanStd([NaN]) a std and se of 0 beside its NaN mean (a one-seed run's summary.csv wrote ",0,0").
  const std = n > 1 ? Math.sqrt(v / (n - 1)) : v === 0 ? 0 : Number.NaN;
  if (Number.isFinite(m) && Number.isFinite(v)) return { mean: m, std, se: std / Math.sqrt(n) };
  return scaledMeanStd(xs, { mean: m, std, se: std / Math.sqrt(n) });
}

/**
 * meanStd's rare path: a sum overflowed. When every entry is finite, the entries are divided by a power of two s
 * >= max |x| (exact but for entries that become subnormal), so the scaled sums stay below 4n; the mean is
 * back-scaled (|mean| <= max |x|: finite) and so are std and se (Infinity only when the true value passes the
 * largest double). With a NaN or infinite entry the unscaled result stands (NaN, as documented).
 */
function scaledMeanStd(
  xs: readonly number[],
  unscaled: { mean: number; std: number; se: number },
): { mean: number; std: number; se: number } {
  const n = xs.length;
  let big = 0;
  for (const x of xs) big = Math.max(big, Math.abs(x));
  if (!Number.isFinite(big)) return unscaled;
  const e = Math.min(1023, Math.ceil(Math.log2(big)));
  const s = 2 ** e; // >= big up to log2 rounding; the sums below allow a factor 2 of slack
  const inv = 2 ** -e;
  let m = 0;
  for (const x of xs) m += x * inv;
  m /= n;
  let v = 0;
  for (const x of xs) {
    const dx = x * inv - m;
    v += dx * dx;
  }
  const stdScaled = n > 1 ? Math.sqrt(v / (n - 1)) : 0;
  return { mean: m * s, std: stdScaled * s, se: (stdScaled / Math.sqrt(n)) * s };
}

/**
 * Least-squares slope of log(y) on log(x): the growth exponent of a regret curve
 * (about 1 for linear regret, about 0.5 for sqrt(T) regret). Points with y <= 0 (or x <= 0, or NaN) are skipped;
 * fewer than two usable points give NaN (as documented). x and y of different lengths are DIMENSION_MISMATCH (the
 * extra points were ignored), a non-array or a non-number entry INVALID_ARGUMENT, and usable points that all share
 * one x INVALID_ARGUMENT: the slope is undefined there (the formula returned the ratio of two rounding errors).
 */
export function logLogSlope(x: readonly number[], y: readonly number[]): number {
  if (!Array.isArray(x) || !Array.isArray(y)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `logLogSlope needs two arrays of numbers, got ${describe(x)} and ${describe(y)}`,
    );
  }
  if (x.length !== y.length) {
    throw new RouteKitError(
      ErrorCode.DimensionMismatch,
      `logLogSlope: x has ${x.length} points and y ${y.length}; they must pair up`,
      { expected: x.length, actual: y.length },
    );
  }
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  let firstX = Number.NaN;
  let distinct = false;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    const yi = y[i];
    if (typeof xi !== "number" || typeof yi !== "number") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `logLogSlope: point ${i} must be two numbers, got ${describe(xi)} and ${describe(yi)}`,
        { index: i },
      );
    }
    if (!(xi > 0) || !(yi > 0)) continue;
    const lx = Math.log(xi);
    const ly = Math.log(yi);
    if (n === 0) firstX = lx;
    else if (lx !== firstX) distinct = true;
    n++;
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  if (n < 2) return Number.NaN;
  if (!distinct) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `logLogSlope: every usable point has the same x (${Math.exp(firstX)}): the slope is undefined`,
    );
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}
