import type { PolicySummary } from "@routekit/core";

/**
 * "mean ± se" with a precision suited to the magnitude. A standard error below 1e-12 of the mean is
 * rounding in the sums, not spread over seeds (seeds that replay the same values in another order),
 * so it is shown as none.
 */
export function pm(m: { mean: number; se: number }, digits = 3): string {
  const f = (x: number) =>
    Number.isFinite(x) ? (Math.abs(x) >= 10 ** digits ? x.toFixed(0) : x.toPrecision(digits)) : "-";
  return m.se > 1e-12 * Math.abs(m.mean) ? `${f(m.mean)} ± ${f(m.se)}` : f(m.mean);
}

/** A plain-text table with right-aligned numeric columns. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join("  ");
  const sep = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), sep, ...rows.map(line)].join("\n");
}

type Field = { mean: number; se: number };

/**
 * The optional result columns, shown when some policy has them: realised O2B and OPR (environments
 * that define them), the share of repeated-prompt rounds (environments that say) and, when there are
 * repeats, the first-pass reward per round, O2B and OPR (rounds whose prompt was unseen so far).
 */
export function extraColumns(summary: readonly PolicySummary[]): {
  header: string[];
  cells: (s: PolicySummary) => string[];
} {
  const any = (f: (s: PolicySummary) => number) => summary.some((s) => Number.isFinite(f(s)));
  const cols: [string, (s: PolicySummary) => Field][] = [["reward/round", (s) => s.rewardPerRound]];
  if (any((s) => s.o2bRealised?.mean)) cols.push(["O2B real.", (s) => s.o2bRealised]);
  if (any((s) => s.oprRealised?.mean)) cols.push(["OPR real.", (s) => s.oprRealised]);
  if (any((s) => s.repeatShare?.mean)) {
    cols.push(["repeats", (s) => s.repeatShare]);
    if (summary.some((s) => (s.repeatShare?.mean ?? 0) > 0)) {
      cols.push(["1st-pass reward", (s) => s.firstPassRewardPerRound]);
      cols.push(["1st-pass O2B", (s) => s.firstPassO2b]);
      cols.push(["1st-pass OPR", (s) => s.firstPassOpr]);
    }
  }
  const none = { mean: Number.NaN, se: 0 };
  return { header: cols.map((c) => c[0]), cells: (s) => cols.map((c) => pm(c[1](s) ?? none)) };
}

/**
 * The results table: final regret, O2B (not for cascades, where there is no single best model to outscore), OPR,
 * cost per round (when any), reward per round, the optional columns of {@link extraColumns} and time per round,
 * mean ± s.e. over seeds.
 */
export function summaryTable(summary: readonly PolicySummary[], withCost: boolean): string {
  const extra = extraColumns(summary);
  const withQueries = summary.some((s) => s.queriesPerRound !== undefined);
  const header = [
    "policy",
    "regret",
    ...(withQueries ? [] : ["O2B"]),
    "OPR",
    ...(withCost ? ["cost/round"] : []),
    ...(withQueries ? ["queries/round"] : []),
    ...extra.header,
    "µs/round",
  ];
  const rows = summary.map((s) => [
    s.policy,
    pm(s.regret),
    ...(withQueries ? [] : [pm(s.o2b)]),
    pm(s.opr),
    ...(withCost ? [pm(s.costPerRound)] : []),
    ...(withQueries ? [s.queriesPerRound ? pm(s.queriesPerRound) : "-"] : []),
    ...extra.cells(s),
    pm(s.usPerRound, 2),
  ]);
  return table(header, rows);
}

/** `n unit` with the plural when n != 1: "1 seed", "5 seeds". */
export function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/**
 * A registry's paper field as users see it: the internal catalogue number some entries start with
 * ("003 (Hu, Leung, Farnia, ICML 2025), baseline") is dropped, leaving the citation.
 */
export function citation(paper: string): string {
  return paper
    .replace(/^\s*(paper\s+)?\d{3}\s*\(([^)]*)\)/i, "$2")
    .replace(/^\s*(paper\s+)?\d{3}\b[\s,:;]*/i, "")
    .replace(/\s+of\s+(paper\s+)?\d{3}\b/gi, "")
    .trim();
}

/** The type of a parameter as `list algorithms NAME` shows it (the type of its default): number, boolean or string. */
export function paramType(v: number | string | boolean): string {
  return typeof v;
}
