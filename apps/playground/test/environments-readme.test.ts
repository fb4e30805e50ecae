/**
 * The promises of packages/environments/README.md (the basic environments), checked from the playground,
 * which depends on every package the README's example imports.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ErrorCode, isRouteKitError, Rng } from "@routekit/core";
import { LinearContextualBandit, StochasticBandit } from "@routekit/environments";
import { describe, expect, it } from "vitest";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(isRouteKitError(e), String(e)).toBe(true);
    return (e as { code: string }).code;
  }
  return undefined;
}

describe("environments README", () => {
  it("the example runs as written: LinUCB beats UCB1 on the linear contextual bandit", async () => {
    const text = readFileSync(
      fileURLToPath(new URL("../../../packages/environments/README.md", import.meta.url)),
      "utf8",
    );
    // The runExperiment example (the one before it, driving the environment by hand, is run by the README-examples test).
    const code = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].find((b) =>
      (b[1] as string).includes("runExperiment({"),
    )?.[1] as string;
    const file = fileURLToPath(new URL("./environments-readme.generated.ts", import.meta.url));
    writeFileSync(file, `${code}\nexport { result };\n`);
    const table = console.table;
    const rows: unknown[] = [];
    console.table = (r: unknown) => rows.push(r);
    try {
      const mod = (await import(/* @vite-ignore */ file)) as {
        result: { summary: { policy: string; regret: { mean: number } }[] };
      };
      expect(rows).toHaveLength(1);
      const regret = Object.fromEntries(mod.result.summary.map((s) => [s.policy, s.regret.mean]));
      expect(regret.LinUCB).toBeLessThan(regret.UCB1 as number);
    } finally {
      console.table = table;
      rmSync(file, { force: true });
    }
  }, 60_000);

  it("bad options throw the listed codes; unknown arms UNKNOWN_ARM; use before reset INVALID_STATE", () => {
    expect(codeOf(() => new StochasticBandit({ k: 0 }))).toBe(ErrorCode.OutOfRange);
    expect(codeOf(() => new StochasticBandit({ means: [0.5, Number.NaN] }))).toBe(ErrorCode.NonFinite);
    expect(codeOf(() => new StochasticBandit({ k: "3" as never }))).toBe(ErrorCode.InvalidArgument);
    expect(codeOf(() => new StochasticBandit({ arms: ["a", "a"] }))).toBe(ErrorCode.DuplicateArm);
    expect(codeOf(() => new StochasticBandit({ arms: ["a", "b"], means: [0.5, 0.5, 0.5] }))).toBe(
      ErrorCode.DimensionMismatch,
    );
    expect(
      codeOf(
        () =>
          new LinearContextualBandit({
            contextDim: 3,
            k: 2,
            thetas: [
              [1, 0, 0],
              [0, 1],
            ],
          }),
      ),
    ).toBe(ErrorCode.DimensionMismatch);
    const env = new StochasticBandit({ k: 3 });
    expect(codeOf(() => env.pull("arm0"))).toBe(ErrorCode.InvalidState);
    env.reset(Rng.fromSeed(1));
    env.next(0);
    expect(codeOf(() => env.pull("nope"))).toBe(ErrorCode.UnknownArm);
  });

  it("k-armed: `means` default drawn in [0, 1] per reset; regret is against the best mean, the best fixed arm", () => {
    const env = new StochasticBandit({ k: 6 });
    env.reset(Rng.fromSeed(3));
    const means = [...env.means];
    for (const m of means) expect(m >= 0 && m <= 1).toBe(true);
    const best = means.indexOf(Math.max(...means));
    expect(env.bestFixedArm()).toBe(`arm${best}`);
  });
});
