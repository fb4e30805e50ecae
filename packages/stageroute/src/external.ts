/**
 * The protocol of an external DeployOPT solver (e.g. a MIP solver): the package hands it the subset
 * problem and computes the routing over the subset it returns with its own exact routing LP, so the value,
 * the weights and the budget check stay the package's own whatever solver is plugged in.
 */
import { ErrorCode, RouteKitError } from "@routekit/core";

/**
 * One subset problem: choose at most `slots` of the `n` models to maximise
 *
 *   sum_m reward_m d_m  s.t.  sum_m cost_m d_m <= budget,  sum_m d_m = 1,  0 <= d_m <= cap_m,  |supp(d)| <= slots
 *
 * (no budget row when `budget` is Infinity). `reward` holds the reward UCBs, or minus the cost LCBs when
 * DeployOPT looks for the smallest reachable cost (the budget-relaxed case); costs are in cost units.
 * Models are listed in the policy's tie-break order (see `tieBreak`). The arrays are fresh copies.
 */
export interface DeployProblem {
  readonly n: number;
  readonly reward: Float64Array;
  readonly cost: Float64Array;
  readonly cap: Float64Array;
  readonly budget: number;
  readonly slots: number;
}

/**
 * An exact solver for {@link DeployProblem}, plugged in with the option `deploySolver`. `solve` returns
 * the indices of the chosen models (at most `slots`, any order), or `null` when no subset is feasible; it
 * must be synchronous and deterministic (the same problem gives the same subset), so that replicas
 * deploy the same models. `name` is recorded in snapshots: a restore must be given a solver of that name.
 */
export interface ExternalDeploySolver {
  readonly name: string;
  solve(problem: DeployProblem): readonly number[] | null;
}

/** Checks the option `deploySolver` (INVALID_ARGUMENT unless it has a non-empty `name` and a `solve` function). */
export function checkDeploySolver(v: unknown, what = "option deploySolver"): ExternalDeploySolver | undefined {
  if (v === undefined) return undefined;
  const o = v as { name?: unknown; solve?: unknown } | null;
  if (
    o === null ||
    typeof o !== "object" ||
    typeof o.solve !== "function" ||
    typeof o.name !== "string" ||
    o.name.length === 0
  ) {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `${what} must be an object { name: non-empty string, solve(problem) } (e.g. await highsDeploySolver() from "@routekit/stageroute/highs")`,
    );
  }
  return o as ExternalDeploySolver;
}
