import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The first ```ts block of the README, with the package import pointed at the sources. */
function readmeExample(): string {
  const text = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const m = /```ts\n([\s\S]*?)```/.exec(text);
  if (!m) throw new Error("README has no ts example");
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
