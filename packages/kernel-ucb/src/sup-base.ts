import {
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  assertInt,
  ErrorCode,
  enumOption,
  type Json,
  missingEventState,
  numberOption,
  optionKeys,
  RouteKitError,
  readInt,
  readOptions,
  snapshotCorrupt,
} from "@routekit/core";
import { KERNEL_POLICY_OPTION_KEYS, KernelPolicyBase, type KernelPolicyOptions } from "./base.js";
import type { KernelPayload } from "./payload.js";

/** Which uncertain arm branch (c) explores (the paper says "any"). */
export type ExploreChoice = "largest-width" | "random";

export interface SupOptions extends KernelPolicyOptions {
  /** Horizon T (required: the stage count M = ceil(log2 T) and the 1/sqrt(T) test use it). */
  readonly horizon: number;
  /** Number of stages M (default ceil(log2 T): the paper's "log T" has no base), in [1, 64]. */
  readonly stages?: number;
  /** Branch (c)'s choice among arms with a large width (default "largest-width", ties at random). */
  readonly exploreChoice?: ExploreChoice;
}

/** The option keys of {@link SupOptions}. */
export const SUP_OPTION_KEYS = optionKeys<SupOptions>()([...KERNEL_POLICY_OPTION_KEYS, "stages", "exploreChoice"]);

/** What the last select did (diagnostics and invariant tests). */
export interface SupRoundTrace {
  /** "exploit" = branch (a), "explore" = branch (c), "guard" = stages ran out (treated as (a)). */
  branch: "exploit" | "explore" | "guard";
  /** Stage m (1-based) at which the arm was chosen. */
  stage: number;
  /** Arms eliminated in branch (b) steps this round. */
  eliminated: string[];
}

/** One (arm, stage) estimate at a query: mean, width sigma and the bias terms B1, B2. */
export interface StageQuery {
  mu: number;
  sigma: number;
  b1: number;
  b2: number;
}

/** An arm of a Sup- policy: one estimator per stage. */
export interface SupArm<E> {
  readonly uid: number;
  readonly stages: E[];
}

const EXPLORE_CHOICES: readonly ExploreChoice[] = ["largest-width", "random"];

function stagesOf(o: Record<string, unknown>, horizon: number | undefined): number {
  const T = horizon ?? 1;
  return numberOption(o, "stages", Math.max(1, Math.ceil(Math.log2(T))), { integer: true, min: 1, max: 64 });
}

/**
 * The staged elimination shared by Sup-PAK-UCB (Algorithm 3) and Sup-RFF-UCB (Algorithm 6):
 * G x M independent estimators; per round, starting at stage m = 1 with all arms,
 * (a) if every (eta + sqrt(ridge)) sigma <= 1/sqrt(T): play argmax mu + eta sigma, file nothing;
 * (b) else if every width w = B1 + (2 eta + sqrt(ridge)) (sigma + B2) <= 2^(1-m): keep the arms with
 *     mu + w >= max(mu + w) - 2^(2-m), go to stage m + 1 (if m > M: act as (a), a guard the paper
 *     does not need in exact arithmetic);
 * (c) else play an arm with w > 2^(1-m) and file the round into its stage-m set.
 * (eta is the exploration multiplier; B1 = B2 = 0 for the exact kernel.)
 */
export abstract class SupBase<E extends { readonly n: number }> extends KernelPolicyBase<SupArm<E>> {
  readonly stages: number;
  readonly exploreChoice: ExploreChoice;
  /**
   * Rounds per branch since construction or restore (diagnostics: not in snapshots, which hold only
   * what feedback taught, so that replicas learning the same events have equal learned states).
   */
  readonly branchCounts = { exploit: 0, explore: 0, guard: 0 };
  /** Largest stage reached since construction or restore (diagnostics, like branchCounts). */
  maxStage = 1;
  readonly lastRound: SupRoundTrace = { branch: "explore", stage: 1, eliminated: [] };
  private readonly T: number;
  private readonly q: StageQuery = { mu: 0, sigma: 0, b1: 0, b2: 0 };
  private mu = new Float64Array(8);
  private wid = new Float64Array(8);
  private sig = new Float64Array(8);
  private active = new Uint8Array(8);

  protected constructor(options: SupOptions, what: string) {
    super(options, {
      what,
      defaultExploration: "theory",
      horizonRequired: true,
      maxStage: (o, horizon) => stagesOf(o, horizon) - 1,
    });
    const o = readOptions(options, what);
    this.T = this.horizon as number;
    this.stages = stagesOf(o, this.T);
    this.exploreChoice = enumOption(o, "exploreChoice", EXPLORE_CHOICES, "largest-width");
  }

  protected createArm(uid: number): SupArm<E> {
    return { uid, stages: Array.from({ length: this.stages }, (_, m) => this.newEstimator(uid, m)) };
  }

  protected abstract newEstimator(uid: number, stage: number): E;
  /** Checks everything a select at round t will compute, before anything changes (default: nothing). */
  protected beforeSelect(_t: number): void {}
  /** Fills `out` for a query at round t (1-based) of a non-empty estimator. */
  protected abstract query(e: E, y: Float64Array, ny: number, t: number, out: StageQuery): void;
  protected abstract file(e: E, y: Float64Array, ny: number, s: number): void;
  protected abstract encodeEstimator(e: E): Json;

  /** Points filed into each stage set of an arm. */
  filed(arm: string): number[] {
    return this.table.get(arm).stages.map((s) => s.n);
  }

  /** The estimator of `arm` at stage m (1-based); read-only use (tests, diagnostics). */
  stageEstimator(arm: string, m: number): E {
    assertInt(m, "stage", 1, this.stages);
    return this.table.get(arm).stages[m - 1] as E;
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const x = context as Float64Array;
    const ny = this.normalized(x);
    this.checkContextScale(ny);
    const G = this.table.size;
    if (this.mu.length < G) {
      this.mu = new Float64Array(2 * G);
      this.wid = new Float64Array(2 * G);
      this.sig = new Float64Array(2 * G);
      this.active = new Uint8Array(2 * G);
    }
    const t = this.ledger.issued + 1;
    this.beforeSelect(t);
    const eta = this.currentExploration();
    const ra = Math.sqrt(this.ridge);
    const tiny = 1 / Math.sqrt(this.T);
    const trace = this.lastRound;
    trace.eliminated.length = 0;
    this.active.fill(1, 0, G);
    const q = this.q;
    let m = 1;
    let pick = -1;
    let stage = -1;
    let branch: SupRoundTrace["branch"];
    for (;;) {
      let allTiny = true;
      let allNarrow = true;
      const thr = 2 ** (1 - m);
      for (let g = 0; g < G; g++) {
        if (!this.active[g]) continue;
        const e = (this.table.states[g] as SupArm<E>).stages[m - 1] as E;
        if (e.n === 0) {
          q.mu = 0;
          q.sigma = Number.POSITIVE_INFINITY;
          q.b1 = 0;
          q.b2 = 0;
        } else this.query(e, this.y, ny, t, q);
        this.mu[g] = q.mu;
        this.sig[g] = q.sigma;
        const w = q.b1 + (2 * eta + ra) * (q.sigma + q.b2);
        this.wid[g] = w;
        if (!((eta + ra) * q.sigma <= tiny)) allTiny = false;
        if (!(w <= thr)) allNarrow = false;
      }
      if (allTiny) {
        pick = this.argmaxActive(G, eta);
        branch = "exploit";
        break;
      }
      if (allNarrow) {
        let maxS = Number.NEGATIVE_INFINITY;
        for (let g = 0; g < G; g++) {
          if (this.active[g]) maxS = Math.max(maxS, (this.mu[g] as number) + (this.wid[g] as number));
        }
        for (let g = 0; g < G; g++) {
          if (this.active[g] && (this.mu[g] as number) + (this.wid[g] as number) < maxS - 2 ** (2 - m)) {
            this.active[g] = 0;
            trace.eliminated.push(this.table.ids[g] as string);
          }
        }
        if (m + 1 > this.stages) {
          // No stage left: act as branch (a) on the stage-M estimates.
          pick = this.argmaxActive(G, eta);
          branch = "guard";
          break;
        }
        m++;
        continue;
      }
      pick = this.chooseWide(G, thr);
      stage = m - 1;
      branch = "explore";
      break;
    }
    if (pick < 0) {
      throw new RouteKitError(ErrorCode.Numerical, "every arm's index or width is NaN; no arm can be chosen");
    }
    trace.branch = branch;
    trace.stage = m;
    if (m > this.maxStage) this.maxStage = m;
    this.branchCounts[branch]++;
    return this.issue(pick, x, stage);
  }

  /** argmax of mu + eta sigma over active arms, ties at random (-1 when every value is NaN). */
  private argmaxActive(G: number, eta: number): number {
    let best = -1;
    let bestV = Number.NEGATIVE_INFINITY;
    let ties = 0;
    for (let g = 0; g < G; g++) {
      if (!this.active[g]) continue;
      const v = (this.mu[g] as number) + eta * (this.sig[g] as number);
      if (Number.isNaN(v)) continue;
      if (best < 0 || v > bestV) {
        best = g;
        bestV = v;
        ties = 1;
      } else if (v === bestV) {
        ties++;
        if (this.rng.int(ties) === 0) best = g;
      }
    }
    return best;
  }

  /** Branch (c): an active arm with width > thr (largest width, ties at random; or uniformly). */
  private chooseWide(G: number, thr: number): number {
    let best = -1;
    let bestW = Number.NEGATIVE_INFINITY;
    let ties = 0;
    for (let g = 0; g < G; g++) {
      if (!this.active[g]) continue;
      const w = this.wid[g] as number;
      if (!(w > thr)) continue;
      const key = this.exploreChoice === "random" ? 0 : w;
      if (best < 0 || key > bestW) {
        best = g;
        bestW = key;
        ties = 1;
      } else if (key === bestW) {
        ties++;
        if (this.rng.int(ties) === 0) best = g;
      }
    }
    return best;
  }

  protected applyFeedback(arm: SupArm<E>, p: KernelPayload, feedback: ArmFeedback): void {
    if (p.stage < 0) return;
    const score = this.score(feedback.reward);
    const ny = this.normalized(p.x);
    this.checkContextScale(ny);
    this.file(arm.stages[p.stage] as E, this.y, ny, score);
  }

  /** The stage a round is filed into is decision-time state: events carry it as `state.stage`. */
  protected override eventState(p: KernelPayload): Json {
    return { stage: p.stage };
  }

  /** decision.state.stage needs no arm's state: checked for every event, whatever arm it names. */
  protected override checkEventDecision(event: ArmEvent, context: Float64Array | undefined): void {
    super.checkEventDecision(event, context);
    const st = event.decision.state;
    if (st === undefined || st === null || typeof st !== "object" || Array.isArray(st) || !("stage" in st)) {
      missingEventState(this.kind, "stage");
    }
    const stage = (st as Record<string, unknown>).stage;
    if (typeof stage !== "number" || !Number.isInteger(stage) || stage < -1 || stage >= this.stages) {
      throw new RouteKitError(
        ErrorCode.InvalidEvent,
        `event decision.state.stage must be an integer in [-1, ${this.stages - 1}], got ${String(stage)}`,
      );
    }
  }

  /** The stage of an event `checkEventDecision` accepted. */
  protected override eventStage(event: ArmEvent): number {
    return (event.decision.state as { stage: number }).stage;
  }

  protected encodeArm(a: SupArm<E>): Record<string, Json> {
    return { stages: a.stages.map((e) => this.encodeEstimator(e)) };
  }

  /** Options shared by both variants, for snapshots. */
  protected supStateJSON(): Record<string, Json> {
    return { ...this.commonJSON(), stages: this.stages, exploreChoice: this.exploreChoice };
  }
}

/** Reads the Sup- options of a snapshot (SNAPSHOT_CORRUPT on anything missing or invalid). */
export function readSupJSON(st: Record<string, Json>): { stages: number; exploreChoice: ExploreChoice } {
  const stages = readInt(st, "stages", 1, 64);
  const v = st.exploreChoice;
  if (typeof v !== "string" || !(EXPLORE_CHOICES as readonly string[]).includes(v)) {
    snapshotCorrupt('"exploreChoice"', '"largest-width" or "random"');
  }
  return { stages, exploreChoice: v as ExploreChoice };
}
