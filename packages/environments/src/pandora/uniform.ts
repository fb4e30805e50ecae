/**
 * Cascade environments with uniform answer quality and a linear reservation index (the closed-form
 * "Env-A" of the COSMOS implementation notes, and an LLM-cascade preset built the same way).
 *
 * Context x ~ U[-1, 1]^dx, psi(x) = (1, x). Box a's output omega = (q, nuisance..., len): quality
 * q ~ U[l_a(x), l_a(x) + w_a] with l_a(x) = L_a . psi(x), nuisance embedding coordinates ~ U[-1/2, 1/2],
 * a length len ~ U[0, 1]. Reward mu* = min(q, 1) (phi = omega, theta* = e_1, identity link, clipped at 1),
 * observed as r ~ Bernoulli(mu*). Cost c = cbar_a (0.5 + len), so E[c | x] = cbar_a. When
 * cbar_a <= w_a / 2 and l_a + w_a <= 1 the reservation index is l_a(x) + w_a - sqrt(2 w_a cbar_a): exactly
 * linear in psi(x), rho_a = L_a + (w_a - sqrt(2 w_a cbar_a)) e_1. Where a quality range passes 1 the clip
 * lowers the true index slightly; the oracle uses the exact index of the clipped reward.
 */
import {
  assertInt,
  ErrorCode,
  optionKeys,
  type Rng,
  RouteKitError,
  readOptions,
  rejectUnknownOptions,
} from "@routekit/core";
import { CascadeEnvironmentBase, checkArms } from "./base.js";

export interface UniformBox {
  /** Coefficients of the quality floor l_a(x) = L . (1, x); length contextDim + 1. */
  readonly floor: readonly number[];
  /** Width w_a of the quality range. */
  readonly width: number;
  /** Mean cost cbar_a in (0, 2/3) (realised costs cbar (0.5 + len) stay below 1). */
  readonly meanCost: number;
}

/** The option keys of {@link UniformBox}. */
export const UNIFORM_BOX_KEYS = optionKeys<UniformBox>()(["floor", "width", "meanCost"]);

export interface UniformCascadeOptions {
  readonly boxes: readonly UniformBox[];
  /** Box ids (default "box1".."boxA"). */
  readonly arms?: readonly string[];
  /** Context dimension dx (default: floor length - 1). */
  readonly contextDim?: number;
  /** Nuisance coordinates in each output (default 2). */
  readonly nuisance?: number;
  readonly name?: string;
}

/** The option keys of {@link UniformCascadeOptions}. */
export const UNIFORM_CASCADE_OPTION_KEYS = optionKeys<UniformCascadeOptions>()([
  "boxes",
  "arms",
  "contextDim",
  "nuisance",
  "name",
]);

/** E[(clip(U, 0, 1) - s)^+] for U ~ U[lo, hi] (hi > lo). */
export function clippedUniformExcess(lo: number, hi: number, s: number): number {
  const w = hi - lo;
  let e = 0;
  if (lo < 0 && s < 0) e += -s * (Math.min(hi, 0) - lo);
  const a = Math.max(lo, 0);
  const b = Math.min(hi, 1);
  if (b > a) {
    const pb = Math.max(b - s, 0);
    const pa = Math.max(a - s, 0);
    e += (pb * pb - pa * pa) / 2;
  }
  if (hi > 1 && s < 1) e += (1 - s) * (hi - Math.max(lo, 1));
  return e / w;
}

/** Reservation index of min(max(U, 0), 1) for U ~ U[lo, lo + w] with mean cost c. */
export function clippedUniformIndex(lo: number, w: number, c: number): number {
  const hi = lo + w;
  if (lo >= 0 && hi <= 1) return c <= w / 2 ? hi - Math.sqrt(2 * w * c) : lo + w / 2 - c;
  let a = -2;
  let b = 1;
  for (let i = 0; i < 200 && b - a > 1e-15; i++) {
    const mid = 0.5 * (a + b);
    if (clippedUniformExcess(lo, hi, mid) > c) a = mid;
    else b = mid;
  }
  return 0.5 * (a + b);
}

export class UniformCascadeEnvironment extends CascadeEnvironmentBase {
  readonly name: string;
  readonly indexLink = "linear" as const;
  readonly rewardLink = "identity" as const;
  readonly boxes: readonly UniformBox[];
  readonly nuisance: number;

  constructor(options: UniformCascadeOptions) {
    rejectUnknownOptions(options, UNIFORM_CASCADE_OPTION_KEYS, "UniformCascadeEnvironment");
    const boxes = readOptions(options, "UniformCascadeEnvironment").boxes as UniformBox[];
    if (!Array.isArray(boxes) || boxes.length === 0)
      throw new RouteKitError(ErrorCode.InvalidArgument, "boxes must be a non-empty array");
    for (const [i, b] of boxes.entries()) {
      if (b === null || typeof b !== "object" || !Array.isArray((b as UniformBox).floor))
        throw new RouteKitError(ErrorCode.InvalidArgument, `boxes[${i}] must be an object { floor, width, meanCost }`);
      rejectUnknownOptions(b, UNIFORM_BOX_KEYS, `boxes[${i}]`);
    }
    const dx = options.contextDim ?? (boxes[0] as UniformBox).floor.length - 1;
    assertInt(dx, "contextDim", 1, 1024);
    const nuisance = options.nuisance ?? 2;
    assertInt(nuisance, "nuisance", 0, 1024);
    for (const [i, b] of boxes.entries()) {
      if (!Array.isArray(b.floor) || b.floor.length !== dx + 1 || !b.floor.every(Number.isFinite))
        throw new RouteKitError(ErrorCode.DimensionMismatch, `boxes[${i}].floor must hold ${dx + 1} finite numbers`);
      if (!(b.width > 0 && b.width <= 2))
        throw new RouteKitError(ErrorCode.OutOfRange, `boxes[${i}].width must be in (0, 2]`);
      if (!(b.meanCost > 0 && b.meanCost < 2 / 3))
        throw new RouteKitError(ErrorCode.OutOfRange, `boxes[${i}].meanCost must be in (0, 2/3)`);
    }
    const arms = checkArms(
      options.arms,
      boxes.map((_, i) => `box${i + 1}`),
    );
    super(arms, dx, 2 + nuisance);
    this.boxes = boxes.map((b) => ({ floor: [...b.floor], width: b.width, meanCost: b.meanCost }));
    this.nuisance = nuisance;
    this.name = options.name ?? `uniform-cascade(A=${boxes.length},dx=${dx})`;
  }

  /** The linear index parameter rho_a = L_a + (w_a - sqrt(2 w_a cbar_a)) e_1 per box (exact where no clip binds). */
  indexParameters(): number[][] {
    return this.boxes.map((b) => {
      const r = [...b.floor];
      r[0] = (r[0] as number) + b.width - Math.sqrt(2 * b.width * b.meanCost);
      return r;
    });
  }

  /** The reward parameter theta* = e_1 over the output features (identity link, clipped to [0, 1]). */
  rewardParameter(): number[] {
    const t = new Array<number>(this.outputDim).fill(0);
    t[0] = 1;
    return t;
  }

  protected drawContext(rng: Rng): void {
    for (let i = 0; i < this.contextDim; i++) this.context[i] = rng.uniformIn(-1, 1);
  }

  protected drawOutputs(rng: Rng): void {
    const psi = this.psi;
    for (let a = 0; a < this.boxes.length; a++) {
      const b = this.boxes[a] as UniformBox;
      let lo = 0;
      for (let k = 0; k < psi.length; k++) lo += (b.floor[k] as number) * (psi[k] as number);
      const f = this.features[a] as Float64Array;
      const q = lo + b.width * rng.uniform();
      f[0] = q;
      for (let k = 0; k < this.nuisance; k++) f[1 + k] = rng.uniform() - 0.5;
      const len = rng.uniform();
      f[1 + this.nuisance] = len;
      this.rewards[a] = q < 0 ? 0 : q > 1 ? 1 : q;
      this.costs[a] = b.meanCost * (0.5 + len);
      this.meanCosts[a] = b.meanCost;
      this.meanRewards[a] = clippedUniformExcess(lo, lo + b.width, 0);
      this.indices[a] = clippedUniformIndex(lo, b.width, b.meanCost);
    }
  }
}

/**
 * Env-A: dx = 2, three boxes (a cheap high-variance API, a mid one, an expensive strong one):
 * L = (0.10, 0.10, 0), w = 0.80, cbar = 0.01; L = (0.30, 0, 0.15), w = 0.55, cbar = 0.04;
 * L = (0.55, 0.05, -0.05), w = 0.40, cbar = 0.12.
 */
/** Options of the preset environments: their arm ids and name. */
export interface PresetCascadeOptions {
  arms?: readonly string[];
  name?: string;
}

/** The keys of {@link PresetCascadeOptions}. */
export const PRESET_CASCADE_OPTION_KEYS = optionKeys<PresetCascadeOptions>()(["arms", "name"]);

export function envA(options: PresetCascadeOptions = {}): UniformCascadeEnvironment {
  rejectUnknownOptions(options, PRESET_CASCADE_OPTION_KEYS, "envA", true);
  return new UniformCascadeEnvironment({
    boxes: [
      { floor: [0.1, 0.1, 0], width: 0.8, meanCost: 0.01 },
      { floor: [0.3, 0, 0.15], width: 0.55, meanCost: 0.04 },
      { floor: [0.55, 0.05, -0.05], width: 0.4, meanCost: 0.12 },
    ],
    ...(options.arms ? { arms: options.arms } : {}),
    name: options.name ?? "pandora-env-a",
  });
}

/**
 * An LLM-cascade preset: three named models over a 3-dimensional prompt context
 * (x = (difficulty, domain shift, prompt length), each in [-1, 1]). "mini" is cheap and erratic and
 * degrades on hard prompts, "standard" is mid-priced, "frontier" is expensive, strong and steady.
 * Costs are in reward units (price per call times a conversion weight).
 */
export function llmCascadePreset(options: { name?: string } = {}): UniformCascadeEnvironment {
  rejectUnknownOptions(options, ["name"], "llmCascadePreset", true);
  return new UniformCascadeEnvironment({
    boxes: [
      { floor: [0.2, -0.1, 0.05, 0], width: 0.65, meanCost: 0.005 },
      { floor: [0.4, -0.08, -0.05, 0.02], width: 0.45, meanCost: 0.03 },
      { floor: [0.6, -0.02, 0.02, -0.02], width: 0.3, meanCost: 0.1 },
    ],
    arms: ["mini", "standard", "frontier"],
    name: options.name ?? "pandora-llm-cascade",
  });
}
