/**
 * V(b, S) of the paper's benchmark: the best expected reward per query over routings of at most
 * `maxDeployed` models of S under the budget and caps, with the true means. 0 when no such routing
 * exists (paper, Section 3). Suitable as the `oracle` of the environments in @routekit/environments.
 */
import {
  checkNumber,
  describe,
  ErrorCode,
  isFloatArray,
  isRouteKitError,
  RouteKitError,
  readLength,
  readVectorInto,
} from "@routekit/core";
import { DeploySolver } from "./deploy.js";

const solver = new DeploySolver();

/**
 * One of stageValue's lists, read once into a copy (a getter cannot pass the checks with one value and be solved
 * with another): `n` finite numbers, each in [min, max] (open at min when `openMin`).
 */
function readList(x: unknown, n: number, what: string, min: number, max: number, openMin = false): Float64Array {
  const v = readVectorInto(x, n, new Float64Array(n), what);
  for (let i = 0; i < n; i++) {
    const e = v[i] as number;
    if (!(openMin ? e > min : e >= min) || !(e <= max)) {
      throw new RouteKitError(
        ErrorCode.OutOfRange,
        `${what}[${i}] must be in ${openMin ? "(" : "["}${min}, ${max}], got ${e}`,
        { index: i },
      );
    }
  }
  return v;
}

/**
 * Exact V(b, S) and an optimal routing (all zeros when infeasible). `rewards` in [0, 1], `costs` >= 0 and `caps`
 * in (0, 1] are equally long lists (number[], Float64Array or Float32Array) of finite numbers, `budget` a number
 * >= 0 (+Infinity: no budget row) and `maxDeployed` an integer >= 1; anything else throws `RouteKitError`
 * (INVALID_ARGUMENT, NON_FINITE, DIMENSION_MISMATCH or OUT_OF_RANGE).
 */
export function stageValue(
  rewards: ArrayLike<number>,
  costs: ArrayLike<number>,
  caps: ArrayLike<number>,
  budget: number,
  maxDeployed: number,
): { value: number; weights: Float64Array } {
  if (!isFloatArray(rewards) && !Array.isArray(rewards)) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `rewards must be a Float64Array, Float32Array or number[], got ${describe(rewards)}`,
    );
  }
  const n = readLength(rewards, "rewards");
  const u = readList(rewards, n, "rewards", 0, 1);
  const c = readList(costs, n, "costs", 0, Number.MAX_VALUE);
  const a = readList(caps, n, "caps", 0, 1, true);
  if (typeof budget !== "number")
    throw new RouteKitError(ErrorCode.InvalidArgument, `budget must be a number, got ${describe(budget)}`);
  if (Number.isNaN(budget)) throw new RouteKitError(ErrorCode.NonFinite, "budget must be a number >= 0, got NaN");
  if (!(budget >= 0))
    throw new RouteKitError(ErrorCode.OutOfRange, `budget must be >= 0 (+Infinity: no budget), got ${budget}`);
  // A fractional maxDeployed made the subset enumeration loop forever.
  checkNumber(maxDeployed, "maxDeployed", { integer: true, min: 1 });
  const order = Int32Array.from({ length: n }, (_, i) => i);
  try {
    const r = solver.solve(u, c, a, n, budget, maxDeployed, order);
    if (r.status !== "ok") return { value: 0, weights: new Float64Array(n) };
    return { value: r.value, weights: r.weights };
  } catch (e) {
    if (isRouteKitError(e, "INFEASIBLE_BUDGET")) return { value: 0, weights: new Float64Array(n) };
    throw e;
  }
}
