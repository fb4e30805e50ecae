import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  Cosmos,
  ONE_SHOT_OPTION_KEYS,
  OneShot,
  QUERY_ALL_OPTION_KEYS,
  QueryAll,
  reservationIndex,
  THRESHOLD_CASCADE_OPTION_KEYS,
  ThresholdCascade,
  WEITZMAN_ORACLE_OPTION_KEYS,
  WeitzmanOracle,
} from "../src/index.js";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
const code = (c: string) => expect.objectContaining({ name: "RouteKitError", code: c });

describe("outside audit: README sentences checked against the code", () => {
  it("reservationIndex brackets the index up to the bound the README states, and throws NUMERICAL beyond it", () => {
    const m = /`reservationIndex` throws `NUMERICAL` when the index lies beyond (?:about )?\+-([0-9.]+e[0-9]+)/.exec(
      readme,
    );
    expect(m).not.toBeNull();
    const bound = Number((m as RegExpExecArray)[1]);
    for (const sign of [1, -1]) {
      const inside = sign * 0.99 * bound;
      expect(reservationIndex((s) => Math.max(inside - s, 0), 0.1) / inside).toBeCloseTo(1, 12);
      const beyond = sign * 1.01 * bound; // (was: 1.6e60 stated, 3.2e60 solved)
      expect(() => reservationIndex((s) => Math.max(beyond - s, 0), 0.1)).toThrow(code("NUMERICAL"));
    }
  });

  it("each baseline takes exactly the options its README row lists (plus seed / rng)", () => {
    const table = readme.slice(readme.indexOf("| baseline | options |"));
    const rows = new Map<string, string[]>();
    for (const line of table.split("\n").slice(2)) {
      if (!line.startsWith("|")) break;
      const [, name, options] = line.split("|").map((c) => c.trim());
      rows.set(
        (name as string).replace(/`/g, ""),
        (options as string).split(",").map((o) => o.trim().replace(/`/g, "")),
      );
    }
    const keys: Record<string, readonly string[]> = {
      QueryAll: QUERY_ALL_OPTION_KEYS,
      ThresholdCascade: THRESHOLD_CASCADE_OPTION_KEYS,
      WeitzmanOracle: WEITZMAN_ORACLE_OPTION_KEYS,
      OneShot: ONE_SHOT_OPTION_KEYS,
    };
    expect([...rows.keys()].sort()).toEqual(Object.keys(keys).sort());
    for (const [name, k] of Object.entries(keys))
      expect([...(rows.get(name) as string[])].sort(), name).toEqual(
        k.filter((x) => x !== "seed" && x !== "rng").sort(),
      );
    // What the old sentence ("Baselines share ... rewardParameter ... ridge") promised and the code refuses.
    const dims = { arms: ["a"], contextDim: 1, outputDim: 1 };
    expect(() => new OneShot({ ...dims, rewardParameter: [1] } as never)).toThrow(code("INVALID_ARGUMENT"));
    const oracle = { ...dims, rewardParameter: [1], indexParameters: { a: [0.5, 0] } };
    expect(() => new WeitzmanOracle({ ...oracle, ridge: 1 } as never)).toThrow(code("INVALID_ARGUMENT"));
    expect(new QueryAll({ ...dims, ridge: 2 }).toJSON().kind).toBe("pandora/query-all");
    expect(new ThresholdCascade({ ...dims, rewardIntercept: true }).threshold).toBe(0.7);
  });

  it("without horizon, T in the radii is the current period t, at least 2, as the README says", () => {
    const row = readme.split("\n").find((l) => l.startsWith("| `horizon` |")) as string;
    expect(row).toMatch(/at least 2/); // (it said "the current period t", which is 1 after the first episode)
    const o = { arms: ["a", "b"], contextDim: 1, outputDim: 1, rewardParameter: [1] };
    for (const [episodes, T] of [
      [1, 2],
      [2, 2],
      [3, 3],
      [7, 7],
    ] as const) {
      const anytime = new Cosmos(o);
      const fixed = new Cosmos({ ...o, horizon: T });
      for (const p of [anytime, fixed])
        for (let t = 0; t < episodes; t++) {
          const e = p.begin([0.2]);
          for (let s = p.next(e); "query" in s; s = p.next(e)) p.observe(e, s.query, [0.5 + 0.1 * t], 0.05);
          p.choose(e);
          p.feedback(e, 1);
        }
      expect(anytime.indexRadius(0), `after ${episodes} episodes`).toBe(fixed.indexRadius(0));
    }
  });
});
