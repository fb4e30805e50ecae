import { existsSync } from "node:fs";
import { Resvg } from "@resvg/resvg-js";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { type BandPoint, METRIC_TITLES, type Metric, type SharePoint } from "./aggregate.js";

const FONT_FAMILY = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";

/** Font files known to exist on common systems; resvg falls back to system fonts (if any) otherwise. */
const FONT_CANDIDATES = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/TTF/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
  "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
  "/Library/Fonts/Arial.ttf",
  "/System/Library/Fonts/Supplemental/Arial.ttf",
  "C:\\Windows\\Fonts\\arial.ttf",
];

/** Which font file (if any) PNG text is rendered with. */
export function locateFont(): string | undefined {
  const env = process.env.ROUTEKIT_FONT;
  if (env && existsSync(env)) return env;
  return FONT_CANDIDATES.find((f) => existsSync(f));
}

const CONFIG = {
  font: FONT_FAMILY,
  background: "white",
  title: { fontSize: 15, anchor: "start" as const, offset: 10 },
  axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: "#e6e6e6" },
  legend: {
    labelFontSize: 11,
    titleFontSize: 12,
    orient: "bottom" as const,
    columns: 4,
    labelLimit: 240,
    symbolOpacity: 1,
    symbolType: "stroke",
    symbolStrokeWidth: 3,
  },
  view: { stroke: "#cccccc" },
};

/** Policies in the order they were given (legend and colors follow the command line, not the alphabet). */
function policyOrder(points: readonly { policy: string }[]): string[] {
  return [...new Set(points.map((p) => p.policy))];
}

function layers(metric: Metric | undefined, domain: readonly string[]) {
  const yTitle = metric ? METRIC_TITLES[metric].axis : "value";
  const color = {
    field: "policy",
    type: "nominal" as const,
    title: "policy",
    sort: domain,
    scale: { scheme: "tableau10", domain },
  };
  return [
    {
      mark: { type: "area" as const, opacity: 0.2 },
      encoding: {
        x: { field: "t", type: "quantitative" as const, title: "round" },
        y: { field: "lo", type: "quantitative" as const, title: yTitle },
        y2: { field: "hi" },
        color,
      },
    },
    {
      mark: { type: "line" as const, strokeWidth: 2 },
      encoding: {
        x: { field: "t", type: "quantitative" as const, title: "round" },
        y: { field: "mean", type: "quantitative" as const, title: yTitle },
        color,
        tooltip: [
          { field: "policy", type: "nominal" as const },
          { field: "t", type: "quantitative" as const },
          { field: "mean", type: "quantitative" as const, format: ".4g" },
          { field: "se", type: "quantitative" as const, format: ".3g" },
        ],
      },
    },
  ];
}

/** A vega-lite spec: mean over seeds with a shaded +- 1 s.e. band, one color per policy. */
export function metricSpec(points: readonly BandPoint[], metric: Metric, subtitle: string): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: { text: METRIC_TITLES[metric].title, subtitle: `${subtitle} (mean over seeds, band: +- 1 s.e.)` },
    width: 560,
    height: 320,
    data: { values: points.filter((p) => p.metric === metric) as never[] },
    layer: layers(metric, policyOrder(points)),
    config: CONFIG,
  } as TopLevelSpec;
}

/**
 * All metrics in one figure: a wrapped facet with an independent y scale per metric; with `share` points, the pick
 * share over rounds (one small panel per policy) below it.
 */
export function panelSpec(
  points: readonly BandPoint[],
  metrics: readonly Metric[],
  subtitle: string,
  share?: { readonly points: readonly SharePoint[]; readonly pick: string },
): TopLevelSpec {
  const order = metrics.map((m) => METRIC_TITLES[m].title);
  const metricsView = {
    data: {
      values: points
        .filter((p) => metrics.includes(p.metric))
        .map((p) => ({ ...p, panel: METRIC_TITLES[p.metric].title })) as never[],
    },
    facet: { field: "panel", type: "nominal", title: null, sort: order, header: { labelFontSize: 13 } },
    columns: Math.min(3, metrics.length),
    spec: {
      width: 300,
      height: 200,
      layer: layers(undefined, policyOrder(points)).map((l) => ({
        ...l,
        encoding: { ...l.encoding, y: { ...l.encoding.y, title: null } },
      })),
    },
    resolve: { scale: { y: "independent" } },
  };
  const title = { text: "RouteKit results", subtitle: `${subtitle} (mean over seeds, band: +- 1 s.e.)` };
  if (!share || share.points.length === 0) {
    return {
      $schema: "https://vega.github.io/schema/vega-lite/v5.json",
      title,
      ...metricsView,
      config: CONFIG,
    } as TopLevelSpec;
  }
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title,
    vconcat: [
      metricsView,
      {
        title: { text: `Pick share over rounds (per ${share.pick}, mean over seeds)`, fontSize: 13 },
        ...pickShareFacet(share.points, share.pick, 300, 120),
      },
    ],
    spacing: 30,
    resolve: { scale: { color: "independent" }, legend: { color: "independent" } },
    config: CONFIG,
  } as TopLevelSpec;
}

/** Stacked bars: how often each policy picked each arm over the whole run (mean over seeds). */
export function pickShareSpec(
  rows: readonly { policy: string; arm: string; share: number }[],
  subtitle: string,
): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: { text: "Pick share", subtitle: `${subtitle} (fraction of rounds each arm was chosen, mean over seeds)` },
    width: 560,
    height: { step: 28 },
    data: { values: rows as never[] },
    mark: { type: "bar" },
    encoding: {
      y: { field: "policy", type: "nominal", title: null, sort: policyOrder(rows) },
      x: { field: "share", type: "quantitative", title: "share of rounds", stack: "normalize", axis: { format: "%" } },
      color: { field: "arm", type: "nominal", title: "arm", scale: { scheme: "tableau20" } },
      tooltip: [
        { field: "policy", type: "nominal" },
        { field: "arm", type: "nominal" },
        { field: "share", type: "quantitative", format: ".1%" },
      ],
    },
    config: CONFIG,
  } as TopLevelSpec;
}

/** Windows shown per policy in the pick-share plots (the CSV keeps every checkpoint). */
const SHARE_BINS = 40;

/**
 * Merges consecutive checkpoint windows into at most `bins` wider ones (each share weighted by its window's
 * rounds), so that windows of a few rounds do not turn the stacked areas into noise.
 */
export function coarsenShares(points: readonly SharePoint[], bins: number): SharePoint[] {
  const groups = new Map<string, SharePoint[]>();
  for (const p of points) {
    const k = JSON.stringify([p.policy, p.arm]);
    const g = groups.get(k);
    if (g) g.push(p);
    else groups.set(k, [p]);
  }
  const out: SharePoint[] = [];
  for (const g of groups.values()) {
    const per = Math.ceil(g.length / bins);
    if (per <= 1) {
      out.push(...g);
      continue;
    }
    let prevT = 0;
    for (let i = 0; i < g.length; i += per) {
      const chunk = g.slice(i, i + per);
      let sum = 0;
      let t0 = prevT;
      for (const p of chunk) {
        sum += p.mean * (p.t - t0);
        t0 = p.t;
      }
      const last = chunk[chunk.length - 1] as SharePoint;
      out.push({ policy: last.policy, arm: last.arm, t: last.t, mean: sum / (last.t - prevT), se: Number.NaN });
      prevT = last.t;
    }
  }
  return out;
}

/** What a pick is in each protocol (legend title of the pick-share plots). */
export function pickTitle(protocol: string): string {
  return protocol === "assortment" ? "assortment size" : "arm";
}

/** The facet part of the pick-share-over-rounds figure (also the bottom of the combined panel). */
function pickShareFacet(raw: readonly SharePoint[], pick: string, width: number, height: number) {
  const points = coarsenShares(raw, SHARE_BINS);
  const policies = policyOrder(points);
  const arms = [...new Set(points.map((p) => p.arm))];
  return {
    data: { values: points as never[] },
    facet: {
      field: "policy",
      type: "nominal" as const,
      title: null,
      sort: policies,
      header: { labelFontSize: 13, labelLimit: 300 },
    },
    columns: Math.min(3, policies.length),
    spec: {
      width,
      height,
      mark: { type: "area" as const, interpolate: "step-before" as const, opacity: 0.9 },
      encoding: {
        x: { field: "t", type: "quantitative" as const, title: "round" },
        y: {
          field: "mean",
          type: "quantitative" as const,
          title: "share of rounds",
          stack: "zero" as const,
          scale: { domain: [0, 1] },
          axis: { format: "%", tickCount: 5 },
        },
        color: {
          field: "arm",
          type: "nominal" as const,
          title: pick,
          scale: { scheme: arms.length <= 8 ? "set2" : "tableau20" },
          sort: arms,
          legend: { symbolType: "square", symbolStrokeWidth: 0, symbolSize: 120, columns: 8 },
        },
        tooltip: [
          { field: "policy", type: "nominal" as const },
          { field: "arm", type: "nominal" as const, title: pick },
          { field: "t", type: "quantitative" as const, title: "round" },
          { field: "mean", type: "quantitative" as const, format: ".1%", title: "share" },
        ],
      },
    },
  };
}

/**
 * Pick share over rounds: one small panel per policy, arms stacked, each checkpoint showing the share of the rounds
 * since the previous checkpoint in which each arm was picked (mean over seeds).
 */
export function pickShareRoundsSpec(points: readonly SharePoint[], subtitle: string, pick = "arm"): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: {
      text: "Pick share over rounds",
      subtitle: `${subtitle} (share of each window's rounds in which each ${pick} was picked, mean over seeds)`,
    },
    ...pickShareFacet(points, pick, 260, 140),
    config: CONFIG,
  } as TopLevelSpec;
}

// Vega keys some lookups by data values in plain objects, so a value such as "__proto__" or "constructor" (an arm id
// or a policy label) breaks its runtime. Such values get an invisible zero-width space appended before rendering.
const HOSTILE = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);

function escapeHostile(v: unknown): unknown {
  if (typeof v === "string") return HOSTILE.has(v) ? `${v}\u200b` : v;
  if (Array.isArray(v)) return v.map(escapeHostile);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = escapeHostile(x);
    return out;
  }
  return v;
}

/** vega-lite -> vega -> headless View -> SVG string. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const vg = compile(escapeHostile(spec) as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(vg), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** SVG -> PNG bytes with resvg (2x scale), text in the located font. */
export function svgToPng(svg: string, font = locateFont()): Buffer {
  const r = new Resvg(svg, {
    fitTo: { mode: "zoom", value: 2 },
    background: "white",
    font: font
      ? { fontFiles: [font], loadSystemFonts: false, defaultFontFamily: "DejaVu Sans" }
      : { loadSystemFonts: true },
  });
  return r.render().asPng();
}
