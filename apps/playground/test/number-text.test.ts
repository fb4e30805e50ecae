import { describe, expect, it } from "vitest";
import { coerceParam } from "../src/spec.js";
import { runCli } from "./run-cli.js";

/** Number() read "0x10" as 16, "0b11" as 3, "0o7" as 7 and "Infinity" as a number: parameter values are decimal. */
describe("numeric parameter values: decimal or exponent notation only", () => {
  const compare = (env: string, policy: string, assignment: string, flag = "--param") =>
    runCli([
      "compare",
      "--env",
      env,
      "--policies",
      policy,
      flag,
      assignment,
      "--seeds",
      "1",
      "--horizon",
      "10",
      "--no-plots",
      "--workers",
      "1",
    ]);

  it("refuses hexadecimal, binary, octal, blank and infinite spellings of a number parameter, exit 2 with one line", async () => {
    for (const [env, policy, assignment, flag, message] of [
      ["arena-sim-2025", "stageroute", "stageroute.searchNodeLimit=Infinity", "--param", /searchNodeLimit must be/],
      ["arena-sim-2025", "stageroute", "stageroute.searchNodeLimit=0x10", "--param", /searchNodeLimit must be/],
      ["arena-sim-2025", "stageroute", "stageroute.budget=0b1", "--param", /budget must be/],
      ["arena-sim-2025", "stageroute", "stageroute.costUnit=-Infinity", "--param", /costUnit must be/],
      ["k-armed", "ucb1", "ucb1.exploration=0x10", "--param", /ucb1.exploration must be a number, got "0x10"/],
      ["k-armed", "ucb1", "ucb1.exploration=0o7", "--param", /ucb1.exploration must be a number, got "0o7"/],
      ["k-armed", "ucb1", "k=0x4", "--env-param", /environment k-armed.k must be a number, got "0x4"/],
      ["k-armed", "ucb1", "k=", "--env-param", /environment k-armed.k must be a number, got ""/],
    ] as const) {
      const r = await compare(env, policy, assignment, flag);
      expect(r.code, assignment).toBe(2);
      expect(r.err, assignment).toMatch(message);
      expect(r.err.trim().split("\n"), assignment).toHaveLength(1);
    }
  });

  it("keeps decimal and exponent notation (1e-3, .5, +2, 1E2) and a config file's numbers", () => {
    const defaults = { exploration: 1 };
    for (const [raw, x] of [
      ["1e-3", 1e-3],
      [" .5 ", 0.5],
      ["+2", 2],
      ["1E2", 100],
      ["-0.25", -0.25],
      ["3.", 3],
    ] as const) {
      expect(coerceParam("p", "exploration", raw, defaults), raw).toBe(x);
    }
    expect(coerceParam("p", "exploration", 0.125, defaults)).toBe(0.125);
    for (const raw of ["0x10", "0b1", "0o7", "Infinity", "-Infinity", "1e999", "1_000", "1e", "e3", ".", "", " "]) {
      expect(() => coerceParam("p", "exploration", raw, defaults), raw).toThrow(/p.exploration must be a number/);
    }
    expect(() => coerceParam("p", "exploration", Number.POSITIVE_INFINITY, defaults)).toThrow(/must be a number/);
  });
});
