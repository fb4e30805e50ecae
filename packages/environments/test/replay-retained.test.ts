/**
 * After parsing a CSV, nothing keeps the file's text alive. The CSV reader takes fields as slices of the text, and
 * V8 keeps the input of the last regular-expression match (RegExp.input): the featurizer's last match was in a
 * prompt sliced from the file, which held the whole text for the run (200k rows: 27 MB of heap after a GC).
 */
import { describe, expect, it } from "vitest";
import { parseReplay } from "../src/replay/index.js";

describe("parseReplay releases the file's text", () => {
  it("the last regular-expression input is no slice of a CSV file (text and embedding contexts)", () => {
    const prompts = ["sort a list of numbers in Rust", "a haiku about the rain on the roof"];
    const csv = `prompt,model,score,embedding\n${prompts
      .flatMap((p) => ["a", "b"].map((m, i) => `${p},${m},${i / 2},0.6 0.8`))
      .join("\n")}\n`;
    for (const context of ["text", "embedding"] as const) {
      const t = parseReplay(csv, { context, featurizer: { dim: 8 } });
      expect(t.numPrompts).toBe(2);
      const input = (RegExp as unknown as { input: string }).input;
      expect(input !== "" && csv.includes(input), `RegExp.input = ${JSON.stringify(input)}`).toBe(false);
    }
  });
});
