/**
 * Test-only cross-check of DeployOPT: the MIP solved by HiGHS (npm `highs`, a dev dependency).
 */
import { ErrorCode, RouteKitError } from "@routekit/core";
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

let highs: Promise<HighsLike> | undefined;

/** Loads HiGHS once. */
export function loadHighs(): Promise<HighsLike> {
  highs ??= import("highs").then((m) => (m.default as unknown as () => Promise<HighsLike>)());
  return highs;
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
