/** `routekit replay --protocol cascade` names the file and the line of a row a cascade cannot replay. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("replay --protocol cascade refusals", () => {
  it("name the data file and the row's line, as the other replay errors do", async () => {
    const rows = ["sort a list", "a haiku"].flatMap((prompt) =>
      ["small", "large"].map((model) => ({ prompt, model, score: 0.5, cost: 0.1 })),
    );
    (rows[2] as { score: number }).score = 7;
    const data = join(mkdtempSync(join(tmpdir(), "routekit-cascade-lines-")), "rows.jsonl");
    writeFileSync(data, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const r = await runCli(["replay", "--data", data, "--protocol", "cascade", "--policies", "query-all"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /rows\.jsonl: a cascade replay needs scores in \[0, 1\].*: line 3: prompt 2, model "small": score 7/,
    );
  });
});
