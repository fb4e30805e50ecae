/**
 * With embeddings, rows are grouped by prompt id, else by prompt text, and only without either by the embedding:
 * keyed on the embedding, two prompts that share one (a cache hit, a truncated input) were merged into one.
 */
import { describe, expect, it } from "vitest";
import { parseReplay } from "../src/replay/index.js";
import { issuesOf, jsonl } from "./replay-helpers.js";

const row = (prompt: string, model: string, score: number, embedding = [0.6, 0.8]) => ({
  prompt,
  model,
  score,
  embedding,
});

describe("replay grouping with embeddings", () => {
  it("two prompts with one embedding stay two prompts", () => {
    const rows = [row("first", "a", 1), row("first", "b", 0), row("second", "a", 0), row("second", "b", 1)];
    const t = parseReplay(jsonl(rows), {});
    expect(t.contextSource).toBe("embedding");
    expect([t.numPrompts, t.promptKeys, t.promptLines]).toEqual([2, ["first", "second"], [1, 3]]);
    expect(Array.from(t.meanScore)).toEqual([1, 0, 0, 1]);
  });

  it("rows without text are still grouped by their embedding", () => {
    const rows = [row("x", "a", 1), row("x", "b", 0)].map(({ prompt: _p, ...r }) => r);
    expect(parseReplay(jsonl(rows), {}).numPrompts).toBe(1);
  });

  it("one prompt text with two embeddings is refused, as a prompt id with two is", () => {
    const rows = [row("first", "a", 1), row("first", "b", 0, [0.8, 0.6])];
    expect(issuesOf(() => parseReplay(jsonl(rows), {}))).toEqual([
      { line: 2, message: "embedding differs from line 1's for the same prompt text" },
    ]);
  });

  it("a prompt whose text is on some rows only is refused at its untexted rows (it became two prompts)", () => {
    const untexted = ({ prompt: _p, ...r }: ReturnType<typeof row>) => r;
    const rows = [row("first", "a", 1), untexted(row("first", "b", 0)), row("other", "a", 0, [1, 0])];
    const got = issuesOf(() => parseReplay(jsonl(rows), {}));
    expect(got).toContainEqual({
      line: 2,
      message:
        'no prompt text, but the embedding of prompt "first" (line 1): give a prompt\'s text on all its rows or on none',
    });
    // Untexted rows whose embedding no texted prompt has are a prompt of their own, as before.
    const separate = [
      row("first", "a", 1),
      row("first", "b", 0),
      untexted(row("", "a", 0, [0, 1])),
      untexted(row("", "b", 1, [0, 1])),
    ];
    expect(parseReplay(jsonl(separate), {}).numPrompts).toBe(2);
  });
});
