/**
 * A cascade replay's refusals (scores outside [0, 1], costs not > 0, contexts too large) name the file line of the
 * row, as the parse errors do, besides its prompt and model: the prompt's number alone did not say where it is.
 */
import { isRouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { CascadeReplayEnvironment, parseReplay } from "../src/replay/index.js";
import { jsonl } from "./replay-helpers.js";

const models = ["small", "math"];
const rows = ["sort a list", "prove sqrt 2 is irrational", "a haiku"].flatMap((prompt) =>
  models.map((model) => ({ prompt, model, score: 0.5, cost: 0.1 })),
);

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(isRouteKitError(e, "INVALID_ARGUMENT")).toBe(true);
    return (e as Error).message;
  }
  throw new Error("expected a throw");
}

describe("cascade replay refusals name the row's line", () => {
  it("a score outside [0, 1] and a free model: each with its line", () => {
    // Data rows 4 (prompt 2, "math") and 5 (prompt 3, "small") are on lines 5 and 6: a blank line comes first.
    const bad = rows.map((r, i) => (i === 3 ? { ...r, score: 7 } : i === 4 ? { ...r, cost: 0 } : r));
    const m = message(() => new CascadeReplayEnvironment(parseReplay(`\n${jsonl(bad)}`, { featurizer: { dim: 8 } })));
    expect(m).toMatch(/line 5: prompt 2, model "math": score 7 is outside \[0, 1\]/);
    expect(m).toMatch(/line 6: prompt 3, model "small": cost 0 is not > 0/);
  });

  it("several rows of one cell: the offending one's line", () => {
    const bad = [...rows, { ...rows[0], score: 1.5 }];
    const m = message(() => new CascadeReplayEnvironment(parseReplay(jsonl(bad), { featurizer: { dim: 8 } })));
    expect(m).toMatch(/line 7: prompt 1, model "small": score 1.5 is outside/);
  });

  it("a context too large: the line of its prompt's first row", () => {
    const big = rows.map(({ prompt: _p, ...r }, i) => ({
      ...r,
      id: `p${i >> 1}`,
      embedding: i >= 2 ? [1e51, 0] : [1, 0],
    }));
    const m = message(() => new CascadeReplayEnvironment(parseReplay(jsonl(big), {})));
    expect(m).toMatch(/line 3: prompt 2: the context has squared norm 1e\+102/);
  });

  it("more than five problems: five named, the rest counted (it stopped at five without a word)", () => {
    const bad = rows.map((r) => ({ ...r, score: 2 }));
    const m = message(() => new CascadeReplayEnvironment(parseReplay(jsonl(bad), { featurizer: { dim: 8 } })));
    expect(m.match(/is outside \[0, 1\]/g)).toHaveLength(5);
    expect(m).toMatch(/line 5: prompt 3, model "small": score 2 is outside \[0, 1\]; and 1 more$/);
  });
});
