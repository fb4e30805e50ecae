/**
 * `routekit check assortment-lp`: the exact Dinkelbach assortment solver that the MNL policies use, cross-checked
 * against the Davis-Gallego-Topaloglu LP solved by HiGHS (what paper 004's experiments used) on random instances.
 */
import { Rng } from "@routekit/core";
import {
  assortmentRevenue,
  crossCheckAssortmentLP,
  DinkelbachWorkspace,
  dinkelbachAssortment,
  type LpCrossCheckReport,
  solveAssortmentLP,
} from "@routekit/mnl";
import { UsageError } from "./errors.js";

export interface AssortmentCheckOptions {
  /** Random instances (default 200). */
  readonly instances?: number;
  /** Largest number of items N; each instance draws N in [1, items] (default 30). */
  readonly items?: number;
  /** Fixed capacity: K = min(k, N) on every instance (default: K drawn in [1, N]). */
  readonly k?: number;
  readonly seed?: number;
  /** Largest |revenue difference| that still counts as agreement (default 1e-7). */
  readonly tolerance?: number;
}

export interface AssortmentCheckResult extends LpCrossCheckReport {
  readonly items: number;
  readonly k: number | null;
  readonly seed: number;
  readonly tolerance: number;
  readonly agree: boolean;
}

/**
 * Same instance distribution as mnl's `crossCheckAssortmentLP` (v = e^{U(-2, 2)}, r ~ U(0, 1), v0 in {0.5, 1, 3}),
 * but with K fixed to min(k, N); `crossCheckAssortmentLP` itself draws K, so this is used only when `k` is given.
 */
async function crossCheckFixedK(
  instances: number,
  maxItems: number,
  k: number,
  seed: number,
  tolerance: number,
): Promise<LpCrossCheckReport> {
  const rng = Rng.fromSeed(seed);
  const out = new Int32Array(maxItems);
  const ws = new DinkelbachWorkspace(maxItems);
  let gap = 0;
  let mismatches = 0;
  let tD = 0;
  let tL = 0;
  for (let i = 0; i < instances; i++) {
    const n = 1 + rng.int(maxItems);
    const K = Math.min(k, n);
    const v0 = [0.5, 1, 3][rng.int(3)] as number;
    const v = Float64Array.from({ length: n }, () => Math.exp(rng.uniformIn(-2, 2)));
    const r = Float64Array.from({ length: n }, () => rng.uniform());
    const s0 = performance.now();
    const m = dinkelbachAssortment(v, r, n, K, v0, out, ws);
    const R = assortmentRevenue(v, r, out, m, v0);
    const s1 = performance.now();
    const lp = await solveAssortmentLP(v, r, K, v0);
    tL += performance.now() - s1;
    tD += s1 - s0;
    const g = Math.abs(R - lp.objective);
    if (g > gap) gap = g;
    if (g > tolerance) mismatches++;
  }
  return {
    instances,
    maxRevenueGap: gap,
    mismatches,
    dinkelbachMsPerInstance: tD / instances,
    lpMsPerInstance: tL / instances,
  };
}

/** Runs the cross-check; `agree` is false when any instance differs by more than the tolerance. */
export async function checkAssortmentLP(opts: AssortmentCheckOptions = {}): Promise<AssortmentCheckResult> {
  const instances = opts.instances ?? 200;
  const items = opts.items ?? 30;
  const seed = opts.seed ?? 0;
  const tolerance = opts.tolerance ?? 1e-7;
  const int = (x: number, what: string, min: number) => {
    if (!Number.isSafeInteger(x) || x < min) throw new UsageError(`${what} must be an integer >= ${min}, got ${x}`);
  };
  int(instances, "instances", 1);
  int(items, "items", 1);
  int(seed, "seed", 0);
  if (opts.k !== undefined) int(opts.k, "k", 1);
  if (!(tolerance >= 0)) throw new UsageError(`tolerance must be a number >= 0, got ${tolerance}`);
  const rep =
    opts.k === undefined
      ? await crossCheckAssortmentLP({ instances, maxItems: items, seed, tolerance })
      : await crossCheckFixedK(instances, items, opts.k, seed, tolerance);
  return { ...rep, items, k: opts.k ?? null, seed, tolerance, agree: rep.mismatches === 0 };
}

/** The human-readable report. */
export function formatAssortmentCheck(r: AssortmentCheckResult): string {
  const K = r.k === null ? "K in [1, N]" : `K = min(${r.k}, N)`;
  return [
    `assortment LP cross-check: exact Dinkelbach vs the HiGHS LP (Davis-Gallego-Topaloglu), seed ${r.seed}`,
    `instances checked:        ${r.instances} (N in [1, ${r.items}], ${K}, v0 in {0.5, 1, 3}, v = e^U(-2,2), r ~ U(0,1))`,
    `max |revenue difference|: ${r.maxRevenueGap.toExponential(2)} (tolerance ${r.tolerance})`,
    `disagreements:            ${r.mismatches} of ${r.instances}`,
    `time per instance:        Dinkelbach ${r.dinkelbachMsPerInstance.toFixed(3)} ms, LP ${r.lpMsPerInstance.toFixed(3)} ms`,
    r.agree ? "result: agree" : "result: DISAGREE",
  ].join("\n");
}
