import { type ArmEnvironment, ErrorCode, RouteKitError } from "@routekit/core";
import { type PresetOverrides, type PromptPoolPreset, promptPool, promptPoolPresets } from "@routekit/environments";
import {
  type Exploration,
  type KernelSpec,
  KernelUcb,
  PakUcb,
  RffUcb,
  type RffVariant,
  SupPakUcb,
  SupRffUcb,
} from "@routekit/kernel-ucb";
import type { EnvInfo, FamilyRegistry, Params, PolicyEntry, ScenarioEntry } from "./types.js";

const FAMILY = "@routekit/kernel-ucb";
const PAPER = "003 (Hu, Leung, Farnia, ICML 2025)";

function armInfo(info: EnvInfo, policy: string): { arms: readonly string[]; contextDim: number } {
  if (info.protocol !== "arm" || info.dim < 1) {
    throw new RouteKitError(ErrorCode.InvalidArgument, `${policy} needs a contextual arm environment`);
  }
  return { arms: info.arms, contextDim: info.dim };
}

/**
 * eta: a number, "paper" | "theory" | "anytime", or "code" = 2 ln(2G/delta) without the square
 * root (what the reference code's LinUCB and KernelUCB baselines ran with, spec §2.9).
 */
function eta(p: Params, info: EnvInfo): Exploration {
  const v = p.eta;
  if (typeof v === "number") return v;
  const s = String(v);
  if (s === "code") return 2 * Math.log((2 * info.arms.length) / Number(p.delta ?? 0.05));
  if (s === "paper" || s === "theory" || s === "anytime") return s;
  const x = Number(s);
  if (s.trim() !== "" && Number.isFinite(x)) return x;
  throw new RouteKitError(
    ErrorCode.InvalidArgument,
    `eta must be a number, "paper", "theory", "anytime" or "code", got "${s}"`,
  );
}

function kernel(p: Params): KernelSpec {
  const k = String(p.kernel);
  if (k === "rbf") return { type: "rbf", sigma: Number(p.sigma) };
  if (k === "poly") return { type: "poly", gamma: Number(p.gamma), c: Number(p.c), degree: Number(p.degree) };
  if (k === "linear") return { type: "linear" };
  throw new RouteKitError(ErrorCode.InvalidArgument, `kernel must be "rbf", "poly" or "linear", got "${k}"`);
}

const transform = (p: Params) => ({
  scale: Number(p.scoreScale),
  offset: Number(p.scoreOffset),
  priorMean: Number(p.priorMean),
});

const common: Params = {
  alpha: 1,
  eta: "paper",
  delta: 0.05,
  scoreScale: 1,
  scoreOffset: 0,
  priorMean: 0,
  normalizeContext: true,
};
const kernelDefaults: Params = { kernel: "rbf", sigma: 1, gamma: 5, c: 1, degree: 3 };

const pakLike = (name: string, description: string, defaults: Params): PolicyEntry => ({
  name,
  protocol: "arm",
  family: FAMILY,
  paper: PAPER,
  description,
  defaults,
  create: (p, { rng, info }) =>
    new PakUcb({
      ...armInfo(info, name),
      rng,
      kernel: kernel(p),
      ridge: Number(p.alpha),
      exploration: eta(p, info),
      confidence: Number(p.delta),
      horizon: info.horizon,
      scoreTransform: transform(p),
      normalizeContext: Boolean(p.normalizeContext),
    }),
});

const policies: PolicyEntry[] = [
  pakLike("pak-ucb", "PAK-UCB: one kernel ridge regression per arm, UCB mu + eta sigma (rbf, poly, linear)", {
    ...kernelDefaults,
    ...common,
  }),
  pakLike("naive-krr", "Naive-KRR baseline: PAK-UCB with eta = 0 (greedy on per-arm KRR means; poly3 gamma = 5)", {
    ...kernelDefaults,
    kernel: "poly",
    ...common,
    eta: 0,
  }),
  pakLike("pak-ucb-lin", "PAK-UCB-lin baseline: PAK-UCB with the linear kernel (= disjoint LinUCB)", {
    ...kernelDefaults,
    kernel: "linear",
    ...common,
  }),
  {
    name: "rff-ucb",
    protocol: "arm",
    family: FAMILY,
    paper: PAPER,
    description: "RFF-UCB: random Fourier features shared by all arms, per-arm ridge (constant time per round)",
    defaults: { sigma: 1, frequencies: 200, rffVariant: "paper", ...common },
    create: (p, { rng, info }) =>
      new RffUcb({
        ...armInfo(info, "rff-ucb"),
        rng,
        sigma: Number(p.sigma),
        frequencies: Number(p.frequencies),
        rffVariant: String(p.rffVariant) as RffVariant,
        ridge: Number(p.alpha),
        exploration: eta(p, info),
        confidence: Number(p.delta),
        horizon: info.horizon,
        scoreTransform: transform(p),
        normalizeContext: Boolean(p.normalizeContext),
      }),
  },
  {
    name: "kernel-ucb",
    protocol: "arm",
    family: FAMILY,
    paper: `${PAPER}, baseline (Valko et al. 2013)`,
    description: "KernelUCB with shared weights on [context; one-hot(arm)] (poly3 gamma = 1; O(t^2) per round)",
    defaults: { ...kernelDefaults, kernel: "poly", gamma: 1, ...common, eta: "code" },
    create: (p, { rng, info }) =>
      new KernelUcb({
        ...armInfo(info, "kernel-ucb"),
        rng,
        kernel: kernel(p),
        ridge: Number(p.alpha),
        exploration: eta(p, info),
        confidence: Number(p.delta),
        horizon: info.horizon,
        scoreTransform: transform(p),
        normalizeContext: Boolean(p.normalizeContext),
      }),
  },
  {
    name: "sup-pak-ucb",
    protocol: "arm",
    family: FAMILY,
    paper: PAPER,
    description: "Sup-PAK-UCB (Algorithm 3): staged elimination for the regret proof; explores like random in practice",
    defaults: { ...kernelDefaults, ...common, eta: "theory", stages: 0, exploreChoice: "largest-width" },
    create: (p, { rng, info }) =>
      new SupPakUcb({
        ...armInfo(info, "sup-pak-ucb"),
        rng,
        horizon: info.horizon,
        kernel: kernel(p),
        ridge: Number(p.alpha),
        exploration: eta(p, info),
        confidence: Number(p.delta),
        ...(Number(p.stages) > 0 ? { stages: Number(p.stages) } : {}),
        exploreChoice: String(p.exploreChoice) as "largest-width" | "random",
        scoreTransform: transform(p),
        normalizeContext: Boolean(p.normalizeContext),
      }),
  },
  {
    name: "sup-rff-ucb",
    protocol: "arm",
    family: FAMILY,
    paper: PAPER,
    description:
      "Sup-RFF-UCB (Algorithm 6): staged elimination on per-(arm, stage) RFF ridges; paper's D schedule capped at maxFrequencies",
    defaults: { sigma: 1, maxFrequencies: 256, ...common, eta: "theory", stages: 0, exploreChoice: "largest-width" },
    create: (p, { rng, info }) =>
      new SupRffUcb({
        ...armInfo(info, "sup-rff-ucb"),
        rng,
        horizon: info.horizon,
        sigma: Number(p.sigma),
        maxFrequencies: Number(p.maxFrequencies),
        ridge: Number(p.alpha),
        exploration: eta(p, info),
        confidence: Number(p.delta),
        ...(Number(p.stages) > 0 ? { stages: Number(p.stages) } : {}),
        exploreChoice: String(p.exploreChoice) as "largest-width" | "random",
        scoreTransform: transform(p),
        normalizeContext: Boolean(p.normalizeContext),
      }),
  },
];

const envDefaults: Params = {
  preset: "swap",
  dim: 0,
  tau: 0,
  poolSize: 1000,
  noiseSd: 0,
  contrast: 1,
  perPromptAmplitude: 0.02,
  arrivalRound: 2500,
  categoryEvery: 1000,
};

function envOverrides(p: Params): PresetOverrides {
  const pos = (k: string) => (Number(p[k]) > 0 ? { [k]: Number(p[k]) } : {});
  return {
    ...pos("dim"),
    ...pos("tau"),
    ...pos("poolSize"),
    ...pos("noiseSd"),
    ...pos("contrast"),
    ...pos("arrivalRound"),
    ...pos("categoryEvery"),
    perPromptAmplitude: Number(p.perPromptAmplitude),
  };
}

// ------------------------------------------------------------------ scenarios

const SEEDS = 20;
/** Image scenarios learn on the raw CLIPScore scale (x100): spec P1, the paper's poly3 gamma = 5 needs it. */
const RAW = { scoreScale: 100 };
const codeEta100 = (G: number) => (2 * Math.log((2 * G) / 0.05)) / 100;

function paperLineup(G: number, raw: boolean, rbfSigma: number): ScenarioEntry["policies"] {
  const s = raw ? RAW : {};
  return [
    { label: "PAK-UCB-poly3", policy: "pak-ucb", params: { kernel: "poly", gamma: 5, ...s } },
    { label: "PAK-UCB-RBF", policy: "pak-ucb", params: { kernel: "rbf", sigma: rbfSigma, ...s } },
    // At the raw scale the reference code's HEAD features (repo2D: bandwidth sigma / 2 pi, ridge alpha / D)
    // are what produced the paper's curves; the paper-normalised features lock in there (spec P1, P4).
    {
      label: "RFF-UCB-RBF",
      policy: "rff-ucb",
      params: { sigma: rbfSigma, frequencies: 200, ...s, ...(raw ? { rffVariant: "repo2D" } : {}) },
    },
    { label: "KernelUCB-poly3", policy: "kernel-ucb", params: { ...s } },
    // Classic LinUCB has no score transform: x100 rewards with exploration = eta equals [0, 1] rewards with eta / 100.
    {
      label: "LinUCB-shared",
      policy: "linucb-shared",
      params: { exploration: raw ? codeEta100(G) : 2 * Math.log((2 * G) / 0.05) },
    },
    { label: "PAK-UCB-lin", policy: "pak-ucb-lin", params: { ...s } },
    { label: "Naive-KRR", policy: "naive-krr", params: { ...s } },
    { label: "One-arm oracle", policy: "one-arm-oracle" },
    { label: "Random", policy: "random" },
  ];
}

const t2iRef = (a: string, b: string, ours: string) =>
  `paper §3.4 (CLIPScore): ${a} vs ${b}; claims (no numbers survive in the text): PAK-UCB-poly3 and RFF-UCB-RBF reach O2B > 0 and the highest OPR, above KernelUCB and LinUCB. Spec §3.7: the category gaps alone (0.4-1 point) are too small to beat the one-arm oracle within 2000 rounds at noise 0.03. Scores learned on the raw x100 scale (spec P1). RouteKit (2 seeds, T = 2000): ${ours}`;

const scenarios: ScenarioEntry[] = [
  {
    name: "kernel-ucb-t2i-dog-car",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 1, T2I: SD v1.5 vs PixArt-alpha on dog/car prompts (O2B, OPR, regret vs t)",
    environment: { name: "prompt-pool", params: { preset: "t2i-sd15-vs-pixart" } },
    policies: paperLineup(2, true, 5),
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["o2b", "opr", "regret"],
    reference: t2iRef(
      "dog 36.37 vs 37.24",
      "car 36.10 vs 35.68",
      "regret RFF-UCB-RBF 15.3 (OPR .649), PAK-UCB-poly3 19.5 (.592), one-arm oracle 10.5 (.660), random 25.1 (.499)",
    ),
    group: "kernel-ucb-t2i",
    panel: "dog / car (SD v1.5 vs PixArt)",
  },
  {
    name: "kernel-ucb-t2i-train-baseball",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 1, T2I: UniDiffuser vs PixArt-alpha on train/baseball-bat prompts",
    environment: { name: "prompt-pool", params: { preset: "t2i-unidiff-vs-pixart" } },
    policies: paperLineup(2, true, 5),
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["o2b", "opr", "regret"],
    reference: t2iRef("train 35.29 vs 34.25", "baseball bat 32.51 vs 34.30", "see the run"),
    group: "kernel-ucb-t2i",
    panel: "train / baseball bat (UniDiff. vs PixArt)",
  },
  {
    name: "kernel-ucb-t2i-elephant-hydrant",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 1, T2I: UniDiffuser vs SD v1.5 on elephant/fire-hydrant prompts",
    environment: { name: "prompt-pool", params: { preset: "t2i-unidiff-vs-sd15" } },
    policies: paperLineup(2, true, 5),
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["o2b", "opr", "regret"],
    reference: t2iRef(
      "elephant 36.67 vs 35.08",
      "fire hydrant 35.11 vs 37.23",
      "regret RFF-UCB-RBF 11.7 (OPR .593), PAK-UCB-poly3 13.0 (.551)",
    ),
    group: "kernel-ucb-t2i",
    panel: "elephant / hydrant (UniDiff. vs SD v1.5)",
  },
  {
    name: "kernel-ucb-llm-code",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 2(a): Gemini-2.5-Flash vs Qwen-Plus on code completion / translation (pass@1, RBF sigma = 0.5)",
    environment: { name: "prompt-pool", params: { preset: "llm-code" } },
    policies: paperLineup(2, false, 0.5),
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["o2b", "opr", "regret"],
    reference:
      "paper: completion 55.91% vs 13.84%, C++->Java 24.39% vs 40.91%; per-prompt selection should beat always-Gemini (O2B > 0): the best per-category choice averages 48.4% vs 40.2% for the best single model. RouteKit (2 seeds): Naive-KRR O2B +.021 (OPR .80), RFF-UCB -.001 (.74), LinUCB -.006, random -.065",
    group: "kernel-ucb-llm",
    panel: "(a) code: Gemini vs Qwen",
  },
  {
    name: "kernel-ucb-llm-sudoku",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 2(b): o3-mini vs Deepseek-Chat on Sudoku (>15 blanks vs <=15), RBF sigma = 0.5",
    environment: { name: "prompt-pool", params: { preset: "llm-sudoku" } },
    policies: paperLineup(2, false, 0.5),
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["o2b", "opr", "regret"],
    reference:
      "paper: >15 blanks 70.82% vs 50.42%, <=15 blanks 86.85% vs 93.6%; the oracle per prompt gains about 3 points over always-o3-mini, too little to recover exploration costs in 2000 rounds of Bernoulli feedback. RouteKit (2 seeds): O2B LinUCB -.011, Naive-KRR -.018, RFF-UCB -.021, random -.046",
    group: "kernel-ucb-llm",
    panel: "(b) Sudoku: o3-mini vs Deepseek",
  },
  {
    name: "kernel-ucb-expert5",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 4: five Stable-Diffusion-2 experts, one per category (expert .33, others .25, noise .03)",
    environment: { name: "prompt-pool", params: { preset: "expert5" } },
    policies: paperLineup(5, true, 5),
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["o2b", "opr", "regret", "usPerRound"],
    reference:
      "spec §3.7 NumPy calibration on [0,1] scores (sigma = 1): PAK-UCB-RBF OPR .48 / regret 83.6, RFF-UCB .41 / 95.3, random .21 / 127; paper claims PAK/RFF beat KernelUCB and LinUCB. RouteKit (2 seeds): RFF-UCB-RBF (repo2D, x100) 85.2 / OPR .468 / O2B +.021, PAK-UCB-poly3 98.2 / .387 / +.015, LinUCB 126.6 / .208, random 129.0 / .194",
  },
  {
    name: "kernel-ucb-runtime",
    protocol: "arm",
    paper: PAPER,
    description: "Fig. 20: run time of exact PAK-UCB-RBF vs RFF-UCB-RBF on Setup 4 (2000 rounds)",
    environment: { name: "prompt-pool", params: { preset: "expert5" } },
    policies: [
      { label: "PAK-UCB-RBF", policy: "pak-ucb", params: { kernel: "rbf", sigma: 5, ...RAW } },
      { label: "RFF-UCB-RBF", policy: "rff-ucb", params: { sigma: 5, frequencies: 200, rffVariant: "repo2D", ...RAW } },
    ],
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["usPerRound", "regret", "opr"],
    reference:
      "paper Fig. 20 (20 trials x 2000 rounds, Python): PAK-UCB-RBF about 10 min, RFF-UCB-RBF under 2 min; NumPy on this machine: RFF 0.44 ms/round, exact 0.31 -> 4.5 ms/round at t = 1000",
  },
  {
    name: "kernel-ucb-nonstationary-arm",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 3(i): SD v1.5 and PixArt-alpha, UniDiffuser joins at t = 2500 (train/baseball-bat)",
    environment: { name: "prompt-pool", params: { preset: "nonstationary-arm" } },
    policies: [
      { label: "PAK-UCB-poly3", policy: "pak-ucb", params: { kernel: "poly", gamma: 5, ...RAW } },
      { label: "RFF-UCB-RBF", policy: "rff-ucb", params: { sigma: 5, rffVariant: "repo2D", ...RAW } },
      // KernelUCB is left out here: O(t^2) per round makes 5000 rounds about 4 minutes per seed.
      { label: "LinUCB-shared", policy: "linucb-shared", params: { exploration: codeEta100(3) } },
      { label: "Random", policy: "random" },
    ],
    seeds: SEEDS,
    horizon: 5000,
    metrics: ["o2b", "opr", "regret"],
    reference:
      "paper: the learners pick up the new model after it arrives; spec S8 (RFF-UCB): the new arm took 100% of the category where it is best over rounds 2500-3500",
    group: "kernel-ucb-nonstationary",
    panel: "(i) a new model at t = 2500",
  },
  {
    name: "kernel-ucb-nonstationary-prompts",
    protocol: "arm",
    paper: PAPER,
    description: "Setup 3(ii): PixArt-alpha vs UniDiffuser, a new prompt category every 1000 rounds",
    environment: { name: "prompt-pool", params: { preset: "nonstationary-prompts" } },
    policies: [
      { label: "PAK-UCB-poly3", policy: "pak-ucb", params: { kernel: "poly", gamma: 5, ...RAW } },
      { label: "RFF-UCB-RBF", policy: "rff-ucb", params: { sigma: 5, rffVariant: "repo2D", ...RAW } },
      { label: "LinUCB-shared", policy: "linucb-shared", params: { exploration: codeEta100(2) } },
      { label: "One-arm oracle", policy: "one-arm-oracle" },
      { label: "Random", policy: "random" },
    ],
    seeds: SEEDS,
    horizon: 6000,
    metrics: ["o2b", "opr", "regret"],
    reference: "paper: PAK-UCB and RFF-UCB keep a positive O2B as new prompt types arrive (no numbers in the text)",
    group: "kernel-ucb-nonstationary",
    panel: "(ii) a new prompt type every 1000 rounds",
  },
  {
    name: "kernel-ucb-sup-variants",
    protocol: "arm",
    paper: PAPER,
    description: "Sup-PAK-UCB and Sup-RFF-UCB (theory variants) vs PAK-UCB and random on swap (d = 8, T = 1000)",
    environment: { name: "prompt-pool", params: { preset: "swap", dim: 8 } },
    policies: [
      { label: "PAK-UCB-RBF", policy: "pak-ucb" },
      { label: "Sup-PAK-UCB", policy: "sup-pak-ucb" },
      { label: "Sup-RFF-UCB", policy: "sup-rff-ucb", params: { maxFrequencies: 64 } },
      { label: "Random", policy: "random" },
    ],
    seeds: SEEDS,
    horizon: 1000,
    metrics: ["regret", "opr"],
    reference:
      "spec P9/S9: with the theory eta the Sup variants never leave the explore branch and match random (401 vs 400 regret at T = 1000); RouteKit (seeds 1-2): Sup-PAK-UCB 402.0, Sup-RFF-UCB 404.0, random 389.6, PAK-UCB-RBF 54.4",
  },
  {
    name: "kernel-ucb-swap",
    protocol: "arm",
    paper: PAPER,
    description: "spec §3.7 calibration: swap means [[.9,.1],[.1,.9]], [0,1] scores, RBF sigma = 1",
    environment: { name: "prompt-pool", params: { preset: "swap" } },
    policies: [
      { label: "PAK-UCB-RBF", policy: "pak-ucb" },
      { label: "RFF-UCB-RBF", policy: "rff-ucb" },
      { label: "RFF-UCB-RBF sigma=5", policy: "rff-ucb", params: { sigma: 5 } },
      { label: "PAK-UCB-poly3", policy: "pak-ucb", params: { kernel: "poly", gamma: 5 } },
      { label: "LinUCB-shared", policy: "linucb-shared", params: { exploration: 2 * Math.log(4 / 0.05) } },
      { label: "One-arm oracle", policy: "one-arm-oracle" },
      { label: "Random", policy: "random" },
    ],
    seeds: SEEDS,
    horizon: 2000,
    metrics: ["regret", "o2b", "opr"],
    reference:
      "spec §3.7 (NumPy, 3 seeds): PAK-UCB-RBF OPR .995 / regret 7.7 / O2B +.397; RFF sigma=1 .994 / 9.9; sigma=5 .987 / 20.3; poly3 .54 / 738; LinUCB .51 / 788; oracle .50 / 801. RouteKit (d = 64, 3 seeds): PAK 43 / .973, RFF 38 / .976",
  },
];

/** Policies, environments and scenarios contributed by this family. */
export const kernelucbRegistry: FamilyRegistry = {
  policies,
  environments: [
    {
      name: "prompt-pool",
      protocol: "arm",
      family: "@routekit/environments",
      paper: PAPER,
      description: `prompt pools on the unit sphere with category structure and 5 generations per (prompt, model); presets: ${promptPoolPresets.join(", ")} (0 = preset default)`,
      defaults: envDefaults,
      create: (p): ArmEnvironment => {
        const preset = String(p.preset) as PromptPoolPreset;
        if (!promptPoolPresets.includes(preset)) {
          throw new RouteKitError(
            ErrorCode.InvalidArgument,
            `preset must be one of ${promptPoolPresets.join(", ")}, got "${preset}"`,
          );
        }
        return promptPool(preset, envOverrides(p));
      },
    },
  ],
  scenarios,
};
