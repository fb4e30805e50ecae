// Reproduces the RouteKit columns of the README's results table ("Measured with this implementation": final
// pseudo-regret at T = 3000, mean ± sd; OFU-MNL+ with the authors' presets, UCB-MNL and TS-MNL with the reference
// constants; seeds 0-2 for the uniform rows, 0-1 for the non-uniform ones) and the `paper` preset's collapse under
// non-uniform revenues quoted under it. The runs are those of test/statistical.test.ts (same environments, same
// policy labels, so TS-MNL draws the same random stream). Seeded: the result does not depend on the machine;
// about a minute of CPU (UCB-MNL and TS-MNL refit on all past rounds). Exits 1 when a README figure differs.
//   node bench/results-table.mjs     (after `npx tsup` here and in core / environments)
// --smoke: T = 200 on seeds 0-1; the figures then differ from the README's, and that is not a failure.
import { readFileSync } from "node:fs";
import { OfuMnlPlus, TsMnl, UcbMnl } from "../dist/index.js";
import { checker, finalRegrets, mean, sd, tableRow } from "./readme-runs.mjs";

const smoke = process.argv.includes("--smoke");
const T = smoke ? 200 : 3000;
const makers = {
  "ofu-authors-uniform": (K) => new OfuMnlPlus({ contextDim: 5, maxSize: K, preset: "authors-uniform" }),
  "ofu-authors-nonuniform": (K) => new OfuMnlPlus({ contextDim: 5, maxSize: K, preset: "authors-nonuniform" }),
  "ofu-paper": (K) => new OfuMnlPlus({ contextDim: 5, maxSize: K, preset: "paper" }),
  "ucb-uniform": (K) => new UcbMnl({ contextDim: 5, maxSize: K }),
  "ts-uniform": (K, rng) => new TsMnl({ contextDim: 5, maxSize: K, rng }),
  "ucb-nonuniform": (K) => new UcbMnl({ contextDim: 5, maxSize: K, preset: "authors-nonuniform" }),
  "ts-nonuniform": (K, rng) => new TsMnl({ contextDim: 5, maxSize: K, rng, preset: "authors-nonuniform" }),
};
const finals = (label, K, rewards, n) =>
  finalRegrets({ label, create: ({ rng }) => makers[label](K, rng), K, rewards, seeds: smoke ? 2 : n, T });
const cell = (xs) => `${mean(xs).toFixed(1)} ± ${sd(xs).toFixed(1)}`;

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const row = (name) => tableRow(readme, `| ${name} |`);
const { check, failures } = checker();
for (const K of [5, 15]) {
  const got = ["ofu-authors-uniform", "ucb-uniform", "ts-uniform"].map((l) => cell(finals(l, K, "uniform", 3)));
  check(`uniform, v0 = 1, K = ${K} (seeds 0-2)`, got, row(`uniform, v0 = 1, K = ${K}`));
}
const paper = [];
for (const K of [5, 15]) {
  const got = ["ofu-authors-nonuniform", "ucb-nonuniform", "ts-nonuniform"].map((l) =>
    cell(finals(l, K, "nonuniform", 2)),
  );
  check(`non-uniform, K = ${K} (seeds 0-1)`, got, row(`non-uniform, K = ${K}`));
  paper.push(
    Math.round(mean(finals("ofu-paper", K, "nonuniform", 2)))
      .toLocaleString("en")
      .replace(",", " "),
  );
}
const quoted = /The `paper` preset under non-uniform revenues gives ([\d ]+) \(K = 5\) and ([\d ]+) \(K = 15\)/.exec(
  readme,
);
check("paper preset, non-uniform, K = 5 | 15 (seeds 0-1)", paper, quoted ? quoted.slice(1, 3) : []);
process.exitCode = failures() && !smoke ? 1 : 0;
