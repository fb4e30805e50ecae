#!/usr/bin/env node
/**
 * Writes the example decision-event log events.jsonl: 400 requests routed live by a randomized router, one event per
 * line as a gateway logs them, `{ ...router.decisionRecord(decision), feedback }`. Deterministic.
 *
 *   node examples/make-events.mjs        (from apps/playground, after building the packages)
 *
 * Each request is a 4-number prompt embedding (rounded to 3 decimals): one of four kinds (code, math, writing,
 * facts, equally likely), the kind's unit direction plus N(0, 0.3^2) noise per coordinate. Three models, with the
 * quality means of examples/make-prompts.mjs:
 *   - "coder-7b":       code 0.86, math 0.40, writing 0.35, facts 0.55
 *   - "math-13b":       code 0.45, math 0.88, writing 0.40, facts 0.50
 *   - "generalist-70b": code 0.70, math 0.68, writing 0.74, facts 0.72
 * The reward is the mean plus N(0, 0.08^2), clipped to [0, 1] and rounded to 3 decimals.
 * The live router is log-linear softmax policy gradient (`LogLinearPg` from @routekit/hpg, normalizeContext, its
 * theory step size for 400 rounds): it samples each model with an explicit probability, logged as
 * decision.propensity, so `routekit evaluate` can score other policies on this traffic.
 * All randomness comes from @routekit/core's Rng with seed "routekit-example-events" (the router: seed 1).
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Rng } from "@routekit/core";
import { LogLinearPg } from "@routekit/hpg";

const MODELS = ["coder-7b", "math-13b", "generalist-70b"];
const MEANS = [
  [0.86, 0.4, 0.35, 0.55],
  [0.45, 0.88, 0.4, 0.5],
  [0.7, 0.68, 0.74, 0.72],
];
const N = 400;
const rng = Rng.fromSeed("routekit-example-events");
const round = (x) => Math.round(x * 1000) / 1000;
const router = new LogLinearPg({ arms: MODELS, contextDim: 4, horizon: N, normalizeContext: true, seed: 1 });
const lines = [];
for (let t = 0; t < N; t++) {
  const kind = rng.int(4);
  const x = Array.from({ length: 4 }, (_, i) => round((i === kind ? 1 : 0) + rng.normal(0, 0.3)));
  const d = router.select(Float64Array.from(x));
  const m = MODELS.indexOf(d.arm);
  const reward = round(Math.min(1, Math.max(0, MEANS[m][kind] + rng.normal(0, 0.08))));
  lines.push(JSON.stringify({ ...router.decisionRecord(d), feedback: { reward } }));
  router.update(d, { reward });
}
const out = join(dirname(fileURLToPath(import.meta.url)), "events.jsonl");
writeFileSync(out, `${lines.join("\n")}\n`);
console.log(`wrote ${out} (${N} events)`);
