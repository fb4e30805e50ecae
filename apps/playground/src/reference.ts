/**
 * Reference numbers in structured form and the "within noise" verdict: each reference cell (a policy's
 * mean of one metric over the reference's own seeds) is set beside RouteKit's mean over its seeds.
 */
import type { PolicySummary } from "@routekit/core";
import { table } from "./format.js";

/** The metrics a reference cell can name: fields of a policy summary. */
export const REFERENCE_METRICS = ["regret", "o2b", "opr", "o2bRealised", "oprRealised", "rewardPerRound"] as const;
export type ReferenceMetric = (typeof REFERENCE_METRICS)[number];

/** One reference cell: what another implementation (or the paper) reported for one policy and metric. */
export interface ReferenceValue {
  /** The scenario's policy label it belongs to. */
  readonly policy: string;
  readonly metric: ReferenceMetric;
  /** The reference's mean over its seeds. */
  readonly value: number;
  /** How many seeds the reference averaged. */
  readonly seeds: number;
  /**
   * Half a unit of the quoted value's last digit (".25" -> 0.005, "801" -> 0.5): the reference's mean is
   * known only to within this. Default 0.
   */
  readonly rounding?: number;
}

/** A reference cell beside RouteKit's mean, with its z score and verdict. */
export interface ReferenceCheck extends ReferenceValue {
  /** RouteKit's mean, per-seed standard deviation, standard error and seed count. */
  readonly mean: number;
  readonly std: number;
  readonly se: number;
  readonly n: number;
  /** (mean - value) / sqrt(std^2 / n + std^2 / seeds); NaN without a noise estimate (under 2 seeds). */
  readonly z: number;
  /** The same z from the nearest end of [value - rounding, value + rounding] (0 inside it). */
  readonly zRounded: number;
  /** |z| <= Z_LIMIT. */
  readonly within: boolean;
  /** Not within, but |zRounded| <= Z_LIMIT: the gap is inside what the quoted digits leave open. */
  readonly withinRounding: boolean;
}

/** |z| at or below this is "within noise". */
export const Z_LIMIT = 2;

/** The verdict rule, printed with every check table. */
export const VERDICT_RULE = `z = (RouteKit mean - reference) / sqrt(s^2/n + s^2/m), s = RouteKit's per-seed standard deviation (the noise estimate for both), n RouteKit's seeds, m the reference's; within noise when |z| <= ${Z_LIMIT}; a cell outside is "within rounding" when z taken from the nearest end of the interval the quoted value rounds from (+- half a unit of its last digit) is <= ${Z_LIMIT}`;

/**
 * The z score of a reference value against a mean over n seeds with per-seed standard deviation s;
 * the reference is taken to be a mean over m seeds with the same per-seed spread. With `rounding` > 0
 * the distance is to the nearest end of [value - rounding, value + rounding] (0 inside). With no spread
 * (s = 0) z is 0 when the two agree and +-Infinity otherwise; under 2 seeds, NaN.
 */
export function referenceZ(mean: number, s: number, n: number, value: number, m: number, rounding = 0): number {
  if (!(n >= 2) || !(m >= 1) || !Number.isFinite(s) || !Number.isFinite(mean)) return Number.NaN;
  const gap = mean - value;
  const diff = Math.sign(gap) * Math.max(0, Math.abs(gap) - rounding);
  const noise = Math.sqrt((s * s) / n + (s * s) / m);
  if (noise === 0) return diff === 0 ? 0 : diff > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return diff / noise;
}

/** Each reference cell checked against the summary row of its policy (a missing policy gives NaN, not within). */
export function checkReferences(refs: readonly ReferenceValue[], summary: readonly PolicySummary[]): ReferenceCheck[] {
  return refs.map((r) => {
    const row = summary.find((s) => s.policy === r.policy);
    const m = row?.[r.metric] ?? { mean: Number.NaN, std: Number.NaN, se: Number.NaN };
    const n = row?.seeds ?? 0;
    const z = referenceZ(m.mean, m.std, n, r.value, r.seeds);
    const zRounded = referenceZ(m.mean, m.std, n, r.value, r.seeds, r.rounding ?? 0);
    const within = Math.abs(z) <= Z_LIMIT;
    return {
      ...r,
      mean: m.mean,
      std: m.std,
      se: m.se,
      n,
      z,
      zRounded,
      within,
      withinRounding: !within && Math.abs(zRounded) <= Z_LIMIT,
    };
  });
}

const num = (x: number) => (Number.isFinite(x) ? (Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(3)) : "-");
/** "within", "within rounding", "outside" or "no estimate" (under 2 RouteKit seeds or a missing policy). */
export const verdict = (c: ReferenceCheck): string =>
  Number.isNaN(c.z) ? "no estimate" : c.within ? "within" : c.withinRounding ? "within rounding" : "outside";
/** The reference value with as many decimals as its rounding implies (0.5 with rounding 0.005 -> "0.50"). */
const quoted = (c: ReferenceValue) => {
  const d = c.rounding ? Math.round(-Math.log10(2 * c.rounding)) : -1;
  return d >= 0 && d <= 12 ? c.value.toFixed(d) : String(c.value);
};
const zText = (z: number) => (Number.isFinite(z) ? z.toFixed(2) : String(z));

/** Header and rows of a check table (also what the HTML and Markdown forms show). */
export function referenceRows(checks: readonly ReferenceCheck[]): { header: string[]; rows: string[][] } {
  return {
    header: ["policy", "metric", "reference (seeds)", "RouteKit mean ± se (seeds)", "z", "z, rounding", "verdict"],
    rows: checks.map((c) => [
      c.policy,
      c.metric,
      `${quoted(c)} (${c.seeds})`,
      `${num(c.mean)} ± ${num(c.se)} (${c.n})`,
      zText(c.z),
      zText(c.zRounded),
      verdict(c),
    ]),
  };
}

/** "k of n reference cells within noise (j more within the reference's rounding)". */
export function referenceCount(checks: readonly ReferenceCheck[]): string {
  const r = checks.filter((c) => c.withinRounding).length;
  const more = r > 0 ? ` (${r} more within the reference's rounding)` : "";
  return `${checks.filter((c) => c.within).length} of ${checks.length} reference cells within noise${more}`;
}

/** The terminal form: the table, the count and (unless the caller prints it once for several) the rule. */
export function formatReferenceChecks(checks: readonly ReferenceCheck[], withRule = true): string {
  const { header, rows } = referenceRows(checks);
  return `${table(header, rows)}\n${referenceCount(checks)}${withRule ? ` (${VERDICT_RULE})` : ""}`;
}

/** The Markdown form (a table, then the count and the rule). */
export function markdownReferenceChecks(checks: readonly ReferenceCheck[]): string {
  const { header, rows } = referenceRows(checks);
  const line = (r: readonly string[]) => `| ${r.join(" | ")} |`;
  return [
    line(header),
    line(header.map(() => "---")),
    ...rows.map(line),
    "",
    `${referenceCount(checks)}: ${VERDICT_RULE}.`,
  ]
    .join("\n")
    .concat("\n");
}

/** CSV columns of a check (callers may put their own columns, e.g. scenario and panel, first). */
export const REFERENCE_CSV_COLUMNS = [
  "policy",
  "metric",
  "reference",
  "reference_seeds",
  "mean",
  "std",
  "se",
  "seeds",
  "z",
  "z_rounding",
  "verdict",
] as const;

/** A check's cells, in {@link REFERENCE_CSV_COLUMNS} order. */
export function referenceCsvCells(c: ReferenceCheck): unknown[] {
  return [c.policy, c.metric, c.value, c.seeds, c.mean, c.std, c.se, c.n, c.z, c.zRounded, verdict(c)];
}
