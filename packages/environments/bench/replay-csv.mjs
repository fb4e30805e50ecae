// Time and memory of parseReplay on a large CSV (a RouterBench-style log: prompt text, model, score, cost). An
// outside test measured 17 s and 2.6 GB for a 48 MB, 1,000,000-row file when the CSV reader built every field one
// character at a time. The CSV is generated deterministically (one prompt in 5 quoted for a comma, one in 11 with
// doubled quotes, one in 37 with a newline inside quotes, 4 models per prompt) and written to a temporary file;
// each run is a fresh `node --expose-gc` process that reads the file and parses it once, so the peak RSS is the
// parse's own (plus the file's text) and the time includes warm-up, as for the CLI.
// Usage: node --expose-gc bench/replay-csv.mjs [--rows N] [--runs R] (default 200,000 rows, 3 runs: median time,
// largest peak). Imports the built ../dist/index.js. No speed target: it prints the figures for the README.
// --smoke: 2,000 rows, one run (to check that it runs).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MB = 1024 * 1024;
const argValue = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1];
};

if (process.argv.includes("--child")) {
  // One measured parse: prints a JSON line for the parent.
  const { parseReplay } = await import("../dist/index.js");
  let text = readFileSync(argValue("--child"), "utf8");
  const textLength = text.length;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed - textLength; // a one-byte string: about 1 byte a character
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const table = parseReplay(text);
  const ms = performance.now() - t0;
  const heapWithTable = process.memoryUsage().heapUsed;
  globalThis.gc?.();
  const heapAfterGc = process.memoryUsage().heapUsed;
  // What the parse keeps once the caller drops the text (nothing should hold it: see test/replay-retained).
  text = null;
  globalThis.gc?.();
  const heapRetained = process.memoryUsage().heapUsed - heapBefore;
  console.log(
    JSON.stringify({
      ms,
      rssBefore,
      peakRss: process.resourceUsage().maxRSS * 1024,
      heapWithTable,
      heapAfterGc,
      heapRetained,
      rows: table.rows,
      prompts: table.numPrompts,
      models: table.models.length,
      textLength,
    }),
  );
  process.exit(0);
}

const smoke = process.argv.includes("--smoke");
const ROWS = smoke ? 2000 : Number(argValue("--rows", 200_000));
const RUNS = smoke ? 1 : Number(argValue("--runs", 3));
const MODELS = ["gpt-4o-mini", "claude-3-haiku", "llama-3-70b-instruct", "mistral-large"];
const WORDS = (
  "route the request to a model that answers well and cheaply explain why this function returns null when " +
  "the list is empty write a short poem about latency summarise the following paragraph in two sentences"
).split(" ");

/** The CSV text: `prompt,model,score,cost`, ROWS rows (ROWS / 4 prompts, each scored by the 4 models). */
function makeCsv(rows) {
  let seed = 12345;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const parts = ["prompt,model,score,cost"];
  const prompts = Math.ceil(rows / MODELS.length);
  let written = 0;
  for (let p = 0; p < prompts && written < rows; p++) {
    const n = 8 + Math.floor(next() * 20);
    const words = [`#${p}`];
    for (let w = 0; w < n; w++) words.push(WORDS[Math.floor(next() * WORDS.length)]);
    let prompt = words.join(" ");
    if (p % 5 === 0) prompt = prompt.replace(" ", ", ");
    if (p % 11 === 0) prompt = `say "${prompt}" back`;
    if (p % 37 === 0) prompt = prompt.replace(" ", "\n");
    const cell = /[",\n\r]/.test(prompt) ? `"${prompt.replaceAll('"', '""')}"` : prompt;
    for (let m = 0; m < MODELS.length && written < rows; m++, written++) {
      const score = next().toFixed(3);
      const cost = (0.0001 * (m + 1) + 0.0005 * next()).toFixed(6);
      parts.push(`${cell},${MODELS[m]},${score},${cost}`);
    }
  }
  return `${parts.join("\n")}\n`;
}

const dir = mkdtempSync(join(tmpdir(), "routekit-replay-csv-"));
const file = join(dir, "log.csv");
try {
  const csv = makeCsv(ROWS);
  writeFileSync(file, csv);
  const bytes = Buffer.byteLength(csv);
  console.log(
    `replay CSV bench: node ${process.version}, ${ROWS.toLocaleString("en")} rows, ${(bytes / MB).toFixed(1)} MB, ` +
      `${RUNS} run${RUNS === 1 ? "" : "s"} (fresh process each; shared machine: numbers are noisy)`,
  );
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const child = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--child", file], {
      encoding: "utf8",
      maxBuffer: 16 * MB,
    });
    if (child.status !== 0) {
      console.error(child.stderr || child.stdout);
      throw new Error(`the measured parse exited ${child.status ?? child.signal}`);
    }
    const run = JSON.parse(child.stdout.trim().split("\n").at(-1));
    if (run.rows !== ROWS || run.prompts !== Math.ceil(ROWS / MODELS.length) || run.models !== MODELS.length) {
      throw new Error(`parsed ${run.rows} rows, ${run.prompts} prompts, ${run.models} models: not the file written`);
    }
    runs.push(run);
    console.log(
      `  run ${r + 1}: parseReplay ${run.ms.toFixed(0)} ms, peak RSS ${(run.peakRss / MB).toFixed(0)} MB ` +
        `(${(run.rssBefore / MB).toFixed(0)} MB before the parse), heap used ${(run.heapWithTable / MB).toFixed(0)} MB ` +
        `after it (${(run.heapAfterGc / MB).toFixed(0)} MB after a GC, table and text held; ` +
        `${(run.heapRetained / MB).toFixed(0)} MB kept by the table once the text is dropped)`,
    );
  }
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const peak = Math.max(...runs.map((r) => r.peakRss));
  console.log(
    `parseReplay on ${ROWS.toLocaleString("en")} CSV rows: median ${ms[Math.floor(ms.length / 2)].toFixed(0)} ms, ` +
      `peak RSS ${(peak / MB).toFixed(0)} MB`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
