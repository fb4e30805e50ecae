/**
 * Users have the papers, not the implementation notes RouteKit was written from: source comments, READMEs,
 * benchmarks, test names, CLI text and changesets give the reason itself, or cite a paper by its title,
 * section or equation. This scans the repository's text for the labels those notes used ("spec §3.7",
 * "spec P7", "spec 004", "paper 003", "spec rerun") and fails naming each file and line.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const self = fileURLToPath(import.meta.url);

/** Labels that only make sense to someone holding the implementation notes. */
const labels: readonly RegExp[] = [
  /\bspecs?\s*§/i, // "spec §3.7"
  /\bspecs?\s+P\d/i, // "spec P7"
  /\bspecs?\s+\(?\d/i, // "spec 004", "spec 5.1.2", "spec (003, §2.1)"
  /\bspec['’]s\s+(§|\d|rerun|guard|invariant|resolution)/i, // "the spec's §3.6", "the spec's rerun"
  /\(spec[:,]\s+(about\s|NumPy\b|[\d.])/i, // "(spec: 100%)", "(spec, NumPy ...)"
  /\bspec[- ](rerun|number|item|section|style|asks|allows|says|requires)\b/i, // "spec rerun", "spec-style"
  /\bimplementation specs?\b/i,
  /\bpaper\s+0\d\d\b/i, // "paper 003" (the catalogue number, not a citation)
  /\bshared\/specs\b/,
];

/** Directories whose text users read (or see in test output); generated and third-party trees are skipped. */
const skipDirs = new Set(["node_modules", "dist", "fixtures", "results", ".turbo", "coverage", "docs-site"]);
const textFile = /\.(ts|mts|cts|mjs|cjs|js|md|json|yaml|yml)$/;

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (skipDirs.has(name) || name.startsWith(".scratch")) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) walk(path, out);
    else if (textFile.test(name) && name !== "CHANGELOG.md" && path !== self) out.push(path);
  }
}

function scannedFiles(): string[] {
  const out: string[] = [];
  for (const f of ["README.md", "CONTRIBUTING.md"]) {
    if (statSync(join(root, f), { throwIfNoEntry: false })?.isFile()) out.push(join(root, f));
  }
  for (const d of ["scripts", ".changeset"]) walk(join(root, d), out);
  for (const group of ["packages", "apps"]) {
    for (const pkg of readdirSync(join(root, group))) {
      const dir = join(root, group, pkg);
      if (!statSync(dir).isDirectory()) continue;
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (skipDirs.has(name)) continue;
        if (statSync(path).isDirectory()) {
          if (["src", "test", "bench", "scripts"].includes(name)) walk(path, out);
        } else if (name === "README.md" || name === "package.json") out.push(path);
      }
    }
  }
  return out;
}

/** `file:line: text` for every line of `text` that carries an internal label. */
export function findLabels(file: string, text: string): string[] {
  const hits: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (labels.some((re) => re.test(line))) hits.push(`${file}:${i + 1}: ${line.trim()}`);
  });
  return hits;
}

describe("no internal spec labels in user-facing text", () => {
  it("the patterns catch the labels and leave legitimate uses of the word alone", () => {
    const bad = [
      "clamped to minSchur (the spec's guard against a singular border)",
      "// measured: worst ratio 0.03 (beta is very loose, spec P6)",
      'describe("kernels (spec 5.1.1)", () => {',
      "Presets of the spec's §3.6 offline benchmark",
      "(d = 40) is < 1e-10 (spec 001 asks 1e-9)",
      "the spec (003, §2.1, P7) clamps",
      "// Measured: 100% (spec: 100%).",
      '5: "spec rerun (v0 = 1, T = 3000): OFU-MNL+ 63",',
      "- **OFU-MNL+** (Lee & Oh, NeurIPS 2024, paper 004): one step",
      "Online experiments of the spec-style checks",
      "reference numbers (from the paper or the implementation spec)",
    ];
    for (const line of bad) expect(findLabels("x.ts", line), line).toHaveLength(1);
    const good = [
      "export function buildExperiment(spec: Json): Experiment {",
      "const svg = await renderSvg(spec);",
      "checkLearnEqualsUpdateArm(spec);",
      "/** A kernel spec with every parameter set (what snapshots store). */",
      "Plots are vega-lite specs rendered headless by vega",
      "{ module: fixture, spec: { arms: 3, horizon: 200 } }",
      "Bregman projection onto the nuclear-norm ball (paper §5.1, Eq. 17)",
      "/** A documented numeric option range, declared by a policy's conformance spec. */",
      "Rerun with the same spec to reproduce these numbers exactly",
    ];
    for (const line of good) expect(findLabels("x.ts", line), line).toEqual([]);
  });

  it("READMEs, sources, benchmarks, tests, scripts and changesets carry none", () => {
    const files = scannedFiles();
    // The walk reaches every package (a broken walk would find nothing and pass).
    expect(files.some((f) => f.endsWith(join("packages", "core", "src", "index.ts")))).toBe(true);
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((f) => findLabels(relative(root, f), readFileSync(f, "utf8")));
    expect(hits, "write the reason itself, or cite the paper by title, section or equation").toEqual([]);
  });
});
