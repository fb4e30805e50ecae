// Reproduces the README's "Measured effect" table of the OFU-MNL+ presets (N = 100, d = 5, v0 = 1, uniform
// revenues, T = 3000, final pseudo-regret, mean ± sd over seeds 0-9) on the runs test/statistical.test.ts makes,
// and checks the sentences under it: the rerun match ("to within P %") and the practical preset's cut against
// `authors-uniform` and `paper`. Seeded, so the result does not depend on the machine; about 15 s of CPU.
// Exits 1 when a figure of the README differs from what it measures.
//   node bench/presets-table.mjs     (after `npx tsup` here and in core / environments)
// --smoke: T = 200 on seeds 0-1; the figures then differ from the README's, and that is not a failure.
import { readFileSync } from "node:fs";
import { OfuMnlPlus } from "../dist/index.js";
import { checker, finalRegrets, mean, sd, tableRow } from "./readme-runs.mjs";

const smoke = process.argv.includes("--smoke");
const T = smoke ? 200 : 3000;
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const table = readme.slice(readme.indexOf("| preset | K = 5 | K = 10 | K = 15 |"));
const row = (name) => tableRow(table, name);
const finals = (preset, K) =>
  finalRegrets({
    label: `ofu-${preset}`,
    create: () => new OfuMnlPlus({ contextDim: 5, maxSize: K, v0: 1, preset }),
    K,
    rewards: "uniform",
    seeds: smoke ? 2 : 10,
    T,
  });
const { check, failures } = checker();
let failed = 0;

const measured = {};
for (const preset of ["paper", "authors-uniform", "practical"]) {
  const cells = [5, 10, 15].map((K) => finals(preset, K));
  check(
    `${preset} (K = 5 | 10 | 15)`,
    cells.map((xs) => `${mean(xs).toFixed(1)} ± ${sd(xs).toFixed(1)}`),
    row(`| \`${preset}\``),
  );
  measured[preset] = cells.map(mean);
}
const rerun = (name) => row(`| independent Python rerun, ${name}`).map((c) => Number(c.split(" ")[0]));
const gaps = [
  ...measured.paper.map((m, i) => Math.abs(m / rerun("paper mode")[i] - 1)),
  ...measured["authors-uniform"].map((m, i) => Math.abs(m / rerun("authors' code mode")[i] - 1)),
];
const within = Number(/rerun of the same setup to within ([\d.]+) %/.exec(readme)?.[1]);
const gap = 100 * Math.max(...gaps);
if (!(gap <= within)) failed++;
console.log(
  `${gap <= within ? "ok  " : "FAIL"} largest gap to the Python rerun: ${gap.toFixed(2)} % (README: within ${within} %)`,
);
const cut =
  /`practical` cuts regret ([\d.]+)-([\d.]+)× against `authors-uniform` \(([\d.]+)-([\d.]+)× against `paper`\)/.exec(
    readme,
  );
const range = (ref) => {
  const r = ref.map((x, i) => x / measured.practical[i]);
  return [Math.min(...r).toFixed(1), Math.max(...r).toFixed(1)];
};
check(
  "practical's cut against authors-uniform, against paper",
  [...range(measured["authors-uniform"]), ...range(measured.paper)],
  cut ? cut.slice(1, 5) : [],
);
process.exitCode = (failed || failures()) && !smoke ? 1 : 0;
