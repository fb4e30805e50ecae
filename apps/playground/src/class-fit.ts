/**
 * `routekit class-fit`: the synthetic analogue of Table 2 of "Policy Regret for Embedding Model Routing"
 * (Dai, Golrezaei & Jaillet): on the two-tower retrieval environment, fit the best constant, log-linear
 * (with intercept) and log-quadratic routers offline by Adam on a training half of the queries, and report
 * each class's gap to the per-query oracle on the held-out half. The paper's claim to reproduce:
 * Gap_const >= Gap_lin >> Gap_quad.
 */

import { join } from "node:path";
import { Rng } from "@routekit/core";
import { writeFileAtomicSync } from "@routekit/core/node";
import { fitPolicyClasses, TwoTowerEnvironment } from "@routekit/environments";
import { UsageError } from "./errors.js";
import { ensureOutDir } from "./out-dir.js";

export interface ClassFitOptions {
  /** Seeds 0..seeds-1 (default 3): one environment and one query table each. */
  readonly seeds?: number;
  /** Query embedding length d (default 16). */
  readonly contextDim?: number;
  /** Number of embedding models M (default 4). */
  readonly models?: number;
  /** Latent rank s of the environment (default 2). */
  readonly latentRank?: number;
  /** Queries per seed, split 50/50 into fitting and evaluation (default 1,000). */
  readonly queries?: number;
  /** Adam iterations per class (default 1,500). */
  readonly iterations?: number;
}

export interface ClassFitGaps {
  readonly constant: number;
  readonly linear: number;
  readonly quadratic: number;
}

export interface ClassFitReport {
  readonly setup: {
    readonly contextDim: number;
    readonly models: number;
    readonly latentRank: number;
    readonly items: number;
    readonly queries: number;
    readonly iterations: number;
  };
  /** Held-out gaps per seed. */
  readonly rows: readonly ({ readonly seed: number } & ClassFitGaps)[];
  /** Means over the seeds. */
  readonly mean: ClassFitGaps;
  /** Gap_const >= Gap_lin >= Gap_quad on the means. */
  readonly ordered: boolean;
  readonly reference: string;
}

const ITEMS = 256;

/** The paper's numbers (Amazon ESCI, M = 8 encoders, the "all" row of Table 2). */
export const CLASS_FIT_REFERENCE =
  "paper (Amazon ESCI, M = 8 encoders, 'all' row): Gap_const 0.078, Gap_lin 0.065, Gap_quad 0.021 " +
  "(const -> lin 16.4%, lin -> quad 68.0%)";

/** Most numbers the query, reward and feature tables of one seed may hold (8e8 bytes). */
export const CLASS_FIT_MAX_NUMBERS = 1e8;

/** Numbers held by one seed's tables: queries n x d, rewards n x M, linear n x (d + 1), quadratic n x d(d+1)/2. */
export function classFitNumbers(queries: number, d: number, M: number): number {
  return queries * (d + M + d + 1 + (d * (d + 1)) / 2);
}

/**
 * Builds the environment once for the options, and checks the table sizes, so a value the environment refuses or a
 * size beyond memory fails before any fitting starts.
 */
export function checkClassFitOptions(opts: ClassFitOptions): void {
  new TwoTowerEnvironment({
    contextDim: opts.contextDim ?? 16,
    models: opts.models ?? 4,
    latentRank: opts.latentRank ?? 2,
    items: ITEMS,
    mcSamples: 10,
  });
  const n = opts.queries ?? 1000;
  const d = opts.contextDim ?? 16;
  const numbers = classFitNumbers(n, d, opts.models ?? 4);
  if (numbers > CLASS_FIT_MAX_NUMBERS) {
    throw new UsageError(
      `class-fit: ${n} queries at d = ${d} need tables of ${numbers.toExponential(1)} numbers per seed (at most ${CLASS_FIT_MAX_NUMBERS.toExponential(0)}, about 800 MB): use fewer --queries or a smaller --dim`,
    );
  }
}

export function runClassFit(opts: ClassFitOptions = {}): ClassFitReport {
  const seeds = opts.seeds ?? 3;
  const d = opts.contextDim ?? 16;
  const M = opts.models ?? 4;
  const s = opts.latentRank ?? 2;
  const n = opts.queries ?? 1000;
  const iterations = opts.iterations ?? 1500;
  const rows: ({ seed: number } & ClassFitGaps)[] = [];
  for (let seed = 0; seed < seeds; seed++) {
    const env = new TwoTowerEnvironment({ contextDim: d, models: M, latentRank: s, items: ITEMS, mcSamples: 10 });
    env.reset(Rng.fromSeed(seed));
    const { queries, rewards } = env.sampleTable(n, Rng.fromSeed(100 + seed));
    const g = fitPolicyClasses(queries, rewards, n, d, M, { iterations }).gap;
    rows.push({ seed, constant: g.constant, linear: g.linear, quadratic: g.quadratic });
  }
  const avg = (k: keyof ClassFitGaps) => rows.reduce((a, r) => a + r[k], 0) / rows.length;
  const mean = { constant: avg("constant"), linear: avg("linear"), quadratic: avg("quadratic") };
  return {
    setup: { contextDim: d, models: M, latentRank: s, items: ITEMS, queries: n, iterations },
    rows,
    mean,
    ordered: mean.constant >= mean.linear && mean.linear >= mean.quadratic,
    reference: CLASS_FIT_REFERENCE,
  };
}

const pct = (a: number, b: number): string => `${(100 * (1 - b / a)).toFixed(1)}%`;

/** The table as Markdown (what `routekit class-fit` prints and writes to table.md). */
export function formatClassFit(r: ClassFitReport): string {
  const { contextDim, models, latentRank, items, queries, iterations } = r.setup;
  const line = (label: string, g: ClassFitGaps) =>
    `| ${label} | ${g.constant.toFixed(4)} | ${g.linear.toFixed(4)} | ${g.quadratic.toFixed(4)} | ${pct(g.constant, g.linear)} | ${pct(g.linear, g.quadratic)} |`;
  return [
    `Table 2 analogue (offline class fit): two-tower environment, d = ${contextDim}, M = ${models}, s = ${latentRank}, ` +
      `${items} items, ${queries} queries per seed (50/50 fit/held out), Adam ${iterations} iterations; held-out gap to the per-query oracle`,
    "",
    "| seed | Gap_const | Gap_lin | Gap_quad | const -> lin | lin -> quad |",
    "|---|---|---|---|---|---|",
    ...r.rows.map((g) => line(String(g.seed), g)),
    line("mean", r.mean),
    "",
    `Gap_const >= Gap_lin >= Gap_quad on the means: ${r.ordered ? "yes" : "NO"}`,
    r.reference,
  ].join("\n");
}

/** Writes table.md and class-fit.json into `dir`; returns the paths. */
export function writeClassFit(r: ClassFitReport, dir: string): string[] {
  ensureOutDir(dir);
  const md = join(dir, "table.md");
  const json = join(dir, "class-fit.json");
  writeFileAtomicSync(md, `${formatClassFit(r)}\n`);
  writeFileAtomicSync(json, `${JSON.stringify(r, null, 2)}\n`);
  return [md, json];
}
