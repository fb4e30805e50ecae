// Shared by the scripts that reproduce the README's tables (presets-table.mjs, results-table.mjs): the runs of
// test/statistical.test.ts on the paper's environment (N = 100, d = 5, v0 = 1) and the checks of a figure against
// the README. A module, not a script: it runs nothing by itself.
import { runExperiment } from "@routekit/core";
import { ContextualMnlEnvironment } from "@routekit/environments";
import { optimalAssortment } from "../dist/index.js";

/** Final pseudo-regret at T of `create` on the paper's environment (capacity K), one value per seed 0..seeds-1. */
export function finalRegrets({ label, create, K, rewards, seeds, T }) {
  const { runs } = runExperiment({
    protocol: "assortment",
    environment: () =>
      new ContextualMnlEnvironment({
        numItems: 100,
        contextDim: 5,
        maxSize: K,
        v0: 1,
        rewards,
        oracle: optimalAssortment,
      }),
    policies: [{ label, create }],
    seeds: Array.from({ length: seeds }, (_, i) => i),
    horizon: T,
    points: T / 100,
  });
  return runs.map((r) => r.series.regret[r.series.t.indexOf(T)]);
}

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const sd = (xs) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1));

/** Cells 2-4 of the first line of `text` that starts with `start` (a README table row). */
export function tableRow(text, start) {
  return text
    .split("\n")
    .find((l) => l.startsWith(start))
    .split("|")
    .slice(2, 5)
    .map((c) => c.trim());
}

/** check(what, measured, quoted) prints ok or FAIL and counts the failures (`failures()`). */
export function checker() {
  let failed = 0;
  const check = (what, got, quoted) => {
    const ok = JSON.stringify(got) === JSON.stringify(quoted);
    if (!ok) failed++;
    console.log(
      `${ok ? "ok  " : "FAIL"} ${what}: measured ${got.join(" | ")}${ok ? "" : `; README ${quoted.join(" | ")}`}`,
    );
  };
  return { check, failures: () => failed };
}
