/**
 * V(b, S) of the paper's benchmark: the best expected reward per query over routings of at most
 * `maxDeployed` models of S under the budget and caps, with the true means. 0 when no such routing
 * exists (paper, Section 3). Suitable as the `oracle` of the environments in @routekit/environments.
 */
import { isRouteKitError } from "@routekit/core";
import { DeploySolver } from "./deploy.js";

const solver = new DeploySolver();

/** Exact V(b, S) and an optimal routing (all zeros when infeasible). */
export function stageValue(
  rewards: ArrayLike<number>,
  costs: ArrayLike<number>,
  caps: ArrayLike<number>,
  budget: number,
  maxDeployed: number,
): { value: number; weights: Float64Array } {
  const n = rewards.length;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  try {
    const r = solver.solve(rewards, costs, caps, n, budget, maxDeployed, order);
    if (r.status !== "ok") return { value: 0, weights: new Float64Array(n) };
    return { value: r.value, weights: r.weights };
  } catch (e) {
    if (isRouteKitError(e, "INFEASIBLE_BUDGET")) return { value: 0, weights: new Float64Array(n) };
    throw e;
  }
}
