import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("examples/shared-learning.mjs (the README's shared-against-isolated run)", () => {
  it("shared replicas have less regret than isolated ones, each and in total, and end with the same learned state", () => {
    const script = fileURLToPath(new URL("../examples/shared-learning.mjs", import.meta.url));
    const out = execFileSync(process.execPath, [script, "--rounds", "4000"], { encoding: "utf8", timeout: 120_000 });
    const total = out.split("\n").find((l) => l.startsWith("total")) as string;
    const [shared, isolated] = total.split(/\s+/).slice(1).map(Number) as [number, number];
    expect(shared).toBeLessThan(isolated);
    // The README: every replica's regret is lower when shared.
    for (const line of out.split("\n").filter((l) => /^gw\d/.test(l))) {
      const [own, alone] = line.split(/\s+/).slice(1).map(Number) as [number, number];
      expect(own, line).toBeLessThan(alone);
    }
    expect(out).toContain("all shared replicas hold the same learned state: true");
  }, 130_000);
});
