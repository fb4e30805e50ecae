import {
  type ArmEnvironment,
  type ArmFeedback,
  type ArmRound,
  assertFinite,
  assertInt,
  describe,
  ErrorCode,
  optionKeys,
  type Rng,
  RouteKitError,
  rejectUnknownOptions,
} from "@routekit/core";
import { ResetDrawCache, resetDrawKey } from "../reset-draw-cache.js";
import { checkPromptPoolConfig } from "./prompt-pool-check.js";
import { clamp01, type PromptLayout, PromptSpace, rkhsFunction } from "./prompt-space.js";

export { type PromptLayout, rkhsFunction } from "./prompt-space.js";

/** How one generation's score is drawn around its expected mean. */
export type ScoreNoise =
  | { readonly type: "gaussian"; readonly sd: number }
  | { readonly type: "bernoulli" }
  /** Uniform on +-(1 - |m|) (scores stay in [-1, 1]; a realizable RKHS instance). */
  | { readonly type: "bounded" };

/**
 * How prompts are drawn each round.
 * - `fresh`: a new prompt from the generator every round, with its own expected scores and its own
 *   `generations` scores per model; no prompt ever repeats. This is what the paper's learners are
 *   meant to do: generalise from the context of earlier prompts to an unseen one.
 * - `pool`: a fixed pool of `poolSize` prompts sampled with replacement, with a pre-drawn table of
 *   `generations` scores per (model, prompt), as in the paper's code benchmarks and its reference code.
 */
export type PromptSampling = "fresh" | "pool";

export interface PromptPoolConfig {
  readonly name: string;
  /** Embedding dimension d (512 CLIP-like, 768 RoBERTa-like). */
  readonly contextDim: number;
  /** Every arm that ever appears, in the order of `means` rows. */
  readonly arms: readonly string[];
  /** Category names (K of them). */
  readonly categories: readonly string[];
  /** means[g][k]: expected score of arm g on category k (before the per-prompt term). */
  readonly means: readonly (readonly number[])[];
  readonly layout: PromptLayout;
  /** Prompt sampling (default `pool`). */
  readonly sampling?: PromptSampling;
  /**
   * Prompts in the pool (default 1000, as in the reference code). In `fresh` mode this many prompts
   * are drawn once as a reference sample: it places the per-prompt functions' centres and decides the
   * best single model (the one-arm oracle); the rounds themselves never reuse them.
   */
  readonly poolSize?: number;
  /** Generations per (arm, prompt) (default 5, the paper's OPR protocol). */
  readonly generations?: number;
  readonly noise: ScoreNoise;
  /** Clip means and generated scores to [0, 1] (default true; off for `bounded` noise). */
  readonly clip?: boolean;
  /**
   * Smooth per-prompt term A f_g(y): f_g a random RBF(sigma) combination of `centers` reference
   * prompts, scaled to unit sup-norm over the reference prompts. Default none.
   */
  readonly perPrompt?: { readonly amplitude: number; readonly centers?: number; readonly sigma?: number };
  /**
   * Pure RKHS scores: m_g(y) = f_g(y) with ||f_g||_H <= `norm` (default 1), RBF(sigma) on `centers`
   * reference prompts. Replaces `means` when given.
   */
  readonly realizable?: { readonly centers?: number; readonly sigma?: number; readonly norm?: number };
  /** Spreads the category means around their average by this factor (default 1 = as given). */
  readonly contrast?: number;
  /** Round (0-based) at which an arm appears; arms not listed are live from round 0. */
  readonly armArrivals?: Readonly<Record<string, number>>;
  /** Round at which each category starts to be drawn (default all 0). */
  readonly categoryStarts?: readonly number[];
}

/** The option keys of {@link PromptPoolConfig}. */
export const PROMPT_POOL_CONFIG_KEYS = optionKeys<PromptPoolConfig>()([
  "name",
  "contextDim",
  "arms",
  "categories",
  "means",
  "layout",
  "sampling",
  "poolSize",
  "generations",
  "noise",
  "clip",
  "perPrompt",
  "realizable",
  "contrast",
  "armArrivals",
  "categoryStarts",
]);

/**
 * What a reset draws from its "pool" and "table" streams, kept so that resets with the same stream key and settings
 * (every policy of an experiment on one seed) draw it once: 1000 x 512 normals and the means on every pool prompt
 * are most of a short run's time. The environment never writes to any of it after the draw.
 */
interface PoolDraw {
  readonly space: PromptSpace;
  readonly armFns: ((x: Float64Array, xo: number) => number)[];
  readonly armScale: Float64Array;
  readonly catMean: Float64Array;
  /** Copied into each environment (public fields: a caller may write to them). */
  readonly prompts: Float64Array;
  readonly category: Int32Array;
  readonly means: Float64Array;
  readonly table: Float64Array;
  readonly sampleMeans: Float64Array;
  /** Approximate size, for the cache's budget. */
  readonly bytes: number;
}

/**
 * Bytes of draws kept: 16 seeds of a d = 512 pool of 1000 prompts. An experiment runs its policies one after another
 * on each seed, so it needs one draw per seed kept.
 */
const poolCache = new ResetDrawCache<PoolDraw>(64 * 1024 * 1024);

/**
 * Synthetic prompt-routing benchmark: prompts on the unit sphere with category structure, noisy
 * scores per model around expected means, and `generations` scores per (model, prompt). Each round
 * draws an active category uniformly, then a prompt of it (`pool`: uniformly from the pool;
 * `fresh`: a new one from the generator).
 *
 * - regret and O2B use the expected means (noise-free); `bestFixedRealised` gives the realised
 *   score the best single model would have got on the same generation draw (realised O2B);
 * - `isOptimal`: the pick has the best expected score; `isOptimalRealised`: the paper's OPR
 *   protocol, the best arm by the mean of the prompt's generations;
 * - the one-arm oracle is the live arm with the best mean over the active categories' (reference) prompts.
 *
 * Streams of the reset rng: "pool" (geometry, reference prompts, per-prompt functions), "table"
 * (pool-mode generations), "contexts" (which prompt each round; fresh prompts), "feedback" (which
 * generation is returned; fresh-mode generations). All of them are consumed in `next`, never in
 * `pull`, so every policy run on one seed sees the same prompts and the same scores. The returned
 * context buffer is reused: copy it if you keep it past the next round.
 *
 * What the "pool" and "table" streams draw depends only on the reset stream's key and the settings, so it is drawn
 * once and reused by later resets with the same key and settings, in this or another environment (the policies of
 * an experiment on one seed; up to 64 MB of draws are kept, the least recently used dropped first). Each
 * environment still gets its own copy of `prompts`, `category`, `means`, `table` and `sampleMeans`.
 */
export class PromptPoolEnvironment implements ArmEnvironment {
  readonly name: string;
  readonly contextDim: number;
  readonly initialArms: readonly string[];
  readonly config: PromptPoolConfig;
  readonly sampling: PromptSampling;
  private readonly G: number;
  private readonly K: number;
  private readonly perCat: number;
  private readonly N: number;
  private readonly R: number;
  private readonly clip: boolean;
  private readonly armIndex = new Map<string, number>();
  /** Rounds, as Float64Arrays: an Int32Array wrapped a round past 2^31 (2^32 became 0, live from the start). */
  private readonly arrival: Float64Array;
  private readonly catStart: Float64Array;
  /** N x d prompt embeddings (the pool; in fresh mode the reference sample). */
  prompts: Float64Array = new Float64Array(0);
  /** Category of each pool prompt. */
  category: Int32Array = new Int32Array(0);
  /** G x N expected means on the pool prompts. */
  means: Float64Array = new Float64Array(0);
  /** G x N x R generated scores (pool mode only; empty in fresh mode). */
  table: Float64Array = new Float64Array(0);
  /** G x N means of the R generations (pool mode only). */
  sampleMeans: Float64Array = new Float64Array(0);
  private space: PromptSpace | undefined;
  private armFns: ((x: Float64Array, xo: number) => number)[] = [];
  private armScale: Float64Array = new Float64Array(0);
  private catMean: Float64Array = new Float64Array(0);
  private ctxRng: Rng | undefined;
  private fbRng: Rng | undefined;
  private readonly context: Float64Array;
  private readonly live: boolean[];
  /** This round's expected mean, generation mean and realised (returned) score per arm. */
  private readonly roundMean: Float64Array;
  private readonly roundSample: Float64Array;
  private readonly roundScore: Float64Array;
  /** Pool mode: which pool prompts this run has drawn so far. */
  private seen = new Uint8Array(0);
  private repeat = false;
  private t = -1;
  private prompt = 0;
  private cat = 0;
  private bestFixed = 0;
  private bestFixedKey = "";
  private activeCats = 0;

  constructor(config: PromptPoolConfig) {
    rejectUnknownOptions(config, PROMPT_POOL_CONFIG_KEYS, "PromptPoolEnvironment");
    checkPromptPoolConfig(config);
    // A frozen copy of what was checked: the draws read it at every reset, and the caller's object could change.
    const c = frozenCopy(config);
    assertInt(c.contextDim, "contextDim", 1);
    this.G = c.arms.length;
    this.K = c.categories.length;
    if (this.G < 1 || this.K < 1)
      throw new RouteKitError(ErrorCode.InvalidArgument, "need at least one arm and one category");
    if (!c.realizable) {
      if (c.means.length !== this.G || c.means.some((r) => r.length !== this.K)) {
        throw new RouteKitError(ErrorCode.DimensionMismatch, `means must be ${this.G} x ${this.K} (arms x categories)`);
      }
      for (const r of c.means) for (const m of r) assertFinite(m, "means entry");
    }
    const sampling = c.sampling ?? "pool";
    if (sampling !== "fresh" && sampling !== "pool") {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `sampling must be "fresh" or "pool", got ${describe(sampling)}`,
      );
    }
    this.sampling = sampling;
    const poolSize = c.poolSize ?? 1000;
    assertInt(poolSize, "poolSize", this.K);
    this.perCat = Math.floor(poolSize / this.K);
    this.N = this.perCat * this.K;
    this.R = c.generations ?? 5;
    assertInt(this.R, "generations", 1);
    this.clip = c.clip ?? c.noise.type !== "bounded";
    this.config = c;
    this.name = c.name;
    this.contextDim = c.contextDim;
    c.arms.forEach((a, g) => {
      if (this.armIndex.has(a)) throw new RouteKitError(ErrorCode.DuplicateArm, `arm "${a}" is listed twice`);
      this.armIndex.set(a, g);
    });
    this.arrival = new Float64Array(this.G);
    for (const [a, t] of Object.entries(c.armArrivals ?? {})) {
      const g = this.armIndex.get(a);
      if (g === undefined) throw new RouteKitError(ErrorCode.UnknownArm, `armArrivals names unknown arm "${a}"`);
      assertInt(t, `armArrivals.${a}`, 0);
      this.arrival[g] = t;
    }
    this.initialArms = c.arms.filter((_, g) => this.arrival[g] === 0);
    if (this.initialArms.length === 0) throw new RouteKitError(ErrorCode.InvalidArgument, "no arm is live at round 0");
    const starts = c.categoryStarts ?? c.categories.map(() => 0);
    if (starts.length !== this.K) {
      throw new RouteKitError(ErrorCode.DimensionMismatch, `categoryStarts must have ${this.K} entries`);
    }
    this.catStart = Float64Array.from(starts);
    if (!this.catStart.some((s) => s === 0)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "at least one category must start at round 0");
    }
    this.context = new Float64Array(c.contextDim);
    this.live = c.arms.map(() => false);
    this.roundMean = new Float64Array(this.G);
    this.roundSample = new Float64Array(this.G);
    this.roundScore = new Float64Array(this.G);
  }

  /** Number of prompts in the pool (in fresh mode: in the reference sample). */
  get poolSize(): number {
    return this.N;
  }

  /** Generations per (arm, prompt). */
  get generations(): number {
    return this.R;
  }

  /** Index of the current round's prompt in the pool (-1 in fresh mode: the prompt is new). */
  get currentPrompt(): number {
    return this.sampling === "pool" ? this.prompt : -1;
  }

  /** Whether this round's prompt was already drawn in this run (never in fresh mode). */
  seenBefore(): boolean {
    return this.repeat;
  }

  /** Category index of the current round's prompt. */
  get currentCategory(): number {
    return this.cat;
  }

  reset(rng: Rng): void {
    const key = this.drawKey(rng);
    const drawn = key === undefined ? undefined : poolCache.get(key);
    if (drawn === undefined) {
      this.drawPool(rng);
      if (key !== undefined) {
        const copy = this.drawnCopy();
        poolCache.set(key, copy, copy.bytes);
      }
    } else {
      // The environment's public arrays are its own copies (a caller writing to them changes no other run).
      this.space = drawn.space;
      this.armFns = drawn.armFns;
      this.armScale = drawn.armScale;
      this.catMean = drawn.catMean;
      this.prompts = drawn.prompts.slice();
      this.category = drawn.category.slice();
      this.means = drawn.means.slice();
      this.table = drawn.table.slice();
      this.sampleMeans = drawn.sampleMeans.slice();
    }
    const N = this.N;
    this.seen = new Uint8Array(this.sampling === "pool" ? N : 0);
    this.repeat = false;
    this.ctxRng = rng.fork("contexts");
    this.fbRng = rng.fork("feedback");
    // State of round 0 before next(0), so bestFixedArm() works right after reset (the one-arm
    // oracle is built then).
    this.t = 0;
    this.bestFixedKey = "";
    for (let g = 0; g < this.G; g++) this.live[g] = this.arrival[g] === 0;
    this.activeCats = 0;
    for (let k = 0; k < this.K; k++) if ((this.catStart[k] as number) <= 0) this.activeCats++;
  }

  /**
   * Everything drawn from the "pool" and "table" streams: the prompt geometry, the pool (or reference sample), the
   * mean model, the expected means on the pool and the pool-mode generations.
   */
  private drawPool(rng: Rng): void {
    const c = this.config;
    const d = c.contextDim;
    const N = this.N;
    const poolRng = rng.fork("pool");
    const space = new PromptSpace(c.layout, d, this.K, poolRng);
    this.space = space;
    this.prompts = new Float64Array(N * d);
    this.category = new Int32Array(N);
    for (let i = 0; i < N; i++) this.category[i] = space.draw(poolRng, i % this.K, this.prompts, i * d);
    this.buildMeanModel(poolRng);
    this.means = new Float64Array(this.G * N);
    for (let g = 0; g < this.G; g++) {
      for (let i = 0; i < N; i++) {
        this.means[g * N + i] = this.meanAt(g, this.prompts, i * d, this.category[i] as number);
      }
    }
    if (this.sampling === "pool") this.buildTable(rng.fork("table"));
    else {
      this.table = new Float64Array(0);
      this.sampleMeans = new Float64Array(0);
    }
  }

  /** The cache key of what {@link PromptPoolEnvironment.drawPool} draws: the stream key and every setting it reads. */
  private drawKey(rng: Rng): string | undefined {
    return resetDrawKey(rng, {
      N: this.N,
      G: this.G,
      K: this.K,
      R: this.R,
      clip: this.clip,
      sampling: this.sampling,
      config: this.config,
    });
  }

  /** A copy of this reset's draw for the cache (the parts never written after the draw are shared, not copied). */
  private drawnCopy(): PoolDraw {
    const d = this.contextDim;
    const centers = this.config.realizable?.centers ?? this.config.perPrompt?.centers ?? 20;
    const arrays = [this.prompts, this.category, this.means, this.table, this.sampleMeans, this.armScale, this.catMean];
    let bytes = (this.K + 1 + this.armFns.length * (Math.min(centers, this.N) + 1)) * d * 8;
    for (const a of arrays) bytes += a.byteLength;
    return {
      space: this.space as PromptSpace,
      armFns: this.armFns,
      armScale: this.armScale,
      catMean: this.catMean,
      prompts: this.prompts.slice(),
      category: this.category.slice(),
      means: this.means.slice(),
      table: this.table.slice(),
      sampleMeans: this.sampleMeans.slice(),
      bytes,
    };
  }

  /** Category means (after contrast) and the per-arm per-prompt functions, from the reference prompts. */
  private buildMeanModel(rng: Rng): void {
    const c = this.config;
    const G = this.G;
    const N = this.N;
    const d = c.contextDim;
    this.armFns = [];
    this.armScale = new Float64Array(G);
    this.catMean = new Float64Array(G * this.K);
    if (c.realizable) {
      const J = c.realizable.centers ?? 20;
      const sigma = c.realizable.sigma ?? 1;
      const norm = c.realizable.norm ?? 1;
      for (let g = 0; g < G; g++) {
        this.armFns.push(rkhsFunction(this.prompts, d, N, J, sigma, norm, rng));
        this.armScale[g] = 1;
      }
      return;
    }
    const contrast = c.contrast ?? 1;
    let avg = 0;
    for (const r of c.means) for (const m of r) avg += m;
    avg /= G * this.K;
    for (let g = 0; g < G; g++) {
      for (let k = 0; k < this.K; k++) {
        this.catMean[g * this.K + k] = avg + contrast * (((c.means[g] as readonly number[])[k] as number) - avg);
      }
    }
    if (c.perPrompt && c.perPrompt.amplitude !== 0) {
      const J = c.perPrompt.centers ?? 20;
      const sigma = c.perPrompt.sigma ?? 1;
      for (let g = 0; g < G; g++) {
        const f = rkhsFunction(this.prompts, d, N, J, sigma, 1, rng);
        let sup = 0;
        for (let i = 0; i < N; i++) sup = Math.max(sup, Math.abs(f(this.prompts, i * d)));
        this.armFns.push(f);
        this.armScale[g] = sup > 0 ? c.perPrompt.amplitude / sup : 0;
      }
    }
  }

  /** Expected score of arm g on the prompt in row `off` of `x`, of category k. */
  private meanAt(g: number, x: Float64Array, off: number, k: number): number {
    const c = this.config;
    if (c.realizable) return (this.armFns[g] as (x: Float64Array, xo: number) => number)(x, off);
    let m = this.catMean[g * this.K + k] as number;
    const f = this.armFns[g];
    if (f) m += (this.armScale[g] as number) * f(x, off);
    return this.clip ? clamp01(m) : m;
  }

  private generate(m: number, rng: Rng): number {
    const noise = this.config.noise;
    let s: number;
    if (noise.type === "gaussian") s = m + noise.sd * rng.normal();
    else if (noise.type === "bernoulli") s = rng.uniform() < m ? 1 : 0;
    else {
      const w = 1 - Math.abs(m);
      s = m + rng.uniformIn(-w, w);
    }
    return this.clip ? clamp01(s) : s;
  }

  private buildTable(rng: Rng): void {
    const G = this.G;
    const N = this.N;
    const R = this.R;
    this.table = new Float64Array(G * N * R);
    this.sampleMeans = new Float64Array(G * N);
    for (let g = 0; g < G; g++) {
      for (let i = 0; i < N; i++) {
        const m = this.means[g * N + i] as number;
        let sum = 0;
        for (let r = 0; r < R; r++) {
          const s = this.generate(m, rng);
          this.table[(g * N + i) * R + r] = s;
          sum += s;
        }
        this.sampleMeans[g * N + i] = sum / R;
      }
    }
  }

  next(t: number): ArmRound {
    const ctx = this.ctxRng;
    const fb = this.fbRng as Rng;
    if (ctx === undefined) throw new RouteKitError(ErrorCode.InvalidState, "call reset(rng) before next()");
    this.t = t;
    let arrivals: string[] | undefined;
    for (let g = 0; g < this.G; g++) {
      if (!this.live[g] && (this.arrival[g] as number) <= t) {
        this.live[g] = true;
        if ((this.arrival[g] as number) > 0) (arrivals ??= []).push(this.config.arms[g] as string);
      }
    }
    let active = 0;
    for (let k = 0; k < this.K; k++) if ((this.catStart[k] as number) <= t) active++;
    this.activeCats = active;
    let pickCat = ctx.int(active);
    let k = 0;
    for (; k < this.K; k++) {
      if ((this.catStart[k] as number) <= t) {
        if (pickCat === 0) break;
        pickCat--;
      }
    }
    const d = this.contextDim;
    const G = this.G;
    const R = this.R;
    if (this.sampling === "pool") {
      this.prompt = ctx.int(this.perCat) * this.K + k;
      if (this.config.layout.type === "sudoku") this.prompt = ctx.int(this.N);
      const i = this.prompt;
      this.repeat = this.seen[i] === 1;
      this.seen[i] = 1;
      this.cat = this.category[i] as number;
      const row = i * d;
      for (let j = 0; j < d; j++) this.context[j] = this.prompts[row + j] as number;
      const r = fb.int(R);
      for (let g = 0; g < G; g++) {
        this.roundMean[g] = this.means[g * this.N + i] as number;
        this.roundSample[g] = this.sampleMeans[g * this.N + i] as number;
        this.roundScore[g] = this.table[(g * this.N + i) * R + r] as number;
      }
    } else {
      this.cat = (this.space as PromptSpace).draw(ctx, k, this.context, 0);
      const r = fb.int(R);
      for (let g = 0; g < G; g++) {
        const m = this.meanAt(g, this.context, 0, this.cat);
        this.roundMean[g] = m;
        let sum = 0;
        for (let q = 0; q < R; q++) {
          const s = this.generate(m, fb);
          if (q === r) this.roundScore[g] = s;
          sum += s;
        }
        this.roundSample[g] = sum / R;
      }
    }
    return arrivals ? { context: this.context, arrivals } : { context: this.context };
  }

  private g(arm: string): number {
    const g = this.armIndex.get(arm);
    if (g === undefined || !this.live[g]) {
      throw new RouteKitError(ErrorCode.UnknownArm, `arm "${arm}" is not live in ${this.name} at round ${this.t}`);
    }
    return g;
  }

  expectedReward(arm: string): number {
    return this.roundMean[this.g(arm)] as number;
  }

  expectedCost(_arm: string): number {
    return 0;
  }

  oracleReward(): number {
    let best = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < this.G; g++) if (this.live[g]) best = Math.max(best, this.roundMean[g] as number);
    return best;
  }

  /** The pick has the best expected score among the live arms this round. */
  isOptimal(arm: string): boolean {
    return (this.roundMean[this.g(arm)] as number) >= this.oracleReward() - 1e-12;
  }

  /** The paper's OPR protocol: the live arm with the best mean over this prompt's generations. */
  isOptimalRealised(arm: string): boolean {
    const g0 = this.g(arm);
    let best = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < this.G; g++) if (this.live[g]) best = Math.max(best, this.roundSample[g] as number);
    return (this.roundSample[g0] as number) >= best - 1e-12;
  }

  bestFixedArm(): string {
    return this.config.arms[this.bestFixedIndex()] as string;
  }

  bestFixedReward(): number {
    return this.roundMean[this.bestFixedIndex()] as number;
  }

  /** The score the best single model gets this round, on the same generation draw `pull` returns. */
  bestFixedRealised(): number {
    return this.roundScore[this.bestFixedIndex()] as number;
  }

  /** Best live arm on average over the active categories' pool prompts (recomputed when either changes). */
  private bestFixedIndex(): number {
    let key = `${this.activeCats}:`;
    for (let g = 0; g < this.G; g++) key += this.live[g] ? "1" : "0";
    if (key === this.bestFixedKey) return this.bestFixed;
    let best = -1;
    let bestV = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < this.G; g++) {
      if (!this.live[g]) continue;
      let s = 0;
      let n = 0;
      for (let i = 0; i < this.N; i++) {
        if ((this.catStart[this.category[i] as number] as number) > this.t) continue;
        s += this.means[g * this.N + i] as number;
        n++;
      }
      const v = s / Math.max(1, n);
      if (v > bestV) {
        bestV = v;
        best = g;
      }
    }
    this.bestFixed = best;
    this.bestFixedKey = key;
    return best;
  }

  pull(arm: string): ArmFeedback {
    return { reward: this.roundScore[this.g(arm)] as number };
  }
}

/** A deep copy of a checked configuration (plain data: numbers, strings, arrays, records), frozen. */
function frozenCopy<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> | unknown[] = Array.isArray(v) ? [] : {};
  for (const [k, x] of Object.entries(v)) (out as Record<string, unknown>)[k] = frozenCopy(x);
  return Object.freeze(out) as T;
}
