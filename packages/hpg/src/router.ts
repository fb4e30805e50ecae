/**
 * What every router of this package shares: a query embedding q (validated, norm <= 1 or normalised),
 * a routing distribution pi over the live models, one sample from it by inverse CDF (one uniform draw),
 * and a pending decision that keeps pi (the gradient estimate is unbiased only with the very pi that was
 * sampled from: paper Lemma 2) plus any per-model decision-time numbers (`aux`). Decision events carry
 * them in `decision.state` ({ arms, probs, aux? }), so `learn` replays an update exactly.
 */
import {
  ARM_POLICY_OPTION_KEYS,
  type ArmDecision,
  type ArmEvent,
  type ArmFeedback,
  ArmPolicyBase,
  type ArmPolicyOptions,
  type ArmState,
  booleanOption,
  checkNumber,
  decodeF64,
  describe,
  ErrorCode,
  encodeF64,
  type Json,
  type LedgerCodec,
  MAX_CONTEXT_DIM,
  missingEventState,
  ObjectPool,
  optionKeys,
  RouteKitError,
  readLength,
  readObject,
  readOptions,
  type VectorInput,
  vectorToJson,
} from "@routekit/core";
import { allocF64 } from "@routekit/linalg";
import { checkDistribution, checkRoutePayloadUnchecked, softmaxIntoUnchecked } from "./helpers-core.js";
import { readPrefix } from "./toolkit-checks.js";

/** Options every router of this package accepts. */
export interface RouterOptions extends ArmPolicyOptions {
  /**
   * Scale each query to unit norm before use (default false). When false, a query whose norm exceeds
   * 1 + 1e-6 is rejected with OUT_OF_RANGE (the paper's guarantees assume |q| <= 1, and raw encoder
   * outputs, e.g. Contriever's, are not unit-norm); one of norm in (1 + 1e-9, 1 + 1e-6], an embedding
   * normalised in float32, is scaled onto the unit sphere.
   */
  readonly normalizeContext?: boolean;
  /**
   * Clip rewards to [-1, 1] (default true), as the analysis and the coin-betting wealth require. When
   * false, a reward outside [-1, 1] is rejected with OUT_OF_RANGE.
   */
  readonly clipRewards?: boolean;
}

/** The option keys of {@link RouterOptions}. */
export const ROUTER_OPTION_KEYS = optionKeys<RouterOptions>()([
  ...ARM_POLICY_OPTION_KEYS,
  "normalizeContext",
  "clipRewards",
]);

/** A pending decision: chosen model, the query as received, and the distribution sampled from. */
export interface RoutePayload {
  uid: number;
  /** Index of the chosen model in `ids`. */
  chosen: number;
  x: Float64Array;
  /** Live model ids at decision time (shared between decisions while the models do not change). */
  ids: readonly string[];
  probs: Float64Array;
  /** `auxPerArm` numbers per model (e.g. parameter-free HPG's inner score and bet). */
  aux: Float64Array;
  n: number;
}

/** Norm slack taken as is for "unit-norm" queries (a Float64 normalisation's rounding). */
const NORM_TOL = 1e-9;
/**
 * Norm slack accepted and scaled back onto the unit sphere: an embedding normalised in float32 (what embedding
 * models and their runtimes return) has a norm within a few float32 ulps of 1, e.g. 1 + 5e-8 at d = 384.
 */
const FLOAT32_NORM_TOL = 1e-6;

class RouteCodec implements LedgerCodec<RoutePayload> {
  readonly pool: ObjectPool<RoutePayload>;
  constructor(
    readonly dim: number,
    readonly auxPerArm: number,
  ) {
    this.pool = new ObjectPool(() => ({
      uid: 0,
      chosen: 0,
      x: new Float64Array(dim),
      ids: [],
      probs: new Float64Array(8),
      aux: new Float64Array(8 * auxPerArm),
      n: 0,
    }));
  }
  acquire(n: number): RoutePayload {
    const p = this.pool.acquire();
    if (p.probs.length < n) {
      p.probs = new Float64Array(2 * n);
      p.aux = new Float64Array(2 * n * this.auxPerArm);
    }
    p.n = n;
    return p;
  }
  encode(p: RoutePayload): Json {
    return {
      uid: p.uid,
      chosen: p.chosen,
      x: encodeF64(p.x),
      arms: [...p.ids],
      probs: encodeF64(p.probs.subarray(0, p.n)),
      aux: encodeF64(p.aux.subarray(0, p.n * this.auxPerArm)),
    };
  }
  decode(json: Json): RoutePayload {
    const o = readObject(json, "ledger payload");
    const probs = decodeF64(o.probs, "ledger probs");
    const p = this.acquire(probs.length);
    p.uid = o.uid as number;
    p.chosen = o.chosen as number;
    p.x.set(decodeF64(o.x, "ledger x", this.dim));
    p.ids = (o.arms as string[]).slice();
    p.probs.set(probs);
    p.aux.set(decodeF64(o.aux, "ledger aux", probs.length * this.auxPerArm));
    return p;
  }
  dispose(p: RoutePayload): void {
    this.pool.release(p);
  }
}

/**
 * Validates a snapshot's pending decision (`json`, as a router's snapshot holds it) and returns its arm uid:
 * SNAPSHOT_CORRUPT when `json` is no such payload. `dim` (the query length) must be an integer in [1, 65536] and
 * `auxPerArm` (decision-time numbers per model) an integer >= 0 (INVALID_ARGUMENT, NON_FINITE, OUT_OF_RANGE).
 */
export function checkRoutePayload(json: Json, dim: number, auxPerArm: number): number {
  const d = checkNumber(dim, "dim", { integer: true, min: 1, max: MAX_CONTEXT_DIM });
  const aux = checkNumber(auxPerArm, "auxPerArm", { integer: true, min: 0 });
  return checkRoutePayloadUnchecked(json, d, aux);
}

/**
 * INVALID_EVENT for a logged event's decision.state (`checkEventDecision`). Module-level, as is the probs
 * failure below, rather than closures made per event (the builds keep names, which would also wrap such a
 * closure in a `__name` call).
 */
function badEventState(what: string): never {
  throw new RouteKitError(ErrorCode.InvalidEvent, `event decision.state.${what}`);
}

function badEventProbs(): never {
  return badEventState("probs must be a probability distribution (>= 0, sum 1)");
}

/**
 * Base of the routers: subclasses compute the distribution (`distribution`) and apply one round of
 * feedback to every model (`learnRound`).
 */
export abstract class RouterBase<S extends ArmState> extends ArmPolicyBase<S, RoutePayload> {
  readonly normalizeContext: boolean;
  readonly clipRewards: boolean;
  /** Decision-time numbers kept per model in the pending decision and the event. */
  protected readonly auxPerArm: number;
  private readonly codec: RouteCodec;
  /** Distribution and aux of the current select, in table order. */
  protected probs = new Float64Array(8);
  protected auxNow = new Float64Array(8);
  /** The query scaled for use (unit norm when normalizeContext). */
  protected readonly q: Float64Array;
  private idsCache: readonly string[] = [];
  private idsCacheSize = -1;

  protected constructor(options: RouterOptions, auxPerArm: number, what: string) {
    const o = readOptions(options, what);
    const d = o.contextDim;
    const codec = new RouteCodec(typeof d === "number" && Number.isInteger(d) && d >= 0 ? d : 0, auxPerArm);
    super(options, codec, 0, what);
    if (this.contextDim < 1) {
      // Missing is INVALID_ARGUMENT; a given 0 is a number outside its range (the error-code rule).
      throw new RouteKitError(
        d === undefined ? ErrorCode.InvalidArgument : ErrorCode.OutOfRange,
        `${what} needs option contextDim (the query embedding length, >= 1)${d === undefined ? "" : `, got ${d}`}`,
      );
    }
    this.codec = codec;
    this.auxPerArm = auxPerArm;
    this.normalizeContext = booleanOption(o, "normalizeContext", false);
    this.clipRewards = booleanOption(o, "clipRewards", true);
    // In WebAssembly memory, so the per-model score products B q need no staging copy.
    this.q = allocF64(this.contextDim);
  }

  /**
   * The routing distribution select(context) samples from, in `arms` order (a new array). Pure: no
   * randomness is drawn and nothing changes.
   */
  probabilities(context: VectorInput): Float64Array {
    this.table.checkNotEmpty();
    const x = this.readContext(context, "context");
    this.prepareQuery(x, false);
    const k = this.table.size;
    this.ensureScratch(k);
    this.distribution(this.q, this.probs, this.auxNow);
    return this.probs.slice(0, k);
  }

  protected choose(context: Float64Array | undefined): ArmDecision {
    const x = context as Float64Array;
    this.prepareQuery(x, false);
    const k = this.table.size;
    this.ensureScratch(k);
    const probs = this.probs;
    this.distribution(this.q, probs, this.auxNow);
    let u = this.rng.uniform();
    let pick = -1;
    for (let i = 0; i < k; i++) {
      const p = probs[i] as number;
      if (p > 0) pick = i;
      u -= p;
      if (u < 0 && p > 0) break;
    }
    if (pick < 0) throw new RouteKitError(ErrorCode.Numerical, "the routing distribution has no positive entry");
    const payload = this.codec.acquire(k);
    payload.uid = (this.table.states[pick] as S).uid;
    payload.chosen = pick;
    payload.x.set(x);
    payload.ids = this.liveIds();
    payload.probs.set(probs.subarray(0, k));
    if (this.auxPerArm > 0) payload.aux.set(this.auxNow.subarray(0, k * this.auxPerArm));
    return { id: this.ledger.issue(payload), arm: this.table.ids[pick] as string, propensity: probs[pick] as number };
  }

  protected applyFeedback(_state: S, p: RoutePayload, feedback: ArmFeedback): void {
    const r = feedback.reward;
    const reward = r > 1 ? 1 : r < -1 ? -1 : r;
    this.prepareQuery(p.x, false);
    this.learnRound(p, this.q, reward);
  }

  protected override checkReward(r: number): void {
    if (!this.clipRewards && (r < -1 || r > 1)) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `feedback.reward must be in [-1, 1] when clipRewards is false, got ${r}`,
      );
    }
  }

  protected uidOf(p: RoutePayload): number {
    return p.uid;
  }

  protected override eventContext(p: RoutePayload): number[] {
    return vectorToJson(p.x, this.contextDim);
  }

  protected override eventPropensity(p: RoutePayload): number {
    return p.probs[p.chosen] as number;
  }

  protected override eventState(p: RoutePayload): Json {
    const st: Record<string, Json> = { arms: [...p.ids], probs: vectorToJson(p.probs, p.n) };
    if (this.auxPerArm > 0) st.aux = vectorToJson(p.aux, p.n * this.auxPerArm);
    return st;
  }

  /**
   * The event's query norm and its decision.state (the routing distribution over the models live at decision time,
   * the chosen model among them with a positive probability equal to the propensity, and the aux numbers) need no
   * model's learned state: they are checked for every event, whatever model it names.
   */
  protected override checkEventDecision(event: ArmEvent, context: Float64Array | undefined): void {
    this.prepareQuery(context as Float64Array, true);
    const st = event.decision.state;
    if (st === undefined || st === null || typeof st !== "object" || Array.isArray(st)) {
      missingEventState(this.kind, "arms and decision.state.probs (the routing distribution)");
    }
    const s = st as Record<string, Json>;
    if (s.arms === undefined || s.probs === undefined) missingEventState(this.kind, "arms and probs");
    const arms = s.arms;
    const probs = s.probs;
    if (!Array.isArray(arms) || arms.length === 0 || arms.some((a) => typeof a !== "string" || a === "")) {
      badEventState("arms must be a non-empty array of model ids");
    }
    const ids = arms as string[];
    if (new Set(ids).size !== ids.length) badEventState("arms must not repeat a model id");
    const n = ids.length;
    if (!Array.isArray(probs) || probs.length !== n) badEventState(`probs must hold ${n} numbers (one per arm)`);
    checkDistribution(probs as number[], n, badEventProbs);
    const chosen = ids.indexOf(event.decision.arm);
    if (chosen < 0) badEventState("arms must include the chosen arm");
    // The two copies of the chosen arm's probability must agree: the update uses probs, an off-policy estimate
    // the propensity, so an event where they differ would be learned and evaluated as two different decisions.
    // A router writes both from one double (a JSON round trip keeps it); 1e-9 relative allows a log that rounded.
    const logged = event.decision.propensity;
    const pc = (probs as number[])[chosen] as number;
    // A router only picks an arm it gives a positive probability; a 0 here would make an importance-weighted update
    // divide by 0 (EXP3 learned 0/0 for reward -1 and capped that arm's log weight at 1e300).
    if (!(pc > 0)) {
      throw new RouteKitError(
        ErrorCode.InvalidEvent,
        `event decision.state.probs gives the chosen arm "${event.decision.arm}" probability ${pc}: a routed arm has a positive probability`,
      );
    }
    if (logged !== undefined && !(Math.abs(logged - pc) <= 1e-9 * Math.max(logged, pc))) {
      throw new RouteKitError(
        ErrorCode.InvalidEvent,
        `event decision.propensity (${logged}) must equal decision.state.probs of the chosen arm (${pc})`,
      );
    }
    if (this.auxPerArm > 0) {
      if (s.aux === undefined) missingEventState(this.kind, "aux");
      if (
        !Array.isArray(s.aux) ||
        s.aux.length !== n * this.auxPerArm ||
        s.aux.some((v) => typeof v !== "number" || !Number.isFinite(v))
      ) {
        badEventState(`aux must hold ${n * this.auxPerArm} finite numbers`);
      }
    }
  }

  /** The payload of an event `checkEventDecision` accepted (its decision.state is read as checked there). */
  protected payloadFromEvent(event: ArmEvent, state: S, context: Float64Array | undefined): RoutePayload {
    const s = event.decision.state as Record<string, Json>;
    const ids = s.arms as string[];
    const probs = s.probs as number[];
    const n = ids.length;
    const p = this.codec.acquire(n);
    p.uid = state.uid;
    p.chosen = ids.indexOf(event.decision.arm);
    p.x.set(context as Float64Array);
    p.ids = ids.slice();
    for (let i = 0; i < n; i++) p.probs[i] = probs[i] as number;
    if (this.auxPerArm > 0) {
      const aux = s.aux as number[];
      for (let i = 0; i < aux.length; i++) p.aux[i] = aux[i] as number;
    }
    return p;
  }

  protected override releaseEventPayload(p: RoutePayload): void {
    this.codec.dispose(p);
  }

  /** The live model ids as a shared frozen array (rebuilt when the arms change). */
  private liveIds(): readonly string[] {
    const ids = this.table.ids;
    const cache = this.idsCache;
    if (this.idsCacheSize === ids.length && cache.every((v, i) => v === ids[i])) return cache;
    this.idsCache = Object.freeze([...ids]);
    this.idsCacheSize = ids.length;
    return this.idsCache;
  }

  /** Writes the query to use into `this.q`; rejects unusable norms (INVALID_EVENT from events). */
  private prepareQuery(x: ArrayLike<number>, fromEvent: boolean): void {
    const d = this.contextDim;
    let nn = 0;
    for (let i = 0; i < d; i++) nn += (x[i] as number) * (x[i] as number);
    const code = fromEvent ? ErrorCode.InvalidEvent : ErrorCode.OutOfRange;
    if (this.normalizeContext) {
      if (nn > 1e-280 && nn < Number.POSITIVE_INFINITY) {
        const inv = 1 / Math.sqrt(nn);
        for (let i = 0; i < d; i++) this.q[i] = (x[i] as number) * inv;
        return;
      }
      // The squared norm under- or overflowed (entries near 1e-150 or 1e155): divide by the largest entry first.
      let mx = 0;
      for (let i = 0; i < d; i++) mx = Math.max(mx, Math.abs(x[i] as number));
      if (!(mx > 0) || !Number.isFinite(mx)) {
        throw new RouteKitError(code, "the query embedding must be non-zero with a finite norm to be normalised");
      }
      let ss = 0;
      for (let i = 0; i < d; i++) ss += ((x[i] as number) / mx) ** 2;
      const norm = Math.sqrt(ss);
      for (let i = 0; i < d; i++) this.q[i] = (x[i] as number) / mx / norm;
      return;
    }
    if (!(nn <= (1 + FLOAT32_NORM_TOL) ** 2)) {
      throw new RouteKitError(
        code,
        `the query embedding must have Euclidean norm <= 1, got ${Math.sqrt(nn)} (normalise it, or set normalizeContext: true)`,
      );
    }
    if (nn <= (1 + NORM_TOL) ** 2) for (let i = 0; i < d; i++) this.q[i] = x[i] as number;
    else {
      // Within a float32 normalisation's rounding of the sphere: scaled onto it, so |q| <= 1 (+1e-15) holds as
      // the analysis and the e^(2 tau) bound assume. (Only inputs that were refused before take this branch.)
      const s = 1 / Math.sqrt(nn);
      for (let i = 0; i < d; i++) this.q[i] = (x[i] as number) * s;
    }
  }

  private ensureScratch(k: number): void {
    if (this.probs.length < k) this.probs = new Float64Array(2 * k);
    if (this.auxNow.length < k * this.auxPerArm) this.auxNow = new Float64Array(2 * k * this.auxPerArm);
  }

  // ------------------------------------------------------------ subclass hooks

  /** Writes the routing distribution over the live models (table order) and their aux numbers. */
  protected abstract distribution(q: Float64Array, probs: Float64Array, aux: Float64Array): void;
  /**
   * Applies one round: the decision's distribution `p.probs` over `p.ids`, the chosen index `p.chosen`,
   * the query q (as used at decision time) and the clipped reward. Models no longer live are skipped.
   */
  protected abstract learnRound(p: RoutePayload, q: Float64Array, reward: number): void;

  /** Live state of the model with id `id`, if any. */
  protected live(id: string): S | undefined {
    return this.table.find(id);
  }
}

/**
 * Softmax of scores[0..k) into out[0..k) (max-shifted, so any finite scores give a distribution). `scores` is a
 * Float64Array, Float32Array or number[] of at least k finite numbers (INVALID_ARGUMENT, DIMENSION_MISMATCH,
 * NON_FINITE), `k` an integer >= 1 (OUT_OF_RANGE), `out` a Float64Array of at least k entries (INVALID_ARGUMENT,
 * DIMENSION_MISMATCH), which may be `scores` itself. Nothing is written when a check fails.
 */
export function softmaxInto(scores: Float64Array, k: number, out: Float64Array): void {
  checkNumber(k, "k", { integer: true, min: 1 });
  if (!(out instanceof Float64Array))
    throw new RouteKitError(ErrorCode.InvalidArgument, `out must be a Float64Array, got ${describe(out)}`);
  const { values } = readPrefix(scores, k, "scores", "k");
  if (out.length < k)
    throw new RouteKitError(ErrorCode.DimensionMismatch, `out has length ${out.length}, expected at least k = ${k}`, {
      expected: k,
      actual: out.length,
    });
  // An out overlapping the scores at another offset would be overwritten before it is read: read a copy.
  const shifted =
    values instanceof Float64Array && values.buffer === out.buffer && values.byteOffset !== out.byteOffset;
  softmaxIntoUnchecked(shifted ? values.slice(0, k) : values, k, out);
}

/**
 * Initial model count for the default step sizes: the length of `o.arms` (router options), at least 2. `o` must be
 * an object and `o.arms`, when present, an array (INVALID_ARGUMENT).
 */
export function initialModelCount(o: Record<string, unknown>): number {
  const opts = readOptions(o, "initialModelCount");
  const arms = opts.arms;
  if (arms !== undefined && !Array.isArray(arms))
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `options.arms must be an array of model ids, got ${describe(arms)}`,
    );
  // The length read once, a proxy whose length getter throws INVALID_ARGUMENT (its own Error escaped).
  return Math.max(2, arms === undefined ? 0 : readLength(arms, "options.arms"));
}
