/**
 * The Davis-Gallego-Topaloglu (2014) LP for the capacitated MNL assortment problem, solved with
 * HiGHS (WebAssembly, loaded asynchronously on first use). This is what the paper's experiments
 * used (through PuLP/CBC); RouteKit keeps it as an asynchronous cross-check of the exact synchronous
 * Dinkelbach solver that `select()` uses.
 *
 * `highs` is an optional peer dependency: it is imported only when an LP is solved, through a
 * specifier bundlers do not follow, so a browser bundle of the policies never contains it.
 *
 * With y_i = p_i / v_i (better scaled than the p_i form p_i of the paper, same LP):
 *   max  sum_i r_i v_i y_i
 *   s.t. p_0 + sum_i v_i y_i = 1,   sum_i y_i <= K p_0 / v0,   0 <= y_i <= p_0 / v0,   p_0 >= 0.
 * HiGHS's simplex returns a vertex, whose support { i : p_i > 1e-9 } is an optimal assortment.
 */
import {
  assertInRange,
  assertInt,
  assertPositive,
  assertVector,
  callDefaultExport,
  ErrorCode,
  errorText,
  isFloatArray,
  numberOption,
  optionalDependency,
  Rng,
  RouteKitError,
  readLength,
  readOptions,
  rejectUnknownOptions,
} from "@routekit/core";
import { assortmentRevenue, copyChecked, DinkelbachWorkspace, dinkelbachAssortment } from "./assortment.js";
import { MAX_MNL_SIZE } from "./base.js";

/**
 * A checked Float64Array copy of a vector argument (each entry read once): INVALID_ARGUMENT for anything but a
 * Float64Array, a Float32Array or a number array (null, a string, an Int32Array), then as `assertVector`.
 */
function vectorArgument(x: unknown, what: string, n?: number): Float64Array {
  if (!isFloatArray(x) && !Array.isArray(x)) assertVector(x, n ?? 0, what);
  const src = x as ArrayLike<number>;
  return copyChecked(src, n ?? readLength(src, what), what);
}

interface HighsLike {
  solve(
    problem: string,
    options?: Record<string, unknown>,
  ): {
    Status: string;
    ObjectiveValue: number;
    Columns: Record<string, { Primal?: number }>;
  };
}

/** HiGHS's default `small_matrix_value` and `large_matrix_value`: the coefficients it keeps faithfully. */
const LP_COEFFICIENT = { min: 1e-9, max: 1e15 } as const;

function checkCoefficient(x: number, what: string): void {
  if (!(x >= LP_COEFFICIENT.min && x < LP_COEFFICIENT.max)) {
    throw new RouteKitError(
      ErrorCode.OutOfRange,
      `the assortment LP's coefficient ${what} = ${x} is outside [${LP_COEFFICIENT.min}, ${LP_COEFFICIENT.max}), the range HiGHS keeps faithfully (every v_i, K / v0 and 1 / v0 must be in it): scale v and v0 together, or leave out items whose attraction is negligible`,
    );
  }
}

/** The optional dependency's name, in a variable so bundlers leave the import alone. */
const LP_OPTION_KEYS = ["supportThreshold"] as const;
const CROSS_CHECK_OPTION_KEYS = ["instances", "seed", "maxItems", "maxSize", "tolerance"] as const;

let highsSpecifier = "highs";

const highsDep = optionalDependency<HighsLike>({
  name: "highs",
  purpose: "the assortment LP",
  importer: () => import(/* @vite-ignore */ /* webpackIgnore: true */ highsSpecifier),
  init: callDefaultExport,
});

/** Test hook: the module name the next first load imports (e.g. a missing one). Not exported publicly. */
export function setHighsSpecifierForTests(name: string): void {
  highsSpecifier = name;
  highsDep.set(undefined);
}

/**
 * Loads (once) and returns the HiGHS solver. Throws MISSING_DEPENDENCY when the `highs` package is
 * not installed or fails to load (a failed load is retried on the next call).
 */
export function loadHighsSolver(): Promise<HighsLike> {
  return highsDep.load();
}

export interface LpAssortmentResult {
  /** The support of the vertex solution, in increasing index order. */
  readonly items: number[];
  /** The LP optimum (= the optimal expected revenue). */
  readonly objective: number;
  /** Revenue of `items` recomputed from v, r and v0 (equals `objective` at a vertex). */
  readonly revenue: number;
  /** Choice probabilities of the LP solution, p_i = v_i y_i. */
  readonly probabilities: number[];
}

function num(x: number): string {
  // LP-format numbers: plain decimal or exponent form, 17 significant digits.
  return Number(x.toPrecision(17)).toString();
}

/**
 * Solves the assortment LP for attractions `v` (> 0), revenues `r` in [0, 1], capacity K and v0 > 0.
 * Scale v and v0 together to keep the coefficients moderate (e.g. v_i = e^{u_i - max u}): every v_i, K / v0
 * and 1 / v0 must be in [1e-9, 1e15) (HiGHS drops smaller matrix coefficients and refuses larger ones), else
 * OUT_OF_RANGE before HiGHS is loaded; a failure inside HiGHS is NUMERICAL. `v` and `r` are Float64Arrays,
 * Float32Arrays or number arrays, copied once and then checked; `options.supportThreshold` (default 1e-9) is in [0, 1].
 */
export async function solveAssortmentLP(
  vArg: ArrayLike<number>,
  rArg: ArrayLike<number>,
  K: number,
  v0: number,
  options: { supportThreshold?: number } = {},
): Promise<LpAssortmentResult> {
  // Copied once and checked (v and r were read again after the checks, and null was a TypeError).
  const vIn = vectorArgument(vArg, "v");
  const n = vIn.length;
  if (Array.isArray(rArg) || isFloatArray(rArg)) {
    const rn = readLength(rArg as ArrayLike<number>, "revenues");
    if (rn !== n) throw new RouteKitError(ErrorCode.DimensionMismatch, `revenues has length ${rn}, expected ${n}`);
  }
  const rIn = vectorArgument(rArg, "r", n);
  const o = readOptions(options, "solveAssortmentLP");
  rejectUnknownOptions(o, LP_OPTION_KEYS, "solveAssortmentLP");
  const threshold = numberOption(o, "supportThreshold", 1e-9, { min: 0, max: 1 });
  const v: ArrayLike<number> = vIn;
  const r: ArrayLike<number> = rIn;
  assertInt(K, "K", 1);
  assertPositive(v0, "v0");
  for (let i = 0; i < n; i++) {
    assertPositive(v[i] as number, `v[${i}]`);
    assertInRange(r[i] as number, `r[${i}]`, 0, 1);
  }
  // HiGHS drops matrix coefficients below 1e-9 (the LP then silently loses an item's attraction: wrong optima were
  // returned at v_i = 2e-10) and refuses a model with one at or above 1e15 (a plain Error).
  checkCoefficient(K / v0, "K / v0");
  checkCoefficient(1 / v0, "1 / v0");
  for (let i = 0; i < n; i++) checkCoefficient(v[i] as number, `v[${i}]`);
  const highs = await loadHighsSolver();
  const lines: string[] = [];
  const obj: string[] = [];
  for (let i = 0; i < n; i++) obj.push(`${num((r[i] as number) * (v[i] as number))} y${i}`);
  lines.push("Maximize", ` obj: ${obj.length ? obj.join(" + ") : "0 p0"}`, "Subject To");
  const mass = ["p0"];
  for (let i = 0; i < n; i++) mass.push(`${num(v[i] as number)} y${i}`);
  lines.push(` mass: ${mass.join(" + ")} = 1`);
  if (n > 0) {
    const cap: string[] = [];
    for (let i = 0; i < n; i++) cap.push(`y${i}`);
    lines.push(` cap: ${cap.join(" + ")} - ${num(K / v0)} p0 <= 0`);
    for (let i = 0; i < n; i++) lines.push(` ub${i}: y${i} - ${num(1 / v0)} p0 <= 0`);
  }
  lines.push("End");
  let res: ReturnType<HighsLike["solve"]>;
  try {
    res = highs.solve(lines.join("\n"), { output_flag: false, solver: "simplex" });
  } catch (e) {
    throw new RouteKitError(ErrorCode.Numerical, `HiGHS could not solve the assortment LP: ${errorText(e)}`);
  }
  if (res.Status !== "Optimal") {
    throw new RouteKitError(ErrorCode.Numerical, `HiGHS did not solve the assortment LP: status ${res.Status}`);
  }
  const items: number[] = [];
  const probabilities: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = (v[i] as number) * (res.Columns[`y${i}`]?.Primal ?? 0);
    probabilities.push(p);
    if (p > threshold) items.push(i);
  }
  return {
    items,
    objective: res.ObjectiveValue,
    revenue: assortmentRevenue(v, r, items, items.length, v0),
    probabilities,
  };
}

export interface LpCrossCheckReport {
  readonly instances: number;
  /** Largest |R(Dinkelbach) - LP optimum| over the instances. */
  readonly maxRevenueGap: number;
  /** Instances where the gap exceeded `tolerance`. */
  readonly mismatches: number;
  readonly dinkelbachMsPerInstance: number;
  readonly lpMsPerInstance: number;
}

/**
 * Cross-checks the exact Dinkelbach solver against the HiGHS LP on random instances
 * (N in [1, maxItems], K in [1, N] or K = min(maxSize, N) when `maxSize` is given, v0 in {0.5, 1, 3},
 * v = e^{U(-2, 2)}, r ~ U(0, 1)), for tests and the `routekit check assortment-lp` command. Options are read with
 * core's option readers (an unknown key is INVALID_ARGUMENT): `instances` an integer >= 1, `maxItems` an integer in
 * [1, 2^20], `maxSize` an integer >= 1, `tolerance` >= 0 (Infinity: nothing counts as a mismatch).
 */
export async function crossCheckAssortmentLP(
  options: { instances?: number; seed?: number; maxItems?: number; maxSize?: number; tolerance?: number } = {},
): Promise<LpCrossCheckReport> {
  // Each option read once, through core's readers (null was a TypeError, an unknown key was ignored).
  const o = readOptions(options, "crossCheckAssortmentLP");
  rejectUnknownOptions(o, CROSS_CHECK_OPTION_KEYS, "crossCheckAssortmentLP");
  const instances = numberOption(o, "instances", 500, { integer: true, min: 1 });
  const maxItems = numberOption(o, "maxItems", 30, { integer: true, min: 1, max: MAX_MNL_SIZE });
  const maxSizeOption = o.maxSize === undefined ? undefined : numberOption(o, "maxSize", 1, { integer: true, min: 1 });
  // Infinity is accepted (no instance counts as a mismatch), as `routekit check assortment-lp --tolerance` does.
  const tol = o.tolerance;
  const tolerance =
    tol === undefined
      ? 1e-7
      : typeof tol === "number" && tol === Infinity
        ? tol
        : numberOption(o, "tolerance", 1e-7, { min: 0 });
  const rng = Rng.fromSeed((o.seed ?? 0) as number);
  const out = new Int32Array(maxItems);
  const ws = new DinkelbachWorkspace(maxItems);
  let gap = 0;
  let mismatches = 0;
  let tD = 0;
  let tL = 0;
  for (let k = 0; k < instances; k++) {
    const n = 1 + rng.int(maxItems);
    const K = maxSizeOption === undefined ? 1 + rng.int(n) : Math.min(maxSizeOption, n);
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
