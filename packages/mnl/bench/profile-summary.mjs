// Prints the self-time breakdown of a V8 .cpuprofile (node --cpu-prof): node bench/profile-summary.mjs DIR
// --smoke: profiles a short run of bench/early.mjs into a temporary directory and summarises that.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const smoke = process.argv.includes("--smoke");
let dir = process.argv[2];
if (smoke) {
  dir = mkdtempSync(join(tmpdir(), "mnl-profile-"));
  const early = fileURLToPath(new URL("./early.mjs", import.meta.url));
  execFileSync(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, early, "1", "100"]);
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
const file = readdirSync(dir)
  .filter((f) => f.endsWith(".cpuprofile"))
  .sort()
  .pop();
const p = JSON.parse(readFileSync(`${dir}/${file}`, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
let total = 0;
for (let i = 0; i < p.samples.length; i++) {
  const n = byId.get(p.samples[i]);
  const t = p.timeDeltas[i] ?? 0;
  const k = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + t);
  total += t;
}
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, smoke ? 20 : Number(process.argv[3] ?? 20))) {
  console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
}
