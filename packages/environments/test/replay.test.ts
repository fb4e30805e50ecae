import { Rng, RouteKitError } from "@routekit/core";
import { describe, expect, it } from "vitest";
import { findDuplicateJsonKey, HashingFeaturizer, parseReplay, ReplayEnvironment } from "../src/replay/index.js";
import { issuesOf, jsonl } from "./replay-helpers.js";

describe("HashingFeaturizer", () => {
  it("is deterministic, unit-norm and separates different texts", () => {
    const f = new HashingFeaturizer({ dim: 64 });
    const a = f.transform("Write a haiku about the sea");
    const b = new HashingFeaturizer({ dim: 64 }).transform("Write a haiku about the sea");
    expect(Array.from(a)).toEqual(Array.from(b));
    let n = 0;
    for (const x of a) n += x * x;
    expect(n).toBeCloseTo(1, 12);
    const c = f.transform("Prove that sqrt(2) is irrational");
    let dot = 0;
    for (let i = 0; i < 64; i++) dot += (a[i] as number) * (c[i] as number);
    expect(Math.abs(dot)).toBeLessThan(0.6);
  });

  it("pins exact values so the hashing never drifts silently", () => {
    const v = new HashingFeaturizer({ dim: 16 }).transform("Hello world");
    const nz = Array.from(v).filter((x) => x !== 0).length;
    expect(nz).toBeGreaterThan(3);
    // Case and Unicode-compatibility forms map to the same features.
    const w = new HashingFeaturizer({ dim: 16 }).transform("ＨＥＬＬＯ   World!");
    expect(Array.from(w)).toEqual(Array.from(v));
    const sum = Array.from(v).reduce((s, x, i) => s + x * (i + 1), 0);
    expect(sum).toBe(6.425396041156863); // regression pin: changing the hash changes every replay result
    // One repeated word with words only: a single signed bucket of norm 1.
    const one = new HashingFeaturizer({ dim: 32, wordNgrams: 1, charNgrams: [0, 0] }).transform("cat cat");
    expect(
      Array.from(one)
        .filter((x) => x !== 0)
        .map(Math.abs),
    ).toEqual([1]);
    // Bigrams make word order matter; unigrams alone do not.
    const uni = new HashingFeaturizer({ dim: 64, wordNgrams: 1, charNgrams: [0, 0] });
    expect(Array.from(uni.transform("dog bites man"))).toEqual(Array.from(uni.transform("man bites dog")));
    const bi = new HashingFeaturizer({ dim: 64, wordNgrams: 2, charNgrams: [0, 0] });
    expect(Array.from(bi.transform("dog bites man"))).not.toEqual(Array.from(bi.transform("man bites dog")));
  });

  it("maps text without letters or digits to zeros and validates options", () => {
    expect(Array.from(new HashingFeaturizer({ dim: 8 }).transform("?!"))).toEqual(new Array(8).fill(0));
    expect(() => new HashingFeaturizer({ dim: 0 })).toThrow(RouteKitError);
    expect(() => new HashingFeaturizer({ wordNgrams: 0, charNgrams: [0, 0] })).toThrow(/neither/);
    expect(() => new HashingFeaturizer({ dim: 8 }).transform("x", new Float64Array(3))).toThrow(/length 3/);
  });
});

describe("parseReplay", () => {
  const rows = [
    { prompt: "alpha task", model: "a", score: 1, cost: 0.5 },
    { prompt: "alpha task", model: "b", score: 0, cost: 0.1 },
    { prompt: "beta task", model: "a", score: 0.2, cost: 0.5 },
    { prompt: "beta task", model: "b", score: 0.8, cost: 0.1 },
    { prompt: "beta task", model: "b", score: 0.6, cost: 0.3 },
  ];

  it("builds a full-information table from JSONL with means over repeated rows", () => {
    const t = parseReplay(jsonl(rows), { featurizer: { dim: 32 } });
    expect(t.models).toEqual(["a", "b"]);
    expect(t.numPrompts).toBe(2);
    expect(t.dim).toBe(32);
    expect(t.contextSource).toBe("text");
    expect(Array.from(t.meanScore)).toEqual([1, 0, 0.2, 0.7]);
    expect(t.meanCost[3]).toBeCloseTo(0.2, 12);
    expect(t.hasCost).toBe(true);
    expect(t.rows).toBe(5);
    expect(t.promptLines).toEqual([1, 3]);
  });

  it("reads CSV with quoted fields, embeddings and a models filter", () => {
    const csv = [
      "id,Embedding,model,score",
      'p1,"[1, 0]",x,0.5',
      "p1,1 0,y,0.25",
      'p1,"[1,0]",z,9',
      'p2,"0;1",x,0',
      'p2,"[0,1]",y,1',
    ].join("\n");
    const t = parseReplay(csv, { models: ["y", "x"] });
    expect(t.contextSource).toBe("embedding");
    expect(t.models).toEqual(["y", "x"]);
    expect(Array.from(t.contexts)).toEqual([1, 0, 0, 1]);
    expect(Array.from(t.meanScore)).toEqual([0.25, 0.5, 1, 0]);
    expect(t.hasCost).toBe(false);
  });

  it("reads wide RouterBench-style tables (CSV and JSONL) as the same table as the long form", () => {
    const wide = [
      "sample_id,prompt,eval_name,gpt-4,gpt-4|total_cost,llama,llama|total_cost,llama|model_response,oracle_model_to_route_to",
      "s1,alpha task,mmlu,1,0.5,0,0.1,blah,gpt-4",
      "s2,beta task,mmlu,0.2,0.5,0.7,0.2,blah,llama",
    ].join("\n");
    const t = parseReplay(wide, { featurizer: { dim: 32 } });
    expect(t.models).toEqual(["gpt-4", "llama"]);
    expect(Array.from(t.meanScore)).toEqual([1, 0, 0.2, 0.7]);
    expect(Array.from(t.meanCost)).toEqual([0.5, 0.1, 0.5, 0.2]);
    const long = parseReplay(
      jsonl([
        { prompt: "alpha task", model: "gpt-4", score: 1, cost: 0.5 },
        { prompt: "alpha task", model: "llama", score: 0, cost: 0.1 },
        { prompt: "beta task", model: "gpt-4", score: 0.2, cost: 0.5 },
        { prompt: "beta task", model: "llama", score: 0.7, cost: 0.2 },
      ]),
      { featurizer: { dim: 32 } },
    );
    expect(Array.from(t.contexts)).toEqual(Array.from(long.contexts));
    const wideJsonl = jsonl([
      { prompt: "alpha task", "gpt-4": 1, llama: 0 },
      { prompt: "beta task", "gpt-4": 0.2, llama: "x" },
    ]);
    expect(issuesOf(() => parseReplay(wideJsonl))).toEqual([
      { line: 2, message: 'model "llama": score "x" is not a finite number' },
    ]);
    expect(parseReplay(wideJsonl.replace('"x"', "0.7"), { models: ["llama"] }).models).toEqual(["llama"]);
    expect(() => parseReplay(wide, { format: "xml" as never })).toThrow(/format must be/);
  });

  it("reports every bad row by line number and stops", () => {
    const text = [
      JSON.stringify({ prompt: "p", model: "a", score: 1 }),
      "",
      JSON.stringify({ prompt: "p", model: "b", score: "high" }),
      "{not json",
      JSON.stringify({ prompt: "q", model: "a", score: 0.5 }),
      JSON.stringify({ prompt: "q", score: 0.5 }),
      JSON.stringify({ prompt: "r", model: "a", score: 0.5, cost: -1 }),
    ].join("\n");
    const issues = issuesOf(() => parseReplay(text));
    expect(issues.map((i) => i.line)).toEqual([3, 4, 6, 7]);
    expect(issues[0]?.message).toMatch(/score "high" is not a finite number/);
    expect(issues[1]?.message).toMatch(/not valid JSON/);
    expect(issues[2]?.message).toMatch(/missing "model"/);
    expect(issues[3]?.message).toMatch(/cost -1/);
    expect(() => parseReplay(text)).toThrow(/line 3: score "high"/);
  });

  it("refuses a JSONL row naming a key twice (JSON.parse kept the last score), naming the line", () => {
    const text = [
      '{"prompt": "p", "model": "a", "score": 0.9}',
      '{"prompt": "p", "model": "b", "score": 0.1, "score": 0.95}',
      '{"prompt": "q:r", "model": "a", "score": 0.5, "meta": {"x": 1, "y": {"x": 2}}}',
      '{"prompt": "q:r", "model": "b", "score": 0.5, "meta": {"x": 1, "x": 2}}',
    ].join("\r\n");
    const issues = issuesOf(() => parseReplay(text));
    expect(issues.map((i) => i.line)).toEqual([2, 4]);
    expect(issues[0]?.message).toMatch(/^key "score" given twice in the top-level object/);
    expect(issues[1]?.message).toMatch(/^key "x" given twice in meta/);
  });

  it("lists bad rows and prompts missing a model in one message, as the playground README's example shows", () => {
    const rust = "Write a Rust function that parses a date.";
    const text = jsonl([
      { prompt: rust, model: "coder-7b", score: 0.91, cost: 0.2 },
      { prompt: rust, model: "generalist-70b", score: 0.72, cost: 1.0 },
      { prompt: rust, model: "math-13b", score: "high", cost: 0.3 }, // refused: not also "no score for math-13b"
      { prompt: "Solve x^2 = 4", model: "coder-7b", score: 0.5, cost: 0.2 },
      { prompt: "Solve x^2 = 4", model: "generalist-70b", score: 0.9, cost: 1.0 },
      { prompt: "Solve x^2 = 4", model: "math-13b", score: 0.95, cost: 0.3 },
      { prompt: "Who wrote Middlemarch?", model: "generalist-70b", score: 0.9, cost: 1.0 },
      { prompt: "Who wrote Middlemarch?", model: "math-13b", score: 0.1, cost: 0.3 },
    ]);
    expect(() => parseReplay(text)).toThrow(
      'replay data has 2 problems: line 3: score "high" is not a finite number; line 7: prompt "Who wrote Middlemarch?" has no score for "coder-7b" (every prompt needs all 3 models)',
    );
  });

  it("reports prompts missing a model at the prompt's first line", () => {
    const text = jsonl([
      { prompt: "p", model: "a", score: 1 },
      { prompt: "p", model: "b", score: 1 },
      { prompt: "q", model: "a", score: 1 },
      { prompt: "r", model: "b", score: 1 },
    ]);
    const issues = issuesOf(() => parseReplay(text));
    expect(issues).toEqual([
      { line: 3, message: 'prompt "q" has no score for "b" (every prompt needs all 2 models)' },
      { line: 4, message: 'prompt "r" has no score for "a" (every prompt needs all 2 models)' },
    ]);
  });

  it("reports bad and wrong-length vectors, CSV field counts and a missing header column", () => {
    const text = jsonl([
      { embedding: [0.1, 0.2], model: "a", score: 1 },
      { embedding: [0.1, 0.2, 0.3], model: "b", score: 1 },
      { embedding: [0.1, "x"], model: "b", score: 1 },
      { embedding: [], model: "b", score: 1 },
    ]);
    const issues = issuesOf(() => parseReplay(text));
    expect(issues.map((i) => [i.line, i.message])).toEqual([
      [2, "embedding has 3 values, expected 2 (the length on line 1)"],
      [3, "embedding has a non-numeric value at index 1"],
      [4, "embedding is empty"],
    ]);
    const csv = 'prompt,model,score\n"multi\nline",a,1\nq,a\n';
    expect(issuesOf(() => parseReplay(csv))).toEqual([{ line: 4, message: "has 2 fields, the header has 3" }]);
    expect(issuesOf(() => parseReplay("prompt,model\nx,a\n"))[0]?.message).toMatch(/no "score" column/);
  });

  it("requires cost on every row once any row has one, and rejects unknown selected models", () => {
    const text = jsonl([
      { prompt: "p", model: "a", score: 1, cost: 1 },
      { prompt: "p", model: "b", score: 1 },
    ]);
    expect(issuesOf(() => parseReplay(text))).toEqual([
      { line: 2, message: 'missing "cost" (other rows have one: give it on every row)' },
    ]);
    expect(() => parseReplay(jsonl(rows), { models: ["a", "zzz"] })).toThrow(/model "zzz" has no rows/);
    expect(() => parseReplay("")).toThrow(/no data rows/);
  });
});

describe("ReplayEnvironment", () => {
  const table = parseReplay(
    jsonl([
      { prompt: "one", model: "a", score: 1, cost: 2 },
      { prompt: "one", model: "b", score: 0, cost: 1 },
      { prompt: "two", model: "a", score: 0, cost: 2 },
      { prompt: "two", model: "b", score: 0.9, cost: 1 },
      { prompt: "two", model: "b", score: 0.5, cost: 1 },
      { prompt: "three", model: "a", score: 0.7, cost: 2 },
      { prompt: "three", model: "b", score: 0.7, cost: 1 },
    ]),
    { featurizer: { dim: 16 } },
  );

  it("knows the per-prompt oracle, the best fixed model and optimal picks", () => {
    const env = new ReplayEnvironment(table, { order: "sequential" });
    env.reset(Rng.fromSeed(1));
    expect(env.initialArms).toEqual(["a", "b"]);
    expect(env.bestFixedArm()).toBe("a"); // a: (1 + 0 + 0.7)/3 = 0.567 > b: (0 + 0.7 + 0.7)/3
    env.next(0);
    expect(env.oracleReward()).toBe(1);
    expect(env.isOptimal("a")).toBe(true);
    expect(env.isOptimal("b")).toBe(false);
    env.next(1);
    expect(env.expectedReward("b")).toBeCloseTo(0.7, 12);
    expect(env.bestFixedReward()).toBe(0);
    expect(env.expectedCost("b")).toBe(1);
    const pulls = new Set<number>();
    for (let i = 0; i < 50; i++) pulls.add(env.pull("b").reward);
    expect(env.pull("a")).toBe(env.pull("b")); // one reused feedback object
    expect([...pulls].sort()).toEqual([0.5, 0.9]);
    env.next(2);
    expect(env.isOptimal("a") && env.isOptimal("b")).toBe(true);
    expect(env.pull("a")).toEqual({ reward: 0.7, cost: 2 });
    expect(() => env.expectedReward("c")).toThrow(/unknown arm "c"/);
  });

  it("shuffles per seed, visits every prompt once per pass and cycles past the table", () => {
    const order = (seed: number) => {
      const env = new ReplayEnvironment(table);
      env.reset(Rng.fromSeed(seed));
      const seen: number[] = [];
      for (let t = 0; t < 9; t++) {
        const r = env.next(t);
        expect(r.context).toBe(env.next(t).context);
        seen.push(env.currentPrompt);
      }
      return seen;
    };
    const a = order(3);
    expect(order(3)).toEqual(a);
    for (let pass = 0; pass < 3; pass++) expect([...a.slice(pass * 3, pass * 3 + 3)].sort()).toEqual([0, 1, 2]);
    const distinct = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((s) => order(s).join(",")));
    expect(distinct.size).toBeGreaterThan(2);
  });

  it("marks every round after the first pass as a repeat, in both orders", () => {
    for (const order of ["shuffle", "sequential"] as const) {
      const env = new ReplayEnvironment(table, { order });
      env.reset(Rng.fromSeed(2));
      const flags: boolean[] = [];
      for (let t = 0; t < 8; t++) {
        env.next(t);
        flags.push(env.seenBefore());
      }
      expect(flags).toEqual([false, false, false, true, true, true, true, true]);
      expect(env.passes).toBe(3);
      env.reset(Rng.fromSeed(2));
      env.next(0);
      expect(env.seenBefore()).toBe(false);
      expect(env.passes).toBe(1);
    }
  });

  it("refuses queries before reset/next", () => {
    const env = new ReplayEnvironment(table);
    expect(() => env.next(0)).toThrow(/reset/);
    env.reset(Rng.fromSeed(0));
    expect(() => env.oracleReward()).toThrow(/next/);
  });
});

describe("replay numbers and model filters (hostile input)", () => {
  const csv = (score: string) => `prompt,model,score\nfirst,a,0.5\nfirst,b,${score}\n`;
  it("reads decimal notation only: 0x1F, 0b1, Infinity and '' are refused, 1e-3 and .5 are read", () => {
    for (const bad of ["0x1F", "0b1", "0o7", "Infinity", "1_000"]) {
      expect(issuesOf(() => parseReplay(csv(bad), { format: "csv" }))[0]?.message).toBe(
        `score "${bad}" is not a finite number`,
      );
    }
    for (const good of ["1e-3", ".5", "-2", "+0.25", "3."]) {
      expect(parseReplay(csv(good), { format: "csv" }).meanScore[1]).toBe(Number(good));
    }
  });
  it("names an overflowing score instead of printing null", () => {
    expect(issuesOf(() => parseReplay(csv("1e999"), { format: "csv" }))[0]?.message).toMatch(
      /score "1e999" is beyond the double range .*overflows to Infinity/,
    );
    const text = '{"prompt":"p","model":"a","score":0.5}\n{"prompt":"p","model":"b","score":1e999}\n';
    const msg = issuesOf(() => parseReplay(text))[0]?.message ?? "";
    expect(msg).toMatch(/^score is beyond the double range/);
    expect(msg).not.toMatch(/null/);
  });
  it("a requested model that is not in the file is an error listing the file's models", () => {
    const issues = issuesOf(() => parseReplay(csv("0.1"), { format: "csv", models: ["nonexist"] }));
    expect(issues.map((i) => i.message)).toContain('model "nonexist" has no rows (models in the file: a, b)');
  });
});

describe("findDuplicateJsonKey", () => {
  const cases: [string, { key: string; path: string } | undefined][] = [
    ['{"a":1,"b":2}', undefined],
    ['{"a":1,"a":2}', { key: "a", path: "" }],
    ['{"a":1,"b":{"a":2}}', undefined],
    ['{"a":"x:y","b":"\\":"}', undefined], // colons and escaped quotes inside strings
    ['{"a:b":1,"a:b":2}', { key: "a:b", path: "" }],
    ['{"a":1,"\\u0061":2}', { key: "a", path: "" }], // the same key, escaped
    ['{"\\u003a":1,":":2}', { key: ":", path: "" }], // a colon written as an escape
    ['{"\\u003a":1,"b":2}', undefined],
    ['{"d":{"s":[{"p":1},{"p":2,"q":3,"p":4}]}}', { key: "p", path: "d.s[1]" }],
    ['[{"a":1},{"a":1}]', undefined],
    ['{"__proto__":1,"__proto__":2}', { key: "__proto__", path: "" }],
    ['{"a\\\\":1,"a\\\\":2}', { key: "a\\", path: "" }], // a key ending in an escaped backslash
    ["{}", undefined],
    ['"a:b"', undefined],
    ["3", undefined],
  ];
  it("finds the first key given twice in one object, with or without the parsed value", () => {
    for (const [text, expected] of cases) {
      expect(findDuplicateJsonKey(text), text).toEqual(expected);
      expect(findDuplicateJsonKey(text, JSON.parse(text)), text).toEqual(expected);
    }
  });

  it("agrees with a reference on random objects with and without duplicates", () => {
    const rng = Rng.fromSeed("dup-keys");
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.uniform() * xs.length)] as T;
    const keys = ["a", "b", ":", "a:b", '"', "\\", "\u00e9"];
    const value = (depth: number): string => {
      const u = rng.uniform();
      if (depth > 2 || u < 0.4) return pick(["1", '"x:y"', '":"', "null", '"\\""']);
      if (u < 0.6)
        return `[${Array.from({ length: Math.floor(rng.uniform() * 3) }, () => value(depth + 1)).join(",")}]`;
      const n = Math.floor(rng.uniform() * 4);
      const ks = Array.from({ length: n }, () => pick(keys));
      return `{${ks.map((k) => `${JSON.stringify(k)}:${value(depth + 1)}`).join(",")}}`;
    };
    // Reference: the text has more key/value pairs (colons outside strings) than the parsed value has keys.
    const hasDuplicate = (text: string): boolean => {
      let pairs = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === "\\") i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === ":") pairs++;
      }
      let keysParsed = 0;
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) v.forEach(walk);
        else if (v !== null && typeof v === "object") {
          for (const k of Object.keys(v)) {
            keysParsed++;
            walk((v as Record<string, unknown>)[k]);
          }
        }
      };
      walk(JSON.parse(text));
      return pairs > keysParsed;
    };
    let withDuplicates = 0;
    for (let i = 0; i < 400; i++) {
      const text = value(0);
      const expected = hasDuplicate(text);
      if (expected) withDuplicates++;
      expect(findDuplicateJsonKey(text) !== undefined, text).toBe(expected);
      expect(findDuplicateJsonKey(text, JSON.parse(text)) !== undefined, text).toBe(expected);
    }
    expect(withDuplicates).toBeGreaterThan(20);
  });
});
