/**
 * Online routing metrics for softmax routers over embedding models ("Policy Regret for Embedding Model
 * Routing", Dai, Golrezaei & Jaillet): linearized policy regret
 * against the product nuclear ball B_*^M(tau'), policy regret against a planted comparator, the gap to the
 * per-query oracle and the expected reward, plus a runner that drives any router whose decision records
 * carry the routing distribution each decision was sampled from.
 */
import {
  type ArmEvent,
  type ArmFeedback,
  describe,
  ErrorCode,
  optionKeys,
  Rng,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import { allocF64, symmetricEigen, syrUpper } from "@routekit/linalg";
import type { RoutingEnvironment } from "./common.js";
import { PlantedQuadraticEnvironment } from "./planted.js";

/**
 * Accumulates, round by round, with pi the router's distribution, R the models' expected rewards and
 * A_m = R_m - sum pi R:
 * - linearized regret (the quantity the paper's Theorem 3 bounds) against every comparator W* in
 *   B_*^M(tau'), in closed form: sum_t sum_m -pi_m A_m log pi_m + tau' sum_m |sum_t pi_m A_m q q^T|_2
 *   (Proposition 7 turns <grad L_t(W_t), W_t - W*> into sum_m pi_m A_m (q^T W*_m q - log pi_m), so any
 *   softmax router can be scored, whatever its parametrisation);
 * - policy regret against the planted comparator pi* = softmax(q^T W*_m q) when scores are given;
 * - oracle gap sum_t (max_m R_m - sum_m pi_m R_m) and expected reward sum_t sum_m pi_m R_m.
 */
export class RoutingMeter {
  readonly dim: number;
  readonly models: number;
  readonly radius: number;
  rounds = 0;
  oracleGap = 0;
  expectedReward = 0;
  policyRegret = 0;
  private linTerm = 0;
  private readonly G: Float64Array;
  /** G's d x d block of each model (views made once). */
  private readonly Gm: Float64Array[];
  /** The round's query, copied next to G (the kernel reads it there without staging). */
  private readonly qv: Float64Array;
  private readonly w: Float64Array;
  private readonly pstar: Float64Array;

  constructor(dim: number, models: number, radius: number) {
    this.dim = dim;
    this.models = models;
    this.radius = radius;
    // In WebAssembly memory, so the O(d^2) update of each round runs on linalg's SIMD syr kernel.
    this.G = allocF64(models * dim * dim);
    this.Gm = Array.from({ length: models }, (_, m) => this.G.subarray(m * dim * dim, (m + 1) * dim * dim));
    this.qv = allocF64(dim);
    this.w = new Float64Array(models);
    this.pstar = new Float64Array(models);
  }

  record(q: ArrayLike<number>, pi: ArrayLike<number>, R: ArrayLike<number>, plantedScores?: ArrayLike<number>): void {
    const M = this.models;
    const d = this.dim;
    let rbar = 0;
    let best = Number.NEGATIVE_INFINITY;
    for (let m = 0; m < M; m++) {
      rbar += (pi[m] as number) * (R[m] as number);
      best = Math.max(best, R[m] as number);
    }
    this.expectedReward += rbar;
    this.oracleGap += best - rbar;
    for (let a = 0; a < d; a++) this.qv[a] = q[a] as number;
    for (let m = 0; m < M; m++) {
      const p = pi[m] as number;
      const wm = p * ((R[m] as number) - rbar);
      this.w[m] = wm;
      if (p > 0) this.linTerm -= wm * Math.log(p);
      // G_m += w_m q q^T on the upper triangle (rows with w_m q_a = 0 skipped).
      if (wm !== 0) syrUpper(this.Gm[m] as Float64Array, d, wm, this.qv);
    }
    if (plantedScores !== undefined) {
      let mx = Number.NEGATIVE_INFINITY;
      for (let m = 0; m < M; m++) mx = Math.max(mx, plantedScores[m] as number);
      let z = 0;
      for (let m = 0; m < M; m++) {
        const e = Math.exp((plantedScores[m] as number) - mx);
        this.pstar[m] = e;
        z += e;
      }
      let star = 0;
      for (let m = 0; m < M; m++) star += ((this.pstar[m] as number) / z) * (R[m] as number);
      this.policyRegret += star - rbar;
    }
    this.rounds++;
  }

  /** Linearized regret against B_*^M(radius) (one O(M d^3) eigendecomposition per call). */
  linearizedRegret(): number {
    const d = this.dim;
    let total = this.linTerm;
    for (let m = 0; m < this.models; m++) {
      const { values } = symmetricEigen(this.G.subarray(m * d * d, (m + 1) * d * d), d);
      total += this.radius * Math.max(Math.abs(values[0] as number), Math.abs(values[d - 1] as number));
    }
    return total;
  }
}

/**
 * What the runner needs from a router: a decision per query, feedback, and the routing distribution each
 * decision was sampled from. The runner reads that distribution from the decision's record (the arm protocol's
 * `decisionRecord`): its `decision.state` must hold `probs`, one probability per live model in `arms` order, as
 * the softmax routers of `@routekit/hpg` write it. So the distribution is the one `select` computed, not a second
 * scoring of the query.
 */
export interface DistributionRouter {
  readonly arms: readonly string[];
  select(context: Float64Array): { readonly id: string; readonly arm: string };
  update(decision: string, feedback: ArmFeedback): void;
  /** The record of a pending decision; `decision.state.probs` is the distribution it was sampled from. */
  decisionRecord(decision: string): ArmEvent;
}

/** The distribution a decision was sampled from, read from its record's `decision.state.probs`. */
function sampledDistribution(router: DistributionRouter, decision: string, models: number): ArrayLike<number> {
  const state = router.decisionRecord(decision).decision.state as { probs?: unknown } | null | undefined;
  const probs = state?.probs;
  if (!Array.isArray(probs) || probs.length !== models) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `runRoutingExperiment needs a router whose decision records carry decision.state.probs (${models} numbers, one per model), got ${describe(probs)}`,
    );
  }
  return probs as number[];
}

export interface RoutingExperimentOptions {
  readonly horizon: number;
  readonly seed: number;
  /** Comparator radius tau' of the linearized regret (default 2 s when the environment has a latent rank, else 2). */
  readonly radius?: number;
  /** Rounds at which the oracle gap and reward curves are sampled (default 20 evenly spaced). */
  readonly checkpoints?: number;
}

/** The option keys of {@link RoutingExperimentOptions}. */
export const ROUTING_EXPERIMENT_OPTION_KEYS = optionKeys<RoutingExperimentOptions>()([
  "horizon",
  "seed",
  "radius",
  "checkpoints",
]);

export interface RoutingExperimentResult {
  readonly horizon: number;
  readonly linearizedRegret: number;
  /** NaN unless the environment plants a comparator. */
  readonly policyRegret: number;
  readonly oracleGap: number;
  readonly expectedReward: number;
  readonly realisedReward: number;
  readonly curve: readonly { readonly t: number; readonly oracleGap: number; readonly expectedReward: number }[];
}

/**
 * Runs one router for `horizon` rounds on `env` reset with seed `seed` (the environment uses the
 * "env" fork, the router factory gets the "policy" fork) and returns the metrics.
 */
export function runRoutingExperiment(
  env: RoutingEnvironment,
  makeRouter: (rng: Rng) => DistributionRouter,
  options: RoutingExperimentOptions,
): RoutingExperimentResult {
  rejectUnknownOptions(options, ROUTING_EXPERIMENT_OPTION_KEYS, "runRoutingExperiment");
  const root = Rng.fromSeed(options.seed);
  env.reset(root.fork("env"));
  const router = makeRouter(root.fork("policy"));
  const M = env.models;
  const s = (env as { latentRank?: number }).latentRank ?? 1;
  const meter = new RoutingMeter(env.contextDim, M, options.radius ?? 2 * s);
  const order = env.initialArms.map((a) => {
    const i = router.arms.indexOf(a);
    if (i < 0) throw new Error(`router has no arm "${a}"`);
    return i;
  });
  const pi = new Float64Array(M);
  const planted = env instanceof PlantedQuadraticEnvironment ? env.plantedScores : undefined;
  const every = Math.max(1, Math.floor(options.horizon / (options.checkpoints ?? 20)));
  const curve: { t: number; oracleGap: number; expectedReward: number }[] = [];
  let realised = 0;
  for (let t = 0; t < options.horizon; t++) {
    const q = env.next(t).context as Float64Array;
    const d = router.select(q);
    const p = sampledDistribution(router, d.id, M);
    for (let m = 0; m < M; m++) pi[m] = p[order[m] as number] as number;
    meter.record(q, pi, env.means, planted);
    const fb = env.pull(d.arm);
    realised += fb.reward;
    router.update(d.id, fb);
    if ((t + 1) % every === 0 || t + 1 === options.horizon)
      curve.push({ t: t + 1, oracleGap: meter.oracleGap, expectedReward: meter.expectedReward });
  }
  return {
    horizon: options.horizon,
    linearizedRegret: meter.linearizedRegret(),
    policyRegret: planted ? meter.policyRegret : Number.NaN,
    oracleGap: meter.oracleGap,
    expectedReward: meter.expectedReward,
    realisedReward: realised,
    curve,
  };
}
