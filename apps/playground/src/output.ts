import { join } from "node:path";
import type { ExperimentResult, PolicySummary } from "@routekit/core";
import { writeFileAtomicSync } from "@routekit/core/node";
import { aggregateSeries, METRIC_TITLES, type Metric, meanPickShare, pickShareSeries } from "./aggregate.js";
import { extraColumns, pm } from "./format.js";
import { ensureOutDir, removeStaleOutputs, writeRunOutputs } from "./out-dir.js";
import {
  locateFont,
  metricSpec,
  panelSpec,
  pickShareRoundsSpec,
  pickShareSpec,
  pickTitle,
  renderSvg,
  svgToPng,
} from "./plot.js";
import {
  REFERENCE_CSV_COLUMNS,
  type ReferenceCheck,
  referenceCount,
  referenceCsvCells,
  referenceRows,
  VERDICT_RULE,
} from "./reference.js";
import type { RunSpec } from "./spec.js";

/** What one command produced: everything a script needs to find and read. */
export interface RunOutput {
  readonly title: string;
  readonly spec: RunSpec;
  readonly result: ExperimentResult;
  /** Metrics plotted, in order. */
  readonly metrics: readonly Metric[];
  /** Reference numbers from the paper or an independent rerun, when the scenario has some. */
  readonly reference?: string;
  /** The scenario's structured reference cells beside RouteKit's means, with z and verdict. */
  readonly referenceChecks?: readonly ReferenceCheck[];
  /** Why there are no reference checks although the scenario has reference numbers (another horizon). */
  readonly referenceSkipped?: string;
  /** Extra facts shown in the report (e.g. replay data summary). */
  readonly notes?: Record<string, string | number>;
}

export interface WrittenFiles {
  readonly dir: string;
  readonly json: string;
  readonly summaryCsv: string;
  readonly runsCsv: string;
  readonly seriesCsv: string;
  /** Pick share over rounds: per policy, arm and checkpoint, mean and s.e. over seeds of the windowed share. */
  readonly pickShareCsv: string;
  /** The reference checks (policy, metric, reference, RouteKit's mean, z, verdict), when the scenario has any. */
  readonly referencesCsv?: string;
  readonly report?: string;
  /** Plot files by name ("regret", ..., "pick-share", "pick-share-rounds", "panel") -> { svg, png } (no png with png: false). */
  readonly plots: Record<string, { svg: string; png?: string }>;
  /** Set when no font file was found: PNG text may be missing (SVGs are unaffected). */
  readonly fontWarning?: string;
}

const csvCell = (v: unknown) => {
  const s = typeof v === "number" ? (Number.isFinite(v) ? String(v) : "") : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
/** CSV text of rows (non-finite numbers as empty cells, quoting where needed). */
export const csv = (rows: readonly (readonly unknown[])[]) =>
  `${rows.map((r) => r.map(csvCell).join(",")).join("\n")}\n`;

const SUMMARY_FIELDS = [
  "regret",
  "o2b",
  "opr",
  "costPerRound",
  "usPerRound",
  "rewardPerRound",
  "o2bRealised",
  "oprRealised",
  "repeatShare",
  "firstPassRewardPerRound",
  "firstPassO2b",
  "firstPassOpr",
] as const;
const nan = { mean: Number.NaN, std: Number.NaN, se: Number.NaN };

/** CSV column names of a policy summary's metrics: mean, std and standard error of each. */
export const SUMMARY_COLUMNS = SUMMARY_FIELDS.flatMap((f) => [`${f}_mean`, `${f}_std`, `${f}_se`]);

/** A policy summary's metric cells, in {@link SUMMARY_COLUMNS} order (NaN where a metric is absent). */
export function summaryCells(s: PolicySummary): number[] {
  return SUMMARY_FIELDS.flatMap((f) => {
    const v = s[f] ?? nan;
    return [v.mean, v.std, v.se];
  });
}

/** CSV rows of reference checks, with optional leading columns per check. */
export function referenceCsvRows(
  checks: readonly ReferenceCheck[],
  prefix: readonly string[] = [],
  cells: (i: number) => readonly unknown[] = () => [],
): unknown[][] {
  return [[...prefix, ...REFERENCE_CSV_COLUMNS], ...checks.map((c, i) => [...cells(i), ...referenceCsvCells(c)])];
}

/** The reference checks as an HTML table with the count and the verdict rule ("" when there are none). */
export function htmlReferenceChecks(checks: readonly ReferenceCheck[] | undefined): string {
  if (!checks || checks.length === 0) return "";
  const { header, rows } = referenceRows(checks);
  return `<table class="refcheck"><thead><tr>${header.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n")}</tbody></table>
<p><b>${esc(referenceCount(checks))}</b> (${esc(VERDICT_RULE)}).</p>`;
}

function summaryRows(summary: readonly PolicySummary[]): unknown[][] {
  return [["policy", "seeds", ...SUMMARY_COLUMNS], ...summary.map((s) => [s.policy, s.seeds, ...summaryCells(s)])];
}

export function hasCost(result: ExperimentResult): boolean {
  return result.runs.some((r) => r.final.cost !== 0);
}

/** The metrics plotted for a run: the requested ones plus cost when the environment has costs. */
export function plottedMetrics(requested: readonly Metric[], result: ExperimentResult): Metric[] {
  const m = [...requested];
  if (hasCost(result) && !m.includes("cost")) m.push("cost");
  return m;
}

/** Text escaped for HTML. */
export const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function htmlReport(out: RunOutput, svgs: { name: string; svg: string }[], withCost: boolean): string {
  const s = out.result.summary;
  const extra = extraColumns(s);
  const cols = [
    "policy",
    "seeds",
    "final regret",
    "O2B",
    "OPR",
    ...(withCost ? ["cost/round"] : []),
    ...extra.header,
    "µs/round",
  ];
  const rows = s.map((p) => [
    p.policy,
    String(p.seeds),
    pm(p.regret),
    pm(p.o2b),
    pm(p.opr),
    ...(withCost ? [pm(p.costPerRound)] : []),
    ...extra.cells(p),
    pm(p.usPerRound, 2),
  ]);
  const notes = Object.entries(out.notes ?? {})
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(String(v))}</td></tr>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(out.title)} · RouteKit</title>
<style>
body{font-family:system-ui,-apple-system,"DejaVu Sans",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}pre{background:#f6f6f6;padding:1em;overflow:auto;font-size:12px}
figure{margin:1.5em 0}svg{max-width:100%;height:auto}.ref{background:#fff8e1;padding:.6em 1em;border-left:4px solid #f0b400}
</style></head><body>
<h1>${esc(out.title)}</h1>
<p>Environment <b>${esc(out.spec.environment.name)}</b> · ${out.spec.policies.length} policies · ${out.spec.seeds.length} seeds · horizon ${out.spec.horizon} rounds. Metrics are means over seeds ± one standard error.</p>
${out.reference ? `<p class="ref"><b>Reference:</b> ${esc(out.reference)}</p>` : ""}
<h2>Final results</h2>
<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n")}</tbody></table>
${out.referenceChecks?.length ? `<h2>Against the reference</h2>\n${htmlReferenceChecks(out.referenceChecks)}` : ""}
${out.referenceSkipped ? `<p class="ref">${esc(out.referenceSkipped)}</p>` : ""}
${notes ? `<h2>Data</h2><table>${notes}</table>` : ""}
<h2>Plots</h2>
${svgs.map((x) => `<figure>${x.svg}</figure>`).join("\n")}
<h2>Configuration</h2>
<p>Rerun with the same spec to reproduce these numbers exactly (wall times aside).</p>
<pre>${esc(JSON.stringify(out.spec, null, 2))}</pre>
<footer><p>Generated by routekit on ${new Date().toISOString()}.</p></footer>
</body></html>
`;
}

/**
 * Writes results (JSON, CSV), plots (SVG, and PNG unless `png` is false) and the HTML report into `dir`; a Ctrl-C
 * meanwhile ends the process between two files, never inside one, and a file system error is a one-line failure
 * (`writeRunOutputs`).
 */
export function writeOutputs(
  out: RunOutput,
  dir: string,
  options: { plots?: boolean; png?: boolean } = {},
): Promise<WrittenFiles> {
  return writeRunOutputs(dir, () => writeOutputFiles(out, dir, options));
}

async function writeOutputFiles(
  out: RunOutput,
  dir: string,
  options: { plots?: boolean; png?: boolean },
): Promise<WrittenFiles> {
  const abs = ensureOutDir(dir);
  removeStaleOutputs(abs);
  const { result, spec } = out;
  const withCost = hasCost(result);
  const metrics = plottedMetrics(out.metrics, result);
  const points = aggregateSeries(result);
  const shares = pickShareSeries(result);
  const pick = pickTitle(result.protocol);
  const json = join(abs, "results.json");
  writeFileAtomicSync(
    json,
    `${JSON.stringify(
      {
        title: out.title,
        spec,
        reference: out.reference,
        notes: out.notes,
        environment: result.environment,
        protocol: result.protocol,
        horizon: result.horizon,
        summary: result.summary,
        ...(out.referenceChecks ? { referenceChecks: out.referenceChecks } : {}),
        ...(out.referenceSkipped ? { referenceSkipped: out.referenceSkipped } : {}),
        pickShareOverRounds: shares,
        runs: result.runs,
      },
      null,
      1,
    )}\n`,
  );
  const summaryCsv = join(abs, "summary.csv");
  writeFileAtomicSync(summaryCsv, csv(summaryRows(result.summary)));
  const runsCsv = join(abs, "runs.csv");
  writeFileAtomicSync(
    runsCsv,
    csv([
      ["policy", "seed", "horizon", "regret", "o2b", "opr", "reward", "cost", "costPerRound", "usPerRound", "wallMs"],
      ...result.runs.map((r) => [
        r.policy,
        r.seed,
        r.horizon,
        r.final.regret,
        r.final.o2b,
        r.final.opr,
        r.final.reward,
        r.final.cost,
        r.final.costPerRound,
        r.final.usPerRound,
        r.wallMs,
      ]),
    ]),
  );
  const seriesCsv = join(abs, "series.csv");
  writeFileAtomicSync(
    seriesCsv,
    csv([["policy", "metric", "t", "mean", "se"], ...points.map((p) => [p.policy, p.metric, p.t, p.mean, p.se])]),
  );
  const pickShareCsv = join(abs, "pick-share.csv");
  writeFileAtomicSync(
    pickShareCsv,
    csv([
      ["policy", pick === "arm" ? "arm" : "pick", "t", "mean", "se"],
      ...shares.map((p) => [p.policy, p.arm, p.t, p.mean, p.se]),
    ]),
  );
  let referencesCsv: string | undefined;
  if (out.referenceChecks?.length) {
    referencesCsv = join(abs, "references.csv");
    writeFileAtomicSync(referencesCsv, csv(referenceCsvRows(out.referenceChecks)));
  }
  const plots: Record<string, { svg: string; png?: string }> = {};
  let report: string | undefined;
  let fontWarning: string | undefined;
  if (options.plots !== false) {
    const png = options.png !== false;
    const font = png ? locateFont() : undefined;
    if (png && !font)
      fontWarning = "no font file found (set ROUTEKIT_FONT=/path/to/font.ttf): PNG text may be missing; SVGs are fine";
    const subtitle = `${result.environment}, ${spec.seeds.length} seed${spec.seeds.length === 1 ? "" : "s"}, ${spec.horizon} rounds`;
    const figures: { name: string; spec: Parameters<typeof renderSvg>[0] }[] = [
      { name: "panel", spec: panelSpec(points, metrics, subtitle, { points: shares, pick }) },
      ...metrics.map((m) => ({ name: m as string, spec: metricSpec(points, m, subtitle) })),
    ];
    if (result.protocol !== "assortment") {
      figures.push({ name: "pick-share", spec: pickShareSpec(meanPickShare(result), subtitle) });
    }
    if (shares.length > 0) {
      figures.push({ name: "pick-share-rounds", spec: pickShareRoundsSpec(shares, subtitle, pick) });
    }
    const svgs: { name: string; svg: string }[] = [];
    for (const f of figures) {
      const svg = await renderSvg(f.spec);
      const svgPath = join(abs, `${f.name}.svg`);
      writeFileAtomicSync(svgPath, svg);
      if (png) {
        const pngPath = join(abs, `${f.name}.png`);
        writeFileAtomicSync(pngPath, svgToPng(svg, font));
        plots[f.name] = { svg: svgPath, png: pngPath };
      } else plots[f.name] = { svg: svgPath };
      if (f.name !== "panel") svgs.push({ name: f.name, svg });
    }
    report = join(abs, "report.html");
    writeFileAtomicSync(report, htmlReport(out, svgs, withCost));
  }
  return {
    dir: abs,
    json,
    summaryCsv,
    runsCsv,
    seriesCsv,
    pickShareCsv,
    ...(referencesCsv ? { referencesCsv } : {}),
    ...(report ? { report } : {}),
    plots,
    ...(fontWarning ? { fontWarning } : {}),
  };
}

export { METRIC_TITLES };
