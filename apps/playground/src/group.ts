/**
 * Scenario groups: the members of one paper figure (e.g. Fig. 1 at K = 5, 10, 15) run with one command and get a
 * combined figure (one panel per member) and a combined report next to each member's own outputs.
 */

import { join, relative } from "node:path";
import { writeFileAtomicSync } from "@routekit/core/node";
import { aggregateSeries, type BandPoint, METRIC_TITLES, type Metric } from "./aggregate.js";
import type { CommandResult } from "./api.js";
import { UsageError } from "./errors.js";
import { extraColumns, pm } from "./format.js";
import { ensureOutDir, removeStaleOutputs, writeRunOutputs } from "./out-dir.js";
import {
  csv,
  esc,
  hasCost,
  htmlReferenceChecks,
  plottedMetrics,
  referenceCsvRows,
  SUMMARY_COLUMNS,
  summaryCells,
} from "./output.js";
import { locateFont, renderSvg, svgToPng } from "./plot.js";
import { markdownReferenceChecks, type ReferenceCheck, referenceCount } from "./reference.js";
import type { FamilyRegistry, ScenarioEntry } from "./registry/types.js";

/** What `routekit run <name>` runs: one scenario, a registered group, or the scenarios a glob matches. */
export interface ScenarioSelection {
  readonly kind: "scenario" | "group" | "glob";
  /** Scenario or group name; for a glob, the pattern made safe for a directory name (`*` -> `all`). */
  readonly name: string;
  readonly scenarios: readonly ScenarioEntry[];
}

/** Registered groups in registry order, each with its members in registry order. */
export function scenarioGroups(reg: FamilyRegistry): { name: string; scenarios: ScenarioEntry[] }[] {
  const out = new Map<string, ScenarioEntry[]>();
  for (const s of reg.scenarios) {
    if (s.group === undefined) continue;
    const g = out.get(s.group);
    if (g) g.push(s);
    else out.set(s.group, [s]);
  }
  return [...out].map(([name, scenarios]) => ({ name, scenarios }));
}

const isGlob = (s: string) => /[*?]/.test(s);

function globRegExp(glob: string): RegExp {
  const body = glob
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.+()|{}[\]]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** Resolves `routekit run <name>`: a scenario name first, then a group name, then a glob over scenario names. */
export function selectScenarios(reg: FamilyRegistry, name: string): ScenarioSelection {
  const s = reg.scenarios.find((x) => x.name === name);
  if (s) return { kind: "scenario", name, scenarios: [s] };
  const groups = scenarioGroups(reg);
  const g = groups.find((x) => x.name === name);
  if (g) return { kind: "group", name, scenarios: g.scenarios };
  if (isGlob(name)) {
    const re = globRegExp(name);
    const hits = reg.scenarios.filter((x) => re.test(x.name));
    if (hits.length === 0) {
      throw new UsageError(
        `no scenario matches "${name}" (known: ${reg.scenarios.map((x) => x.name).join(", ") || "none registered"})`,
      );
    }
    const safe = name
      .replace(/\*/g, "all")
      .replace(/\?/g, "x")
      .replace(/[^A-Za-z0-9._-]/g, "_");
    return { kind: "glob", name: safe, scenarios: hits };
  }
  const known = reg.scenarios.map((x) => x.name).join(", ") || "none registered";
  const gs = groups.length > 0 ? `; groups: ${groups.map((x) => x.name).join(", ")}` : "";
  throw new UsageError(`unknown scenario "${name}" (known: ${known}${gs})`);
}

export const panelLabel = (s: ScenarioEntry): string => s.panel ?? s.name;

/** One member's run inside a group. */
export interface GroupMember {
  readonly scenario: ScenarioEntry;
  readonly panel: string;
  readonly result: CommandResult;
}

export interface GroupFiles {
  readonly dir: string;
  /** Name, members (scenario, panel, spec, summary, reference, output directory). */
  readonly json: string;
  /** Per member and policy, the final metrics (mean, std, s.e. over seeds). */
  readonly summaryCsv: string;
  /** Per member, policy, metric and checkpoint: mean and s.e. over seeds (what the combined figure shows). */
  readonly seriesCsv: string;
  /** Every member's reference checks (scenario, panel, policy, metric, reference, mean, z, verdict), when any. */
  readonly referencesCsv?: string;
  /** The same checks as Markdown tables, one per member, with the counts and the verdict rule. */
  readonly referencesMd?: string;
  /** The combined figure: a row per metric, a panel per member (no png with png: false). */
  readonly figure?: { svg: string; png?: string };
  readonly report?: string;
  readonly fontWarning?: string;
}

export interface GroupResult {
  readonly kind: "group" | "glob";
  readonly name: string;
  readonly title: string;
  readonly members: readonly GroupMember[];
  readonly files?: GroupFiles;
}

/** The title of a group: the text before the first ":" of its members' descriptions when they agree. */
export function groupTitle(name: string, scenarios: readonly ScenarioEntry[]): string {
  const heads = new Set(scenarios.map((s) => s.description.split(":")[0]?.trim() ?? ""));
  const head = heads.size === 1 ? [...heads][0] : "";
  const panels = scenarios.map(panelLabel).join(" | ");
  if (!head) return `${name}: ${panels}`;
  return panels.length <= 60 ? `${name}: ${head}, ${panels}` : `${name}: ${head}`;
}

/** The metrics of the combined figure: every member's plotted metrics, in order of first appearance. */
export function groupMetrics(members: readonly GroupMember[]): Metric[] {
  const out: Metric[] = [];
  for (const m of members) {
    for (const x of plottedMetrics(m.result.metrics, m.result.result)) if (!out.includes(x)) out.push(x);
  }
  return out;
}

/** A point of a group figure: a metric band point with its panel and scenario. */
export type GroupPoint = BandPoint & { readonly panel: string; readonly scenario: string };

function groupPoints(members: readonly GroupMember[], metrics: readonly Metric[]): GroupPoint[] {
  return members.flatMap((m) =>
    aggregateSeries(m.result.result, metrics).map((p) => ({ ...p, panel: m.panel, scenario: m.scenario.name })),
  );
}

const FONT_FAMILY = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";

/** vega-lite spec of the combined figure: a row per metric (shared y within a row), a column per member. */
export function groupFigureSpec(
  points: readonly GroupPoint[],
  metrics: readonly Metric[],
  title: string,
  subtitle: string,
) {
  const panels = [...new Set(points.map((p) => p.panel))];
  const policies = [...new Set(points.map((p) => p.policy))];
  const color = {
    field: "policy",
    type: "nominal" as const,
    title: "policy",
    sort: policies,
    scale: { scheme: "tableau10", domain: policies },
  };
  const x = { field: "t", type: "quantitative" as const, title: "round" };
  const width = panels.length > 3 ? 220 : 280;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: { text: title, subtitle: `${subtitle} (mean over seeds, band: +- 1 s.e.)` },
    vconcat: metrics.map((metric) => ({
      title: { text: METRIC_TITLES[metric].title, subtitle: METRIC_TITLES[metric].axis, fontSize: 13 },
      data: { values: points.filter((p) => p.metric === metric) as never[] },
      facet: {
        column: {
          field: "panel",
          type: "nominal" as const,
          title: null,
          sort: panels,
          header: { labelFontSize: 12, labelLimit: 0 },
        },
      },
      spec: {
        width,
        height: 180,
        layer: [
          {
            mark: { type: "area", opacity: 0.2 },
            encoding: { x, y: { field: "lo", type: "quantitative", title: null }, y2: { field: "hi" }, color },
          },
          {
            mark: { type: "line", strokeWidth: 2 },
            encoding: {
              x,
              y: { field: "mean", type: "quantitative", title: null },
              color,
              tooltip: [
                { field: "panel", type: "nominal" },
                { field: "policy", type: "nominal" },
                { field: "t", type: "quantitative" },
                { field: "mean", type: "quantitative", format: ".4g" },
              ],
            },
          },
        ],
      },
    })),
    spacing: 24,
    resolve: { legend: { color: "shared" } },
    config: {
      font: FONT_FAMILY,
      background: "white",
      title: { fontSize: 15, anchor: "start", offset: 10 },
      axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: "#e6e6e6" },
      legend: {
        labelFontSize: 11,
        titleFontSize: 12,
        orient: "bottom",
        columns: 5,
        labelLimit: 240,
        symbolOpacity: 1,
        symbolType: "stroke",
        symbolStrokeWidth: 3,
      },
      view: { stroke: "#cccccc" },
    },
  };
}

function memberSection(m: GroupMember, dir: string): string {
  const { result, files } = m.result;
  const withCost = hasCost(result);
  const extra = extraColumns(result.summary);
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
  const rows = result.summary.map((p) => [
    p.policy,
    String(p.seeds),
    pm(p.regret),
    pm(p.o2b),
    pm(p.opr),
    ...(withCost ? [pm(p.costPerRound)] : []),
    ...extra.cells(p),
    pm(p.usPerRound, 2),
  ]);
  const link = files?.report ? ` · <a href="${esc(relative(dir, files.report))}">full report</a>` : "";
  return `<h2>${esc(m.panel)} <small>(${esc(m.scenario.name)})</small></h2>
<p>${esc(m.scenario.description)} · ${m.result.spec.seeds.length} seeds · horizon ${m.result.spec.horizon}${link}</p>
${m.result.reference ? `<p class="ref"><b>Reference:</b> ${esc(m.result.reference)}</p>` : ""}
<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n")}</tbody></table>
${htmlReferenceChecks(m.result.referenceChecks)}${m.result.referenceSkipped ? `<p class="ref">${esc(m.result.referenceSkipped)}</p>` : ""}`;
}

/** Every member's reference checks with its scenario and panel, in member order. */
function groupChecks(members: readonly GroupMember[]): { m: GroupMember; c: ReferenceCheck }[] {
  return members.flatMap((m) => (m.result.referenceChecks ?? []).map((c) => ({ m, c })));
}

/** The group's reference checks as Markdown: a table per member, then the group's count. */
export function groupReferencesMarkdown(group: Omit<GroupResult, "files">): string {
  const parts = group.members
    .filter((m) => m.result.referenceChecks?.length)
    .map((m) => `## ${m.panel} (${m.scenario.name})\n\n${markdownReferenceChecks(m.result.referenceChecks ?? [])}`);
  const all = groupChecks(group.members).map((x) => x.c);
  return `# ${group.title}: against the reference\n\n${parts.join("\n")}\n**${group.name}: ${referenceCount(all)}.**\n`;
}

/**
 * Writes the group's combined JSON, CSVs, figure (SVG, and PNG unless `png` is false) and HTML report into `dir`; a
 * Ctrl-C meanwhile ends the process between two files, never inside one, and a file system error is a one-line
 * failure (`writeRunOutputs`).
 */
export function writeGroupOutputs(
  group: Omit<GroupResult, "files">,
  dir: string,
  options: { plots?: boolean; png?: boolean } = {},
): Promise<GroupFiles> {
  return writeRunOutputs(dir, () => writeGroupFiles(group, dir, options));
}

async function writeGroupFiles(
  group: Omit<GroupResult, "files">,
  dir: string,
  options: { plots?: boolean; png?: boolean },
): Promise<GroupFiles> {
  const abs = ensureOutDir(dir);
  removeStaleOutputs(abs);
  const metrics = groupMetrics(group.members);
  const points = groupPoints(group.members, metrics);
  const json = join(abs, "group.json");
  writeFileAtomicSync(
    json,
    `${JSON.stringify(
      {
        group: group.name,
        title: group.title,
        members: group.members.map((m) => ({
          scenario: m.scenario.name,
          panel: m.panel,
          description: m.scenario.description,
          reference: m.result.reference,
          environment: m.result.result.environment,
          spec: m.result.spec,
          summary: m.result.result.summary,
          ...(m.result.referenceChecks ? { referenceChecks: m.result.referenceChecks } : {}),
          ...(m.result.referenceSkipped ? { referenceSkipped: m.result.referenceSkipped } : {}),
          dir: m.result.files?.dir,
        })),
      },
      null,
      1,
    )}\n`,
  );
  const summaryCsv = join(abs, "summary.csv");
  writeFileAtomicSync(
    summaryCsv,
    csv([
      ["scenario", "panel", "policy", "seeds", ...SUMMARY_COLUMNS],
      ...group.members.flatMap((m) =>
        m.result.result.summary.map((s) => [m.scenario.name, m.panel, s.policy, s.seeds, ...summaryCells(s)]),
      ),
    ]),
  );
  const seriesCsv = join(abs, "series.csv");
  writeFileAtomicSync(
    seriesCsv,
    csv([
      ["scenario", "panel", "policy", "metric", "t", "mean", "se"],
      ...points.map((p) => [p.scenario, p.panel, p.policy, p.metric, p.t, p.mean, p.se]),
    ]),
  );
  const checks = groupChecks(group.members);
  const refs: { referencesCsv?: string; referencesMd?: string } = {};
  if (checks.length > 0) {
    refs.referencesCsv = join(abs, "references.csv");
    writeFileAtomicSync(
      refs.referencesCsv,
      csv(
        referenceCsvRows(
          checks.map((x) => x.c),
          ["scenario", "panel"],
          (i) => [checks[i]?.m.scenario.name, checks[i]?.m.panel],
        ),
      ),
    );
    refs.referencesMd = join(abs, "references.md");
    writeFileAtomicSync(refs.referencesMd, groupReferencesMarkdown(group));
  }
  if (options.plots === false) return { dir: abs, json, summaryCsv, seriesCsv, ...refs };
  const png = options.png !== false;
  const font = png ? locateFont() : undefined;
  const fontWarning =
    !png || font
      ? undefined
      : "no font file found (set ROUTEKIT_FONT=/path/to/font.ttf): PNG text may be missing; SVGs are fine";
  const first = group.members[0]?.result.spec;
  const seeds = new Set(group.members.map((m) => m.result.spec.seeds.length));
  const horizons = new Set(group.members.map((m) => m.result.spec.horizon));
  const subtitle = `${seeds.size === 1 ? `${first?.seeds.length} seed${first?.seeds.length === 1 ? "" : "s"}` : "seeds vary"}, ${
    horizons.size === 1 ? `${first?.horizon} rounds` : "horizons vary"
  }`;
  const spec = groupFigureSpec(points, metrics, group.title, subtitle);
  const svg = await renderSvg(spec as Parameters<typeof renderSvg>[0]);
  const figure: { svg: string; png?: string } = { svg: join(abs, "figure.svg") };
  writeFileAtomicSync(figure.svg, svg);
  if (png) {
    figure.png = join(abs, "figure.png");
    writeFileAtomicSync(figure.png, svgToPng(svg, font));
  }
  const report = join(abs, "report.html");
  writeFileAtomicSync(
    report,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(group.title)} · RouteKit</title>
<style>
body{font-family:system-ui,-apple-system,"DejaVu Sans",sans-serif;max-width:1300px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}figure{margin:1.5em 0}svg{max-width:100%;height:auto}
.ref{background:#fff8e1;padding:.6em 1em;border-left:4px solid #f0b400}small{color:#666;font-weight:normal}
</style></head><body>
<h1>${esc(group.title)}</h1>
<p>${group.members.length} scenarios, one panel each. Metrics are means over seeds ± one standard error; each scenario's own outputs (plots, CSV, exact config) are in its subdirectory.</p>
<figure>${svg}</figure>
${checks.length > 0 ? `<p class="ref"><b>${esc(group.name)}: ${esc(referenceCount(checks.map((x) => x.c)))}</b> (tables under each scenario).</p>` : ""}
${group.members.map((m) => memberSection(m, abs)).join("\n")}
<footer><p>Generated by routekit on ${new Date().toISOString()}.</p></footer>
</body></html>
`,
  );
  return { dir: abs, json, summaryCsv, seriesCsv, ...refs, figure, report, ...(fontWarning ? { fontWarning } : {}) };
}
