import {
  type ArmEnvironment,
  type ArmFeedback,
  type ArmRound,
  assertFinite,
  assertInt,
  ErrorCode,
  type Rng,
  RouteKitError,
} from "@routekit/core";
import { rbfKernel } from "@routekit/linalg";

/** How one generation's score is drawn around its expected mean. */
export type ScoreNoise =
  | { readonly type: "gaussian"; readonly sd: number }
  | { readonly type: "bernoulli" }
  /** Uniform on +-(1 - |m|) (scores stay in [-1, 1]; the realizable instance of spec §3.6 item 9). */
  | { readonly type: "bounded" };

/** Prompt geometry: categories on the unit sphere (spec §3.6), or the Sudoku difficulty line. */
export type PromptLayout =
  | { readonly type: "categories"; readonly rho: number; readonly tau: number }
  /** blanks b ~ U{5..30}; y = normalize(c0 + lambda (b - 17.5)/12.5 u + tau z); category 0 if b > 15. */
  | { readonly type: "sudoku"; readonly lambda: number; readonly tau: number };

export interface PromptPoolConfig {
  readonly name: string;
  /** Embedding dimension d (512 CLIP-like, 768 RoBERTa-like). */
  readonly dim: number;
  /** Every arm that ever appears, in the order of `means` rows. */
  readonly arms: readonly string[];
  /** Category names (K of them). */
  readonly categories: readonly string[];
  /** means[g][k]: expected score of arm g on category k (before the per-prompt term). */
  readonly means: readonly (readonly number[])[];
  readonly layout: PromptLayout;
  /** Prompts in the fixed pool (default 1000, as in the reference code). */
  readonly poolSize?: number;
  /** Pre-drawn generations per (arm, prompt) (default 5, the paper's OPR protocol). */
  readonly generations?: number;
  readonly noise: ScoreNoise;
  /** Clip means and generated scores to [0, 1] (default true; off for `bounded` noise). */
  readonly clip?: boolean;
  /**
   * Smooth per-prompt term A f_g(y): f_g a random RBF(sigma) combination of `centers` pool prompts,
   * scaled to unit sup-norm over the pool (spec §3.6 item 4). Default none.
   */
  readonly perPrompt?: { readonly amplitude: number; readonly centers?: number; readonly sigma?: number };
  /**
   * Pure RKHS scores: m[g,i] = f_g(y_i) with ||f_g||_H <= `norm` (default 1), RBF(sigma) on
   * `centers` pool prompts (spec §3.6 item 9). Replaces `means` when given.
   */
  readonly realizable?: { readonly centers?: number; readonly sigma?: number; readonly norm?: number };
  /** Spreads the category means around their average by this factor (default 1 = as given). */
  readonly contrast?: number;
  /** Round (0-based) at which an arm appears; arms not listed are live from round 0. */
  readonly armArrivals?: Readonly<Record<string, number>>;
  /** Round at which each category starts to be drawn (default all 0). */
  readonly categoryStarts?: readonly number[];
}

/**
 * The offline benchmark of spec §3.6: a fixed pool of prompts on the unit sphere with category
 * structure, a pre-drawn table of `generations` scores per (arm, prompt), and the expected means
 * for exact regret. Each round draws an active category uniformly, then a prompt of it uniformly;
 * pulling an arm returns one of its pre-drawn generations for that prompt, uniformly.
 *
 * - regret and O2B use the expected means m[g, i] (noise-free);
 * - OPR (`isOptimal`) uses the paper's protocol: the best arm by the mean of the 5 generations;
 * - the one-arm oracle is the live arm with the best mean over the active categories' prompts.
 *
 * Contexts come from the "contexts" fork and generation draws from the "feedback" fork of the
 * reset stream, so every policy run on one seed sees the same prompts. The returned context
 * buffer is reused: copy it if you keep it past the next round.
 */
export class PromptPoolEnvironment implements ArmEnvironment {
  readonly name: string;
  readonly contextDim: number;
  readonly initialArms: readonly string[];
  readonly config: PromptPoolConfig;
  private readonly G: number;
  private readonly K: number;
  private readonly perCat: number;
  private readonly N: number;
  private readonly R: number;
  private readonly armIndex = new Map<string, number>();
  private readonly arrival: Int32Array;
  private readonly catStart: Int32Array;
  /** N x d prompt embeddings. */
  prompts: Float64Array = new Float64Array(0);
  /** Category of each prompt. */
  category: Int32Array = new Int32Array(0);
  /** G x N expected means. */
  means: Float64Array = new Float64Array(0);
  /** G x N x R generated scores. */
  table: Float64Array = new Float64Array(0);
  /** G x N means of the R generations (the paper's OPR reference). */
  sampleMeans: Float64Array = new Float64Array(0);
  private ctxRng: Rng | undefined;
  private fbRng: Rng | undefined;
  private readonly context: Float64Array;
  private readonly live: boolean[];
  private t = -1;
  private prompt = 0;
  private bestFixed = 0;
  private bestFixedKey = "";
  private activeCats = 0;

  constructor(config: PromptPoolConfig) {
    const c = config;
    assertInt(c.dim, "dim", 1);
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
    const poolSize = c.poolSize ?? 1000;
    assertInt(poolSize, "poolSize", this.K);
    this.perCat = Math.floor(poolSize / this.K);
    this.N = this.perCat * this.K;
    this.R = c.generations ?? 5;
    assertInt(this.R, "generations", 1);
    this.config = c;
    this.name = c.name;
    this.contextDim = c.dim;
    c.arms.forEach((a, g) => {
      if (this.armIndex.has(a)) throw new RouteKitError(ErrorCode.DuplicateArm, `arm "${a}" is listed twice`);
      this.armIndex.set(a, g);
    });
    this.arrival = new Int32Array(this.G);
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
    this.catStart = Int32Array.from(starts);
    if (!this.catStart.some((s) => s === 0)) {
      throw new RouteKitError(ErrorCode.InvalidArgument, "at least one category must start at round 0");
    }
    this.context = new Float64Array(c.dim);
    this.live = c.arms.map(() => false);
  }

  /** Number of prompts in the pool. */
  get poolSize(): number {
    return this.N;
  }

  /** Index of the current round's prompt in the pool. */
  get currentPrompt(): number {
    return this.prompt;
  }

  /** Category index of the current round's prompt. */
  get currentCategory(): number {
    return this.category[this.prompt] as number;
  }

  reset(rng: Rng): void {
    const c = this.config;
    const d = c.dim;
    const N = this.N;
    const poolRng = rng.fork("pool");
    this.prompts = new Float64Array(N * d);
    this.category = new Int32Array(N);
    const c0 = gaussianVector(poolRng, d, 1 / Math.sqrt(d));
    if (c.layout.type === "categories") {
      const { rho, tau } = c.layout;
      const centroids: Float64Array[] = [];
      for (let k = 0; k < this.K; k++) {
        const u = gaussianVector(poolRng, d, 1 / Math.sqrt(d));
        for (let j = 0; j < d; j++) u[j] = (c0[j] as number) + rho * (u[j] as number);
        centroids.push(normalize(u));
      }
      for (let i = 0; i < N; i++) {
        const k = i % this.K;
        this.category[i] = k;
        const ck = centroids[k] as Float64Array;
        const row = i * d;
        for (let j = 0; j < d; j++) this.prompts[row + j] = (ck[j] as number) + (tau * poolRng.normal()) / Math.sqrt(d);
        normalizeRow(this.prompts, row, d);
      }
    } else {
      const { lambda, tau } = c.layout;
      const u = normalize(gaussianVector(poolRng, d, 1 / Math.sqrt(d)));
      for (let i = 0; i < N; i++) {
        const blanks = 5 + poolRng.int(26);
        this.category[i] = blanks > 15 ? 0 : 1;
        const s = (lambda * (blanks - 17.5)) / 12.5;
        const row = i * d;
        for (let j = 0; j < d; j++) {
          this.prompts[row + j] = (c0[j] as number) + s * (u[j] as number) + (tau * poolRng.normal()) / Math.sqrt(d);
        }
        normalizeRow(this.prompts, row, d);
      }
    }
    this.buildMeans(poolRng);
    this.buildTable(rng.fork("table"));
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

  private buildMeans(rng: Rng): void {
    const c = this.config;
    const G = this.G;
    const N = this.N;
    const d = c.dim;
    this.means = new Float64Array(G * N);
    const clip = c.clip ?? c.noise.type !== "bounded";
    if (c.realizable) {
      const J = c.realizable.centers ?? 20;
      const sigma = c.realizable.sigma ?? 1;
      const norm = c.realizable.norm ?? 1;
      for (let g = 0; g < G; g++) {
        const f = rkhsFunction(this.prompts, d, N, J, sigma, norm, rng);
        for (let i = 0; i < N; i++) this.means[g * N + i] = f(this.prompts, i * d);
      }
      return;
    }
    const contrast = c.contrast ?? 1;
    let avg = 0;
    for (const r of c.means) for (const m of r) avg += m;
    avg /= G * this.K;
    for (let g = 0; g < G; g++) {
      const row = c.means[g] as readonly number[];
      for (let i = 0; i < N; i++) {
        const m = row[this.category[i] as number] as number;
        this.means[g * N + i] = avg + contrast * (m - avg);
      }
    }
    if (c.perPrompt && c.perPrompt.amplitude !== 0) {
      const J = c.perPrompt.centers ?? 20;
      const sigma = c.perPrompt.sigma ?? 1;
      for (let g = 0; g < G; g++) {
        const f = rkhsFunction(this.prompts, d, N, J, sigma, 1, rng);
        let sup = 0;
        const vals = new Float64Array(N);
        for (let i = 0; i < N; i++) {
          vals[i] = f(this.prompts, i * d);
          sup = Math.max(sup, Math.abs(vals[i] as number));
        }
        const s = sup > 0 ? c.perPrompt.amplitude / sup : 0;
        for (let i = 0; i < N; i++) this.means[g * N + i] = (this.means[g * N + i] as number) + s * (vals[i] as number);
      }
    }
    if (clip) for (let i = 0; i < this.means.length; i++) this.means[i] = clamp01(this.means[i] as number);
  }

  private buildTable(rng: Rng): void {
    const c = this.config;
    const G = this.G;
    const N = this.N;
    const R = this.R;
    const clip = c.clip ?? c.noise.type !== "bounded";
    this.table = new Float64Array(G * N * R);
    this.sampleMeans = new Float64Array(G * N);
    for (let g = 0; g < G; g++) {
      for (let i = 0; i < N; i++) {
        const m = this.means[g * N + i] as number;
        let sum = 0;
        for (let r = 0; r < R; r++) {
          let s: number;
          if (c.noise.type === "gaussian") s = m + c.noise.sd * rng.normal();
          else if (c.noise.type === "bernoulli") s = rng.uniform() < m ? 1 : 0;
          else {
            const w = 1 - Math.abs(m);
            s = m + rng.uniformIn(-w, w);
          }
          if (clip) s = clamp01(s);
          this.table[(g * N + i) * R + r] = s;
          sum += s;
        }
        this.sampleMeans[g * N + i] = sum / R;
      }
    }
  }

  next(t: number): ArmRound {
    if (this.ctxRng === undefined) throw new RouteKitError(ErrorCode.InvalidState, "call reset(rng) before next()");
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
    let pickCat = this.ctxRng.int(active);
    let k = 0;
    for (; k < this.K; k++) {
      if ((this.catStart[k] as number) <= t) {
        if (pickCat === 0) break;
        pickCat--;
      }
    }
    this.prompt = this.ctxRng.int(this.perCat) * this.K + k;
    if (this.config.layout.type === "sudoku") this.prompt = this.ctxRng.int(this.N);
    const d = this.contextDim;
    const row = this.prompt * d;
    for (let j = 0; j < d; j++) this.context[j] = this.prompts[row + j] as number;
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
    return this.means[this.g(arm) * this.N + this.prompt] as number;
  }

  expectedCost(_arm: string): number {
    return 0;
  }

  oracleReward(): number {
    let best = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < this.G; g++) {
      if (this.live[g]) best = Math.max(best, this.means[g * this.N + this.prompt] as number);
    }
    return best;
  }

  /** The live arm with the best 5-generation mean on this prompt (the paper's OPR reference). */
  isOptimal(arm: string): boolean {
    const g0 = this.g(arm);
    let best = Number.NEGATIVE_INFINITY;
    for (let g = 0; g < this.G; g++) {
      if (this.live[g]) best = Math.max(best, this.sampleMeans[g * this.N + this.prompt] as number);
    }
    return (this.sampleMeans[g0 * this.N + this.prompt] as number) >= best - 1e-12;
  }

  bestFixedArm(): string {
    return this.config.arms[this.bestFixedIndex()] as string;
  }

  bestFixedReward(): number {
    return this.means[this.bestFixedIndex() * this.N + this.prompt] as number;
  }

  /** Best live arm on average over the active categories' prompts (recomputed when either changes). */
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
    const g = this.g(arm);
    const r = (this.fbRng as Rng).int(this.R);
    return { reward: this.table[(g * this.N + this.prompt) * this.R + r] as number };
  }
}

/**
 * A random function of an RKHS: f(y) = sum_j c_j k(y, z_j) with z_j drawn from the pool and
 * c ~ N(0, I) rescaled so that ||f||_H = sqrt(c^T K_z c) = `norm`. Returns an evaluator on rows of
 * a row-major matrix.
 */
export function rkhsFunction(
  pool: Float64Array,
  d: number,
  n: number,
  centers: number,
  sigma: number,
  norm: number,
  rng: Rng,
): (x: Float64Array, xo: number) => number {
  const k = rbfKernel(sigma);
  const J = Math.min(centers, n);
  const z = new Float64Array(J * d);
  for (let j = 0; j < J; j++) {
    const i = rng.int(n);
    z.set(pool.subarray(i * d, i * d + d), j * d);
  }
  const c = new Float64Array(J);
  for (let j = 0; j < J; j++) c[j] = rng.normal();
  let h2 = 0;
  for (let a = 0; a < J; a++) {
    for (let b = 0; b < J; b++) h2 += (c[a] as number) * (c[b] as number) * k.eval(z, z, d, a * d, b * d);
  }
  const s = h2 > 0 ? norm / Math.sqrt(h2) : 0;
  for (let j = 0; j < J; j++) c[j] = (c[j] as number) * s;
  return (x, xo) => {
    let f = 0;
    for (let j = 0; j < J; j++) f += (c[j] as number) * k.eval(x, z, d, xo, j * d);
    return f;
  };
}

function gaussianVector(rng: Rng, d: number, sd: number): Float64Array {
  const v = new Float64Array(d);
  for (let i = 0; i < d; i++) v[i] = sd * rng.normal();
  return v;
}

function normalize(v: Float64Array): Float64Array {
  normalizeRow(v, 0, v.length);
  return v;
}

function normalizeRow(a: Float64Array, off: number, d: number): void {
  let s = 0;
  for (let j = 0; j < d; j++) s += (a[off + j] as number) ** 2;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let j = 0; j < d; j++) a[off + j] = (a[off + j] as number) * inv;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
