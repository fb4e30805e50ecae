/**
 * Optional MIP path of DeployOPT for pools too large to enumerate: HiGHS (npm `highs`, WebAssembly)
 * loaded lazily, so the algorithm bundles for browsers and edge runtimes without it. Load it once
 * with `await loadHighs()`; DeployOPT then uses it synchronously whenever it needs it.
 */
import { callDefaultExport, ErrorCode, optionalDependency, RouteKitError } from "@routekit/core";

/** The part of the HiGHS solver interface DeployOPT uses (`highs` npm package). */
export interface HighsLike {
  solve(
    problem: string,
    options?: Record<string, unknown>,
  ): {
    Status: string;
    ObjectiveValue: number;
    Columns: Record<string, { Primal?: number }>;
  };
}

/** The optional dependency's name, in a variable so bundlers leave the import alone. */
const HIGHS = "highs";

const highsDep = optionalDependency<HighsLike>({
  name: "highs",
  purpose: "DeployOPT's MIP path",
  importer: () => import(/* @vite-ignore */ /* webpackIgnore: true */ HIGHS),
  init: callDefaultExport,
});

/**
 * Loads HiGHS (once) for DeployOPT's large pools and returns it. Throws MISSING_DEPENDENCY when the optional
 * peer dependency `highs` is not installed.
 */
export function loadHighs(): Promise<HighsLike> {
  return highsDep.load();
}

/** Uses `solver` (e.g. an instance from `await (await import("highs")).default()`) for DeployOPT's MIP path. */
export function setMipSolver(solver: HighsLike | undefined): void {
  highsDep.set(solver);
}

/** The loaded MIP solver, if any. */
export function mipSolver(): HighsLike | undefined {
  return highsDep.get();
}

function num(x: number): string {
  return Number(x.toPrecision(17)).toString();
}

/**
 * Solves max u.d s.t. c.d <= b (omitted when b is infinite), sum d = 1, 0 <= d_i <= alpha_i y_i,
 * sum y <= s, y binary, with HiGHS; returns the indices with y_i = 1 (at most s), or undefined when
 * the MIP is infeasible.
 */
export function solveDeployMip(
  highs: HighsLike,
  u: ArrayLike<number>,
  c: ArrayLike<number>,
  alpha: ArrayLike<number>,
  n: number,
  b: number,
  s: number,
): number[] | undefined {
  const obj: string[] = [];
  const cost: string[] = [];
  const mass: string[] = [];
  const card: string[] = [];
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    obj.push(`${num(u[i] as number)} d${i}`);
    cost.push(`${num(c[i] as number)} d${i}`);
    mass.push(`d${i}`);
    card.push(`y${i}`);
    rows.push(` cap${i}: d${i} - ${num(alpha[i] as number)} y${i} <= 0`);
  }
  const lines = ["Maximize", ` obj: ${obj.join(" + ").replace(/\+ -/g, "- ")}`, "Subject To"];
  if (Number.isFinite(b)) lines.push(` budget: ${cost.join(" + ")} <= ${num(b)}`);
  lines.push(` mass: ${mass.join(" + ")} = 1`, ...rows, ` card: ${card.join(" + ")} <= ${s}`, "Bounds");
  for (let i = 0; i < n; i++) lines.push(` 0 <= d${i} <= ${num(alpha[i] as number)}`);
  lines.push("Binary", ` ${card.join(" ")}`, "End");
  const res = highs.solve(lines.join("\n"), { output_flag: false, mip_rel_gap: 1e-9 });
  if (res.Status === "Infeasible") return undefined;
  if (res.Status !== "Optimal") {
    throw new RouteKitError(ErrorCode.Numerical, `HiGHS did not solve the deployment MIP: status ${res.Status}`);
  }
  const chosen: number[] = [];
  for (let i = 0; i < n; i++) if ((res.Columns[`y${i}`]?.Primal ?? 0) > 0.5) chosen.push(i);
  return chosen;
}
