/**
 * COSMOS (COst-aware Sequential MOdel query and Selection; Belloni, Chen and Wei, "Online Pandora's Box
 * for Contextual LLM Cascading", Algorithms 1 and 2): Weitzman's index policy run with optimistic
 * plug-ins.
 * - Per box a, the reservation index sigma_a(x) = Lambda(rho_a . psi(x)) is estimated by the convex
 *   moment loss over every output the box revealed (queried, not just deployed); the optimistic index is
 *   Lambda(rho-hat . psi + B ||psi||_{V_a^-1}).
 * - The reward mu(x, omega) = G(theta . phi) is either known (Section 4) or learned from the deployed
 *   outputs by a ridge-penalised GLM MLE (Section 5); the optimistic reward adds beta_t ||phi||_{Phi^-1}.
 * - Boxes without data get index +Infinity, so the first episode opens every box once (the paper's
 *   initialisation period) and a box added later is opened at its first episode.
 */
import {
  checkNumber,
  ErrorCode,
  type Json,
  makeSnapshot,
  RouteKitError,
  readInt,
  readObject,
  readOptions,
  readSnapshot,
  rngOption,
  type Snapshot,
  type VectorInput,
} from "@routekit/core";
import { BoxState } from "./box.js";
import { CascadePolicyBase, type CascadeRecord, checkContext } from "./episodes.js";
import { type IndexLink, indexLink, rewardLink } from "./links.js";
import { IndexSolver } from "./loss.js";
import {
  type CosmosConfig,
  type CosmosOptions,
  cosmosConfigFromJSON,
  cosmosConfigToJSON,
  readCosmosOptions,
} from "./options.js";
import {
  type RadiusInputs,
  scaledIndexRadius,
  scaledRewardRadius,
  type TheoryConstants,
  theoryIndexRadius,
  theoryRewardRadius,
} from "./radius.js";
import { RewardModel } from "./reward.js";

export class Cosmos extends CascadePolicyBase {
  static readonly kind = "pandora/cosmos";
  readonly kind = Cosmos.kind;
  readonly config: CosmosConfig;
  /** Index dimension m and reward dimension d. */
  readonly m: number;
  readonly d: number;
  /** Whether the reward function is known (Section 4) rather than learned (Section 5). */
  readonly knownReward: boolean;
  protected boxes: BoxState[] = [];
  protected reward: RewardModel;
  /** Completed episodes learned so far. */
  protected periods = 0;
  /**
   * Work counters since construction or restore (diagnostics, not in snapshots): index fits (one box
   * re-solved over its history), the Newton iterations they took, and the sum over fits of samples times
   * iterations (the solver's work: each iteration reads every sample of the box about twice).
   */
  readonly fitStats = { fits: 0, newtonIterations: 0, sampleIterations: 0 };
  private readonly link: IndexLink;
  private readonly solver: IndexSolver;
  private readonly psi: Float64Array;
  private readonly phi: Float64Array;
  private readonly constants: TheoryConstants | null;

  constructor(options: CosmosOptions) {
    const config = readCosmosOptions(options);
    super({
      arms: config.arms,
      contextDim: config.contextDim,
      outputDim: config.outputDim,
      maxPending: config.maxPending,
      rng: rngOption(readOptions(options, "COSMOS")),
    });
    this.config = config;
    this.m = config.contextDim + (config.indexIntercept ? 1 : 0);
    this.d = config.outputDim + (config.rewardIntercept ? 1 : 0);
    this.knownReward = config.rewardParameter !== null;
    this.link = indexLink(config.indexLink, config.linkKnee);
    this.solver = new IndexSolver(this.m);
    this.psi = new Float64Array(this.m);
    this.phi = new Float64Array(this.d);
    this.reward = new RewardModel(
      this.d,
      rewardLink(config.rewardLink),
      config.ridge,
      config.rewardBound,
      config.rewardParameter,
    );
    this.constants = this.theoryConstants();
    for (const a of config.arms) this.addArm(a);
  }

  private theoryConstants(): TheoryConstants | null {
    const t = this.config.theory;
    if (t === null || this.config.radiusMode !== "theory") return null;
    const R = this.config.indexBound;
    const iota = R * t.psiBound;
    const G = this.reward.link;
    const alpha = this.config.rewardBound;
    const muLow = G.name === "identity" ? 1 : G.derivative(alpha * t.phiBound);
    return {
      kappa: t.kappa,
      mu1: this.link.derivative(iota),
      iota,
      psiBound: t.psiBound,
      diameter: 2 * R,
      phiBound: t.phiBound,
      muLow,
      lipschitzG: G.lipschitz,
      gamma0: t.rewardMax,
      alpha: this.knownReward ? 0 : alpha,
    };
  }

  protected addBox(_id: string): void {
    this.boxes.push(new BoxState(this.m, this.d, !this.knownReward, this.config.indexRidge));
  }

  protected removeBox(index: number): void {
    this.boxes.splice(index, 1);
  }

  private toPsi(context: Float64Array): Float64Array {
    const off = this.config.indexIntercept ? 1 : 0;
    if (off) this.psi[0] = 1;
    for (let i = 0; i < this.config.contextDim; i++) this.psi[off + i] = context[i] as number;
    return this.psi;
  }

  private toPhi(features: Float64Array): Float64Array {
    const off = this.config.rewardIntercept ? 1 : 0;
    if (off) this.phi[0] = 1;
    for (let i = 0; i < this.config.outputDim; i++) this.phi[off + i] = features[i] as number;
    return this.phi;
  }

  /** Horizon, period, confidence and dimensions for the radii this period. */
  private radiusInputs(): RadiusInputs {
    const t = Math.max(1, this.periods);
    const T = this.config.horizon ?? Math.max(t, 2);
    const delta = this.config.confidence ?? (this.knownReward ? 1 / T : 1 / Math.sqrt(T));
    return {
      m: this.m,
      d: this.d,
      A: this.boxes.length,
      T,
      t,
      delta,
      eta1: this.config.indexRidge,
      eta0: this.config.ridge,
    };
  }

  /** The reward radius beta_t this period (0 with a known reward). */
  rewardRadius(): number {
    if (this.knownReward) return 0;
    const r = this.radiusInputs();
    return this.constants
      ? theoryRewardRadius(this.constants, r)
      : scaledRewardRadius(r, this.config.explorationReward);
  }

  /** The index radius of box i this period. */
  indexRadius(i: number): number {
    checkNumber(i, "box position", { integer: true, min: 0, max: this.boxes.length - 1 });
    const box = this.boxes[i] as BoxState;
    const r = this.radiusInputs();
    const S = this.knownReward ? 0 : this.reward.frobenius(box.P);
    return this.constants
      ? theoryIndexRadius(this.constants, r, box.n, this.knownReward, S)
      : scaledIndexRadius(r, this.config.exploration, this.config.explorationPlugIn, this.knownReward, S);
  }

  protected plan(context: Float64Array, sigma: Float64Array): number {
    const psi = this.toPsi(context);
    for (let i = 0; i < this.boxes.length; i++) {
      const box = this.boxes[i] as BoxState;
      if (box.n === 0) {
        sigma[i] = Number.POSITIVE_INFINITY;
        continue;
      }
      let z = 0;
      for (let k = 0; k < this.m; k++) z += (box.rho[k] as number) * (psi[k] as number);
      const B = this.indexRadius(i);
      const w = B === 0 ? 0 : box.width(psi);
      // B is +Infinity when the theory constants degenerate (kappa mu1 -> 0): sigma~ = Lambda(+Infinity) = 1.
      sigma[i] = this.link.value(w === 0 ? z : z + B * w);
    }
    return this.rewardRadius();
  }

  protected optimisticReward(features: Float64Array, beta: number): number {
    return this.reward.optimistic(this.toPhi(features), beta);
  }

  /** The optimistic indices sigma~ every live box would get for this context now (table order), and beta. */
  optimisticIndices(context: VectorInput): { sigma: Float64Array; beta: number } {
    checkContext(context, this.config.contextDim);
    const sigma = new Float64Array(this.boxes.length);
    const beta = this.plan(Float64Array.from(context), sigma);
    return { sigma, beta };
  }

  /** Point estimate of rho_a . psi(x) and the index sigma-hat_a(x) without optimism (for inspection). */
  estimatedIndex(arm: string, context: VectorInput): number {
    const box = this.boxes[this.table.indexOf(arm)] as BoxState;
    checkContext(context, this.config.contextDim);
    const psi = this.toPsi(Float64Array.from(context));
    let z = 0;
    for (let k = 0; k < this.m; k++) z += (box.rho[k] as number) * (psi[k] as number);
    return this.link.value(z);
  }

  /** rho-hat of a box (a copy). */
  indexParameter(arm: string): Float64Array {
    return (this.boxes[this.table.indexOf(arm)] as BoxState).rho.slice();
  }

  /** theta-hat (or theta* when known), a copy. */
  rewardParameter(): Float64Array {
    return this.reward.theta.slice();
  }

  protected learnRecord(r: CascadeRecord): void {
    const psi = this.toPsi(r.context);
    for (const q of r.queried) {
      // A box removed since the episode began teaches nothing, also to a box added again under its id.
      if (q.retired === true) continue;
      const i = this.table.find(q.arm);
      if (i === undefined) continue;
      const phi = this.toPhi(q.features);
      const box = this.boxes[this.table.indexOf(q.arm)] as BoxState;
      box.add(psi, phi, this.reward.mean(phi), q.cost);
    }
    let rewardRefit = false;
    if (!this.knownReward) {
      const chosen = r.queried.find((q) => q.arm === r.chosen);
      if (chosen) {
        this.reward.add(this.toPhi(chosen.features), r.reward);
        const due =
          this.config.refit === "exact" || this.reward.count >= this.config.refitGrowth * this.reward.fittedAt;
        if (due) {
          this.reward.fit(this.config.maxIter);
          rewardRefit = true;
        }
      }
    }
    this.periods++;
    for (const box of this.boxes) {
      const n = box.n;
      if (n === 0) continue;
      const grown = n > box.fittedN;
      const due =
        this.config.refit === "exact"
          ? grown || (rewardRefit && !this.knownReward)
          : rewardRefit || (grown && n >= this.config.refitGrowth * box.fittedN);
      if (due) this.fitBox(box);
    }
  }

  private fitBox(box: BoxState): void {
    if (!this.knownReward) {
      const X = box.phi.data;
      const mu = box.mu.data;
      for (let s = 0; s < box.n; s++) mu[s] = this.reward.mean(X, s * this.d);
    }
    this.solver.solve(
      this.link,
      box.psi.data,
      box.mu.data,
      box.cost.data,
      box.n,
      this.config.indexBound,
      box.rho,
      this.config.maxIter,
    );
    box.fittedN = box.n;
    this.fitStats.fits++;
    this.fitStats.newtonIterations += this.solver.lastIterations;
    this.fitStats.sampleIterations += box.n * this.solver.lastIterations;
  }

  toJSON(): Snapshot {
    return makeSnapshot(Cosmos.kind, 2, {
      config: cosmosConfigToJSON(this.config),
      arms: [...this.table.ids],
      periods: this.periods,
      boxes: this.boxes.map((b) => b.toJSON()),
      reward: this.reward.toJSON(),
      ...this.replicaJSON(),
    });
  }

  static fromJSON(snapshot: Snapshot): Cosmos {
    const s = readSnapshot(snapshot, Cosmos.kind, 2);
    const arms = s.arms;
    if (
      !Array.isArray(arms) ||
      arms.length === 0 ||
      !arms.every((a) => typeof a === "string" && a !== "") ||
      new Set(arms).size !== arms.length
    )
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "arms" must be distinct non-empty ids');
    const config = cosmosConfigFromJSON(s.config, arms as string[]);
    const p = new Cosmos(config as unknown as CosmosOptions);
    p.restore(s);
    return p;
  }

  protected restore(s: Record<string, Json>): void {
    const periods = readInt(s, "periods");
    if (!Array.isArray(s.boxes) || s.boxes.length !== this.boxes.length)
      throw new RouteKitError(ErrorCode.SnapshotCorrupt, 'snapshot field "boxes" must hold one state per arm');
    const boxes = s.boxes.map((b, i) =>
      BoxState.fromJSON(b, `boxes[${i}]`, this.m, this.d, !this.knownReward, this.config.indexRidge),
    );
    const reward = RewardModel.fromJSON(readObject(s.reward, '"reward"'), this.reward);
    this.restoreReplica(s);
    this.boxes = boxes;
    this.reward = reward;
    this.periods = periods;
  }
}
