/**
 * `routekit check assortment-lp`: the exact Dinkelbach assortment solver that the MNL policies use, cross-checked
 * against the Davis-Gallego-Topaloglu LP solved by HiGHS (what the experiments of Lee & Oh, NeurIPS 2024, used) on random instances.
 */
import { crossCheckAssortmentLP, type LpCrossCheckReport } from "@routekit/mnl";
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
  const rep = await crossCheckAssortmentLP({ instances, maxItems: items, maxSize: opts.k, seed, tolerance });
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
