/** The CLI's shared option parsers, common experiment flags and small output helpers (used by every command). */
import { availableParallelism } from "node:os";
import { type Command, InvalidArgumentError } from "commander";
import { UsageError } from "./errors.js";
import { numberText } from "./number-text.js";
import type { FamilyRegistry, Params } from "./registry/types.js";
import { MAX_POINTS, MAX_SEEDS, parseAssignment } from "./spec.js";

/** Where the CLI writes and what it knows; tests substitute their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Whether stderr is a terminal (live progress bar) or not (plain lines). */
  readonly isTTY?: boolean;
  readonly registry?: FamilyRegistry;
}

export function int(min: number, what: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const x = Number(v);
    if (!/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(x) || x < min || x > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
      throw new InvalidArgumentError(`${what} must be an integer ${range}, got "${v}"`);
    }
    return x;
  };
}

/** A finite number for which `ok` holds, else bad usage saying it `must be ${expected}`. */
export function real(what: string, expected: string, ok: (x: number) => boolean) {
  return (v: string) => {
    const x = numberText(v);
    if (Number.isNaN(x) || !ok(x)) {
      throw new InvalidArgumentError(`${what} must be ${expected}, got "${v}"`);
    }
    return x;
  };
}

export const nonNegative = (what: string) => real(what, "a number >= 0", (x) => x >= 0);
export const positive = (what: string) => real(what, "a number > 0", (x) => x > 0);
export const unitOpen = (what: string) => real(what, "in (0, 1)", (x) => x > 0 && x < 1);
export const propensity = (what: string) => real(what, "in (0, 1]", (x) => x > 0 && x <= 1);

/**
 * A file or directory path: an empty one (an unset shell variable, `--out "$DIR"`) is bad usage, not the current
 * directory (where `--out ""` used to write results.json and the CSVs).
 */
export function path(what: string) {
  return (v: string) => {
    if (v === "") throw new InvalidArgumentError(`${what} must be a non-empty path, got ""`);
    return v;
  };
}

export function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

export interface CommonFlags {
  seeds?: number;
  horizon?: number;
  points?: number;
  out?: string;
  workers?: number;
  json?: boolean;
  quiet?: boolean;
  plots?: boolean;
  png?: boolean;
}

export function addCommon(
  cmd: Command,
  defaults: { outHint: string; seedsHint: string; horizonHint: string },
): Command {
  return cmd
    .option("--seeds <n>", `number of seeds (0..n-1; default ${defaults.seedsHint})`, int(1, "--seeds", MAX_SEEDS))
    .option("--horizon <rounds>", `rounds per run (default ${defaults.horizonHint})`, int(1, "--horizon"))
    .option(
      "--points <n>",
      "points kept per series (memory does not grow with the horizon; default 200)",
      int(2, "--points", MAX_POINTS),
    )
    .option("--out <dir>", `output directory (default ${defaults.outHint})`, path("--out"))
    .option(
      "--workers <n>",
      `worker threads (default: cores = ${availableParallelism()}; 1 = in-process)`,
      int(1, "--workers"),
    )
    .option("--no-plots", "skip plots and the HTML report (JSON and CSV are still written)")
    .option("--no-png", "write plots as SVG only (skips the PNG rendering, about 0.6 s per scenario on a 2-core VM)")
    .option("--json", "print machine-readable results on stdout (no progress, no table)")
    .option("-q, --quiet", "print only the results table (no progress, no file list)");
}

/** Left-aligned columns under a header, indented by two spaces. */
export function rows(io: CliIo, body: readonly string[][], header: readonly string[]): void {
  if (body.length === 0) return;
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  for (const r of all)
    io.stdout.write(
      `  ${r
        .map((c, i) => c.padEnd(widths[i] as number))
        .join("  ")
        .trimEnd()}\n`,
    );
}

/**
 * The `key=value` (or `policy.key=value` when `prefixed`) assignments of a repeatable flag, by target. One key set
 * twice for the same target is bad usage naming `flag`: the flag repeats to set several parameters, and keeping the
 * last value of one silently (`--param ucb1.exploration=1 --param ucb1.exploration=2`) hides a mistake.
 */
export function parseParams(list: readonly string[], prefixed: boolean, flag = "--param"): Map<string, Params> {
  const out = new Map<string, Params>();
  for (const s of list) {
    const a = parseAssignment(s, prefixed);
    const target = a.target ?? "";
    const prev = out.get(target) ?? {};
    if (Object.hasOwn(prev, a.key)) {
      const name = a.target === undefined ? a.key : `${a.target}.${a.key}`;
      throw new UsageError(
        `${flag} ${name} given twice ("${String(prev[a.key])}", then "${a.value}"): set each parameter once`,
      );
    }
    out.set(target, { ...prev, [a.key]: a.value });
  }
  return out;
}
