#!/usr/bin/env node
/**
 * Writes the example replay files prompts.jsonl and prompts.csv: 200 prompts x 3 models, deterministic.
 * The shipped files were written before core's Rng seeding changed (commit 796b1d7): this script now writes other
 * prompts and scores of the same design, not the shipped files (whose numbers the READMEs and tests quote).
 *
 *   node examples/make-prompts.mjs        (from apps/playground, after building @routekit/core)
 *
 * Four kinds of prompt (code, math, writing, facts), 50 each, and three models:
 *   - "coder-7b":       strong on code (mean 0.86), weak elsewhere (0.35-0.55), cheap (0.2 per call)
 *   - "math-13b":       strong on math (0.88), weak elsewhere, cheap (0.3 per call)
 *   - "generalist-70b": good everywhere (0.66-0.74), expensive (1.0 per call)
 * So the best single model is the generalist, while the per-prompt oracle routes code to the coder and math to
 * the math model: a router that reads the prompt can beat every fixed choice (positive O2B).
 * Scores are the mean plus N(0, 0.08^2) noise, clipped to [0, 1] and rounded to 3 decimals; costs vary by +-10%.
 * All randomness comes from @routekit/core's Rng with seed "routekit-example-prompts".
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";

const rng = Rng.fromSeed("routekit-example-prompts");
const pick = (xs) => xs[rng.int(xs.length)];

const kinds = {
  code: () =>
    `Write a ${pick(["Python", "TypeScript", "Rust", "Go", "Java"])} function that ${pick([
      "reverses a linked list",
      "parses an ISO 8601 date",
      "merges two sorted arrays",
      "computes a SHA-256 checksum of a file",
      "deduplicates a list while keeping order",
      "implements an LRU cache",
      "validates an email address with a regex",
    ])}${pick(["", " and add unit tests", " without using recursion", ", with type annotations"])}.`,
  math: () => {
    const a = 2 + rng.int(9);
    const b = rng.int(50);
    const c = b + a * (1 + rng.int(20));
    return pick([
      `Solve for x: ${a}x + ${b} = ${c}.`,
      `What is the derivative of ${a}x^3 - ${b}x + ${c}?`,
      `Compute the integral of ${a}x^2 from 0 to ${1 + rng.int(9)}.`,
      `Prove that the sum of the first ${a * 10} odd numbers is a perfect square.`,
      `Find all integer solutions of x^2 - ${a * a}y^2 = 1 with x < ${c}.`,
    ]);
  },
  writing: () =>
    `Write a ${pick(["short poem", "haiku", "limerick", "two-paragraph story", "product description"])} about ${pick([
      "the sea at night",
      "a lighthouse keeper",
      "autumn in the city",
      "a robot learning to paint",
      "the last day of summer",
      "an old bookshop",
    ])}${pick(["", " in a melancholic tone", " for children", " with a twist ending"])}.`,
  facts: () =>
    `${pick(["", "Quick question: ", "For a quiz, ", "In one sentence, "])}${pick([
      `What is the capital of ${pick(["Australia", "Canada", "Kenya", "Peru", "Norway", "Vietnam"])}?`,
      `Who wrote ${pick(["War and Peace", "Don Quixote", "The Tale of Genji", "Things Fall Apart", "Middlemarch"])}?`,
      `When did ${pick(["the Berlin Wall fall", "the first Moon landing happen", "the Roman Empire split", "the printing press appear"])}?`,
      `Explain briefly why ${pick(["the sky is blue", "ice floats on water", "leaves change color in autumn", "the tides happen"])}.`,
    ])}`,
};

const models = {
  "coder-7b": { cost: 0.2, mean: { code: 0.86, math: 0.45, writing: 0.35, facts: 0.55 } },
  "math-13b": { cost: 0.3, mean: { code: 0.5, math: 0.88, writing: 0.4, facts: 0.5 } },
  "generalist-70b": { cost: 1.0, mean: { code: 0.7, math: 0.66, writing: 0.74, facts: 0.72 } },
};

const rows = [];
const seen = new Set();
for (const kind of Object.keys(kinds)) {
  let made = 0;
  for (let attempts = 0; made < 50; attempts++) {
    if (attempts > 10_000) throw new Error(`cannot make 50 distinct ${kind} prompts`);
    const prompt = kinds[kind]();
    if (seen.has(prompt)) continue;
    seen.add(prompt);
    made++;
    for (const [model, m] of Object.entries(models)) {
      const score = Math.min(1, Math.max(0, rng.normal(m.mean[kind], 0.08)));
      const cost = m.cost * rng.uniformIn(0.9, 1.1);
      rows.push({ prompt, model, score: Math.round(score * 1000) / 1000, cost: Math.round(cost * 10000) / 10000 });
    }
  }
}
// Interleave kinds so file order is not sorted by category.
const order = rng.shuffle(Array.from({ length: rows.length / 3 }, (_, i) => i));
const out = order.flatMap((i) => rows.slice(3 * i, 3 * i + 3));

const here = dirname(fileURLToPath(import.meta.url));
writeFileSync(join(here, "prompts.jsonl"), `${out.map((r) => JSON.stringify(r)).join("\n")}\n`);
const q = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
writeFileSync(
  join(here, "prompts.csv"),
  `prompt,model,score,cost\n${out.map((r) => [q(r.prompt), r.model, r.score, r.cost].join(",")).join("\n")}\n`,
);
console.log(`wrote ${out.length} rows (${out.length / 3} prompts x 3 models) to prompts.jsonl and prompts.csv`);
