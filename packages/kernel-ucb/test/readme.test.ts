import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as lib from "../src/index.js";
import { PakUcb, RffUcb } from "../src/index.js";

/** The README's complete TypeScript examples (blocks that import the package). */
function examples(): string[] {
  const text = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .filter((b) => b.includes('from "@routekit/kernel-ucb"'));
}

/** A seeded stand-in for Math (Math.random from an LCG), so an example's printed numbers can be compared. */
function seededMath(seed: number): Math {
  let s = seed;
  const m = Object.create(Math) as Math & { random: () => number };
  m.random = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return m;
}

/** Runs an example as written (TypeScript transpiled, the package import bound to the sources). */
function run(code: string, math: Math = Math): string[] {
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const body = js.replace(
    /import\s*\{([^}]*)\}\s*from\s*"@routekit\/kernel-ucb";/g,
    (_m, names: string) => `const {${names}} = lib;`,
  );
  const printed: string[] = [];
  const log = (...a: unknown[]) => printed.push(JSON.stringify(a));
  new Function("lib", "console", "Math", body)(lib, { log }, math);
  return printed;
}

describe("README examples", () => {
  it("every complete example runs as written", () => {
    const blocks = examples();
    expect(blocks.length).toBe(2);
    for (const b of blocks) expect(run(b).length).toBe(1);
  });

  it("the first example, run as written, prints what its comment says: model-a mean 0.89, model-b far lower", () => {
    // Its printed line, over 10 seeds of Math.random (measured: model-a 0.872-0.908, model-b -0.274 to -0.140).
    const stated = Number(/model-a: mean ([0-9.]+)/.exec(examples()[0] as string)?.[1]);
    expect(stated).toBe(0.89);
    const means: number[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const printed = run(examples()[0] as string, seededMath(seed));
      expect(printed.length).toBe(1);
      const [preds] = JSON.parse(printed[0] as string) as [{ arm: string; mean: number }[]];
      expect(preds.map((p) => p.arm)).toEqual(["model-a", "model-b"]);
      const [a, b] = preds as unknown as [{ mean: number }, { mean: number }];
      console.log(`seed ${seed}: model-a mean ${a.mean.toFixed(3)}, model-b ${b.mean.toFixed(3)}`);
      expect(Math.abs(a.mean - stated)).toBeLessThan(0.05);
      expect(b.mean).toBeLessThan(a.mean - 0.5);
      means.push(a.mean);
    }
    const avg = means.reduce((x, y) => x + y, 0) / means.length;
    expect(Math.abs(avg - stated)).toBeLessThan(0.02);
  });

  it("the first example's snapshot resumes exactly (its last line's comment)", () => {
    const math = seededMath(3);
    const router = new RffUcb({ arms: ["model-a", "model-b"], contextDim: 4, seed: 1 });
    for (let t = 0; t < 500; t++) {
      const embedding = Float64Array.from({ length: 4 }, () => math.random() - 0.5);
      const decision = router.select(embedding);
      const reward = (embedding[0] as number) > 0 === (decision.arm === "model-a") ? 0.9 : 0.1;
      router.update(decision, { reward });
    }
    const back = RffUcb.fromJSON(JSON.parse(JSON.stringify(router.toJSON())));
    expect(back.predict(Float64Array.of(1, 0, 0, 0))).toEqual(router.predict(Float64Array.of(1, 0, 0, 0)));
    const y = Float64Array.of(0.3, -0.1, 0.2, 0.5);
    expect(back.select(y)).toEqual(router.select(y));
    expect(JSON.stringify(back.toJSON())).toBe(JSON.stringify(router.toJSON()));
  });

  it("the warm-start example's log teaches PakUcb every logged point", () => {
    const printed = run(examples()[1] as string);
    const visits = JSON.parse(printed[0] as string)[0] as Record<string, number>;
    expect((visits["model-a"] ?? 0) + (visits["model-b"] ?? 0)).toBe(200);
    expect(new PakUcb({ arms: ["x"], contextDim: 1 }).visits()).toEqual({ x: 0 });
  });

  it("the log teaches PakUcb, RffUcb and KernelUcb; the Sup- variants refuse it (INVALID_EVENT, nothing changed)", () => {
    // The README said "any class of the family": a Sup- variant needs the stage only Sup- records carry.
    const live = new RffUcb({ arms: ["model-a", "model-b"], contextDim: 4, seed: 1 });
    const math = seededMath(5);
    const log: string[] = [];
    for (let t = 0; t < 50; t++) {
      const embedding = Float64Array.from({ length: 4 }, () => math.random() - 0.5);
      const decision = live.select(embedding);
      const record = live.decisionRecord(decision);
      const reward = (embedding[0] as number) > 0 === (decision.arm === "model-a") ? 0.9 : 0.1;
      live.update(decision, { reward });
      log.push(JSON.stringify({ ...record, feedback: { reward } }));
    }
    const arms = ["model-a", "model-b"];
    for (const p of [
      new PakUcb({ arms, contextDim: 4 }),
      new RffUcb({ arms, contextDim: 4 }),
      new lib.KernelUcb({ arms, contextDim: 4 }),
    ]) {
      for (const line of log) p.learn(JSON.parse(line));
      const n = p instanceof lib.KernelUcb ? p.regression().n : Object.values(p.visits()).reduce((x, y) => x + y, 0);
      expect(n).toBe(50);
    }
    for (const p of [
      new lib.SupPakUcb({ arms, contextDim: 4, horizon: 100 }),
      new lib.SupRffUcb({ arms, contextDim: 4, horizon: 100 }),
    ]) {
      const before = JSON.stringify(p.toJSON());
      expect(() => p.learn(JSON.parse(log[0] as string))).toThrow(expect.objectContaining({ code: "INVALID_EVENT" }));
      expect(JSON.stringify(p.toJSON())).toBe(before);
    }
  });
});
