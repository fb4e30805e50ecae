import {
  checkNumber,
  ErrorCode,
  encodeF64,
  functionOption,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  Rng,
  type RngState,
  RouteKitError,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readObject,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
  snapshotCorrupt,
} from "@routekit/core";
import type { RandomFourierFeatures } from "@routekit/linalg";
import { readCommonJSON } from "./base.js";
import { drawFeatures, MAX_FREQUENCIES, SIGMA_RANGE } from "./features.js";
import type { OpCounter } from "./krr.js";
import { readPayload } from "./payload.js";
import { RidgeArm } from "./ridge.js";
import { readSupJSON, type StageQuery, SUP_OPTION_KEYS, SupBase, type SupOptions } from "./sup-base.js";
import { bias1, bias2, paperFeatureCount, paperThresholds } from "./theory.js";

/** What a Sup-RFF-UCB schedule sees: round t (1-based), points n in the (arm, stage) set, and the setup. */
export interface ScheduleInput {
  readonly t: number;
  readonly n: number;
  readonly d: number;
  readonly sigma: number;
  /** The ridge option (the paper's alpha). */
  readonly ridge: number;
  /** The confidence option (the paper's delta). */
  readonly confidence: number;
}

export type Schedule = (x: ScheduleInput) => number;

/** The paper's D^m_{g,t} (Algorithm 6) with eps = t^-2 and Delta = alpha t^-2 / (n + alpha). */
export const paperFrequencySchedule: Schedule = ({ t, n, d, sigma, ridge, confidence }) => {
  const { eps, Delta } = paperThresholds(t, n, ridge);
  return paperFeatureCount({ d, sigma, eps, Delta, delta: confidence, n, alpha: ridge });
};

/** The paper's B1 at its thresholds: 2n / t^2. */
export const paperBias1: Schedule = ({ t, n, ridge }) => {
  const { eps, Delta } = paperThresholds(t, n, ridge);
  return bias1(n, eps, Delta, ridge);
};

/** The paper's B2 at its thresholds: 4 / sqrt(ridge t). */
export const paperBias2: Schedule = ({ t, n, ridge }) => {
  const { eps, Delta } = paperThresholds(t, n, ridge);
  return bias2(t, n, eps, Delta, ridge);
};

export interface SupRffUcbOptions extends SupOptions {
  /** RBF bandwidth sigma (default 1). */
  readonly sigma?: number;
  /** Frequencies per (arm, stage) as a function of (t, n) (default: the paper's formula, for reference). */
  readonly frequencies?: Schedule;
  /**
   * Cap on the frequency count (default 256, at most 1024). The paper's formula asks for about 6.8e10 frequencies
   * at t = 100 (d = 512, sigma = 5), which no machine can hold, so the default run is capped: the
   * bias terms then no longer pay for the approximation error (RouteKit's deviation, documented).
   */
  readonly maxFrequencies?: number;
  /** Bias B1 (default the paper's, 2n/t^2); must return a finite number >= 0. */
  readonly bias1?: Schedule;
  /** Bias B2 (default the paper's, 4/sqrt(ridge t)); must return a finite number >= 0. */
  readonly bias2?: Schedule;
}

/** The custom schedules {@link SupRffUcb.fromJSON} takes again (functions are not in snapshots). */
export type SupRffSchedules = Pick<SupRffUcbOptions, "frequencies" | "bias1" | "bias2">;

/** The keys of {@link SupRffSchedules}. */
const SUP_RFF_SCHEDULE_KEYS = optionKeys<SupRffSchedules>()(["frequencies", "bias1", "bias2"]);

/** The schedules argument of fromJSON: undefined, or an object of schedule functions (INVALID_ARGUMENT otherwise). */
function readSchedules(v: unknown): SupRffSchedules {
  if (v === undefined) return {};
  rejectUnknownOptions(v, SUP_RFF_SCHEDULE_KEYS, "SupRffUcb.fromJSON schedules");
  const o = v as Record<string, unknown>;
  return {
    frequencies: functionOption<Schedule>(o, "frequencies", undefined),
    bias1: functionOption<Schedule>(o, "bias1", undefined),
    bias2: functionOption<Schedule>(o, "bias2", undefined),
  };
}

/** The option keys of {@link SupRffUcbOptions}. */
export const SUP_RFF_UCB_OPTION_KEYS = optionKeys<SupRffUcbOptions>()([
  ...SUP_OPTION_KEYS,
  "sigma",
  "frequencies",
  "maxFrequencies",
  "bias1",
  "bias2",
]);

/** One (arm, stage) regression: the prompts filed so far and a ridge on their current features. */
export class RffStage {
  n = 0;
  X: Float64Array;
  v: Float64Array;
  /** Current frequency count (0 = not built yet). */
  D = 0;
  features: RandomFourierFeatures | undefined;
  ridge: RidgeArm | undefined;
  /** The schedules' values for the current select (set by SupRffUcb before any query). */
  nextD = 0;
  b1 = 0;
  b2 = 0;
  private phi = new Float64Array(0);
  private u = new Float64Array(0);

  constructor(
    readonly d: number,
    private readonly root: Rng,
    private readonly label: string,
    private readonly sigma: number,
    private readonly ridgePenalty: number,
    private readonly counter?: OpCounter,
  ) {
    this.X = new Float64Array(8 * d);
    this.v = new Float64Array(8);
  }

  /** Redraws the features with D frequencies and refits the ridge on the stored prompts (O(n D d + n D^2)). */
  rebuild(D: number): void {
    if (D === this.D) return;
    this.D = D;
    // fork() depends only on the key and the label, so a restored policy redraws the same W.
    this.features = drawFeatures(
      { contextDim: this.d, sigma: this.sigma, frequencies: D, variant: "paper", ridge: this.ridgePenalty },
      this.root.fork(`${this.label}#${D}`),
    );
    const F = 2 * D;
    this.ridge = new RidgeArm(F, this.ridgePenalty, this.counter);
    this.phi = new Float64Array(F);
    this.u = new Float64Array(F);
    for (let i = 0; i < this.n; i++) this.fit(this.X.subarray(i * this.d, (i + 1) * this.d), this.v[i] as number);
  }

  private fit(y: Float64Array, s: number): void {
    const r = this.ridge as RidgeArm;
    this.mapFeatures(y);
    r.solve(this.phi, this.u);
    r.update(this.phi, s, this.u);
  }

  query(y: Float64Array, out: StageQuery): void {
    const r = this.ridge as RidgeArm;
    this.mapFeatures(y);
    out.mu = r.mean(this.phi);
    out.sigma = Math.sqrt(r.variance(this.phi));
  }

  /** phi(y) into this.phi (D x d multiply-adds, counted as RffUcb counts its feature map). */
  private mapFeatures(y: Float64Array): void {
    (this.features as RandomFourierFeatures).map(y, this.phi);
    if (this.counter) this.counter.ops += this.D * this.d;
  }

  add(y: Float64Array, s: number): void {
    const d = this.d;
    if ((this.n + 1) * d > this.X.length) {
      const X = new Float64Array(2 * this.X.length);
      X.set(this.X);
      this.X = X;
      const v = new Float64Array(2 * this.v.length);
      v.set(this.v);
      this.v = v;
    }
    this.X.set(y.subarray(0, d), this.n * d);
    this.v[this.n] = s;
    this.n++;
    if (this.ridge) this.fit(y, s);
  }

  /**
   * The filed prompts and scores. The features and the ridge on them are not stored: they are a cache
   * rebuilt at the next query (redrawn from the policy's stream, refitted over the points in order,
   * which is also how they were built incrementally, so the restored stage answers bit for bit alike).
   */
  toJSON(): Json {
    return {
      n: this.n,
      X: encodeF64(this.X.subarray(0, this.n * this.d)),
      v: encodeF64(this.v.subarray(0, this.n)),
    };
  }

  load(json: Json): void {
    const r = readObject(json, "RFF stage");
    const n = readInt(r, "n");
    const X = readF64(r.X, "X", n * this.d);
    const v = readF64(r.v, "v", n);
    for (let i = 0; i < n; i++) this.add(X.subarray(i * this.d, (i + 1) * this.d), v[i] as number);
  }
}

const KIND = "kernel-ucb/sup-rff-ucb";
/**
 * 2: shared option names, arm uids (per-stage feature streams are labelled by uid), maxPending; stages
 * store only their points (features and ridge are rebuilt), no branch statistics.
 */
const VERSION = 2;

/**
 * Sup-RFF-UCB (Algorithm 6): Sup-PAK-UCB's staged elimination with per-(arm, stage) random-feature
 * ridge regressions whose size D^m_{g,t} and bias terms B1, B2 are schedules (defaults: the paper's
 * formulas), features redrawn (and the ridge refitted from the stored prompts) whenever D changes.
 *
 * For theory only: the paper's D grows like t^4 (6.8e10 at t = 100), so the default caps it at
 * `maxFrequencies`; and like Sup-PAK-UCB it explores uniformly at practical horizons.
 */
export class SupRffUcb extends SupBase<RffStage> {
  static readonly kind = KIND;
  readonly kind = KIND;
  readonly sigma: number;
  readonly maxFrequencies: number;
  /** True when all three schedules are the paper's (only then can fromJSON restore without them). */
  readonly paperSchedules: boolean;
  private readonly freq: Schedule;
  private readonly b1: Schedule;
  private readonly b2: Schedule;
  /** Stream the per-(arm, stage) features are forked from (stored: replicas share it). */
  private root: Rng;

  constructor(options: SupRffUcbOptions) {
    rejectUnknownOptions(options, SUP_RFF_UCB_OPTION_KEYS, "SupRffUcb");
    super(options, "SupRffUcb");
    const o = readOptions(options, "SupRffUcb");
    this.sigma = numberOption(o, "sigma", 1, SIGMA_RANGE);
    this.maxFrequencies = numberOption(o, "maxFrequencies", 256, { integer: true, min: 1, max: MAX_FREQUENCIES });
    const freq = functionOption<Schedule>(o, "frequencies", undefined);
    const b1 = functionOption<Schedule>(o, "bias1", undefined);
    const b2 = functionOption<Schedule>(o, "bias2", undefined);
    this.freq = freq ?? paperFrequencySchedule;
    this.b1 = b1 ?? paperBias1;
    this.b2 = b2 ?? paperBias2;
    this.paperSchedules = !freq && !b1 && !b2;
    this.root = this.rng.fork("sup-rff");
    this.addInitialArms(options);
  }

  protected newEstimator(uid: number, stage: number): RffStage {
    return new RffStage(this.contextDim, this.root, `u${uid}#${stage}`, this.sigma, this.ridge, this.counter);
  }

  private input(t: number, n: number): ScheduleInput {
    return { t, n, d: this.contextDim, sigma: this.sigma, ridge: this.ridge, confidence: this.confidence };
  }

  /**
   * The frequency count used for a set of n points at round t (a user schedule's value is checked). From
   * inside a schedule it is INVALID_STATE (the schedule would call itself until the stack overflowed), and a
   * schedule it runs may not call back into the policy.
   */
  frequenciesAt(t: number, n: number): number {
    this.notFromCallback("frequenciesAt");
    this.callback = "a schedule";
    try {
      return this.frequenciesFor(t, n);
    } finally {
      this.callback = undefined;
    }
  }

  private frequenciesFor(t: number, n: number): number {
    const D = Math.ceil(
      checkNumber(this.freq(this.input(t, n)), `frequencies schedule at t = ${t}, n = ${n}`, { min: 1 }),
    );
    return Math.min(this.maxFrequencies, D);
  }

  /**
   * Evaluates and checks every schedule a select may use before anything changes: a schedule that
   * returns NaN, a negative bias or a frequency count below 1 throws (NON_FINITE / OUT_OF_RANGE).
   */
  protected override beforeSelect(t: number): void {
    // The schedules are user code running in the middle of a select: calls back into the policy are refused.
    this.callback = "a schedule";
    try {
      for (const a of this.table.states) {
        for (const e of a.stages) {
          if (e.n === 0) continue;
          const x = this.input(t, e.n);
          e.nextD = this.frequenciesFor(t, e.n);
          e.b1 = checkNumber(this.b1(x), `bias1 schedule at t = ${t}, n = ${e.n}`, { min: 0 });
          e.b2 = checkNumber(this.b2(x), `bias2 schedule at t = ${t}, n = ${e.n}`, { min: 0 });
        }
      }
    } finally {
      this.callback = undefined;
    }
  }

  protected query(e: RffStage, y: Float64Array, _ny: number, _t: number, out: StageQuery): void {
    e.rebuild(e.nextD);
    e.query(y, out);
    out.b1 = e.b1;
    out.b2 = e.b2;
  }

  protected file(e: RffStage, y: Float64Array, _ny: number, s: number): void {
    e.add(y, s);
  }

  protected encodeEstimator(e: RffStage): Json {
    return e.toJSON();
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      ...this.supStateJSON(),
      sigma: this.sigma,
      maxFrequencies: this.maxFrequencies,
      paperSchedules: this.paperSchedules,
      featureStream: this.root.toJSON() as unknown as Json,
      ...this.baseState(),
    });
  }

  /** Restores a snapshot; custom schedules (functions) must be passed again. */
  static fromJSON(snapshot: unknown, schedules?: SupRffSchedules): SupRffUcb {
    // Read before the snapshot, outside `restoring`: a bad argument is the caller's INVALID_ARGUMENT, not a
    // corrupt snapshot, and only the three schedules are kept (the argument was spread over the restored
    // options, so `{ sigma: 5 }` silently replaced the snapshot's bandwidth).
    const sch = readSchedules(schedules);
    const st = readSnapshot(snapshot, KIND, VERSION);
    const paper = st.paperSchedules;
    if (typeof paper !== "boolean") snapshotCorrupt('"paperSchedules"', "true or false");
    if (!paper && !sch.frequencies && !sch.bias1 && !sch.bias2) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "this Sup-RFF-UCB snapshot used custom schedules: pass them to fromJSON(snapshot, schedules)",
      );
    }
    return restoring(KIND, () => {
      const common = readCommonJSON(st);
      const sup = readSupJSON(st);
      const sigma = readNumber(
        st,
        "sigma",
        (v) => v >= SIGMA_RANGE.min && v <= SIGMA_RANGE.max,
        "a number in [1e-6, 1e6]",
      );
      const maxFrequencies = readInt(st, "maxFrequencies", 1, MAX_FREQUENCIES);
      const snap = readArmBaseState(st, {
        minContextDim: 1,
        arm: (json) => {
          const stages = readObject(json, "arm").stages;
          if (!Array.isArray(stages) || stages.length !== sup.stages)
            snapshotCorrupt("arms[].stages", `${sup.stages} stage states`);
          return stages;
        },
        payload: (json, d) => readPayload(json, d, true, sup.stages - 1),
      });
      const p = new SupRffUcb({
        arms: [],
        contextDim: snap.contextDim,
        maxPending: snap.maxPending,
        rng: snap.rng,
        ...common,
        horizon: common.horizon as number,
        ...sup,
        sigma,
        maxFrequencies,
        frequencies: sch.frequencies,
        bias1: sch.bias1,
        bias2: sch.bias2,
      });
      p.root = Rng.fromJSON(readObject(st.featureStream, '"featureStream"') as unknown as RngState);
      p.restoreBase(snap, (stages, uid) => ({
        uid,
        stages: stages.map((json, m) => {
          const e = p.newEstimator(uid, m);
          e.load(json);
          return e;
        }),
      }));
      return p;
    });
  }
}
