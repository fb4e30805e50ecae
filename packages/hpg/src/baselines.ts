/**
 * Baselines of the routing family: uniform routing, EXP3 over the models (context-free), and log-linear
 * softmax policy gradient (pi ∝ exp(theta_m^T q + b_m)), which cannot express a preference that is even
 * in q (e.g. one that depends on |u^T q|).
 */
import {
  type ArmState,
  encodeF64,
  field,
  type Json,
  makeSnapshot,
  numberOption,
  optionKeys,
  readArmBaseState,
  readF64,
  readInt,
  readNumber,
  readOptions,
  readSnapshot,
  rejectUnknownOptions,
  restoring,
  type Snapshot,
} from "@routekit/core";
import { checkRoutePayloadUnchecked, initialModelCountUnchecked, softmaxIntoUnchecked } from "./helpers-core.js";
import { HPG_SNAPSHOT_VERSION } from "./hpg-snapshot.js";
import { ROUTER_OPTION_KEYS, type RoutePayload, RouterBase, type RouterOptions } from "./router.js";

export interface BaselineOptions extends RouterOptions {
  readonly contextDim: number;
  /** Planned number of rounds T for the default step (default 10,000). */
  readonly horizon?: number;
}

/** The option keys of {@link BaselineOptions}. */
export const BASELINE_OPTION_KEYS = optionKeys<BaselineOptions>()([...ROUTER_OPTION_KEYS, "horizon"]);

function readCommon(st: Record<string, Json>): { normalizeContext: boolean; clipRewards: boolean; horizon: number } {
  return {
    normalizeContext: field(st, "normalizeContext", "boolean"),
    clipRewards: field(st, "clipRewards", "boolean"),
    horizon: readInt(st, "horizon", 1),
  };
}

// ---------------------------------------------------------------- uniform

/** Routes uniformly at random (propensity 1/M); learns nothing. */
export class UniformRouter extends RouterBase<ArmState> {
  static readonly kind = "hpg/uniform";
  readonly kind = UniformRouter.kind;
  readonly horizon: number;

  constructor(options: BaselineOptions) {
    rejectUnknownOptions(options, BASELINE_OPTION_KEYS, UniformRouter.kind);
    super(options, 0, UniformRouter.kind);
    this.horizon = numberOption(readOptions(options, UniformRouter.kind), "horizon", 10_000, {
      integer: true,
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
    });
    this.addInitialArms(options);
  }
  protected createArm(uid: number): ArmState {
    return { uid };
  }
  protected distribution(_q: Float64Array, probs: Float64Array): void {
    const k = this.table.size;
    for (let i = 0; i < k; i++) probs[i] = 1 / k;
  }
  protected learnRound(): void {}
  protected encodeArm(): Record<string, Json> {
    return {};
  }
  toJSON(): Snapshot {
    return makeSnapshot(UniformRouter.kind, HPG_SNAPSHOT_VERSION, {
      horizon: this.horizon,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
      ...this.baseState(),
    });
  }
  static fromJSON(snapshot: unknown): UniformRouter {
    const st = readSnapshot(snapshot, UniformRouter.kind, HPG_SNAPSHOT_VERSION);
    const c = readCommon(st);
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: () => ({}),
      payload: (j, d) => checkRoutePayloadUnchecked(j, d, 0),
    });
    return restoring(UniformRouter.kind, () => {
      const p = new UniformRouter({ arms: [], contextDim: snap.contextDim, maxPending: snap.maxPending, ...c });
      p.restoreBase(snap, (_a, uid) => ({ uid }));
      return p;
    });
  }
}

// ---------------------------------------------------------------- EXP3

export interface Exp3Options extends BaselineOptions {
  /** Exploration and learning rate gamma (default min(1, sqrt(M ln M / ((e - 1) horizon)))). */
  readonly gamma?: number;
}

/** The option keys of {@link Exp3Options}. */
export const EXP3_OPTION_KEYS = optionKeys<Exp3Options>()([...BASELINE_OPTION_KEYS, "gamma"]);

interface Exp3Arm extends ArmState {
  logWeight: number;
}

/**
 * EXP3 over the models (Auer, Cesa-Bianchi, Freund & Schapire 2002): p = (1 - gamma) softmax(log w) +
 * gamma / M, and the chosen model's log-weight grows by gamma xhat / M with the importance-weighted
 * reward xhat = x / p_{m_t}. Rewards in [-1, 1] are mapped to x = (r + 1) / 2 in [0, 1]. It ignores the
 * query: the near-optimal learner against the best single model.
 */
/** Largest log weight EXP3 keeps (see Exp3's update). */
export const EXP3_LOG_WEIGHT_CAP = 1e300;

export class Exp3 extends RouterBase<Exp3Arm> {
  static readonly kind = "hpg/exp3";
  readonly kind = Exp3.kind;
  readonly horizon: number;
  readonly gamma: number;

  constructor(options: Exp3Options) {
    rejectUnknownOptions(options, EXP3_OPTION_KEYS, Exp3.kind);
    super(options, 0, Exp3.kind);
    const o = readOptions(options, Exp3.kind);
    this.horizon = numberOption(o, "horizon", 10_000, { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER });
    const m = initialModelCountUnchecked(o);
    const g = Math.min(1, Math.sqrt((m * Math.log(m)) / ((Math.E - 1) * this.horizon)));
    this.gamma = numberOption(o, "gamma", g, { min: 0, max: 1, openMin: true });
    this.addInitialArms(options);
  }
  protected createArm(uid: number): Exp3Arm {
    return { uid, logWeight: 0 };
  }
  protected distribution(_q: Float64Array, probs: Float64Array): void {
    const k = this.table.size;
    const s = this.scores;
    for (let i = 0; i < k; i++) s[i] = (this.table.states[i] as Exp3Arm).logWeight;
    softmaxIntoUnchecked(s, k, probs);
    for (let i = 0; i < k; i++) probs[i] = (1 - this.gamma) * (probs[i] as number) + this.gamma / k;
  }
  protected learnRound(p: RoutePayload, _q: Float64Array, reward: number): void {
    const s = this.live(p.ids[p.chosen] as string);
    if (s === undefined) return;
    const x = (reward + 1) / 2;
    // The importance weight x / p is at most k / gamma for EXP3's own decisions, but an event logged by another
    // router may carry any probability in (0, 1], down to 5e-324, where it overflows. The log weight is capped
    // (finite, so the snapshot reads back and the softmax stays defined); a lead of 745 already takes all of
    // the softmax's mass, so the cap changes no probability.
    const w = s.logWeight + (this.gamma * (x / (p.probs[p.chosen] as number))) / p.n;
    s.logWeight = w < EXP3_LOG_WEIGHT_CAP ? w : EXP3_LOG_WEIGHT_CAP;
  }
  protected encodeArm(s: Exp3Arm): Record<string, Json> {
    return { logWeight: s.logWeight };
  }
  toJSON(): Snapshot {
    return makeSnapshot(Exp3.kind, HPG_SNAPSHOT_VERSION, {
      horizon: this.horizon,
      gamma: this.gamma,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
      ...this.baseState(),
    });
  }
  static fromJSON(snapshot: unknown): Exp3 {
    const st = readSnapshot(snapshot, Exp3.kind, HPG_SNAPSHOT_VERSION);
    const c = readCommon(st);
    const gamma = readNumber(st, "gamma", (v) => v > 0 && v <= 1, "a number in (0, 1]");
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      // Log weights start at 0 and only grow (each step adds gamma x / p / n with x = (reward + 1) / 2 >= 0), capped.
      arm: (json) =>
        readNumber(
          json,
          "logWeight",
          (v) => v >= 0 && v <= EXP3_LOG_WEIGHT_CAP,
          `a number in [0, ${EXP3_LOG_WEIGHT_CAP}] (log weights start at 0 and only grow)`,
        ),
      payload: (j, d) => checkRoutePayloadUnchecked(j, d, 0),
    });
    return restoring(Exp3.kind, () => {
      const p = new Exp3({ arms: [], contextDim: snap.contextDim, maxPending: snap.maxPending, gamma, ...c });
      p.restoreBase(snap, (w, uid) => ({ uid, logWeight: w }));
      return p;
    });
  }
}

// ---------------------------------------------------------------- log-linear PG

export interface LogLinearPgOptions extends BaselineOptions {
  /** Gradient step (default sqrt(M / horizon), for unit-norm queries). */
  readonly stepSize?: number;
}

/** The option keys of {@link LogLinearPgOptions}. */
export const LOG_LINEAR_PG_OPTION_KEYS = optionKeys<LogLinearPgOptions>()([...BASELINE_OPTION_KEYS, "stepSize"]);

/**
 * Largest |coefficient| LogLinearPg keeps (see its update). With |q| <= 1 and at most 65,536 query entries a score is
 * then below 3e302, so scores and their differences stay finite.
 */
export const LOG_LINEAR_COEFFICIENT_CAP = 1e300;

interface LinArm extends ArmState {
  /** theta_m (contextDim entries) then the intercept b_m. */
  readonly theta: Float64Array;
}

/**
 * Log-linear softmax policy gradient (REINFORCE): pi ∝ exp(theta_m^T q + b_m), and every model steps
 * theta_m += eta r (1[m = m_t] - pi_m) q, b_m += eta r (1[m = m_t] - pi_m). The score is odd in q apart
 * from the intercept, so it cannot route by |u^T q|.
 */
export class LogLinearPg extends RouterBase<LinArm> {
  static readonly kind = "hpg/log-linear-pg";
  readonly kind = LogLinearPg.kind;
  readonly horizon: number;
  readonly stepSize: number;

  constructor(options: LogLinearPgOptions) {
    rejectUnknownOptions(options, LOG_LINEAR_PG_OPTION_KEYS, LogLinearPg.kind);
    super(options, 0, LogLinearPg.kind);
    const o = readOptions(options, LogLinearPg.kind);
    this.horizon = numberOption(o, "horizon", 10_000, { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER });
    this.stepSize = numberOption(o, "stepSize", Math.sqrt(initialModelCountUnchecked(o) / this.horizon), {
      min: 0,
      openMin: true,
    });
    this.addInitialArms(options);
  }
  protected createArm(uid: number): LinArm {
    return { uid, theta: new Float64Array(this.contextDim + 1) };
  }
  protected distribution(q: Float64Array, probs: Float64Array): void {
    const k = this.table.size;
    const d = this.contextDim;
    const s = this.scores;
    for (let i = 0; i < k; i++) {
      const th = (this.table.states[i] as LinArm).theta;
      let v = th[d] as number;
      for (let l = 0; l < d; l++) v += (th[l] as number) * (q[l] as number);
      s[i] = v;
    }
    softmaxIntoUnchecked(s, k, probs);
  }
  protected learnRound(p: RoutePayload, q: Float64Array, reward: number): void {
    const d = this.contextDim;
    for (let i = 0; i < p.n; i++) {
      const s = this.live(p.ids[i] as string);
      if (s === undefined) continue;
      const c = this.stepSize * reward * ((i === p.chosen ? 1 : 0) - (p.probs[i] as number));
      // Each coefficient is capped at +-1e300: a step size near the largest double made them +-Infinity within
      // two rounds, the scores NaN and every later select a NUMERICAL error. A lead of 745 in the scores already
      // takes all of the softmax's mass, so the cap changes no probability at ordinary settings.
      const cap = LOG_LINEAR_COEFFICIENT_CAP;
      for (let l = 0; l <= d; l++) {
        const v = (s.theta[l] as number) + (l < d ? c * (q[l] as number) : c);
        s.theta[l] = v > cap ? cap : v < -cap ? -cap : v;
      }
    }
  }
  protected encodeArm(s: LinArm): Record<string, Json> {
    return { theta: encodeF64(s.theta) };
  }
  toJSON(): Snapshot {
    return makeSnapshot(LogLinearPg.kind, HPG_SNAPSHOT_VERSION, {
      horizon: this.horizon,
      stepSize: this.stepSize,
      normalizeContext: this.normalizeContext,
      clipRewards: this.clipRewards,
      ...this.baseState(),
    });
  }
  static fromJSON(snapshot: unknown): LogLinearPg {
    const st = readSnapshot(snapshot, LogLinearPg.kind, HPG_SNAPSHOT_VERSION);
    const c = readCommon(st);
    const stepSize = readNumber(st, "stepSize", (v) => v > 0, "a number > 0");
    const snap = readArmBaseState(st, {
      minContextDim: 1,
      arm: (json, d) => readF64(json.theta, "arms[].theta", d + 1),
      payload: (j, d) => checkRoutePayloadUnchecked(j, d, 0),
    });
    return restoring(LogLinearPg.kind, () => {
      const p = new LogLinearPg({ arms: [], contextDim: snap.contextDim, maxPending: snap.maxPending, stepSize, ...c });
      p.restoreBase(snap, (theta, uid) => ({ uid, theta }));
      return p;
    });
  }
}
