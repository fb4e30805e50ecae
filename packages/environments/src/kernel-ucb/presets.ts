import { describe, ErrorCode, optionKeys, RouteKitError, rejectUnknownOptions } from "@routekit/core";
import { type PromptPoolConfig, PromptPoolEnvironment, type PromptSampling } from "./prompt-pool.js";

/**
 * Presets of an offline benchmark rebuilt from the experiments of Hu, Leung & Farnia, "An Online Learning
 * Approach to Prompt-based Selection of Generative Models and LLMs" (scores in [0, 1]; CLIPScores divided
 * by 100). Numbers marked "paper" are the category means stated in the paper's text; everything else
 * (noise levels, per-prompt terms, means the paper does not give) is an assumption, documented here.
 */
export const promptPoolPresets = [
  "swap",
  "swap-b",
  "dominant",
  "expert5",
  "expert5big",
  "t2i-sd15-vs-pixart",
  "t2i-unidiff-vs-pixart",
  "t2i-unidiff-vs-sd15",
  "llm-code",
  "llm-code-fig1",
  "llm-sudoku",
  "nonstationary-arm",
  "nonstationary-prompts",
  "realizable",
] as const;

export type PromptPoolPreset = (typeof promptPoolPresets)[number];

export interface PresetOverrides {
  /** Prompt sampling (default: the preset's, see {@link presetSampling}). */
  readonly sampling?: PromptSampling;
  /** Generations per (model, prompt) (default: the preset's). */
  readonly generations?: number;
  /** Embedding dimension (default 512; 768 for the LLM presets; 16 for realizable). */
  readonly contextDim?: number;
  /** Within-category spread tau (default 0.75 for synthetic presets, 0.4 for the T2I pairs). */
  readonly tau?: number;
  /** Category separation rho: centroids normalize(c0 + rho u_k) (default 1, a between-category cosine of about 0.5). */
  readonly rho?: number;
  /** Pool size (default: the preset's, see {@link presetSampling}). */
  readonly poolSize?: number;
  /** Gaussian noise sd for the presets that use it. */
  readonly noiseSd?: number;
  /** Spread of the category means around their average (default 1). */
  readonly contrast?: number;
  /** Amplitude of the per-prompt RKHS term on the T2I presets (default 0.02). */
  readonly perPromptAmplitude?: number;
  /** Round at which nonstationary-arm's third model joins (default 2500). */
  readonly arrivalRound?: number;
  /** Rounds between new categories in nonstationary-prompts (default 1000). */
  readonly categoryEvery?: number;
}

/** The option keys of {@link PresetOverrides}. */
export const PRESET_OVERRIDE_KEYS = optionKeys<PresetOverrides>()([
  "sampling",
  "generations",
  "contextDim",
  "tau",
  "rho",
  "poolSize",
  "noiseSd",
  "contrast",
  "perPromptAmplitude",
  "arrivalRound",
  "categoryEvery",
]);

function experts(G: number, expert: number, other: number): number[][] {
  return Array.from({ length: G }, (_, g) => Array.from({ length: G }, (_, k) => (g === k ? expert : other)));
}

/** Default sampling, pool size and generations of a preset, with the reason. */
export interface PresetSampling {
  readonly sampling: PromptSampling;
  readonly poolSize: number;
  readonly generations: number;
  readonly why: string;
}

/**
 * How each preset draws prompts by default, following the paper's own experiments:
 * - code (Setup 2a, Fig. 1): a fixed set of 164 tasks per family (HumanEval / HumanEval-X, "the first
 *   164 tasks" of the completion benchmark) with 10 generations each (the reference repository's
 *   generated code for Fig. 1(a) has `num_trial_10` per task), sampled with replacement: `pool`, 328 x 10;
 * - Sudoku (Setup 2b): "random Sudoku" puzzles with 5-30 blanks and no stated count, so a new puzzle
 *   every round: `fresh`, 5 generations for the OPR reference;
 * - images (Setups 1, 3, 4): MS-COCO captions drawn at random from categories holding thousands of
 *   captions each, with an image generated every round (the paper states no pool size), and 5
 *   generations per prompt for OPR: `fresh`;
 * - the synthetic calibration presets (swap, swap-b, dominant, expert5, expert5big, realizable): `fresh`.
 * In `pool` mode the presets without a paper count use the reference code's 1000 prompts x 5 generations.
 */
export function presetSampling(preset: PromptPoolPreset): PresetSampling {
  if (preset === "llm-code" || preset === "llm-code-fig1") {
    return {
      sampling: "pool",
      poolSize: 328,
      generations: 10,
      why: "164 tasks per family x 2 families, 10 generations per task (the paper's code benchmarks)",
    };
  }
  if (preset === "llm-sudoku") {
    return {
      sampling: "fresh",
      poolSize: 1000,
      generations: 5,
      why: "random puzzles with 5-30 blanks, no count given: a new puzzle every round",
    };
  }
  if (preset.startsWith("t2i") || preset.startsWith("nonstationary") || preset === "expert5") {
    return {
      sampling: "fresh",
      poolSize: 1000,
      generations: 5,
      why: "MS-COCO captions from large categories with an image generated every round; 5 generations for OPR",
    };
  }
  return { sampling: "fresh", poolSize: 1000, generations: 5, why: "synthetic calibration preset" };
}

/** The full configuration of a preset. */
export function promptPoolConfig(preset: PromptPoolPreset, o: PresetOverrides = {}): PromptPoolConfig {
  rejectUnknownOptions(o, PRESET_OVERRIDE_KEYS, "promptPoolConfig", true);
  const cats = (tau: number) => ({ type: "categories" as const, rho: o.rho ?? 1, tau: o.tau ?? tau });
  const ps = presetSampling(preset);
  const sampling = o.sampling ?? ps.sampling;
  const base = {
    sampling,
    // A pool-mode override of a preset whose default is fresh falls back to the reference code's 1000 x 5.
    poolSize: o.poolSize ?? ps.poolSize,
    generations: o.generations ?? ps.generations,
    contrast: o.contrast ?? 1,
  };
  const gauss = (sd: number) => ({ type: "gaussian" as const, sd: o.noiseSd ?? sd });
  const t2i = (arms: string[], categories: string[], means: number[][]): PromptPoolConfig => ({
    ...base,
    name: preset,
    contextDim: o.contextDim ?? 512,
    arms,
    categories,
    means,
    layout: cats(0.4),
    noise: gauss(0.03),
    perPrompt: { amplitude: o.perPromptAmplitude ?? 0.02, centers: 20, sigma: 1 },
  });
  switch (preset) {
    case "swap":
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 512,
        arms: ["a", "b"],
        categories: ["A", "B"],
        means: [
          [0.9, 0.1],
          [0.1, 0.9],
        ],
        layout: cats(0.75),
        noise: gauss(0.1),
      };
    case "swap-b":
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 512,
        arms: ["a", "b"],
        categories: ["A", "B"],
        means: [
          [0.8, 0.5],
          [0.6, 0.7],
        ],
        layout: cats(0.75),
        noise: gauss(0.1),
      };
    case "dominant":
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 512,
        arms: ["a", "b"],
        categories: ["A", "B"],
        means: [
          [0.8, 0.8],
          [0.3, 0.3],
        ],
        layout: cats(0.75),
        noise: gauss(0.1),
      };
    case "expert5":
      // Setup 4: expert about .33, non-expert about .25 CLIPScore/100 (Fig. 18's losses), noise .03.
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 512,
        arms: ["sd2-dog", "sd2-car", "sd2-carrot", "sd2-cake", "sd2-bowl"],
        categories: ["dog", "car", "carrot", "cake", "bowl"],
        means: experts(5, 0.33, 0.25),
        layout: cats(0.75),
        noise: gauss(0.03),
      };
    case "expert5big":
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 512,
        arms: ["e0", "e1", "e2", "e3", "e4"],
        categories: ["c0", "c1", "c2", "c3", "c4"],
        means: experts(5, 0.7, 0.3),
        layout: cats(0.75),
        noise: gauss(0.1),
      };
    case "t2i-sd15-vs-pixart":
      // paper: dog 36.37 vs 37.24, car 36.10 vs 35.68.
      return t2i(
        ["sd-v1.5", "pixart-alpha"],
        ["dog", "car"],
        [
          [0.3637, 0.361],
          [0.3724, 0.3568],
        ],
      );
    case "t2i-unidiff-vs-pixart":
      // paper: train 35.29 vs 34.25, baseball bat 32.51 vs 34.30.
      return t2i(
        ["unidiffuser", "pixart-alpha"],
        ["train", "baseball-bat"],
        [
          [0.3529, 0.3251],
          [0.3425, 0.343],
        ],
      );
    case "t2i-unidiff-vs-sd15":
      // paper: elephant 36.67 vs 35.08, fire hydrant 35.11 vs 37.23.
      return t2i(
        ["unidiffuser", "sd-v1.5"],
        ["elephant", "fire-hydrant"],
        [
          [0.3667, 0.3511],
          [0.3508, 0.3723],
        ],
      );
    case "llm-code":
      // paper, Setup 2 text: completion 55.91% vs 13.84%, C++->Java 24.39% vs 40.91% (pass@1).
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 768,
        arms: ["gemini-2.5-flash", "qwen-plus"],
        categories: ["completion", "translation"],
        means: [
          [0.5591, 0.2439],
          [0.1384, 0.4091],
        ],
        layout: cats(0.75),
        noise: { type: "bernoulli" },
      };
    case "llm-code-fig1":
      // paper, Fig. 1: Python completion 92.32% vs 86.46%, Java->C++ 48.78% vs 82.26%.
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 768,
        arms: ["gemini-2.5-flash", "qwen-plus"],
        categories: ["completion", "translation"],
        means: [
          [0.9232, 0.4878],
          [0.8646, 0.8226],
        ],
        layout: cats(0.75),
        noise: { type: "bernoulli" },
      };
    case "llm-sudoku":
      // paper: >15 blanks 70.82% vs 50.42%, <=15 blanks 86.85% vs 93.6%.
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 768,
        arms: ["o3-mini", "deepseek-chat"],
        categories: ["hard", "easy"],
        means: [
          [0.7082, 0.8685],
          [0.5042, 0.936],
        ],
        layout: { type: "sudoku", lambda: 1.5, tau: o.tau ?? 0.5 },
        noise: { type: "bernoulli" },
      };
    case "nonstationary-arm":
      // Setup 3 (i): SD1.5 and PixArt from the start, UniDiffuser joins (train / baseball-bat prompts).
      // UniDiffuser and PixArt means are the paper's; SD1.5's are not given (assumed just below PixArt).
      return {
        ...t2i(
          ["sd-v1.5", "pixart-alpha", "unidiffuser"],
          ["train", "baseball-bat"],
          [
            [0.34, 0.335],
            [0.3425, 0.343],
            [0.3529, 0.3251],
          ],
        ),
        armArrivals: { unidiffuser: o.arrivalRound ?? 2500 },
      };
    case "nonstationary-prompts": {
      // Setup 3 (ii): PixArt vs UniDiffuser; {person, bicycle} first, then airplane, bus, train, truck
      // every 1000 rounds. Only "train" has paper numbers; the others alternate the better model
      // with a 1-point gap (assumption).
      const every = o.categoryEvery ?? 1000;
      return {
        ...t2i(
          ["pixart-alpha", "unidiffuser"],
          ["person", "bicycle", "airplane", "bus", "train", "truck"],
          [
            [0.35, 0.34, 0.35, 0.34, 0.3425, 0.35],
            [0.34, 0.35, 0.34, 0.35, 0.3529, 0.34],
          ],
        ),
        categoryStarts: [0, 0, every, 2 * every, 3 * every, 4 * every],
      };
    }
    case "realizable":
      return {
        ...base,
        name: preset,
        contextDim: o.contextDim ?? 16,
        arms: ["a", "b"],
        categories: ["A", "B"],
        means: [],
        layout: cats(0.75),
        noise: { type: "bounded" },
        realizable: { centers: 20, sigma: 1, norm: 1 },
      };
    default:
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `unknown prompt-pool preset ${describe(preset)} (known: ${promptPoolPresets.join(", ")})`,
      );
  }
}

/** A fresh environment for a preset; reset it with a seed-derived stream before use. */
export function promptPool(preset: PromptPoolPreset, overrides: PresetOverrides = {}): PromptPoolEnvironment {
  return new PromptPoolEnvironment(promptPoolConfig(preset, overrides));
}
