/**
 * The three interaction protocols of RouteKit. Every policy implements exactly one, every
 * environment serves exactly one, and the runner drives any pair of the same protocol.
 *
 * Shared rules:
 * - Arms are named by string ids and may be added or removed while running.
 * - A decision has an id; feedback names it, may come late, out of order or never, and is accepted
 *   once. Pending decisions are part of the snapshot.
 * - Invalid input throws RouteKitError and leaves the policy's state (its snapshot) unchanged.
 * - All randomness comes from the Rng given at construction (or derived from a seed).
 */
import type { ArmEvent, AssortmentEvent, CascadeEvent } from "./events.js";
import type { DecisionRef } from "./ledger.js";
import type { Rng } from "./rng.js";
import type { Snapshot } from "./snapshot.js";

export type Protocol = "arm" | "assortment" | "cascade";

/**
 * A vector the caller hands to a policy (a context, a box's output features): copied on entry, so the caller
 * may reuse it. A Float32Array (what embedding models and ONNX or transformers.js runtimes return) is widened
 * exactly, every float32 being a float64; a plain array must hold numbers only (never coerced).
 */
export type VectorInput = Float64Array | Float32Array | readonly number[];

/**
 * What every policy has, whatever its protocol.
 *
 * Every class also has `static fromJSON(snapshot)`: it validates the whole snapshot before building
 * anything (SNAPSHOT_KIND for another class's, SNAPSHOT_VERSION for another layout, SNAPSHOT_CORRUPT
 * for anything else wrong) and returns a policy that makes exactly the decisions the original would have.
 */
export interface PolicyBase {
  /** Class id used in snapshots and events, e.g. "classic/ucb1", "kernel-ucb/pak-ucb". */
  readonly kind: string;
  readonly protocol: Protocol;
  /** Decisions (or episodes) still waiting for feedback. */
  readonly pendingDecisions: number;
  /** A versioned JSON snapshot; the class's static `fromJSON` restores it bit-exactly. */
  toJSON(): Snapshot;
  /**
   * Drops a pending decision (or open episode) without learning from it, e.g. when the request failed
   * or its feedback is applied through `learn` from a shared event stream.
   * Throws UNKNOWN_DECISION, DECISION_ALREADY_USED or DECISION_EXPIRED like feedback does.
   */
  discard(ref: DecisionRef): void;
}

// ---------------------------------------------------------------- arm selection

/** Returned by {@link ArmPolicy.select}; pass it (or its id) back to `update`. */
export interface ArmDecision {
  readonly id: string;
  /** The chosen arm's id. */
  readonly arm: string;
  /**
   * Probability with which the policy picked this arm, for randomized policies whose
   * distribution is explicit (softmax, LP routing, epsilon-greedy); undefined otherwise.
   * Useful for off-policy logging (inverse propensity scoring).
   */
  readonly propensity?: number;
}

export interface ArmFeedback {
  /** Observed reward (score) of the chosen arm; finite. */
  readonly reward: number;
  /** Observed cost of the call, >= 0, when the policy tracks costs. */
  readonly cost?: number;
}

/**
 * Arm selection: `select(context)` picks one arm, `update(decision, feedback)` learns from it.
 * PAK-UCB, RFF-UCB, LinUCB, HPG, StageRoute and the classic baselines implement it.
 */
export interface ArmPolicy extends PolicyBase {
  readonly protocol: "arm";
  /** Length of the context select() expects; 0 for context-free policies. */
  readonly contextDim: number;
  /** Live arm ids, in insertion order. */
  readonly arms: readonly string[];
  addArm(id: string): void;
  /** Removes an arm. Pending decisions for it stay valid; their feedback is accepted and ignored. */
  removeArm(id: string): void;
  /**
   * Picks an arm for a request. `context` must hold `contextDim` finite numbers (it is copied; the
   * caller may reuse the array). Throws NO_ARMS, DIMENSION_MISMATCH or NON_FINITE, changing nothing.
   */
  select(context?: VectorInput): ArmDecision;
  /**
   * Learns from the feedback of a pending decision (the decision object or its id), once. Feedback may
   * come late and out of order; for an arm removed since the decision it is accepted and ignored.
   * Throws UNKNOWN_DECISION, DECISION_ALREADY_USED, DECISION_EXPIRED, NON_FINITE or OUT_OF_RANGE,
   * changing nothing. Equal, bit for bit, to `learn({ ...decisionRecord(decision), feedback })` plus
   * settling the decision.
   */
  update(decision: DecisionRef, feedback: ArmFeedback): void;
  /** The decision part of a pending decision's event (plain JSON: log it when the decision is served). */
  decisionRecord(ref: DecisionRef): ArmEvent;
  /**
   * Learns from a self-contained logged event (a decision record plus its feedback), from this or any
   * other arm policy; pending decisions are not touched. Throws INVALID_EVENT on a malformed event.
   */
  learn(event: ArmEvent): void;
}

/** One round of an arm environment. */
export interface ArmRound {
  /** The request's context (prompt embedding); undefined for context-free environments. */
  readonly context: Float64Array | undefined;
  /** Arms that become available at this round (e.g. a new model is released). */
  readonly arrivals?: readonly string[];
  /** Arms that retire at this round. */
  readonly departures?: readonly string[];
}

/**
 * An environment for arm selection. It draws the round's context, answers pulls with noisy
 * feedback, and knows expected values so the runner can record exact pseudo-regret.
 * Contexts and feedback noise should come from separate forks of the rng given to `reset`, so all
 * policies run on one seed see the same request sequence.
 */
export interface ArmEnvironment {
  readonly name: string;
  readonly contextDim: number;
  /** Arms live at round 0. */
  readonly initialArms: readonly string[];
  reset(rng: Rng): void;
  /** Starts round t (0-based). */
  next(t: number): ArmRound;
  /** Expected reward of `arm` this round. */
  expectedReward(arm: string): number;
  /** Expected cost of `arm` this round (0 when the environment has no costs). */
  expectedCost(arm: string): number;
  /** The regret reference: the oracle's expected reward this round. */
  oracleReward(): number;
  /** The best single arm over the request distribution (the one-arm oracle's pick). */
  bestFixedArm(): string;
  /** Expected reward this round of the best fixed arm, `bestFixedArm()` (for O2B). */
  bestFixedReward(): number;
  /** Whether picking `arm` counts as an optimal pick this round (for OPR). */
  isOptimal(arm: string): boolean;
  /** Realised feedback for `arm` this round. */
  pull(arm: string): ArmFeedback;
  /**
   * Optional, for realised O2B: the reward {@link ArmEnvironment.bestFixedArm} would have realised this
   * round (on the same draw `pull` uses when possible). Call after `pull`; it must not change what any
   * later round draws.
   */
  bestFixedRealised?(): number;
  /**
   * Optional, for realised OPR: whether `arm` is the best this round by realised outcomes (e.g. the
   * mean of a prompt's pre-drawn generations, as the paper-003 OPR protocol defines it).
   */
  isOptimalRealised?(arm: string): boolean;
  /**
   * Optional: whether this round's prompt (context) already appeared earlier in the run (since the
   * last `reset`). Lets the metrics separate first-pass rounds from repeats (replayed logs cycle
   * through their prompts; a fixed prompt pool is sampled with replacement).
   */
  seenBefore?(): boolean;
}

// ---------------------------------------------------------------- assortment

/** A round's candidate items for an assortment policy. */
export interface AssortmentQuery {
  /** Row-major numItems x dim feature matrix. */
  readonly features: Float64Array;
  readonly numItems: number;
  /** Per-item revenue in [0, 1], known before selection; all 1 when omitted. */
  readonly revenues?: Float64Array;
  /** Largest assortment allowed (K >= 1). */
  readonly maxSize: number;
}

/** Returned by {@link AssortmentPolicy.select}. */
export interface AssortmentDecision {
  readonly id: string;
  /** Offered item indices (rows of the query's features), at most maxSize of them. */
  readonly items: readonly number[];
}

export interface AssortmentFeedback {
  /** The chosen item's index (one of decision.items), or null for the outside option. */
  readonly choice: number | null;
}

/** Assortment (MNL choice): offer up to K items, observe which one the user picks, or none. */
export interface AssortmentPolicy extends PolicyBase {
  readonly protocol: "assortment";
  /** Length d of each item's feature row. */
  readonly contextDim: number;
  /**
   * Offers at most `query.maxSize` items. Throws INVALID_ARGUMENT, DIMENSION_MISMATCH, NON_FINITE,
   * OUT_OF_RANGE or EMPTY_ASSORTMENT (no items), changing nothing.
   */
  select(query: AssortmentQuery): AssortmentDecision;
  /**
   * Learns from the user's choice among the offered items (null: the outside option), once.
   * Equal, bit for bit, to `learn({ ...decisionRecord(decision), feedback })` plus settling.
   */
  update(decision: DecisionRef, feedback: AssortmentFeedback): void;
  /** The decision part of a pending decision's event: the offered items with their feature rows. */
  decisionRecord(ref: DecisionRef): AssortmentEvent;
  /** Learns from a self-contained logged event; pending decisions are not touched. */
  learn(event: AssortmentEvent): void;
}

export interface AssortmentEnvironment {
  readonly name: string;
  /** Length of each item's feature row. */
  readonly contextDim: number;
  reset(rng: Rng): void;
  next(t: number): AssortmentQuery;
  /** Expected revenue of offering `items` this round under the true model. */
  expectedRevenue(items: readonly number[]): number;
  /** The oracle assortment's expected revenue this round. */
  oracleRevenue(): number;
  /** Realised choice for `items`: an item index or null (outside option). */
  choose(items: readonly number[]): number | null;
}

// ---------------------------------------------------------------- cascade

/** What a cascade policy asks for next within an episode. */
export type CascadeStep = { readonly query: string } | { readonly stop: true };

/**
 * Cascade (COSMOS / Pandora's box): per request, query models one by one paying their cost,
 * stop, deploy one of the queried outputs, and later learn its reward.
 * Every call names the episode returned by `begin`, so many episodes may be open at once.
 *
 * Order within an episode: `begin`, then `next`/`observe` pairs until `next` says stop, `choose`, and
 * `feedback` (or `discard`). `next` repeats the outstanding box until it is observed; `choose` may be
 * called early (after at least one observation) to cut the cascade short, and repeats its answer.
 * Out-of-order calls throw INVALID_STATE (observe with no box asked for, choose before any
 * observation, feedback or decisionRecord before choose); observing a box other than the one asked for
 * throws INVALID_ARGUMENT. Learning happens at `feedback` only, from the whole episode.
 */
export interface CascadePolicy extends PolicyBase {
  readonly protocol: "cascade";
  readonly contextDim: number;
  /** Length of each box's output features (what `observe` takes). */
  readonly outputDim: number;
  readonly arms: readonly string[];
  addArm(id: string): void;
  /** Removes a box; open episodes skip it if they have not opened it yet. */
  removeArm(id: string): void;
  /** Opens an episode for a request; returns its id. */
  begin(context: VectorInput): string;
  /** The next box to open, or stop (never stop before the first query). */
  next(episode: DecisionRef): CascadeStep;
  /** Reports the asked box's output features and the cost paid. */
  observe(episode: DecisionRef, arm: string, outputFeatures: VectorInput, cost: number): void;
  /** Picks the output to deploy among the queried boxes. */
  choose(episode: DecisionRef): string;
  /**
   * The deployed output's observed reward; learns from the episode and closes it. Equal, bit for bit,
   * to `learn({ ...decisionRecord(episode), feedback: { reward } })` plus closing.
   */
  feedback(episode: DecisionRef, reward: number): void;
  /** The decision part of an episode's event, once `choose` was called: context, opened boxes, chosen box. */
  decisionRecord(episode: DecisionRef): CascadeEvent;
  /** Learns from a self-contained logged episode; open episodes are not touched. */
  learn(event: CascadeEvent): void;
}

export interface CascadeEnvironment {
  readonly name: string;
  readonly contextDim: number;
  /** Length of each box's output features. */
  readonly outputDim: number;
  readonly initialArms: readonly string[];
  reset(rng: Rng): void;
  next(t: number): { readonly context: Float64Array };
  /** Opens a box this round: its output features and the cost paid. */
  query(arm: string): { readonly features: Float64Array; readonly cost: number };
  /** Expected reward of deploying `arm`'s (already drawn) output this round. */
  expectedReward(arm: string): number;
  /** Realised (noisy) reward of deploying `arm`'s output. */
  reward(arm: string): number;
  /**
   * Utility (reward minus costs) of the oracle policy this round: its expectation given the context, or
   * its realised value on the round's drawn outputs when the environment draws every box's output up
   * front (common random numbers, as the pandora environments do). Both make the runner's regret
   * (oracle utility minus the policy's `expectedReward(chosen) - costs paid`) unbiased.
   */
  oracleUtility(): number;
}

// ---------------------------------------------------------------- factories

/**
 * Builds a policy for one run; `rng` is a stream reserved for that policy on that seed, `env` the
 * run's environment, already reset (read it, e.g. for its arms or the best fixed arm; never drive it).
 */
export type PolicyFactory<P, E = ArmEnvironment | AssortmentEnvironment | CascadeEnvironment> = (ctx: {
  readonly rng: Rng;
  readonly seed: number;
  readonly env: E;
}) => P;
