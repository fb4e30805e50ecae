import {
  assertInRange,
  assertInt,
  ErrorCode,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  type Rng,
  RouteKitError,
  readF64,
  readInt,
  readNumber,
  readObject,
  readSnapshot,
  type Snapshot,
} from "@routekit/core";
import type { RandomFourierFeatures } from "@routekit/linalg";
import { drawFeatures } from "./features.js";
import { RidgeArm } from "./ridge.js";
import { readSupOptions, type StageQuery, SupBase, type SupOptions } from "./sup-base.js";
import { bias1, bias2, paperFeatureCount, paperThresholds } from "./theory.js";

/** What a Sup-RFF-UCB schedule sees: round t (1-based), points n in the (arm, stage) set, and the setup. */
export interface ScheduleInput {
  readonly t: number;
  readonly n: number;
  readonly d: number;
  readonly sigma: number;
  readonly alpha: number;
  readonly delta: number;
}

export type Schedule = (x: ScheduleInput) => number;

/** The paper's D^m_{g,t} (Algorithm 6) with eps = t^-2 and Delta = alpha t^-2 / (n + alpha). */
export const paperFrequencySchedule: Schedule = ({ t, n, d, sigma, alpha, delta }) => {
  const { eps, Delta } = paperThresholds(t, n, alpha);
  return paperFeatureCount({ d, sigma, eps, Delta, delta, n, alpha });
};

/** The paper's B1 at its thresholds: 2n / t^2. */
export const paperBias1: Schedule = ({ t, n, alpha }) => {
  const { eps, Delta } = paperThresholds(t, n, alpha);
  return bias1(n, eps, Delta, alpha);
};

/** The paper's B2 at its thresholds: 4 / sqrt(alpha t). */
export const paperBias2: Schedule = ({ t, n, alpha }) => {
  const { eps, Delta } = paperThresholds(t, n, alpha);
  return bias2(t, n, eps, Delta, alpha);
};

export interface SupRffUcbOptions extends SupOptions {
  /** RBF bandwidth sigma (default 1). */
  readonly sigma?: number;
  /** Frequencies per (arm, stage) as a function of (t, n) (default: the paper's formula, for reference). */
  readonly frequencies?: Schedule;
  /**
   * Cap on the frequency count (default 256). The paper's formula asks for about 6.8e10 frequencies
   * at t = 100 (d = 512, sigma = 5), which no machine can hold, so the default run is capped: the
   * bias terms then no longer pay for the approximation error (RouteKit's deviation, documented).
   */
  readonly maxFrequencies?: number;
  /** Bias B1 (default the paper's, 2n/t^2). */
  readonly bias1?: Schedule;
  /** Bias B2 (default the paper's, 4/sqrt(alpha t)). */
  readonly bias2?: Schedule;
}

/** One (arm, stage) regression: the prompts filed so far and a ridge on their current features. */
export class RffStage {
  n = 0;
  X: Float64Array;
  v: Float64Array;
  /** Current frequency count (0 = not built yet). */
  D = 0;
  features: RandomFourierFeatures | undefined;
  ridge: RidgeArm | undefined;
  private phi = new Float64Array(0);
  private u = new Float64Array(0);

  constructor(
    readonly d: number,
    private readonly root: Rng,
    private readonly label: string,
    private readonly sigma: number,
    private readonly alpha: number,
    private readonly maxD: number,
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
      { contextDim: this.d, sigma: this.sigma, frequencies: D, variant: "paper", alpha: this.alpha },
      this.root.fork(`${this.label}#${D}`),
    );
    const F = 2 * D;
    this.ridge = new RidgeArm(F, this.alpha);
    this.phi = new Float64Array(F);
    this.u = new Float64Array(F);
    for (let i = 0; i < this.n; i++) this.fit(this.X.subarray(i * this.d, (i + 1) * this.d), this.v[i] as number);
  }

  private fit(y: Float64Array, s: number): void {
    const r = this.ridge as RidgeArm;
    (this.features as RandomFourierFeatures).map(y, this.phi);
    r.solve(this.phi, this.u);
    r.update(this.phi, s, this.u);
  }

  query(y: Float64Array, out: StageQuery): void {
    const r = this.ridge as RidgeArm;
    (this.features as RandomFourierFeatures).map(y, this.phi);
    out.mu = r.mean(this.phi);
    out.sigma = Math.sqrt(r.variance(this.phi));
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

  toJSON(): Json {
    return {
      n: this.n,
      D: this.D,
      X: encodeF64(this.X.subarray(0, this.n * this.d)),
      v: encodeF64(this.v.subarray(0, this.n)),
      ridge: this.ridge ? this.ridge.toJSON() : null,
      // The features are redrawn from the policy's stream on restore; this checksum detects a build
      // whose stream derivation differs (the snapshot then cannot be continued bit-exactly).
      wSum: this.features ? checksum(this.features.W) : 0,
    };
  }

  load(json: Json): void {
    const r = readObject(json, "RFF stage");
    const n = readInt(r, "n");
    const D = readInt(r, "D");
    if (D > this.maxD) throw new RouteKitError(ErrorCode.SnapshotCorrupt, `RFF stage has D = ${D} > maxFrequencies`);
    const X = readF64(r.X, "X", n * this.d);
    const v = readF64(r.v, "v", n);
    for (let i = 0; i < n; i++) this.add(X.subarray(i * this.d, (i + 1) * this.d), v[i] as number);
    if (D > 0) {
      this.rebuild(D);
      if (checksum((this.features as RandomFourierFeatures).W) !== readNumber(r, "wSum")) {
        throw new RouteKitError(
          ErrorCode.SnapshotVersion,
          "this build redraws different random features for this Sup-RFF-UCB snapshot (RNG derivation changed)",
        );
      }
      this.ridge = RidgeArm.fromJSON(r.ridge as Json, 2 * D, this.alpha);
    }
  }
}

/** Order-dependent sum of the values (a cheap fingerprint of a frequency matrix). */
function checksum(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s = s * 1.0000001 + (a[i] as number);
  return s;
}

const KIND = "kernel-ucb/sup-rff-ucb";
const VERSION = 1;

/**
 * Sup-RFF-UCB (Algorithm 6): Sup-PAK-UCB's staged elimination with per-(arm, stage) random-feature
 * ridge regressions whose size D^m_{g,t} and bias terms B1, B2 are schedules (defaults: the paper's
 * formulas), features redrawn (and the ridge refitted from the stored prompts) whenever D changes.
 *
 * For theory only: the paper's D grows like t^4 (6.8e10 at t = 100), so the default caps it at
 * `maxFrequencies`; and like Sup-PAK-UCB it explores uniformly at practical horizons (spec P9).
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
  private readonly root: Rng;

  constructor(options: SupRffUcbOptions) {
    super(options);
    this.sigma = options.sigma ?? 1;
    assertInRange(this.sigma, "sigma", 1e-6, 1e6);
    this.maxFrequencies = options.maxFrequencies ?? 256;
    assertInt(this.maxFrequencies, "maxFrequencies", 1, 1 << 14);
    this.freq = options.frequencies ?? paperFrequencySchedule;
    this.b1 = options.bias1 ?? paperBias1;
    this.b2 = options.bias2 ?? paperBias2;
    this.paperSchedules = !options.frequencies && !options.bias1 && !options.bias2;
    this.root = this.rng.fork("sup-rff");
    this.addInitialArms(options.arms);
  }

  protected newEstimator(arm: string, stage: number): RffStage {
    return new RffStage(this.contextDim, this.root, `${arm}#${stage}`, this.sigma, this.alpha, this.maxFrequencies);
  }

  private input(t: number, n: number): ScheduleInput {
    return { t, n, d: this.contextDim, sigma: this.sigma, alpha: this.alpha, delta: this.delta };
  }

  /** The frequency count used for a set of n points at round t. */
  frequenciesAt(t: number, n: number): number {
    const D = Math.ceil(this.freq(this.input(t, n)));
    if (!(D >= 1)) throw new RouteKitError(ErrorCode.Numerical, `frequency schedule returned ${D} at t = ${t}`);
    return Math.min(this.maxFrequencies, D);
  }

  protected query(e: RffStage, _a: string, _m: number, y: Float64Array, _ny: number, t: number, out: StageQuery): void {
    e.rebuild(this.frequenciesAt(t, e.n));
    e.query(y, out);
    const x = this.input(t, e.n);
    out.b1 = this.b1(x);
    out.b2 = this.b2(x);
  }

  protected file(e: RffStage, _a: string, _m: number, y: Float64Array, _ny: number, s: number): void {
    e.add(y, s);
  }

  toJSON(): Snapshot {
    return makeSnapshot(KIND, VERSION, {
      options: {
        ...this.baseOptionsJSON(),
        sigma: this.sigma,
        maxFrequencies: this.maxFrequencies,
        paperSchedules: this.paperSchedules,
      },
      ...this.baseStateJSON((e) => e.toJSON()),
    });
  }

  /** Restores a snapshot; custom schedules (functions) must be passed again. */
  static fromJSON(
    snapshot: unknown,
    schedules: Pick<SupRffUcbOptions, "frequencies" | "bias1" | "bias2"> = {},
  ): SupRffUcb {
    const st = readSnapshot(snapshot, KIND, VERSION);
    const o = field(st, "options", "object");
    if (!field(o, "paperSchedules", "boolean") && !schedules.frequencies && !schedules.bias1 && !schedules.bias2) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        "this Sup-RFF-UCB snapshot used custom schedules: pass them to fromJSON(snapshot, schedules)",
      );
    }
    const p = new SupRffUcb({
      ...readSupOptions(o, st.rng),
      sigma: field(o, "sigma", "number"),
      maxFrequencies: field(o, "maxFrequencies", "number"),
      ...schedules,
    });
    p.restoreBase(st, (json, arm, m) => {
      const e = p.newEstimator(arm, m);
      e.load(json);
      return e;
    });
    return p;
  }
}
