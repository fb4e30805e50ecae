import { describe, ErrorCode, optionKeys, RouteKitError, rejectUnknownOptions } from "@routekit/core";
import { checkNumber } from "../basic/common.js";
import { type FeaturizerConfig, type FeaturizerOptions, HashingFeaturizer } from "./featurizer.js";
import { duplicateKeyMessage, findDuplicateJsonKey } from "./json-keys.js";

/** One problem found in the input, by 1-based line number of the file. */
export interface ReplayIssue {
  readonly line: number;
  readonly message: string;
}

export interface ReplayLoadOptions {
  /** Input format; "auto" (default) picks JSONL when the first non-blank character is `{`, CSV otherwise. */
  readonly format?: "auto" | "jsonl" | "csv";
  /** Models to compare (default: every model in the file, in order of first appearance). Rows of other models are skipped. */
  readonly models?: readonly string[];
  /**
   * Where contexts come from: "text" featurizes the prompt column, "embedding" uses the embedding column as is,
   * "auto" (default) uses embeddings when the first data row has one, text otherwise.
   */
  readonly context?: "auto" | "text" | "embedding";
  /** Options of the built-in text featurizer (context "text"). */
  readonly featurizer?: FeaturizerOptions;
  /** Issues listed in the error message (all of them are in `error.details.issues`). Default 10. */
  readonly maxListed?: number;
}

/** The option keys of {@link ReplayLoadOptions}. */
export const REPLAY_LOAD_OPTION_KEYS = optionKeys<ReplayLoadOptions>()([
  "format",
  "models",
  "context",
  "featurizer",
  "maxListed",
]);

/**
 * A full-information table: for every prompt, the (mean) logged score and cost of every compared model.
 * Dense row-major Float64Arrays, prompt-major: entry (p, m) is at p * models.length + m.
 */
export interface ReplayTable {
  readonly models: readonly string[];
  readonly numPrompts: number;
  /** Context dimension (featurizer dim, or the embedding length). */
  readonly dim: number;
  readonly contextSource: "text" | "embedding";
  /** The featurizer configuration when contexts come from text. */
  readonly featurizer?: FeaturizerConfig;
  /** Prompt keys (prompt id, text, or embedding), in order of first appearance. */
  readonly promptKeys: readonly string[];
  /** Line of each prompt's first row. */
  readonly promptLines: readonly number[];
  /** numPrompts x dim contexts. */
  readonly contexts: Float64Array;
  /** numPrompts x models mean scores. */
  readonly meanScore: Float64Array;
  /** numPrompts x models mean costs (zeros when the file has no cost column). */
  readonly meanCost: Float64Array;
  readonly hasCost: boolean;
  /** CSR index into the logged samples of each (prompt, model) cell: samples of cell c are [start[c], start[c+1]). */
  readonly sampleStart: Int32Array;
  readonly sampleScore: Float64Array;
  readonly sampleCost: Float64Array;
  /**
   * File line of each sample (parallel to `sampleScore`), so that a later refusal of a row (a cascade replay's) can
   * name it as the parse errors do. Absent from a table built by hand.
   */
  readonly sampleLine?: Int32Array;
  /** Data rows used (after skipping models not compared). */
  readonly rows: number;
}

const ALIASES = {
  id: ["prompt_id", "id", "sample_id"],
  prompt: ["prompt", "text", "query"],
  embedding: ["embedding", "vector"],
  model: ["model", "model_id"],
  score: ["score", "reward"],
  cost: ["cost"],
} as const;

type Field = keyof typeof ALIASES;
/** A data row; `model` is set for a row expanded from a wide table (its messages name the model's column). */
/**
 * A row's fields by name. `refused`: a row already reported for its own problem (a CSV row of another field count),
 * kept only so that its prompt is not reported again as missing its model (its fields are read by position, as far
 * as they go).
 */
type RawRecord = { line: number; get(f: Field): unknown; has(f: Field): boolean; model?: string; refused?: true };

function shorten(s: string, n = 40): string {
  const one = s.replace(/\s+/g, " ");
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** The prompt key (as the rows' loop makes it) of a refused row, when its fields give one. */
function refusedKey(r: RawRecord, mode: string): string | undefined {
  const id = r.get("id");
  if (typeof id === "string" || typeof id === "number") return `id:${String(id)}`;
  const text = r.get("prompt");
  if (typeof text === "string" && text.trim() !== "") return `text:${text}`;
  if (mode === "embedding") {
    const raw = r.get("embedding");
    const v = raw === undefined ? undefined : parseVector(raw);
    return v === undefined || typeof v === "string" ? undefined : `vec:${v.join(",")}`;
  }
  return undefined;
}

// ---------------------------------------------------------------- record readers

const COST_SUFFIX = "|total_cost";
const NOT_MODELS = new Set([...Object.values(ALIASES).flat(), "eval_name", "oracle_model_to_route_to"]);

/**
 * Model columns of a wide (RouterBench-style) table: the requested models, else the columns that have a
 * `<model>|total_cost` companion, else every column that is neither a known field nor contains "|".
 */
function wideModels(names: readonly string[], wanted: readonly string[] | undefined): string[] {
  if (wanted && wanted.length > 0) return wanted.filter((m) => names.includes(m));
  const withCost = names.filter((n) => !n.includes("|") && names.includes(n + COST_SUFFIX));
  if (withCost.length > 0) return withCost;
  return names.filter((n) => !n.includes("|") && !NOT_MODELS.has(n.toLowerCase()));
}

/** One record per model of a wide row. */
function expandWide(
  line: number,
  models: readonly string[],
  cell: (name: string) => unknown,
  field: (f: Field) => unknown,
): RawRecord[] {
  return models.map((m) => {
    const get = (f: Field): unknown =>
      f === "model" ? m : f === "score" ? cell(m) : f === "cost" ? cell(m + COST_SUFFIX) : field(f);
    return { line, get, has: (f: Field) => get(f) !== undefined, model: m };
  });
}

function jsonlRecords(text: string, issues: ReplayIssue[], wanted?: readonly string[]): RawRecord[] {
  const out: RawRecord[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).trim();
    if (raw === "") continue;
    const line = i + 1;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      issues.push({ line, message: `not valid JSON (${(e as Error).message})` });
      continue;
    }
    const dup = findDuplicateJsonKey(raw, obj);
    if (dup !== undefined) {
      issues.push({ line, message: duplicateKeyMessage(dup) });
      continue;
    }
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
      issues.push({ line, message: "expected a JSON object per line" });
      continue;
    }
    const o = obj as Record<string, unknown>;
    const key = (f: Field) => ALIASES[f].find((k) => k in o && o[k] !== null && o[k] !== undefined);
    if (key("model") === undefined && key("score") === undefined) {
      const names = Object.keys(o);
      const models = wideModels(names, wanted);
      if (models.length > 0) {
        const field = (f: Field) => {
          const k = key(f);
          return k === undefined ? undefined : o[k];
        };
        out.push(...expandWide(line, models, (n) => (o[n] === null ? undefined : o[n]), field));
        continue;
      }
    }
    out.push({
      line,
      get: (f) => {
        const k = key(f);
        return k === undefined ? undefined : o[k];
      },
      has: (f) => key(f) !== undefined,
    });
  }
  return out;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * RFC 4180 CSV: quoted fields may hold commas, doubled quotes and newlines. Calls `row` with each record's first
 * line and its fields, in order, and returns the line of a quote still open at the end of the text (the rest of the
 * file was read as one field). Lines that are blank (whitespace only, no comma, no quote) are no record.
 * Fields are slices of the text (one replace for a quoted field holding doubled quotes), not built a character at a
 * time: a field's text is the same as RFC 4180's, with text after a closing quote appended as is and a quote inside
 * an unquoted field kept as a character.
 */
function csvRows(text: string, row: (line: number, cells: string[]) => void): number | undefined {
  const n = text.length;
  let cells: string[] = [];
  let quotedRow = false;
  let line = 1;
  let start = 1;
  let i = 0;
  for (;;) {
    let cell = "";
    if (text.charCodeAt(i) === QUOTE) {
      // Quoted: up to the first quote that is not doubled (the end of the text when there is none).
      quotedRow = true;
      const quoteLine = line;
      let doubled = false;
      let q = text.indexOf('"', i + 1);
      while (q >= 0 && text.charCodeAt(q + 1) === QUOTE) {
        doubled = true;
        q = text.indexOf('"', q + 2);
      }
      const end = q < 0 ? n : q;
      cell = text.slice(i + 1, end);
      if (doubled) cell = cell.replace(/""/g, '"');
      for (let k = i + 1; k < end; k++) if (text.charCodeAt(k) === LF) line++;
      if (q < 0) {
        cells.push(cell);
        row(start, cells);
        return quoteLine;
      }
      i = q + 1;
    }
    // Unquoted (or what follows a closing quote): up to a comma or a line end.
    let j = i;
    let c = 0;
    for (; j < n; j++) {
      c = text.charCodeAt(j);
      if (c === COMMA || c === LF || c === CR) break;
    }
    if (j > i) cell = cell === "" ? text.slice(i, j) : cell + text.slice(i, j);
    cells.push(cell);
    if (j < n && c === COMMA) {
      i = j + 1;
      continue;
    }
    if (cells.length > 1 || quotedRow || cell.trim() !== "") row(start, cells);
    if (j >= n) return undefined;
    if (c === CR && text.charCodeAt(j + 1) === LF) j++;
    cells = [];
    quotedRow = false;
    line++;
    start = line;
    i = j + 1;
  }
}

/** A data row of a long CSV table: its fields, read through the header's column of each field. */
class CsvRecord {
  constructor(
    readonly line: number,
    private readonly cells: readonly string[],
    private readonly col: Readonly<Record<Field, number>>,
  ) {}

  /** Set for a row already reported for its own problem (another field count). */
  refused?: true;

  get(f: Field): string | undefined {
    const c = this.col[f];
    if (c < 0) return undefined;
    const v = this.cells[c];
    return v === undefined || v.trim() === "" ? undefined : v;
  }

  has(f: Field): boolean {
    return this.get(f) !== undefined;
  }
}

/** Issues for header names read as a column that the header gives twice (`names` as compared, `shown` as written). */
function repeatedColumns(names: readonly string[], used: Iterable<string>, line: number): ReplayIssue[] {
  const out: ReplayIssue[] = [];
  for (const name of new Set(used)) {
    const at = names.flatMap((n, i) => (n === name ? [i + 1] : []));
    if (at.length > 1) {
      out.push({ line, message: `the CSV header names "${name}" twice (columns ${at[0]} and ${at[1]})` });
    }
  }
  return out;
}

function csvRecords(text: string, issues: ReplayIssue[], wanted?: readonly string[]): RawRecord[] {
  const before = issues.length;
  const out: RawRecord[] = [];
  let headerRead = false;
  let onRow: ((line: number, cells: string[]) => void) | undefined;
  const unclosed = csvRows(text, (line, cells) => {
    if (headerRead) onRow?.(line, cells);
    else {
      headerRead = true;
      onRow = csvReader(line, cells, issues, out, wanted);
    }
  });
  if (unclosed !== undefined) {
    // Everything after the quote was read as one field: no row from there on can be trusted.
    issues.length = before;
    issues.push({
      line: unclosed,
      message: "a quoted field opened on this line is never closed (its closing double quote is missing)",
    });
    return [];
  }
  return out;
}

/**
 * Reads a CSV header: returns what reads each data row into `out` (a row with the wrong number of fields is an
 * issue), or undefined after adding the header's problems to `issues` (no row is read then).
 */
function csvReader(
  headerLine: number,
  headerCells: readonly string[],
  issues: ReplayIssue[],
  out: RawRecord[],
  wanted: readonly string[] | undefined,
): ((line: number, cells: string[]) => void) | undefined {
  const names = headerCells.map((c) => c.trim().toLowerCase());
  // Of two names of one column (`score` and `reward`), the first one ALIASES lists is read, as in JSONL.
  const col = {} as Record<Field, number>;
  for (const f of Object.keys(ALIASES) as Field[]) {
    const name = (ALIASES[f] as readonly string[]).find((a) => names.includes(a));
    col[f] = name === undefined ? -1 : names.indexOf(name);
  }
  const original = headerCells.map((c) => c.trim());
  const wideCols = col.model < 0 && col.score < 0 ? [...new Set(wideModels(original, wanted))] : [];
  // A column read from a header that names it twice: which one holds the data would be a guess.
  const repeated = [
    ...repeatedColumns(
      names,
      (Object.keys(ALIASES) as Field[]).flatMap((f) => (col[f] < 0 ? [] : [names[col[f]] as string])),
      headerLine,
    ),
    ...repeatedColumns(
      original,
      wideCols.flatMap((m) => [m, m + COST_SUFFIX]),
      headerLine,
    ),
  ];
  if (repeated.length > 0) {
    issues.push(...repeated);
    return undefined;
  }
  const fieldCount = (line: number, cells: readonly string[]): boolean => {
    if (cells.length === names.length) return true;
    issues.push({ line, message: `has ${cells.length} fields, the header has ${names.length}` });
    return false;
  };
  if (wideCols.length > 0) {
    if (col.prompt < 0 && col.embedding < 0) {
      issues.push({ line: headerLine, message: 'the CSV header has neither a "prompt" nor an "embedding" column' });
      return undefined;
    }
    return (line, cells) => {
      if (!fieldCount(line, cells)) return;
      const byName = (n: string) => {
        const c = original.indexOf(n);
        const v = c < 0 ? undefined : (cells[c] as string);
        return v === undefined || v.trim() === "" ? undefined : v;
      };
      const field = (f: Field) => {
        const c = col[f];
        const v = c < 0 ? undefined : (cells[c] as string);
        return v === undefined || v.trim() === "" ? undefined : v;
      };
      for (const r of expandWide(line, wideCols, byName, field)) out.push(r);
    };
  }
  const before = issues.length;
  for (const f of ["model", "score"] as const) {
    if (col[f] < 0) {
      issues.push({
        line: headerLine,
        message: `the CSV header has no "${f}" column (accepted names: ${ALIASES[f].join(", ")})`,
      });
    }
  }
  if (col.prompt < 0 && col.embedding < 0) {
    issues.push({ line: headerLine, message: 'the CSV header has neither a "prompt" nor an "embedding" column' });
  }
  if (issues.length > before) return undefined;
  return (line, cells) => {
    const record = new CsvRecord(line, cells, col);
    // A row of another field count is reported for that and kept as refused (its fields read by position), so its
    // prompt is not reported again as missing a score for its model.
    if (!fieldCount(line, cells)) record.refused = true;
    out.push(record);
  };
}

// ---------------------------------------------------------------- field parsing

// Decimal notation only: Number() would also read "0x1F" as 31, "0b1" as 1 and "Infinity".
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseNumber(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string" && DECIMAL.test(v.trim())) {
    const x = Number(v.trim());
    return Number.isFinite(x) ? x : undefined;
  }
  return undefined;
}

/** How a value that is not a finite decimal number is quoted in a message (1e999 overflows to Infinity). */
function badNumber(what: string, raw: unknown, expected: string): string {
  const overflow =
    raw === Infinity ||
    raw === -Infinity ||
    (typeof raw === "string" && DECIMAL.test(raw.trim()) && !Number.isFinite(Number(raw.trim())));
  const shown = typeof raw === "number" ? String(raw) : JSON.stringify(raw);
  return overflow
    ? `${what} ${typeof raw === "number" ? "" : `${shown} `}is beyond the double range (±1.8e308, it overflows to Infinity); expected ${expected}`
    : `${what} ${shown} is not ${expected}`;
}

function parseVector(v: unknown): number[] | string {
  let arr: unknown = v;
  if (typeof v === "string") {
    const s = v.trim();
    if (s.startsWith("[")) {
      try {
        arr = JSON.parse(s);
      } catch {
        return "is not a valid JSON array";
      }
    } else arr = s.split(/[\s;]+/).map((x) => (DECIMAL.test(x) ? Number(x) : Number.NaN));
  }
  if (!Array.isArray(arr)) return "must be an array of numbers";
  if (arr.length === 0) return "is empty";
  for (let i = 0; i < arr.length; i++) {
    if (typeof arr[i] !== "number" || !Number.isFinite(arr[i])) return `has a non-numeric value at index ${i}`;
  }
  return arr as number[];
}

interface Cell {
  scores: number[];
  costs: number[];
  lines: number[];
}

interface Prompt {
  key: string;
  line: number;
  text?: string;
  vector?: number[];
  cells: Map<string, Cell>;
}

/**
 * Parses logged outcomes (JSONL or CSV, one row per prompt x model) into a full-information table.
 * Every problem is reported with its line number: unreadable rows, a missing or non-numeric score, a negative
 * cost, a bad or wrong-length embedding, and prompts without a score for every compared model. Nothing is
 * guessed: any problem throws a RouteKitError (INVALID_ARGUMENT) whose `details.issues` lists them all.
 *
 * Accepted columns (JSONL keys or CSV header names, case-insensitive in CSV; of two names of one column the first listed
 * is read; a CSV header naming a column it reads twice is refused):
 * `prompt` | `text` | `query`, `embedding` | `vector` (JSON array, or space/semicolon-separated decimal numbers in CSV),
 * `model` | `model_id`, `score` | `reward`, optional `cost`, optional `prompt_id` | `id` | `sample_id` (groups rows of
 * one prompt; otherwise the prompt text, also with embeddings, or else the embedding, is the key). Several rows for one (prompt, model) are
 * averaged for expected values and replayed one at a time as realised feedback.
 *
 * Wide tables (one row per prompt, RouterBench-style, the layout the StageRoute spec describes) are accepted too:
 * when there is no `model`/`score` column, each model is a column holding its score, with an optional
 * `<model>|total_cost` column for its cost. Model columns are `options.models`, else the columns that have a
 * `|total_cost` companion, else every column that is not a known field (`eval_name`,
 * `oracle_model_to_route_to` and anything containing `|` are ignored).
 */
export function parseReplay(text: string, options: ReplayLoadOptions = {}): ReplayTable {
  rejectUnknownOptions(options, REPLAY_LOAD_OPTION_KEYS, "parseReplay", true);
  if (typeof text !== "string") throw new RouteKitError(ErrorCode.InvalidArgument, "replay data must be a string");
  const issues: ReplayIssue[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let format = options.format ?? "auto";
  // gzip's magic bytes 1f 8b, as a UTF-8 reading of the file (0x8b alone is no character: U+FFFD) or a Latin-1 one.
  if (body.charCodeAt(0) === 0x1f && (body.charCodeAt(1) === 0xfffd || body.charCodeAt(1) === 0x8b)) {
    throw replayError([{ line: 1, message: "the file is gzip-compressed: decompress it first (gunzip)" }], 1);
  }
  if (format === "auto" && body.trimStart().startsWith("[")) {
    throw replayError(
      [{ line: 1, message: "the file is a JSON array: replay data is JSONL (one JSON object per line) or CSV" }],
      1,
    );
  }
  if (format === "auto") format = body.trimStart().startsWith("{") ? "jsonl" : "csv";
  if (format !== "jsonl" && format !== "csv") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `format must be "auto", "jsonl" or "csv", got ${describe(format)}`,
    );
  }
  const ctxOpt = options.context ?? "auto";
  if (ctxOpt !== "auto" && ctxOpt !== "text" && ctxOpt !== "embedding") {
    throw new RouteKitError(
      ErrorCode.InvalidArgument,
      `context must be "auto", "text" or "embedding", got ${describe(ctxOpt)}`,
    );
  }
  if (options.models !== undefined) {
    // The table's models are the environments' arms: a string was read as its characters, a repeated name made two
    // arms with one id.
    if (!Array.isArray(options.models)) {
      throw new RouteKitError(
        ErrorCode.InvalidArgument,
        `option models must be an array of model names, got ${describe(options.models)}`,
      );
    }
    const seen = new Set<string>();
    for (const m of options.models as unknown[]) {
      if (typeof m !== "string" || m === "") {
        throw new RouteKitError(
          ErrorCode.InvalidArgument,
          `option models must hold non-empty strings, got ${describe(m)}`,
        );
      }
      if (seen.has(m)) throw new RouteKitError(ErrorCode.DuplicateArm, `option models lists "${m}" twice`);
      seen.add(m);
    }
  }
  const maxListed = checkNumber(
    options.maxListed ?? 10,
    "option maxListed",
    (v) => Number.isInteger(v) && v >= 1,
    "an integer >= 1",
  );
  const records =
    format === "jsonl" ? jsonlRecords(body, issues, options.models) : csvRecords(body, issues, options.models);
  const wanted = options.models ? new Set(options.models) : undefined;
  let mode = options.context ?? "auto";
  const read = records.filter((r) => r.refused !== true);
  if (mode === "auto") mode = read[0]?.has("embedding") ? "embedding" : "text";

  const prompts = new Map<string, Prompt>();
  const seenModels: string[] = [];
  const fileModels = new Set<string>();
  const seenModelSet = new Set<string>();
  let costRows = 0;
  let rowsUsed = 0;
  let dim = -1;
  let dimLine = 0;
  const recordCost: { line: number; of: string; has: boolean }[] = [];
  // (prompt key, model) of rows refused for a problem of their own: not reported again as a missing score.
  const refusedCells = new Set<string>();
  for (const r of records) {
    if (r.refused) {
      // Reported already: its prompt is not "missing" its model.
      const key = refusedKey(r, mode);
      const model = r.get("model");
      if (key !== undefined && (typeof model === "string" || typeof model === "number"))
        refusedCells.add(`${key}\u0000${String(model).trim()}`);
      continue;
    }
    const before = issues.length;
    // A wide table's cell is found by its model's column: name it.
    const of = r.model === undefined ? "" : `model ${JSON.stringify(r.model)}: `;
    const model = r.get("model");
    if (typeof model !== "string" && typeof model !== "number") {
      issues.push({ line: r.line, message: 'missing "model"' });
      continue;
    }
    const modelId = String(model).trim();
    if (modelId === "") {
      issues.push({ line: r.line, message: 'empty "model"' });
      continue;
    }
    fileModels.add(modelId);
    if (wanted && !wanted.has(modelId)) continue;
    const rawScore = r.get("score");
    const score = parseNumber(rawScore);
    if (score === undefined) {
      issues.push({
        line: r.line,
        message: of + (rawScore === undefined ? 'missing "score"' : badNumber("score", rawScore, "a finite number")),
      });
    }
    const rawCost = r.get("cost");
    const cost = rawCost === undefined ? undefined : parseNumber(rawCost);
    if (rawCost !== undefined && (cost === undefined || cost < 0)) {
      issues.push({ line: r.line, message: of + badNumber("cost", rawCost, "a finite number >= 0") });
    }
    let ctxText: string | undefined;
    let vector: number[] | undefined;
    if (mode === "embedding") {
      const raw = r.get("embedding");
      if (raw === undefined) issues.push({ line: r.line, message: 'missing "embedding"' });
      else {
        const v = parseVector(raw);
        if (typeof v === "string") issues.push({ line: r.line, message: `embedding ${v}` });
        else if (dim >= 0 && v.length !== dim) {
          issues.push({
            line: r.line,
            message: `embedding has ${v.length} values, expected ${dim} (the length on line ${dimLine})`,
          });
        } else {
          if (dim < 0) {
            dim = v.length;
            dimLine = r.line;
          }
          vector = v;
        }
      }
    } else {
      const raw = r.get("prompt");
      if (typeof raw !== "string" || raw.trim() === "") {
        issues.push({
          line: r.line,
          message: raw === undefined ? 'missing "prompt"' : '"prompt" must be non-empty text',
        });
      } else ctxText = raw;
    }
    const id = r.get("id");
    // With embeddings, a row's prompt text (when it has one) still names its prompt: keyed on the embedding, two
    // prompts that happen to share one were merged into one prompt.
    const rawText = mode === "embedding" ? r.get("prompt") : undefined;
    const keyText = ctxText ?? (typeof rawText === "string" && rawText.trim() !== "" ? rawText : undefined);
    const key =
      id !== undefined && (typeof id === "string" || typeof id === "number")
        ? `id:${String(id)}`
        : keyText !== undefined
          ? `text:${keyText}`
          : vector !== undefined
            ? `vec:${vector.join(",")}`
            : undefined;
    if (issues.length > before) {
      // Its prompt is not "missing" this model: the row was there, and is reported for what is wrong with it.
      if (key !== undefined) refusedCells.add(`${key}\u0000${modelId}`);
      continue;
    }
    let p = prompts.get(key as string);
    if (!p) {
      p = { key: key as string, line: r.line, cells: new Map() };
      if (ctxText !== undefined) p.text = ctxText;
      if (vector !== undefined) p.vector = vector;
      prompts.set(key as string, p);
    } else if (ctxText !== undefined && p.text !== ctxText) {
      issues.push({ line: r.line, message: `prompt text differs from line ${p.line}'s for the same prompt id` });
      refusedCells.add(`${key}\u0000${modelId}`);
      continue;
    } else if (vector && p.vector?.some((x, i) => x !== vector[i])) {
      const same = key?.startsWith("id:") ? "prompt id" : "prompt text";
      issues.push({ line: r.line, message: `embedding differs from line ${p.line}'s for the same ${same}` });
      refusedCells.add(`${key}\u0000${modelId}`);
      continue;
    }
    if (!seenModelSet.has(modelId)) {
      seenModelSet.add(modelId);
      // A copy: a CSV field is a slice of the file's text, which the table's models would otherwise keep in memory.
      seenModels.push(JSON.parse(JSON.stringify(modelId)) as string);
    }
    let cell = p.cells.get(modelId);
    if (!cell) {
      cell = { scores: [], costs: [], lines: [] };
      p.cells.set(modelId, cell);
    }
    cell.scores.push(score as number);
    cell.costs.push(cost ?? 0);
    cell.lines.push(r.line);
    recordCost.push({ line: r.line, of, has: cost !== undefined });
    if (cost !== undefined) costRows++;
    rowsUsed++;
  }
  const hasCost = costRows > 0;
  if (hasCost && costRows < rowsUsed) {
    for (const rc of recordCost) {
      if (!rc.has)
        issues.push({ line: rc.line, message: `${rc.of}missing "cost" (other rows have one: give it on every row)` });
    }
  }
  if (mode === "embedding") mixedTextIssues(prompts, issues);
  const models = options.models ? [...options.models] : seenModels;
  for (const m of models) {
    if (!seenModelSet.has(m) && read.length > 0) {
      issues.push({ line: 0, message: `model "${m}" has no rows (models in the file: ${[...fileModels].join(", ")})` });
    }
  }
  if (issues.length === 0 && prompts.size === 0) issues.push({ line: 0, message: "no data rows" });
  // Checked beside the rows' own problems, so that one run lists them all (the README's example has both kinds).
  if (!issues.some((i) => i.line === 0)) {
    for (const p of prompts.values()) {
      const missing = models.filter((m) => !p.cells.has(m) && !refusedCells.has(`${p.key}\u0000${m}`));
      if (missing.length > 0) {
        const what = p.key.startsWith("text:") ? `prompt "${shorten(p.key.slice(5))}"` : `prompt ${shorten(p.key)}`;
        issues.push({
          line: p.line,
          message: `${what} has no score for ${missing.map((m) => `"${m}"`).join(", ")} (every prompt needs all ${models.length} models)`,
        });
      }
    }
  }
  if (issues.length > 0) throw replayError(issues, maxListed);

  const M = models.length;
  const n = prompts.size;
  let featurizer: HashingFeaturizer | undefined;
  if (mode === "text") {
    featurizer = new HashingFeaturizer(options.featurizer);
    dim = featurizer.dim;
  }
  const contexts = new Float64Array(n * dim);
  const meanScore = new Float64Array(n * M);
  const meanCost = new Float64Array(n * M);
  const sampleStart = new Int32Array(n * M + 1);
  const sampleScore = new Float64Array(rowsUsed);
  const sampleCost = new Float64Array(rowsUsed);
  const sampleLine = new Int32Array(rowsUsed);
  const promptKeys: string[] = [];
  const promptLines: number[] = [];
  let p = 0;
  let k = 0;
  for (const pr of prompts.values()) {
    promptKeys.push(pr.key.replace(/^(id|text|vec):/, ""));
    promptLines.push(pr.line);
    const ctx = contexts.subarray(p * dim, (p + 1) * dim);
    if (featurizer) featurizer.transform(pr.text as string, ctx);
    else ctx.set(pr.vector as number[]);
    for (let m = 0; m < M; m++) {
      const cell = pr.cells.get(models[m] as string) as Cell;
      const c = p * M + m;
      sampleStart[c] = k;
      let s = 0;
      let q = 0;
      for (let j = 0; j < cell.scores.length; j++) {
        sampleScore[k] = cell.scores[j] as number;
        sampleCost[k] = cell.costs[j] as number;
        sampleLine[k] = cell.lines[j] as number;
        s += cell.scores[j] as number;
        q += cell.costs[j] as number;
        k++;
      }
      meanScore[c] = mean(s, cell.scores);
      meanCost[c] = mean(q, cell.costs);
    }
    p++;
  }
  sampleStart[n * M] = k;
  forgetLastMatch();
  return {
    models,
    numPrompts: n,
    dim,
    contextSource: mode,
    ...(featurizer ? { featurizer: featurizer.config } : {}),
    promptKeys,
    promptLines,
    contexts,
    meanScore,
    meanCost,
    hasCost,
    sampleStart,
    sampleScore: sampleScore.subarray(0, k),
    sampleCost: sampleCost.subarray(0, k),
    sampleLine: sampleLine.subarray(0, k),
    rows: rowsUsed,
  };
}

/**
 * With embeddings, a row with a prompt text is keyed on the text and one without on its embedding, so a prompt whose
 * text is given on some rows only would become two prompts: refused at the untexted prompt's first line. Checked only
 * when both kinds of key occur (joining every embedding of a large table costs memory).
 */
function mixedTextIssues(prompts: ReadonlyMap<string, Prompt>, issues: ReplayIssue[]): void {
  let texted = false;
  let untexted = false;
  for (const key of prompts.keys()) {
    if (key.startsWith("text:")) texted = true;
    else if (key.startsWith("vec:")) untexted = true;
  }
  if (!texted || !untexted) return;
  const byVector = new Map<string, Prompt>();
  for (const p of prompts.values()) {
    if (p.key.startsWith("text:") && p.vector !== undefined) byVector.set(p.vector.join(","), p);
  }
  for (const p of prompts.values()) {
    const named = p.key.startsWith("vec:") ? byVector.get(p.key.slice(4)) : undefined;
    if (named !== undefined) {
      issues.push({
        line: p.line,
        message: `no prompt text, but the embedding of prompt "${shorten(named.key.slice(5))}" (line ${named.line}): give a prompt's text on all its rows or on none`,
      });
    }
  }
}

/**
 * Makes an empty string the last regular expression match. V8 keeps the input of the last successful match for
 * RegExp.input / RegExp.lastMatch; after a parse that input is a prompt sliced out of the file's text (the
 * featurizer matches words in it), which kept the whole text alive (200k CSV rows: 27 MB of heap for the run).
 */
function forgetLastMatch(): void {
  /(?:)/.exec("");
}

/**
 * The mean of `xs`, whose plain sum is `sum`: sum / n, the same bits as always, unless the sum overflowed (two scores
 * near 1.7e308 summed to Infinity, and a regret of Infinity - Infinity was NaN); then the sum of x / n, which stays
 * within the range of the values.
 */
function mean(sum: number, xs: readonly number[]): number {
  const n = xs.length;
  if (Number.isFinite(sum)) return sum / n;
  let m = 0;
  for (const x of xs) m += x / n;
  return m;
}

function replayError(issues: ReplayIssue[], maxListed: number): RouteKitError {
  const sorted = [...issues].sort((a, b) => a.line - b.line);
  const listed = sorted
    .slice(0, maxListed)
    .map((i) => (i.line > 0 ? `line ${i.line}: ${i.message}` : i.message))
    .join("; ");
  const more = sorted.length > maxListed ? `; and ${sorted.length - maxListed} more` : "";
  return new RouteKitError(
    ErrorCode.InvalidArgument,
    `replay data has ${sorted.length} problem${sorted.length === 1 ? "" : "s"}: ${listed}${more}`,
    { issues: sorted },
  );
}
