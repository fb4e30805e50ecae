import { describe, expect, it } from "vitest";
import { parseReplay } from "../src/replay/index.js";
import { issuesOf, jsonl } from "./replay-helpers.js";

const opts = { featurizer: { dim: 8 } };

describe("CSV headers", () => {
  it("a header naming a column twice is refused at its line (the first of the two was read, silently)", () => {
    const csv = "prompt,model,score,score\na,m1,0.5,0.9\na,m2,0.4,0.1\n";
    expect(issuesOf(() => parseReplay(csv, opts))).toEqual([
      { line: 1, message: 'the CSV header names "score" twice (columns 3 and 4)' },
    ]);
    const wide = "prompt,m1,m2,m1\na,0.5,0.4,0.9\n";
    expect(issuesOf(() => parseReplay(wide, opts))).toEqual([
      { line: 1, message: 'the CSV header names "m1" twice (columns 2 and 4)' },
    ]);
    // A column nothing reads may repeat (two trailing commas give two empty names).
    expect(parseReplay("prompt,model,score,,\na,m1,0.5,,\na,m2,0.4,,\n", opts).numPrompts).toBe(1);
  });

  it("two names of one column are read as in JSONL (the first name listed wins), not by column order", () => {
    const csv = "reward,prompt,model,score\n0.5,a,m1,0.9\n0.4,a,m2,0.1\n";
    const fromCsv = parseReplay(csv, opts);
    const fromJsonl = parseReplay(
      jsonl([
        { reward: 0.5, prompt: "a", model: "m1", score: 0.9 },
        { reward: 0.4, prompt: "a", model: "m2", score: 0.1 },
      ]),
      opts,
    );
    expect(Array.from(fromJsonl.meanScore)).toEqual([0.9, 0.1]);
    expect(Array.from(fromCsv.meanScore)).toEqual([0.9, 0.1]);
  });

  it("an unclosed quote is named at the line it opens, not read as the rest of the file in one field", () => {
    const csv = 'prompt,model,score\n"unclosed,m1,0.5\na,m2,0.4\nb,m1,0.5\nb,m2,0.4\n';
    expect(issuesOf(() => parseReplay(csv, opts))).toEqual([
      { line: 2, message: "a quoted field opened on this line is never closed (its closing double quote is missing)" },
    ]);
  });

  it("reads every quoting case as the same table as the rows given as JSONL, field for field", () => {
    // Each prompt as written in the CSV: plain, quoted comma, doubled quotes, LF and CRLF inside quotes, a field
    // that is one quote, text after the closing quote, a quote inside an unquoted field, spaces kept, a lone comma.
    const prompts = ["plain text", "a, b", 'say "hi"', "two\nlines", "crlf\r\ninside", '"', "quoted then tail"];
    prompts.push('in"side', " spaced ", ",");
    const cells = ["plain text", '"a, b"', '"say ""hi"""', '"two\nlines"', '"crlf\r\ninside"', '""""'];
    cells.push('"quoted" then tail', 'in"side', " spaced ", '","');
    const rows = prompts.flatMap((prompt, i) => [
      { prompt, model: "m1", score: i / 10, cost: 0.001 * (i + 1) },
      { prompt, model: "m2", score: 1 - i / 10, cost: 0.002 },
    ]);
    // A BOM, a trailing comma on every line (an unnamed last column), LF, CRLF and CR line ends, a blank and a
    // whitespace-only line, quoted models and scores.
    let csv = "\ufeffprompt,model,score,cost,\r\n";
    rows.forEach((r, k) => {
      const model = k % 4 === 1 ? `"${r.model}"` : r.model;
      const score = k % 3 === 0 ? `"${r.score}"` : String(r.score);
      csv += `${cells[Math.floor(k / 2)]},${model},${score},${r.cost},${["\n", "\r\n", "\r"][k % 3]}`;
      if (k === 5) csv += "\r\n";
      if (k === 9) csv += "  \t\r\n";
    });
    const fromCsv = parseReplay(csv, opts);
    const fromJsonl = parseReplay(jsonl(rows), opts);
    expect(fromCsv.promptKeys).toEqual(prompts);
    expect(fromCsv.models).toEqual(["m1", "m2"]);
    expect(fromCsv.rows).toBe(20);
    // Each prompt's first line, counting the newlines inside quotes and the two blank lines.
    expect(fromCsv.promptLines).toEqual([2, 4, 6, 9, 13, 18, 20, 22, 24, 26]);
    // Each row's line (m1's rows are the prompts' first lines): positions in the file, which differ from JSONL's.
    expect(Array.from(fromCsv.sampleLine ?? [])).toEqual(SAMPLE_LINES);
    expect({ ...fromCsv, promptLines: [], sampleLine: [] }).toEqual({ ...fromJsonl, promptLines: [], sampleLine: [] });
  });
});

describe("wide tables name the model of a bad cell", () => {
  it("CSV and JSONL", () => {
    const csv = "prompt,m1,m1|total_cost,m2,m2|total_cost\na,0.5,0.1,,0.2\nb,high,0.1,0.3,-1\n";
    expect(issuesOf(() => parseReplay(csv, opts))).toEqual([
      { line: 2, message: 'model "m2": missing "score"' },
      { line: 3, message: 'model "m1": score "high" is not a finite number' },
      { line: 3, message: 'model "m2": cost "-1" is not a finite number >= 0' },
    ]);
    const rows = jsonl([
      { prompt: "a", m1: 0.5, m2: null },
      { prompt: "b", m1: 0.1, m2: 0.2 },
    ]);
    expect(issuesOf(() => parseReplay(rows, opts))).toEqual([{ line: 1, message: 'model "m2": missing "score"' }]);
  });
});

describe("embeddings", () => {
  it("read decimal notation only, as scores: 0x10, 0b1 and Infinity are refused (0x10 was read as 16)", () => {
    const csv = (v: string) => `embedding,model,score\n"${v}",m1,0.5\n"${v}",m2,0.4\n`;
    expect(Array.from(parseReplay(csv("1 .5;-2e-1"), opts).contexts)).toEqual([1, 0.5, -0.2]);
    for (const [v, at] of [
      ["0x10 1 2", 0],
      ["1 0b1 2", 1],
      ["1 2 Infinity", 2],
      ["1 0o7 2", 1],
    ] as const) {
      const issues = issuesOf(() => parseReplay(csv(v), opts));
      expect(issues[0], v).toEqual({ line: 2, message: `embedding has a non-numeric value at index ${at}` });
    }
  });
});

describe("files that are neither JSONL nor CSV", () => {
  it("a JSON array is named as one (it was read as a CSV header)", () => {
    const rows = [
      { prompt: "a", model: "m1", score: 0.5 },
      { prompt: "a", model: "m2", score: 0.4 },
    ];
    for (const text of [JSON.stringify(rows), JSON.stringify(rows, null, 2)]) {
      expect(issuesOf(() => parseReplay(text, opts))).toEqual([
        { line: 1, message: "the file is a JSON array: replay data is JSONL (one JSON object per line) or CSV" },
      ]);
    }
  });

  it("gzip bytes read as text are named as compressed data", () => {
    const text = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x41, 0x42, 0x0a, 0x43]).toString("utf8");
    expect(issuesOf(() => parseReplay(text, opts))).toEqual([
      { line: 1, message: "the file is gzip-compressed: decompress it first (gunzip)" },
    ]);
  });
});

describe("a row refused for its own problem is reported once", () => {
  it("a short CSV row is its line's problem, not also a prompt with no score for its model", () => {
    // Found: `yo,b` (a field short) was reported for its line and again as "prompt "yo" has no score for "b"".
    const text = "prompt,model,score\nhi,a,1\nhi,b,0\nyo,a,1\nyo,b\n";
    expect(issuesOf(() => parseReplay(text, opts))).toEqual([{ line: 5, message: "has 2 fields, the header has 3" }]);
    // With an id column, and a long row too.
    const ids = "id,prompt,model,score\n1,hi,a,1\n1,hi,b,0\n2,yo,a,1\n2,yo,b,1,9\n";
    expect(issuesOf(() => parseReplay(ids, opts))).toEqual([{ line: 5, message: "has 5 fields, the header has 4" }]);
  });
});

/** The CSV rows' lines in the quoting test, sample by sample (prompt-major, m1 then m2). */
const SAMPLE_LINES = [2, 3, 4, 5, 6, 7, 9, 11, 13, 15, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27];
