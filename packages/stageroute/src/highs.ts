/**
 * `@routekit/stageroute/highs`: DeployOPT by the HiGHS MIP solver (npm `highs`, WebAssembly), an optional
 * peer dependency that only this entry loads. The main entry never imports it, so bundles of the main
 * entry stay dependency-free.
 *
 * ```ts
 * import { StageRoute } from "@routekit/stageroute";
 * import { highsDeploySolver } from "@routekit/stageroute/highs";
 *
 * const deploySolver = await highsDeploySolver(); // loads the wasm once
 * const router = new StageRoute({ arms, budget: 1, maxDeployed: 16, stageLength: 500, maxShare: 0.05, deploySolver });
 * const again = StageRoute.fromJSON(router.toJSON(), { deploySolver });
 * ```
 *
 * @module
 */
import {
  callDefaultExport,
  checkNumber,
  describe,
  ErrorCode,
  errorText,
  isRouteKitError,
  optionalDependency,
  optionKeys,
  RouteKitError,
  readOptions,
  rejectUnknownOptions,
} from "@routekit/core";
import type { DeployProblem, ExternalDeploySolver } from "./external.js";

export type { DeployProblem, ExternalDeploySolver } from "./external.js";

/** The part of a loaded HiGHS instance (`await require("highs")()`) the solver uses. */
export interface HighsInstance {
  solve(
    problem: string,
    options?: Record<string, unknown>,
  ): {
    Status: string;
    Columns: Record<string, { Primal?: number }>;
  };
}

/** Options of {@link highsDeploySolver}. */
export interface HighsDeploySolverOptions {
  /** A HiGHS instance already loaded (default: `highs` is imported and loaded once per process). */
  readonly highs?: HighsInstance;
  /**
   * HiGHS options merged over the defaults: `output_flag: false`, `mip_rel_gap: 1e-9`, `mip_abs_gap: 1e-12`
   * (feasibility tolerances stay HiGHS's: with `mip_feasibility_tolerance: 1e-9`, HiGHS 1.15.3 reported
   * "Optimal" for subsets up to 6% off the optimum on a rate-limited pool, depending on its models' order).
   */
  readonly options?: Readonly<Record<string, unknown>>;
}

/** The keys of {@link HighsDeploySolverOptions}. */
const HIGHS_OPTION_KEYS = optionKeys<HighsDeploySolverOptions>()(["highs", "options"]);

/**
 * The options of {@link highsDeploySolver}, checked as every constructor's are: an object or nothing, no unknown key,
 * `highs` an object with a `solve` function, `options` an object (INVALID_ARGUMENT). `null` was a TypeError, and
 * anything else was accepted until the first boundary, which then fell back to the built-in search.
 */
function readHighsOptions(options: unknown): { highs: HighsInstance | undefined; extra: Record<string, unknown> } {
  const o = readOptions(options, "highsDeploySolver", true);
  rejectUnknownOptions(o, HIGHS_OPTION_KEYS, "highsDeploySolver");
  const highs = o.highs;
  if (highs !== undefined) {
    let solve: unknown;
    try {
      solve =
        highs !== null && (typeof highs === "object" || typeof highs === "function")
          ? (highs as HighsInstance).solve
          : undefined;
    } catch (e) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `reading highsDeploySolver option highs.solve threw: ${errorText(e)}`,
      );
    }
    if (typeof solve !== "function")
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `highsDeploySolver option highs must be a loaded HiGHS instance (with a solve function), got ${describe(highs)}`,
      );
  }
  const extra = o.options;
  if (extra !== undefined && (extra === null || typeof extra !== "object" || Array.isArray(extra)))
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `highsDeploySolver option options must be an object of HiGHS options, got ${describe(extra)}`,
    );
  return { highs: highs as HighsInstance | undefined, extra: { ...(extra as Record<string, unknown> | undefined) } };
}

/** Tight gaps: the default absolute gap (1e-6) would accept subsets 1e-6 below the optimum of rewards in [0, 1]. */
const DEFAULTS: Readonly<Record<string, unknown>> = {
  output_flag: false,
  mip_rel_gap: 1e-9,
  mip_abs_gap: 1e-12,
};

/** The optional dependency's name, in a variable so bundlers of this entry leave the import alone. */
const highsSpecifier = "highs";

/**
 * `highs`, imported and instantiated once per process: MISSING_DEPENDENCY (as for `@routekit/mnl`'s
 * assortment LP) when it cannot be imported from where this script runs (not installed, or a bundle of this entry
 * run where no `node_modules/highs` is reachable: bundlers leave the import to run time), or when its wasm is not
 * beside its script (a bundler that inlined `highs` moved it away from `highs.wasm`). {@link highsDeploySolver}
 * adds `BUNDLE_FIX` to either message.
 */
const highsDep = optionalDependency<HighsInstance>({
  name: "highs",
  purpose: "@routekit/stageroute/highs (DeployOPT by HiGHS)",
  importer: () => import(/* @vite-ignore */ /* webpackIgnore: true */ highsSpecifier),
  init: callDefaultExport,
});

/** The fixes for a bundle that a failed load names, after the loader's own message. */
const BUNDLE_FIX =
  'from a bundle: keep "highs" external and installed where the bundle runs, or pass { highs } that you loaded ' +
  '(the default export of "highs", called with { locateFile: () => "/path/to/highs.wasm" })';

/** Loads `highs` once; a failure is MISSING_DEPENDENCY naming the fixes (install it, keep it external, or pass it). */
async function loadHighs(): Promise<HighsInstance> {
  try {
    return await highsDep.load();
  } catch (e) {
    if (isRouteKitError(e, ErrorCode.MissingDependency)) {
      throw new RouteKitError(ErrorCode.MissingDependency, `${e.message}; ${BUNDLE_FIX}`);
    }
    throw e;
  }
}

/** Exact decimal text of a double in the LP format (17 significant digits round-trip). */
function num(x: number): string {
  return Number(x.toPrecision(17)).toString();
}

/** `coef name`, with the sign written as the LP format's operator. */
function term(first: boolean, coef: number, name: string): string {
  const sign = coef < 0 || Object.is(coef, -0) ? "-" : "+";
  const mag = num(Math.abs(coef));
  return first ? `${sign === "-" ? "-" : ""}${mag} ${name}` : ` ${sign} ${mag} ${name}`;
}

/**
 * A problem as the policy builds it: `n` an integer >= 0, `reward`, `cost` and `cap` at least `n` finite numbers,
 * `budget` a number (+Infinity: no budget row), `slots` an integer >= 0. Called directly, `solve(null)` was a
 * TypeError and a NaN reward was written into the MIP text as "NaN", which HiGHS read as a variable name.
 */
function checkProblem(p: DeployProblem): void {
  if (p === null || typeof p !== "object")
    throw new RouteKitError(ErrorCode.InvalidArgument, `a DeployProblem must be an object, got ${describe(p)}`);
  const { n, slots, budget } = p;
  checkNumber(n, "problem.n", { integer: true, min: 0 });
  checkNumber(slots, "problem.slots", { integer: true, min: 0 });
  if (typeof budget !== "number" || Number.isNaN(budget) || budget === Number.NEGATIVE_INFINITY)
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `problem.budget must be a number (Infinity: no budget row), got ${describe(budget)}`,
    );
  for (const key of ["reward", "cost", "cap"] as const) {
    const v = p[key];
    if (v === null || typeof v !== "object" || !(v.length >= n))
      throw new RouteKitError(ErrorCode.InvalidArgument, `problem.${key} must hold ${n} numbers, got ${describe(v)}`);
    for (let i = 0; i < n; i++) checkNumber(v[i], `problem.${key}[${i}]`);
  }
}

/**
 * The DeployOPT MIP in CPLEX LP format: max reward.d s.t. cost.d <= budget (when finite), sum d = 1,
 * d_i <= cap_i y_i, sum y <= slots, 0 <= d_i <= cap_i, y binary.
 */
export function deployMipText(p: DeployProblem): string {
  checkProblem(p);
  const { n } = p;
  const obj: string[] = [];
  const cost: string[] = [];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    obj.push(term(i === 0, p.reward[i] as number, `d${i}`));
    cost.push(term(i === 0, p.cost[i] as number, `d${i}`));
  }
  lines.push("Maximize", ` obj: ${obj.join("")}`, "Subject To");
  if (Number.isFinite(p.budget)) lines.push(` budget: ${cost.join("")} <= ${num(p.budget)}`);
  const mass: string[] = [];
  const card: string[] = [];
  for (let i = 0; i < n; i++) {
    mass.push(`d${i}`);
    card.push(`y${i}`);
    lines.push(` cap${i}: d${i} - ${num(p.cap[i] as number)} y${i} <= 0`);
  }
  lines.push(` mass: ${mass.join(" + ")} = 1`, ` card: ${card.join(" + ")} <= ${p.slots}`, "Bounds");
  for (let i = 0; i < n; i++) lines.push(` 0 <= d${i} <= ${num(p.cap[i] as number)}`);
  lines.push("Binary", ` ${card.join(" ")}`, "End");
  return lines.join("\n");
}

/**
 * Loads HiGHS (once per process) and returns an {@link ExternalDeploySolver} named "highs" for the option
 * `deploySolver`; MISSING_DEPENDENCY when `highs` cannot be loaded (the message names the fixes for a bundle:
 * keep `highs` external and installed where the bundle runs, or pass `{ highs }` loaded yourself). Its `solve`
 * returns the models with y = 1 at HiGHS's optimum, `null` when HiGHS reports
 * the MIP infeasible, and throws RouteKitError NUMERICAL on any other status (time limit, unbounded, solver
 * error): the policy then runs its built-in search for that boundary and counts it in `solverFallbacks`.
 * HiGHS is deterministic, so the same problem gives the same subset; among equally good subsets it may
 * pick another than the built-in search would.
 */
export async function highsDeploySolver(options: HighsDeploySolverOptions = {}): Promise<ExternalDeploySolver> {
  const given = readHighsOptions(options);
  const highs = given.highs ?? (await loadHighs());
  const settings = { ...DEFAULTS, ...given.extra };
  return Object.freeze({
    name: "highs",
    solve(problem: DeployProblem): number[] | null {
      const text = deployMipText(problem);
      let res: ReturnType<HighsInstance["solve"]>;
      try {
        res = highs.solve(text, settings);
      } catch (e) {
        // HiGHS's own failures (an option it does not know, a model it cannot read: coefficients beyond its
        // infinity, 1e20) were plain Errors.
        if (isRouteKitError(e)) throw e;
        throw new RouteKitError(ErrorCode.Numerical, `HiGHS did not solve the DeployOPT MIP: ${errorText(e)}`);
      }
      if (res.Status === "Infeasible") return null;
      if (res.Status !== "Optimal") {
        throw new RouteKitError(ErrorCode.Numerical, `HiGHS did not solve the DeployOPT MIP: status "${res.Status}"`);
      }
      const chosen: number[] = [];
      for (let i = 0; i < problem.n; i++) if ((res.Columns[`y${i}`]?.Primal ?? 0) > 0.5) chosen.push(i);
      return chosen;
    },
  });
}
