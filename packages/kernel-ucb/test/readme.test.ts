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

/** Runs an example as written (TypeScript transpiled, the package import bound to the sources). */
function run(code: string): string[] {
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const body = js.replace(
    /import\s*\{([^}]*)\}\s*from\s*"@routekit\/kernel-ucb";/g,
    (_m, names: string) => `const {${names}} = lib;`,
  );
  const printed: string[] = [];
  const log = (...a: unknown[]) => printed.push(JSON.stringify(a));
  new Function("lib", "console", body)(lib, { log });
  return printed;
}

describe("README examples", () => {
  it("every complete example runs as written", () => {
    const blocks = examples();
    expect(blocks.length).toBe(2);
    for (const b of blocks) expect(run(b).length).toBeGreaterThan(0);
  });

  it("the first example learns that model-a is better when embedding[0] > 0", () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const router = new RffUcb({ arms: ["model-a", "model-b"], contextDim: 4, seed: 1 });
    for (let t = 0; t < 500; t++) {
      const embedding = Float64Array.from({ length: 4 }, () => random() - 0.5);
      const decision = router.select(embedding);
      const reward = (embedding[0] as number) > 0 === (decision.arm === "model-a") ? 0.9 : 0.1;
      router.update(decision, { reward });
    }
    const [a, b] = router.predict(Float64Array.of(1, 0, 0, 0));
    expect(a?.mean).toBeGreaterThan(0.75);
    expect(b?.mean).toBeLessThan(0.3);
    const back = RffUcb.fromJSON(JSON.parse(JSON.stringify(router.toJSON())));
    expect(back.predict(Float64Array.of(1, 0, 0, 0))).toEqual(router.predict(Float64Array.of(1, 0, 0, 0)));
  });

  it("the warm-start example's log teaches PakUcb every logged point", () => {
    const printed = run(examples()[1] as string);
    const visits = JSON.parse(printed[0] as string)[0] as Record<string, number>;
    expect((visits["model-a"] ?? 0) + (visits["model-b"] ?? 0)).toBe(200);
    expect(new PakUcb({ arms: ["x"], contextDim: 1 }).visits()).toEqual({ x: 0 });
  });
});
