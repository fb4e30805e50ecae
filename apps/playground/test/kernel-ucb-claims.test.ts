/**
 * Every command quoted in the kernel-ucb README's paper-claims table is one the CLI accepts. A `run` names a
 * registered scenario or group (the scenario and group tests run every one of them end to end); a `compare`
 * is run here for a few rounds and one seed (its own seeds and horizon replaced), with the default registry,
 * and must exit 0. The table's numbers come from the full runs; this keeps each row's command runnable as printed.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { selectScenarios } from "../src/group.js";
import { main } from "../src/main.js";
import { registry } from "../src/registry/index.js";

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

const readme = readFileSync(join(__dirname, "..", "..", "..", "packages", "kernel-ucb", "README.md"), "utf8");
const section = readme.slice(
  readme.indexOf("<!-- paper-claims:start -->"),
  readme.indexOf("<!-- paper-claims:end -->"),
);
const commands = [...new Set([...section.matchAll(/`(routekit (?:run|compare) [^`]+)`/g)].map((m) => m[1] as string))];

/** The command's words with its seeds and horizon replaced by a smoke-test size. */
function smoke(cmd: string): string[] {
  const words = cmd.split(/\s+/).slice(1);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "--seeds" || words[i] === "--horizon") i++;
    else out.push(words[i] as string);
  }
  return [...out, "--seeds", "1", "--horizon", "12", "--workers", "1", "--no-plots", "--json"];
}

describe("kernel-ucb README: the claims table's commands run", () => {
  it("quotes at least one run and one compare command", () => {
    expect(commands.some((c) => c.startsWith("routekit run "))).toBe(true);
    expect(commands.some((c) => c.startsWith("routekit compare "))).toBe(true);
    for (const c of commands) expect(c, c).toMatch(/--seeds 10\b/);
  });
  for (const cmd of commands.filter((c) => c.startsWith("routekit run "))) {
    it(cmd, () => {
      const words = cmd.split(/\s+/);
      expect(selectScenarios(registry, words[2] as string).scenarios.length).toBeGreaterThan(0);
      expect(words.slice(3).join(" ")).toBe("--seeds 10");
    });
  }
  for (const cmd of commands.filter((c) => c.startsWith("routekit compare "))) {
    it(cmd, async () => {
      const stdout = new Sink();
      const stderr = new Sink();
      const argv = [...smoke(cmd), "--out", mkdtempSync(join(tmpdir(), "routekit-claims-"))];
      const code = await main(argv, { stdout, stderr, isTTY: false });
      expect(code, stderr.text).toBe(0);
    }, 120_000);
  }
});
