import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The README's fuller ```ts example (the one defining codeQuery), with the package import pointed at the sources. */
function readmeExample(): string {
  const text = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const m = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].find((b) => (b[1] as string).includes("const codeQuery"));
  if (!m) throw new Error("README has no ts example defining codeQuery");
  return (m[1] as string).replace('from "@routekit/hpg"', 'from "../src/index.js"');
}

describe("README example", () => {
  it("runs as written and routes a code-like query to the code model", async () => {
    const file = fileURLToPath(new URL("./readme-example.generated.ts", import.meta.url));
    writeFileSync(file, `${readmeExample()}\nexport { router, codeQuery, saved };\n`);
    const logs: unknown[][] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => logs.push(a);
    try {
      const mod = (await import(/* @vite-ignore */ file)) as {
        router: import("../src/index.js").Hpg;
        codeQuery: Float64Array;
        saved: string;
      };
      const pi = mod.router.probabilities(mod.codeQuery);
      const code = mod.router.arms.indexOf("code-e5");
      expect(pi[code]).toBe(Math.max(...pi));
      expect(logs.length).toBe(1);
      const { Hpg } = await import("../src/index.js");
      const back = Hpg.fromJSON(JSON.parse(mod.saved));
      expect(Array.from(back.probabilities(mod.codeQuery))).toEqual(Array.from(pi));
    } finally {
      console.log = log;
      rmSync(file, { force: true });
    }
  });
});

describe("README options table: the documented defaults", () => {
  it("Hpg: latentRank 1, radius 2 latentRank, beta radius / d, horizon 10,000, stepSize sqrt(M ln max(d, 3) / T), maxRank min(d, 32), reorthEvery 1,000", async () => {
    const { Hpg } = await import("../src/index.js");
    const p = new Hpg({ arms: ["a", "b", "c"], contextDim: 40 });
    expect([p.latentRank, p.radius, p.beta, p.horizon, p.maxRank, p.reorthEvery]).toEqual([
      1,
      2,
      2 / 40,
      10_000,
      32,
      1000,
    ]);
    expect(p.stepSize).toBe(Math.sqrt((3 * Math.log(40)) / 10_000));
    expect([p.normalizeContext, p.clipRewards]).toEqual([false, true]);
    const q = new Hpg({ arms: ["a"], contextDim: 2, latentRank: 2, horizon: 100 });
    expect([q.radius, q.beta, q.maxRank]).toEqual([4, 2, 2]);
    expect(q.stepSize).toBe(Math.sqrt((2 * Math.log(3)) / 100)); // M at least 2, ln max(d, 3)
    const tiny = new Hpg({ arms: ["a", "b"], contextDim: 4, radius: 5e-324 });
    expect(tiny.beta).toBe(Number.MIN_VALUE); // at least the smallest positive double
  });

  it("ParameterFreeHpg, EuclideanPg, LogLinearPg, Exp3: step sizes, gamma, initial wealth", async () => {
    const { EuclideanPg, Exp3, LogLinearPg, ParameterFreeHpg } = await import("../src/index.js");
    const arms = ["a", "b", "c", "d"];
    const pf = new ParameterFreeHpg({ arms, contextDim: 8, horizon: 400 });
    expect([pf.initialWealth, pf.maxRank, pf.reorthEvery]).toEqual([1, 8, 1000]);
    expect(pf.stepSize).toBe(Math.sqrt((4 * Math.log(8)) / 400));
    const eu = new EuclideanPg({ arms, contextDim: 8, latentRank: 3, horizon: 400 });
    expect(eu.radius).toBe(6);
    expect(eu.stepSize).toBe(6 * Math.sqrt(4 / (2 * 400)));
    expect(new EuclideanPg({ arms, contextDim: 8, radius: 5e-324 }).stepSize).toBe(Number.MIN_VALUE);
    expect(new LogLinearPg({ arms, contextDim: 8, horizon: 400 }).stepSize).toBe(Math.sqrt(4 / 400));
    expect(new Exp3({ arms, contextDim: 8, horizon: 400 }).gamma).toBe(
      Math.min(1, Math.sqrt((4 * Math.log(4)) / ((Math.E - 1) * 400))),
    );
    expect(new Exp3({ arms, contextDim: 8, horizon: 1 }).gamma).toBe(1);
  });
});

describe("README: learn takes the distribution from the event", () => {
  it("any router of the package learns another's event; parameter-free HPG only its own (INVALID_EVENT, state unchanged)", async () => {
    const { EuclideanPg, Exp3, Hpg, LogLinearPg, ParameterFreeHpg, UniformRouter } = await import("../src/index.js");
    const { ErrorCode, isRouteKitError } = await import("@routekit/core");
    const q = Float64Array.of(0.5, -0.5, 0, 0);
    const mk = [Hpg, EuclideanPg, LogLinearPg, Exp3, UniformRouter, ParameterFreeHpg].map(
      (C) => () => new C({ arms: ["a", "b", "c"], contextDim: 4, seed: 2 }),
    );
    for (const from of mk) {
      const src = from();
      const record = { ...src.decisionRecord(src.select(q)), feedback: { reward: 1 } };
      for (const to of mk) {
        const dst = to();
        const before = JSON.stringify(dst.toJSON());
        const event = JSON.parse(JSON.stringify(record));
        if (dst instanceof ParameterFreeHpg && !(src instanceof ParameterFreeHpg)) {
          let err: unknown;
          try {
            dst.learn(event);
          } catch (e) {
            err = e;
          }
          expect(isRouteKitError(err) && err.code).toBe(ErrorCode.InvalidEvent);
          expect(JSON.stringify(dst.toJSON())).toBe(before);
        } else {
          dst.learn(event);
          if (!(dst instanceof UniformRouter)) expect(JSON.stringify(dst.toJSON())).not.toBe(before);
        }
      }
    }
  });
});
